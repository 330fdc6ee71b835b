"""The game-winning model (search/chances.py, reported by coach/winning.py): the dynamic
programming on hand-made round distributions, the shipped table's invariants, the search's round
outcomes as tallies, and the table against whole games of the bot it was measured with."""

from __future__ import annotations

import math
import random
from pathlib import Path

import orjson
import pytest

from casino_coach.bots.arena import game_from, play
from casino_coach.bots.policies import make_policy
from casino_coach.coach.winning import (
    GameTable,
    canonical_tally,
    chances_after,
    decision_chances,
    rotate,
    shipped_tables,
    solve,
    table_for,
    world_tallies,
)
from casino_coach.engine.cards import ACES_COUNT_OUT
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Tally, score_round, score_tally, tally_of
from casino_coach.formats.game import Game
from casino_coach.search import Outcome, chances
from casino_coach.services.decision import Effort, TypedPosition, result_json, suggest
from casino_coach.services.engine_session import EngineSession

CLASSIC = RuleSet.from_preset("classic")
ROYAL = RuleSet.from_preset("royal")
DOMINICAN = RuleSet.from_preset("dominican")


def everything(side: int, sweeps: tuple[int, int] = (0, 0)) -> Tally:
    """A 2-side round in which ``side`` takes every item (11 points and its sweeps)."""
    cards = (1, 0) if side == 0 else (0, 1)
    return Tally(cards, cards, side, side, (side,) * 4, sweeps, -1)


def test_a_tally_scores_as_its_round() -> None:
    rng = random.Random(3)
    bot = make_policy("greedy")
    for preset in ("classic", "royal", "dominican"):
        rules = RuleSet.from_preset(preset)
        for seed in range(4):
            end = play(rules, [bot, bot], seed).state
            for scores in ((0, 0), (18, 3), (19, 20), (rng.randrange(21), rng.randrange(21))):
                a = score_round(rules, end, scores)
                b = score_tally(rules, canonical_tally(rules, tally_of(end)), scores)
                assert (a.points, a.winner, a.awards) == (b.points, b.winner, b.awards)


def test_rotate_renames_the_sides() -> None:
    t = Tally((1, 0, 0), (0, 1, 0), 2, -1, (0, 1, 2, 0), (3, 0, 1), 1)
    r = rotate(t, 1)
    assert r == Tally((0, 1, 0), (0, 0, 1), 0, -1, (1, 2, 0, 1), (1, 3, 0), 2)
    assert rotate(r, 2) == t


def test_one_side_taking_everything_wins_in_the_third_round() -> None:
    # The dealer's side takes all 11 points each round: 11-0, 11-11, then 22-11 for side 0.
    chances = solve(CLASSIC, 2, {everything(0): 1.0})
    assert chances[((0, 0), 0)] == pytest.approx((1.0, 0.0))
    assert chances[((0, 0), 1)] == pytest.approx((0.0, 1.0))
    assert chances[((10, 15), 0)] == pytest.approx((1.0, 0.0))  # 21-15 at once


def test_a_fair_coin_round_is_a_fair_game() -> None:
    chances = solve(ROYAL, 2, {everything(0): 1.0, everything(1): 1.0})
    for a in range(21):
        for d in (0, 1):
            assert sum(chances[((a, a), d)]) == pytest.approx(1.0)
            assert chances[((a, a), d)][0] == pytest.approx(0.5)
    # Royal counts out: from 20-20 whoever takes most cards (counted first) wins.
    assert chances[((20, 20), 0)] == pytest.approx((0.5, 0.5))
    # Classic: 10 + 11 = 21 wins at once.
    classic = solve(CLASSIC, 2, {everything(0): 1.0, everything(1): 1.0})
    assert classic[((10, 10), 0)] == pytest.approx((0.5, 0.5))
    assert classic[((10, 0), 0)][0] == pytest.approx(0.75)  # wins now, or 10-11 and then 21-11


def test_count_out_order_decides_who_reaches_the_target_first() -> None:
    # Side 0 takes most cards (3) and spades (1); side 1 Big Casino, Little Casino and every ace (7).
    split = Tally((1, 0), (1, 0), 1, 1, (1, 1, 1, 1), (0, 0), -1)
    table = _coin(ROYAL)
    classic = _coin(CLASSIC)
    # At 17-15 both pass 21: royal counts out, and side 0's cards and spades come first (17 + 4);
    # classic compares the totals, 21 against 22.
    assert chances_after(table, (17, 15), 0, {split: 1.0}) == (1.0, 0.0)
    assert chances_after(classic, (17, 15), 0, {split: 1.0}) == (0.0, 1.0)
    # Classic at 14-14: 18-21, side 1 wins; at 17-14, 21-21 is a tie: another round from the tie.
    assert chances_after(classic, (14, 14), 0, {split: 1.0}) == (0.0, 1.0)
    assert chances_after(classic, (17, 14), 0, {split: 1.0}) == classic.at((21, 21), 1)


