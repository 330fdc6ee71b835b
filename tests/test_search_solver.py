"""The perfect-information solver: hand-solved positions, and agreement with a brute-force minimax."""

from __future__ import annotations

import itertools

import pytest
from conftest import before_last_deal, near_deal_end
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.cards import FULL_DECK, iter_cards
from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.notation import parse_hand, parse_move
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState, deal
from casino_coach.search.minimax import minimax
from casino_coach.search.native import make_solver
from casino_coach.search.protocol import CasinoGame
from casino_coach.search.solver import Solver, distinct_moves

CLASSIC = RuleSet.from_preset("classic")
PRESETS = [RuleSet.from_preset(p) for p in ("classic", "royal", "dominican")]


@settings(max_examples=30, deadline=None)
@given(
    rules=st.sampled_from(PRESETS),
    nplayers=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
    last=st.booleans(),
)
def test_solver_agrees_with_brute_force(rules: RuleSet, nplayers: int, seed: int, last: bool) -> None:
    s = near_deal_end(rules, nplayers, seed, 5 if nplayers < 4 else 6, last)
    side = s.to_move % s.nsides
    solver = Solver(rules, side, s.nsides)
    got = {rv.move: rv.value for rv in solver.root_values(s)}
    # the reference: plain minimax over the search protocol's view of the deal
    game = CasinoGame(rules, s.nsides)
    want = {m: minimax(game, apply(rules, s, m), side) for m in legal_moves(rules, s)}
    assert got.keys() == want.keys()
    for m in want:
        assert got[m] == pytest.approx(want[m], abs=1e-9)
    # The table is shared between worlds: a second world, then the first again, changes nothing.
    other = near_deal_end(rules, nplayers, seed + 1, 5 if nplayers < 4 else 6, last)
    if other.to_move % other.nsides == side and other.nsides == s.nsides:
        solver.root_values(other)
        again = {rv.move: rv.value for rv in solver.root_values(s)}
        assert again == pytest.approx(got)


@pytest.mark.parametrize("nplayers", [2, 3, 4])
@pytest.mark.parametrize("last", [False, True])
def test_a_table_per_world_with_three_or_four_players_before_the_last_deal(nplayers: int, last: bool) -> None:
    """With three or four players and cards to come, each world's search starts from an empty table;
    in the last deal, and with two players, the table carries the earlier worlds' positions over."""
    rules = RuleSet.from_preset("royal")
    first = near_deal_end(rules, nplayers, 11, 6, last)
    side = first.to_move % first.nsides
    second = next(
        s
        for seed in range(12, 200)
        if (s := near_deal_end(rules, nplayers, seed, 6, last)).to_move % s.nsides == side
    )
    alone = Solver(rules, side, first.nsides)
    alone.root_values(second)
    solver = Solver(rules, side, first.nsides)
    solver.root_values(first)
    assert solver.tt
    solver.root_values(second)
    if nplayers >= 3 and not last:
        assert solver.tt.keys() == alone.tt.keys()
    else:
        assert len(solver.tt) > len(alone.tt)


# Fewer on the Python reference, where the 70 last deals of each end of the deal take seconds.
@settings(max_examples=8 if core.NATIVE is not None else 2, deadline=None)
@given(rules=st.sampled_from(PRESETS), seed=st.integers(0, 2**32), left=st.integers(1, 2))
def test_on_through_the_last_deal_is_the_mean_of_its_deals_solved(
    rules: RuleSet, seed: int, left: int
) -> None:
    # A solver made with next_deal (the native one where the core runs) values the end of the deal
    # before the last as the mean over the 70 ways the stock can be dealt of the last deal solved:
    # here plain minimax to the end of the deal, then each deal solved to the end of the round by a
    # solver without next_deal (held to brute force above, and the native one to the reference).
    # Half the time two captured cards are out of play (in no pile: a typed position's cards scored
    # for nobody): the stock is still the eight cards to deal, not every card the state lacks.
    s = before_last_deal(rules, seed, left)
    if seed % 2:
        pile = s.captured[0] or s.captured[1]
        gone = pile & -pile
        gone |= (pile & ~gone) & -(pile & ~gone)
        s = s._replace(captured=tuple(c & ~gone for c in s.captured))
    side = s.to_move % 2
    last = make_solver(rules, side, 2)
    solver = make_solver(rules, side, 2, next_deal=True)
    got = {rv.move: rv.value for rv in solver.root_values(s)}

    def rest(t: RoundState) -> float:
        if any(t.hands):
            values = [rest(apply(rules, t, m)) for m in legal_moves(rules, t)]
            return max(values) if t.to_move % 2 == side else min(values)
        deals = [sum(1 << c for c in first) for first in itertools.combinations(iter_cards(t.stock), 4)]
        assert len(deals) == 70
        return sum(last.value(deal(t, (d, t.stock & ~d))) for d in deals) / len(deals)

    want = {m: rest(apply(rules, s, m)) for m in legal_moves(rules, s)}
    assert got.keys() == want.keys()
    for m in want:
        assert got[m] == pytest.approx(want[m], abs=1e-9)


