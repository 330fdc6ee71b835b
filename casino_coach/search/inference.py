"""What the other seats' plays in this deal say about the cards they still hold.

A player who could have taken Big Casino and trailed a 3 instead most likely holds no 10. An
``Evidence`` is one play of another seat with the position it was made in, as the observer saw it.
``Likelihood`` weighs a world's hands by how sensible those plays were with them, under a plain model
of a sensible player: a play that gives up g points of immediate gain (against the best capture the
hand allowed, ``engine.values.immediate_gain``) is made with probability exp(-REGRET_SCALE * g). A
world is then drawn in proportion to its prior probability times this likelihood (``sample_with_evidence``, by
rejection), or weighted by it in an enumeration.

The model knows nothing of the player beyond "take what is worth taking"; a player who passes a capture
for a build or for safety only makes the worlds where he could have captured somewhat less likely.
Only plays of the current deal count: the hands are new after every deal.

Where ``casino_coach.core`` chose the native core, the worlds are drawn there
(``src/search/inference.rs``): the same weights to the last bit and the same draws from a copy of the
generator's state, which is then handed back, so the same seed deals the same worlds on either side.
An observation or a play the core cannot take goes to the reference.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from casino_coach.core import NATIVE, native_rules
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move
from casino_coach.engine.observation import (
    Observation,
    as_state,
    judged_state,
    observe_deal,
    observe_move,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import HAND_SIZE, Build, RoundState
from casino_coach.engine.values import immediate_gain
from casino_coach.errors import IllegalMoveError, SearchError
from casino_coach.search.native import core_legal_moves
from casino_coach.search.worlds import World, sample_world

REGRET_SCALE = 3.0  # per point given up: passing up an ace (1.25 points) makes a world 40x less likely
MAX_DRAWS = 64  # rejection tries per world; past them the last draw is taken as it is

_new = tuple.__new__


class Evidence(NamedTuple):
    """A play of another seat: the observer's view just before it (``before.to_move`` played it)."""

    before: Observation
    move: Move


class Likelihood:
    """How likely a sensible player makes the plays of ``evidence``, as a function of the hands the
    seats hold now (each seat held then its cards now plus those it has played since).

    Prepared once per decision: for each play, the best capture every card the player might have
    held could make then. One card's captures do not depend on the rest of the hand except through
    must-hold, which this ignores (a player owning a build seldom passes up a capture for it).
    """

    def __init__(self, rules: RuleSet, evidence: Sequence[Evidence]) -> None:
        # Per play: the seat, the card played, the gain of the play, {card: best capture gain}.
        self.plays: list[tuple[int, int, float, dict[int, float]]] = [
            _prepared(rules, ev.before, ev.move) for ev in evidence
        ]
        self.native = _native_likelihood(self.plays)

    def __call__(self, hands: tuple[int, ...]) -> float:
        weight = 1.0
        played_since = [0] * len(hands)
        for seat, card, gain, best in reversed(self.plays):
            played_since[seat] |= 1 << card
            held = hands[seat] | played_since[seat]
            regret = max([g for c, g in best.items() if held >> c & 1], default=0.0) - gain
            if regret > 1e-9:
                weight *= math.exp(-REGRET_SCALE * regret)
        return weight


# A deal's plays come back in the evidence of every later decision of the deal: each is prepared once.
@lru_cache(maxsize=256)
def _prepared(rules: RuleSet, before: Observation, move: Move) -> tuple[int, int, float, dict[int, float]]:
    """One play prepared (``Likelihood.plays``), in the core where it runs and takes the view.
    Shared between likelihoods: never changed."""
    if NATIVE is not None:
        try:
            seat, card, gain, pairs = NATIVE.prepare_play(native_rules(rules), before, move)
        except ValueError:
            pass
        else:
            return seat, card, gain, dict(pairs)
    seat = before.to_move
    possible = before.unseen | before.known[seat]
    hands = tuple(possible if s == seat else 0 for s in range(before.nplayers))
    state = as_state(before, hands, False)
    best = _native_best(rules, before, state)
    if best is None:
        best = {}
        for m in _captures(rules, state):
            gain = immediate_gain(rules, before, m)
            if gain > best.get(m.card, 0.0):
                best[m.card] = gain
    return seat, move.card, immediate_gain(rules, before, move), best


