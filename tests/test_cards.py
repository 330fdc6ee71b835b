from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino_coach.engine.cards import (
    BIG_CASINO,
    FULL_DECK,
    LITTLE_CASINO,
    SPADES_MASK,
    TWINS,
    card_name,
    card_symbol,
    cards_of,
    mask_of,
    parse_card,
    parse_cards,
    shuffle,
    twin_groups,
)
from casino_coach.errors import CardError


def test_card_forms() -> None:
    assert parse_card("TD") == BIG_CASINO
    assert parse_card("10D") == BIG_CASINO
    assert parse_card("td") == BIG_CASINO
    assert parse_card("10♦") == BIG_CASINO
    assert parse_card("2♠") == LITTLE_CASINO
    assert card_name(BIG_CASINO) == "TD"
    assert card_symbol(BIG_CASINO) == "10♦"
    assert SPADES_MASK.bit_count() == 13


@pytest.mark.parametrize("bad", ["", "T", "1X", "11D", "ZS", "TDD", "0C"])
def test_unknown_cards(bad: str) -> None:
    with pytest.raises(CardError, match="unknown card"):
        parse_card(bad)


def test_card_twice() -> None:
    with pytest.raises(CardError, match="appears twice"):
        parse_cards(["TD", "10♦"])


@given(st.integers(0, 51))
def test_name_round_trip(c: int) -> None:
    assert parse_card(card_name(c)) == c
    assert parse_card(card_symbol(c)) == c


@given(st.integers(0, FULL_DECK))
def test_mask_round_trip(m: int) -> None:
    assert mask_of(cards_of(m)) == m


@given(st.integers(min_value=0, max_value=FULL_DECK))
def test_twin_groups_are_the_groups_of_two_or_more_twins(mask: int) -> None:
    # The definition, group by group; twin_groups finds them with shifts across the whole mask.
    assert twin_groups(mask) == [mask & g for g in TWINS if (mask & g).bit_count() >= 2]


def test_twin_groups_by_hand() -> None:
    # 7♣ 7♥ are twins, 7♠ is not; 10♣ 10♥ are, 10♦ (Big Casino) is not; a lone 9♦ is no group.
    assert twin_groups(parse_cards(["7C", "7H", "7S", "TC", "TD", "TH", "9D"])) == [
        parse_cards(["7C", "7H"]),
        parse_cards(["TC", "TH"]),
    ]
    assert twin_groups(parse_cards(["TC", "TD", "2S", "2C", "AC", "AD"])) == []


@given(st.integers(0, 2**64), st.integers(0, 60))
def test_shuffle_draws_as_the_standard_library_does(seed: int, n: int) -> None:
    # The worlds and the packs are shuffled by cards.shuffle (native in the compiled build); every
    # seed must still give the order random.shuffle gives, and leave the generator where it would.
    ours, theirs = random.Random(seed), random.Random(seed)
    a, b = list(range(n)), list(range(n))
    shuffle(ours, a)
    theirs.shuffle(b)
    assert a == b
    assert ours.getrandbits(32) == theirs.getrandbits(32)
