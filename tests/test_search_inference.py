"""What the other seat's plays say about its hand: reading the play back, and worlds weighed by it."""

from __future__ import annotations

import random

import pytest

from casino_coach.bots.searcher import SearcherPolicy
from casino_coach.engine.cards import RANK_MASK, parse_card
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move, apply, legal_moves
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState, new_round
from casino_coach.search import Limits, SearchRequest, evaluate
from casino_coach.search.inference import (
    Evidence,
    Likelihood,
    infer_move,
    next_evidence,
    sample_with_evidence,
)
from casino_coach.search.worlds import sample_world

CLASSIC = RuleSet.from_preset("classic")
TENS = RANK_MASK[9]


def mask(text: str) -> int:
    return sum(1 << parse_card(c) for c in text.split())


def card(text: str) -> int:
    return parse_card(text)


def start() -> RoundState:
    """Seat 0 leads; 10♦ lies on the table; seat 1 holds no 10."""
    return new_round(2, 2, 1, mask("TD KS QH JD"), (mask("2C 3C 4C 5H"), mask("6C 7C 8C 9H")))


def after_two_trails() -> tuple[Observation, Move, Observation]:
    """Seat 0 trails 5♥, seat 1 trails 9♥ with 10♦ on the table: seat 0's views before and after."""
    s = start()
    before = observe(s, 0)
    mine = Move(card("5H"), TRAIL, 0, 0)
    s = apply(CLASSIC, s, mine)
    s = apply(CLASSIC, s, Move(card("9H"), TRAIL, 0, 0))
    return before, mine, observe(s, 0)


def test_the_other_seats_play_is_read_back_from_two_views() -> None:
    s = start()
    s1 = apply(CLASSIC, s, Move(card("2C"), TRAIL, 0, 0))
    build = Move(card("6C"), BUILD, mask("2C"), 8)  # seat 1 holds 8♣ for it
    s2 = apply(CLASSIC, s1, build)
    assert infer_move(CLASSIC, observe(s1, 0), observe(s2, 0)) == build
    s3 = apply(CLASSIC, s2, Move(card("4C"), TRAIL, 0, 0))
    capture = Move(card("8C"), CAPTURE, mask("2C 6C"), 0)
    s4 = apply(CLASSIC, s3, capture)
    assert infer_move(CLASSIC, observe(s3, 0), observe(s4, 0)) == capture
    trail = Move(card("3C"), TRAIL, 0, 0)
    s5 = apply(CLASSIC, s4, trail)
    assert infer_move(CLASSIC, observe(s4, 1), observe(s5, 1)) == trail
    # Two plays apart: no single play explains the change.
    assert infer_move(CLASSIC, observe(s1, 0), observe(s4, 0)) is None


def test_next_evidence_follows_the_deal_and_forgets_other_games() -> None:
    before, mine, now = after_two_trails()
    ev = next_evidence(CLASSIC, before, mine, (), now)
    assert [e.move for e in ev] == [Move(card("9H"), TRAIL, 0, 0)]
    assert ev[0].before.to_move == 1
    # A view that does not follow from the previous decision (another game) gives no evidence.
    other = observe(new_round(2, 2, 1, mask("2D 3D 4D 5D"), (mask("6D 7D 8D 9D"), mask("6S 7S 8S 9S"))), 0)
    assert next_evidence(CLASSIC, other, Move(card("6D"), TRAIL, 0, 0), (), now) == ()


def test_a_capture_passed_up_makes_the_hands_that_had_it_unlikely() -> None:
    before, mine, now = after_two_trails()
    ev = next_evidence(CLASSIC, before, mine, (), now)
    with_ten = (now.hand, mask("TH 6C 7C"))
    without = (now.hand, mask("2H 6C 7C"))
    assert Likelihood(CLASSIC, ev)(without) == 1.0
    # Passing up 10♦ with the 10 it took (2 points and two cards) is very unlikely for a sensible player.
    assert Likelihood(CLASSIC, ev)(with_ten) < 0.01
    rng = random.Random(1)
    draws = 400
    weigh = Likelihood(CLASSIC, ev)
    held = sum(bool(sample_with_evidence(CLASSIC, now, rng, weigh).hands[1] & TENS) for _ in range(draws))
    prior = sum(bool(sample_world(CLASSIC, now, rng).hands[1] & TENS) for _ in range(draws))
    assert prior > 40 and held < 10


def test_evidence_changes_the_search_and_keeps_it_reproducible() -> None:
    before, mine, now = after_two_trails()
    ev = next_evidence(CLASSIC, before, mine, (), now)
    limits = Limits(samples=24, min_samples=24, seed=3)

    def values(evidence: tuple[Evidence, ...]) -> list[tuple[Move, float, float]]:
        return [
            (m.move, m.ev, m.stderr)
            for m in evaluate(CLASSIC, now, limits, SearchRequest(evidence=tuple(evidence))).moves
        ]

    assert values(ev) == values(ev)
    assert values(ev) != values(())


def test_the_searcher_bot_collects_the_evidence_of_the_deal() -> None:
    s = start()
    bot = SearcherPolicy(samples=4, min_samples=4)
    rng = random.Random(0)
    m0 = bot.choose(CLASSIC, observe(s, 0), legal_moves(CLASSIC, s), rng)
    s = apply(CLASSIC, s, m0)
    theirs = next(m for m in legal_moves(CLASSIC, s) if m.action != CAPTURE)
    s = apply(CLASSIC, s, theirs)
    bot.choose(CLASSIC, observe(s, 0), legal_moves(CLASSIC, s), rng)
    _, _, evidence = bot._previous[0]
    assert evidence == (Evidence(evidence[0].before, theirs),)


@pytest.mark.parametrize("preset", ["classic", "royal"])
def test_likelihood_is_one_without_evidence(preset: str) -> None:
    rules = RuleSet.from_preset(preset)
    assert Likelihood(rules, ())((0, 0)) == 1.0
