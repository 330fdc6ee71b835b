"""The immutable state of one round: hands, table (loose cards and builds), capture piles, stock.

A ``RoundState`` is a NamedTuple of ints and tuples, so it is hashable and is its own transposition-table
key. Seats are numbered in the order of play (replay-format.md); the side of a seat is
``seat % nsides`` (partners 0/2 and 1/3 with four players in partnership). ``apply`` in movegen.py makes
the next state; this module makes rounds and deals and answers questions about a state.
"""

from __future__ import annotations

import random
from typing import Final, NamedTuple

from casino_coach.engine.cards import FULL_DECK, card_name, mask_names, shuffle
from casino_coach.errors import CardError, RulesError

HAND_SIZE: Final = 4
TABLE_SIZE: Final = 4
PLAYER_COUNTS: Final = (2, 3, 4)  # rules.md 1.1: Casino is played by two, three or four players


class Build(NamedTuple):
    """A build on the table (rules.md 1.5): its cards, declared value, owner seat, and kind."""

    cards: int
    value: int
    owner: int
    multiple: bool


def table_mask(loose: int, builds: tuple[Build, ...]) -> int:
    """The loose cards and the cards of every build, as one mask."""
    for b in builds:
        loose |= b.cards
    return loose


class RoundState(NamedTuple):
    """One moment of a round, with every card placed (hidden cards are placed by a sampled world)."""

    hands: tuple[int, ...]  # per seat
    loose: int
    builds: tuple[Build, ...]  # sorted by cards mask
    captured: tuple[int, ...]  # per side
    sweeps: tuple[int, ...]  # per side
    to_move: int
    last_capturer: int  # side of the last capture, -1 before any
    stock: int  # the cards not yet dealt, as far as the state knows them (0 when it does not)
    # More cards are to come after those in the hands: a deal from the stock, or, in a state made from
    # an observation (which shows only the known cards), cards of hands it cannot show. The round ends
    # when every hand is empty and nothing more is to come (``apply`` collects the residue then).
    more: bool
    dealer: int
    nsides: int
    set_aside: int = 0  # residue nobody could collect (rules.md 1.11)

    @property
    def nplayers(self) -> int:
        return len(self.hands)

    def side_of(self, seat: int) -> int:
        return seat % self.nsides

    @property
    def table(self) -> int:
        """Every card on the table: loose cards and the cards of every build."""
        return table_mask(self.loose, self.builds)

    @property
    def needs_deal(self) -> bool:
        """Every hand is empty and cards remain: the next deal comes before the next move."""
        return self.more and not any(self.hands)

    @property
    def is_over(self) -> bool:
        """The round is played out (the residue has been collected)."""
        return not self.more and not any(self.hands)

    @property
    def last_deal(self) -> bool:
        """The dealer has announced "last" (rules.md 1.3.5): nothing remains to be dealt."""
        return not self.more

    def deals_left(self) -> int:
        """How many deals are still to come after the current one."""
        return self.stock.bit_count() // (HAND_SIZE * self.nplayers)

    def accounted(self) -> int:
        """The union of every place a card can be; 52 cards when the state is consistent."""
        m = self.table | self.stock | self.set_aside
        for h in self.hands:
            m |= h
        for p in self.captured:
            m |= p
        return m


# A state made positionally through tuple.__new__, as ``movegen.apply`` makes it: RoundState(...) and
# _replace run the NamedTuple's Python-level functions, several times the cost (a deal cost 26,000
# instructions through _replace in the compiled build). The class in a Final name: a C static there.
_new: Final = tuple.__new__
_ROUND_STATE: Final = RoundState


def deals_per_round(nplayers: int) -> int:
    """rules.md 1.3.4: 6 deals with 2 players, 4 with 3, 3 with 4."""
    return (52 - TABLE_SIZE) // (HAND_SIZE * nplayers)


def check_players(nplayers: int) -> None:
    """RulesError unless Casino is played by ``nplayers`` players (``PLAYER_COUNTS``)."""
    if nplayers not in PLAYER_COUNTS:
        raise RulesError(f"Casino is played by 2, 3 or 4 players, not {nplayers}")


def sides_for(nplayers: int, partnerships: bool) -> int:
    """Number of sides: two partnerships with 4 players (default), otherwise one per player."""
    check_players(nplayers)
    return 2 if nplayers == 4 and partnerships else nplayers


def new_round(nplayers: int, nsides: int, dealer: int, table: int, hands: tuple[int, ...]) -> RoundState:
    """The state after the first deal: 4 cards face up on the table and 4 to each seat."""
    if table.bit_count() != TABLE_SIZE:
        raise CardError(f"the first deal lays {TABLE_SIZE} cards on the table, got {table.bit_count()}")
    _check_hands(hands, nplayers, FULL_DECK & ~table)
    used = table
    for h in hands:
        used |= h
    stock = FULL_DECK & ~used
    return RoundState(
        hands=tuple(hands),
        loose=table,
        builds=(),
        captured=(0,) * nsides,
        sweeps=(0,) * nsides,
        to_move=(dealer + 1) % nplayers,
        last_capturer=-1,
        stock=stock,
        more=stock != 0,
        dealer=dealer,
        nsides=nsides,
    )


def deal(state: RoundState, hands: tuple[int, ...]) -> RoundState:
    """A later deal (rules.md 1.3.3): 4 more cards to each seat from the stock, none to the table."""
    if not state.needs_deal:
        raise CardError("cannot deal now: a hand still has cards or nothing is left to deal")
    _check_hands(hands, state.nplayers, state.stock)
    used = 0
    for h in hands:
        used |= h
    stock = state.stock
    dealt: RoundState = _new(
        _ROUND_STATE,
        (
            tuple(hands),
            state.loose,
            state.builds,
            state.captured,
            state.sweeps,
            state.to_move,
            state.last_capturer,
            stock & ~used,
            stock != used,
            state.dealer,
            state.nsides,
            state.set_aside,
        ),
    )
    return dealt


def _check_hands(hands: tuple[int, ...], nplayers: int, available: int) -> None:
    if len(hands) != nplayers:
        raise CardError(f"a deal has {nplayers} hands, got {len(hands)}")
    seen = 0
    for seat, h in enumerate(hands):
        if h.bit_count() != HAND_SIZE:
            raise CardError(f"seat {seat} is dealt {HAND_SIZE} cards, got {h.bit_count()}")
        if h & seen:
            raise CardError(f"seat {seat}: card {mask_names(h & seen)[0]} is dealt twice")
        if h & ~available:
            bad = h & ~available
            raise CardError(
                f"seat {seat}: card {card_name((bad & -bad).bit_length() - 1)} "
                "is not available to deal (already on the table or dealt)"
            )
        seen |= h


class Shuffle(NamedTuple):
    """A whole round's deal order from one shuffled pack."""

    table: int
    deals: tuple[tuple[int, ...], ...]  # per deal, per seat


def shuffle_round(rng: random.Random, nplayers: int) -> Shuffle:
    """Shuffle a pack with ``rng`` and cut it into the table cards and every deal of a round."""
    pack = list(range(52))
    shuffle(rng, pack)
    table = 0
    for c in pack[:TABLE_SIZE]:
        table |= 1 << c
    pos = TABLE_SIZE
    deals = []
    for _ in range(deals_per_round(nplayers)):
        hands = []
        for _seat in range(nplayers):
            h = 0
            for c in pack[pos : pos + HAND_SIZE]:
                h |= 1 << c
            hands.append(h)
            pos += HAND_SIZE
        deals.append(tuple(hands))
    return Shuffle(table, tuple(deals))
