"""Bot strength on mirrored deals: greedy against random, counter against greedy.

Each pair plays one shuffled round twice with the seats swapped (``casino_coach.bots.arena``); the figure is
the first bot's points minus the second's, summed over the pair, as a mean with a 95% interval::

    python benchmarks/bot_strength.py --pairs 500 --seed 1 --jobs 2 [--preset royal ...] [--players 2]
        [--match greedy:random --match counter:greedy] [--json results.json]

Exit status 1 if a first bot's interval does not lie above zero (it is not shown to be stronger).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from casino_coach.bots.arena import mirrored_pairs
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.codec import dumps
from casino_coach.formats.files import atomic_write_bytes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--match", action="append", help="A:B, e.g. counter:greedy (repeatable)")
    ap.add_argument("--unit", choices=("round", "game"), default="round")
    ap.add_argument("--json", type=Path, help="Also write the figures to this JSON file.")
    args = ap.parse_args()
    presets = args.preset or ["royal"]
    matches = [tuple(m.split(":", 1)) for m in (args.match or ["greedy:random", "counter:greedy"])]
    results = []
    shown = True
    for preset in presets:
        rules = RuleSet.from_preset(preset)
        for a, b in matches:
            t0 = time.perf_counter()
            stats = mirrored_pairs(
                rules, args.players, a, b, pairs=args.pairs, seed=args.seed, jobs=args.jobs, unit=args.unit
            )
            print(f"{stats.text()}  [{time.perf_counter() - t0:.0f}s]", flush=True)
            results.append(stats.to_json())
            shown = shown and stats.low > 0
    if args.json:
        atomic_write_bytes(args.json, dumps({"seed": args.seed, "results": results}))
    return 0 if shown else 1


if __name__ == "__main__":
    sys.exit(main())