def last_deal(hands: tuple[str, str], table: str, p0: int, p1: int, last_capturer: int) -> RoundState:
    return RoundState(
        hands=(parse_hand(hands[0]), parse_hand(hands[1])),
        loose=parse_hand(table),
        builds=(),
        captured=(p0, p1),
        sweeps=(0, 0),
        to_move=0,
        last_capturer=last_capturer,
        stock=0,
        more=False,
        dealer=1,
        nsides=2,
    )


def test_capture_wins_the_residue() -> None:
    # Classic, last deal. Seat 0 holds 8♣, seat 1 K♥; table 8♦ 3♠; seat 1 captured last.
    # Piles: side 0 has 24 cards with 6 spades, 10♦ and A♣ A♦; side 1 has 24 with 6 spades,
    # 2♠ and A♥ A♠. Fixed items: side 0 2 + 2 = 4, side 1 1 + 2 = 3.
    used = parse_hand("8C KH 8D 3S")
    p0 = parse_hand("TD AC AD 4C 4D 4H 5C 5D 5H 6C 6D 6H 7C 7D 7H 9C 9D 9H")  # 18 cards, no spade
    spades0 = parse_hand("4S 5S 6S 7S 9S JS")
    p0 |= spades0
    p1 = FULL_DECK & ~p0 & ~used
    assert p0.bit_count() == 24 and p1.bit_count() == 24 and p1 >> 7 & 1  # 2♠ with side 1
    s = last_deal(("8C", "KH"), "8D 3S", p0, p1, last_capturer=1)
    got = {rv.move: rv.value for rv in Solver(CLASSIC, 0, 2).root_values(s)}
    # 8♣ x 8♦: the K♥ cannot capture, so side 0 takes the residue 3♠ K♥: 28 cards, 7 spades:
    # side 0 4 + 3 + 1 = 8, side 1 3 -> +5. Trailing the 8♣: side 1 takes the residue
    # 8♣ 8♦ 3♠ K♥ (28 cards, 7 spades): side 0 4, side 1 3 + 4 = 7 -> -3.
    assert got == {parse_move("8C x 8D"): 5.0, parse_move("8C"): -3.0}


def test_trailing_the_king_hands_over_the_five() -> None:
    # Classic, last deal. Seat 0: 5♣ K♣; seat 1: 5♥ 2♥; table 5♦; seat 1 captured last.
    # Side 0: 24 cards with 7 spades (spades settled), side 1 23 cards. Fixed items cancel.
    used = parse_hand("5C KC 5H 2H 5D")
    p0 = parse_hand("AC TD 3C 3D 3H 4C 4D 4H 6C 6D 6H 7C 7D 7H 8C 8D 8H")  # 17 cards
    p0 |= parse_hand("AS 3S 4S 6S 7S 8S 9S")  # 7 spades, not 2♠
    p1 = FULL_DECK & ~p0 & ~used
    assert p0.bit_count() == 24 and p1.bit_count() == 23
    s = last_deal(("5C KC", "5H 2H"), "5D", p0, p1, last_capturer=1)
    got = {rv.move: rv.value for rv in Solver(CLASSIC, 0, 2).root_values(s)}
    # Side 0's fixed points: spades 1, aces A♣ A♠ 2, 10♦ 2 = 5; side 1: 2♠ 1, A♦ A♥ 2 = 3.
    # 5♣ x 5♦ (a sweep, not scored in classic): nothing more can be captured, side 0 takes the
    # residue: 29 cards to 23 -> 5 + 3 - 3 = +5. K♣ trailed: seat 1 takes 5♦ with 5♥ and later the
    # residue: 28 to 24 -> 5 - (3 + 3) = -1.
    assert got[parse_move("5C x 5D")] == 5.0
    assert got[parse_move("KC")] == -1.0
    assert got[parse_move("5C")] == -1.0  # trailing the 5♣ lets the 5♥ take two fives


def test_twins_are_searched_once() -> None:
    # 7♣ and 7♥ in the hand, 5♣ and 5♥ loose: trailing either seven, or taking either five with the
    # 5♦, leads to the same position up to the swap of twins, so the search keeps one of each kind.
    # The 10♦ is no twin of the 10♥ (it scores by suit), nor is one ace of another.
    s = last_deal(("7C 7H 5D TD TH AC AH", "KS"), "5C 5H 3S", 0, 0, last_capturer=-1)
    moves = sorted(legal_moves(CLASSIC, s))
    kept = distinct_moves(moves, s.hands[0], s.loose)
    assert parse_move("7C") in kept and parse_move("7H") not in kept
    for twinless in ("TD", "TH", "AC", "AH"):
        assert parse_move(twinless) in kept
    one_five = {m.take for m in moves if m.take in (parse_hand("5C"), parse_hand("5H"))}
    assert len(one_five) == 2 and len({m.take for m in kept if m.take in one_five}) == 1
    assert parse_move("5D x 5C 5H") in kept
    # Nothing to merge: the list comes back as it was.
    assert distinct_moves(moves, parse_hand("7C 5D"), parse_hand("3S")) == moves
