"""What the other hand is worth: the searcher shown the other player's cards against ``searcher-v1``.

An oracle, for measurement only (issue 17): on mirrored pairs of one round, two players, the
``searcher`` (playing for the round's margin) is given an observation in which the other seat's
current hand is known (the stock stays unseen), against the frozen baseline ``searcher-v1`` at the
same effort. The figure is the searcher's points minus the baseline's per pair, with its 95% interval:
how much a searcher could gain over determinized search by knowing the hand it samples, the ceiling
for anything that reads it better (inference from the other's plays, information-set search)::

    python experiments/information_ceiling.py --pairs 400 --jobs 2 [--preset classic --preset royal]
        [--see hands|none] [--regret-scale 3.0] [--samples 16 --min-samples 4 --nodes 25000]

``--see none`` plays the same pairs without the oracle; it gives what ``searcher_strength.py
--opponent searcher-v1`` gives with the same effort and seed, pair for pair (the deals and the bots'
generators are made the same way). ``--regret-scale`` sets how hard the searcher (not the baseline)
reads the other player's plays (``search.inference.REGRET_SCALE`` during its own decisions; 0 reads
nothing), to measure what that reading is worth.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from casino_coach.bots.arena import pair_seed, pair_stats
from casino_coach.bots.policies import Policy, make_policy
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.formats.game import Game
from casino_coach.search import inference

_JOB: dict[str, Any] = {}


class Scaled:
    """A policy that reads the other player's plays with ``scale`` (``inference.REGRET_SCALE``) during
    its own decisions only (the module's figure is read at each use, in both builds)."""

    def __init__(self, policy: Policy, scale: float) -> None:
        self.policy = policy
        self.name = policy.name
        self.scale = scale

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        old = inference.REGRET_SCALE
        inference.REGRET_SCALE = self.scale
        try:
            return self.policy.choose(rules, obs, legal, rng, scores=scores)
        finally:
            inference.REGRET_SCALE = old


def shown_hands(obs: Observation, hands: Sequence[int]) -> Observation:
    """``obs`` with every other seat's hand known (its cards stay among the unseen, as known cards are)."""
    return obs._replace(known=tuple(obs.known[s] if s == obs.seat else h for s, h in enumerate(hands)))


def _round(
    rules: RuleSet, seats: Sequence[Policy], seeing: set[int], seed: int, bot_seed: str
) -> list[Points]:
    """One round as ``arena.play`` plays it (the same deal and generators for the same seed and
    names), seats in ``seeing`` shown the other hands: the points per side."""
    game = Game(rules, [p.name for p in seats], seed=seed, max_rounds=1)
    rngs = [random.Random(f"{bot_seed}:{seed}:{s}") for s in range(len(seats))]
    while not game.over:
        seat = game.to_move
        obs = game.observation(seat)
        if seat in seeing:
            obs = shown_hands(obs, game.state.hands)
        move = seats[seat].choose(rules, obs, game.legal(), rngs[seat], scores=list(game.scores))
        game.play(move)
    return list(game.match.rounds[0].points)


def _init(rules: dict[str, Any], effort: dict[str, Any], scale: float | None, see: bool) -> None:
    a: Policy = make_policy("searcher", goal="round", **effort)
    if scale is not None:
        a = Scaled(a, scale)
    _JOB.update(rules=RuleSet.from_dict(rules), a=a, b=make_policy("searcher-v1", **effort), see=see)


def _pair(seed: int) -> float:
    """The searcher's points minus the baseline's over one deal played twice with the seats swapped
    (as ``arena.mirrored_pair``, two players)."""
    a, b, rules = _JOB["a"], _JOB["b"], _JOB["rules"]
    total = 0.0
    for swap in (False, True):
        seat_a = 1 if swap else 0
        seats = [b, a] if swap else [a, b]
        seeing = {seat_a} if _JOB["see"] else set()
        pts = _round(rules, seats, seeing, seed, f"{a.name}-{b.name}-{swap}")
        total += pts[seat_a] - pts[1 - seat_a]
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="the first pair's number")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--see", choices=("hands", "none"), default="hands")
    ap.add_argument("--regret-scale", type=float, default=None)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--min-samples", type=int, default=4)
    ap.add_argument("--nodes", type=int, default=25_000)
    args = ap.parse_args()
    if args.pairs < 2:
        ap.error("at least 2 pairs are needed for an interval")
    effort = {"samples": args.samples, "min_samples": args.min_samples, "nodes": args.nodes}
    for preset in args.preset or ["classic", "royal"]:
        rules = RuleSet.from_preset(preset)
        seeds = [pair_seed(args.seed, i) for i in range(args.first, args.first + args.pairs)]
        t0 = time.perf_counter()
        init = (rules.to_dict(), effort, args.regret_scale, args.see == "hands")
        with multiprocessing.Pool(args.jobs, initializer=_init, initargs=init) as pool:
            values = pool.map(_pair, seeds, chunksize=8)
        stats = pair_stats("searcher", "searcher-v1", rules, 2, "round", values)
        what = "shown the other hand" if args.see == "hands" else "not shown it"
        scale = "" if args.regret_scale is None else f", regret scale {args.regret_scale:g}"
        print(f"{stats.text()}  [searcher {what}{scale}; {effort}; {time.perf_counter() - t0:.0f}s]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
