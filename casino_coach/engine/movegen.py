"""Legal moves, applying a move, and the reason a move is illegal.

A move is ``Move(card, action, take, value)``: the card played, TRAIL / CAPTURE / BUILD, the mask of
every table card it involves (loose cards captured or gathered and all cards of every build taken,
extended or raised), and the declared value of a build (0 otherwise). That tuple identifies a move
(replay-format.md), so ``legal_moves`` returns each at most once, sorted.

Generation follows rules.md §1.15: loose cards are split into "value sets" by a cached subset-sum table,
disjoint unions of those sets give every capture and every gathering of loose cards, and the must-hold,
owner, Dominican and partner rules filter the candidates.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from typing import Final, NamedTuple, TypeVar

from casino_coach.engine.cards import (
    ACES_MASK,
    RANK,
    RANK_MASK,
    card_symbol,
    cards_of,
    iter_cards,
    mask_symbols,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState
from casino_coach.errors import TooManyMovesError

TRAIL: Final = 0
CAPTURE: Final = 1
BUILD: Final = 2
ACTION_NAMES: Final[tuple[str, ...]] = ("trail", "capture", "build")


class Move(NamedTuple):
    """One play: (card, action, take, value) identifies it."""

    card: int
    action: int
    take: int = 0
    value: int = 0

    @property
    def action_name(self) -> str:
        return ACTION_NAMES[self.action]

    def describe(self) -> str:
        """The move in words: "8♣ captures 3♥ 5♠", "3♥ builds 8 with 2♦ 3♣", "3♠ builds two 10s
        with 7♣ 10♠" (a multiple build), "7♥ trails"."""
        card, verb, take = self.words()
        return f"{card_symbol(card)}{verb}{mask_symbols(take) if take else ''}"

    def words(self) -> tuple[int, str, int]:
        """The move in words, in three parts that a renderer colours: the card played, the words of
        the action (" captures ", " builds 8 with ", " builds two 10s with ", " trails"), and the
        cards they name (a mask)."""
        if self.action == CAPTURE:
            return self.card, " captures ", self.take
        if self.action == BUILD:
            return self.card, f" builds {self._built()} with ", self.take
        if self.take:
            return self.card, f" trails, building {self._built()} from ", self.take
        return self.card, " trails", 0

    def _built(self) -> str:
        """What a build makes: "10", or for a multiple build (rules.md 1.6) "two 10s": "3♠ builds 10
        with 7♣ 10♠" read as a build of 20."""
        n = sets_built(self.card, self.take, self.value)
        return str(self.value) if n == 1 else f"{_COUNT_WORDS.get(n, str(n))} {self.value}s"


