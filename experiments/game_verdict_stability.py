"""Are the verdicts for the game stable? Logs of whole games analysed under several seeds.

Each log (default: the bundled two-player full games of the three presets) is analysed as
``casino-coach analyze --json --seed S`` at default settings, once per seed, in a process of its own
with the casino_coach on ``PYTHONPATH`` (``--code DIR``: a checkout or a compiled tree; the current
one by default, and with ``--compare DIR`` the code in DIR too, so that old and new are measured in
one run). Over the unforced moves that get a class for the game (a close game) it prints the share
whose class is the same under every seed, the moves that flip between best/good and mistake/blunder
(target 0), and the mean and 95th percentile of the spread of the chance given up (largest minus
smallest over the seeds, in points of percentage).

    python experiments/game_verdict_stability.py [--seeds 5] [--log replays/dominican-2p-full.json ...]
                                             [--code build/compiled] [--compare /tmp/old/build/compiled]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
LOGS = [ROOT / "replays" / f"{p}-2p-full.json" for p in ("classic", "royal", "dominican")]
GOOD = {"best", "good"}
BAD = {"mistake", "blunder"}


def analysis(code: str | None, log: Path, seed: int) -> dict[int, dict[str, Any]]:
    """The moves of ``casino-coach analyze --json --seed SEED LOG`` by ply, with the casino_coach of
    ``code`` (the current one when None)."""
    env = dict(os.environ, PYTHONSAFEPATH="1")
    if code is not None:
        env["PYTHONPATH"] = code
    run = "import sys; import casino_coach.cli as c; sys.argv = ['casino-coach', *sys.argv[1:]]; c.main()"
    out = subprocess.run(
        [sys.executable, "-c", run, "analyze", str(log), "--json", "--seed", str(seed)],
        env=env,
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    return {m["ply"]: m for m in orjson.loads(out.stdout)["moves"]}


def figures(runs: list[dict[int, dict[str, Any]]]) -> str:
    plies = [p for p, m in runs[0].items() if m.get("game_class") and not m.get("forced")]
    if not plies:
        return "no move classed for the game"
    same = flips = 0
    spreads = []
    for p in plies:
        classes = {(r[p].get("game_class") or {}).get("class") for r in runs}
        lost = [(r[p].get("game_class") or {}).get("lost") or 0.0 for r in runs]
        same += len(classes) == 1
        flips += bool(classes & GOOD and classes & BAD)
        spreads.append(100 * (max(lost) - min(lost)))
    spreads.sort()
    p95 = spreads[min(len(spreads) - 1, int(0.95 * len(spreads)))]
    return (
        f"{len(plies)} moves classed for the game, the same class under every seed {same} "
        f"({100 * same / len(plies):.1f}%), flips best/good <-> mistake/blunder {flips}, spread of the "
        f"chance given up: mean {statistics.mean(spreads):.2f}, 95th percentile {p95:.2f} points"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--log", type=Path, action="append", help="a log to analyse (repeatable)")
    ap.add_argument("--code", help="the casino_coach to measure (a directory put on PYTHONPATH)")
    ap.add_argument("--compare", help="another casino_coach to measure in the same run")
    args = ap.parse_args()
    codes = {"this code": args.code} | ({"compared": args.compare} if args.compare else {})
    for log in args.log or LOGS:
        # Interleaved seed by seed, so that both codes see the same machine.
        runs: dict[str, list[dict[int, dict[str, Any]]]] = {name: [] for name in codes}
        for seed in range(args.seeds):
            for name, code in codes.items():
                runs[name].append(analysis(code, log, seed))
        for name in codes:
            print(f"{log.name} ({name}, {args.seeds} seeds): {figures(runs[name])}", flush=True)


if __name__ == "__main__":
    main()
