"""The search's inputs and outputs: ``Limits`` in, ``SearchResult`` (per-move ``MoveValue``) out."""

from __future__ import annotations

from dataclasses import dataclass

from casino_coach.movegen import Move
from casino_coach.search.worlds import SearchError


@dataclass(frozen=True)
class Limits:
    """How much effort one decision may take. The same limits and seed give the same answer (with
    ``time=None``; a time limit makes the number of worlds depend on the machine).

    The defaults keep ``evaluate`` well under half a second per decision in a 2-player game.
    """

    samples: int = 40  # maximum worlds sampled per decision
    min_samples: int = 8  # worlds always searched before the stopping rule may stop
    time: float | None = None  # seconds per decision, None = no limit
    seed: int = 0
    exact_worlds: int = 40  # enumerate exactly when the number of consistent worlds is at most this
    # Plies searched per world before the leaf estimate. None: the whole deal with 2 players (8
    # plies), 4 plies with 3 or 4 (a whole deal of 12 or 16 plies costs far too much there).
    depth: int | None = None
    separation: float = 2.0  # stop once the best move leads every other by this many standard errors
    margin: float = 0.2  # ... or is surely within this many points of it (the choice hardly matters)
    nodes: int | None = 100_000  # stop sampling once the search has visited this many nodes

    def __post_init__(self) -> None:
        if self.samples < 1 or self.min_samples < 1:
            raise SearchError(f"samples and min_samples must be at least 1, got {self.samples}, "
                              f"{self.min_samples}")
        if self.time is not None and not self.time > 0:
            raise SearchError(f"the time limit must be a positive number of seconds, got {self.time}")
        if self.exact_worlds < 0:
            raise SearchError(f"exact_worlds must be at least 0, got {self.exact_worlds}")
        if self.depth is not None and self.depth < 1:
            raise SearchError(f"depth must be at least 1 ply, got {self.depth}")
        if not self.margin >= 0:
            raise SearchError(f"margin must be at least 0, got {self.margin}")
        if self.nodes is not None and self.nodes < 1:
            raise SearchError(f"the node limit must be at least 1, got {self.nodes}")
        if not self.separation >= 0:
            raise SearchError(f"separation must be at least 0, got {self.separation}")


@dataclass(frozen=True)
class MoveValue:
    """One legal move's value for the player to move.

    ``ev`` is in points: the mover's side's round points minus the mean of the other sides' round
    points, for the whole round (cards already captured included, which shifts every move alike),
    averaged over the worlds; ``stderr`` is its standard error (0 when every world was solved).
    """

    move: Move
    ev: float
    stderr: float
    line: tuple[Move, ...]  # a principal continuation after this move (the most common one)


@dataclass(frozen=True)
class SearchResult:
    """Every legal move of one decision, best first, with the effort spent."""

    seat: int
    exact: bool  # every world enumerated and solved to the end of the round
    moves: tuple[MoveValue, ...]
    samples: int  # worlds searched
    nodes: int
    seconds: float
    tree: object | None = None  # the recorded tree (``tree.SearchTree``) when record=True

    @property
    def best(self) -> MoveValue:
        return self.moves[0]

    def value_of(self, move: Move) -> MoveValue:
        """The value of ``move``; SearchError when it is not a legal move of this decision."""
        for mv in self.moves:
            if mv.move == move:
                return mv
        raise SearchError("that move is not one of the legal moves of this decision")
