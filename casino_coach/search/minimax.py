"""Plain minimax over any ``SearchGame`` of the search protocol: no pruning, no table, no horizon.

The reference the fast solvers are checked against on small positions (``solver.py`` on Casino through
``protocol.CasinoGame``), and the exact solver of the toy games the tests run the search on. The side
``root`` maximises and every other side minimises (the paranoid assumption with more than two sides,
as ``solver.py`` makes it). Its cost grows with the whole game tree: keep it to a few moves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from casino_coach.search.protocol import SearchGame, WorldValues

S = TypeVar("S")
M = TypeVar("M")
W = TypeVar("W")


def minimax(game: SearchGame[S, M], state: S, root: int) -> float:
    """The exact value of ``state`` for the side ``root``."""
    if game.is_terminal(state):
        return game.returns(state, root)
    values = [minimax(game, game.apply(state, m), root) for m in game.legal(state)]
    return max(values) if game.side_to_move(state) == root else min(values)


def principal_line(game: SearchGame[S, M], state: S, root: int) -> tuple[M, ...]:
    """The moves of a line that keeps the value of ``state``, to the end of the game (the first such
    move at each turn, in the order ``legal`` gives them)."""
    line: list[M] = []
    while not game.is_terminal(state):
        value = minimax(game, state, root)
        for m in game.legal(state):
            child = game.apply(state, m)
            if minimax(game, child, root) == value:
                line.append(m)
                state = child
                break
    return tuple(line)


class MinimaxValuer(Generic[S, M, W]):
    """A ``protocol.WorldValuer`` that solves each world exactly by ``minimax``: ``state_of`` gives the
    world's state at the decision, whose side to move is the root side."""

    def __init__(self, game: SearchGame[S, M], state_of: Callable[[W], S]) -> None:
        self.game = game
        self.state_of = state_of

    def __call__(self, world: W, moves: Sequence[M]) -> WorldValues[M]:
        game = self.game
        state = self.state_of(world)
        root = game.side_to_move(state)
        out: dict[M, tuple[float, tuple[M, ...]]] = {}
        for m in moves:
            child = game.apply(state, m)
            out[m] = (minimax(game, child, root), principal_line(game, child, root))
        return out, None
