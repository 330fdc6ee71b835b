"""Benchmark of batch analysis: games analysed per minute, locally and on a local Dask cluster.

Self-play games (greedy against counter bots, seeded) are written to a temporary folder, then analysed
into a fresh results store three ways: one process (``--jobs 1``, the baseline), local processes
(``--jobs 2``), and a Dask distributed cluster of 2 worker processes started here on 127.0.0.1
(``--cluster``; needs the ``cluster`` extra, skipped without it). The cluster's start-up is not timed;
connecting to it is. Each way's stored analyses are checked to be the same.

    python benchmarks/bench_batch.py                 # 8 one-round games, 8 samples per move
    python benchmarks/bench_batch.py --games 6 --rounds 0 --samples 24 --json   # games to 21
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

from casino_coach.bots.policies import make_policy
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.game import Game
from casino_coach.formats.log import log_to_json
from casino_coach.services.batch import BatchSettings, run_batch
from casino_coach.services.store import GameKey, Store


def make_games(folder: Path, count: int, rounds: int | None, preset: str, seed: int) -> int:
    """Write ``count`` self-play games; returns the number of moves in all of them."""
    rules = RuleSet.from_preset(preset)
    moves = 0
    for i in range(count):
        game = Game(rules, ["Greedy", "Counter"], seed=seed + i, max_rounds=rounds)
        bots = [make_policy("greedy"), make_policy("counter")]
        rng = random.Random(seed + i)
        while not game.over:
            seat = game.to_move
            move = bots[seat].choose(rules, game.observation(seat), game.legal(), rng)
            game.play(move)
            moves += 1
        (folder / f"game{i:03d}.json").write_bytes(log_to_json(game.to_log()))
    return moves


def run(folder: Path, store: Path, settings: BatchSettings, **how: Any) -> dict[str, Any]:
    with Store(store) as st:
        rep = run_batch([folder], st, settings, **how)
    if rep.failed:
        raise SystemExit(f"error: {rep.failed[0][0]}: {rep.failed[0][1]}")
    return {
        "games": len(rep.analysed),
        "seconds": round(rep.seconds, 2),
        "games_per_minute": round(rep.games_per_minute, 2),
    }


def same_analyses(a: Path, b: Path, settings: BatchSettings) -> bool:
    key = settings.key()
    with Store(a) as x, Store(b) as y:
        if x.done(key) != y.done(key):
            return False
        for h in x.done(key):
            da, db = x.analysis(GameKey(h, key)), y.analysis(GameKey(h, key))
            assert da is not None and db is not None
            if [m["loss"] for m in da["moves"]] != [m["loss"] for m in db["moves"]]:
                return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=8, help="how many games to analyse")
    ap.add_argument("--rounds", type=int, default=1, help="rounds per game (0: play to the target)")
    ap.add_argument("--preset", default="classic", help="classic, royal or dominican")
    ap.add_argument("--samples", type=int, default=8, help="sampled deals per move")
    ap.add_argument(
        "--world",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also value each move against the real cards",
    )
    ap.add_argument("--seed", type=int, default=1, help="seed of the self-play games")
    ap.add_argument("--workers", type=int, default=2, help="local processes and Dask workers")
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask cluster")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    settings = BatchSettings(samples=args.samples, world=args.world)
    results: dict[str, Any] = {
        "games": args.games,
        "rounds": args.rounds or None,
        "preset": args.preset,
        "samples": args.samples,
        "world": args.world,
        "cpus": os.cpu_count(),
        "load_before": round(os.getloadavg()[0], 2),
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "games"
        folder.mkdir()
        results["moves"] = make_games(folder, args.games, args.rounds or None, args.preset, args.seed)
        results["jobs_1"] = run(folder, root / "one.db", settings, jobs=1)
        results[f"jobs_{args.workers}"] = run(folder, root / "local.db", settings, jobs=args.workers)
        results["local_same_as_one"] = same_analyses(root / "one.db", root / "local.db", settings)
        if not args.no_dask:
            try:
                import distributed
            except ImportError:
                results["dask"] = "skipped: pip install 'casino-coach[cluster]'"
            else:
                with distributed.LocalCluster(
                    n_workers=args.workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                ) as cluster:
                    results[f"dask_{args.workers}_workers"] = run(
                        folder, root / "dask.db", settings, cluster=cluster.scheduler_address
                    )
                results["dask_same_as_one"] = same_analyses(root / "one.db", root / "dask.db", settings)
    if args.json:
        print(orjson.dumps(results, option=orjson.OPT_INDENT_2).decode())
    else:
        print(
            f"{args.games} games ({results['moves']} moves, {args.preset}, "
            f"{args.rounds or 'to the target'} round(s)), {args.samples} samples per move, "
            f"world {'on' if args.world else 'off'}, {os.cpu_count()} CPUs, load average "
            f"{results['load_before']} before the run"
        )
        for key, value in results.items():
            if isinstance(value, dict):
                print(
                    f"  {key:<18} {value['games']} games in {value['seconds']:>7.2f} s: "
                    f"{value['games_per_minute']:>7.2f} games per minute"
                )
            elif key.endswith("same_as_one") or key == "dask":
                print(f"  {key:<18} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
