"""Mirrored pairs: symmetric by construction, reproducible, and the same with one or two processes."""

from __future__ import annotations

import pytest

from casino_coach.bots.arena import (
    game_share,
    mirrored_games,
    mirrored_pair,
    mirrored_pairs,
    pair_stats,
    play,
)
from casino_coach.bots.policies import make_policy
from casino_coach.engine.movegen import MAX_LISTED_LOOSE
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import CoachError
from casino_coach.formats.replay import replay_log

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
    s = pair_stats("a", "b", ROYAL, 2, "round", [1.0, 3.0, 2.0, 2.0])
    assert s.mean == 2.0 and s.a_better == 4 and s.b_better == 0
    assert s.ci95 == pytest.approx(1.96 * (2 / 3) ** 0.5 / 2)
    assert "+2.000 points per pair" in s.text()


def test_bad_arguments() -> None:
    with pytest.raises(CoachError, match="unknown bot"):
        mirrored_pairs(ROYAL, 2, "greedy", "nobody", pairs=4, seed=1)
    with pytest.raises(CoachError, match="unit"):
        mirrored_pairs(ROYAL, 2, "greedy", "random", pairs=4, seed=1, unit="set")


def test_greedy_beats_random_and_counter_beats_greedy() -> None:
    # A small, seeded version of benchmarks/bot_strength.py (which plays 500 pairs).
    greedy = mirrored_pairs(ROYAL, 2, "greedy", "random", pairs=30, seed=11, jobs=2)
    counter = mirrored_pairs(ROYAL, 2, "counter", "greedy", pairs=30, seed=11, jobs=2)
    assert greedy.low > 0 and counter.low > 0


def test_mirrored_games_play_the_same_deals_to_the_target_with_the_seats_swapped() -> None:
    g = make_policy("greedy")
    # A deterministic policy against itself: the two games are the same game, one won by each label.
    for seed in (1, 2, 3):
        assert mirrored_games(ROYAL, 2, g, g, seed) == (1, 1)
    counter, rand = make_policy("counter"), make_policy("random")
    wins = [mirrored_games(ROYAL, 2, counter, rand, seed) for seed in range(3)]
    assert all(a + b == 2 for a, b in wins) and sum(a for a, _ in wins) >= 5


def test_game_share_interval() -> None:
    even = game_share([(1, 1)] * 5)
    assert even.share == 0.5 and even.ci95 == 0.0 and (even.a_won, even.b_won) == (5, 5)
    g = game_share([(2, 0), (1, 1), (0, 2), (2, 0)])
    assert g.share == pytest.approx(5 / 8)
    # Per pair, A's wins minus the share of the pair's games, over the games per pair (2).
    resid = [(2 - 1.25) / 2, (1 - 1.25) / 2, (0 - 1.25) / 2, (2 - 1.25) / 2]
    mean = sum(resid) / 4
    sd = (sum((r - mean) ** 2 for r in resid) / 3) ** 0.5
    assert g.ci95 == pytest.approx(1.96 * sd / 2)
    assert g.low < g.share < g.high and g.to_json()["games"] == 8
    with pytest.raises(CoachError, match="at least 2 pairs"):
        game_share([(1, 1)])


def test_a_bot_in_two_seats_gets_two_names() -> None:
    # Regression: self-play of 3 players named two seats "greedy", and a results store then counted
    # one game as two of "greedy" against itself.
    rules = RuleSet.from_preset("classic")
    bots = [make_policy(b) for b in ("greedy", "counter", "greedy")]
    assert play(rules, bots, 3).to_log().players == ["greedy 1", "counter", "greedy 2"]
    assert play(rules, bots[:2], 3).to_log().players == ["greedy", "counter"]


def test_bots_finish_a_game_whose_tables_grow_too_big_to_list() -> None:
    # Regression: with only the aces scoring, captures gain nothing, the bots trailed, and a table of
    # 30 loose cards had millions of captures to list: selfplay never finished. Past MAX_LISTED_LOOSE
    # loose cards a bot is offered the legal trails and pairings (offered_moves).
    rules = RuleSet.from_preset("classic", points_cards=0, points_spades=0, points_big=0, points_little=0)
    greedy = make_policy("greedy")
    game = play(rules, [greedy, greedy], 0, rounds=None)  # to the target, as selfplay plays
    assert game.over
    tables = [loose for loose, _ in replay_log(game.to_log()).after]
    assert max(t.bit_count() for t in tables) > MAX_LISTED_LOOSE  # it did reach such a table
