"""How far does the leaf at the end of a deal move a loss? 2-player decisions near the end of a deal
that is not the round's last, searched to the deal's end as the analysis searches them, and again
one deal deeper: at the end of the deal the next one is dealt from the stock and solved to its own
end (its leaf, or the round's end), the mean over ``--splits`` deals of the stock (over all 70 where
the next deal is the round's last: that search is then exact, since with two players the last deal
hides nothing).

The decisions are those of seeded self-play rounds (the ``counter`` and ``greedy`` bots, 2 players,
each preset) with at most ``--cards`` cards left in the hands. Each is valued in the same worlds
(the other seat's hand; every one of them, or ``--worlds`` drawn) both ways, so the difference
between the two losses of a move is the leaf's doing, not the sampling's. It prints the distribution
of that difference over the moves that are not best, and how often the two searches class a move
alike (``Thresholds``), by deals still to come.

``--leaf learned`` values the deal's end (and the next deal's, in the deeper search) with the learned
leaf instead of the handmade one (``Limits.leaf``). A decision whose next deal is the round's last
is searched to the end of the round the deeper way, with no leaf at all.

    python experiments/leaf_error.py [--rounds 6] [--cards 3] [--worlds 12] [--splits 12] [--seed 1]
                                     [--leaf handmade|learned]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from casino_coach.bots.arena import play
from casino_coach.bots.policies import make_policy
from casino_coach.coach.classes import Thresholds
from casino_coach.engine.cards import iter_cards
from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import HAND_SIZE, RoundState, deal
from casino_coach.formats.replay import replay_log
from casino_coach.search.native import make_solver

PRESETS = ("classic", "royal", "dominican")


def _cards(mask: int) -> list[int]:
    return list(iter_cards(mask))


def splits(rng: random.Random, stock: int, nplayers: int, n: int) -> list[tuple[int, ...]]:
    """``n`` deals of 4 cards a seat from ``stock``, drawn at random; every one of them (70) where the
    stock holds the round's last deal of two players, so that the deeper search is exact there."""
    cards = _cards(stock)
    if nplayers == 2 and len(cards) == 2 * HAND_SIZE:
        every = [sum(1 << c for c in first) for first in itertools.combinations(cards, HAND_SIZE)]
        return [(first, stock & ~first) for first in every]
    out = []
    for _ in range(n):
        rng.shuffle(cards)
        out.append(
            tuple(sum(1 << c for c in cards[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(nplayers))
        )
    return out


def minimax(rules: RuleSet, state: RoundState, side: int, at_end: Callable[[RoundState], float]) -> float:
    """The 2-sided minimax value of ``state`` to the end of its deal for ``side``, ``at_end`` valuing
    the deal's end."""
    memo: dict[RoundState, float] = {}

    def go(s: RoundState) -> float:
        if not any(s.hands):
            return at_end(s)
        v = memo.get(s)
        if v is None:
            vals = [go(apply(rules, s, m)) for m in legal_moves(rules, s)]
            v = max(vals) if s.to_move % 2 == side else min(vals)
            memo[s] = v
        return v

    return go(state)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=6, help="self-play rounds per preset")
    ap.add_argument("--cards", type=int, default=3, help="at most this many cards left in the hands")
    ap.add_argument("--worlds", type=int, default=12)
    ap.add_argument("--splits", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--leaf", choices=("handmade", "learned"), default="handmade")
    args = ap.parse_args()
    th = Thresholds()
    diffs: dict[int, list[float]] = defaultdict(list)
    same: dict[int, list[bool]] = defaultdict(list)
    best_same: dict[int, list[bool]] = defaultdict(list)
    for preset, r in itertools.product(PRESETS, range(args.rounds)):
        rules = RuleSet.from_preset(preset)
        bots = ("counter", "greedy") if r % 2 == 0 else ("greedy", "counter")
        log = play(
            rules, [make_policy(b) for b in bots], 9000 + 100 * r + PRESETS.index(preset), rounds=1
        ).to_log()
        rep = replay_log(log)
        for ply in rep.plies:
            st = ply.state
            if st is None or st.stock == 0 or sum(h.bit_count() for h in st.hands) > args.cards:
                continue
            moves = legal_moves(rules, st)
            if len(moves) < 2:
                continue
            me = st.to_move
            side = me % 2
            other = 1 - me
            unseen = st.stock | st.hands[other]
            k = st.hands[other].bit_count()
            rng = random.Random(args.seed * 1_000_003 + ply.index)
            every = [sum(1 << c for c in cs) for cs in itertools.combinations(_cards(unseen), k)]
            worlds = every if len(every) <= args.worlds else rng.sample(every, args.worlds)
            solver = make_solver(rules, side, 2, leaf=args.leaf)
            shallow = [0.0] * len(moves)
            deep = [0.0] * len(moves)
            for hand in worlds:
                hands = list(st.hands)
                hands[other] = hand
                world = st._replace(hands=tuple(hands), stock=unseen & ~hand)
                dealt = splits(rng, world.stock, 2, args.splits)

                def next_deal(
                    s: RoundState, dealt: list[tuple[int, ...]] = dealt, solver: Any = solver
                ) -> float:
                    return statistics.fmean(solver.value(deal(s, h)) for h in dealt)

                for i, m in enumerate(moves):
                    child = apply(rules, world, m)
                    shallow[i] += solver.value(child) / len(worlds)
                    deep[i] += minimax(rules, child, side, next_deal) / len(worlds)
            left = world.stock.bit_count() // (2 * HAND_SIZE)
            top_s, top_d = max(shallow), max(deep)
            best_same[left].append(shallow.index(top_s) == deep.index(top_d))
            for s_v, d_v in zip(shallow, deep, strict=True):
                ls, ld = top_s - s_v, top_d - d_v
                if ls <= th.best and ld <= th.best:
                    continue
                diffs[left].append(ld - ls)
                same[left].append(th.classify(ls) == th.classify(ld))
        print(f"{preset} round {r}: {sum(len(v) for v in diffs.values())} moves so far", flush=True)
    print()
    print(
        "deals to come | decisions | moves | best move the same | same class | "
        "loss deeper - loss at the leaf: median, mean, 5th and 95th percentile, 95th of |difference|"
    )
    for left in sorted(diffs):
        d = sorted(diffs[left])
        ad = sorted(abs(x) for x in d)
        q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
        agree = sum(best_same[left]) / len(best_same[left])
        alike = sum(same[left]) / len(same[left])
        print(
            f"{left} | {len(best_same[left])} | {len(d)} | {agree:.1%} | {alike:.1%} | "
            f"{statistics.median(d):+.3f} {statistics.fmean(d):+.3f} "
            f"{q(d, 0.05):+.3f} {q(d, 0.95):+.3f} {q(ad, 0.95):.3f}"
        )
    alld = [x for v in diffs.values() for x in v]
    ad = sorted(abs(x) for x in alld)
    print(
        f"all: {len(alld)} moves, 95th percentile of |difference| {ad[int(0.95 * len(ad))]:.3f}, "
        f"same class {sum(x for v in same.values() for x in v) / len(alld):.1%}"
    )


if __name__ == "__main__":
    main()
