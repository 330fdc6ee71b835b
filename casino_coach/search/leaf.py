"""Values of positions in points: the exact value of a finished round and the estimate at a search leaf.

Every value is from the point of view of one *root side*: that side's round points minus the mean of the
other sides' round points (rules.md 1.12), for the whole round, so cards captured before the search
count too (they shift every move's value by the same amount).

* ``final_points`` scores a played-out round like ``scoring.score_round`` with game scores 0 (no
  near-target rules; a ``carry_over`` majority tie is worth nothing this round), but fast: it is called
  at every terminal node of the last deal. The tests check it against ``score_round``.
* ``Evaluator.leaf`` estimates the rest of the round when the search stops at the end of a deal (or at
  a depth limit): each card not yet captured (table, hands, stock) ends up with one side or another
  independently. With two sides the side to move next takes it with a probability measured for its
  class (``P_PAIR_DEAD`` ... ``P_HIDDEN_BY_DEALS``); with three or four, every side is equally likely.
  Cards and spades majorities become probabilities from the counts; Big and Little Casino and the aces
  score for whoever holds them or, still out, by those odds; sweeps made so far count as they stand
  (with cancelling). This is the *handmade* leaf, the default.
* The *learned* leaf (``Evaluator(..., leaf="learned")``, ``Limits.leaf``; two sides) is a linear value
  over ``LEARNED_FEATURES`` with weights per preset, players and deals still to come, fitted by
  ``scripts/fit_leaf.py`` to what the rest of self-play rounds actually gave and shipped as
  ``leaf_weights.json``; where nothing was fitted (three sides, other rules) it is the handmade one.
  ``Evaluator.parts`` (the explanations' categories) stays the handmade breakdown either way.
* With ``category_weights`` (``Evaluator(..., category_weights=...)``, two sides) the handmade leaf's
  and the finished round's points are valued by category and side at the weights given (the chance to
  win the game, ``chances.game_weights``) instead of as the margin.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from math import comb
from typing import Final

from casino_coach.engine.cards import (
    ACES_MASK,
    BIG_CASINO,
    FULL_DECK,
    LITTLE_CASINO,
    RANK,
    RANK_MASK,
    SPADES_MASK,
    cards_of,
    iter_cards,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import net_sweeps
from casino_coach.engine.state import HAND_SIZE, RoundState, table_mask
from casino_coach.errors import SearchError

_BIG: Final = 1 << BIG_CASINO
_LITTLE: Final = 1 << LITTLE_CASINO


def _majority_share(counts: tuple[int, ...], points: int, tie: str) -> list[float]:
    """Points of one majority item per side for final counts (rules.md 1.12, S10)."""
    out = [0.0] * len(counts)
    best = max(counts)
    if points == 0 or best == 0:
        return out
    top = [s for s, n in enumerate(counts) if n == best]
    if len(top) == 1:
        out[top[0]] = float(points)
    elif tie == "split":
        for s in top:
            out[s] = points / len(top)
    return out


def sweep_points(rules: RuleSet, sweeps: tuple[int, ...]) -> list[float]:
    """Sweep points per side with the preset's cancelling (rules.md 1.10, S1-S3)."""
    if not rules.sweeps or not rules.points_sweep:
        return [0.0] * len(sweeps)
    return [float(x * rules.points_sweep) for x in net_sweeps(rules, sweeps)]


def final_points(rules: RuleSet, state: RoundState, parts: Parts | None = None) -> list[float]:
    """Round points per side of a played-out round (game scores 0), as ``score_round`` gives them;
    ``parts`` collects them by scoring category (``CATEGORIES``) as well."""
    piles = state.captured
    n = len(piles)
    pts = [0.0] * n
    _credit_majority(
        pts,
        parts,
        "cards",
        _majority_share(tuple(p.bit_count() for p in piles), rules.points_cards, rules.majority_tie),
    )
    _credit_majority(
        pts,
        parts,
        "spades",
        _majority_share(
            tuple((p & SPADES_MASK).bit_count() for p in piles), rules.points_spades, rules.majority_tie
        ),
    )
    _credit_owned(rules, pts, parts, piles, state.sweeps)
    if rules.last_capture_point and state.last_capturer >= 0:
        _credit(pts, parts, "last", state.last_capturer, rules.last_capture_point)
    return pts


