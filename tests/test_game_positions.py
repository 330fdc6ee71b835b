"""Hand-made end-of-game positions (issue 18) where the move that wins the game is not the move that
wins the round: Dominican sides at 18, 19 and 20 (only most cards, Big Casino or Little Casino wins
them the game, rules.md 1.14.4 and S6-S8), a Royal count-out with both sides close (1.14.3), and
classic near the target (1.14.2).

Every position is the last deal of a two-player round, so the searcher counts every card, the search
goes to the end of the round and each move's tally is certain: the chances are exact for the game
table. Each test states the move the game goal plays, checks that the round-margin goal plays another
(and that far from the target the two agree), and that ``suggest --json`` reports a higher chance to
win the game for the game's move than for the round's."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from casino_coach.bots.policies import make_policy
from casino_coach.bots.searcher import SearcherPolicy
from casino_coach.cli import app
from casino_coach.coach import verdict
from casino_coach.coach.classes import GAME_THRESHOLDS, MoveClass, Thresholds
from casino_coach.coach.verdict import analysis_limits, game_verdict_of, judge, verdict_of
from casino_coach.coach.winning import GameEdge
from casino_coach.engine.cards import card_name, parse_card
from casino_coach.formats.codec import move_from_json, move_to_json
from casino_coach.formats.position import Position, position_from_obj
from casino_coach.search import MoveValue, root_moves
from casino_coach.search.chances import exact_deal
from casino_coach.services.engine_session import EngineSession

# Everything that scores by itself (rules.md 1.12): the positions place these by hand, the rest of the
# pack fills the capture piles to the sizes asked for.
_SCORING = {"TD", "2S"} | {f"A{s}" for s in "CDHS"} | {f"{r}S" for r in "23456789TJQK"}
_SPADES = ["AS", "2S", "3S", "4S", "5S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"]  # 6♠ is played


def _name(text: str) -> str:
    return card_name(parse_card(text))


def position(
    preset: str,
    hand: Sequence[str],
    loose: Sequence[str],
    other: Sequence[str],
    *,
    mine: Sequence[str],
    theirs: Sequence[str],
    pile: int,
    scores: tuple[int, int],
) -> dict[str, Any]:
    """A ``casino-position`` of the last deal: seat 0 to move with ``hand``, seat 1 (the dealer, who
    captured last) holding ``other`` (unseen by seat 0 but the only cards left, so known to a counter),
    ``loose`` on the table; side 0's pile holds ``mine`` and plain cards up to ``pile`` cards, side 1's
    ``theirs`` and the rest of the pack."""
    placed = {_name(c) for c in [*hand, *loose, *other, *mine, *theirs]}
    rest = [card_name(c) for c in range(52) if card_name(c) not in placed]
    assert not {_name(c) for c in _SCORING} & set(rest), "place every scoring card by hand"
    fill = pile - len(mine)
    return _seat_0_to_move(preset, hand, loose, scores) | {
        "hand_sizes": [len(hand), len(other)],
        "stock": 0,
        "captured": [[*mine, *rest[:fill]], [*theirs, *rest[fill:]]],
        "sweeps": [0, 0],
        "last_capture": 1,
    }


def _seat_0_to_move(
    preset: str, hand: Sequence[str], loose: Sequence[str], scores: tuple[int, int]
) -> dict[str, Any]:
    """What every position here shares: two players, seat 0 to move with ``hand``, seat 1 dealing."""
    return {
        "format": "casino-position",
        "version": 1,
        "rules": {"preset": preset},
        "players": 2,
        "to_move": 0,
        "hand": list(hand),
        "table": {"loose": list(loose), "builds": []},
        "scores": list(scores),
        "dealer": 1,
    }


# Seat 0 holds 10♣ and 6♣; seat 1 holds 10♥ and 6♠; the table has 10♦ and two 6s' worth. 10♣ takes
# Big Casino; 6♣ takes the cards. The piles decide who has most cards after each line.
def _tens_and_sixes(preset: str, scores: tuple[int, int], pile: int, mine_spades: int) -> dict[str, Any]:
    return position(
        preset,
        ["TC", "6C"],
        ["TD", "6H", "6D"],
        ["TH", "6S"],
        mine=[*_SPADES[:mine_spades], "AC", "AH"],
        theirs=[*_SPADES[mine_spades:], "AD"],
        pile=pile,
        scores=scores,
    )


CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    # Dominican at 18: only most cards wins. 6♣ takes two cards and most cards with them (27), and so
    # the game; 10♣ takes Big Casino, a point more for the round, and side 1 then takes the sixes.
    "dominican-18": (_tens_and_sixes("dominican", (18, 10), 24, 6), "6♣ captures 6♦ 6♥", "10♣ captures 10♦"),
    # Dominican at 19: only Big Casino wins. 7♠ takes four cards with the ace and Little Casino, 7
    # points more for the round than taking 10♦ with 10♣, but it leaves 10♦ to seat 1's 10♥.
    "dominican-19": (
        position(
            "dominican",
            ["TC", "7S"],
            ["TD", "5S", "2S", "6H", "AD"],
            ["TH", "3C"],
            mine=["3S", "4S", "6S", "AC", "QS"],
            theirs=["8S", "9S", "TS", "JS", "KS", "AS", "AH"],
            pile=22,
            scores=(19, 10),
        ),
        "10♣ captures 10♦",
        "7♠ captures A♦ 2♠ 5♠ 6♥",
    ),
    # Dominican at 20: only Little Casino wins (the preset follows the seed, S6). 2♥ takes 2♠; 10♣
    # takes 10♦ and two cards with it, 3 points more for the round, and leaves 2♠ to seat 1's 2♦.
    "dominican-20": (
        position(
            "dominican",
            ["TC", "2H"],
            ["TD", "2S", "6H", "4H"],
            ["TH", "2D"],
            mine=[*_SPADES[2:8], "AC", "AH"],
            theirs=[_SPADES[0], *_SPADES[8:], "6S", "AD"],
            pile=24,
            scores=(20, 10),
        ),
        "2♥ captures 2♠",
        "10♣ captures 4♥ 6♥ 10♦",
    ),
    # Royal at 20-19, counted out in order (1.14.3): after 6♣ takes the sixes most cards is tied at 26,
    # and side 0's most spades comes next: 21, before side 1's Big Casino. After 10♣ takes 10♦ (a point
    # more for the round) side 1 has most cards, the first item counted: 22, and the game.
    "royal-20-19": (_tens_and_sixes("royal", (20, 19), 23, 7), "6♣ captures 6♦ 6♥", "10♣ captures 10♦"),
    # Classic at 19-11 (1.14.2, no count-out): 10♣ takes Big Casino, 19 + 2 = 21 and side 1 stays at
    # 20 with most cards: won. 6♣ takes three cards with A♦, a point more for the round, but ties most
    # cards (nobody scores them): 20-18, and the game goes on.
    "classic-19-11": (
        position(
            "classic",
            ["TC", "6C"],
            ["TD", "6H", "5D", "AD"],
            ["TH", "6S"],
            mine=[],
            theirs=[*_SPADES, "AC", "AH"],
            pile=22,
            scores=(19, 11),
        ),
        "10♣ captures 10♦",
        "6♣ captures A♦ 5♦ 6♥",
    ),
}

LIGHT = {"samples": 8, "nodes": 20_000}


def _choice(pos: Position, goal: str, scores: Sequence[float] | None) -> str:
    obs = pos.observation
    bot = make_policy("searcher", goal=goal, **LIGHT)
    return bot.choose(pos.rules, obs, root_moves(pos.rules, obs), random.Random(0), scores=scores).describe()


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_game_goal_plays_the_game_winning_move(case: str) -> None:
    obj, game_move, round_move = CASES[case]
    pos = position_from_obj(obj)
    assert _choice(pos, "game", pos.scores) == game_move
    assert _choice(pos, "round", pos.scores) == round_move
    # Without a game score, or far from the target, the game goal plays for the round.
    assert _choice(pos, "game", None) == round_move
    far = position_from_obj(obj | {"scores": [5, 5]})
    assert _choice(far, "game", far.scores) == round_move


def first_deal(
    preset: str, hand: Sequence[str], loose: Sequence[str], scores: tuple[int, int]
) -> dict[str, Any]:
    """A ``casino-position`` of the round's first move: seat 0 to move with ``hand``, ``loose`` on the
    table, seat 1 (the dealer) holding four unseen cards and 40 in the stock."""
    return _seat_0_to_move(preset, hand, loose, scores) | {"hand_sizes": [4, 4], "stock": 40}


# Before the last deal the searcher searches the round's lines with the game's weights (a chance to
# win the game for each category of the round, ``chances.game_weights``): both sides play every line
# for the game. 3♥ takes the three aces, a point more for the round than 10♠ taking 10♦; but a
# Dominican side at 19 wins only by Big Casino (rules.md 1.14.4): at 19 seat 0 wins the game with
# it at once, and against a side at 19 it keeps it from them.
EARLY: dict[str, tuple[dict[str, Any], str, str]] = {
    f"dominican-{mine}-{theirs}": (
        first_deal("dominican", ["TS", "3H", "5C", "8D"], ["TD", "AS", "AC", "AH"], (mine, theirs)),
        "10♠ captures 10♦",
        "3♥ captures A♣ A♥ A♠",
    )
    for mine, theirs in ((19, 10), (10, 19))
}


@pytest.mark.parametrize("case", sorted(EARLY))
def test_before_the_last_deal_the_game_goal_plays_for_the_game(case: str) -> None:
    obj, game_move, round_move = EARLY[case]
    pos = position_from_obj(obj)
    assert not exact_deal(pos.observation)
    assert _choice(pos, "game", pos.scores) == game_move
    assert _choice(pos, "round", pos.scores) == round_move
    far = position_from_obj(obj | {"scores": [10, 10]})
    assert _choice(far, "game", far.scores) == round_move


def test_the_searcher_counts_the_decisions_it_plays_for_the_game() -> None:
    # What benchmarks/searcher_strength.py --games reports: close decisions, those searched with the
    # game's weights, and those of an exact last deal where the game's move replaced the round's best.
    pos = position_from_obj(CASES["classic-19-11"][0])
    obs, rules = pos.observation, pos.rules
    bot = make_policy("searcher", goal="game", **LIGHT)
    assert isinstance(bot, SearcherPolicy)
    bot.choose(rules, obs, root_moves(rules, obs), random.Random(0), scores=pos.scores)
    assert exact_deal(obs)
    assert (bot.game_decisions, bot.searched_for_game, bot.played_for_game) == (1, 0, 1)
    # No score, or far from the target: not a decision for the game.
    bot.choose(rules, obs, root_moves(rules, obs), random.Random(0), scores=None)
    bot.choose(rules, obs, root_moves(rules, obs), random.Random(0), scores=(5, 5))
    assert (bot.game_decisions, bot.searched_for_game, bot.played_for_game) == (1, 0, 1)
    # Before the last deal: searched with the game's weights.
    early = position_from_obj(EARLY["dominican-19-10"][0])
    eobs = early.observation
    bot.choose(early.rules, eobs, root_moves(early.rules, eobs), random.Random(0), scores=early.scores)
    assert (bot.game_decisions, bot.searched_for_game, bot.played_for_game) == (2, 1, 1)
    # Playing for the round, a close decision is searched for the round only.
    for_round = make_policy("searcher", goal="round", **LIGHT)
    assert isinstance(for_round, SearcherPolicy)
    for_round.choose(rules, obs, root_moves(rules, obs), random.Random(0), scores=pos.scores)
    assert (for_round.game_decisions, for_round.searched_for_game, for_round.played_for_game) == (0, 0, 0)


runner = CliRunner()


def _suggest(tmp_path: Path, obj: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "position.json"
    path.write_bytes(orjson.dumps(obj))
    result = runner.invoke(app, ["suggest", str(path), "--json"], env={"COLUMNS": "100", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = orjson.loads(result.stdout)
    return out


def _chance(out: dict[str, Any], described: str, side: int) -> tuple[float, float]:
    """The (ev, chance to win the game of ``side``) that suggest gives the move described so."""
    for m in out["moves"]:
        _, move = move_from_json(m)
        if move.describe() == described:
            return m["ev"], m["win_chance"][side]
    raise AssertionError(f"{described} is not among suggest's moves")


@pytest.mark.parametrize("case", sorted(CASES))
def test_suggest_reports_the_higher_chance_for_the_game_winning_move(case: str, tmp_path: Path) -> None:
    obj, game_move, round_move = CASES[case]
    out = _suggest(tmp_path, obj)
    assert out["exact"] is True
    assert out["win_chance"]["scores"] == obj["scores"]
    ev_game, p_game = _chance(out, game_move, 0)
    ev_round, p_round = _chance(out, round_move, 0)
    # The round's values rank the round's move first, its chance to win the game is lower.
    assert out["moves"][0]["ev"] == ev_round > ev_game
    assert p_game > p_round
    assert p_game == max(m["win_chance"][0] for m in out["moves"])
    # The move to play for the game, as the searcher plays it, with its exact gain over the round's.
    choice = out["win_chance"]["best_for_game"]
    _, move = move_from_json(choice)
    assert move.describe() == game_move
    assert choice["gain"] == pytest.approx(p_game - p_round, abs=1e-4)
    assert choice["gain_interval"] == [choice["gain"], choice["gain"]]
    # Far from the target the round's best is the game's too: nothing to add.
    assert _suggest(tmp_path, obj | {"scores": [5, 5]})["win_chance"]["best_for_game"] is None


@pytest.mark.parametrize("case", sorted(EARLY))
def test_before_the_last_deal_suggest_names_the_move_the_searcher_plays_for_the_game(
    case: str, tmp_path: Path
) -> None:
    # suggest searches a close decision before the last deal for the game too, as the searcher bot
    # does (``judge(..., scores=...)``): the move it names for the game is the bot's, and its chance
    # to win (along lines both sides play for the game) is the highest of the moves.
    obj, game_move, round_move = EARLY[case]
    out = _suggest(tmp_path, obj)
    assert out["exact"] is False
    _, first = move_from_json(out["moves"][0])
    assert first.describe() == round_move  # the round's values still rank the round's move first
    choice = out["win_chance"]["best_for_game"]
    _, move = move_from_json(choice)
    assert move.describe() == game_move
    _, p_game = _chance(out, game_move, 0)
    _, p_round = _chance(out, round_move, 0)
    # (paired over the worlds both moves were searched in: about the difference of the two chances)
    assert choice["gain"] == pytest.approx(p_game - p_round, abs=0.01) and choice["gain"] > 0.05
    assert _suggest(tmp_path, obj | {"scores": [10, 10]})["win_chance"]["best_for_game"] is None


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_round_move_is_best_for_the_round_and_classed_for_the_game(case: str) -> None:
    """The verdict on the round's move (``verdict_of`` with the game score, as analyze, suggest --at
    and the engine give it): best for the round, and for the game the chance it gives up against the
    game's move, exact (a point interval), in the class ``GAME_THRESHOLDS`` gives it; the game's move
    is best for the game. Far from the target there is no verdict for the game."""
    obj, game_move, round_move = CASES[case]
    pos = position_from_obj(obj)
    obs = pos.observation
    moves = {m.describe(): m for m in root_moves(pos.rules, obs)}
    given_up = 0.0
    for played in (round_move, game_move):
        res = judge(pos.rules, obs, analysis_limits(), Thresholds(), moves[played])
        v = verdict_of(pos.rules, obs, res, moves[played], Thresholds(), scores=pos.scores)
        assert res.exact and v.game is not None and not v.game.uncertain
        far = verdict_of(pos.rules, obs, res, moves[played], Thresholds(), scores=(5, 5))
        assert far.game is None
        if played == round_move:
            assert v.cls == MoveClass.BEST and v.game.best.describe() == game_move
            assert v.game.lost > 0 and v.game.low == v.game.high == pytest.approx(v.game.lost)
            assert v.game.cls == GAME_THRESHOLDS.classify(v.game.lost) != MoveClass.BEST
            given_up = v.game.lost
        else:
            # Worse for the round, ahead for the game by just what the round's move gives up.
            assert v.cls != MoveClass.BEST and v.game.lost == 0 and v.game.cls == MoveClass.BEST
            assert v.game.ahead == pytest.approx(given_up) and given_up > 0


def test_classic_at_equal_scores_the_goals_agree_when_the_round_is_certain() -> None:
    """At 19-19 in classic (no count-out) the higher total wins, so with a certain round the game is
    won exactly by the moves that win the round by a point or more: both goals choose alike there. The
    goals part only where the round is uncertain (a chance of a win against an expected margin) or
    the scores differ, as at 19-11 above."""
    obj = CASES["classic-19-11"][0] | {"scores": [19, 19]}
    pos = position_from_obj(obj)
    assert _choice(pos, "game", pos.scores) == _choice(pos, "round", pos.scores)


def test_the_best_for_the_game_is_the_move_that_beats_the_played_one_most_surely(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``game_verdict_of`` compares the move played with the move whose edge over it has the highest
    low end, not the highest mean: a move searched in a handful of worlds (it left the race early)
    can show a large mean edge by chance alone (the bundled Dominican game, ply 104: 10♣ captures 10♦
    at +8.0% over 13 worlds, -1.4% to +17.3%, against 4♥ builds 10 at +1.5% over 70, +0.5% to +2.6%).
    Edges within CHANCE_EPSILON of 0 are none: float rounding must not name another best move."""
    obj, game_move, round_move = CASES["dominican-18"]
    pos = position_from_obj(obj)
    obs = pos.observation
    moves = {m.describe(): m for m in root_moves(pos.rules, obs)}
    res = judge(pos.rules, obs, analysis_limits(), Thresholds(), moves[round_move])
    noisy, sure = (MoveValue(moves[d], 0.0, 1.0, ()) for d in (game_move, round_move))

    def edges(*args: object) -> list[GameEdge]:
        return [GameEdge(noisy, 0.08, -0.014, 0.173, 13), GameEdge(sure, 0.015, 0.005, 0.026, 70)]

    monkeypatch.setattr(verdict, "game_edges", edges)
    g = game_verdict_of(pos.rules, obs, res, moves["6♣ captures 6♦ 6♥"], pos.scores)
    assert g is not None and g.best == moves[round_move]
    # The interval is that edge's own (the royal game, ply 81, read "11.6% given up (11.6% to 14.0%)
    # against 9♣ builds 10 with A♥", the 14.0% the top of another move's interval).
    assert (g.lost, g.low, g.high) == (0.015, 0.005, 0.026) and g.cls == MoveClass.GOOD and g.uncertain

    def level(*args: object) -> list[GameEdge]:
        return [GameEdge(noisy, 1e-16, -1e-16, 3e-16, 9)]

    monkeypatch.setattr(verdict, "game_edges", level)
    played = moves["6♣ captures 6♦ 6♥"]
    g = game_verdict_of(pos.rules, obs, res, played, pos.scores)
    assert g is not None and g.best == played and g.lost == 0.0 and g.cls == MoveClass.BEST


