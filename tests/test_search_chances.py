"""The choice of a root move for the game (search/chances.py: ``game_is_close``, ``world_chances``,
``game_edges``, ``choose_for_game``), the last deal solved for the game (``solved_chance``, checked
against plain minimax over the chance to win) and the searcher bot's ``goal`` option (issue 18)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from conftest import near_deal_end
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from casino_coach.bots.arena import play
from casino_coach.bots.policies import make_policy
from casino_coach.coach.winning import game_chances
from casino_coach.engine.cards import parse_card
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.observation import Observation, first_deal_observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points, score_round
from casino_coach.engine.state import RoundState
from casino_coach.errors import SearchError
from casino_coach.formats.game import Game
from casino_coach.search import Limits, SearchRequest, evaluate
from casino_coach.search.chances import (
    ChanceMemo,
    choose_for_game,
    exact_deal,
    game_edges,
    game_is_close,
    game_weights,
    round_points,
    solved_chance,
    table_for,
    world_chances,
)
from casino_coach.search.expectimax import MAX_LOOSE

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
    res = evaluate(ROYAL, obs, Limits(samples=12, min_samples=4, seed=1), SearchRequest(detail=True))
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


def test_one_memo_gives_each_moves_chances_and_edges_as_fresh_ones() -> None:
    """The verdict, the chances and the move for the game of one assessment share a ``ChanceMemo``:
    what it keeps is what a fresh memo works out, and each caller gets a list of its own."""
    obs = _sampled_decision(ROYAL)
    res = evaluate(ROYAL, obs, Limits(samples=12, min_samples=4, seed=1), SearchRequest(detail=True))
    table = table_for(ROYAL, 2)
    assert table is not None
    memo = ChanceMemo()
    n = len(res.weights)
    for mv in res.moves:
        first = world_chances(table, obs, (15, 15), mv, n, memo)
        first[0] = -1.0  # the caller's own list: the memo's is untouched
        again, fresh = (
            world_chances(table, obs, (15, 15), mv, n, memo),
            world_chances(table, obs, (15, 15), mv, n),
        )
        assert repr(again) == repr(fresh)  # to the last bit, NaN where the move was not searched
    assert len(memo.chances) == len(res.moves)
    for ref in (res.moves[0].move, res.moves[-1].move):
        kept = game_edges(ROYAL, obs, (15, 15), res, ref, memo)
        assert kept is not None
        kept.clear()
        assert game_edges(ROYAL, obs, (15, 15), res, ref, memo) == game_edges(ROYAL, obs, (15, 15), res, ref)
    assert choose_for_game(ROYAL, obs, (15, 15), res, memo) == choose_for_game(ROYAL, obs, (15, 15), res)


def _last_deal(rules: RuleSet, seed: int) -> Game:
    """A game of one round stopped at the first decision of its last deal (played by the counter)."""
    game = Game(rules, 2, seed=seed, max_rounds=1)
    bot = make_policy("counter")
    rng = random.Random(seed)
    while game.state.stock or sum(h.bit_count() for h in game.state.hands) != 8:
        game.play(bot.choose(rules, game.observation(), game.legal(), rng))
    return game


def minimax_chance(
    rules: RuleSet, s: RoundState, scores: tuple[Points, ...], side: int, memo: dict[RoundState, float]
) -> float:
    """Side ``side``'s chance to win the game from ``s`` in a last deal, both sides playing the rest of
    it for the game: plain minimax (memoised by state), each end of the round scored by the engine at
    ``scores`` (a round that decides the game is won or lost), any other followed by the table."""
    got = memo.get(s)
    if got is not None:
        return got
    if s.is_over:
        rs = score_round(rules, s, scores)
        if rs.winner is not None:
            v = 1.0 if rs.winner == side else 0.0
        else:
            after = tuple(a + b for a, b in zip(scores, rs.points, strict=True))
            chances = game_chances(rules, len(s.hands), after, s.dealer + 1)
            assert chances is not None
            v = chances[side]
    else:
        values = [
            minimax_chance(rules, apply(rules, s, m), scores, side, memo) for m in legal_moves(rules, s)
        ]
        v = max(values) if s.to_move % 2 == side else min(values)
    memo[s] = v
    return v


@pytest.mark.parametrize("rules", [CLASSIC, ROYAL, DOMINICAN], ids=lambda r: r.preset)
def test_the_last_deal_is_exact_for_the_table(rules: RuleSet) -> None:
    """In the last deal of a two-player round every card is known to a counter: each move's chance is
    the deal's minimax value for the game (both sides playing the rest of it for the game), and the
    game's choice is the move with the best of them."""
    for seed, scores in ((1, (18, 15)), (2, (19, 19)), (4, (20, 12)), (6, (14, 17))):
        game = _last_deal(rules, seed)
        obs = game.observation()
        res = evaluate(rules, obs, Limits(), SearchRequest(detail=True))
        assert res.exact
        table = table_for(rules, 2)
        assert table is not None
        chances = {}
        side = game.to_move % 2
        memo: dict[RoundState, float] = {}
        for mv in res.moves:
            (p,) = world_chances(table, obs, scores, mv, len(res.weights))
            want = minimax_chance(rules, apply(rules, game.state, mv.move), scores, side, memo)
            assert p == pytest.approx(want, abs=1e-12)
            assert p == pytest.approx(solved_chance(table, obs, scores, mv.move), abs=1e-12)
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


