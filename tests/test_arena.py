"""Mirrored pairs: symmetric by construction, reproducible, and the same with one or two processes."""

from __future__ import annotations

import pytest

from casino_coach.bots.arena import mirrored_pair, mirrored_pairs, play, summarise
from casino_coach.bots.policies import make_policy
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import CoachError

ROYAL = RuleSet.from_preset("royal")


def test_a_policy_against_itself_is_exactly_even_when_deterministic() -> None:
    # Greedy is deterministic: the mirrored plays are the same game with the labels swapped.
    g = make_policy("greedy")
    for n in (2, 3, 4):
        assert mirrored_pair(ROYAL, n, g, g, seed=5) == 0


def test_swapping_a_and_b_negates_the_value() -> None:
    g, c = make_policy("greedy"), make_policy("counter")
    assert mirrored_pair(ROYAL, 2, c, g, seed=9) == -mirrored_pair(ROYAL, 2, g, c, seed=9)


def test_play_uses_the_seats_policies_and_one_round() -> None:
    game = play(ROYAL, [make_policy("greedy"), make_policy("random")], seed=3)
    assert game.players == ["greedy", "random"] and len(game.match.rounds) == 1


def test_stats_reproducible_and_same_with_two_jobs() -> None:
    one = mirrored_pairs(ROYAL, 2, "greedy", "random", pairs=6, seed=2, jobs=1)
    two = mirrored_pairs(ROYAL, 2, "greedy", "random", pairs=6, seed=2, jobs=2)
    assert one.values == two.values and one.pairs == 6
    assert one.low <= one.mean <= one.high
    assert one.a_better + one.b_better <= 6


def test_summarise_interval() -> None:
    s = summarise("a", "b", ROYAL, 2, "round", [1.0, 3.0, 2.0, 2.0])
    assert s.mean == 2.0 and s.a_better == 4 and s.b_better == 0
    assert s.ci95 == pytest.approx(1.96 * (2 / 3) ** 0.5 / 2)
    assert "+2.000 points per pair" in s.text()


def test_bad_arguments() -> None:
    with pytest.raises(CoachError, match="unknown bot"):
        mirrored_pairs(ROYAL, 2, "greedy", "nobody", pairs=4, seed=1)
    with pytest.raises(CoachError, match="unit"):
        mirrored_pairs(ROYAL, 2, "greedy", "random", pairs=4, seed=1, unit="set")


def test_greedy_beats_random_and_counter_beats_greedy() -> None:
    # A small, seeded version of scripts/bot_strength.py (which plays 500 pairs).
    greedy = mirrored_pairs(ROYAL, 2, "greedy", "random", pairs=30, seed=11, jobs=2)
    counter = mirrored_pairs(ROYAL, 2, "counter", "greedy", pairs=30, seed=11, jobs=2)
    assert greedy.low > 0 and counter.low > 0
