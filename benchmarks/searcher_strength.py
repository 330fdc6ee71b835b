"""Searcher strength on mirrored deals: the search bot against the counter and greedy bots, or against
``searcher-v1`` (the frozen baseline searcher).

Each pair plays one shuffled round twice with the seats swapped (``casino_coach.bots.arena``); the figure is
the searcher's points minus the other bot's, summed over the pair, as a mean with a 95% interval::

    python benchmarks/searcher_strength.py --pairs 300 --jobs 2 [--preset classic --preset royal]
        [--opponent counter --opponent greedy --opponent searcher-v1] [--samples 16 --min-samples 4]
        [--nodes 25000] [--leaf learned] [--reply-worlds 6 --reply-depth 3] [--players 2]
        [--first 0] [--json out.json] [--max-minutes 60]

Search options default to a lighter setting than ``Limits()`` so that hundreds of pairs fit in minutes;
pass ``--samples`` etc. to change them; ``searcher-v1`` as the opponent gets the same effort (its leaf
stays the handmade one, its replies the omniscient ones), so that only the option differs. ``--leaf``
picks the searcher's leaf estimate, ``--reply-worlds`` (and ``--reply-depth``) has the other player's
replies chosen on its own information (``Limits.reply_worlds``). Each matchup also prints the median
CPU seconds per decision (decisions with more than one legal move) of both sides.
Progress goes to stderr every 25 pairs; with ``--max-minutes`` a matchup stops early and reports the
pairs it played. Exit status 1 if an interval does not lie above zero.

``--games N`` plays whole games to the target instead (issue 18): the searcher playing for the game
(``goal=game``: in a close game, the move with the best chance to win it) against the same searcher
playing for the round's margin (``goal=round``), with the same effort, on N/2 sequences of deals,
each played twice with the seats swapped (``arena.mirrored_games``); it prints the games each won
and the game-aware searcher's share of them with a 95% interval (over the pairs), per preset, and
what that searcher did in close games: its close decisions, how many of them it searched with the
game's weights (before the last deal), and in how many exact last deals it played a move other
than the round's best::

    python benchmarks/searcher_strength.py --games 400 --jobs 2 --preset dominican [--samples 8 ...]

Exit status 1 there if an interval does not lie above 50%.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from casino_coach.bots.arena import (
    GameShare,
    PairStats,
    game_share,
    mirrored_games,
    mirrored_pair,
    pair_seed,
    pair_stats,
)
from casino_coach.bots.policies import Policy, make_policy
from casino_coach.bots.searcher import SearcherPolicy
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.formats.codec import dumps
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.search.leaf import HANDMADE, LEAF_KINDS

_JOB: dict[str, Any] = {}
T = TypeVar("T")

# The searcher's options that are not effort: searcher-v1 as the opponent gets the effort only.
NOT_EFFORT = ("leaf", "reply_worlds", "reply_depth")


class Timed:
    """A policy that records the CPU seconds of each decision with a choice (more than one legal move)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.name = policy.name
        self.seconds: list[float] = []

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
        return move


def _init(rules: dict[str, Any], opponent: str, options: dict[str, Any], nplayers: int) -> None:
    effort = {k: v for k, v in options.items() if k not in NOT_EFFORT}
    b = make_policy(opponent, **effort) if opponent.startswith("searcher") else make_policy(opponent)
    _JOB.update(rules=RuleSet.from_dict(rules), a=make_policy("searcher", **options), b=b, nplayers=nplayers)


def _pair(seed: int) -> tuple[float, list[float], list[float]]:
    # Fresh timers per pair (the policies' memory of the last decision is per seat and game, and
    # the timers only collect).
    a, b = Timed(_JOB["a"]), Timed(_JOB["b"])
    v = mirrored_pair(_JOB["rules"], _JOB["nplayers"], a, b, seed)
    return v, a.seconds, b.seconds


def _pool_pairs(
    seeds: list[int],
    jobs: int,
    init: Callable[..., None],
    initargs: tuple[Any, ...],
    work: Callable[[int], tuple[T, list[float], list[float]]],
    every: int,
    progress: Callable[[list[T], list[float], list[float]], str],
    deadline: float | None,
) -> tuple[list[T], list[float], list[float]]:
    """``work`` of every seed in ``jobs`` worker processes (set up by ``init(*initargs)``), in order:
    the results and the CPU seconds of each side's decisions, with the ``progress`` line every
    ``every`` results, stopping at ``deadline`` if given (after two results at least)."""
    results: list[T] = []
    times_a: list[float] = []
    times_b: list[float] = []
    with multiprocessing.Pool(jobs, initializer=init, initargs=initargs) as pool:
        for r, ta, tb in pool.imap(work, seeds):
            results.append(r)
            times_a += ta
            times_b += tb
            if len(results) % every == 0:
                print(progress(results, times_a, times_b), file=sys.stderr, flush=True)
            if deadline is not None and time.time() > deadline and len(results) >= 2:
                pool.terminate()
                break
    return results, times_a, times_b


