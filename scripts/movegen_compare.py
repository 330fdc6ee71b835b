"""Compare the native move generator and apply with the Python reference over many positions.

Not part of CI (tests/test_native_movegen.py is the quick version). Positions come from random
rounds, crowded rounds (builds and trails first) and made-up positions, under rule sets drawn over
every move-generation option of rules.md §2, with 2, 3 and 4 players, partnerships on and off. At
each position the sorted legal moves must be equal and so must the state after every legal move;
one position in five also compares the moves of one hand card (``legal_moves(..., cards)``).

    python scripts/movegen_compare.py [--positions 1000000] [--seed 1] [--show 5]

Prints what it compared, the mismatches (the first few in full) and the wall time; exits 1 on any
mismatch.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_native_movegen as positions  # the tests' position makers and rule sets

from casino_coach import core
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState


class Tally:
    def __init__(self, show: int) -> None:
        self.positions = 0
        self.moves = 0
        self.card_lists = 0
        self.mismatches = 0
        self.show = show
        self.by_kind: collections.Counter[str] = collections.Counter()

    def mismatch(self, what: str, rules: RuleSet, s: RoundState, detail: Any) -> None:
        self.mismatches += 1
        if self.mismatches <= self.show:
            print(f"MISMATCH ({what}) rules={rules.to_dict()} state={tuple(s)} {detail}", file=sys.stderr)


def check(tally: Tally, rules: RuleSet, native: Any, s: RoundState, rng: random.Random) -> list[Move]:
    """Compare one position; the Python's moves (to go on with)."""
    assert core.NATIVE is not None
    want = legal_moves(rules, s)
    got = core.NATIVE.successors(native, tuple(s))
    tally.positions += 1
    tally.moves += len(want)
    if [m for m, _ in got] != [tuple(m) for m in want]:
        extra = sorted(set(m for m, _ in got) - set(map(tuple, want)))
        missing = sorted(set(map(tuple, want)) - set(m for m, _ in got))
        tally.mismatch("moves", rules, s, f"native only {extra[:5]}, Python only {missing[:5]}")
        return want
    for m, (_, nxt) in zip(want, got, strict=True):
        expected = positions.state_tuple(apply(rules, s, m))
        if nxt != expected:
            tally.mismatch("apply", rules, s, f"move {tuple(m)}: native {nxt}, Python {expected}")
            break
    hand = s.hands[s.to_move]
    if hand.bit_count() > 1 and rng.random() < 0.2:
        low = hand & -hand
        tally.card_lists += 1
        if core.NATIVE.legal_moves(native, tuple(s), low) != [tuple(m) for m in legal_moves(rules, s, low)]:
            tally.mismatch("cards", rules, s, f"cards {low:#x}")
    return want


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=5, help="mismatches printed in full")
    args = ap.parse_args()
    if core.NATIVE is None:
        sys.exit("the native core is not built (pip install -e .)")
    rng = random.Random(args.seed)
    tally = Tally(args.show)
    start = time.perf_counter()
    last_report = start
    while tally.positions < args.positions:
        rules = positions.random_rules(rng)
        native = core.NATIVE.Rules(rules)
        nplayers = rng.choice([2, 3, 4])
        kind = rng.choices(["random", "crowded", "made up"], weights=[5, 3, 2])[0]
        before = tally.positions
        if kind == "made up":
            for _ in range(20):
                s = positions.random_position(rules, rng, nplayers, rng.randrange(0, 11), rng.randrange(0, 6))
                check(tally, rules, native, s, rng)
        else:
            game = positions.play_round(rules, nplayers, rng, crowd=14 if kind == "crowded" else 0)
            try:
                s = next(game)
                while True:
                    s = game.send(check(tally, rules, native, s, rng))
            except StopIteration:
                pass
        tally.by_kind[f"{kind}, {nplayers} players"] += tally.positions - before
        now = time.perf_counter()
        if now - last_report > 30:
            last_report = now
            rate = tally.positions / (now - start)
            done = f"{tally.positions:,} positions, {tally.mismatches} mismatches"
            print(f"... {done}, {rate:,.0f}/s", flush=True)
    wall = time.perf_counter() - start
    print(
        f"compared {tally.positions:,} positions: {tally.moves:,} legal moves and as many next states, "
        f"{tally.card_lists:,} one-card lists; {tally.mismatches} mismatches; "
        f"{wall:,.0f} s wall ({tally.positions / wall:,.0f} positions/s)"
    )
    for kind, n in sorted(tally.by_kind.items()):
        print(f"  {kind}: {n:,} positions")
    if tally.mismatches:
        sys.exit(1)


if __name__ == "__main__":
    main()
