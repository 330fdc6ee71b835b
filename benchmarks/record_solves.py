"""Record every call the search makes on the native solver, with what it answered, for the core's own
benchmark (``examples/solve_bench.rs``), which replays them without Python and checks each answer.

The decisions are ``bench_search.py``'s: ``evaluate`` at ``Limits()`` on the decisions of the first
two deals of ``--rounds`` random 2-player rounds, and the first decision of the last deal of
``--last-rounds``, per preset. One line per call, integers and hexadecimal floats:

    new ID PRESET SECTION ROOT_SIDE NSIDES HORIZON W0 .. W51
    limit ID N                     (node_limit set)
    nodes ID N                     (nodes set)
    root ID STATE NMOVES MOVES.. = NODES ok (VALUE LINELEN MOVES..)..  |  = NODES out
    search ID STATE ALPHA BETA = NODES ok VALUE  |  = NODES out
    pline ID STATE = LINELEN MOVES..
    done                           (the decision is made: its solvers are dropped)

    python benchmarks/record_solves.py OUT [--rounds 2] [--last-rounds 10] [--preset classic ...]
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path
from typing import Any, TextIO

from bench_search import decisions

from casino_coach.core import NATIVE
from casino_coach.engine.movegen import Move
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.search import Limits, evaluate, native
from casino_coach.search.leaf import HANDMADE
from casino_coach.search.solver import OutOfNodes


def state_words(s: RoundState) -> list[str]:
    words = [len(s.hands), *s.hands, s.loose, len(s.builds)]
    for b in s.builds:
        words += [b.cards, b.value, b.owner, int(b.multiple)]
    words += [s.nsides, *s.captured, *s.sweeps, s.to_move, s.last_capturer, s.stock, int(s.more)]
    words += [s.dealer, s.set_aside]
    return [str(w) for w in words]


def move_words(moves: Any) -> list[str]:
    return [str(int(x)) for m in moves for x in m]


def line_words(line: tuple[Move, ...]) -> list[str]:
    return [str(len(line)), *move_words(line)]


class Recorder:
    """Wraps ``native.NativeSolver`` so that every call is written to ``out``."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.ids = itertools.count()
        self.preset = ""
        self.section = ""

    def write(self, words: list[Any]) -> None:
        self.out.write(" ".join(str(w) for w in words) + "\n")

    def install(self) -> None:
        rec = self
        base = native.NativeSolver

        class Recording(base):  # type: ignore[misc, valid-type]
            def __init__(
                self,
                rules: RuleSet,
                root_side: int,
                nsides: int,
                horizon: int = 0,
                *,
                leaf: str = HANDMADE,
                final_value: Any = None,
                category_weights: Any = None,
            ) -> None:
                super().__init__(
                    rules,
                    root_side,
                    nsides,
                    horizon,
                    leaf=leaf,
                    final_value=final_value,
                    category_weights=category_weights,
                )
                assert leaf == HANDMADE and category_weights is None, "only the handmade leaf"
                assert final_value is None, "only the round's margin"
                assert rules == RuleSet.from_preset(rec.preset), "only presets"
                self._id = next(rec.ids)
                order = self._core_order
                rec.write(["new", self._id, rec.preset, rec.section, root_side, nsides, horizon, *order])

            @property
            def _core_order(self) -> list[int]:
                from casino_coach.engine.values import cached_values

                return [round(100 * v) for v in cached_values(self.rules)]

            @property
            def node_limit(self) -> int:
                return int(self._core.node_limit)

            @node_limit.setter
            def node_limit(self, value: int) -> None:
                rec.write(["limit", self._id, value])
                self._core.node_limit = value

            @property
            def nodes(self) -> int:
                return int(self._core.nodes)

            @nodes.setter
            def nodes(self, value: int) -> None:
                rec.write(["nodes", self._id, value])
                self._core.nodes = value

            def root_values(self, state: RoundState, moves: list[Move] | None = None) -> Any:
                assert moves is not None
                head = ["root", self._id, *state_words(state), len(moves), *move_words(moves), "="]
                try:
                    values = super().root_values(state, moves)
                except OutOfNodes:
                    rec.write([*head, self.nodes, "out"])
                    raise
                tail: list[Any] = [self.nodes, "ok"]
                for rv in values:
                    tail += [float(rv.value).hex(), *line_words(rv.line[1:])]
                rec.write([*head, *tail])
                return values

            def search(self, s: RoundState, alpha: float, beta: float) -> float:
                head = ["search", self._id, *state_words(s), float(alpha).hex(), float(beta).hex(), "="]
                try:
                    v: float = super().search(s, alpha, beta)
                except OutOfNodes:
                    rec.write([*head, self.nodes, "out"])
                    raise
                rec.write([*head, self.nodes, "ok", float(v).hex()])
                return v

            def principal_line(self, state: RoundState, limit: int = 64) -> tuple[Move, ...]:
                line: tuple[Move, ...] = super().principal_line(state, limit)
                rec.write(["pline", self._id, *state_words(state), "=", *line_words(line)])
                return line

        native.NativeSolver = Recording  # type: ignore[misc]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--last-rounds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    args = ap.parse_args()
    if NATIVE is None:
        raise SystemExit("record_solves.py records the native core's solver: build it first")
    with args.out.open("w") as out:
        rec = Recorder(out)
        rec.install()
        for preset in args.preset or ["classic", "royal"]:
            rules = RuleSet.from_preset(preset)
            rec.preset = preset
            early, last = decisions(rules, args.rounds, args.seed, args.last_rounds)
            for section, obs in (("evaluate", early), ("last", last)):
                rec.section = section
                for o in obs:
                    evaluate(rules, o, Limits())
                    rec.write(["done"])
    print(f"{args.out}: {next(rec.ids)} solvers")


if __name__ == "__main__":
    main()