def matchup(
    rules: RuleSet,
    opponent: str,
    pairs: int,
    seed: int,
    jobs: int,
    options: dict[str, Any],
    deadline: float | None,
    nplayers: int = 2,
    first: int = 0,
) -> tuple[PairStats, list[float], list[float]]:
    """Mirrored pairs ``first`` ... of the searcher against ``opponent``, stopping at ``deadline`` if
    given, with the CPU seconds of every decision with a choice of each side."""

    def progress(values: list[float], times_a: list[float], times_b: list[float]) -> str:
        s = pair_stats("searcher", opponent, rules, nplayers, "round", values)
        return (
            f"  {rules.preset} vs {opponent}: {len(values)} pairs, {s.mean:+.2f} ± {s.ci95:.2f}"
            f"  [{_times(times_a, times_b, opponent)}]"
        )

    seeds = [pair_seed(seed, i) for i in range(first, first + pairs)]
    init = (rules.to_dict(), opponent, options, nplayers)
    values, times_a, times_b = _pool_pairs(seeds, jobs, _init, init, _pair, 25, progress, deadline)
    return pair_stats("searcher", opponent, rules, nplayers, "round", values), times_a, times_b


def _init_games(rules: dict[str, Any], options: dict[str, Any], nplayers: int) -> None:
    _JOB.update(
        rules=RuleSet.from_dict(rules),
        a=make_policy("searcher", goal="game", **options),
        b=make_policy("searcher", goal="round", **options),
        nplayers=nplayers,
    )


class GameChoices(NamedTuple):
    """What the searcher playing for the game did: close decisions with a choice, those searched with
    the game's weights (before the last deal), and those of an exact last deal where it played a move
    other than the round's best (``SearcherPolicy``'s counts)."""

    decisions: int
    weighted: int
    exact: int

    @classmethod
    def of(cls, p: SearcherPolicy) -> GameChoices:
        return cls(p.game_decisions, p.searched_for_game, p.played_for_game)

    def __sub__(self, other: tuple[int, ...]) -> GameChoices:
        return GameChoices(*(x - y for x, y in zip(self, other, strict=True)))

    def text(self) -> str:
        return (
            f"goal=game: {self.decisions} close decisions, {self.weighted} searched with the game's "
            f"weights, {self.exact} exact last-deal choices other than the round's best"
        )


def _game_pair(seed: int) -> tuple[tuple[tuple[int, int], GameChoices], list[float], list[float]]:
    """The games each searcher won in one mirrored pair and what the game goal's choices were there,
    with the CPU seconds of each side's decisions."""
    a, b = Timed(_JOB["a"]), Timed(_JOB["b"])
    # Distinct names, so that the bots' generators differ between the two searchers as in a pair.
    a.name, b.name = "searcher-game", "searcher-round"
    before = GameChoices.of(_JOB["a"])
    won = mirrored_games(_JOB["rules"], _JOB["nplayers"], a, b, seed)
    return (won, GameChoices.of(_JOB["a"]) - before), a.seconds, b.seconds