# The scoring categories a value is made of (``Parts`` keys): the majorities, the cash cards, each ace
# (``"ace"`` + the card's number), the sweeps and the point for the last capture.
CATEGORIES = ("cards", "spades", "big", "little", "aces", "sweeps", "last")

Parts = dict[str, list[float]]  # category -> points per side


def _credit(pts: list[float], parts: Parts | None, key: str, side: int, value: float) -> None:
    pts[side] += value
    if parts is not None:
        got = parts.get(key)
        if got is None:
            got = parts[key] = [0.0] * len(pts)
        got[side] += value


def _credit_majority(pts: list[float], parts: Parts | None, key: str, share: list[float]) -> None:
    for s, v in enumerate(share):
        if v:
            _credit(pts, parts, key, s, v)


def _credit_owned(
    rules: RuleSet, pts: list[float], parts: Parts | None, piles: tuple[int, ...], sweeps: tuple[int, ...]
) -> None:
    """What the piles already hold for sure: sweeps, aces, Big and Little Casino."""
    if rules.sweeps and any(sweeps):
        for s, v in enumerate(sweep_points(rules, sweeps)):
            if v:
                _credit(pts, parts, "sweeps", s, v)
    ace = rules.points_ace
    for s, p in enumerate(piles):
        if parts is None:  # the search's hot path: the same sums, without naming the categories
            pts[s] += (
                ace * (p & ACES_MASK).bit_count()
                + (rules.points_big if p & _BIG else 0)
                + (rules.points_little if p & _LITTLE else 0)
            )
            continue
        if ace:
            for c in iter_cards(p & ACES_MASK):
                _credit(pts, parts, f"ace{c}", s, ace)
        if p & _BIG:
            _credit(pts, parts, "big", s, rules.points_big)
        if p & _LITTLE:
            _credit(pts, parts, "little", s, rules.points_little)


# Per scoring category (``Parts`` keys), the value of one point of it to each side (``Evaluator``).
CategoryWeights = dict[str, tuple[float, ...]]


def weighted_value(parts: Parts, weights: CategoryWeights) -> float:
    """The value of the points ``parts`` holds (per category and side) at ``weights`` (categories
    without a weight are worth nothing)."""
    v = 0.0
    for key, pts in parts.items():
        w = weights.get(key)
        if w is not None:
            for s, x in enumerate(pts):
                v += w[s] * x
    return v


def side_parts(parts: Parts, side: int) -> dict[str, float]:
    """Each category as a margin for ``side`` (``side_value`` of its points per side)."""
    return {k: side_value(v, side) for k, v in parts.items()}


def side_value(points: list[float], side: int) -> float:
    """A side's points minus the mean of the other sides' points."""
    n = len(points)
    return points[side] - (plain_sum(points) - points[side]) / (n - 1)


def plain_sum(xs: list[float]) -> float:
    """The floats added left to right from 0, on every Python: ``sum()`` compensates the rounding of
    floats from 3.12 on (Neumaier), and the native core (src/search/leaf.rs) adds as 3.11 does, so
    the two agree to the last bit on any interpreter."""
    total = 0.0
    for x in xs:
        total += x
    return total


# ---------------------------------------------------------------------------------------------------
# Majorities as probabilities


@cache
def _binom_pmf(n: int, k: int) -> tuple[float, ...]:
    """P(X = x) for X ~ Binomial(n, 1/k), x = 0..n."""
    p = 1.0 / k
    q = 1.0 - p
    return tuple(comb(n, x) * p**x * q ** (n - x) for x in range(n + 1))


