"""Instruction counts of fixed workloads under valgrind's callgrind: small speed differences measured
without the noise of a shared machine's clock (issue 8).

Each workload runs in a fresh process of its own under callgrind, once with the package imported and
nothing else done; the difference is the workload's own instructions. ``--tree DIR`` measures the
casino_coach in DIR (a ``git worktree`` of older code, say), ``--build compiled`` its compiled build
(``build/compiled/`` there, as ``compare_builds.compiled_tree`` makes it).

    python benchmarks/count_instructions.py [--tree DIR] [--build pure|compiled] [--work search rounds]

Workloads: ``search``, ``evaluate`` at default limits on the first decisions of two classic rounds and
the first decision of the last deal of three (``bench_search.decisions``, seed 5); ``rounds``, 40
random classic 2-player rounds played with ``legal_moves`` and ``apply`` (seed 3); ``analysis``,
the bundled ``replays/classic-2p-progress.json`` analysed at the defaults in this process (``--work
analysis``: not run unless asked, it takes minutes under callgrind).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKS = ("none", "search", "rounds", "analysis")


def work(what: str) -> None:
    """Run one workload in this process (the child's side)."""
    from bench_search import decisions

    from casino_coach.engine.movegen import apply, legal_moves
    from casino_coach.engine.rules import RuleSet
    from casino_coach.engine.state import deal, new_round, shuffle_round
    from casino_coach.search import Limits, evaluate

    rules = RuleSet.from_preset("classic")
    if what == "analysis":
        from casino_coach.coach.analysis import AnalysisOptions, analyze
        from casino_coach.formats.log import read_log

        analyze(read_log(ROOT / "replays" / "classic-2p-progress.json"), AnalysisOptions(jobs=1))
    elif what == "search":
        early, last = decisions(rules, 2, 5, 3)
        for obs in early[:12] + last:
            evaluate(rules, obs, Limits())
    elif what == "rounds":
        rng = random.Random(3)
        for r in range(40):
            sh = shuffle_round(rng, 2)
            s = new_round(2, 2, r % 2, sh.table, sh.deals[0])
            dealt = 1
            while not s.is_over:
                if s.needs_deal:
                    s = deal(s, sh.deals[dealt])
                    dealt += 1
                moves = legal_moves(rules, s)
                s = apply(rules, s, moves[rng.randrange(len(moves))])


def count(tree: Path, build: str, what: str) -> int:
    """The instructions callgrind counts for a fresh process running workload ``what``."""
    code = tree / "build" / "compiled" if build == "compiled" else tree
    env = dict(os.environ, PYTHONPATH=f"{code}{os.pathsep}{tree / 'scripts'}", PYTHONSAFEPATH="1")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={Path(tmp) / 'out'}",
                sys.executable,
                __file__,
                "--child",
                what,
                "--build",
                build,
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"refs:\s+([\d,]+)", out.stderr)
    if found is None:
        sys.exit(f"no instruction count in valgrind's output:\n{out.stderr}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose casino_coach to measure")
    ap.add_argument("--build", choices=("pure", "compiled"), default="pure")
    ap.add_argument("--work", nargs="+", choices=WORKS[1:], default=["search", "rounds"])
    ap.add_argument("--child", choices=WORKS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        import casino_coach

        if casino_coach.build() != args.build:
            sys.exit(f"asked to measure the {args.build} build, imported {casino_coach.build()}")
        work(args.child)
        return
    base = count(args.tree, args.build, "none")
    print(f"{args.tree} ({args.build}): import {base / 1e6:,.1f}M instructions")
    for what in args.work:
        own = count(args.tree, args.build, what) - base
        print(f"  {what:8} {own / 1e6:>10,.1f}M instructions", flush=True)


if __name__ == "__main__":
    main()
