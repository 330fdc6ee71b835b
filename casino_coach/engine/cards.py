"""Cards as ints 0..51 and sets of cards as 52-bit int masks.

A card is ``rank * 4 + suit`` with ranks A 2 3 4 5 6 7 8 9 T J Q K (0..12) and suits C D H S (0..3), so
the four cards of one rank are one nibble of a mask. Tables are built once at import; hot paths use
them directly. The text forms follow replay-format.md: writers use the two-character form (``"TD"``),
readers also accept ``10``, lower case and the suit symbols (``"10♦"``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Final, TypeVar

from casino_coach.errors import CardError, quoted, shown

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
SUIT_SYMBOLS: Final = "♣♦♥♠"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, JACK, QUEEN, KING = 0, 10, 11, 12

NUM_CARDS: Final = 52
FULL_DECK: Final = (1 << NUM_CARDS) - 1

RANK: Final[tuple[int, ...]] = tuple(c >> 2 for c in range(NUM_CARDS))
SUIT: Final[tuple[int, ...]] = tuple(c & 3 for c in range(NUM_CARDS))
BIT: Final[tuple[int, ...]] = tuple(1 << c for c in range(NUM_CARDS))


T = TypeVar("T")


def shuffle(rng: random.Random, items: list[T]) -> None:
    """``rng.shuffle(items)``: the same draws from ``rng`` in the same order, so the same order of
    the items (CPython's ``shuffle`` and ``_randbelow``, unchanged since 3.2). Written out so that the
    compiled build runs it natively: the standard library's is Python code, which cost a compiled
    search 1.8% of its instructions (the worlds' draws) and a random round 4.4% (the pack)."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def card(rank: int, suit: int) -> int:
    """The card int of a rank index (0 = ace .. 12 = king) and a suit index (C D H S)."""
    return rank * 4 + suit


BIG_CASINO: Final = card(9, DIAMONDS)  # 10♦
LITTLE_CASINO: Final = card(1, SPADES)  # 2♠
ACES_MASK: Final = 0b1111  # rank 0 nibble
SPADES_MASK: Final = sum(1 << card(r, SPADES) for r in range(13))
RANK_MASK: Final[tuple[int, ...]] = tuple(0b1111 << (4 * r) for r in range(13))
# Cards that nothing tells apart (rules.md 1.12: only spades, 10♦, 2♠ and the aces score by suit, and
# a card captures by its rank): the clubs, diamonds and hearts of one rank from 2 to K, 10♦ left out.
# Two of them can swap places in any position without changing its value: the search plays one of
# two such moves (``solver.distinct_moves``) and searches one of two such worlds (``worlds``).
TWINS: Final[tuple[int, ...]] = tuple(RANK_MASK[r] & ~SPADES_MASK & ~(1 << BIG_CASINO) for r in range(1, 13))
TWIN_CARDS: Final = sum(TWINS)
_LOW_TWO: Final = sum(0b0011 << (4 * r) for r in range(13))  # the clubs and diamonds bits of each rank


def twin_groups(mask: int) -> list[int]:
    """The groups of twins (``TWINS``) with at least two cards in ``mask``, as masks, by rank."""
    m = mask & TWIN_CARDS
    # A rank holds two or more twins when two of its clubs, diamonds and hearts bits are set; the
    # spades bit is never set in ``m``, so no shift carries a bit into the next rank's clubs and diamonds.
    pairs = (m & (m >> 1) | m & (m >> 2)) & _LOW_TWO
    out = []
    while pairs:
        low = pairs & -pairs
        rank = RANK_MASK[(low.bit_length() - 1) >> 2]
        out.append(m & rank)
        pairs &= ~rank
    return out


# Aces in the count-out order of rules.md 1.14: spades, clubs, hearts, diamonds.
ACES_COUNT_OUT: Final[tuple[int, ...]] = (
    card(ACE, SPADES),
    card(ACE, CLUBS),
    card(ACE, HEARTS),
    card(ACE, DIAMONDS),
)

_ALIASES = {"10": "T", "1": "A"}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)} | {s: i for i, s in enumerate(SUIT_SYMBOLS)}
_SUIT_INDEX |= {"♧": 0, "♢": 1, "♡": 2, "♤": 3}


def parse_card(text: str) -> int:
    """Parse ``"TD"``, ``"10D"``, ``"td"`` or ``"10♦"`` into a card int; raise CardError otherwise."""
    t = text.strip()
    if len(t) < 2:
        raise CardError(f"unknown card {quoted(text)}: expected rank then suit, like 'TD' or '2S'")
    rank_text, suit_text = t[:-1].upper(), t[-1]
    rank_text = _ALIASES.get(rank_text, rank_text)
    suit = _SUIT_INDEX.get(suit_text.upper(), _SUIT_INDEX.get(suit_text))
    if len(rank_text) != 1 or rank_text not in RANKS or suit is None:
        raise CardError(f"unknown card {quoted(text)}: expected rank A23456789TJQK then suit CDHS")
    return card(RANKS.index(rank_text), suit)


def card_name(c: int) -> str:
    """The canonical two-character form of a card, e.g. ``"TD"``."""
    return RANKS[c >> 2] + SUITS[c & 3]


def card_symbol(c: int) -> str:
    """The form people read: ``"10♦"``, ``"A♠"``."""
    r = RANKS[c >> 2]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[c & 3]


def iter_cards(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> list[int]:
    """The cards of a mask as a list, lowest first (a plain loop: this is on hot paths)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    """The mask of an iterable of card ints."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def count(mask: int) -> int:
    """The number of cards in a mask."""
    return mask.bit_count()


def parse_cards(texts: Iterable[object], *, what: str = "cards") -> int:
    """Parse card strings into a mask; a card given twice, or anything but a string, is a CardError
    (the items are typed ``object`` so that the compiled build checks them here, with the field's
    name, rather than raise a TypeError of its own)."""
    m = 0
    for t in texts:
        if not isinstance(t, str):
            raise CardError(f"{what}: expected a card string, got {shown(t)}")
        c = parse_card(t)
        if m >> c & 1:
            raise CardError(f"{what}: card {card_name(c)} appears twice")
        m |= 1 << c
    return m


def mask_names(mask: int) -> list[str]:
    """Canonical names of the cards of a mask, sorted (the order of card ints: by rank, then suit)."""
    return [card_name(c) for c in iter_cards(mask)]


def mask_symbols(mask: int) -> str:
    """Cards of a mask for people, space separated: ``"A♠ 10♦"``."""
    return " ".join(card_symbol(c) for c in iter_cards(mask))
