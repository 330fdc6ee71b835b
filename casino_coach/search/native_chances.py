"""The native core's game chances behind the reference's ``world_chances``.

``chances.py`` is the reference: readable, and cited by the rules. The core
(``src/search/chances.rs``) gives each world's chance after a move's outcome the same way: the same
tallies in the same order (``world_tallies``), each scored at the game score as ``score_tally``
scores it with two sides, the same distribution of points where the round cannot decide the game
(``_undecided_points``), and the same products and left-to-right sums, so every chance is the
reference's to the last bit. ``chances.world_chances`` asks here first, and runs the reference where
the core does not run or cannot take the table or the outcomes (more than two sides). A fault
inside the core (a bug) is the reference's ``SearchError``, in one line.

The last deal solved for the game (``chances.solved_chance``) runs in the core as well
(``game_solver``): a ``NativeSolver`` whose played-out rounds are valued by ``_core.GameFinal``, the
reference's ``game_final`` (the round's tally scored at the game score, then the winner or the
table), so the solver never calls back into Python and gives the reference's values to the bit.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from casino_coach.core import NATIVE, native_rules
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.errors import SearchError
from casino_coach.search.native import NativeSolver
from casino_coach.search.native_race import LazyOutcomes
from casino_coach.search.result import Outcome


class Table(Protocol):
    """What is read of a ``chances.GameTable`` (which imports this module)."""

    @property
    def rules(self) -> RuleSet: ...
    @property
    def nsides(self) -> int: ...
    @property
    def chances(self) -> Mapping[tuple[tuple[int, ...], int], tuple[float, ...]]: ...


# The core's copy of each table met (a shipped table lives as long as the process), by identity:
# a table holds a dict and is not hashable.
_tables: dict[int, tuple[Table, Any]] = {}


def _native_table(table: Table) -> Any:
    got = _tables.get(id(table))
    if got is None or got[0] is not table:
        assert NATIVE is not None
        grid = range(table.rules.target + 1)
        chances = [table.chances[(sc, d)] for d in range(2) for sc in itertools.product(grid, repeat=2)]
        got = _tables[id(table)] = (table, NATIVE.GameTable(native_rules(table.rules), chances))
    return got[1]


def outcome_chances(
    table: Table,
    obs: Observation,
    scores: Sequence[Points],
    outcomes: Sequence[Outcome | None],
    nworlds: int,
    memo: dict[tuple[Any, ...], Any],
) -> list[float] | None:
    """``chances.outcome_chances`` in the core: the mover's side's chance to win the game after each
    of the first ``nworlds`` ``outcomes`` (NaN where None or missing); None where the core does not
    run or cannot take them. What the decision's other moves meet again is kept in ``memo`` (the
    decision's ``ChanceMemo.native``)."""
    if NATIVE is None or table.nsides != 2 or obs.nsides != 2:
        return None
    try:
        key = (id(table), obs, tuple(scores))
        worlds = memo.get(key)
        if worlds is None:
            s0, s1 = scores
            worlds = memo[key] = NATIVE.WorldChances(
                _native_table(table), (s0, s1), obs.sweeps, obs.seat % 2, (obs.dealer + 1) % 2
            )
        chances: list[float]
        if isinstance(outcomes, LazyOutcomes):  # read where the race keeps them
            chances = worlds.race_chances(*outcomes.in_core(), nworlds)
        else:
            chances = worlds.chances(outcomes, nworlds)
        return chances
    except NATIVE.CoreFault as e:
        raise SearchError(str(e)) from None
    except (ValueError, TypeError):
        return None


def game_solver(table: Table, scores: Sequence[Points], dealer: int, side: int) -> NativeSolver | None:
    """The solver of ``chances.solved_chance`` in the core: for ``side`` of two, each played-out
    round valued by the chance that side wins the game (``game_final(table, scores, dealer, side)``,
    computed in the core). None where the core does not run or cannot take the table (more than two
    sides)."""
    if NATIVE is None or table.nsides != 2:
        return None
    s0, s1 = scores
    try:
        final = NATIVE.GameFinal(_native_table(table), (s0, s1), dealer, side)
    except (ValueError, TypeError):
        return None
    return NativeSolver(table.rules, side, 2, final_value=final)