def _coin(rules: RuleSet) -> GameTable:
    """A table for a game whose rounds go wholly to the dealer's side or wholly to the other."""
    return GameTable(rules, 2, 2, solve(rules, 2, {everything(0): 1.0, everything(1): 1.0}), {})


def test_dominican_near_target_rules() -> None:
    table = _coin(DOMINICAN)
    # Side 1 takes most cards (3); side 0 every other item (8).
    no_cards = Tally((0, 1), (1, 0), 0, 0, (0, 0, 0, 0), (0, 0), -1)
    # At 18 side 0 wins only by most cards: its 8 points do not count (freeze), side 1 scores 3.
    assert chances_after(table, (18, 0), 0, {no_cards: 1.0}) == table.at((18, 3), 1)
    # At 17 it plays normally and counts out 17 + 1 + 2 + 1 (Little Casino) before the aces.
    assert chances_after(table, (17, 0), 0, {no_cards: 1.0}) == (1.0, 0.0)
    # Side 0 takes most cards (3) only; side 1 every other item.
    cards_only = Tally((1, 0), (0, 1), 1, 1, (1, 1, 1, 1), (0, 0), -1)
    # Side 1 at 19 takes Big Casino, its condition; side 0 at 18 most cards, which counts first.
    assert chances_after(table, (18, 19), 0, {cards_only: 1.0}) == (1.0, 0.0)
    # Side 0 at 20 needs Little Casino, which side 1 takes; side 1 counts out from 13 (+8).
    assert chances_after(table, (20, 13), 0, {cards_only: 1.0}) == (0.0, 1.0)
    # At 20 side 1 takes Little Casino: it wins, whatever side 0 scores.
    assert chances_after(table, (19, 20), 0, {cards_only: 1.0}) == (0.0, 1.0)
    # Side 0 at 19 without Big Casino, side 1 at 20 without Little Casino: nobody scores, and the
    # deal passes on.
    crossed = Tally((1, 0), (0, 1), 1, 0, (0, 1, 0, 1), (2, 0), -1)
    assert chances_after(table, (19, 20), 0, {crossed: 1.0}) == table.at((19, 20), 1)


def test_the_shortcut_far_from_the_target_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    bot = make_policy("greedy")
    dist: dict[Tally, float] = {}
    for seed in range(12):
        t = canonical_tally(DOMINICAN, tally_of(play(DOMINICAN, [bot, bot], seed, dealer=0).state))
        dist[t] = dist.get(t, 0.0) + rng.random()
    fast = solve(DOMINICAN, 2, dist)
    monkeypatch.setattr(chances, "QUIET", 100)  # never far enough
    slow = solve(DOMINICAN, 2, dist)
    assert max(abs(a - b) for k in fast for a, b in zip(fast[k], slow[k], strict=True)) < 1e-9


def test_table_json_round_trips() -> None:
    chances = solve(CLASSIC, 2, {everything(0): 1.0, everything(1): 2.0})
    t = GameTable(CLASSIC, 2, 2, chances, {"bot": "test"})
    back = GameTable.from_json(t.to_json())
    assert back.rules == CLASSIC and back.source == {"bot": "test"}
    for k, v in chances.items():
        assert back.chances[k] == pytest.approx(v, abs=1e-6)


# ---------------------------------------------------------------------------------------------------
# The shipped table


TABLES = shipped_tables()


def test_every_preset_has_a_two_player_table() -> None:
    for preset in ("classic", "royal", "dominican"):
        assert table_for(RuleSet.from_preset(preset), 2) is not None, preset
    assert table_for(CLASSIC.replace(sweeps=True), 2) is None  # other options: not measured


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t.rules.preset}-{t.nplayers}p")
def test_shipped_table_invariants(table: GameTable) -> None:
    target = table.rules.target
    n = table.nsides
    # The rules do not care which side is which, so the chances are the same with the sides swapped;
    # but where both sides score sweeps and the count reaches them (royal: sweeps score and do not
    # cancel), the engine counts side 0's before side 1's (scoring._sweep_awards), and the table
    # follows it: up to 4.1 points of percentage at 17-12 (1.14.3 does not say whose come first).
    asymmetry = 0.05 if table.rules.sweeps and not table.rules.sweep_cancellation else 2e-6
    for (scores, d), ch in table.chances.items():
        assert sum(ch) == pytest.approx(1.0, abs=1e-5)
        assert all(0.0 <= p <= 1.0 for p in ch)
        if n == 2:
            a, b = scores
            assert table.chances[((b, a), 1 - d)][1] == pytest.approx(ch[0], abs=asymmetry)
    if n == 2:
        # The dealer's effect is small at the start of a game.
        assert abs(table.at((0, 0), 0)[0] - 0.5) < 0.05
        assert abs(table.at((0, 0), 0)[0] - table.at((0, 0), 1)[0]) < 0.1
        # More points are better: monotone in the own score, except in Dominican from 18 to 20,
        # where a side waits for one item (rules.md 1.14.4) and 17 may be worth more than 18.
        near = range(target - 3, target) if table.rules.near_target_rules == "dominican" else range(0)
        for d in (0, 1):
            for b in range(target):
                for a in range(target - 1):
                    if a + 1 in near or a in near:
                        continue
                    assert table.at((a + 1, b), d)[0] >= table.at((a, b), d)[0] - 1e-6, (a, b, d)
                    assert table.at((b, a + 1), d)[1] >= table.at((b, a), d)[1] - 1e-6, (b, a, d)