def _captures(rules: RuleSet, state: RoundState) -> list[Move]:
    """The legal captures of the seat to move, in ``legal_moves``' order (listed by the core where it
    runs and takes the state)."""
    return [m for m in core_legal_moves(rules, state) if m.action == CAPTURE]


def _native_best(rules: RuleSet, before: Observation, state: RoundState) -> dict[int, float] | None:
    """``_prepared``'s best capture per card worked out in the core (its moves listed and their
    gains summed there, ``immediate_gain`` to the last bit), or None where the reference runs."""
    if NATIVE is None:
        return None
    last = before.stock_count == 0 and sum(before.hand_sizes) == 1
    try:
        return dict(NATIVE.best_captures(native_rules(rules), state, before.table, last))
    except ValueError:
        return None


def _native_likelihood(plays: list[tuple[int, int, float, dict[int, float]]]) -> Any:
    """The core's copy of the prepared plays (``_core.Likelihood``), or None where the reference
    runs."""
    if NATIVE is None:
        return None
    try:
        return NATIVE.Likelihood(plays)
    except ValueError:
        return None


def sample_with_evidence(
    rules: RuleSet, obs: Observation, rng: random.Random, weigh: Likelihood | None
) -> World:
    """A world drawn with probability proportional to prior x ``weigh`` (by rejection). In the core,
    the draws come from a copy of ``rng``'s state, and ``rng`` is left where the reference leaves it."""
    if NATIVE is not None and (weigh is None or weigh.native is not None):
        try:
            native_rng = NATIVE.Random.from_state(rng.getstate())
            got = NATIVE.sample_with_evidence(
                native_rules(rules),
                obs,
                native_rng,
                weigh.native if weigh is not None else None,
                REGRET_SCALE,
                MAX_DRAWS,
            )
        except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
            raise SearchError(str(e)) from None
        except ValueError:
            pass
        else:
            version, internal, _ = native_rng.getstate()
            rng.setstate((version, internal, rng.getstate()[2]))  # gauss_next: the core does not draw it
            world: World = _new(World, got)
            return world
    return reference_sample_with_evidence(rules, obs, rng, weigh)


def reference_sample_with_evidence(
    rules: RuleSet, obs: Observation, rng: random.Random, weigh: Likelihood | None
) -> World:
    """``sample_with_evidence`` in Python: the reference the core is held equal to."""
    world = sample_world(rules, obs, rng)
    if weigh is None:
        return world
    for _ in range(MAX_DRAWS - 1):
        if rng.random() < weigh(world.hands):
            return world
        world = sample_world(rules, obs, rng)
    return world


def infer_move(rules: RuleSet, before: Observation, after: Observation) -> Move | None:
    """The play that took the observer's view from ``before`` to ``after``, or None when no single
    play of the seat to move explains the change. Read in the core where it runs and takes the
    views (the same candidates, listed and followed there)."""
    if NATIVE is not None:
        try:
            got = NATIVE.infer_move(native_rules(rules), before, after)
        except ValueError:
            pass
        else:
            return None if got is None else _new(Move, got)
    mover = before.to_move
    shown = (before.unseen & ~after.unseen) | (before.known[mover] & ~after.known[mover])
    if shown.bit_count() != 1:
        return None
    card = shown.bit_length() - 1
    candidates = [Move(card, TRAIL, 0, 0), Move(card, CAPTURE, before.table & ~after.table, 0)]
    candidates += [Move(card, BUILD, b.cards & ~shown, b.value) for b in after.builds if b.cards & shown]
    listed = _card_moves(rules, before, card)
    for m in candidates:
        if listed is not None and m not in listed:
            continue  # illegal: observe_move would refuse it, at length for a big table
        try:
            got = observe_move(rules, before, m, checked=listed is not None)
        except IllegalMoveError:
            continue
        if _same_public(got, after):
            return m
    return None


