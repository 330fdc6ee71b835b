"""Invariants over random legal playouts of every preset with 2, 3 and 4 players."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.cards import FULL_DECK
from casino_coach.movegen import apply, illegal_reason, legal_moves
from casino_coach.notation import move_text, parse_move
from casino_coach.rules import RuleSet
from casino_coach.scoring import score_round
from casino_coach.state import RoundState, deal, new_round, shuffle_round

PRESETS = {p: RuleSet.from_preset(p) for p in ("classic", "royal", "dominican")}


def playout(rules: RuleSet, nplayers: int, seed: int, partnerships: bool = True) -> RoundState:
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    nsides = 2 if nplayers == 4 and partnerships else nplayers
    s = new_round(nplayers, nsides, rng.randrange(nplayers), sh.table, sh.deals[0])
    next_deal = 1
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[next_deal])
            next_deal += 1
        moves = legal_moves(rules, s)
        assert moves, "a player with cards always has a legal move (rules.md 1.4)"
        assert moves == sorted(set(moves)), "moves are unique and sorted"
        m = rng.choice(moves)
        assert illegal_reason(rules, s, m) == ""
        assert parse_move(move_text(m)) == m
        before = s.hands[s.to_move].bit_count()
        s = apply(rules, s, m)
        assert s.accounted() == FULL_DECK
        total = s.table.bit_count() + s.stock.bit_count() + s.set_aside.bit_count()
        total += sum(h.bit_count() for h in s.hands) + sum(p.bit_count() for p in s.captured)
        assert total == 52, "no card is in two places"
        assert s.hands[(s.to_move - 1) % nplayers].bit_count() == before - 1
    assert next_deal == len(sh.deals)
    return s


@settings(max_examples=30, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), nplayers=st.sampled_from([2, 3, 4]),
       seed=st.integers(0, 2**32))
def test_random_playouts(preset: str, nplayers: int, seed: int) -> None:
    rules = PRESETS[preset]
    s = playout(rules, nplayers, seed)
    rs = score_round(rules, s)
    non_sweep = sum(a.points for a in rs.awards if a.item != "sweeps")
    cards_tied = list(rs.card_counts).count(max(rs.card_counts)) > 1
    spades_tied = list(rs.spade_counts).count(max(rs.spade_counts)) > 1
    assert non_sweep == 11 - 3 * cards_tied - spades_tied
    sweeps = sum(a.points for a in rs.awards if a.item == "sweeps")
    assert sweeps <= sum(s.sweeps)
    if not rules.sweeps:
        assert sweeps == 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_individual_four_players(seed: int) -> None:
    rules = RuleSet.from_preset("royal", partnerships=False)
    s = playout(rules, 4, seed, partnerships=False)
    assert len(s.captured) == 4


OPTION_VARIANTS = [
    {"preset": "classic", "court_pairing_count": "all", "sweeps": True},
    {"preset": "classic", "court_builds": True, "owner_may_trail": True},
    {"preset": "classic", "trail_restriction": "any_capture"},
    {"preset": "royal", "build_as_card_in_sums": True, "merge_builds": True},
    {"preset": "royal", "table_cards_in_raise": "with_hand_card", "ace_singleton_set_in_build": True},
    {"preset": "royal", "allow_duplicate_value_builds": False, "multi_set_build_creation": False},
    {"preset": "royal", "table_only_builds": True, "ace_value": "hand14_table1"},
    {"preset": "dominican", "equal_loose_capture": "at_least_one", "equal_loose_build_ok": False},
    {"preset": "dominican", "partner_build_interaction": "raise_only", "build_for_partner": "announced"},
]


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(range(len(OPTION_VARIANTS))), nplayers=st.sampled_from([2, 3, 4]),
       seed=st.integers(0, 2**32))
def test_option_variants_play_out(variant: int, nplayers: int, seed: int) -> None:
    rules = RuleSet.from_dict(OPTION_VARIANTS[variant])
    playout(rules, nplayers, seed)
