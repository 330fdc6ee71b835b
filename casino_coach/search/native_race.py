"""The race of a decision in the native core, behind ``expectimax.evaluate``.

``race.run_race`` with ``expectimax``'s worlds (``_worlds``), solver ladder (``_Ladder``) and
valuer (``_CasinoValuer``) is the reference: readable, and run by the tests on a toy game too. The
core runs the same loop (``src/search/race.rs``) in one call per depth of a decision, where Python
calls the core once per world: the same worlds drawn from a generator in the same state (the
decision's own, made from its seed: nothing else draws from it), the same solvers with the same node
limits, the same running sums in the same order and the same stopping rules. So the moves, values,
worlds, lines and node counts are the reference's to the last bit.

``decision_worlds`` is None where the reference must run: no core, or an observation or evidence the
core cannot take. ``evaluate`` itself keeps to the reference for what is not ported: a time limit
(a wall clock), the recorded tree, the replies chosen on the replier's information, and builds for
a partner (each world's own legal moves).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, overload

from casino_coach.core import NATIVE, native_rules
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import SearchError
from casino_coach.search import inference
from casino_coach.search.inference import Likelihood
from casino_coach.search.leaf import CategoryWeights
from casino_coach.search.native import move_order, native_evaluator
from casino_coach.search.race import Race, Stopping
from casino_coach.search.result import Limits, Outcome
from casino_coach.search.solver import MoveOrder
from casino_coach.search.worlds import World

_new = tuple.__new__

# A move as the core hands it over: ``Move``'s fields in a plain tuple (equal to the ``Move``, and
# hashed alike).
MoveTuple = tuple[int, int, int, int]
# ``rank_decision``'s ranking: per move (ev, stderr), whether every world searched it, and the
# indices best first (None where a value is not finite).
Ranking = tuple[list[tuple[float, float]], list[bool], list[int] | None]


def _outcome(fields: tuple[Any, ...]) -> Outcome:
    """``Outcome(*fields)`` without the frozen dataclass's ``__init__`` (a third of its time: a
    decision with detail makes one per world and move, thousands a game); the fields come from the
    core, as ``outcome_of`` makes them."""
    out = object.__new__(Outcome)
    d = out.__dict__
    d["parts"], d["other"], d["gained"], d["sweeps"], d["end"] = fields
    return out


class LazyOutcomes(Sequence["Outcome | None"]):
    """One move's outcomes per world from the core's race (``_core.RaceOutcomes``), made into
    ``Outcome``s when first read, all at once: a verdict reads the outcomes of a few moves at most
    (its explanations, its chances for the game), and making them for every move and world took a
    tenth of a 2-player analysis. Equal to, shown and pickled as the tuple of them, as the
    reference's race gives them (``MoveValue.outcomes``)."""

    __slots__ = ("_core", "_made", "_move")

    def __init__(self, core: Any, move: int) -> None:
        self._core = core
        self._move = move
        self._made: tuple[Outcome | None, ...] | None = None

    def in_core(self) -> tuple[Any, int]:
        """Where the outcomes are kept: the core's ``RaceOutcomes`` and the move's index in it (the
        core reads them there: ``native_chances.outcome_chances``)."""
        return self._core, self._move

    def _all(self) -> tuple[Outcome | None, ...]:
        made = self._made
        if made is None:
            made = tuple([None if o is None else _outcome(o) for o in self._core.fields(self._move)])
            self._made = made
        return made

    def __len__(self) -> int:
        return len(self._made) if self._made is not None else int(self._core.count(self._move))

    @overload
    def __getitem__(self, i: int) -> Outcome | None: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Outcome | None, ...]: ...
    def __getitem__(self, i: int | slice) -> Outcome | tuple[Outcome | None, ...] | None:
        return self._all()[i]

    def __iter__(self) -> Iterator[Outcome | None]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return self._all() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a tuple of Outcomes (their parts are dicts)

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return tuple, (self._all(),)


