"""The native core's solver behind the reference's interface.

``solver.Solver`` is the reference: readable, and cited by the rules. ``NativeSolver`` runs the same
search in the native core (``src/search/solver.rs``): the same values, lines and node counts, move for
move, in a fraction of the time. ``make_solver`` picks one by ``casino_coach.core``; the search calls
it rather than either class. A solver whose played-out rounds are valued by a Python function
(``final_value``) stays the reference's, as does a table with more builds than the core holds; the
chance to win the game at the end of a round (``chances.game_final``) is computed in the core too, as
a ``_core.GameFinal`` (``native_chances.game_solver``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from typing import Any, Protocol

from casino_coach.core import NATIVE, native_rules
from casino_coach.engine.movegen import Move, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.engine.values import cached_values
from casino_coach.errors import SearchError
from casino_coach.search.leaf import HANDMADE, LEARNED, CategoryWeights, learned_weights
from casino_coach.search.result import Outcome, plain_sum
from casino_coach.search.solver import MoveOrder, OutOfNodes, RootValue, Solver, canonical

_new = tuple.__new__


@contextmanager
def _core_calls() -> Iterator[None]:
    """The core's exceptions as the search's: its node limit as ``OutOfNodes``, a fault inside it (a
    bug) and a position it cannot hold (more builds than ``_core.MAX_BUILDS``) as one line, a
    ``SearchError``."""
    assert NATIVE is not None
    try:
        yield
    except NATIVE.OutOfNodes:
        raise OutOfNodes from None
    except (NATIVE.CoreFault, ValueError) as e:
        raise SearchError(str(e)) from None


def _move(t: tuple[int, int, int, int]) -> Move:
    m: Move = _new(Move, t)
    return m


def _line(ts: list[tuple[int, int, int, int]]) -> tuple[Move, ...]:
    return tuple([_new(Move, t) for t in ts])


class Parts(Protocol):
    """What ``expectimax.follow`` asks of a solver's evaluator."""

    def parts(self, state: RoundState) -> dict[str, float]: ...


class WorldSolver(Protocol):
    """A solver of one world, as the search uses it: ``solver.Solver`` or ``NativeSolver``."""

    nodes: int
    node_limit: int

    @property
    def horizon(self) -> int: ...

    @property
    def eval(self) -> Parts: ...

    def moves(self, s: RoundState) -> list[Move]: ...

    def root_values(self, state: RoundState, moves: list[Move] | None = None) -> list[RootValue]: ...

    def value(self, state: RoundState) -> float: ...

    def search(self, s: RoundState, alpha: float, beta: float) -> float: ...

    def principal_line(self, state: RoundState, limit: int = 64) -> tuple[Move, ...]: ...

    def proving_line(self, state: RoundState, value: float, limit: int = 64) -> tuple[Move, ...]: ...

    def share_caches(self, other: Any) -> None: ...


@cache
@cache
def move_order(rules: RuleSet) -> tuple[int, ...]:
    """``MoveOrder.weight`` as the core takes it: each card's worth in hundredths of a point (made
    once per rule set: the race asks for it every decision)."""
    return tuple([round(100 * v) for v in cached_values(rules)])


def native_evaluator(
    rules: RuleSet,
    root_side: int,
    nsides: int,
    leaf: str,
    category_weights: CategoryWeights | None,
    final_value: Any = None,
) -> Any:
    """The core's leaf evaluator (``_core.Evaluator``, immutable: solvers copy it), made once per
    rules, sides and leaf when no category weights and no final value (a ``_core.GameFinal``) are
    given."""
    if category_weights is None and final_value is None:
        return _plain_evaluator(rules, root_side, nsides, leaf)
    return _evaluator(rules, root_side, nsides, leaf, category_weights, final_value)


@lru_cache(maxsize=64)
def _plain_evaluator(rules: RuleSet, root_side: int, nsides: int, leaf: str) -> Any:
    return _evaluator(rules, root_side, nsides, leaf, None)


def _evaluator(
    rules: RuleSet,
    root_side: int,
    nsides: int,
    leaf: str,
    category_weights: CategoryWeights | None,
    final_value: Any = None,
) -> Any:
    assert NATIVE is not None
    learned = {}
    if leaf == LEARNED:
        for n in (2, 3, 4):
            w = learned_weights(rules, n, nsides)
            if w is not None:
                learned[n] = w
    return NATIVE.Evaluator(
        native_rules(rules), nsides, root_side, leaf, final_value, category_weights, learned
    )


