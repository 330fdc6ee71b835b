"""The chance of winning the game to the target (rules.md 1.14) as the coach reports it: per side
before the round, and once the round is over after each move valued (``decision_chances``).

The model itself (the table shipped with the package, the dynamic programming that makes it, the
chances after a round from the search's outcomes per world, and the choice of a root move for the
game) lives in the search layer, ``search.chances``, so that the searcher bot can choose by it; its
names are re-exported here for the coach's callers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.search import MoveValue, SearchResult
from casino_coach.search.chances import (
    CHANCE_EPSILON,
    QUIET,
    TABLE_FILE,
    TABLE_FORMAT,
    ChanceMemo,
    Chances,
    GameEdge,
    GameTable,
    State,
    canonical_tally,
    chances_after,
    choose_for_game,
    for_the_game,
    game_chances,
    game_edges,
    game_is_close,
    game_search_weights,
    game_source,
    rotate,
    shipped_tables,
    solve,
    surest_gain,
    table_for,
    tables_to_json,
    world_chances,
    world_tallies,
)

__all__ = [
    "CHANCE_EPSILON",
    "QUIET",
    "TABLE_FILE",
    "TABLE_FORMAT",
    "ChanceMemo",
    "Chances",
    "GameEdge",
    "GameTable",
    "State",
    "WinChances",
    "canonical_tally",
    "chances_after",
    "choose_for_game",
    "decision_chances",
    "for_the_game",
    "game_chances",
    "game_edges",
    "game_is_close",
    "game_search_weights",
    "game_source",
    "rotate",
    "shipped_tables",
    "solve",
    "surest_gain",
    "table_for",
    "tables_to_json",
    "world_chances",
    "world_tallies",
]


@dataclass(frozen=True)
class WinChances:
    """A decision's game chances per side (``game_chances`` and ``chances_after``): before the
    round, and once the round is over after each valued move (the best first)."""

    round_start: Chances
    after: tuple[tuple[Any, Chances], ...]  # (move, chances) for the moves valued, best first

    def of(self, move: Any) -> Chances | None:
        for m, c in self.after:
            if m == move:
                return c
        return None


def decision_chances(
    rules: RuleSet,
    obs: Observation,
    scores: Sequence[Points],
    moves: Sequence[MoveValue],
    result: SearchResult,
    memo: ChanceMemo | None = None,
) -> WinChances | None:
    """The game chances of a decision from the mover's view ``obs`` in a round that started at the
    game score ``scores``: before the round (the table), and after the round for each of ``moves``
    (of ``result``, from the search's outcomes per world: ``world_chances``, averaged as the search
    averages its worlds, ``SearchResult.stats``; the search for the game where one was made,
    ``game_source``; ``memo``: what the decision's other chances share). None when no table covers
    these rules and players."""
    table = table_for(rules, obs.nplayers)
    if table is None:
        return None
    start = table.at(scores, obs.dealer % table.nsides)
    after = []
    if obs.nsides == 2:
        side = obs.seat % 2
        memo = ChanceMemo() if memo is None else memo
        source = game_source(result)
        for mv in moves:
            chances = world_chances(table, obs, scores, source.value_of(mv.move), len(source.weights), memo)
            mine, _, n = source.stats(chances)
            mine = min(1.0, max(0.0, mine))  # a corrected mean (``Controls``) may stray past the ends
            if n:
                after.append((mv.move, (mine, 1.0 - mine) if side == 0 else (1.0 - mine, mine)))
    return WinChances(start, tuple(after))
