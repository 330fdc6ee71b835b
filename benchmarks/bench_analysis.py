"""Benchmark the game analysis: whole 2-player games to 21, analysed at default settings.

Target (issue 4, 2-core machine): at most 60 s per game with ``--jobs 2`` (median of 3 games). The
games are played by the ``counter`` bot against itself (seeds 1, 2, 3, classic rules unless
``--preset``); each is analysed as ``casino-coach analyze --jobs 2`` would. Prints the median seconds
per game and per rated move.

    python benchmarks/bench_analysis.py [--games 3] [--jobs 2] [--preset classic] [--compare]

The analysis runs at ``AnalysisOptions``'s default limits (``analysis_limits()``), which the mypyc
build of ``compare_builds.MYPYC_REF`` has too (it had them in ``coach.analysis``), but for the worlds
of a verdict: ``--samples`` (default 320, the mypyc build's default and the settings the speed
targets were set at; since then a 2-player verdict takes up to 10,240 by default). ``--samples 0``
keeps each build's own default.

``--compare`` analyses each game on the native core, the mypyc build and the Python reference,
alternating game by game, and prints the medians and native's ratios (target: >= 10x mypyc end to
end; ``compare_builds.py``).

``--log FILE`` times the command instead, end to end: ``casino-coach analyze FILE --json`` at its
default settings (``--samples`` as above) in a fresh process, start-up and all (wall and CPU
seconds, its workers included), ``--games`` times; with ``--compare``, on each build in turn.

    python benchmarks/bench_analysis.py --log replays/classic-2p-full.json --games 3 --compare
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import compare_builds

from casino_coach.bots.arena import play
from casino_coach.bots.policies import make_policy
from casino_coach.coach import analysis as coach_analysis
from casino_coach.coach.analysis import AnalysisOptions, analyze
from casino_coach.engine.rules import RuleSet


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--bot", default="counter")
    ap.add_argument("--world", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--first", type=int, default=1, help="seed of the first game")
    ap.add_argument(
        "--samples", type=int, default=320, help="worlds a verdict may take (0: each build's default)"
    )
    ap.add_argument("--log", help="time `casino-coach analyze LOG --json` end to end instead")
    ap.add_argument("--compare", action="store_true", help="native, mypyc and Python, interleaved")
    ap.add_argument("--figures", action="store_true", help=argparse.SUPPRESS)  # a --compare child
    args = ap.parse_args()
    if args.log is not None:
        _command(args)
        return
    if args.compare:  # one game per child, pure and compiled alternating game by game
        argv = ["--games", "1", "--jobs", str(args.jobs), "--preset", args.preset, "--bot", args.bot]
        argv += ["--samples", str(args.samples)]
        argv += [] if args.world else ["--no-world"]
        compare_builds.compare(__file__, argv, args.games, lambda r: ["--first", str(args.first + r)])
        return
    compare_builds.check_build()
    rules = RuleSet.from_preset(args.preset)
    per_game: list[float] = []
    per_move: list[float] = []
    cpu_game: list[float] = []
    for seed in range(args.first, args.first + args.games):
        game = play(rules, [make_policy(args.bot), make_policy(args.bot)], seed, rounds=None)
        log = game.to_log()
        c0 = _cpu()
        t0 = time.perf_counter()
        options = AnalysisOptions(jobs=args.jobs, world=args.world)
        if args.samples:
            options = AnalysisOptions(
                # The mypyc build has it there; this tree imports it there from coach.verdict.
                limits=coach_analysis.analysis_limits(args.samples),  # type: ignore[attr-defined]
                jobs=args.jobs,
                world=args.world,
            )
        a = analyze(log, options)
        dt = time.perf_counter() - t0
        cpu = _cpu() - c0
        cpu_game.append(cpu)
        rated = [m for m in a.moves if m.rated]
        each = [m.seconds for m in rated]
        per_game.append(dt)
        per_move.append(dt / max(1, len(rated)))
        if args.figures:
            continue
        print(
            f"game {seed}: {len(log.rounds)} rounds, {len(rated)} moves, {dt:.1f} s wall, "
            f"{cpu:.1f} s CPU ({dt / max(1, len(rated)) * 1000:.0f} ms wall per move; one move's "
            f"search: median {statistics.median(each) * 1000:.0f} ms, max {max(each):.2f} s)",
            flush=True,
        )
    if args.figures:
        compare_builds.emit(
            {"wall per game_s": statistics.median(per_game), "CPU per game_s": statistics.median(cpu_game)}
        )
        return
    print(
        f"median per game: {statistics.median(per_game):.1f} s wall with --jobs {args.jobs} "
        f"(target <= 60 s), {statistics.median(cpu_game):.1f} s CPU; median per move: "
        f"{statistics.median(per_move) * 1000:.0f} ms wall; load average now "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )


def _command(args: argparse.Namespace) -> None:
    """``--log``: the analyze command end to end, ``--games`` times (on each build with ``--compare``)."""
    if args.compare:
        argv = ["--log", args.log, "--games", "1", "--samples", str(args.samples)]
        compare_builds.compare(__file__, argv, args.games)
        return
    compare_builds.check_build()
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(args.games):
        c0 = _cpu()
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from casino_coach.cli import main; main()",
                "analyze",
                args.log,
                "--json",
                *(["--samples", str(args.samples)] if args.samples else []),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    if args.figures:
        compare_builds.emit(
            {"analyze wall_s": statistics.median(walls), "analyze CPU_s": statistics.median(cpus)}
        )
        return
    print(
        f"casino-coach analyze {args.log}: median {statistics.median(walls):.2f} s wall, "
        f"{statistics.median(cpus):.2f} s CPU over {args.games} runs"
    )


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the analysis's worker processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