@pytest.mark.parametrize("case", ["dominican-18", "royal-20-19"])
def test_the_engine_names_the_move_for_the_game_and_classes_the_round_move(case: str) -> None:
    """The engine's ``analyze`` on a hand-made position (issue 18): ``best_for_game`` is the game's
    move with its exact gain, and the verdict on the round's move carries its class for the game, as
    suggest and analyze give them."""
    obj, game_move, round_move = CASES[case]
    engine = EngineSession()
    assert engine.request({"type": "position", "position": obj})["type"] == "state"
    pos = position_from_obj(obj)
    moves = {m.describe(): m for m in root_moves(pos.rules, pos.observation)}
    played = move_to_json(moves[round_move], pos.observation.seat)
    answer = engine.request({"type": "analyze", "move": played})
    choice = answer["win_chance"]["best_for_game"]
    assert move_from_json(choice)[1].describe() == game_move and choice["gain"] > 0
    g = answer["verdict"]["game_class"]
    assert g["class"] not in ("best", "good") and g["lost"] == choice["gain"]
    assert move_from_json(g["best"])[1].describe() == game_move


def test_moves_equal_for_the_round_are_still_judged_for_the_game() -> None:
    """Every move worth +3.00 for the round, but the builds leave 38% to win the game and the trails
    52% (Dominican, 14-19, the last deal: after a trail Ana can still choose to trail her last card
    and end at 17 rather than 20, where only 2♠ could win her the game). The verdict used to call the
    build "forced" and say nothing for the game; it is a blunder for the game (a QA position)."""
    pos = position_from_obj(
        {
            "format": "casino-position",
            "version": 1,
            "rules": {"preset": "dominican"},
            "players": 2,
            "to_move": 0,
            "hand": ["TH", "AD"],
            "table": {"loose": ["4S", "5D", "JD", "QD"], "builds": []},
            "hand_sizes": [2, 1],
            "stock": 0,
            "captured": [
                [
                    "TD",
                    "3S",
                    "5S",
                    "6S",
                    "7S",
                    "8S",
                    "2C",
                    "3C",
                    "4C",
                    "5C",
                    "6C",
                    "7C",
                    "8C",
                    "9C",
                    "TC",
                    "JC",
                    "QC",
                    "KC",
                    "2D",
                ],
                [
                    "AC",
                    "AH",
                    "AS",
                    "9S",
                    "TS",
                    "JS",
                    "QS",
                    "KS",
                    "3D",
                    "4D",
                    "6D",
                    "7D",
                    "8D",
                    "9D",
                    "KD",
                    "2H",
                    "3H",
                    "4H",
                    "5H",
                    "6H",
                    "7H",
                    "8H",
                    "9H",
                    "JH",
                    "QH",
                    "KH",
                ],
            ],
            "sweeps": [2, 1],
            "last_capture": 1,
            "scores": [14, 19],
        }
    )
    obs = pos.observation
    assert obs.dealer == 0  # seat 1 led this deal
    moves = {m.describe(): m for m in root_moves(pos.rules, obs)}
    build = moves["A♦ builds 10 with 4♠ 5♦"]
    res = judge(pos.rules, obs, analysis_limits(), Thresholds(), build)
    assert res.exact and len({round(mv.ev, 9) for mv in res.moves}) == 1  # all equal for the round
    v = verdict_of(pos.rules, obs, res, build, Thresholds(), scores=pos.scores)
    assert not v.forced and v.cls == MoveClass.BEST and v.game is not None
    assert v.game.best.describe().endswith("trails") and v.game.lost == pytest.approx(0.1419, abs=1e-4)
    assert v.game.cls == MoveClass.BLUNDER
    # Far from the target nothing tells the moves apart: forced.
    assert verdict_of(pos.rules, obs, res, build, Thresholds(), scores=(5, 5)).forced


