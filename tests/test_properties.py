"""Invariants over random legal playouts of every preset with 2, 3 and 4 players."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.engine.cards import FULL_DECK, cards_of
from casino_coach.engine.movegen import BUILD, Move, apply, is_legal, legal_moves
from casino_coach.engine.notation import move_text, parse_hand, parse_move
from casino_coach.engine.reasons import illegal_reason, play
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import score_round
from casino_coach.engine.state import RoundState, deal, new_round, shuffle_round

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
        assert s.builds == tuple(sorted(s.builds)), "builds are kept sorted"
        total = s.table.bit_count() + s.stock.bit_count() + s.set_aside.bit_count()
        total += sum(h.bit_count() for h in s.hands) + sum(p.bit_count() for p in s.captured)
        assert total == 52, "no card is in two places"
        assert s.hands[(s.to_move - 1) % nplayers].bit_count() == before - 1
    assert next_deal == len(sh.deals)
    return s


@settings(max_examples=30, deadline=None)
@given(
    preset=st.sampled_from(sorted(PRESETS)), nplayers=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32)
)
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
    {"preset": "classic", "build_for_partner": "announced", "court_pairing_count": "one_or_three"},
    {"preset": "royal", "ace_value": "hand14_table1", "trail_restriction": "any_capture"},
]


@settings(max_examples=30, deadline=None)
@given(
    variant=st.sampled_from(range(len(OPTION_VARIANTS))),
    nplayers=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
)
def test_option_variants_play_out(variant: int, nplayers: int, seed: int) -> None:
    rules = RuleSet.from_dict(OPTION_VARIANTS[variant])
    playout(rules, nplayers, seed)


def random_candidates(s: RoundState, rng: random.Random, k: int) -> list[Move]:
    """Moves made up at random: a hand card (or not), any action, table items whole or split."""
    items = [1 << c for c in cards_of(s.loose)] + [b.cards for b in s.builds]
    hand = cards_of(s.hands[s.to_move]) or [0]
    out = []
    for _ in range(k):
        take = 0
        for it in items:
            if rng.random() < 0.3:
                take |= it if rng.random() < 0.9 else (it & -it)
        if rng.random() < 0.05:
            take |= 1 << rng.randrange(52)
        card = rng.choice(hand) if rng.random() < 0.95 else rng.randrange(52)
        action = rng.randrange(3)
        value = rng.randrange(15) if action == BUILD or rng.random() < 0.05 else 0
        out.append(Move(card, action, take & ~(1 << card), value))
    return out


def variant_rules(variant: int) -> RuleSet:
    """A preset (variant < 0) or one of OPTION_VARIANTS."""
    return list(PRESETS.values())[variant] if variant < 0 else RuleSet.from_dict(OPTION_VARIANTS[variant])


def walk(rules: RuleSet, nplayers: int, rng: random.Random) -> Iterator[tuple[RoundState, list[Move]]]:
    """Every position of a random playout with its legal moves; the walk goes on by a random one."""
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, 2 if nplayers == 4 else nplayers, 0, sh.table, sh.deals[0])
    i = 1
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[i])
            i += 1
        legal = legal_moves(rules, s)
        yield s, legal
        s = apply(rules, s, rng.choice(legal))


@settings(max_examples=25, deadline=None)
@given(
    variant=st.sampled_from(range(-3, len(OPTION_VARIANTS))),
    nplayers=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
)
def test_is_legal_agrees_with_legal_moves(variant: int, nplayers: int, seed: int) -> None:
    rules = variant_rules(variant)
    rng = random.Random(seed)
    for s, legal in walk(rules, nplayers, rng):
        legal_set = set(legal)
        for m in legal:
            assert is_legal(rules, s, m)
        for m in random_candidates(s, rng, 20):
            assert is_legal(rules, s, m) == (m in legal_set), m
            assert (illegal_reason(rules, s, m) == "") == (m in legal_set), m


def test_one_move_on_a_huge_table_is_judged_directly() -> None:
    # 24 small loose cards have millions of legal captures; judging one move must not list them.
    rules = PRESETS["classic"]
    loose = 0
    for r in range(8):
        for suit in range(3):
            loose |= 1 << (r * 4 + suit)
    s = RoundState(
        hands=(parse_hand("TC TH KD"), parse_hand("KS")),
        loose=loose,
        builds=(),
        captured=(0, 0),
        sweeps=(0, 0),
        to_move=0,
        last_capturer=-1,
        stock=0,
        more=False,
        dealer=1,
        nsides=2,
    )
    assert is_legal(rules, s, parse_move("TC x 2C 8C 3D 7D"))
    assert not is_legal(rules, s, parse_move("TC x 2C 8C 3D 6D"))
    assert "cannot be split into sets each worth 10" in illegal_reason(
        rules, s, parse_move("TC x 2C 8C 3D 6D")
    )
    assert play(rules, s, parse_move("TC b10 2C 8C")).builds


@settings(max_examples=25, deadline=None)
@given(
    variant=st.sampled_from(range(-3, len(OPTION_VARIANTS))),
    nplayers=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
)
def test_fast_path_for_tables_without_builds_agrees_with_the_general_one(
    variant: int, nplayers: int, seed: int
) -> None:
    rules = variant_rules(variant)
    general = dataclasses.replace(rules)
    object.__setattr__(general, "simple_tables", False)  # force movegen's general path
    for s, legal in walk(rules, nplayers, random.Random(seed)):
        if not s.builds:
            assert legal == legal_moves(general, s)
