"""Benchmark the search: ``evaluate`` per decision in the first deals of 2-player rounds, exact
last-deal solves, and nodes per second. Prints medians (and means) over many positions.

Targets (issue 3): ``suggest`` at default settings at most 0.5 s per decision in the first deals of a
2-player game; an exact last-deal solve at most 0.1 s.

    python scripts/bench_search.py [--rounds 6] [--last-rounds 30] [--preset classic --preset royal]
    python scripts/bench_search.py --compare [--repeat 3]

``--compare`` measures the pure and the compiled build in one run, interleaved, and prints the ratios
(issue 8: >= 3x nodes per second; ``compare_builds.py``).

Times are wall-clock and CPU (process) seconds; on a shared machine the CPU figure is the steadier.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import compare_builds

from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import deal, new_round, shuffle_round
from casino_coach.errors import TooBigToSearch
from casino_coach.search import Limits, evaluate
from casino_coach.search.expectimax import check_moves, check_table


def _searchable(loose: int, moves: int) -> bool:
    """Whether ``evaluate`` takes on a decision with these loose cards and this many legal moves."""
    try:
        check_table(loose)
        check_moves(moves)
    except TooBigToSearch:
        return False
    return True


def decisions(
    rules: RuleSet, rounds: int, seed: int, last_rounds: int
) -> tuple[list[Observation], list[Observation]]:
    """Observations of the mover at every decision of the first two deals of ``rounds`` random
    rounds, and at the first decision of the last deal (8 cards to play) of ``last_rounds``; not those
    the search refuses (random play can pile up more loose cards than it takes on)."""
    early: list[Observation] = []
    last: list[Observation] = []
    rng = random.Random(seed)
    for r in range(max(rounds, last_rounds)):
        sh = shuffle_round(rng, 2)
        s = new_round(2, 2, rng.randrange(2), sh.table, sh.deals[0])
        nxt = 1
        while not s.is_over:
            last_deal_starts = False
            if s.needs_deal:
                s = deal(s, sh.deals[nxt])
                nxt += 1
                last_deal_starts = s.stock == 0
            moves = legal_moves(rules, s)
            searchable = _searchable(s.loose, len(moves))
            if searchable and last_deal_starts and r < last_rounds:
                last.append(observe(s, s.to_move))
            if searchable and nxt <= 2 and r < rounds:
                early.append(observe(s, s.to_move))
            s = apply(rules, s, rng.choice(moves))
    return early, last


def run(rules: RuleSet, observations: list[Observation], limits: Limits) -> dict[str, float]:
    wall, cpu, nodes, worlds = [], [], [], []
    for obs in observations:
        c0 = time.process_time()
        r = evaluate(rules, obs, limits)
        cpu.append(time.process_time() - c0)
        wall.append(r.seconds)
        nodes.append(r.nodes)
        worlds.append(r.samples)
    return {
        "wall_median": statistics.median(wall),
        "wall_mean": statistics.mean(wall),
        "cpu_median": statistics.median(cpu),
        "cpu_mean": statistics.mean(cpu),
        "cpu_max": max(cpu),
        "worlds_mean": statistics.mean(worlds),
        "nodes_per_cpu_s": sum(nodes) / max(sum(cpu), 1e-9),
        "n": len(observations),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--last-rounds", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--compare", action="store_true", help="the pure and the compiled build, interleaved")
    ap.add_argument("--repeat", type=int, default=3, help="runs per build with --compare")
    ap.add_argument("--figures", action="store_true", help=argparse.SUPPRESS)  # a --compare child
    args = ap.parse_args()
    presets = args.preset or ["classic", "royal"]
    if args.compare:
        argv = [
            "--rounds",
            str(args.rounds),
            "--last-rounds",
            str(args.last_rounds),
            "--seed",
            str(args.seed),
        ]
        compare_builds.compare(__file__, [*argv, *(a for p in presets for a in ("--preset", p))], args.repeat)
        return
    compare_builds.check_build()
    figures: dict[str, float] = {}
    for preset in presets:
        rules = RuleSet.from_preset(preset)
        early, last = decisions(rules, args.rounds, args.seed, args.last_rounds)
        for what, key, obs, limits in (
            ("evaluate, first two deals", "evaluate", early, Limits()),
            ("exact last-deal solve", "last deal", last, Limits()),
        ):
            if not obs:
                continue
            f = run(rules, obs, limits)
            figures[f"{preset} {key} CPU mean_s"] = f["cpu_mean"]
            figures[f"{preset} {key} nodes/CPU-s"] = f["nodes_per_cpu_s"]
            if not args.figures:
                print(
                    f"{preset:9s} {what:26s} n={f['n']:3.0f}  median {f['wall_median']:.3f} s wall, "
                    f"{f['cpu_median']:.3f} s CPU (mean {f['cpu_mean']:.3f}, max {f['cpu_max']:.2f})  "
                    f"worlds {f['worlds_mean']:.1f}  {f['nodes_per_cpu_s']:,.0f} nodes/CPU-s",
                    flush=True,
                )
    if args.figures:
        compare_builds.emit(figures)


if __name__ == "__main__":
    main()
