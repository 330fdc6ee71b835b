"""What one seat can know: its own hand, the table, every card seen so far, and how many cards each
other seat and the stock hold.

Every card that has been on the table or played is face up at some point, so a seat that counts knows
every card except those in the other hands and the stock: ``unseen``. An ``Observation`` is built from a
full ``RoundState`` with ``observe``, or tracked move by move through a viewer log with ``observe_move``
(other seats' cards are learned as they are played). Search deals ``unseen`` to the other hands and the
stock (``casino_coach.search``); bots decide from an observation alone.
"""

from __future__ import annotations

from typing import NamedTuple

from casino_coach.engine.cards import FULL_DECK, card_name
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.reasons import illegal_reason
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import HAND_SIZE, TABLE_SIZE, Build, RoundState, table_mask
from casino_coach.errors import IllegalMoveError

_new = tuple.__new__


class Observation(NamedTuple):
    """One seat's view of a round. Hashable; all card sets are masks."""

    seat: int  # whose view this is
    hand: int  # the seat's own cards
    loose: int
    builds: tuple[Build, ...]
    captured: tuple[int, ...]  # per side (seen as they were taken)
    sweeps: tuple[int, ...]
    to_move: int
    last_capturer: int
    dealer: int
    nsides: int
    hand_sizes: tuple[int, ...]  # per seat, including the observer's own
    stock_count: int  # cards still to be dealt
    unseen: int  # cards in the other hands or the stock, as far as this seat knows
    known: tuple[int, ...]  # per seat, cards known to be in that hand (own hand for the observer)
    set_aside: int = 0

    @property
    def nplayers(self) -> int:
        return len(self.hand_sizes)

    @property
    def table(self) -> int:
        """Every card on the table: loose cards and the cards of every build."""
        return table_mask(self.loose, self.builds)

    @property
    def last_deal(self) -> bool:
        return self.stock_count == 0

    def hidden_count(self) -> int:
        """How many cards other seats hold that this seat cannot see, plus the stock."""
        return (
            sum(n - k.bit_count() for n, k in zip(self.hand_sizes, self.known, strict=True))
            + self.stock_count
        )


def observe(state: RoundState, seat: int) -> Observation:
    """The view of ``seat`` in a fully known state: everything but the other hands and the stock."""
    unseen = state.stock
    for s, h in enumerate(state.hands):
        if s != seat:
            unseen |= h
    known = tuple(h if s == seat else 0 for s, h in enumerate(state.hands))
    return Observation(
        seat=seat,
        hand=state.hands[seat],
        loose=state.loose,
        builds=state.builds,
        captured=state.captured,
        sweeps=state.sweeps,
        to_move=state.to_move,
        last_capturer=state.last_capturer,
        dealer=state.dealer,
        nsides=state.nsides,
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        stock_count=state.stock.bit_count(),
        unseen=unseen,
        known=known,
        set_aside=state.set_aside,
    )


def as_state(obs: Observation, hands: tuple[int, ...], more: bool, stock: int = 0) -> RoundState:
    """The state of a world in which the hidden cards lie in ``hands`` and ``stock``, with ``more``
    cards to come after the hands (``RoundState.more``)."""
    return RoundState(
        hands=hands,
        loose=obs.loose,
        builds=obs.builds,
        captured=obs.captured,
        sweeps=obs.sweeps,
        to_move=obs.to_move,
        last_capturer=obs.last_capturer,
        stock=stock,
        more=more,
        dealer=obs.dealer,
        nsides=obs.nsides,
        set_aside=obs.set_aside,
    )


def own_moves(rules: RuleSet, obs: Observation) -> list[Move]:
    """The legal moves of the observing seat when it is to move: its own hand and the table decide
    them (no other hand is needed; building for a partner is offered only from a known hand)."""
    return legal_moves(rules, as_state(obs, obs.known, False))


def _open_state(obs: Observation, card: int) -> RoundState:
    """A state in which the mover holds ``card`` plus every card it might hold: the most permissive
    hand consistent with the observation (for moves of seats whose hand the observer cannot see)."""
    mover = obs.to_move
    hands = list(obs.known)
    if mover != obs.seat:
        hands[mover] = obs.known[mover] | obs.unseen | (1 << card)
    return as_state(obs, tuple(hands), False)


