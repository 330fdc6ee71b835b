from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino_coach.engine.cards import (
    BIG_CASINO,
    FULL_DECK,
    LITTLE_CASINO,
    SPADES_MASK,
    card_name,
    card_symbol,
    cards_of,
    mask_of,
    parse_card,
    parse_cards,
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
