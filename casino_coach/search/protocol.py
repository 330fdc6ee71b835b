"""The small game protocol the hidden-information search is written against.

The sampling search (``race.py``) never looks inside a card: it asks a *sampler* for the worlds
consistent with what the player to move knows (each with its weight, or every one of them when they
are few), and a *world valuer* for the value of each root move in one world. Inside a world the game
is one of perfect information, and ``minimax.py`` solves any ``SearchGame`` exactly. Casino implements all
three (``expectimax.py``: its sampler is ``worlds.py``, its valuer the alpha-beta ``Solver`` with the
leaf estimate of ``leaf.py``; ``CasinoGame`` below is the plain ``SearchGame`` view of its rules), and the
tests run the same search on a toy card game whose values are known by hand, as OpenSpiel tests its
algorithms on small games.

Moves must be hashable and ordered (results are sorted, ties broken by the move), worlds anything.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, TypeVar

from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.search.leaf import Evaluator

S = TypeVar("S")  # a perfect-information state
M = TypeVar("M")  # a move
W = TypeVar("W")  # a world: one placement of the hidden information
W_co = TypeVar("W_co", covariant=True)
W_contra = TypeVar("W_contra", contravariant=True)

# The worlds of a decision: an endless stream of (world, weight, group), and their number when the
# stream is an enumeration of every consistent world (then it ends, each world once), else None. The
# worlds of one group were drawn together (a balanced pass: each hidden card dealt to some other hand
# at most once in it), so they depend on each other; the groups do not. A world drawn on its own is a
# group of its own: its number is new.
Worlds = tuple[Iterator[tuple[W, float, int]], int | None]

# Per move: its value in one world and the line that proves it (the moves after it), and optionally
# what happens along that line (for explanations; anything, recorded as given).
WorldValues = tuple[dict[M, tuple[float, tuple[M, ...]]], dict[M, Any] | None]


class SearchGame(Protocol[S, M]):
    """A game of perfect information (one world), as OpenSpiel's state API in functional form: states
    are immutable values, ``apply`` returns a new one. Values are points for one side (a player, or a
    partnership), which maximises; every other side minimises (two sides: minimax exactly; more: the
    paranoid assumption, as ``solver.py`` says)."""

    def side_to_move(self, state: S) -> int: ...

    def legal(self, state: S) -> Sequence[M]: ...

    def apply(self, state: S, move: M) -> S: ...

    def is_terminal(self, state: S) -> bool: ...

    def returns(self, state: S, side: int) -> float: ...


class Sampler(Protocol[W_co]):
    """The worlds consistent with what the player to move knows, drawn with ``rng``."""

    def __call__(self, rng: random.Random) -> Worlds[W_co]: ...


class WorldValuer(Protocol[W_contra, M]):
    """The value of each of ``moves`` (the root moves still searched) in ``world``, for the side to
    move at the root."""

    def __call__(self, world: W_contra, moves: Sequence[M]) -> WorldValues[M]: ...


class CasinoGame:
    """One deal of Casino as a ``SearchGame``: a state is a ``RoundState`` with every hand known, the sides
    are the players or partnerships, and a state is terminal when the hands are played out. Its value
    is then the exact round margin when the round is over, else the leaf estimate of the rest of the
    round (``leaf.Evaluator``), as the alpha-beta ``Solver`` values the end of a deal; this plain view
    lets the generic ``minimax`` check that solver."""

    def __init__(self, rules: RuleSet, nsides: int) -> None:
        self.rules = rules
        self.nsides = nsides
        self._evaluators: dict[int, Evaluator] = {}

    def side_to_move(self, state: RoundState) -> int:
        return state.to_move % self.nsides

    def legal(self, state: RoundState) -> list[Move]:
        return legal_moves(self.rules, state)

    def apply(self, state: RoundState, move: Move) -> RoundState:
        return apply(self.rules, state, move)

    def is_terminal(self, state: RoundState) -> bool:
        return not any(state.hands)

    def returns(self, state: RoundState, side: int) -> float:
        ev = self._evaluators.get(side)
        if ev is None:
            ev = self._evaluators[side] = Evaluator(self.rules, self.nsides, side)
        return ev.leaf(state) if state.more else ev.final(state)