def observed_legal(rules: RuleSet, obs: Observation, move: Move) -> str:
    """'' if ``move`` by the seat to move is legal as far as ``obs`` can tell, else the reason.

    For the observer's own moves this is exact. For another seat, the move must be legal for some
    hand holding the card played (its other cards are unknown, so must-hold cannot be refuted).
    """
    mover = obs.to_move
    if mover != obs.seat:
        if obs.hand_sizes[mover] == 0:
            return f"seat {mover} has no cards left"
        if not (obs.unseen | obs.known[mover]) >> move.card & 1:
            return f"{card_name(move.card)} cannot be in the hand of seat {mover}: it has been seen elsewhere"
    return illegal_reason(rules, judged_state(obs, move.card), move)


def judged_state(obs: Observation, card: int) -> RoundState:
    """The state ``observed_legal`` judges a move of ``card`` by the seat to move on: the known hands
    for the observer's own moves, else the most permissive hand holding ``card``."""
    if obs.to_move == obs.seat:
        return as_state(obs, obs.known, False)
    return _open_state(obs, card)


def observe_move(rules: RuleSet, obs: Observation, move: Move, checked: bool = False) -> Observation:
    """The observer's view after the seat to move plays ``move`` (checked as ``observed_legal``,
    unless the caller has ``checked`` it so already).

    The round-end residue goes to the last capturer as in ``apply``. A new deal is not part of this:
    use ``observe_deal``.
    """
    reason = "" if checked else observed_legal(rules, obs, move)
    if reason:
        raise IllegalMoveError(reason)
    mover = obs.to_move
    bit = 1 << move.card
    hands = [k & ~bit for k in obs.known]
    sizes = list(obs.hand_sizes)
    sizes[mover] -= 1
    # Apply on a state where each hand holds only what is known: the cards it cannot show are more to
    # come (``RoundState.more``) until the last card of the round is played, when ``apply`` ends it.
    before = list(obs.known)
    before[mover] |= bit
    last_card = obs.stock_count == 0 and not any(sizes)
    state = as_state(obs, tuple(before), not last_card)
    after = apply(rules, state, move)
    # Made positionally, in the fields' order (``_replace`` runs the NamedTuple's Python-level code,
    # several times the cost: the searcher reads every play of the other seat back through here).
    view: Observation = _new(
        Observation,
        (
            obs.seat,
            hands[obs.seat],
            after.loose,
            after.builds,
            after.captured,
            after.sweeps,
            after.to_move,
            after.last_capturer,
            obs.dealer,
            obs.nsides,
            tuple(sizes),
            obs.stock_count,
            obs.unseen & ~bit,
            tuple(hands),
            after.set_aside,
        ),
    )
    return view


def observe_deal(obs: Observation, own_hand: int, hand_size: int = 4) -> Observation:
    """The observer's view after the next deal: its own new hand is seen, the others' are not."""
    if obs.stock_count < hand_size * obs.nplayers:
        raise IllegalMoveError("nothing is left to deal")
    if own_hand & ~obs.unseen:
        raise IllegalMoveError("the dealt hand holds a card that has already been seen")
    known = tuple(own_hand if s == obs.seat else 0 for s in range(obs.nplayers))
    return obs._replace(
        hand=own_hand,
        hand_sizes=(hand_size,) * obs.nplayers,
        stock_count=obs.stock_count - hand_size * obs.nplayers,
        unseen=obs.unseen & ~own_hand,
        known=known,
    )


def first_deal_observation(
    seat: int, nplayers: int, nsides: int, dealer: int, table: int, hand: int
) -> Observation:
    """What ``seat`` sees right after the first deal of a round (rules.md 1.3.2): its own four cards,
    the four on the table, everything else unseen. The caller checks that ``table`` and ``hand`` are
    apart."""
    return Observation(
        seat=seat,
        hand=hand,
        loose=table,
        builds=(),
        captured=(0,) * nsides,
        sweeps=(0,) * nsides,
        to_move=(dealer + 1) % nplayers,
        last_capturer=-1,
        dealer=dealer,
        nsides=nsides,
        hand_sizes=(HAND_SIZE,) * nplayers,
        stock_count=52 - TABLE_SIZE - HAND_SIZE * nplayers,
        unseen=FULL_DECK & ~table & ~hand,
        known=tuple(hand if s == seat else 0 for s in range(nplayers)),
    )