def _card_moves(rules: RuleSet, obs: Observation, card: int) -> set[tuple[int, ...]] | None:
    """The legal moves of ``card`` by the seat to move as ``observed_legal`` judges them, listed by
    the core (None where it does not run or take the state): a move is legal if and only if it is
    among them (``is_legal``; the seat holds the card if it may, as ``observed_legal`` asks first)."""
    mover = obs.to_move
    if NATIVE is None or (
        mover != obs.seat and (obs.hand_sizes[mover] == 0 or not (obs.unseen | obs.known[mover]) >> card & 1)
    ):
        return None
    try:
        return set(NATIVE.legal_moves(native_rules(rules), judged_state(obs, card), 1 << card))
    except ValueError:
        return None


def _same_public(a: Observation, b: Observation) -> bool:
    return (
        a.loose,
        a.builds,
        a.captured,
        a.sweeps,
        a.to_move,
        a.last_capturer,
        a.hand_sizes,
        a.stock_count,
        a.unseen,
        a.set_aside,
        a.dealer,
    ) == (
        b.loose,
        b.builds,
        b.captured,
        b.sweeps,
        b.to_move,
        b.last_capturer,
        b.hand_sizes,
        b.stock_count,
        b.unseen,
        b.set_aside,
        b.dealer,
    )


def _after_own_play(rules: RuleSet, previous: Observation, played: Move) -> Observation | None:
    """The observer's view after its own play at ``previous`` (``observe_move``), None when the play
    is not legal there; judged and followed by the core where it runs and takes the view, else judged
    by the core's move list (``_card_moves``) where it can be."""
    if NATIVE is not None:
        try:
            got = NATIVE.observe_own_play(native_rules(rules), previous, played)
        except ValueError:
            pass
        else:
            return None if got is None else _view(got)
    listed = _card_moves(rules, previous, played.card)
    if listed is not None and tuple(played) not in listed:
        return None
    return observe_move(rules, previous, played, checked=listed is not None)


def _view(fields: tuple[Any, ...]) -> Observation:
    """The ``Observation`` of the core's fields (its builds as tuples)."""
    builds = tuple([_new(Build, b) for b in fields[3]])
    view: Observation = _new(Observation, (*fields[:3], builds, *fields[4:]))
    return view


def next_evidence(
    rules: RuleSet, previous: Observation, played: Move, evidence: tuple[Evidence, ...], now: Observation
) -> tuple[Evidence, ...]:
    """The evidence for the observer's decision at ``now``, from its previous decision (``previous``,
    where it played ``played`` with ``evidence`` known) and the one play of the other seat between
    them, possibly after a new deal (which clears the evidence). Two players only; () whenever the
    two views do not follow from each other (a new round, another game)."""
    if now.nplayers != 2 or previous.seat != now.seat:
        return ()
    if NATIVE is not None:  # the own play followed and the other seat's read in one call
        try:
            got = NATIVE.next_play(native_rules(rules), previous, played, now)
        except ValueError:
            pass
        else:
            if got is None:
                return ()
            fields, read, move = got
            if read:
                if move is None:
                    return ()
                return (*evidence, Evidence(_view(fields), _new(Move, move)))
    try:
        mid = _after_own_play(rules, previous, played)
        if mid is None:
            return ()
        if mid.stock_count != now.stock_count and not any(mid.hand_sizes):
            mid = observe_deal(mid, now.hand, HAND_SIZE)  # the other seat led the new deal
            evidence = ()
    except IllegalMoveError:
        return ()
    if mid.to_move == now.seat:
        return ()
    move = infer_move(rules, mid, now)
    return (*evidence, Evidence(mid, move)) if move is not None else ()