def test_lookup_past_the_target_is_a_tie_at_the_target() -> None:
    table = table_for(CLASSIC, 2)
    assert table is not None
    assert table.at((23, 23), 0) == table.at((21, 21), 0)
    assert table.at((19.0, 3.0), 1) == table.at((19, 3), 1)


def test_chances_after_a_certain_round() -> None:
    table = table_for(DOMINICAN, 2)
    assert table is not None
    # Seat 0 deals at 18-0 and takes most cards: the game is won.
    assert chances_after(table, (18, 0), 0, {everything(0): 1.0}) == (1.0, 0.0)
    # From 0-0 a round all side 0's leads to 11-0, side 1 dealing next.
    assert chances_after(table, (0, 0), 0, {everything(0): 1.0}) == table.at((11, 0), 1)
    # A mixture is the mixture of the chances.
    mix = chances_after(table, (0, 0), 0, {everything(0): 1.0, everything(1): 3.0})
    expected = 0.25 * table.at((11, 0), 1)[0] + 0.75 * table.at((0, 11), 1)[0]
    assert mix[0] == pytest.approx(expected)


# ---------------------------------------------------------------------------------------------------
# The search's outcomes as tallies


def _obs(seat: int = 0, sweeps: tuple[int, int] = (1, 0)) -> Observation:
    state = Game(DOMINICAN, 2, seed=1).state
    return observe(state._replace(sweeps=sweeps, to_move=seat), seat)


def test_an_outcome_at_the_end_of_the_round_is_one_tally() -> None:
    obs = _obs(seat=1)
    aces = {f"ace{a}": (1.0 if i % 2 else -1.0) for i, a in enumerate(ACES_COUNT_OUT)}
    parts = {"cards": 3.0, "spades": -1.0, "big": 2.0, "little": -1.0, **aces}
    got = world_tallies(DOMINICAN, obs, Outcome(parts, 0.0, (0, 0), (0, 2), True))
    # The mover is seat 1 (side 1): its margins.
    assert got == [(Tally((0, 1), (1, 0), 1, 0, (0, 1, 0, 1), (1, 2), -1), 1.0)]
    tie = world_tallies(DOMINICAN, obs, Outcome({"spades": 1.0}, 0.0, (0, 0), (0, 0), True))
    assert tie[0][0].cards == (1, 1) and tie[0][0].big == -1


def test_an_outcome_at_a_leaf_is_a_distribution() -> None:
    obs = _obs()
    parts = {"cards": 1.5, "spades": 0.0, "big": 2.0, "little": -0.5}
    got = world_tallies(DOMINICAN, obs, Outcome(parts, 0.0, (0, 0), (0, 0), False))
    assert sum(p for _, p in got) == pytest.approx(1.0)
    assert len(got) == 2 * 2 * 2  # cards, spades and little open; big is side 0's
    p_cards = sum(p for t, p in got if t.cards == (1, 0))
    assert p_cards == pytest.approx(0.75)
    assert all(t.big == 0 for t, _ in got)
    p_little = sum(p for t, p in got if t.little == 0)
    assert p_little == pytest.approx(0.25)


