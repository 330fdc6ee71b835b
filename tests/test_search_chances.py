"""The choice of a root move for the game (search/chances.py: ``game_is_close``, ``world_chances``,
``game_edges``, ``choose_for_game``) and the searcher bot's ``goal`` option (issue 18)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from casino_coach.bots.arena import play
from casino_coach.bots.policies import make_policy
from casino_coach.engine.movegen import Move, apply
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points, score_round
from casino_coach.errors import SearchError
from casino_coach.formats.game import Game
from casino_coach.search import Limits, evaluate
from casino_coach.search.chances import (
    choose_for_game,
    game_edges,
    game_is_close,
    round_points,
    table_for,
    world_chances,
)

CLASSIC = RuleSet.from_preset("classic")
ROYAL = RuleSet.from_preset("royal")
DOMINICAN = RuleSet.from_preset("dominican")


def test_a_round_distributes_eleven_points_and_the_game_is_close_within_reach() -> None:
    for rules in (CLASSIC, ROYAL, DOMINICAN):
        assert round_points(rules) == 11
    assert not game_is_close(CLASSIC, (9, 0)) and game_is_close(CLASSIC, (0, 10))
    # Sweeps score in royal and Dominican: two of them bring the target within reach from 8.
    assert not game_is_close(ROYAL, (7, 7)) and game_is_close(ROYAL, (8, 0))
    assert game_is_close(DOMINICAN, (3, 18))


def _sampled_decision(rules: RuleSet) -> Observation:
    """The third decision of a seeded round: cards still to deal, so the worlds are sampled."""
    game = Game(rules, 2, seed=3, max_rounds=1)
    for _ in range(3):
        game.play(game.legal()[0])
    return game.observation()


def test_game_edges_pair_the_worlds_and_a_few_worlds_choose_nothing() -> None:
    obs = _sampled_decision(ROYAL)
    res = evaluate(ROYAL, obs, Limits(samples=12, min_samples=4, seed=1), detail=True)
    assert res.population is None and any(any(math.isnan(v) for v in mv.values) for mv in res.moves)
    table = table_for(ROYAL, 2)
    assert table is not None
    ref = res.moves[0]
    base = world_chances(table, obs, (15, 15), ref, len(res.weights))
    assert not any(math.isnan(p) for p in base)  # the race's leader is searched in every world
    edges = game_edges(ROYAL, obs, (15, 15), res, ref.move)
    assert edges is not None and {e.move.move for e in edges} == {mv.move for mv in res.moves[1:]}
    for e in edges:
        mine = world_chances(table, obs, (15, 15), e.move, len(res.weights))
        # Paired over the worlds both were searched in: a move that left the race has fewer.
        both = [i for i, p in enumerate(mine) if not math.isnan(p)]
        assert e.worlds == len(both) and e.low <= e.gain <= e.high
        sw = sum(res.weights[i] for i in both)
        assert e.gain == pytest.approx(sum(res.weights[i] * (mine[i] - base[i]) for i in both) / sw)
    # Far from certain on a dozen sampled worlds: the searcher keeps to the round's best move unless
    # a move is ahead for the game at the low end of its interval.
    chosen = choose_for_game(ROYAL, obs, (15, 15), res)
    clear = [e for e in edges if e.low > 1e-9]
    assert (chosen is None) == (not clear)
    assert chosen is None or chosen == max(clear, key=lambda e: (e.low, e.gain))


def _last_deal(rules: RuleSet, seed: int) -> Game:
    """A game of one round stopped at the first decision of its last deal (played by the counter)."""
    game = Game(rules, 2, seed=seed, max_rounds=1)
    bot = make_policy("counter")
    rng = random.Random(seed)
    while game.state.stock or sum(h.bit_count() for h in game.state.hands) != 8:
        game.play(bot.choose(rules, game.observation(), game.legal(), rng))
    return game


def _exact_chance(rules: RuleSet, game: Game, line: Sequence[Move], scores: tuple[Points, ...]) -> float:
    """The mover's side's chance to win the game after playing ``line`` to the end of the round on the
    real cards: the round scored by the engine at ``scores``, then the table."""
    side = game.to_move % 2
    state = game.state
    for m in line:
        state = apply(rules, state, m)
    assert state.is_over
    rs = score_round(rules, state, scores)
    if rs.winner is not None:
        return 1.0 if rs.winner == side else 0.0
    table = table_for(rules, 2)
    assert table is not None
    after = tuple(a + b for a, b in zip(scores, rs.points, strict=True))
    if max(after) > rules.target:
        after = tuple(max(0, x - (max(after) - rules.target)) for x in after)
    return table.at(after, (state.dealer + 1) % 2)[side]


@pytest.mark.parametrize("rules", [CLASSIC, ROYAL, DOMINICAN], ids=lambda r: r.preset)
def test_the_last_deal_is_exact_for_the_table(rules: RuleSet) -> None:
    """In the last deal of a two-player round every card is known to a counter and the search goes to
    the end of the round: each move's chance is that of the round its line ends in, scored by the
    engine at the game score, and the game's choice is the move with the best of them."""
    for seed, scores in ((1, (18, 15)), (2, (19, 19)), (4, (20, 12)), (6, (14, 17))):
        game = _last_deal(rules, seed)
        obs = game.observation()
        res = evaluate(rules, obs, Limits(), detail=True)
        assert res.exact
        table = table_for(rules, 2)
        assert table is not None
        chances = {}
        for mv in res.moves:
            (p,) = set(world_chances(table, obs, scores, mv, len(res.weights)))  # a world's line is certain
            assert p == pytest.approx(_exact_chance(rules, game, (mv.move, *mv.line), scores), abs=1e-12)
            chances[mv.move] = p
        edges = game_edges(rules, obs, scores, res, res.moves[0].move)
        assert edges is not None and len(edges) == len(res.moves) - 1
        for e in edges:  # exact: a point interval
            want = chances[e.move.move] - chances[res.moves[0].move]
            assert e.low == e.gain == e.high == pytest.approx(want)
        # The game's choice: the move with the best chance when it beats the round's best, else none.
        chosen = choose_for_game(rules, obs, scores, res)
        top = max(chances.values())
        if top > chances[res.moves[0].move] + 1e-9:
            assert chosen is not None and chances[chosen.move.move] == top
        else:
            assert chosen is None


