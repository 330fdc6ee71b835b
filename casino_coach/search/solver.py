"""The perfect-information solver: alpha-beta over one world, to the end of the current deal.

Every hand is known in a world, so the rest of the deal is a game of perfect information. Values are
from the root side's point of view (``leaf.py``): the root side maximises, every other side
minimises. With two sides (two players, or two partnerships) that is exactly negamax; with three
individual players it is the *paranoid* assumption (the others are treated as a coalition against the
root player), chosen over max^n because it keeps alpha-beta pruning and a single number per node, and
because it is the safe estimate for the player asking.

The search stops when the deal is played out: at the end of the round the value is exact (residue to
the last capturer, majorities, sweeps; ``Evaluator.final``), at the end of an earlier deal it is the
leaf estimate of the rest of the round (``Evaluator.leaf``: the handmade or the learned one, as
``Limits.leaf`` says). With two players, a solver made with ``next_deal`` goes on where the stock
holds the round's last deal: the value there is the mean over every way the stock can be dealt (70)
of that deal solved to the end of the round (``Solver._last_deals``), since in a 2-player last deal
every card is known to both players, and only the deal itself is chance. An optional horizon stops
earlier, at a number of cards still in the hands (a function of the state, so the transposition table
stays valid).

The transposition table maps a ``RoundState`` (hashable, its own key) to the bounds proven for it, the
best move found and its ordered moves, and is shared by every root move and every world of one
decision. The stock's cards are dropped before the search: inside a deal only whether more cards are
to come matters (``RoundState.more``; ``apply`` collects the residue when none are), and leaves read
only the capture piles, so states of different worlds that agree on everything else share entries.
With three or four players, before the last deal, the table is emptied before each world instead
(``root_values``): there the worlds share almost no position (each deals two or three hidden hands
its own way), and the table kept across them grew to hundreds of megabytes, every lookup a cache
miss; emptied, a 3-player analysis takes a sixth less time and a 4-player one an eighth, with the
same worlds searched but for a handful of decisions (performance.md, "A table per world"). In the
last deal, and with two players, the worlds do share positions, and the table is kept.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from itertools import combinations
from math import comb
from typing import Final, NamedTuple, ParamSpec, TypeVar

from casino_coach.engine.cards import FULL_DECK, iter_cards, twin_groups
from casino_coach.engine.movegen import CAPTURE, TRAIL, Move, apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import HAND_SIZE, Build, RoundState
from casino_coach.engine.values import cached_values
from casino_coach.search.leaf import HANDMADE, CategoryWeights, Evaluator

INF: Final = float("inf")
NULL: Final = 1e-9  # width of a null window (values are points, far coarser)


class MoveOrder:
    """The order the search tries moves in (captures of valuable cards first, then builds, then cheap
    trails): a sort key, lower first. A card weighs its scoring worth under the rules (``values.
    card_values``: a card toward most cards, a spade toward most spades, the cash cards most), in
    hundredths of a point, as integers."""

    __slots__ = ("weight",)

    def __init__(self, rules: RuleSet) -> None:
        self.weight: tuple[int, ...] = tuple(round(100 * v) for v in cached_values(rules))

    def _mask(self, mask: int) -> int:
        w = 0
        weight = self.weight
        while mask:
            low = mask & -mask
            w += weight[low.bit_length() - 1]
            mask ^= low
        return w

    def __call__(self, move: Move) -> int:
        if move.action == CAPTURE:
            return -1_000_000 - self._mask(move.take) - self.weight[move.card]
        if move.action == TRAIL:
            return self.weight[move.card]
        return -500_000 - self._mask(move.take)


def twin_classes(moves: list[Move], hand: int, loose: int) -> list[int] | None:
    """For each of ``moves``, the index of the first one it differs from only by twins (``cards.TWINS``)
    of the hand or of the loose cards (its own index when none): the positions they lead to are the
    same up to that swap, and so is their value. None when the hand and the loose cards hold no twins."""
    in_hand = twin_groups(hand)
    on_table = twin_groups(loose)
    if not in_hand and not on_table:
        return None
    first: dict[tuple[int, int, int, int], int] = {}
    out = []
    for i, m in enumerate(moves):
        card = m.card
        for g in in_hand:
            if g >> card & 1:
                card = (g & -g).bit_length() - 1
                break
        take = m.take
        for g in on_table:
            part = take & g
            if part and part != g:
                take = (take & ~g) | _lowest(g, part.bit_count())
        out.append(first.setdefault((card, m.action, take, m.value), i))
    return out


def distinct_moves(moves: list[Move], hand: int, loose: int) -> list[Move]:
    """``moves`` without those that differ from an earlier one only by twins (``twin_classes``): the
    first of each kind is kept, in the order given."""
    classes = twin_classes(moves, hand, loose)
    if classes is None:
        return moves
    return [m for i, m in enumerate(moves) if classes[i] == i]


class Entry:
    """What the transposition table knows about a state."""

    __slots__ = ("best", "hi", "lo", "moves")

    def __init__(self, moves: list[Move]) -> None:
        self.moves = moves
        self.lo = -INF
        self.hi = INF
        self.best = 0


class RootValue(NamedTuple):
    move: Move
    value: float
    line: tuple[Move, ...]  # the move, then the principal continuation
    # The reply the value was searched after when it was chosen outside this world's minimax (on
    # the replier's own information, ``Limits.reply_worlds``); None when the search chose it.
    reply: Move | None = None


def twin_weight(first: int, groups: list[int]) -> int:
    """How many deals a first hand ``first`` stands for among those that differ only by where the twins
    of ``groups`` lie: the product over the groups of the ways to choose as many of its cards, where it
    holds the lowest of each group; 0 where it does not (another deal stands for it)."""
    weight = 1
    for g in groups:
        part = first & g
        k = part.bit_count()
        if part != _lowest(g, k):
            return 0
        weight *= comb(g.bit_count(), k)
    return weight


def _lowest(group: int, k: int) -> int:
    """The ``k`` lowest cards of ``group``: the one stand-in for any ``k`` of a group of twins."""
    low = 0
    for _ in range(k):
        bit = group & -group
        low |= bit
        group ^= bit
    return low


def canonical(state: RoundState) -> RoundState:
    """The state as the search keys it: without the stock's cards, only whether more are to come (see
    the module docstring)."""
    return state._replace(stock=0) if state.stock else state


P = ParamSpec("P")
R = TypeVar("R")


def without_cycle_collection(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` with Python's cycle collector paused. A search allocates millions of small tuples
    (states, moves, table entries) and no reference cycles, and the collector's passes over the
    growing transposition table cost 10-15% of its time; whatever ``fn`` does leave behind is
    collected as usual once the collector runs again."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return wrapper


class OutOfNodes(Exception):
    """Raised inside a search that passed its node limit (the table stays valid)."""


class Solver:
    """Alpha-beta with a transposition table, for one root side; reusable across worlds."""

    def __init__(
        self,
        rules: RuleSet,
        root_side: int,
        nsides: int,
        horizon: int = 0,
        *,
        leaf: str = HANDMADE,
        final_value: Callable[[RoundState], float] | None = None,
        category_weights: CategoryWeights | None = None,
        next_deal: bool = False,
    ) -> None:
        self.rules = rules
        self.root_side = root_side
        self.nsides = nsides
        self.horizon = horizon  # stop when at most this many cards remain in the hands (0: deal end)
        # On through a 2-player round's last deal at the end of the deal before it (module docstring).
        self.next_deal = next_deal
        # The cards out of play in the worlds searched (in no hand, pile or table, nor the stock: a
        # typed position's cards scored for nobody), set from each root state: the stock of a deal's
        # end is every other card that is nowhere in it.
        self._gone = 0
        # ``final_value``: what a played-out round is worth to the root side, where not its points;
        # ``category_weights``: what each category's points are worth to it (``Evaluator``).
        self.eval = Evaluator(rules, nsides, root_side, leaf, final_value, category_weights)
        self.tt: dict[RoundState, Entry] = {}
        self.nodes = 0
        self.node_limit = 1 << 62  # ``search`` raises OutOfNodes past this many nodes
        # Legal moves depend only on the mover, its hand and the table (and a partner's hand when
        # building for a partner is allowed): cached across positions and worlds, ordered.
        self._moves: dict[tuple[int, int, int, tuple[Build, ...], int], list[Move]] = {}
        self._partner = rules.build_for_partner != "never"
        self.order = MoveOrder(rules)

    def share_caches(self, other: Solver) -> None:
        """Use ``other``'s move lists and leaf values (a solver of the same rules, side and leaf at
        another horizon): both depend on the position only."""
        self._moves = other._moves
        self.eval = other.eval

    def moves(self, s: RoundState) -> list[Move]:
        """The legal moves of ``s``, best-looking first (cached; do not modify the list)."""
        seat = s.to_move
        hands = s.hands
        partner = hands[(seat + 2) % 4] if self._partner and len(hands) == 4 else 0
        key = (seat, hands[seat], s.loose, s.builds, partner)
        moves = self._moves.get(key)
        if moves is None:
            moves = legal_moves(self.rules, s)
            if len(moves) > 1:
                moves.sort(key=self.order)
                moves = distinct_moves(moves, hands[seat], s.loose)
            self._moves[key] = moves
        return moves

    def root_values(self, state: RoundState, moves: list[Move] | None = None) -> list[RootValue]:
        """The exact minimax value of each root move (all of them, or ``moves``) in this world: with
        three or four players and cards still to come, in a table emptied first (module docstring)."""
        self._gone = FULL_DECK & ~state.accounted()
        if state.more and len(state.hands) >= 3:
            self.tt.clear()
        state = canonical(state)
        if moves is None:
            # every move, twins too (``moves`` keeps one of each kind, enough below the root)
            moves = sorted(legal_moves(self.rules, state), key=self.order)
        out = []
        for m in moves:
            child = apply(self.rules, state, m)
            v = self.search(child, -INF, INF)
            out.append(RootValue(m, v, (m, *self.principal_line(child))))
        return out

    def value(self, state: RoundState) -> float:
        """The minimax value of a position in this world."""
        self._gone = FULL_DECK & ~state.accounted()
        return self.search(canonical(state), -INF, INF)

    def principal_line(self, state: RoundState, limit: int = 64) -> tuple[Move, ...]:
        """The best moves from ``state`` as recorded in the table, to the end of the search."""
        line: list[Move] = []
        rules = self.rules
        while len(line) < limit:
            e = self.tt.get(state)
            if e is None or not e.moves:
                break
            m = e.moves[e.best]
            line.append(m)
            state = apply(rules, state, m)
        return tuple(line)

    def proving_line(self, state: RoundState, value: float, limit: int = 64) -> tuple[Move, ...]:
        """A line from ``state`` (whose minimax value is ``value``) that keeps that value to the end
        of the search: at each position the first move (the table's best first) whose child has the
        same value, found with a window around it. Unlike ``principal_line``, whose entries may come
        from cut-offs, every position on it has the value proved at the root."""
        line: list[Move] = []
        rules = self.rules
        s = canonical(state)
        while len(line) < limit:
            left = 0
            for h in s.hands:
                left += h.bit_count()
            if left <= self.horizon:
                break
            e = self.tt.get(s)
            moves = e.moves if e is not None else self.moves(s)
            first = e.best if e is not None else 0
            for i in (first, *(j for j in range(len(moves)) if j != first)):
                child = apply(rules, s, moves[i])
                v = self.search(child, value - NULL, value + NULL)
                if value - NULL < v < value + NULL:
                    line.append(moves[i])
                    s = child
                    break
            else:
                break
        return tuple(line)

    def _last_deals(self, s: RoundState, stock: int) -> float:
        """The value of ``s``, a 2-player deal played out with ``stock`` left for the round's last deal:
        the mean over every way of dealing the stock (the first seat's hand from the combinations of
        its cards) of the last deal solved to the end of the round, summed in that order. A deal
        stands for those that differ from it only by where twins lie (``cards.TWINS``: they have the
        same value), weighted by their number (``twin_weight``). Kept in the table as an exact entry
        with no moves: the rest of the state fixes the stock (the search dropped it)."""
        e = self.tt.get(s)
        if e is not None:
            return e.lo
        groups = twin_groups(stock)
        total = 0.0
        count = 0
        for first in combinations(iter_cards(stock), HAND_SIZE):
            mine = 0
            for c in first:
                mine |= 1 << c
            weight = twin_weight(mine, groups)
            if weight:
                dealt = s._replace(hands=(mine, stock & ~mine), stock=0, more=False)
                total += weight * self._search(dealt, -INF, INF, 2 * HAND_SIZE)
                count += weight
        value = total / count
        e = Entry([])
        e.lo = e.hi = value
        self.tt[s] = e
        return value

    def search(self, s: RoundState, alpha: float, beta: float) -> float:
        """The minimax value of ``s`` within the window (alpha, beta), as alpha-beta bounds it."""
        left = 0
        for h in s.hands:
            left += h.bit_count()
        return self._search(s, alpha, beta, left)

    def _search(self, s: RoundState, alpha: float, beta: float, left: int) -> float:
        # ``left``: the cards in the hands of ``s``; every move plays one, so a child has one fewer
        # (counted once, at the entry, instead of at every node).
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise OutOfNodes
        if left <= self.horizon:
            if left == 0:
                if not s.more:
                    return self.eval.final(s)
                if self.next_deal and s.nplayers == 2:
                    stock = FULL_DECK & ~s.accounted() & ~self._gone
                    if stock.bit_count() == 2 * HAND_SIZE:
                        return self._last_deals(s, stock)
            return self.eval.leaf(s)
        tt = self.tt
        e = tt.get(s)
        if e is None:
            e = Entry(self.moves(s))
            tt[s] = e
        else:
            lo = e.lo
            hi = e.hi
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        moves = e.moves
        rules = self.rules
        a0, b0 = alpha, beta
        best_i = first = e.best
        left -= 1
        # The stored best move first (k = 0), then the rest in their order: an index loop, which the
        # compiled build runs natively.
        if s.to_move % self.nsides == self.root_side:
            best = -INF
            for k in range(len(moves)):
                i = first if k == 0 else k - 1 if k <= first else k
                child = apply(rules, s, moves[i])
                # Principal variation search: the first move with the full window, the others with a
                # null window that only asks "better than the best so far?", searched again when they
                # are.
                if k == 0:
                    v = self._search(child, alpha, beta, left)
                else:
                    v = self._search(child, alpha, alpha + NULL, left)
                    if alpha < v < beta:
                        v = self._search(child, v, beta, left)
                if v > best:
                    best = v
                    best_i = i
                    if v > alpha:
                        alpha = v
                        if v >= beta:
                            break
        else:
            best = INF
            for k in range(len(moves)):
                i = first if k == 0 else k - 1 if k <= first else k
                child = apply(rules, s, moves[i])
                if k == 0:
                    v = self._search(child, alpha, beta, left)
                else:
                    v = self._search(child, beta - NULL, beta, left)
                    if alpha < v < beta:
                        v = self._search(child, alpha, v, left)
                if v < best:
                    best = v
                    best_i = i
                    if v < beta:
                        beta = v
                        if v <= alpha:
                            break
        e.best = best_i
        if best <= a0:
            if best < e.hi:
                e.hi = best
        elif best >= b0:
            if best > e.lo:
                e.lo = best
        else:
            e.lo = e.hi = best
        return best