@settings(max_examples=40, deadline=None)
@given(
    rules=st.sampled_from([CLASSIC, ROYAL, DOMINICAN]),
    seed=st.integers(0, 2**32),
    mine=st.integers(12, 20),
    theirs=st.integers(12, 20),
)
def test_the_chances_are_minimax_over_the_game(rules: RuleSet, seed: int, mine: int, theirs: int) -> None:
    table = table_for(rules, 2)
    assert table is not None
    s = near_deal_end(rules, 2, seed, 5, last=True)
    side = s.to_move % 2
    scores = (mine, theirs) if side == 0 else (theirs, mine)
    obs = observe(s, s.to_move)
    assert exact_deal(obs)
    moves = legal_moves(rules, s)
    memo: dict[RoundState, float] = {}
    want = [minimax_chance(rules, apply(rules, s, m), scores, side, memo) for m in moves]
    got = [solved_chance(table, obs, scores, m) for m in moves]
    assert got == pytest.approx(want, abs=1e-9)
    # What the reports and the choice for the game read: the same, from the search's one world.
    assume(obs.loose.bit_count() <= MAX_LOOSE)  # random play can leave more than the search takes
    res = evaluate(
        rules, obs, Limits(samples=4, min_samples=2, nodes=3000, seed=seed), SearchRequest(detail=True)
    )
    assert len(res.weights) == 1
    for m, w in zip(moves, want, strict=True):
        assert world_chances(table, obs, scores, res.value_of(m), 1) == pytest.approx([w], abs=1e-9)


def test_only_a_last_deal_with_the_cards_lying_one_way_is_solved() -> None:
    rules = CLASSIC
    assert exact_deal(observe(near_deal_end(rules, 2, 3, 5, last=True), 0))
    assert not exact_deal(observe(near_deal_end(rules, 2, 3, 5, last=False), 0))
    assert not exact_deal(observe(near_deal_end(rules, 4, 3, 6, last=True), 0))  # three hidden hands


def test_the_searcher_plays_a_move_that_leaves_the_most_chance() -> None:
    found = 0
    for seed in range(60):
        rules = (CLASSIC, ROYAL, DOMINICAN)[seed % 3]
        s = near_deal_end(rules, 2, seed, 6, last=True)
        moves = legal_moves(rules, s)
        if len(moves) < 2:
            continue
        side = s.to_move % 2
        scores = (19, 18) if side == 0 else (18, 19)
        memo: dict[RoundState, float] = {}
        want = [minimax_chance(rules, apply(rules, s, m), scores, side, memo) for m in moves]
        if max(want) - min(want) < 0.01:
            continue
        found += 1
        bot = make_policy("searcher", samples=4, min_samples=2, nodes=3000)
        played = bot.choose(rules, observe(s, s.to_move), moves, random.Random(seed), scores=scores)
        assert want[moves.index(played)] == pytest.approx(max(want), abs=1e-9)
    assert found >= 10


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


def _first_deal() -> Observation:
    # Seat 0 to move in the first deal; 10♦ and three aces on the table, none of its four cards
    # scores by itself.
    table = sum(1 << parse_card(c) for c in ("TD", "AS", "AC", "AH"))
    hand = sum(1 << parse_card(c) for c in ("TS", "3H", "5C", "8D"))
    return first_deal_observation(0, 2, 2, 1, table, hand)


def _weights(rules: RuleSet, scores: tuple[int, int]) -> dict[str, tuple[float, ...]]:
    table = table_for(rules, 2)
    assert table is not None
    w = game_weights(table, _first_deal(), scores)
    assert w is not None
    return w


def test_far_from_the_target_the_game_weights_are_the_margin() -> None:
    for rules in (CLASSIC, ROYAL, DOMINICAN):
        for key, (mine, theirs) in _weights(rules, (0, 0)).items():
            assert mine == pytest.approx(1.0, abs=0.15), key
            assert theirs == pytest.approx(-1.0, abs=0.15), key


@pytest.mark.parametrize(
    ("rules", "scores", "only"),
    [
        (DOMINICAN, (19, 19), "big"),  # a side at 19 wins only by Big Casino (1.14.4)
        (DOMINICAN, (18, 18), "cards"),  # ... at 18 only by most cards
        (ROYAL, (19, 19), "cards"),  # most cards is counted first: whoever takes it reaches 21
    ],
)
def test_near_the_target_only_what_decides_the_game_weighs(
    rules: RuleSet, scores: tuple[int, int], only: str
) -> None:
    w = _weights(rules, scores)
    # The whole round's points ride on that one item: its swing is the round's (11 points a side).
    points = {"big": rules.points_big, "cards": rules.points_cards}[only]
    assert w[only][0] == pytest.approx(round_points(rules) / points)
    assert w[only][1] == pytest.approx(-w[only][0])
    for key, per_side in w.items():
        if key != only:
            assert max(abs(x) for x in per_side) < 1e-6, key


def test_against_a_side_at_19_big_casino_weighs_most_and_its_sweeps_nothing() -> None:
    w = _weights(DOMINICAN, (10, 19))
    assert max(w, key=lambda k: abs(w[k][0])) == "big"
    assert w["big"][0] > 2.5  # denying Big Casino is worth more than the round's 2 points of it
    # A side at 19 scores no sweeps (1.14.4); the mover's own sweeps still count.
    assert w["sweeps"][1] == 0.0
    assert w["sweeps"][0] > 0