# Issue 41: the last deal of a typed position with the other hand unknown (the worlds are sampled, not
# one): at 19-5 with 10♠ 9♣ in hand, the search for the game ranks 9♣ taking five cards first by its
# linear weights; the chances after the worlds' outcomes show that in Dominican, where a side at 19
# wins only by Big Casino, 10♠ taking 10♦ wins the game at once. suggest names the game's move best,
# with the round's value beside it. In classic and royal the five-card capture is best for both.
_TYPED_19_5 = ["--hand", "TS 9C", "--table", "TD 4H 5C 2S 7S 9H", "--hand-sizes", "2,2", "--scores", "19,5"]


@pytest.mark.parametrize(
    ("preset", "best"),
    [
        ("dominican", "10♠ captures 10♦"),
        ("classic", None),
        ("royal", None),
    ],
)
def test_suggest_names_the_game_winning_move_best(preset: str, best: str | None) -> None:
    env = {"COLUMNS": "300", "NO_COLOR": "1"}
    args = ["suggest", "--preset", preset, *_TYPED_19_5]
    got = runner.invoke(app, [*args, "--json"], env=env)
    assert got.exit_code == 0, got.output
    out = orjson.loads(got.stdout)
    choice = out["win_chance"]["best_for_game"]
    round_best = "9♣ captures 2♠ 4♥ 5♣ 7♠ 9♥"
    assert move_from_json(out["moves"][0])[1].describe() == round_best
    text = runner.invoke(app, args, env=env)
    assert text.exit_code == 0, text.output
    if best is None:
        assert choice is None
        assert f"Best: {round_best}." in text.stdout
        return
    assert move_from_json(choice)[1].describe() == best
    _, p_best = _chance(out, best, 0)
    _, p_round = _chance(out, round_best, 0)
    assert p_best == 1.0 > p_round and choice["gain"] > 0
    pattern = rf"Best: {best}, for the game: 100% to win it, against 9\d% after {round_best}, which is worth"
    assert re.search(pattern, text.stdout), text.stdout