class NativeSolver:
    """``solver.Solver`` in the native core: the same arguments, methods and counters; a
    ``final_value`` is the core's (a ``_core.GameFinal``), not a Python function."""

    def __init__(
        self,
        rules: RuleSet,
        root_side: int,
        nsides: int,
        horizon: int = 0,
        *,
        leaf: str = HANDMADE,
        final_value: Any = None,
        category_weights: CategoryWeights | None = None,
        next_deal: bool = False,
    ) -> None:
        assert NATIVE is not None
        core_rules = native_rules(rules)
        evaluator = native_evaluator(rules, root_side, nsides, leaf, category_weights, final_value)
        order = move_order(rules)
        self.rules = rules
        self.root_side = root_side
        self.nsides = nsides
        self._core = NATIVE.Solver(core_rules, evaluator, root_side, nsides, horizon, order, next_deal)
        self.eval: Parts = self._core

    @property
    def horizon(self) -> int:
        return int(self._core.horizon)

    @property
    def nodes(self) -> int:
        return int(self._core.nodes)

    @nodes.setter
    def nodes(self, value: int) -> None:
        self._core.nodes = value

    @property
    def node_limit(self) -> int:
        return int(self._core.node_limit)

    @node_limit.setter
    def node_limit(self, value: int) -> None:
        self._core.node_limit = value

    def share_caches(self, other: Any) -> None:
        """Nothing to share: the core's move lists and leaf values cost less than sharing them."""

    def moves(self, s: RoundState) -> list[Move]:
        with _core_calls():
            return [_move(t) for t in self._core.moves(s)]

    def root_values(self, state: RoundState, moves: list[Move] | None = None) -> list[RootValue]:
        if moves is None:  # every move, twins too, as the reference's root
            moves = sorted(legal_moves(self.rules, canonical(state)), key=MoveOrder(self.rules))
        with _core_calls():  # the world whole: its stock tells the core which cards are out of play
            values = self._core.root_values(state, moves)
        return [RootValue(m, v, (m, *_line(line))) for m, (v, line) in zip(moves, values, strict=True)]

    def value(self, state: RoundState) -> float:
        with _core_calls():
            return float(self._core.value(state))

    def search(self, s: RoundState, alpha: float, beta: float) -> float:
        with _core_calls():
            return float(self._core.search(s, alpha, beta))

    def principal_line(self, state: RoundState, limit: int = 64) -> tuple[Move, ...]:
        with _core_calls():
            return _line(self._core.principal_line(state))[:limit]

    def follow(self, state: RoundState, rv: RootValue) -> Outcome:
        """``expectimax.follow`` in the core: what happens along ``rv``'s line in this world."""
        with _core_calls():
            return outcome_of(rv.value, self._core.follow(state, rv.move, rv.reply, rv.value))

    def proving_line(self, state: RoundState, value: float, limit: int = 64) -> tuple[Move, ...]:
        with _core_calls():
            return _line(self._core.proving_line(state, value))[:limit]


def outcome_of(value: float, found: tuple[Any, dict[str, float], list[int], list[int], bool]) -> Outcome:
    _, parts, gained, sweeps, end = found
    return Outcome(parts, value - plain_sum(parts.values()), tuple(gained), tuple(sweeps), end)


def core_legal_moves(rules: RuleSet, state: RoundState, order: MoveOrder | None = None) -> list[Move]:
    """``legal_moves``, listed by the core where it runs and takes the state (the same list); with
    ``order``, sorted by it (``sorted(moves, key=order)``, in the core too)."""
    if NATIVE is not None:
        try:
            weight = order.weight if order is not None else None
            listed = NATIVE.legal_moves(native_rules(rules), state, None, weight)
        except ValueError:
            pass
        else:
            return [_new(Move, t) for t in listed]
    moves = legal_moves(rules, state)
    return sorted(moves, key=order) if order is not None else moves


def make_solver(
    rules: RuleSet,
    root_side: int,
    nsides: int,
    horizon: int = 0,
    *,
    leaf: str = HANDMADE,
    final_value: Callable[[RoundState], float] | None = None,
    category_weights: CategoryWeights | None = None,
    next_deal: bool = False,
) -> WorldSolver:
    """The native solver where the core runs and can take these arguments, else the reference."""
    if NATIVE is not None and final_value is None:
        return NativeSolver(
            rules,
            root_side,
            nsides,
            horizon,
            leaf=leaf,
            category_weights=category_weights,
            next_deal=next_deal,
        )
    return Solver(
        rules,
        root_side,
        nsides,
        horizon,
        leaf=leaf,
        final_value=final_value,
        category_weights=category_weights,
        next_deal=next_deal,
    )
