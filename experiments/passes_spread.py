"""Do worlds taken in passes vary less than plainly shuffled ones? The spread of a prefix's mean.

A verdict that takes its worlds without replacement (``expectimax.shuffles``) searches them in the
order of ``worlds.in_passes``. For each decision given (a game of ``verdict_stability.py`` and a
ply), this searches every world once as a verdict does (its depth and leaf) with no node limit, and
takes the difference between the best move over every world and the move played, in each world.
Then, over ``--repeats`` random orders of the worlds, it prints the standard deviation of the mean
of the first N worlds (``--sizes``), plainly shuffled and put in passes, and how far the passes'
mean lies from the mean over every world (a bias would show there).

    python experiments/passes_spread.py --decision 5:3 --decision 9:8 --decision 12:35
        [--sizes 16,37,64,128] [--repeats 400]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verdict_stability import GAMES, game_log

from casino_coach.coach.verdict import analysis_limits, decision_limits
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.replay import replay_log
from casino_coach.search import expectimax
from casino_coach.search.expectimax import SearchRequest, decision_seed, evaluate
from casino_coach.search.worlds import in_passes


def spread(game: int, ply: int, sizes: list[int], repeats: int) -> None:
    rules = RuleSet.from_preset(GAMES[game - 1][0])
    decision = {p.index: p for p in replay_log(game_log(game - 1)).plies}[ply]
    obs = decision.observation
    assert obs is not None, "a rated move"
    # Every world once, as a verdict searches it (its depth and leaf) but with no node limit: the
    # decision enumerated world by world, in the order of its own generator.
    limits = dataclasses.replace(
        decision_limits(analysis_limits(), obs),
        nodes=None,
        nodes_four=None,
        classes=False,
        exact_worlds=10**9,
    )
    res = evaluate(rules, obs, limits, SearchRequest(focus=decision.move))
    rng = random.Random(decision_seed(rules, obs, limits))
    stream, population = expectimax._worlds(rules, obs, expectimax.dealing(obs, limits), rng, None)
    every = [w for w, _, _ in itertools.islice(stream, population)]
    values = {m.move: m.values for m in res.moves}
    # The loss against the best move over every world (the move a verdict measures it against).
    best = res.moves[0].move
    assert all(len(v) == len(every) for v in values.values()), "every move in every world"
    worlds_diffs = [b - p for b, p in zip(values[best], values[decision.move], strict=True)]
    diffs = dict(zip(every, worlds_diffs, strict=True))
    all_mean = statistics.fmean(diffs.values())
    print(
        f"game {game} ply {ply}: {len(every)} worlds, loss {all_mean:.3f} over all of them, "
        f"{statistics.pstdev(diffs.values()):.2f} per world"
    )
    rng = random.Random(1)
    for n in sizes:
        plain: list[float] = []
        passed: list[float] = []
        for _ in range(repeats):
            order = list(every)
            rng.shuffle(order)
            plain.append(statistics.fmean(diffs[w] for w in order[:n]))
            firsts = [w for w, _ in zip(in_passes(rules, obs, order), range(n), strict=False)]
            passed.append(statistics.fmean(diffs[w] for w in firsts))
        print(
            f"  first {n:>4} worlds: spread of the mean {statistics.pstdev(plain):.3f} shuffled, "
            f"{statistics.pstdev(passed):.3f} in passes "
            f"(mean off by {statistics.fmean(passed) - all_mean:+.3f})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decision", action="append", default=[], metavar="GAME:PLY", required=True)
    ap.add_argument("--sizes", default="16,37,64,128")
    ap.add_argument("--repeats", type=int, default=400)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    for item in args.decision:
        game, _, ply = item.partition(":")
        spread(int(game), int(ply), sizes, args.repeats)


if __name__ == "__main__":
    main()