@cache
def _binom_cdf_lt(n: int, k: int) -> tuple[float, ...]:
    """P(X < t) for X ~ Binomial(n, 1/k), t = 0..n+1."""
    pmf = _binom_pmf(n, k)
    out = [0.0]
    acc = 0.0
    for x in range(n + 1):
        acc += pmf[x]
        out.append(acc)
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def majority_odds(counts: tuple[int, ...], remaining: int) -> tuple[tuple[float, ...], float]:
    """(P(side s ends with strictly the most), P(the most is tied)) when ``remaining`` more items go
    to the sides uniformly at random. Exact for 2 and 3 sides; for 4 individual players each side's
    share is taken as an independent binomial (the sum constraint is dropped), a cheap approximation."""
    n = len(counts)
    if remaining == 0:
        best = max(counts)
        top = [s for s in range(n) if counts[s] == best]
        if len(top) == 1:
            return tuple(1.0 if s == top[0] else 0.0 for s in range(n)), 0.0
        return (0.0,) * n, 1.0
    pmf = _binom_pmf(remaining, n)
    if n == 2:
        # Side 0 gets X, side 1 gets remaining - X.
        d = counts[0] - counts[1]
        p0 = p1 = 0.0
        for x in range(remaining + 1):
            diff = d + 2 * x - remaining
            if diff > 0:
                p0 += pmf[x]
            elif diff < 0:
                p1 += pmf[x]
        return (p0, p1), max(0.0, 1.0 - p0 - p1)
    if n == 3:
        return _three_sides(counts, remaining)
    cdf = _binom_cdf_lt(remaining, n)
    wins = []
    for s in range(n):
        total = 0.0
        for x in range(remaining + 1):
            t = counts[s] + x
            prod = pmf[x]
            for o in range(n):
                if o != s:
                    lim = t - counts[o]  # other side needs fewer than lim more
                    prod *= cdf[min(max(lim, 0), remaining + 1)]
                    if prod == 0.0:
                        break
            total += prod
        wins.append(total)
    return tuple(wins), max(0.0, 1.0 - plain_sum(wins))


def _three_sides(counts: tuple[int, ...], remaining: int) -> tuple[tuple[float, ...], float]:
    """Exact multinomial over the (remaining + 1)(remaining + 2) / 2 splits."""
    wins = [0.0, 0.0, 0.0]
    scale = 3.0**-remaining
    c0, c1, c2 = counts
    for x0 in range(remaining + 1):
        a = comb(remaining, x0) * scale
        r = remaining - x0
        t0 = c0 + x0
        for x1 in range(r + 1):
            t1 = c1 + x1
            t2 = c2 + r - x1
            if t0 > t1 and t0 > t2:
                wins[0] += a * comb(r, x1)
            elif t1 > t0 and t1 > t2:
                wins[1] += a * comb(r, x1)
            elif t2 > t0 and t2 > t1:
                wins[2] += a * comb(r, x1)
    return tuple(wins), max(0.0, 1.0 - plain_sum(wins))


# Where the cards still out end up, two sides: the probability that the side to move next (at a deal's
# end, the next deal's leader) ends the round with a card, measured by scripts/measure_leaf.py over
# 10,000 counter-vs-counter rounds each of classic and royal (the two presets agree within 0.03).
# Indexed [next deal is the last one]. The side to move does well with low table cards (it plays
# first, and more cards on the table give more ways to take them) and badly with a card nobody can
# take any more: that goes with the residue, usually to the other side, which plays last.
P_PAIR_DEAD: Final[tuple[float, ...]] = (0.26, 0.24)  # a pair-only table card with no card of its rank unseen
P_PAIR: Final[tuple[float, ...]] = (0.51, 0.50)  # a pair-only table card that can still be paired
MAX_TABLE_CLASS: Final = 8
P_SUM_BY_SIZE: Final[
    tuple[tuple[float, ...], ...]
] = (  # any other table card, by the number of cards on the table (1..8 or more)
    (0.60, 0.59, 0.61, 0.63, 0.64, 0.65, 0.67, 0.70),
    (0.50, 0.55, 0.57, 0.58, 0.59, 0.62, 0.64, 0.67),
)
P_HIDDEN_BY_DEALS: Final[tuple[float, ...]] = (
    0.40,
    0.40,
    0.45,
    0.47,
    0.48,
    0.49,
)  # an unseen card, by deals still to come


