"""Terminal and leaf values: the fast round score agrees with scoring.score_round; majorities."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.engine.cards import FULL_DECK, SPADES_MASK
from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import score_round
from casino_coach.engine.state import RoundState, deal, new_round, shuffle_round
from casino_coach.search.leaf import Evaluator, final_points, majority_odds, side_value

PRESETS = [RuleSet.from_preset(p) for p in ("classic", "royal", "dominican")]
VARIANTS = [
    *PRESETS,
    RuleSet.from_preset("classic", sweeps=True, majority_tie="split"),
    RuleSet.from_preset("royal", last_capture_point=1, majority_tie="carry_over"),
]


def playout(rules: RuleSet, nplayers: int, seed: int) -> RoundState:
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, 2 if nplayers == 4 else nplayers, 0, sh.table, sh.deals[0])
    nxt = 1
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[nxt])
            nxt += 1
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))
    return s


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(VARIANTS), nplayers=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32))
def test_final_points_agree_with_score_round(rules: RuleSet, nplayers: int, seed: int) -> None:
    s = playout(rules, nplayers, seed)
    assert final_points(rules, s) == pytest.approx(list(score_round(rules, s).points))
    ev = Evaluator(rules, s.nsides, 0)
    pts = score_round(rules, s).points
    assert ev.final(s) == pytest.approx(pts[0] - sum(pts[1:]) / (len(pts) - 1))


def test_side_value_is_own_minus_mean_of_others() -> None:
    assert side_value([5.0, 3.0, 1.0], 0) == 3.0
    assert side_value([5.0, 3.0, 1.0], 2) == -3.0
    assert side_value([7.0, 4.0], 1) == -3.0


def brute_majority(counts: tuple[int, ...], remaining: int) -> tuple[list[float], float]:
    """Every way the remaining items can go, each with probability n ** -remaining."""
    n = len(counts)
    wins = [0.0] * n
    tie = 0.0
    p = n**-remaining
    for owners in product(range(n), repeat=remaining):
        final = list(counts)
        for o in owners:
            final[o] += 1
        best = max(final)
        top = [s for s in range(n) if final[s] == best]
        if len(top) == 1:
            wins[top[0]] += p
        else:
            tie += p
    return wins, tie


@pytest.mark.parametrize(
    ("counts", "remaining"), [((20, 18), 10), ((3, 3), 7), ((0, 9), 8), ((5, 2), 0), ((26, 26), 0)]
)
def test_two_side_majority_is_exact(counts: tuple[int, int], remaining: int) -> None:
    wins, tie = majority_odds(counts, remaining)
    bw, bt = brute_majority(counts, remaining)
    assert list(wins) == pytest.approx(bw) and tie == pytest.approx(bt, abs=1e-12)


@pytest.mark.parametrize(("counts", "remaining"), [((4, 3, 2), 8), ((0, 0, 0), 9), ((6, 1, 1), 6)])
def test_three_side_majority_is_exact(counts: tuple[int, ...], remaining: int) -> None:
    wins, tie = majority_odds(counts, remaining)
    bw, bt = brute_majority(counts, remaining)
    assert list(wins) == pytest.approx(bw) and tie == pytest.approx(bt, abs=1e-12)


def test_four_side_majority_is_close() -> None:
    # Four individual players: the independent-binomial approximation stays within 7 percentage points.
    for counts, remaining in [((4, 3, 2, 2), 6), ((0, 0, 0, 0), 7), ((6, 1, 1, 0), 6)]:
        wins, tie = majority_odds(counts, remaining)
        bw, _ = brute_majority(counts, remaining)
        assert list(wins) == pytest.approx(bw, abs=0.07)
        assert 0 <= tie <= 1 and sum(wins) + tie == pytest.approx(1.0)


def test_leaf_counts_captured_items_and_majority_odds() -> None:
    classic = PRESETS[0]
    # Side 0 holds 27 cards including 7 spades: both majorities are settled; side 1 holds 10♦.
    spades = [c for c in range(52) if SPADES_MASK >> c & 1]
    others = [c for c in range(52) if not SPADES_MASK >> c & 1 and c != 37]  # 37 = 10♦
    p0 = sum(1 << c for c in spades[:7] + others[:20])
    p1 = 1 << 37
    s = RoundState(
        hands=(0, 0),
        loose=0,
        builds=(),
        captured=(p0, p1),
        sweeps=(0, 0),
        to_move=0,
        last_capturer=0,
        stock=FULL_DECK & ~(p0 | p1),
        more=True,
        dealer=1,
        nsides=2,
    )
    ev = Evaluator(classic, 2, 0)
    # Side 0: most cards 3, most spades 1, four aces 4 and 2♠ 1; side 1: 10♦ 2.
    assert p0 & 0b1111 == 0b1111 and p0 >> 7 & 1
    assert ev.leaf(s) == pytest.approx(3 + 1 + 4 + 1 - 2)
    # Nothing captured yet: what one side gains the other loses.
    empty = s._replace(captured=(0, 0), stock=FULL_DECK)
    assert ev.leaf(empty) == pytest.approx(-Evaluator(classic, 2, 1).leaf(empty))
    # Where the cards still out go (the measured P_* of evaluate.py): the side to move next (the next
    # deal's leader) takes a low table card more often than not, so 2♠ on the table is worth more to it
    # than 2♠ still hidden, and less to the other side.
    on_table = empty._replace(loose=1 << 7, stock=FULL_DECK & ~(1 << 7))
    assert ev.leaf(on_table) > ev.leaf(empty) + 0.15
    other = Evaluator(classic, 2, 1)
    assert other.leaf(on_table) < other.leaf(empty) - 0.15
    # A 10♦ that no 10 can pair any more (side 1 took the other three) stays for the residue, which
    # mostly goes to the side that plays last: on the table it is worth less to the side to move
    # than one still to be dealt.
    tens = (1 << 36) | (1 << 38) | (1 << 39)
    dead = RoundState(
        hands=(0, 0),
        loose=1 << 37,
        builds=(),
        captured=(0, tens),
        sweeps=(0, 0),
        to_move=0,
        last_capturer=1,
        stock=FULL_DECK & ~tens & ~(1 << 37),
        more=True,
        dealer=1,
        nsides=2,
    )
    hidden = dead._replace(loose=0, stock=FULL_DECK & ~tens)
    assert ev.leaf(dead) < ev.leaf(hidden) - 0.5
