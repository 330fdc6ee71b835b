"""The recorded search tree of one decision: the root, every legal move, and the principal lines.

Recording is opt-in (``evaluate(..., SearchRequest(record=True))``); when off nothing here runs. For
every world and every root move the solver's principal line (to the end of the search) is added: each
node on it gains a visit and the world's value of that root move. So the top level holds every legal
move (visited once per world it was searched in), the next levels the replies that were best in some
worlds, with how often they were, and the mean value of the lines through them. Once the search is done,
each root move's value is set to the search's estimate of it (``set_move_values``: the value ``suggest``
shows, which pairs the moves' worlds and corrects the plain mean), so the top level ranks the moves as
every other command does. Values are from the root side's point of view, in points."""

from __future__ import annotations

from dataclasses import dataclass, field

from casino_coach.engine.movegen import Move


@dataclass
class TreeNode:
    """Statistics of one path from the root."""

    visits: int = 0
    value_sum: float = 0.0

    @property
    def value(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0


@dataclass
class SearchTree:
    """Nodes keyed by their path of moves from the root (the root is the empty path)."""

    root_seat: int
    nplayers: int
    nodes: dict[tuple[Move, ...], TreeNode] = field(default_factory=dict)
    exact: bool = False

    def add_line(self, line: tuple[Move, ...], value: float) -> None:
        """Count one world's principal line (root move first) with that world's value."""
        nodes = self.nodes
        for i in range(len(line) + 1):
            path = line[:i]
            node = nodes.get(path)
            if node is None:
                node = nodes[path] = TreeNode()
            node.visits += 1 if i else 0
            node.value_sum += value if i else 0.0

    def set_root(self, visits: int, value: float) -> None:
        root = self.nodes.setdefault((), TreeNode())
        root.visits = visits
        root.value_sum = value * visits

    def set_move_values(self, values: dict[Move, float]) -> None:
        """Give each root move its value as the search estimates it, keeping its visits."""
        for m, v in values.items():
            node = self.nodes.get((m,))
            if node is not None and node.visits:
                node.value_sum = v * node.visits

    def seat_of(self, path: tuple[Move, ...]) -> int:
        """The seat that played the last move of ``path`` (the root: the seat to move)."""
        if not path:
            return self.root_seat
        return (self.root_seat + len(path) - 1) % self.nplayers

    def children(self, path: tuple[Move, ...]) -> list[tuple[Move, ...]]:
        """The recorded children of a node, most visited first."""
        return self.children_index().get(path, [])

    def children_index(self) -> dict[tuple[Move, ...], list[tuple[Move, ...]]]:
        """Every node's recorded children, most visited first (then higher value, then move order)."""
        index: dict[tuple[Move, ...], list[tuple[Move, ...]]] = {}
        for p in self.nodes:
            if p:
                index.setdefault(p[:-1], []).append(p)
        nodes = self.nodes
        for kids in index.values():
            kids.sort(key=lambda p: (-nodes[p].visits, -nodes[p].value, p[-1]))
        return index
