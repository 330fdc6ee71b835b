"""Explanations: the odds from the unseen pool, what cards are worth, and sentences naming the cards."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.cards import RANK, mask_of
from casino_coach.explain import (
    Weights,
    chance_any,
    chance_hand,
    explain,
    rank_counts,
    threat,
)
from casino_coach.movegen import apply, legal_moves
from casino_coach.notation import parse_hand, parse_move
from casino_coach.observation import observe
from casino_coach.rules import RuleSet
from casino_coach.state import new_round, shuffle_round
from tests.conftest import position

CLASSIC = RuleSet.from_preset("classic")
ROYAL = RuleSet.from_preset("royal")
NAMES = ("Ana", "Ben")


def _brute(pool: list[int], hand: int, pred: object) -> float:
    hands = list(itertools.combinations(pool, hand))
    assert callable(pred)
    return sum(1 for h in hands if pred(h)) / len(hands)


@settings(max_examples=40, deadline=None)
@given(pool=st.sets(st.integers(0, 51), min_size=1, max_size=12),
       targets=st.sets(st.integers(0, 51), max_size=8), hand=st.integers(1, 4))
def test_chance_any_is_the_hypergeometric_tail(pool: set[int], targets: set[int], hand: int) -> None:
    n = min(hand, len(pool))
    expected = _brute(sorted(pool), n, lambda h: any(c in targets for c in h))
    assert chance_any(mask_of(pool), hand, mask_of(targets)) == pytest.approx(expected)


@settings(max_examples=30, deadline=None)
@given(pool=st.sets(st.integers(0, 51), min_size=2, max_size=11), hand=st.integers(1, 4),
       a=st.integers(0, 12), b=st.integers(0, 12))
def test_chance_hand_enumerates_rank_compositions(pool: set[int], hand: int, a: int, b: int) -> None:
    # "holds a card of rank a and a card of rank b" (two of rank a when a == b)
    def by_ranks(drawn: tuple[int, ...]) -> bool:
        return drawn[a] >= 1 and drawn[b] >= (2 if a == b else 1)

    def by_cards(h: tuple[int, ...]) -> bool:
        ranks = [RANK[c] for c in h]
        return ranks.count(a) >= 1 and ranks.count(b) >= (2 if a == b else 1)

    n = min(hand, len(pool))
    got = chance_hand(rank_counts(mask_of(pool)), hand, by_ranks)
    assert got == pytest.approx(_brute(sorted(pool), n, by_cards))


def test_nine_percent_rule() -> None:
    # rules.md 4.1: at the start each unseen card is in a 4-card hand with chance 4/44.
    pool = (1 << 44) - 1
    assert chance_any(pool, 4, 1 << 3) == pytest.approx(4 / 44)


def test_weights_name_the_scoring_items() -> None:
    w = Weights.of(ROYAL, (0, 0))
    cards = parse_hand("TD 2S AH 5C")
    assert w.value(cards) == pytest.approx(4 * 3 / 26 + 1 / 7 + 2 + 1 + 1)
    words = w.words(cards, sweep=True)
    for part in ("4 cards", "1 spade", "Big Casino 10♦", "Little Casino 2♠", "A♥", "a sweep"):
        assert part in words
    settled = Weights.of(ROYAL, (mask_of(range(27)), 0))
    assert settled.card == 0.0


def test_missed_sweep_names_the_cards() -> None:
    s = position(ROYAL, ["8C 4D", "9H KS"], "3H 5S", stock=parse_hand("2C 3C 4C 5C 6C 7C QD JD"))
    ex = explain(ROYAL, observe(s, 0), parse_move("4D"), parse_move("8C x 3H 5S"), 1.5, names=NAMES)
    kinds = {e.kind for e in ex}
    assert {"missed_sweep", "missed_capture"} <= kinds
    sweep = next(e for e in ex if e.kind == "missed_sweep")
    assert "8♣" in sweep.text and "3♥ 5♠" in sweep.text
    assert sum(e.points for e in ex) == pytest.approx(1.5)


def test_big_casino_trailed_is_exposed() -> None:
    s = position(CLASSIC, ["TD 4D", "9H KS"], "TC 5S",
                 stock=parse_hand("2C 3C 4C 5C 6C 7C QD JD TH TS"))
    obs = observe(s, 0)
    ex = explain(CLASSIC, obs, parse_move("TD"), parse_move("TD x TC"), 2.5, names=NAMES)
    capture = next(e for e in ex if e.kind == "missed_capture")
    assert "10♦" in capture.text and "10♣" in capture.text and "Big Casino" in capture.text
    exposed = next(e for e in ex if e.kind == "card_exposed")
    # Ben's two cards come from 12 unseen cards, two of them tens: 1 - C(10,2)/C(12,2).
    assert "10♥ 10♠" in exposed.text and "Ben" in exposed.text and "32%" in exposed.text


def test_build_left_for_the_opponent() -> None:
    # Ana builds 9 on the 6♠ holding a 9; Ben, with 2 unseen cards of 3, holds a 9 with chance 2/3.
    s = position(CLASSIC, ["3H 9C", "9D KS"], "6S 4H", stock=0)
    obs = observe(s, 0)
    obs = obs._replace(unseen=obs.unseen | parse_hand("QH"), hand_sizes=(2, 2))
    t = threat(CLASSIC, obs, parse_move("3H b9 6S"), Weights.of(CLASSIC, obs.captured))
    assert t.chance(t.ranks_taking(parse_hand("3H 6S"))) == pytest.approx(2 / 3)
    ex = explain(CLASSIC, obs, parse_move("3H b9 6S"), parse_move("9C x 3H 6S"), 0.8, names=NAMES)
    built = next(e for e in ex if e.kind == "build_exposed")
    assert "9-build" in built.text and "a 9" in built.text and "67%" in built.text


def test_raise_that_hands_over_the_build() -> None:
    # Ana raises her 5-build to 8 (she holds an 8); both unseen cards are with Ben: one is an 8.
    s = position(ROYAL, ["3H 8C TS", "8D KS"], "[2C 3C =5 @0]", stock=0)
    obs = observe(s, 0)
    ex = explain(ROYAL, obs, parse_move("3H b8 2C 3C"), parse_move("TS"), 1.0, names=NAMES)
    handed = next(e for e in ex if e.kind == "raise_handed_over")
    assert "5-build to 8" in handed.text and "100%" in handed.text


def test_residue_follows_the_lines_to_the_end() -> None:
    # Last two cards each: Ana K♣ 7♦, Ben K♠ 2♥, table K♥ 5♣ 2♦. Taking the king at once lets Ben make
    # the last capture (2♥ takes 2♦) and collect the residue; holding the king back keeps it.
    s = position(CLASSIC, ["KC 7D", "KS 2H"], "KH 5C 2D", stock=0)
    obs = observe(s, 0)
    ex = explain(CLASSIC, obs, parse_move("KC x KH"), parse_move("7D"), 0.6, names=NAMES,
                 best_line=(parse_move("2H x 2D"), parse_move("KC x KH"), parse_move("KS")),
                 played_line=(parse_move("2H x 2D"), parse_move("7D"), parse_move("KS")), state=s)
    residue = next(e for e in ex if e.kind == "residue")
    assert "Ben" in residue.text and "5♣ 7♦ K♠" in residue.text
    # Without the real cards and with the stock empty, the lone other hand is deduced.
    ex2 = explain(CLASSIC, obs, parse_move("KC x KH"), parse_move("7D"), 0.6, names=NAMES,
                  best_line=(parse_move("2H x 2D"), parse_move("KC x KH"), parse_move("KS")),
                  played_line=(parse_move("2H x 2D"), parse_move("7D"), parse_move("KS")))
    assert ex2 == ex


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), preset=st.sampled_from(["classic", "royal", "dominican"]),
       loss=st.floats(0.05, 4.0))
def test_points_add_up_to_the_loss(seed: int, preset: str, loss: float) -> None:
    rules = RuleSet.from_preset(preset)
    rng = random.Random(seed)
    sh = shuffle_round(rng, 2)
    s = new_round(2, 2, 1, sh.table, sh.deals[0])
    for _ in range(rng.randrange(6)):
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))
    moves = legal_moves(rules, s)
    played, best = rng.choice(moves), rng.choice(moves)
    ex = explain(rules, observe(s, s.to_move), played, best, loss)
    if played == best:
        assert ex == ()
    else:
        assert ex and sum(e.points for e in ex) == pytest.approx(loss, abs=0.011)
        assert all(e.points >= 0 and e.text for e in ex)


def test_continuation_names_what_each_side_takes() -> None:
    # Mid-round (cards still to deal): Ana holds K♣ 7♦; the search's lines are given.
    s = position(CLASSIC, ["KC 7D", "2H 9S"], "KH 5C 2D", stock=parse_hand("3C 4C 5D 6D"))
    ex = explain(CLASSIC, observe(s, 0), parse_move("KC x KH"), parse_move("7D"), 0.5, names=NAMES,
                 best_line=(parse_move("2H x 2D"), parse_move("KC x KH")),
                 played_line=(parse_move("2H x 2D"), parse_move("7D")))
    cont = next(e for e in ex if e.kind == "continuation")
    assert "you take K♣ K♥ instead of nothing" in cont.text
    assert "2♥ captures 2♦ → K♣ captures K♥" in cont.text