def test_the_bot_option_and_the_frozen_baseline() -> None:
    assert make_policy("searcher").goal == "game"  # type: ignore[attr-defined]
    assert make_policy("searcher", goal="round").goal == "round"  # type: ignore[attr-defined]
    assert make_policy("searcher-v1").goal == "round"  # type: ignore[attr-defined]
    with pytest.raises(SearchError, match="goal must be one of game, round"):
        make_policy("searcher", goal="match")
    with pytest.raises(SearchError, match="plays for the round's margin"):
        make_policy("searcher-v1", goal="game")


class _Recorder:
    """A policy that records the game scores it is told and plays as the greedy bot."""

    name = "recorder"

    def __init__(self) -> None:
        self.told: list[tuple[Points, ...] | None] = []

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        self.told.append(tuple(scores) if scores is not None else None)
        return make_policy("greedy").choose(rules, obs, legal, rng)


def test_play_tells_the_policies_the_game_score() -> None:
    rec = _Recorder()
    game = play(CLASSIC, [rec, rec], 5, rounds=3)
    assert rec.told[0] == (0, 0)
    totals = [(0, 0)]
    for rs in game.match.rounds:
        totals.append(tuple(a + b for a, b in zip(totals[-1], rs.points, strict=True)))
    assert set(rec.told) <= set(totals) and len(set(rec.told)) == len(game.match.rounds)
    # A round played on from a game score (game_from's rounds) is told the score outside it too.
    rec2 = _Recorder()
    play(CLASSIC, [rec2, rec2], 5, rounds=1, scores=[12, 7])
    assert set(rec2.told) == {(12, 7)}


def test_the_searcher_plays_for_the_round_far_from_the_target() -> None:
    game = Game(DOMINICAN, 2, seed=3, max_rounds=1)
    for _ in range(3):
        game.play(game.legal()[0])
    obs, moves = game.observation(), game.legal()
    effort = {"samples": 6, "min_samples": 2, "nodes": 20_000}
    for_game = make_policy("searcher", **effort)
    for_round = make_policy("searcher", goal="round", **effort)
    # Far from the target the game goal plays as the round goal (the same search, the same seed).
    assert for_game.choose(DOMINICAN, obs, moves, random.Random(9), scores=(3, 4)) == for_round.choose(
        DOMINICAN, obs, moves, random.Random(9), scores=(3, 4)
    )
    # Close, it plays a legal move ranked by its chance (the ranking itself is tested above).
    assert for_game.choose(DOMINICAN, obs, moves, random.Random(9), scores=(19, 12)) in moves