class Attempt(NamedTuple):
    """One race of a decision at one depth, run in the core: the race (its worlds' values, weights,
    groups and outcomes, for ``Race.results``), the worlds searched, whether the node budget stopped
    it, the nodes its solvers searched, whether a world fell back on a shallower search, and per move
    the line that proved its value most often (``()``: never searched)."""

    race: Race[Move]
    done: int
    out_of_nodes: bool
    nodes: int
    shallow: bool
    lines: list[tuple[Move, ...]]


def decision_worlds(
    rules: RuleSet, obs: Observation, dealing: str, seed: int, weigh: Likelihood | None
) -> Any:
    """The core's stream of the decision's worlds (``_core.DecisionWorlds``) dealt as ``dealing``
    says (``expectimax.dealing``), from the generator ``random.Random(seed)``; None where the
    reference must deal them. Raises SearchError as the reference's worlds do."""
    if NATIVE is None or not in_core() or (weigh is not None and weigh.native is None):
        return None
    try:
        return NATIVE.DecisionWorlds(
            native_rules(rules),
            obs,
            NATIVE.Random(seed),
            dealing,
            weigh.native if weigh is not None else None,
            inference.REGRET_SCALE,
            inference.MAX_DRAWS,
        )
    except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
        raise SearchError(str(e)) from None
    except ValueError:
        return None


def in_core() -> bool:
    """Whether decisions may be raced in the core here (the tests turn it off to run the reference
    beside it)."""
    return NATIVE is not None


def for_decision(
    rules: RuleSet,
    obs: Observation,
    seed: int,
    weigh: Likelihood | None,
    order: MoveOrder,
    max_moves: int,
    limits: Limits,
    shuffled_worlds: int,
) -> tuple[list[Move], list[int] | None, Any] | None:
    """A decision the core races set up in one call (``DecisionWorlds.for_decision``): the legal
    moves of the observer sorted by ``order`` (``expectimax.root_moves``), their twins
    (``solver.twin_classes``), and the stream of worlds ``decision_worlds`` makes at the dealing
    ``expectimax.dealing`` chooses at ``limits`` (with ``expectimax.shuffled_worlds``' cap
    ``shuffled_worlds``; None when there is no move, or more than ``max_moves``). None where the
    reference must set it up. Raises SearchError as the reference's worlds do."""
    if NATIVE is None or not in_core() or (weigh is not None and weigh.native is None):
        return None
    try:
        moves, alike, worlds = NATIVE.DecisionWorlds.for_decision(
            native_rules(rules),
            obs,
            seed,
            order.weight,
            max_moves,
            limits.exact_worlds,
            limits.classes,
            shuffled_worlds,
            weigh.native if weigh is not None else None,
            inference.REGRET_SCALE,
            inference.MAX_DRAWS,
        )
    except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
        raise SearchError(str(e)) from None
    except ValueError:
        return None
    return [_new(Move, t) for t in moves], alike, worlds


def run(
    worlds: Any,
    rules: RuleSet,
    *,
    side: int,
    nsides: int,
    horizon: int,
    next_deal: bool,
    in_hands: int,
    depths: Sequence[int],
    budget: int | None,
    cap: int | None,
    leaf: str,
    category_weights: CategoryWeights | None,
    moves: list[Move],
    focus: Move | None,
    alike: Sequence[int] | None,
    stop: Stopping,
    detail: bool,
) -> Attempt:
    """The decision's race at ``horizon`` over ``worlds`` (``decision_worlds``; the worlds drawn by an
    earlier attempt first), as ``run_race`` runs it with a ``_Ladder`` of these arguments."""
    assert NATIVE is not None and stop.deadline is None
    args = _race_args(
        rules,
        side,
        nsides,
        horizon,
        next_deal,
        in_hands,
        depths,
        budget,
        cap,
        leaf,
        category_weights,
        moves,
        focus,
        alike,
        stop,
    )
    try:
        got = worlds.run(*args, detail)
    except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
        raise SearchError(str(e)) from None
    done, spent, nodes, shallow, values, weights, groups, lines, outcomes, results = got
    race = Race(moves, focus, alike)
    if outcomes is not None:  # kept in the core until read
        outcomes = [LazyOutcomes(outcomes, i) for i in range(len(moves))]
    race.load(values, weights, groups, outcomes, (worlds.population, results))
    best = [() if line is None else tuple([_new(Move, t) for t in line]) for line in lines]
    return Attempt(race, done, spent, nodes, shallow, best)


