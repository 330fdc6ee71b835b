"""Benchmark the rules engine: legal-move generations per second and random rounds per second.

Targets (issue 1, 2-core machine): >= 20,000 positions/s and >= 500 two-player classic rounds/s with
full move generation at every ply. Every figure starts from cleared caches; the rounds figure is the
throughput of a long run from that cold start (as in self-play or search, where the small-table caches
warm up), the positions figure is given cold (first pass) and warm (later passes). Medians of repeats,
timed in process CPU time so that other work on the shared machine does not count against us.

    python benchmarks/bench_engine.py [--rounds 2000] [--native-rounds 100000] [--passes 50] [--repeat 3]
        [--compare]

On the native core (``CASINO_COACH_CORE=native``) the same figures come from the core, each in one
call, timed in process CPU time around the call: move generation from ``_core.count_legal_moves``
(the same positions, ``--passes`` times over; less a call of no passes, which times reading the
positions into the core, so that the figure is the generator's alone), random rounds from
``_core.random_rounds`` (``--native-rounds`` whole rounds played in Rust: shuffle, move generation
and apply at every ply; its own generator, so not the Python's rounds, but every 2-player round is 48
plies). The core keeps no caches between positions, so its cold and warm figures are one figure.
On the Python reference and the mypyc build, the Python loop below.

``--compare`` measures the native core, the mypyc build and the Python reference in one run,
interleaved, and prints native's ratios (issue 40: >= 20x mypyc on move generation and random rounds;
``compare_builds.py``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import compare_builds

from casino_coach.engine import movegen
from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState, deal, new_round, shuffle_round


def random_round(
    rules: RuleSet, nplayers: int, rng: random.Random, collect: list[RoundState] | None = None
) -> int:
    """Play one round with uniformly random legal moves; return the number of plies."""
    sh = shuffle_round(rng, nplayers)
    nsides = 2 if nplayers == 4 else nplayers
    s = new_round(nplayers, nsides, 0, sh.table, sh.deals[0])
    i = 1
    plies = 0
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[i])
            i += 1
        if collect is not None:
            collect.append(s)
        moves = legal_moves(rules, s)
        s = apply(rules, s, moves[rng.randrange(len(moves))])
        plies += 1
    return plies


def clear_caches() -> None:
    """The subset-sum and union caches persist across calls; clear them to start cold."""
    movegen._sums_cache.clear()
    movegen._unions.cache_clear()


def native_figures(
    preset: str, positions: list[RoundState], passes: int, rounds: int, repeat: int
) -> tuple[float, float]:
    """In the core, medians of ``repeat``: positions/s of move generation over ``positions``
    (``passes`` times), and rounds/s of ``rounds`` random 2-player rounds."""
    from casino_coach import core

    native = core.NATIVE
    assert native is not None, "the native core is not built"
    rules = core.native_rules(RuleSet.from_preset(preset))
    movegen_s, rounds_s = [], []
    for r in range(repeat):
        t = time.process_time()
        native.count_legal_moves(rules, positions, 0)
        reading = time.process_time() - t
        t = time.process_time()
        native.count_legal_moves(rules, positions, passes)
        movegen_s.append(passes * len(positions) / max(time.process_time() - t - reading, 1e-9))
        t = time.process_time()
        native.random_rounds(rules, 2, 2, rounds, 100 + r)
        rounds_s.append(rounds / (time.process_time() - t))
    return statistics.median(movegen_s), statistics.median(rounds_s)


def main() -> None:
    ap = argparse.ArgumentParser(description="Benchmark the rules engine.")
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--native-rounds", type=int, default=100_000, help="rounds per run on the native core")
    ap.add_argument("--passes", type=int, default=50, help="passes over the positions on the native core")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compare", action="store_true", help="native, mypyc and Python, interleaved")
    ap.add_argument("--figures", action="store_true", help=argparse.SUPPRESS)  # a --compare child
    args = ap.parse_args()
    if args.compare:
        argv = ["--rounds", str(args.rounds), "--native-rounds", str(args.native_rounds)]
        argv += ["--passes", str(args.passes), "--repeat", "1"]
        compare_builds.compare(__file__, argv, args.repeat)
        return
    compare_builds.check_build()
    figures: dict[str, float] = {}
    for preset in ("classic", "royal", "dominican"):
        rules = RuleSet.from_preset(preset)
        positions: list[RoundState] = []
        rng = random.Random(1)
        for _ in range(200):
            random_round(rules, 2, rng, positions)
        if compare_builds.is_native():
            positions_s, rounds_s = native_figures(
                preset, positions, args.passes, args.native_rounds, args.repeat
            )
            figures[f"{preset} movegen positions/s cold"] = positions_s
            figures[f"{preset} movegen positions/s warm"] = positions_s
            figures[f"{preset} rounds/s"] = rounds_s
            if not args.figures:
                print(
                    f"{preset:9s} 2p, native core: movegen {positions_s:10,.0f} positions/s "
                    f"({len(positions)} positions from random play, {args.passes} passes); "
                    f"rounds {rounds_s:8,.0f}/s over {args.native_rounds} (CPU time)"
                )
            continue
        cold: list[float] = []
        warm: list[float] = []
        rounds: list[float] = []
        for r in range(args.repeat):
            clear_caches()
            for rates in (cold, warm):
                t = time.process_time()
                for s in positions:
                    legal_moves(rules, s)
                rates.append(len(positions) / (time.process_time() - t))
            clear_caches()
            rng = random.Random(100 + r)
            t = time.process_time()
            for _ in range(args.rounds):
                random_round(rules, 2, rng)
            rounds.append(args.rounds / (time.process_time() - t))
        figures[f"{preset} movegen positions/s cold"] = statistics.median(cold)
        figures[f"{preset} movegen positions/s warm"] = statistics.median(warm)
        figures[f"{preset} rounds/s"] = statistics.median(rounds)
        if not args.figures:
            print(
                f"{preset:9s} 2p: movegen {statistics.median(cold):8,.0f} positions/s cold, "
                f"{statistics.median(warm):8,.0f} warm ({len(positions)} positions from random play); "
                f"rounds {statistics.median(rounds):5,.0f}/s over {args.rounds} from cold "
                f"(full movegen every ply; CPU time)"
            )
    if args.figures:
        compare_builds.emit(figures)


if __name__ == "__main__":
    main()
