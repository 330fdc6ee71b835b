"""Benchmark the search: ``evaluate`` per decision in the first deals of 2-player rounds, exact
last-deal solves, nodes per second, and the ``searcher`` bot's time per decision in self-play. Prints
medians (and means) over many positions.

Targets (issue 3): ``suggest`` at default settings at most 0.5 s per decision in the first deals of a
2-player game; an exact last-deal solve at most 0.1 s. Issue 40: the native core's ``searcher`` at
least 20x faster per decision (median) than the mypyc build's, choosing the same move on every one
of at least 500 decisions.

    python benchmarks/bench_search.py [--rounds 6] [--last-rounds 30] [--preset classic --preset royal]
        [--decisions 500] [--moves-out moves.json]
    python benchmarks/bench_search.py --compare [--repeat 3]

The searcher figure: the ``searcher`` bot at the settings of the strength runs (``--samples 4
--min-samples 2 --nodes 3000``, ``SEARCHER``) plays itself in seeded classic 2-player rounds
(``arena.play``, seeds 1, 2, ...) until it has made ``--decisions`` decisions with more than one legal
move; each is timed in process CPU seconds, and its move is recorded with a digest of the
observation it was chosen from (``--moves-out``). The rounds are the same on every build as long as
the moves are, so the decisions are a fixed set, and the first move that differs shows where it
stops being one.

``--compare`` measures the native core, the mypyc build and the Python reference in one run,
interleaved, and prints native's ratios (``compare_builds.py``); then it compares every run's moves
with the first Python run's and prints "same move on N of N decisions" per build.

Times are wall-clock and CPU (process) seconds; on a shared machine the CPU figure is the steadier.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import compare_builds

from casino_coach import errors
from casino_coach.bots.arena import play
from casino_coach.bots.searcher import SearcherPolicy
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import deal, new_round, shuffle_round
from casino_coach.search import Limits, evaluate
from casino_coach.search.expectimax import check_moves, check_table

# The error of a decision too big to search, by its name before the Error suffix in the mypyc build
# that --compare measures beside the core.
TOO_BIG: type[Exception] = getattr(errors, "TooBigToSearchError", None) or errors.__dict__["TooBigToSearch"]


def _searchable(loose: int, moves: int) -> bool:
    """Whether ``evaluate`` takes on a decision with these loose cards and this many legal moves."""
    try:
        check_table(loose)
        check_moves(moves)
    except TOO_BIG:
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


# The searcher's settings in the strength runs (benchmarks/searcher_strength.py, docs/performance.md).
SEARCHER: dict[str, Any] = {"samples": 4, "min_samples": 2, "nodes": 3000}


class Recorded:
    """A policy that records each decision with more than one legal move: CPU seconds, a digest of
    the observation, and the move chosen."""

    def __init__(self, policy: SearcherPolicy, round_seed: int) -> None:
        self.policy = policy
        self.name = policy.name
        self.round_seed = round_seed
        self.seconds: list[float] = []
        self.moves: list[list[Any]] = []

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        t0 = time.process_time()
        move = self.policy.choose(rules, obs, legal, rng, scores=scores)
        if len(legal) > 1:
            self.seconds.append(time.process_time() - t0)
            digest = hashlib.sha1(repr(obs).encode()).hexdigest()[:12]
            self.moves.append([self.round_seed, len(self.moves), digest, str(move)])
        return move


def searcher_decisions(decisions: int) -> tuple[list[float], list[list[Any]]]:
    """The ``searcher`` (``SEARCHER``) playing itself in classic 2-player rounds of seeds 1, 2, ...
    until it has made ``decisions`` decisions with a choice: their CPU seconds and their moves."""
    rules = RuleSet.from_preset("classic")
    seconds: list[float] = []
    moves: list[list[Any]] = []
    seed = 0
    while len(seconds) < decisions:
        seed += 1
        bot = Recorded(SearcherPolicy(**SEARCHER), seed)
        play(rules, [bot, bot], seed, rounds=1, bot_seed="bench")
        seconds += bot.seconds
        moves += bot.moves
    return seconds, moves


def same_moves(moves_dir: Path) -> None:
    """Print, per run, on how many decisions it chose the first Python run's move."""
    runs = sorted(moves_dir.glob("*.json"))
    lists = {f.stem: json.loads(f.read_text()) for f in runs}
    ref_name = next((n for n in lists if n.startswith("python")), None)
    if ref_name is None:
        return
    ref = lists[ref_name]
    print(f"\nsearcher moves against {ref_name} ({len(ref)} decisions):")
    for name, got in lists.items():
        if name == ref_name:
            continue
        same = sum(a == b for a, b in zip(got, ref, strict=False))
        first = next((i for i, (a, b) in enumerate(zip(got, ref, strict=False)) if a != b), None)
        where = "" if first is None else f"; first different: {got[first]} against {ref[first]}"
        print(f"  {name:18s} same move on {same} of {len(ref)} decisions ({len(got)} made){where}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--last-rounds", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--compare", action="store_true", help="the pure and the compiled build, interleaved")
    ap.add_argument("--repeat", type=int, default=3, help="runs per build with --compare")
    ap.add_argument("--decisions", type=int, default=500, help="searcher decisions in self-play (0: none)")
    ap.add_argument("--moves-out", type=Path, help="write the searcher's moves (JSON) here")
    ap.add_argument("--moves-dir", type=Path, help=argparse.SUPPRESS)  # a --compare child's moves
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
            "--decisions",
            str(args.decisions),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            argv += ["--moves-dir", tmp]
            compare_builds.compare(
                __file__, [*argv, *(a for p in presets for a in ("--preset", p))], args.repeat
            )
            same_moves(Path(tmp))
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
    if args.decisions:
        seconds, moves = searcher_decisions(args.decisions)
        figures["classic searcher decision median_ms"] = statistics.median(seconds) * 1000
        figures["classic searcher decision mean_ms"] = statistics.mean(seconds) * 1000
        out = args.moves_out
        if args.moves_dir is not None:
            build = os.environ.get(compare_builds.BUILD_ENV, "run")
            out = args.moves_dir / f"{build}-{os.getpid()}.json"
        if out is not None:
            out.write_text(json.dumps(moves))
        if not args.figures:
            median, mean = statistics.median(seconds) * 1000, statistics.mean(seconds) * 1000
            print(
                f"classic   searcher {SEARCHER}: {len(seconds)} decisions in self-play, "
                f"median {median:.1f} ms CPU, mean {mean:.1f} ms",
                flush=True,
            )
    if args.figures:
        compare_builds.emit(figures)


if __name__ == "__main__":
    main()