def rank_decision(
    rules: RuleSet,
    obs: Observation,
    seed: int,
    weigh: Likelihood | None,
    order: MoveOrder,
    max_moves: int,
    limits: Limits,
    *,
    side: int,
    nsides: int,
    in_hands: int,
    horizons: Sequence[int],
    next_deal: bool,
    fallback: Sequence[int],
    cap: int | None,
    category_weights: CategoryWeights | None,
    shuffled_worlds: int,
) -> tuple[list[MoveTuple], Ranking | None] | None:
    """A decision with no move in focus set up and raced in one call, for a caller that only orders
    the moves (``expectimax.best_move``; ``DecisionWorlds.rank_decision``): ``for_decision``'s moves,
    and unless there are none or more than ``max_moves``, per move its value and standard error as
    ``Race.results`` gives them without control variates and whether every world searched it, after
    the race at each of ``horizons`` in turn while too few worlds fit in the node budget (the first
    going on through a 2-player round's last deal with ``next_deal``, ``expectimax._attempts``). None where
    the reference must set it up. Raises SearchError as the reference's worlds do. The moves come as
    the core's tuples (``Move``'s fields), and with the values their indices best first as
    ``expectimax._ranked`` orders them without a focus, None where a value is not finite. Its worlds
    are taken without replacement where there are at most ``shuffled_worlds``
    (``expectimax.shuffles``)."""
    if NATIVE is None or not in_core() or (weigh is not None and weigh.native is None):
        return None
    try:
        got: tuple[list[MoveTuple], Ranking | None] = NATIVE.DecisionWorlds.rank_decision(
            native_rules(rules),
            obs,
            seed,
            order.weight,
            max_moves,
            limits.exact_worlds,
            limits.classes,
            shuffled_worlds,
            weigh.native if weigh is not None else None,
            inference.REGRET_SCALE,
            inference.MAX_DRAWS,
            native_evaluator(rules, side, nsides, limits.leaf, category_weights),
            side,
            nsides,
            in_hands,
            horizons,
            next_deal,
            fallback,
            limits.nodes,
            cap,
            limits.samples,
            limits.min_samples,
            limits.separation,
            limits.margin,
        )
    except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
        raise SearchError(str(e)) from None
    except ValueError:
        return None
    return got


def _race_args(
    rules: RuleSet,
    side: int,
    nsides: int,
    horizon: int,
    next_deal: bool,
    in_hands: int,
    depths: Sequence[int],
    budget: int | None,
    cap: int | None,
    leaf: str,
    category_weights: CategoryWeights | None,
    moves: list[Move],
    focus: Move | None,
    alike: Sequence[int] | None,
    stop: Stopping,
) -> tuple[Any, ...]:
    """The arguments of the core's race (``DecisionWorlds.run`` and ``rank``) but ``detail``."""
    return (
        native_evaluator(rules, side, nsides, leaf, category_weights),
        move_order(rules),
        side,
        nsides,
        horizon,
        next_deal,
        in_hands,
        list(depths),
        budget,
        cap,
        moves,
        moves.index(focus) if focus is not None else None,
        list(alike) if alike is not None else list(range(len(moves))),
        stop.samples,
        stop.min_samples,
        stop.separation,
        stop.margin,
        list(stop.bands),
        stop.racing,
        stop.every,
        stop.careful,
    )


def holding_rows(worlds: Any, n: int, features: Sequence[tuple[int, int]]) -> list[tuple[float, ...]]:
    """The control variates' rows of the first ``n`` worlds drawn (``worlds.Holding.row`` of each),
    made in the core."""
    rows: list[tuple[float, ...]] = worlds.holding_rows(n, list(features))
    return rows


def drawn(worlds: Any, n: int) -> list[tuple[World, float, int]]:
    """The first ``n`` worlds drawn, with their weights and groups (``run_race``'s ``drawn``)."""
    return [(_new(World, w), weight, group) for w, weight, group in worlds.drawn(n)]
