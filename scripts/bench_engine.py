"""Benchmark the rules engine: legal-move generations per second and random rounds per second.

Targets (issue 1, 2-core machine): >= 20,000 positions/s and >= 500 two-player classic rounds/s with
full move generation at every ply. Prints medians over repeated runs.

    python scripts/bench_engine.py [--rounds 400] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from casino_coach.movegen import apply, legal_moves
from casino_coach.rules import RuleSet
from casino_coach.state import RoundState, deal, new_round, shuffle_round


def random_round(rules: RuleSet, nplayers: int, rng: random.Random,
                 collect: list[RoundState] | None = None) -> int:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for preset in ("classic", "royal", "dominican"):
        rules = RuleSet.from_preset(preset)
        positions: list[RoundState] = []
        rng = random.Random(1)
        for _ in range(200):
            random_round(rules, 2, rng, positions)
        gen_rates, round_rates = [], []
        for r in range(args.repeat):
            t = time.perf_counter()
            for s in positions:
                legal_moves(rules, s)
            gen_rates.append(len(positions) / (time.perf_counter() - t))
            rng = random.Random(100 + r)
            t = time.perf_counter()
            for _ in range(args.rounds):
                random_round(rules, 2, rng)
            round_rates.append(args.rounds / (time.perf_counter() - t))
        print(f"{preset:9s} 2p: movegen {statistics.median(gen_rates):9,.0f} positions/s "
              f"({len(positions)} positions from random play, cold cache each repeat: no)  "
              f"rounds {statistics.median(round_rates):7,.0f} /s (full movegen every ply)")


if __name__ == "__main__":
    main()