def pair_only(rules: RuleSet, card: int) -> bool:
    """Whether a loose card can only be taken by a card of its own rank: a classic court, or a card
    worth the highest build value (no sum of two or more cards can include it)."""
    b = rules.build_value[card]
    return b == 0 or b >= rules.max_build


def table_class(rules: RuleSet, card: int, table: int, hidden: int) -> tuple[str, int]:
    """The class of a card left on the table, as its odds are measured (``scripts/measure_leaf.py``)
    and used: ("pair", 1 if a card of its rank is still hidden else 0) for a pair-only card, ("sum",
    the number of cards on the table, at most MAX_TABLE_CLASS) for any other."""
    if pair_only(rules, card):
        return "pair", 1 if hidden & RANK_MASK[RANK[card]] else 0
    return "sum", min(table.bit_count(), MAX_TABLE_CLASS)


def table_odds(kind: str, k: int, last: int) -> float:
    """P(the side to move next ends the round with a table card of class (kind, k)); ``last``: 1 when
    the next deal is the last one."""
    if kind == "pair":
        return (P_PAIR if k else P_PAIR_DEAD)[last]
    return P_SUM_BY_SIZE[last][k - 1]


def deals_to_come(hidden: int, nplayers: int) -> int:
    """Deals still to come, from the hidden cards (a part-played deal counts)."""
    return -(-hidden.bit_count() // (HAND_SIZE * nplayers))


@lru_cache(maxsize=1 << 12)
def _binomial(n: int, p: float) -> tuple[float, ...]:
    return tuple(comb(n, x) * p**x * (1 - p) ** (n - x) for x in range(n + 1))


@lru_cache(maxsize=1 << 16)
def _count_pmf(groups: tuple[tuple[int, float], ...]) -> tuple[float, ...]:
    """Distribution of the number of cards one side takes, from groups of (cards, probability each)."""
    out: tuple[float, ...] = (1.0,)
    for n, p in groups:
        if not n:
            continue
        b = _binomial(n, p)
        acc = [0.0] * (len(out) + n)
        for i, pa in enumerate(out):
            for j, pb in enumerate(b):
                acc[i + j] += pa * pb
        out = tuple(acc)
    return out


def _lead_odds(d: int, pmf: tuple[float, ...]) -> tuple[float, float]:
    """(P(the side to move ends strictly ahead), P(strictly behind)) from a lead of d, when it takes
    x of the remaining cards with probability pmf[x]."""
    total = len(pmf) - 1
    win = lose = 0.0
    for x, p in enumerate(pmf):
        diff = d + 2 * x - total
        if diff > 0:
            win += p
        elif diff < 0:
            lose += p
    return win, lose


# The leaf estimates an Evaluator can use (``Limits.leaf``): the handmade odds above, or the learned
# deal-end value below.
HANDMADE: Final = "handmade"
LEARNED: Final = "learned"
LEAF_KINDS: Final[tuple[str, ...]] = (HANDMADE, LEARNED)


def check_leaf(leaf: str) -> None:
    """SearchError unless ``leaf`` names a leaf estimate (``LEAF_KINDS``)."""
    if leaf not in LEAF_KINDS:
        raise SearchError(f"unknown leaf estimate {leaf!r}: choose one of {', '.join(LEAF_KINDS)}")


class Evaluator:
    """Leaf and terminal values from one root side's point of view, with caches. ``leaf`` chooses the
    estimate at a leaf: ``"handmade"`` (the measured card odds above) or ``"learned"`` (the fitted
    deal-end value, ``learned_value``, where weights were fitted for the rules and players; the
    handmade estimate elsewhere)."""

    __slots__ = (
        "_cache",
        "_final",
        "_weights",
        "category_weights",
        "final_value",
        "leaf_kind",
        "n",
        "root_side",
        "rules",
    )

    def __init__(
        self,
        rules: RuleSet,
        nsides: int,
        root_side: int,
        leaf: str = HANDMADE,
        final_value: Callable[[RoundState], float] | None = None,
        category_weights: CategoryWeights | None = None,
    ) -> None:
        check_leaf(leaf)
        self.rules = rules
        # What a played-out round is worth to the root side, where it is not its round points (the
        # chance to win the game, ``chances.solved_chance``); None: the round points.
        self.final_value = final_value
        # What each point of each scoring category is worth to the root side when credited to each
        # side (``chances.game_weights``: the chance to win the game, in points of the round), in
        # place of +1 for its own points and -1 for the others' (the handmade leaf's categories;
        # ``final_value`` still decides a played-out round where both are given). None: the margin.
        self.category_weights = category_weights
        self.n = nsides
        self.root_side = root_side
        self.leaf_kind = leaf
        # Per number of players (the weights depend on it; the rules and sides are fixed here).
        self._weights: dict[int, tuple[tuple[float, ...], ...] | None] = {}
        self._final: dict[tuple[tuple[int, ...], tuple[int, ...], int], float] = {}
        self._cache: dict[tuple[tuple[int, ...], tuple[int, ...], int, int, int], float] = {}

    def final(self, state: RoundState) -> float:
        """Exact value of a played-out round (``final_value`` of it where one was given)."""
        key = (state.captured, state.sweeps, state.last_capturer)
        v = self._final.get(key)
        if v is None:
            fv = self.final_value
            cw = self.category_weights
            if fv is not None:
                v = fv(state)
            elif cw is not None:
                parts: Parts = {}
                final_points(self.rules, state, parts)
                v = weighted_value(parts, cw)
            else:
                v = side_value(final_points(self.rules, state), self.root_side)
            self._final[key] = v
        return v

    def leaf(self, state: RoundState) -> float:
        """Expected value of the rest of the round at a position where the search stops."""
        table = table_mask(state.loose, state.builds)
        key = (state.captured, state.sweeps, state.set_aside, table, state.to_move % self.n)
        v = self._cache.get(key)
        if v is None:
            cw = self.category_weights
            w = self._learned_weights(len(state.hands)) if self.leaf_kind == LEARNED and cw is None else None
            if cw is not None:
                parts: Parts = {}
                self._leaf(state, table, parts)
                v = weighted_value(parts, cw)
            elif w is not None:
                lead = state.to_move % 2
                v = learned_value(self.rules, state, table, lead, w)
                if lead != self.root_side:
                    v = -v
            else:
                v = side_value(self._leaf(state, table), self.root_side)
            self._cache[key] = v
        return v

    def _learned_weights(self, nplayers: int) -> tuple[tuple[float, ...], ...] | None:
        if nplayers not in self._weights:
            self._weights[nplayers] = learned_weights(self.rules, nplayers, self.n)
        return self._weights[nplayers]

    def parts(self, state: RoundState) -> dict[str, float]:
        """The value of a position where the search stops (``final`` at the end of the round, else
        ``leaf``) by scoring category, as margins of the root side; they add up to the value."""
        parts: Parts = {}
        if state.is_over:
            final_points(self.rules, state, parts)
        else:
            self._leaf(state, table_mask(state.loose, state.builds), parts)
        return side_parts(parts, self.root_side)

    def _leaf(self, state: RoundState, table: int, parts: Parts | None = None) -> list[float]:
        rules = self.rules
        n = self.n
        piles = state.captured
        taken = state.set_aside
        for p in piles:
            taken |= p
        out = FULL_DECK & ~taken
        pts = [0.0] * n
        counts = tuple(p.bit_count() for p in piles)
        spades = tuple((p & SPADES_MASK).bit_count() for p in piles)
        _credit_owned(rules, pts, parts, piles, state.sweeps)
        if n == 2:
            hidden = out & ~table
            deals = deals_to_come(hidden, len(state.hands))
            self._two_sides(
                pts, parts, state.to_move % 2, counts, spades, table=table & out, rest=hidden, deals=deals
            )
        else:
            # Cards still out are worth the same to every side: they cancel in the value.
            self._majority(pts, parts, "cards", counts, out.bit_count(), rules.points_cards)
            self._majority(pts, parts, "spades", spades, (out & SPADES_MASK).bit_count(), rules.points_spades)
        return pts

    def _two_sides(
        self,
        pts: list[float],
        parts: Parts | None,
        lead: int,
        counts: tuple[int, ...],
        spades: tuple[int, ...],
        *,
        table: int,
        rest: int,
        deals: int,
    ) -> None:
        """Two sides: each card still out goes to the side to move next (``lead``) with the
        probability measured for its class (P_PAIR_DEAD ... P_HIDDEN_BY_DEALS), independently."""
        rules = self.rules
        other = 1 - lead
        last = 1 if deals <= 1 else 0
        groups: dict[float, int] = {P_HIDDEN_BY_DEALS[min(deals, len(P_HIDDEN_BY_DEALS) - 1)]: rest}
        for x in cards_of(table):  # a list: the compiled build makes a generator an object
            kind, k = table_class(rules, x, table, rest)  # no *args: a direct call when compiled
            p = table_odds(kind, k, last)
            groups[p] = groups.get(p, 0) | 1 << x
        tie_share = rules.majority_tie == "split"
        for key, points, c, only in (
            ("cards", rules.points_cards, counts, FULL_DECK),
            ("spades", rules.points_spades, spades, SPADES_MASK),
        ):
            if not points:
                continue
            pmf = _count_pmf(tuple(sorted(((m & only).bit_count(), p) for p, m in groups.items())))
            win, lose = _lead_odds(c[lead] - c[other], pmf)
            half = points * (1.0 - win - lose) / 2 if tie_share else 0.0
            _credit(pts, parts, key, lead, points * win + half)
            _credit(pts, parts, key, other, points * lose + half)
        for p, m in groups.items():
            if m & _BIG and rules.points_big:
                _credit(pts, parts, "big", lead, rules.points_big * p)
                _credit(pts, parts, "big", other, rules.points_big * (1 - p))
            if m & _LITTLE and rules.points_little:
                _credit(pts, parts, "little", lead, rules.points_little * p)
                _credit(pts, parts, "little", other, rules.points_little * (1 - p))
            if rules.points_ace:
                for ace in iter_cards(m & ACES_MASK):
                    key = f"ace{ace}" if parts is not None else ""  # named only when asked for
                    _credit(pts, parts, key, lead, rules.points_ace * p)
                    _credit(pts, parts, key, other, rules.points_ace * (1 - p))

    def _majority(
        self,
        pts: list[float],
        parts: Parts | None,
        key: str,
        counts: tuple[int, ...],
        remaining: int,
        points: int,
    ) -> None:
        if not points:
            return
        wins, tie = majority_odds(counts, remaining)
        # Approximation: a tie shares the item among all sides.
        share = points * tie / self.n if tie and self.rules.majority_tie == "split" else 0.0
        for s in range(self.n):
            _credit(pts, parts, key, s, points * wins[s] + share)


# ---------------------------------------------------------------------------------------------------
# The learned deal-end value (two sides)
#
# ``scripts/fit_leaf.py`` plays self-play rounds and fits, per preset, number of players and deals
# still to come, least-squares weights over the features below to what the rest of the round actually
# gave: the round margin of the side to move next, less what it holds for sure (the cash cards in the
# piles and the sweeps so far, ``_credit_owned``). The weights ship as ``leaf_weights.json`` beside
# this module and are read at import. Every feature is a margin of the side to move next over the
# other side (or a property of the table and the unseen cards, which favours the side to move next),
# so the value for the other side is its negative.

LEARNED_FEATURES: Final[tuple[str, ...]] = (
    "lead",  # 1: the side to move next plays first in every deal still to come
    "cards_odds",  # the handmade estimate of the cards majority (points, margin)
    "spades_odds",  # ... of the spades majority
    "table_cash_odds",  # ... of the aces, 10♦ and 2♠ on the table
    "hidden_cash",  # points of the aces, 10♦ and 2♠ not yet seen
    "cards",  # cards captured, margin
    "spades",  # spades captured, margin
    "table",  # cards on the table
    "table_spades",
    "table_cash",  # points of the cash cards on the table
    "hidden_spades",
    "pair_live",  # table cards only their own rank takes, with one of that rank still unseen
    "pair_dead",  # ... with none of that rank unseen (they stay for the residue)
    "table_0",  # an empty table: the side to move next cannot capture with its first card
    "table_1",  # one card: a sweep for whoever pairs it
    "table_2",
    "sweepable",  # one card value could take the whole table (a sweep where sweeps score)
)
NUM_FEATURES: Final = len(LEARNED_FEATURES)

WEIGHTS_FORMAT: Final = "casino-leaf-weights"
# Package data, found through importlib.resources (a compiled module has no ``__file__`` while it is
# being imported).
WEIGHTS_FILE: Final = "leaf_weights.json"
# Options that leave a round's scoring and play alone: the learned weights of a preset still apply.
_IGNORED_OPTIONS: Final = frozenset(
    {"deal_pattern", "first_dealer", "target", "equal_at_target", "near_target_20", "near_target_rules"}
    | {"near_target_mode", "near_target_precedence"}
)


def model_key(preset: str, nplayers: int) -> str:
    """The name of a fitted model in the weights file: ``classic-2p``."""
    return f"{preset}-{nplayers}p"


def shipped_weights() -> Traversable:
    """The weights file shipped with the package (``scripts/fit_leaf.py`` writes it)."""
    return files("casino_coach.search").joinpath(WEIGHTS_FILE)


def read_weights(path: Traversable) -> dict[str, tuple[tuple[float, ...], ...]]:
    """The fitted models of a weights file: model key -> weights per deals still to come (index 0,
    and any count not fitted, is an empty tuple: the handmade estimate is used there)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != WEIGHTS_FORMAT:
        raise SearchError(f"{path}: not a {WEIGHTS_FORMAT} file")
    if tuple(data.get("features", ())) != LEARNED_FEATURES:
        raise SearchError(f"{path}: its features are not this version's {', '.join(LEARNED_FEATURES)}")
    out: dict[str, tuple[tuple[float, ...], ...]] = {}
    models = data.get("models", {})
    for key, model in models.items():
        per_deals: dict[str, list[float]] = model["weights"]
        top = max((int(d) for d in per_deals), default=0)
        rows: list[tuple[float, ...]] = [()] * (top + 1)
        for d, ws in per_deals.items():
            row = tuple(float(x) for x in ws)
            if len(row) != NUM_FEATURES or not all(abs(x) < 1e6 for x in row):
                raise SearchError(f"{path}: model {key}, {d} deals to come: bad weights")
            rows[int(d)] = row
        out[str(key)] = tuple(rows)
    return out


_MODELS: Final = read_weights(shipped_weights())


@lru_cache(maxsize=256)
def learned_weights(rules: RuleSet, nplayers: int, nsides: int) -> tuple[tuple[float, ...], ...] | None:
    """The fitted weights for these rules and players, or None (two sides only, and rules that play
    and score as a fitted preset does)."""
    if nsides != 2 or set(rules.to_dict()) - {"preset"} - _IGNORED_OPTIONS:
        return None
    return _MODELS.get(model_key(rules.preset, nplayers))


def _cash_points(rules: RuleSet, mask: int) -> int:
    return (
        rules.points_ace * (mask & ACES_MASK).bit_count()
        + (rules.points_big if mask & _BIG else 0)
        + (rules.points_little if mask & _LITTLE else 0)
    )


def _sweepable(rules: RuleSet, table: int) -> bool:
    """Whether one card value takes every table card: all of one pairing value, or (no card among
    them only its rank takes) a sum within the highest build value."""
    if not table:
        return False
    low = table & -table
    first = low.bit_length() - 1
    pv = rules.pair_value[first]
    same = True
    total = 0
    summable = True
    m = table
    while m:
        b = m & -m
        c = b.bit_length() - 1
        m ^= b
        if rules.pair_value[c] != pv:
            same = False
        if pair_only(rules, c):
            summable = False
        total += rules.build_value[c]
    return same or (summable and total <= rules.max_build)


def leaf_features(rules: RuleSet, state: RoundState, table: int, lead: int) -> tuple[list[float], float, int]:
    """The learned value's features (``LEARNED_FEATURES``) of a two-sided position for the side
    ``lead`` that moves next, with what that side holds for sure (margin) and the deals still to come."""
    piles = state.captured
    other = 1 - lead
    taken = state.set_aside | piles[0] | piles[1]
    out = FULL_DECK & ~taken
    table &= out
    hidden = out & ~table
    deals = deals_to_come(hidden, len(state.hands))
    sure = [0.0, 0.0]
    _credit_owned(rules, sure, None, piles, state.sweeps)
    last = 1 if deals <= 1 else 0
    p_hidden = P_HIDDEN_BY_DEALS[min(deals, len(P_HIDDEN_BY_DEALS) - 1)]
    groups: dict[float, int] = {p_hidden: hidden}
    table_cash_odds = 0.0
    pair_live = pair_dead = 0
    for x in iter_cards(table):
        kind, k = table_class(rules, x, table, hidden)
        p = table_odds(kind, k, last)
        groups[p] = groups.get(p, 0) | 1 << x
        if kind == "pair":
            if k:
                pair_live += 1
            else:
                pair_dead += 1
        cash = _cash_points(rules, 1 << x)
        if cash:
            table_cash_odds += cash * (2 * p - 1)
    lead_piles = piles[lead]
    other_piles = piles[other]
    cards = lead_piles.bit_count() - other_piles.bit_count()
    spades = (lead_piles & SPADES_MASK).bit_count() - (other_piles & SPADES_MASK).bit_count()
    odds = [0.0, 0.0]
    for i, (points, only, d) in enumerate(
        ((rules.points_cards, FULL_DECK, cards), (rules.points_spades, SPADES_MASK, spades))
    ):
        if points:
            pmf = _count_pmf(tuple(sorted(((m & only).bit_count(), p) for p, m in groups.items())))
            win, lose = _lead_odds(d, pmf)
            odds[i] = points * (win - lose)
    n_table = table.bit_count()
    features = [
        1.0,
        odds[0],
        odds[1],
        table_cash_odds,
        float(_cash_points(rules, hidden)),
        float(cards),
        float(spades),
        float(n_table),
        float((table & SPADES_MASK).bit_count()),
        float(_cash_points(rules, table)),
        float((hidden & SPADES_MASK).bit_count()),
        float(pair_live),
        float(pair_dead),
        1.0 if n_table == 0 else 0.0,
        1.0 if n_table == 1 else 0.0,
        1.0 if n_table == 2 else 0.0,
        1.0 if _sweepable(rules, table) else 0.0,
    ]
    return features, sure[lead] - sure[other], deals


def learned_value(
    rules: RuleSet, state: RoundState, table: int, lead: int, weights: tuple[tuple[float, ...], ...]
) -> float:
    """The learned estimate of the round margin of side ``lead`` (the side to move next; two sides),
    with the handmade estimate where no weights were fitted for the deals still to come."""
    features, sure, deals = leaf_features(rules, state, table, lead)
    w = weights[deals] if deals < len(weights) else ()
    if not w:
        pts = Evaluator(rules, 2, lead)._leaf(state, table)
        return pts[lead] - pts[1 - lead]
    v = sure
    for i in range(NUM_FEATURES):
        v += w[i] * features[i]
    return v
