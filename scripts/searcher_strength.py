"""Searcher strength on mirrored deals: the search bot against the counter and greedy bots, or against
``searcher-v1`` (the frozen baseline searcher).

Each pair plays one shuffled round twice with the seats swapped (``casino_coach.bots.arena``); the figure is
the searcher's points minus the other bot's, summed over the pair, as a mean with a 95% interval::

    python scripts/searcher_strength.py --pairs 300 --jobs 2 [--preset classic --preset royal]
        [--opponent counter --opponent greedy --opponent searcher-v1] [--samples 16 --min-samples 4]
        [--nodes 25000] [--leaf learned] [--json out.json] [--max-minutes 60]

Search options default to a lighter setting than ``Limits()`` so that hundreds of pairs fit in minutes;
pass ``--samples`` etc. to change them; ``searcher-v1`` as the opponent gets the same effort (its leaf
stays the handmade one), so that only the leaf differs. ``--leaf`` picks the searcher's leaf estimate.
Progress goes to stderr every 25 pairs; with ``--max-minutes`` a matchup stops early and reports the
pairs it played. Exit status 1 if an interval does not lie above zero.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

from casino_coach.bots.arena import PairStats, mirrored_pair, pair_seed, summarise
from casino_coach.bots.policies import make_policy
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.codec import dumps
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.search.leaf import HANDMADE, LEAF_KINDS

_JOB: dict[str, Any] = {}


def _init(rules: dict[str, Any], opponent: str, options: dict[str, Any]) -> None:
    effort = {k: v for k, v in options.items() if k != "leaf"}
    b = make_policy(opponent, **effort) if opponent.startswith("searcher") else make_policy(opponent)
    _JOB.update(rules=RuleSet.from_dict(rules), a=make_policy("searcher", **options), b=b)


def _pair(seed: int) -> float:
    return mirrored_pair(_JOB["rules"], 2, _JOB["a"], _JOB["b"], seed)


def matchup(
    rules: RuleSet,
    opponent: str,
    pairs: int,
    seed: int,
    jobs: int,
    options: dict[str, Any],
    deadline: float | None,
) -> PairStats:
    """Mirrored pairs of the searcher against ``opponent``, stopping at ``deadline`` if given."""
    seeds = [pair_seed(seed, i) for i in range(pairs)]
    values: list[float] = []
    init = (rules.to_dict(), opponent, options)
    with multiprocessing.Pool(jobs, initializer=_init, initargs=init) as pool:
        for v in pool.imap(_pair, seeds):
            values.append(v)
            if len(values) % 25 == 0:
                s = summarise("searcher", opponent, rules, 2, "round", values)
                print(
                    f"  {rules.preset} vs {opponent}: {len(values)} pairs, {s.mean:+.2f} ± {s.ci95:.2f}",
                    file=sys.stderr,
                    flush=True,
                )
            if deadline is not None and time.time() > deadline and len(values) >= 2:
                pool.terminate()
                break
    return summarise("searcher", opponent, rules, 2, "round", values)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--opponent", action="append", choices=("counter", "greedy", "random", "searcher-v1"))
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--min-samples", type=int, default=4)
    ap.add_argument("--nodes", type=int, default=25_000)
    ap.add_argument("--leaf", choices=LEAF_KINDS, default=HANDMADE, help="the searcher's leaf estimate")
    ap.add_argument("--max-minutes", type=float, default=None)
    ap.add_argument("--json", type=Path, help="Also write the figures to this JSON file.")
    args = ap.parse_args()
    options: dict[str, Any] = {
        "samples": args.samples,
        "min_samples": args.min_samples,
        "nodes": args.nodes,
        "leaf": args.leaf,
    }
    deadline = time.time() + 60 * args.max_minutes if args.max_minutes else None
    results = []
    shown = True
    for preset in args.preset or ["classic", "royal"]:
        rules = RuleSet.from_preset(preset)
        for opponent in args.opponent or ["counter", "greedy"]:
            t0 = time.perf_counter()
            stats = matchup(rules, opponent, args.pairs, args.seed, args.jobs, options, deadline)
            print(f"{stats.text()}  [searcher {options}, {time.perf_counter() - t0:.0f}s]", flush=True)
            results.append(stats.to_json() | {"searcher_options": options})
            shown = shown and stats.low > 0
    if args.json:
        atomic_write_bytes(args.json, dumps({"seed": args.seed, "results": results}))
    return 0 if shown else 1


if __name__ == "__main__":
    sys.exit(main())