def game_matchup(
    rules: RuleSet,
    games: int,
    seed: int,
    jobs: int,
    options: dict[str, Any],
    deadline: float | None,
    nplayers: int = 2,
    first: int = 0,
) -> tuple[GameShare, GameChoices, list[float], list[float]]:
    """``games`` whole games (``games // 2`` mirrored pairs from pair ``first``) of the searcher
    playing for the game against the searcher playing for the round, stopping at ``deadline`` if
    given, with what its choices for the game were and the CPU seconds of every decision with a
    choice of each."""

    def progress(
        pairs: list[tuple[tuple[int, int], GameChoices]], times_a: list[float], times_b: list[float]
    ) -> str:
        g = game_share([won for won, _ in pairs])
        return (
            f"  {rules.preset}: {2 * len(pairs)} games, {g.a_won}-{g.b_won}, "
            f"{100 * g.share:.1f}% ± {100 * g.ci95:.1f}  [{_times(times_a, times_b, 'goal=round')}]"
        )

    seeds = [pair_seed(seed, i) for i in range(first, first + max(2, games // 2))]
    init = (rules.to_dict(), options, nplayers)
    pairs, times_a, times_b = _pool_pairs(seeds, jobs, _init_games, init, _game_pair, 10, progress, deadline)
    choices = GameChoices(*(sum(counts) for counts in zip(*(c for _, c in pairs), strict=True)))
    return game_share([won for won, _ in pairs]), choices, times_a, times_b


def game_text(rules: RuleSet, nplayers: int, g: GameShare) -> str:
    return (
        f"searcher goal=game vs goal=round ({rules.describe()}, {nplayers} players, {2 * g.pairs} games "
        f"to {rules.target} in {g.pairs} mirrored pairs): games won {g.a_won}-{g.b_won}, share "
        f"{100 * g.share:.1f}%, 95% interval [{100 * g.low:.1f}%, {100 * g.high:.1f}%]"
    )


def _times(times_a: list[float], times_b: list[float], opponent: str) -> str:
    """The median and mean CPU seconds per decision of each side (decisions with a choice)."""

    def one(ts: list[float]) -> str:
        if not ts:
            return "-"
        return f"median {1000 * statistics.median(ts):.1f} ms, mean {1000 * statistics.fmean(ts):.1f} ms"

    return f"searcher {one(times_a)}; {opponent} {one(times_b)}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument(
        "--games",
        type=int,
        default=None,
        help="whole games to the target (in mirrored pairs): the searcher for the game against the "
        "searcher for the round, instead of one-round pairs against --opponent",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--first", type=int, default=0, help="the first pair's number (to go on with the pairs of a run)"
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--opponent", action="append", choices=("counter", "greedy", "random", "searcher-v1"))
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--min-samples", type=int, default=4)
    ap.add_argument("--nodes", type=int, default=25_000)
    ap.add_argument("--leaf", choices=LEAF_KINDS, default=HANDMADE, help="the searcher's leaf estimate")
    ap.add_argument(
        "--reply-worlds",
        type=int,
        default=0,
        help="the searcher's Limits.reply_worlds: the other player's reply chosen on its own "
        "information over this many worlds (0: the omniscient reply)",
    )
    ap.add_argument("--reply-depth", type=int, default=None, help="the searcher's Limits.reply_depth")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--max-minutes", type=float, default=None)
    ap.add_argument("--json", type=Path, help="Also write the figures to this JSON file.")
    args = ap.parse_args()
    options: dict[str, Any] = {
        "samples": args.samples,
        "min_samples": args.min_samples,
        "nodes": args.nodes,
        "leaf": args.leaf,
    }
    if args.reply_worlds:
        options["reply_worlds"] = args.reply_worlds
    if args.reply_depth is not None:
        options["reply_depth"] = args.reply_depth
    deadline = time.time() + 60 * args.max_minutes if args.max_minutes else None
    results = []
    shown = True
    if args.games is not None:
        for preset in args.preset or ["classic", "royal", "dominican"]:
            rules = RuleSet.from_preset(preset)
            t0 = time.perf_counter()
            g, choices, ta, tb = game_matchup(
                rules, args.games, args.seed, args.jobs, options, deadline, args.players, args.first
            )
            print(
                f"{game_text(rules, args.players, g)}  [searcher {options}, {time.perf_counter() - t0:.0f}s]"
            )
            print(f"  CPU per decision: {_times(ta, tb, 'goal=round')}", flush=True)
            print(f"  {choices.text()}", flush=True)
            results.append(
                g.to_json()
                | {"game_choices": choices._asdict()}
                | {"rules": rules.to_dict(), "players": args.players, "searcher_options": options}
                | {"first": args.first}
            )
            shown = shown and g.low > 0.5
        if args.json:
            atomic_write_bytes(args.json, dumps({"seed": args.seed, "results": results}))
        return 0 if shown else 1
    for preset in args.preset or ["classic", "royal"]:
        rules = RuleSet.from_preset(preset)
        for opponent in args.opponent or ["counter", "greedy"]:
            t0 = time.perf_counter()
            stats, ta, tb = matchup(
                rules, opponent, args.pairs, args.seed, args.jobs, options, deadline, args.players, args.first
            )
            print(f"{stats.text()}  [searcher {options}, {time.perf_counter() - t0:.0f}s]", flush=True)
            print(f"  CPU per decision: {_times(ta, tb, opponent)}", flush=True)
            results.append(
                stats.to_json()
                | {
                    "searcher_options": options,
                    "first": args.first,
                    "values": list(stats.values),
                    "median_seconds": {
                        "searcher": statistics.median(ta) if ta else None,
                        opponent: statistics.median(tb) if tb else None,
                    },
                }
            )
            shown = shown and stats.low > 0
    if args.json:
        atomic_write_bytes(args.json, dumps({"seed": args.seed, "results": results}))
    return 0 if shown else 1


if __name__ == "__main__":
    sys.exit(main())