_COUNT_WORDS: Final = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def sets_built(card: int, take: int, value: int) -> int:
    """How many sets of ``value`` a build of ``card`` with the table cards ``take`` holds: 1 for a
    single build, 2 or more for a multiple one. Counted from the cards' pips (face cards 11-13 and an
    ace 1 or 14, as the rules that let them build count them); 1 where the pips tell nothing else."""
    pips = [RANK[c] + 1 for c in (card, *iter_cards(take))]
    totals = [sum(pips) + 13 * fourteens for fourteens in range(pips.count(1) + 1)]
    if value <= 0 or value in totals:
        return 1
    return next((t // value for t in totals if t % value == 0 and t > value), 1)


_T = TypeVar("_T")

_new: Final = tuple.__new__  # Move(...) and RoundState(...) through their __new__ cost three times as much
# The classes in Final names: the compiled build keeps them in C statics, where a plain reference to
# a class that is not native (a NamedTuple) is a look-up by name in the module's dict at every use.
_MOVE: Final = Move
_ROUND_STATE: Final = RoundState
_BUILD: Final = Build

# The 52 plain trails, made once and shared (every position lists one per card in hand). Every other
# move is made afresh with ``_new``. A cache of captures and builds (per card, keyed by take, value
# and action) used to answer 67% of random royal play's captures and 39% of its builds; but making a
# NamedTuple costs the compiled build as much as the interpreter, the cached Moves pushed one another
# out, and every Move kept lived on for the cycle collector's passes (a NamedTuple is never untracked
# as a plain tuple of ints is). Made afresh, they die with the list of moves: with the captures no
# longer kept, 2,000 random royal rounds ran 14% faster compiled and 5% faster pure (medians of 9),
# and the cycle collector's full passes fell from 11 to 6 in 6,000 rounds.
_TRAILS: Final[tuple[Move, ...]] = tuple([_new(_MOVE, (c, TRAIL, 0, 0)) for c in range(52)])


# ---------------------------------------------------------------------------------------------------
# Value sets of loose cards


def _sums_table(items: list[tuple[int, int]], limit: int) -> tuple[tuple[int, ...], ...]:
    """For each total 0..limit, every non-empty subset (a mask) of ``items`` (mask, value) with it."""
    subs = [(0, 0)]
    for m, v in items:
        subs += [(mm | m, t + v) for mm, t in subs if t + v <= limit]
    out: list[list[int]] = [[] for _ in range(limit + 1)]
    for mm, t in subs[1:]:
        out[t].append(mm)
    return tuple(map(tuple, out))


_NUMERALS: Final = sum(RANK_MASK[r] for r in range(10))


_SumsTable = tuple[tuple[int, ...], ...]
# Keyed by one int, the mask shifted past the limit (at most 14): cheaper to hash and compare than a pair.
_sums_cache: Final[dict[int, _SumsTable]] = {}
# Kept small for the cycle collector (see _TRAILS): over 4,000 random rounds 32,768 tables answer 53% of
# the look-ups in classic and 31% in royal, 131,072 tables 60% and 39% (a miss mostly extends a table
# one card short of it, which is cheap).
_SUMS_CACHE_SIZE: Final = 1 << 15


# The key of the table asked for last (``_numeral_sums``), which holds the next one or lacks a card of it.
_last_key: Final[list[int]] = [0]


def _numeral_sums(summable: int, limit: int) -> _SumsTable:
    """Value sets of the cards of ``summable`` by total, each card worth its rank (aces 1).

    Cached by card mask. The table asked for last is tried first: after a trail it is the table one
    card short, and extending it by that card is much cheaper than starting again; after a capture
    it holds the cards left, and its sets that avoid the cards taken are the answer, kept without
    making a single new mask. Failing that, a cached table one card short, or a new table.
    """
    key = summable << 4 | limit
    got = _sums_cache.get(key)
    last = _last_key[0]
    _last_key[0] = key
    if got is not None:
        return got
    before = _sums_cache.get(last) if last & 15 == limit else None
    if before is not None:
        added = summable & ~(last >> 4)
        gone = last >> 4 & ~summable
        if not gone and added & added - 1 == 0:  # one card more: a trail
            got = _extended(before, added, limit)
        elif not added and summable.bit_count() > 3:  # cards taken: a capture
            got = tuple([tuple([m for m in sets if not m & gone]) for sets in before])
    if got is None:
        rest = summable
        while rest:
            bit = rest & -rest
            parent = _sums_cache.get((summable ^ bit) << 4 | limit)
            if parent is not None:
                got = _extended(parent, bit, limit)
                break
            rest ^= bit
        else:
            got = _sums_table([(1 << c, RANK[c] + 1) for c in cards_of(summable)], limit)
    if len(_sums_cache) >= _SUMS_CACHE_SIZE:
        _sums_cache.clear()
    _sums_cache[key] = got
    return got


def _extended(parent: _SumsTable, bit: int, limit: int) -> _SumsTable:
    """The value sets of ``parent``'s cards and the card ``bit``: the parent's sets, with the card
    alone and the card joined to every set worth its total less the card's value."""
    v = RANK[bit.bit_length() - 1] + 1
    out = list(parent)
    if v <= limit:
        out[v] = (*parent[v], bit)
        for t in range(v + 1, limit + 1):
            if parent[t - v]:
                out[t] = parent[t] + tuple([m | bit for m in parent[t - v]])
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def _unions(sets: tuple[int, ...]) -> tuple[int, ...]:
    """Every non-empty union of pairwise-disjoint members of ``sets``, each once, sorted.

    Sets are grouped by their lowest card and taken in that order; the unions reachable from "the
    next lowest card, and which cards at or above it are used" are memoised, so the many families of
    sets that make the same union on a big table are merged instead of walked one by one.
    """
    if len(sets) <= 8:  # small tables: walking the families directly is cheaper
        # Depth first, each family once: from the union ``acc``, add a set from index ``start`` on.
        # (A stack of ints, not a nested function: the compiled build makes a closure an object.)
        small: set[int] = set()
        starts = [0]
        accs = [0]
        while starts:
            start = starts.pop()
            acc = accs.pop()
            for j in range(start, len(sets)):
                s = sets[j]
                if not s & acc:
                    small.add(acc | s)
                    starts.append(j + 1)
                    accs.append(acc | s)
        return tuple(sorted(small))
    by_low: dict[int, list[int]] = {}
    for s in sets:
        by_low.setdefault(s & -s, []).append(s)
    lows = sorted(by_low)
    n = len(lows)
    memo: dict[tuple[int, int], set[int]] = {}

    def reach(k: int, used: int) -> set[int]:
        if k == n:
            return {0}
        low = lows[k]
        used &= -low  # cards below this lowest card can no longer be chosen
        key = (k, used)
        found = memo.get(key)
        if found is None:
            found = set(reach(k + 1, used))
            if not used & low:
                for s in by_low[low]:
                    if not s & used:
                        found.update([x | s for x in reach(k + 1, used | s)])
            memo[key] = found
        return found

    out = reach(0, 0)
    out.discard(0)
    return tuple(sorted(out))


class LooseTable:
    """Per-position lookups shared by every card of the hand (built once per ``legal_moves``).

    With a ``target`` (the loose cards of one move being checked, ``is_legal``) the unions are only
    those that can make up exactly those cards: the target itself, or the target less one value set
    (the played card's own set of a build, or a raise's helper), each when it splits. The moves made
    from them are genuine, and the checked move is among them if it is legal, without listing the
    hundreds of thousands of unions a big capture's cards make.
    """

    __slots__ = ("by_sum", "limit", "loose", "numeric", "pv", "target", "union_cache")

    def __init__(self, rules: RuleSet, loose: int, target: int | None = None) -> None:
        self.loose = loose
        self.limit = rules.max_build
        self.target = target
        self.pv = rules.pair_value
        # Classic courts never enter sums: key the cached table on the numerals only.
        self.numeric = numeric = rules.numeric_courts
        self.by_sum = _numeral_sums(loose if numeric else loose & _NUMERALS, 14 if numeric else 10)
        self.union_cache: list[tuple[int, ...] | None] = [None] * 15  # by value, 1..14

    def sets(self, w: int) -> tuple[int, ...]:
        """Loose value sets worth ``w``: summing numerals, or one classic court of pairing value w
        (``by_sum`` reaches 10 in classic, where 11..13 are the courts' pairing values)."""
        if w <= self.limit:
            return self.by_sum[w]
        if w <= 13:
            return tuple([1 << c for c in cards_of(self.loose & RANK_MASK[w - 1])])
        return ()

    def gatherings(self, b: int, v: int, alone_ok: bool, multi: bool) -> list[int]:
        """Loose masks S such that a played card worth ``b`` and S split into sets worth ``v``
        (S may be empty when the card alone is worth v, or ``alone_ok``: V3's ace as a 14-set).
        With ``multi`` off (B9) at most one loose set joins the card's own set.

        A mask can come twice, when its cards make the card's own set and the other sets in two
        ways: the callers drop the repeats (a list, which the compiled build makes and walks
        natively, where a set cost a fifth of the build moves' time)."""
        us = self.unions(v) if multi else self.sets(v)
        acc: list[int] = []
        if v == b or alone_ok:  # the card's own set is the card alone
            acc.append(0)
            acc += us
        if v > b:
            for t in self.sets(v - b):  # the loose cards completing the card's own set
                acc.append(t)
                for u in us:
                    if not u & t:
                        acc.append(t | u)
        return acc

    def unions(self, w: int) -> tuple[int, ...]:
        """Non-empty loose masks that split into sets each worth ``w`` (rules.md 1.6.1); with a
        ``target``, only those that can make it up (see the class)."""
        u = self.union_cache[w]
        if u is None:
            if self.target is not None:
                u = self._target_unions(w, self.target)
            else:
                sets = self.sets(w)
                u = _unions(sets) if len(sets) > 1 else sets  # most values have at most one set
            self.union_cache[w] = u
        return u

    def _target_unions(self, w: int, target: int) -> tuple[int, ...]:
        parts = {target}
        for by_total in self.by_sum[1:]:
            parts.update(target ^ t for t in by_total if not t & ~target)
        return tuple(sorted(u for u in parts if u and self.splits(u, w)))

    def splits(self, mask: int, w: int) -> bool:
        """Whether the loose cards ``mask`` split into disjoint sets each worth ``w`` (``sets(w)``),
        decided on the cards' values (``split_ok``), so no union is listed."""
        if w > self.limit:  # a classic court's pairing value: its sets are single courts of its rank
            return w <= 13 and not mask & ~(self.loose & RANK_MASK[w - 1])
        if not self.numeric and mask & ~_NUMERALS:
            return False  # classic courts never enter sums
        return split_ok(mask, w, self.pv)


def split_ok(cards: int, value: int, pv: tuple[int, ...]) -> bool:
    """Do the cards of the mask ``cards`` split into disjoint sets each worth ``value`` (rules.md 1.5),
    each card worth ``pv[card]``? Only the values matter, so the search runs over how many cards of
    each value are left (memoised): a few milliseconds for any table, where trying every subset took
    minutes past 20 cards."""
    values = [pv[c] for c in iter_cards(cards)]
    counts = [0] * (max(value, *values) + 1) if values else [0] * (value + 1)
    for v in values:
        counts[v] += 1
    if sum(values) % value or counts[0]:
        return False
    return _splits(tuple(counts), value)


@lru_cache(maxsize=1 << 14)
def _splits(counts: tuple[int, ...], value: int) -> bool:
    top = next((v for v in range(len(counts) - 1, 0, -1) if counts[v]), 0)
    if not top:
        return True
    if top > value:
        return False
    left = list(counts)
    left[top] -= 1
    return _fill(left, value - top, top, value)


def _fill(left: list[int], need: int, cap: int, value: int) -> bool:
    """Complete the set being made (``need`` more, from values at most ``cap``), then split the rest."""
    if need == 0:
        return _splits(tuple(left), value)
    for v in range(min(need, cap), 0, -1):
        if left[v]:
            left[v] -= 1
            ok = _fill(left, need - v, v, value)
            left[v] += 1
            if ok:
                return True
    return False


# ---------------------------------------------------------------------------------------------------
# Legal moves

# The most loose cards whose legal moves are listed for someone to read (``check_listable``: the
# moves command, the engine's legal request). Listing is the generation itself, whose cost grows
# exponentially with the table: 16 small numerals give 71,000 moves in a few seconds, 20 a million in
# minutes, and the 48 loose cards of a log whose players only trail more than anything can list. The
# search has bounds of its own, smaller (search.expectimax); the legality of one move needs none.
MAX_LISTED_LOOSE: Final = 16


def check_listable(loose: int) -> None:
    """TooManyMovesError when a table's loose cards (a mask) are more than MAX_LISTED_LOOSE."""
    n = loose.bit_count()
    if n > MAX_LISTED_LOOSE:
        raise TooManyMovesError(
            f"{n} loose cards on the table: legal moves are listed with at most {MAX_LISTED_LOOSE} "
            "(the captures of a bigger table run into the millions)"
        )


def legal_moves(rules: RuleSet, state: RoundState, cards: int | None = None) -> list[Move]:
    """Every legal move of the seat to move, each once, sorted. Empty when the round needs a deal.

    ``cards`` (a mask) restricts the moves to those playing one of these hand cards; the rest of the
    hand still counts for must-hold.
    """
    moves = _generate(rules, state, cards)
    if not moves and state.hands[state.to_move] and (cards is None or not _generate(rules, state, None)):
        moves = _last_resort(rules, state, cards)
    if isinstance(moves, list):  # a table without builds: ``_generate_simple`` made them in order
        return moves
    return sorted(moves)


def _last_resort(rules: RuleSet, state: RoundState, cards: int | None) -> set[Move]:
    """The moves of a player who holds cards but has no legal move.

    rules.md 1.4 proves this cannot happen because an owner holds his capture card. Two cases escape
    the proof: building for a partner (only the partner may hold it), and a position made elsewhere in
    which one Royal ace must cover builds of both 1 and 14. Then must-hold is waived for the builds
    already owned; if even that leaves nothing, the player trails.
    """
    # Decided for the whole hand first (a card filter only selects among the result).
    moves = set(_generate(rules, state, None, strict=False)) or {
        _TRAILS[c] for c in cards_of(state.hands[state.to_move])
    }
    return moves if cards is None else {m for m in moves if cards >> m.card & 1}


def _generate(
    rules: RuleSet, state: RoundState, cards: int | None, strict: bool = True, target: int | None = None
) -> Collection[Move]:
    """The moves of ``legal_moves`` (``strict`` off: must-hold waived for the builds owned already;
    with a ``target``, only the moves that ``LooseTable`` makes for those loose cards, ``is_legal``)."""
    seat = state.to_move
    hand = state.hands[seat]
    if not hand:
        return ()
    builds = state.builds
    loose = state.loose
    capm = rules.capture_masks
    bv = rules.build_value
    pv = rules.pair_value
    nsides = state.nsides
    tbl = LooseTable(rules, loose, target)
    # Helpers for the must-hold rule (1.8.2): which capture values remain in hand after playing c.
    hand_cards = cards_of(hand)
    partner_capm = 0  # the partner's capture values, when building for the partner is allowed
    if rules.build_for_partner != "never" and state.nplayers == 4 and nsides == 2:
        for c in iter_cards(state.hands[(seat + 2) % 4]):
            partner_capm |= capm[c]
    if not builds and rules.simple_tables:
        return _generate_simple(rules, tbl, hand_cards, cards, partner_capm)
    owned = [b for b in builds if b.owner == seat]
    owns_build = bool(owned)
    # Both ace values can only be needed when a build of 1 or 14 is owned already.
    dual_ace = rules.ace_value == "one_or_fourteen" and any(b.value in (1, 14) for b in owned)
    partner_aces = 0
    if partner_capm:
        partner_aces = (state.hands[(seat + 2) % 4] & ACES_MASK).bit_count()
    equal_loose = rules.trail_restriction == "equal_loose"
    loose_pvs = {pv[c] for c in iter_cards(loose)} if equal_loose else set()
    court_builds = rules.court_builds and not rules.numeric_courts
    maxb = rules.max_build
    moves: set[Move] = set()

    for c in hand_cards:
        if cards is not None and not cards >> c & 1:
            continue
        rest = _kept_values(capm, hand_cards, c, partner_capm)
        rest_caps = cards_of(rest)  # the values set in the mask (bit w: value w)
        # Must-hold (1.8.2): every build the mover still owns after the move needs a capture card.
        # Only builds whose value would be left uncovered matter; usually there are none.
        exposed = [b.cards for b in owned if not rest >> b.value & 1] if strict else []

        # --- captures (1.6) ---
        captures = _captures(rules, state, tbl, c)
        if exposed:
            captures = {t for t in captures if all(t & bc for bc in exposed)}
        can_capture = bool(captures)
        card_moves = [_new(_MOVE, (c, CAPTURE, t, 0)) for t in captures]

        # --- builds (1.7) ---
        b = bv[c]
        builds_ok = b > 0 or court_builds
        if equal_loose and not rules.equal_loose_build_ok and pv[c] in loose_pvs:
            builds_ok = False
        if builds_ok and (builds or court_builds or rest >> b << b & (2 << maxb) - 1):
            found = _build_moves(rules, state, tbl, c, rest_caps)
            if exposed:
                found = [mv for mv in found if all(mv.take & bc for bc in exposed)]
            card_moves += found

        # --- trail (1.9) ---
        trail_ok = not (owns_build and not rules.owner_may_trail)
        if equal_loose and pv[c] in loose_pvs:
            trail_ok = False
        if rules.trail_restriction == "any_capture" and can_capture:
            trail_ok = False
        if trail_ok and not exposed:
            card_moves.append(_TRAILS[c])
            if rules.table_only_builds:
                for v in range(1, rules.max_build + 1):
                    if v not in rest_caps or not _value_free(rules, builds, v, ()):
                        continue
                    for s in tbl.unions(v):
                        if s.bit_count() >= 2:
                            card_moves.append(_new(_MOVE, (c, TRAIL, s, v)))

        # Must-hold, one card per build value: a Royal ace captures as 1 or as 14, never both in
        # one move, so an owner who must cover a build of 1 and a build of 14 needs two aces. (Read
        # literally, 1.8.2 lets one ace cover both, and then its owner can be left with no legal
        # move, against 1.4.)
        if strict and dual_ace and (hand & ~(1 << c) & ACES_MASK).bit_count() + partner_aces < 2:
            card_moves = [m for m in card_moves if not needs_both_ace_values(m, owned)]
        moves.update(card_moves)

    return moves


def _kept_values(capm: tuple[int, ...], hand_cards: list[int], played: int, partner_capm: int) -> int:
    """The capture values (bit w: value w) the mover's side still holds after ``played`` leaves the
    hand: the rest of the hand, and the partner's hand when building for the partner is allowed."""
    kept = partner_capm
    for o in hand_cards:
        if o != played:
            kept |= capm[o]
    return kept


def _generate_simple(
    rules: RuleSet, tbl: LooseTable, hand_cards: list[int], cards: int | None, partner_capm: int
) -> list[Move]:
    """``_generate`` on a table without builds under ``rules.simple_tables``: the common case.

    With no build on the table nobody owns one, so must-hold binds only the value of a new build,
    and nothing can be extended or raised; the moves are each numeral's captures and new builds, each
    court's pairings, and the trails (none for a card that can capture under any_capture). Each move
    comes once: cards differ, and a card's captures, builds of one value and builds of different
    values differ in action, take or value.

    The moves come sorted, as ``legal_moves`` returns them: card by card, each card's trail, its
    captures by take, its builds by take and value. Sorting the masks costs a fraction of sorting
    the Moves (a NamedTuple compares item by item through the generic tuple comparison; sorting was
    a tenth of the compiled build's time in random play).
    """
    capm = rules.capture_masks
    caps = rules.capture_values
    bv = rules.build_value
    maxb = rules.max_build
    below_max = (2 << maxb) - 1
    multi = rules.multi_set_build_creation
    ace14 = rules.ace_singleton_set_in_build and maxb == 14
    trail_if_capture = rules.trail_restriction != "any_capture"
    out: list[Move] = []
    for c in hand_cards:
        if cards is not None and not cards >> c & 1:
            continue
        b = bv[c]
        ws = caps[c]
        # A tuple, which the compiled build iterates natively; in increasing order (``_court_takes``,
        # ``LooseTable.unions``), sorted here for an ace's two values.
        takes: tuple[int, ...]
        if not b:
            takes = _court_takes(rules, tbl, ws[0])
        elif len(ws) == 1:
            takes = tbl.unions(ws[0])
        else:  # a Royal ace captures as 1 or as 14
            takes = tuple(sorted({t for w in ws for t in tbl.unions(w)}))
        if trail_if_capture or not takes:
            out.append(_TRAILS[c])
        for t in takes:
            out.append(_new(_MOVE, (c, CAPTURE, t, 0)))
        if b:
            # The values b..max_build a card left in hand captures (must-hold of the new build).
            rest = _kept_values(capm, hand_cards, c, partner_capm) >> b << b & below_max
            built: list[int] = []  # take and value, as take << 4 | value: in the order of the moves
            while rest:
                low = rest & -rest
                rest ^= low
                v = low.bit_length() - 1
                for s in tbl.gatherings(b, v, ace14 and v == 14 and b == 1, multi):
                    if s:  # a build is never the played card alone (1.7.1)
                        built.append(s << 4 | v)
            built.sort()
            last = 0
            for k in built:
                if k != last:  # a take that splits two ways comes twice (``gatherings``)
                    out.append(_new(_MOVE, (c, BUILD, k >> 4, k & 15)))
                    last = k
    return out


def _court_takes(rules: RuleSet, tbl: LooseTable, w: int) -> tuple[int, ...]:
    """The loose cards a classic court of pairing value ``w`` may take (1.6.3, court_pairing_count)."""
    singles = tbl.sets(w)
    n = rules.court_pairing_count
    if n == "one":
        return singles
    if n == "all":
        return (sum(singles),) if singles else ()
    return singles + ((sum(singles),) if len(singles) == 3 else ())  # one_or_three


def needs_both_ace_values(move: Move, owned: list[Build]) -> bool:
    """Whether, after ``move``, its player owns (or creates) builds of both 1 and 14."""
    need = {b.value for b in owned if not b.cards & move.take}
    if move.action == BUILD or move.value:
        need.add(move.value)
    return 1 in need and 14 in need


def _value_free(rules: RuleSet, builds: tuple[Build, ...], value: int, consumed: tuple[int, ...]) -> bool:
    """B8: with allow_duplicate_value_builds off, no other build may already have ``value``."""
    if rules.allow_duplicate_value_builds:
        return True
    return all(b.value != value or b.cards in consumed for b in builds)


def _captures(rules: RuleSet, state: RoundState, tbl: LooseTable, c: int) -> set[int]:
    """Every take mask card ``c`` may capture, before the must-hold filter."""
    out: set[int] = set()
    builds = state.builds
    equal_loose = rules.trail_restriction == "equal_loose"
    classic_court = rules.build_value[c] == 0
    for w in rules.capture_values[c]:
        loose_opts = _court_takes(rules, tbl, w) if classic_court else tbl.unions(w)
        if rules.build_as_card_in_sums and not classic_court:
            loose_opts = _with_builds_in_sums(rules, state, tbl, w, loose_opts)
        bmasks = [b.cards for b in builds if b.value == w]
        equal = state.loose & RANK_MASK[w - 1] if equal_loose and w <= 13 else 0
        if not bmasks and not equal:
            out.update(loose_opts)  # the common case: sets of loose cards only
            continue
        combos = [0, *loose_opts]
        for bm in bmasks:
            combos += [x | bm for x in combos]
        if equal:
            # Dominican (1.9): a capture with value w takes every loose card worth w (or one of them);
            # a loose card is worth w when its rank is w (pair value = rank + 1).
            if rules.equal_loose_capture == "all":
                combos = [x for x in combos if x & equal == equal]
            else:
                combos = [x for x in combos if x & equal]
        out.update(x for x in combos if x)
    return out


def _with_builds_in_sums(
    rules: RuleSet, state: RoundState, tbl: LooseTable, w: int, loose_opts: tuple[int, ...]
) -> tuple[int, ...]:
    """Option C4: single builds also count as cards of their value inside capture sums."""
    singles = [b for b in state.builds if not b.multiple and b.value < w]
    if not singles:
        return loose_opts
    bv = rules.build_value
    items = [(1 << c, bv[c]) for c in iter_cards(state.loose) if bv[c] > 0]
    items += [(b.cards, b.value) for b in singles]
    sums = _sums_table(items, tbl.limit)
    return _unions(sums[w]) if w <= tbl.limit else loose_opts


def _build_moves(
    rules: RuleSet, state: RoundState, tbl: LooseTable, c: int, rest_caps: list[int]
) -> list[Move]:
    """Create (1.7.1), extend (1.7.2) and raise (1.7.3) with card ``c``; must-hold of the new value."""
    out: list[Move] = []
    seat = state.to_move
    nsides = state.nsides
    builds = state.builds
    maxb = rules.max_build
    court = rules.build_value[c] == 0  # classic court, only with court_builds
    b = rules.pair_value[c] if court else rules.build_value[c]
    ace14 = rules.ace_singleton_set_in_build and RANK[c] == 0 and rules.max_build == 14

    multi = rules.multi_set_build_creation
    # ``tbl.gatherings(v if court else b, v, ace14 and v == 14, multi)`` below: a court (court_builds)
    # only pairs, its set is the card alone, like a numeral worth v. (Written out, not a closure: the
    # compiled build makes a closure an object on every call.)

    # Create: onto a non-empty set of loose cards, declaring v (single or multiple). Must-hold
    # (1.8.2) means v is one of the few capture values left in hand.
    for v in rest_caps:  # the final list is sorted once in legal_moves
        if (v != b if court else (v < b or v > maxb)) or not _value_free(rules, builds, v, ()):
            continue
        for s in tbl.gatherings(v if court else b, v, ace14 and v == 14, multi):
            if s:  # a build is never the played card alone (1.7.1)
                out.append(_new(_MOVE, (c, BUILD, s, v)))

    for bld in builds:
        owner = bld.owner
        own = owner == seat
        partner = not own and owner % nsides == seat % nsides
        v = bld.value
        if not court and not rules.numeric_courts and v > 10:
            continue  # a classic court build (court_builds) takes only courts of its rank
        # Extend: c (with loose cards) adds v-sets; the build becomes multiple (1.7.2).
        if (
            v in rest_caps
            and (not partner or rules.partner_build_interaction == "free")
            and (b <= v or (ace14 and v == 14))
        ):
            extra: tuple[int, ...] = ()
            if rules.merge_builds:
                extra = tuple(o.cards for o in builds if o is not bld and o.value == v)
            for s in tbl.gatherings(v if court else b, v, ace14 and v == 14, multi):
                out.append(_new(_MOVE, (c, BUILD, bld.cards | s, v)))
                for merged in _unions(extra) if extra else ():
                    out.append(_new(_MOVE, (c, BUILD, bld.cards | s | merged, v)))
        # Raise a single build with the hand card (1.7.3); multiple builds never.
        if bld.multiple or court:
            continue
        if own and not rules.raise_own_build:
            continue
        if partner and rules.partner_build_interaction == "none":
            continue
        raises: list[tuple[int, int]] = [(v + b, 0)]
        if rules.table_cards_in_raise == "with_hand_card":
            for s_total in range(1, maxb - v - b + 1):
                raises += [(v + b + s_total, m) for m in tbl.sets(s_total)]
        for nv, helper in raises:
            if nv > maxb or nv not in rest_caps:
                continue
            if not _value_free(rules, builds, nv, (bld.cards,)):
                continue
            out.append(_new(_MOVE, (c, BUILD, bld.cards | helper, nv)))
            us = tbl.unions(nv) if rules.multi_set_build_creation else tbl.sets(nv)
            for u in us:
                if not u & helper:
                    out.append(_new(_MOVE, (c, BUILD, bld.cards | helper | u, nv)))
    return out


# ---------------------------------------------------------------------------------------------------
# Applying a move


def apply(rules: RuleSet, state: RoundState, move: Move) -> RoundState:
    """The state after ``move`` (assumed legal: check with ``legal_moves`` or ``play``).

    When the move ends the round, the residue goes to the side of the last capture (rules.md 1.11).
    """
    seat = state.to_move
    side = seat % state.nsides
    bit = 1 << move.card
    hands = replaced(state.hands, seat, state.hands[seat] ^ bit)
    take = move.take
    loose = state.loose
    builds = state.builds
    if take and builds:
        builds = tuple([b for b in builds if not b.cards & take])
    captured = state.captured
    sweeps = state.sweeps
    last = state.last_capturer
    # The round ends with this move when nothing more is to come and every hand is empty (a loop, not
    # the builtin any(): that is a generic call in the compiled build).
    round_over = not state.more
    if round_over:
        for h in hands:
            if h:
                round_over = False
                break
    if move.action == CAPTURE:
        loose &= ~take
        captured = replaced(captured, side, captured[side] | take | bit)
        last = side
        if not loose and not builds and (rules.final_capture_can_sweep or not round_over):
            sweeps = replaced(sweeps, side, sweeps[side] + 1)
    elif move.action == BUILD:
        loose &= ~take
        builds = _with_build(rules, builds, take | bit, move.value, seat)
    else:
        loose |= bit
        if take:  # table_only_builds: the trailed card stays loose beside a build of table cards
            loose &= ~take
            builds = _with_build(rules, builds, take, move.value, seat)
    # Positional construction: NamedTuple._replace is several times slower on this hot path.
    nxt: RoundState = _new(
        _ROUND_STATE,
        (
            hands,
            loose,
            builds,
            captured,
            sweeps,
            (seat + 1) % len(hands),
            last,
            state.stock,
            state.more,
            state.dealer,
            state.nsides,
            state.set_aside,
        ),
    )
    if round_over:
        nxt = _collect_residue(rules, nxt)
    return nxt


def _with_build(
    rules: RuleSet, builds: tuple[Build, ...], cards: int, value: int, seat: int
) -> tuple[Build, ...]:
    """``builds`` with a new build of ``cards`` declared ``value`` by ``seat``, in its place. Builds
    are sorted, and as no two share a card their masks alone order them: an insertion, not sorted()
    and the generic comparison of NamedTuples; the Build made positionally (see ``_new``)."""
    pv = rules.pair_value
    total = 0
    rest = cards
    while rest:
        low = rest & -rest
        total += pv[low.bit_length() - 1]
        rest ^= low
    new: Build = _new(_BUILD, (cards, value, seat, total != value))
    i = 0
    while i < len(builds) and builds[i].cards < cards:
        i += 1
    return (*builds[:i], new, *builds[i:])


def replaced(items: tuple[_T, ...], i: int, value: _T) -> tuple[_T, ...]:
    """``items`` with item ``i`` replaced by ``value``. Hands, capture piles and sweeps are tuples of
    two in most games, and those are made directly: no list in between, and in the compiled build no
    unboxing and boxing again of the ints kept (a type variable is an object to mypyc)."""
    if len(items) == 2:
        return (value, items[1]) if i == 0 else (items[0], value)
    out = list(items)
    out[i] = value
    return tuple(out)


def residue_of(rules: RuleSet, state: RoundState) -> tuple[int, int]:
    """rules.md 1.11 and S5: the cards left on the table when the round ends, and the side they go
    to (the last capturer's, or the dealer's where nobody captured and the rules say so; -1: set
    aside, scoring for nobody)."""
    to = state.last_capturer if rules.last_capture_takes_table else -1
    if to < 0 and rules.residue_if_no_capture == "dealer" and rules.last_capture_takes_table:
        to = state.dealer % state.nsides
    return state.table, to


def _collect_residue(rules: RuleSet, state: RoundState) -> RoundState:
    """The residue (``residue_of``) taken from the table; this is never a sweep."""
    residue, to = residue_of(rules, state)
    if not residue:
        return state
    captured, set_aside = state.captured, state.set_aside
    if to < 0:
        set_aside |= residue
    else:
        captured = replaced(captured, to, captured[to] | residue)
    collected: RoundState = _new(
        _ROUND_STATE,
        (
            state.hands,
            0,
            (),
            captured,
            state.sweeps,
            state.to_move,
            state.last_capturer,
            state.stock,
            state.more,
            state.dealer,
            state.nsides,
            set_aside,
        ),
    )
    return collected


def is_legal(rules: RuleSet, state: RoundState, move: Move) -> bool:
    """Whether ``move`` is legal, without listing every move of a big table.

    A move's legality depends only on the cards it involves and on what the rules look at beside
    them: loose cards of the played card's rank (the Dominican equal-value rules), the mover's own
    builds (must-hold, no trailing), and every build when duplicate build values are forbidden (B8).
    So the move is looked for among the moves of its card on a table reduced to those.
    """
    bit = 1 << move.card
    if not state.hands[state.to_move] & bit or move.take & ~state.table:
        return False
    if rules.trail_restriction == "any_capture":
        # Trailing then depends on every capture of the card: judge on the whole table.
        return move in legal_moves(rules, state, cards=bit)
    if _generated(rules, state, move):
        return True
    # Otherwise legal only as a last resort, when the whole hand has no move (see _last_resort).
    return not _has_move(rules, state) and move in _last_resort(rules, state, bit)


def _generated(rules: RuleSet, state: RoundState, move: Move) -> bool:
    """Whether the generator makes ``move`` (legal unless as a last resort), on a table reduced to what
    decides it (``is_legal``) and with only the unions that make up its loose cards (``LooseTable``)."""
    seat = state.to_move
    take = move.take
    keep_all = not rules.allow_duplicate_value_builds
    builds = tuple(b for b in state.builds if keep_all or b.owner == seat or b.cards & take)
    loose = state.loose & (take | RANK_MASK[RANK[move.card]])
    reduced = state._replace(loose=loose, builds=builds)
    return move in _generate(rules, reduced, 1 << move.card, target=take & loose)


def _has_move(rules: RuleSet, state: RoundState) -> bool:
    """Whether the seat to move has a legal move (not as a last resort), found without listing every
    move of a big table where possible: a card may be trailed (rules.md 1.9), or a build owned can
    be taken (the owner holds its capture card, 1.8.2); only then the whole list."""
    seat = state.to_move
    hand = state.hands[seat]
    caps = rules.capture_values
    for c in iter_cards(hand):
        if _generated(rules, state, _new(_MOVE, (c, TRAIL, 0, 0))):
            return True
    for b in state.builds:
        if b.owner == seat:
            for c in iter_cards(hand):
                if b.value in caps[c] and _generated(rules, state, _new(_MOVE, (c, CAPTURE, b.cards, 0))):
                    return True
    return bool(_generate(rules, state, None))