@pytest.mark.parametrize(
    "rules",
    [
        CLASSIC,
        ROYAL,
        DOMINICAN,
        RuleSet.from_preset("classic", sweeps=True, majority_tie="split", last_capture_point=1),
    ],
    ids=["classic", "royal", "dominican", "split-last"],
)
def test_a_round_that_cannot_decide_the_game_counts_by_its_points(rules: RuleSet) -> None:
    """Where no side is near the target or can reach it, a world's points by side
    (``_undecided_points``) are those of its tallies as the engine scores them, with the same
    probabilities; within reach of the target, or near it in Dominican, it gives none."""
    rng = random.Random(5)
    keys = ["cards", "spades", "big", "little", "last", *(f"ace{a}" for a in ACES_COUNT_OUT)]
    obs = _obs(seat=1, sweeps=(1, 0))
    for _ in range(40):
        parts = {k: rng.choice([-3.0, -1.0, 0.0, 0.4, 1.0, 2.0, rng.uniform(-3, 3)]) for k in keys}
        outcome = Outcome(parts, 0.0, (0, 0), (rng.randrange(3), rng.randrange(2)), rng.random() < 0.5)
        scores = (rng.randrange(5), rng.randrange(5))
        want: dict[tuple[float, float], float] = {}
        for t, p in world_tallies(rules, obs, outcome):
            rs = score_tally(rules, t, scores)
            assert rs.winner is None
            pts = (float(rs.points[0]), float(rs.points[1]))
            want[pts] = want.get(pts, 0.0) + p
        got = chances._undecided_points(rules, obs, scores, outcome)
        assert got is not None
        assert {k: pytest.approx(v) for k, v in want.items() if v > 1e-12} == {
            (float(a), float(b)): v for (a, b), v in got.items() if v > 1e-12
        }
        assert chances._undecided_points(rules, obs, (rules.target - 4, 0), outcome) is None
    if rules.near_target_rules == "dominican":
        assert chances._undecided_points(rules, obs, (0, 19), outcome) is None


# ---------------------------------------------------------------------------------------------------
# Against whole games


def test_the_table_agrees_with_whole_games_of_its_bot() -> None:
    """Whole games from 20-19 in Dominican (a side at 20 waits for Little Casino, at 19 for Big
    Casino), with the first dealer alternating, by the bot the table was measured with: the share of
    games side 0 wins lies inside the games' 99% interval around the table's chance. (The scripts
    check more scores with more games: ``scripts/fit_game_table.py check``.)"""
    table = table_for(DOMINICAN, 2)
    assert table is not None
    bot = make_policy(str(table.source["bot"]))
    games = 60
    wins = 0
    expected = 0.0
    for g in range(games):
        dealer = g % 2
        expected += table.at((20, 19), dealer)[0] / games
        wins += game_from(DOMINICAN, [bot, bot], (20, 19), dealer, 900 + g, bot_seed="test") == 0
    half = 2.576 * math.sqrt(expected * (1 - expected) / games)
    assert abs(wins / games - expected) <= half, (wins, games, expected)


# ---------------------------------------------------------------------------------------------------
# Reported where the round's expected points are


def _table(rules: RuleSet) -> GameTable:
    table = table_for(rules, 2)
    assert table is not None
    return table


POSITION = Path(__file__).resolve().parents[1] / "replays" / "royal-2p-position.json"


def test_suggest_json_gives_the_chances_before_and_after_the_round() -> None:
    found = suggest(POSITION, effort=Effort(samples=16))
    decision, result = found.assessment.decision, found.assessment.result
    out = result_json(found, None)
    win = out["win_chance"]
    assert win["scores"] == [15, 7] and win["dealer"] == decision.obs.dealer
    assert win["round_start"] == pytest.approx(list(_table(ROYAL).at((15, 7), decision.obs.dealer)), abs=1e-4)
    for mv in out["moves"]:
        assert sum(mv["win_chance"]) == pytest.approx(1.0, abs=1e-3)
    # The last deal of a two-player round is searched to its end: the best move's chance is at
    # least the others'.
    side = decision.obs.seat % 2
    best = out["moves"][0]["win_chance"][side]
    assert all(best >= mv["win_chance"][side] - 1e-9 or not result.exact for mv in out["moves"])


def test_the_engine_analysis_gives_the_chances() -> None:
    s = EngineSession()
    obj = orjson.loads(POSITION.read_bytes())
    state = s.handle(orjson.dumps({"type": "position", "position": obj}))
    assert state is not None and state["type"] == "state", state
    answer = s.handle(b'{"type": "analyze", "samples": 16}')
    assert answer is not None and answer["type"] == "analysis", answer
    assert answer["win_chance"]["scores"] == [15, 7]
    assert all(sum(m["win_chance"]) == pytest.approx(1.0, abs=1e-3) for m in answer["moves"])


def ROYAL_TABLE() -> GameTable:
    table = table_for(ROYAL, 2)
    assert table is not None
    return table


def test_a_typed_position_has_no_game_score_and_no_chances() -> None:
    found = suggest(TypedPosition("8S 9C", "AC 2D", "royal"), effort=Effort(samples=8))
    decision, result = found.assessment.decision, found.assessment.result
    assert "win_chance" not in result_json(found, None)
    sweeps = RuleSet.from_preset("classic", sweeps=True)
    assert decision_chances(sweeps, decision.obs, (0, 0), [], result) is None
