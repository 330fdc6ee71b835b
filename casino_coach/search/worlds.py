"""Worlds consistent with an observation: the hidden cards dealt to the other hands and the stock.

A seat that counts knows every card except ``obs.unseen`` (the other hands and the stock). A *world*
places those cards: each other seat gets its hand size (minus the cards known to be there), the stock
gets ``stock_count`` cards. Every such deal is equally likely, except that a seat owning a build must
hold a card that captures it (the must-hold rule, rules.md 1.8.2): deals that break it are impossible
and are never produced.

When a position was typed without every played card (``unseen`` larger than the places to fill), the
surplus cards are taken to have been captured earlier into piles nobody recorded: a world puts them in
``gone`` (set aside, scoring for nobody).

Everything here reads the ``Observation`` only, never a true state, so a world cannot leak a hidden
card: hidden cards always come from ``obs.unseen`` (OpenSpiel's resampler once leaked the real hand;
the tests check that ours cannot).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Final, NamedTuple

from casino_coach.engine.cards import ACES_MASK, RANK_MASK, cards_of, iter_cards, shuffle, twin_groups
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.errors import SearchError
from casino_coach.frozen import Frozen

_REJECTION_TRIES: Final = 2000
# Then draws of the constrained hands alone (a few cards each, far cheaper than a whole shuffle), for
# must-hold that rarely comes out by chance (two builds of one owner, one card short of a full hand).
_HAND_TRIES: Final = 400_000


class World(NamedTuple):
    """One placement of the hidden cards, with its probability among the consistent worlds."""

    hands: tuple[int, ...]  # every seat's full hand (the observer's own included)
    stock: int
    gone: int  # surplus unseen cards taken as captured earlier by nobody known
    probability: float


class Slots(NamedTuple):
    """What must be dealt: the free cards and how many go to each other seat, the stock, and away."""

    free: int  # unseen cards not known to be in a particular hand
    per_seat: tuple[int, ...]  # cards still to place in each seat's hand (0 for the observer)
    stock: int
    gone: int


def slots(obs: Observation) -> Slots:
    """The free cards and the places they fill; SearchError when the counts cannot match."""
    n = obs.nplayers
    known_others = 0
    per_seat = []
    for s in range(n):
        if s == obs.seat:
            per_seat.append(0)
            continue
        k = obs.known[s]
        if k & ~obs.unseen:
            raise SearchError(f"seat {s} is known to hold a card that is not unseen")
        need = obs.hand_sizes[s] - k.bit_count()
        if need < 0:
            raise SearchError(f"seat {s} holds {obs.hand_sizes[s]} cards but more are known in its hand")
        known_others |= k
        per_seat.append(need)
    free = obs.unseen & ~known_others
    if obs.hand & obs.unseen:
        raise SearchError("a card of the hand to search is also listed as unseen")
    if obs.hand.bit_count() != obs.hand_sizes[obs.seat]:
        raise SearchError(
            f"seat {obs.seat} holds {obs.hand.bit_count()} cards, "
            f"but its hand size is {obs.hand_sizes[obs.seat]}"
        )
    gone = free.bit_count() - sum(per_seat) - obs.stock_count
    if gone < 0:
        raise SearchError(
            f"{free.bit_count()} cards are unseen, but the other hands and the stock need "
            f"{sum(per_seat) + obs.stock_count}: the position's counts do not add up"
        )
    return Slots(free, tuple(per_seat), obs.stock_count, gone)


def count_worlds(obs: Observation) -> int:
    """How many placements of the hidden cards fit the counts (before the must-hold filter)."""
    sl = slots(obs)
    left = sl.free.bit_count()
    total = 1
    for k in (*sl.per_seat, sl.stock):
        total *= comb(left, k)
        left -= k
    return total


def _must_hold(rules: RuleSet, obs: Observation) -> list[tuple[int, frozenset[int]]]:
    """(seat, capture values it must hold one of) for every other seat owning a build."""
    need: dict[int, set[int]] = {}
    for b in obs.builds:
        if b.owner != obs.seat and 0 <= b.owner < obs.nplayers:
            need.setdefault(b.owner, set()).add(b.value)
    return [(s, frozenset(v)) for s, v in sorted(need.items())]


def _holds_all(rules: RuleSet, hand: int, values: frozenset[int]) -> bool:
    caps = rules.capture_values
    have: set[int] = set()
    for c in iter_cards(hand):
        have.update(caps[c])
    if 1 in values and 14 in values and rules.ace_value == "one_or_fourteen":
        # One card per build value (movegen): builds of 1 and of 14 need two aces.
        return values <= have and (hand & ACES_MASK).bit_count() >= 2
    return values <= have


def _check_possible(
    rules: RuleSet, obs: Observation, sl: Slots, constraints: list[tuple[int, frozenset[int]]]
) -> None:
    caps = rules.capture_values
    for seat, values in constraints:
        pool = sl.free | obs.known[seat]
        have: set[int] = set()
        for c in iter_cards(pool):
            have.update(caps[c])
        missing = sorted(values - have)
        if missing or obs.hand_sizes[seat] == 0:
            what = ", ".join(str(v) for v in missing) or "any value"
            raise SearchError(
                f"seat {seat} owns a build but cannot hold a card to take it "
                f"({what}): every such card has been seen elsewhere"
            )
        if 1 in values and 14 in values and rules.ace_value == "one_or_fourteen":
            # One card per build value (``_holds_all``): builds of 1 and of 14 take two aces.
            aces = (pool & ACES_MASK).bit_count()
            if aces < 2:
                why = "only one ace is left for it to hold" if aces else "no ace is left for it to hold"
            elif obs.hand_sizes[seat] < 2:
                why = "it holds one card"
            else:
                continue
            raise SearchError(
                f"seat {seat} owns builds of 1 and of 14 but cannot hold the two aces they take: {why}"
            )


def sample_world(rules: RuleSet, obs: Observation, rng: random.Random) -> World:
    """A world drawn uniformly from those consistent with ``obs`` (must-hold included).

    Shuffle the free cards and cut them into the places to fill; reject deals where a build owner
    lacks its capture card (rejection keeps the draw uniform over the consistent worlds).
    """
    sl = slots(obs)
    constraints = _must_hold(rules, obs)
    if constraints:
        _check_possible(rules, obs, sl, constraints)
    cards = list(iter_cards(sl.free))
    for _ in range(_REJECTION_TRIES):
        shuffle(rng, cards)
        hands, stock, gone = _cut(obs, sl, cards)
        if all(_holds_all(rules, hands[s], v) for s, v in constraints):
            return World(hands, stock, gone, 0.0)
    return _owners_first(rules, obs, sl, constraints, cards, rng)


def _owners_first(
    rules: RuleSet,
    obs: Observation,
    sl: Slots,
    constraints: list[tuple[int, frozenset[int]]],
    cards: list[int],
    rng: random.Random,
) -> World:
    """A consistent world for must-hold that rarely comes out of a whole shuffle (two builds of one
    owner, one card short of a full hand): draw only the owners' hands until each holds its capture
    cards, then deal the rest. Each owner's draw is uniform and a failure starts again from the first
    owner, so an accepted world is uniform over the consistent ones, as with whole shuffles."""
    owners = [(seat, values, sl.per_seat[seat]) for seat, values in constraints]
    drawn = sum(k for _, _, k in owners)
    for _ in range(_HAND_TRIES):
        pick = rng.sample(cards, drawn)
        dealt: dict[int, list[int]] = {}
        pos = 0
        for seat, values, k in owners:
            dealt[seat] = pick[pos : pos + k]
            pos += k
            hand = obs.known[seat]
            for c in dealt[seat]:
                hand |= 1 << c
            if not _holds_all(rules, hand, values):
                break
        else:
            taken = set(pick)
            rest = [c for c in cards if c not in taken]
            shuffle(rng, rest)
            order: list[int] = []
            for seat in range(obs.nplayers):
                if seat in dealt:
                    order += dealt[seat]
                else:
                    order += rest[: sl.per_seat[seat]]
                    del rest[: sl.per_seat[seat]]
            hands, stock, gone = _cut(obs, sl, order + rest)
            return World(hands, stock, gone, 0.0)
    raise SearchError("no consistent world found: the build owners' capture cards are too unlikely")


def in_passes(rules: RuleSet, obs: Observation, worlds: list[World]) -> Iterator[World]:
    """``worlds`` (every consistent world, shuffled) each once, in balanced passes: a pass takes, in
    their order, the worlds that deal none of the free cards to a seat that an earlier world of the
    pass dealt it to; the next pass goes over the worlds left, in their order, and so on. Within a
    pass each free card sits in each other hand at most once, so the first worlds searched hold each
    card in each hand about as often as every world does, as in ``balanced_passes`` (stratified
    sampling on the cards: over 16-128 worlds the spread of their mean was 5-34% smaller than plain
    shuffled worlds' in the four decisions measured, performance.md). The worlds stay a random order
    in which each is equally likely at each place, since nothing in the rule tells one free card
    from another. Not so where an owner of a build must hold a card (``_must_hold``): the passes
    would put first the worlds that deal that card least, so there the worlds keep their order.
    Lazy: a pass is made as far as its worlds are asked for."""
    if _must_hold(rules, obs):
        yield from worlds
        return
    sl = slots(obs)
    others = [s for s in range(obs.nplayers) if sl.per_seat[s]]
    rest = worlds
    while rest:
        taken = [0] * obs.nplayers
        later: list[World] = []
        for i, w in enumerate(rest):
            if any(w.hands[s] & taken[s] for s in others):
                later.append(w)
                continue
            yield w
            for s in others:
                taken[s] |= w.hands[s] & sl.free
            # A pass none of the worlds left can join: a seat has fewer free cards left than it takes.
            if any((sl.free & ~taken[s]).bit_count() < sl.per_seat[s] for s in others):
                later += rest[i + 1 :]
                break
        rest = later


def balanced_worlds(rules: RuleSet, obs: Observation, rng: random.Random) -> Iterator[World]:
    """The worlds of ``balanced_passes`` without their passes. An endless stream."""
    for world, _ in balanced_passes(rules, obs, rng):
        yield world


def balanced_passes(rules: RuleSet, obs: Observation, rng: random.Random) -> Iterator[tuple[World, int]]:
    """Worlds drawn like ``sample_world``, each uniform over the consistent worlds, but balanced: the
    free cards are shuffled once per pass and cut into consecutive blocks, one block per world, for the
    other hands (the rest goes to the stock in a fresh order). Within a pass every free card is dealt
    to some other hand at most once, so over a few passes each card sits in the other hands about as
    often as its probability says; a mean over balanced worlds varies less from seed to seed than one
    over independent draws (stratified sampling on the cards). Blocks that break must-hold are skipped
    (each world stays uniform over the consistent ones); a pass that yields nothing falls back to
    ``sample_world``. An endless stream of (world, the number of the pass it was drawn in): the worlds
    of one pass depend on each other, the passes do not (``result.paired_stats``)."""
    sl = slots(obs)
    constraints = _must_hold(rules, obs)
    if constraints:
        _check_possible(rules, obs, sl, constraints)
    cards = list(iter_cards(sl.free))
    size = sum(sl.per_seat)
    blocks = len(cards) // size if size else 0
    npass = 0
    while True:
        npass += 1
        if blocks < 2:
            yield sample_world(rules, obs, rng), npass
            continue
        shuffle(rng, cards)
        found = False
        for b in range(blocks):
            block = cards[b * size : (b + 1) * size]
            rest = cards[: b * size] + cards[(b + 1) * size :]
            shuffle(rng, rest)
            hands, stock, gone = _cut(obs, sl, block + rest)
            if all(_holds_all(rules, hands[s], v) for s, v in constraints):
                found = True
                yield World(hands, stock, gone, 0.0), npass
        if not found:
            # must-hold this rare: the owners' hands first (``sample_world`` would try whole
            # shuffles in vain first)
            yield _owners_first(rules, obs, sl, constraints, cards, rng), npass


@dataclass(frozen=True)
class Holding(Frozen):
    """Control variates of sampled worlds (``result.Controls``): per feature, the seat and the free
    cards of one rank, the feature being whether that seat's hand holds one of them, with its mean
    over every consistent world."""

    features: tuple[tuple[int, int], ...]  # (seat, free cards of one rank)
    means: tuple[float, ...]

    def row(self, world: World) -> tuple[float, ...]:
        """The features of one world."""
        hands = world.hands
        return tuple([1.0 if hands[seat] & cards else 0.0 for seat, cards in self.features])


def holding_controls(rules: RuleSet, obs: Observation) -> Holding | None:
    """For each other seat and each rank, whether the seat holds a free card of that rank, with its
    chance over the consistent worlds (hypergeometric: a hand of h of the F free cards misses all k
    of a rank with chance C(F - k, h) / C(F, h)). Which cards the other hands hold is what moves a
    move's value most from world to world (whether the reply can take a build, the 10♦ left on the
    table), so these features explain much of it. None when a build's owner must hold a card (the
    must-hold rule changes those chances) or no feature varies."""
    if _must_hold(rules, obs):
        return None
    sl = slots(obs)
    total = sl.free.bit_count()
    features: list[tuple[int, int]] = []
    means: list[float] = []
    for seat, h in enumerate(sl.per_seat):
        if h == 0:
            continue
        for rank_cards in RANK_MASK:
            cards = sl.free & rank_cards
            k = cards.bit_count()
            if k == 0 or total - k < h:
                continue
            features.append((seat, cards))
            means.append(1.0 - comb(total - k, h) / comb(total, h))
    return Holding(tuple(features), tuple(means)) if features else None


def _cut(obs: Observation, sl: Slots, cards: list[int]) -> tuple[tuple[int, ...], int, int]:
    hands = []
    pos = 0
    for s in range(obs.nplayers):
        h = obs.hand if s == obs.seat else obs.known[s]
        for c in cards[pos : pos + sl.per_seat[s]]:
            h |= 1 << c
        pos += sl.per_seat[s]
        hands.append(h)
    stock = 0
    for c in cards[pos : pos + sl.stock]:
        stock |= 1 << c
    pos += sl.stock
    gone = 0
    for c in cards[pos:]:
        gone |= 1 << c
    return tuple(hands), stock, gone


def enumerate_worlds(rules: RuleSet, obs: Observation) -> list[World]:
    """Every consistent world, each with its probability (they are equally likely)."""
    sl = slots(obs)
    constraints = _must_hold(rules, obs)
    if constraints:
        _check_possible(rules, obs, sl, constraints)
    out: list[tuple[tuple[int, ...], int, int]] = []
    for hands, rest in _deal_seats(obs, sl, 0, sl.free, ()):
        if not all(_holds_all(rules, hands[s], v) for s, v in constraints):
            continue
        if sl.gone == 0:
            out.append((hands, rest, 0))
        else:
            for st in combinations(list(iter_cards(rest)), sl.stock):
                stock = sum(1 << c for c in st)
                out.append((hands, stock, rest & ~stock))
    if not out:
        raise SearchError("no world is consistent with the position")
    p = 1.0 / len(out)
    return [World(h, st, g, p) for h, st, g in out]


def _deal_seats(
    obs: Observation, sl: Slots, seat: int, free: int, acc: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], int]]:
    if seat == obs.nplayers:
        yield acc, free
        return
    base = obs.hand if seat == obs.seat else obs.known[seat]
    k = sl.per_seat[seat]
    if k == 0:
        yield from _deal_seats(obs, sl, seat + 1, free, (*acc, base))
        return
    for combo in combinations(list(iter_cards(free)), k):
        m = sum(1 << c for c in combo)
        yield from _deal_seats(obs, sl, seat + 1, free & ~m, (*acc, base | m))


# ---------------------------------------------------------------------------------------------------
# Classes of worlds: worlds that differ only by which of two unseen twins (``cards.TWINS``: cards that
# nothing tells apart, the 7♣ and 7♥ say) lies where have the same value for every move, so the search
# needs one world of each class, weighted by how many worlds it stands for. With two players and two
# cards in the other hand, the 300-600 ways the hidden cards can lie are 100-400 classes.


def _items(sl: Slots) -> list[list[int]]:
    """The free cards in the pieces a class tells apart: each group of free twins (two or more), and
    every other free card alone."""
    items: list[list[int]] = []
    rest = sl.free
    for both in twin_groups(sl.free):
        items.append(cards_of(both))
        rest &= ~both
    for c in cards_of(rest):
        items.append([c])
    return items


def _splits(n: int, caps: list[int], start: int) -> Iterator[list[int]]:
    """Every way to put ``n`` alike cards into the places from ``start`` on, at most ``caps[p]`` into
    place ``p``: how many go to each (the places before ``start`` get none)."""
    if n == 0:
        yield [0] * len(caps)
        return
    if start == len(caps) - 1:
        if n <= caps[start]:
            out = [0] * len(caps)
            out[start] = n
            yield out
        return
    for k in range(min(n, caps[start]), -1, -1):
        for rest in _splits(n - k, caps, start + 1):
            rest[start] = k
            yield rest


def _classes(sl: Slots, nplayers: int) -> Iterator[tuple[list[int], int]]:
    """Every class of placements of the free cards (before must-hold), as the cards each place gets
    (``nplayers`` hands, the stock, the cards gone) in the class's canonical world (the lowest twins
    in the first places), and how many worlds it stands for."""
    items = _items(sl)
    caps = [*sl.per_seat, sl.stock, sl.gone]
    yield from _place(items, 0, caps, [0] * len(caps), 1)


def _place(
    items: list[list[int]], i: int, caps: list[int], masks: list[int], ways: int
) -> Iterator[tuple[list[int], int]]:
    if i == len(items):
        yield masks, ways
        return
    cards = items[i]
    for split in _splits(len(cards), caps, 0):
        placed = list(masks)
        left = list(caps)
        pos = 0
        mult = ways
        n = len(cards)
        for p, k in enumerate(split):
            if k:
                for c in cards[pos : pos + k]:
                    placed[p] |= 1 << c
                pos += k
                left[p] -= k
                mult *= comb(n, k)
                n -= k
        yield from _place(items, i + 1, left, placed, mult)


def count_classes(obs: Observation, limit: int) -> int:
    """How many classes of worlds fit the counts (before the must-hold filter), counted up to
    ``limit + 1`` (a bigger number is not worked out: the classes are listed to count them)."""
    n = 0
    for _ in _classes(slots(obs), obs.nplayers):
        n += 1
        if n > limit:
            break
    return n


def world_classes(rules: RuleSet, obs: Observation) -> list[World]:
    """One world of every class consistent with ``obs`` (its canonical world: the lowest twins in the
    first places), each with its probability: the share of the consistent worlds its class holds.
    Must-hold depends on ranks only, so a class keeps it or breaks it whole."""
    sl = slots(obs)
    constraints = _must_hold(rules, obs)
    if constraints:
        _check_possible(rules, obs, sl, constraints)
    n = obs.nplayers
    found: list[tuple[tuple[int, ...], int, int, int]] = []
    total = 0
    for masks, ways in _classes(sl, n):
        hands = tuple((obs.hand if s == obs.seat else obs.known[s]) | masks[s] for s in range(n))
        if not all(_holds_all(rules, hands[s], v) for s, v in constraints):
            continue
        found.append((hands, masks[n], masks[n + 1], ways))
        total += ways
    if not found:
        raise SearchError("no world is consistent with the position")
    return [World(h, st, g, ways / total) for h, st, g, ways in found]


@dataclass(frozen=True)
class Canon(Frozen):
    """Maps a world to the canonical world of its class (``world_classes``): within each group of free
    twins, the lowest cards go to the first places (the hands in seat order, the stock, the cards
    gone), as many to each place as it holds in the world."""

    groups: tuple[tuple[int, ...], ...]  # per group of two or more free twins, its cards, lowest first

    @staticmethod
    def of(obs: Observation) -> Canon:
        return Canon(tuple(tuple(cards) for cards in _items(slots(obs)) if len(cards) > 1))

    def world(self, world: World) -> World:
        """The canonical world of ``world``'s class (the same probability)."""
        if not self.groups:
            return world
        hands = list(world.hands)
        stock, gone = world.stock, world.gone
        for cards in self.groups:
            group = 0
            for c in cards:
                group |= 1 << c
            pos = 0
            for s in range(len(hands)):
                k = (hands[s] & group).bit_count()
                if k:
                    hands[s] = (hands[s] & ~group) | _lowest(cards, pos, k)
                    pos += k
            k = (stock & group).bit_count()
            stock = (stock & ~group) | _lowest(cards, pos, k)
            pos += k
            gone = (gone & ~group) | _lowest(cards, pos, len(cards) - pos)
        return World(tuple(hands), stock, gone, world.probability)


def _lowest(cards: tuple[int, ...], start: int, k: int) -> int:
    m = 0
    for c in cards[start : start + k]:
        m |= 1 << c
    return m


def world_state(obs: Observation, world: World) -> RoundState:
    """The full state of the round in ``world``."""
    return RoundState(
        hands=world.hands,
        loose=obs.loose,
        builds=obs.builds,
        captured=obs.captured,
        sweeps=obs.sweeps,
        to_move=obs.to_move,
        last_capturer=obs.last_capturer,
        stock=world.stock,
        more=obs.stock_count > 0,
        dealer=obs.dealer,
        nsides=obs.nsides,
        set_aside=obs.set_aside | world.gone,
    )
