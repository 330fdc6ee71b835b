"""Cross-check legal_moves against a naive reference written straight from rules.md §1.6-1.9.

The reference enumerates every subset of table items and checks the rules literally (partitions by
brute force), sharing nothing with movegen but the card tables. Positions come from random playouts
of each preset with 2, 3 and 4 players; tables are kept small enough for brute force.
"""

from __future__ import annotations

import random
from itertools import combinations, permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.engine.cards import RANK, cards_of
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move, apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState, deal, new_round, shuffle_round

PRESETS = {p: RuleSet.from_preset(p) for p in ("classic", "royal", "dominican")}


def splits(values: list[int], target: int) -> bool:
    """Can ``values`` be partitioned into groups each summing to ``target``?"""
    if not values:
        return True
    first, rest = values[0], values[1:]
    for k in range(len(rest) + 1):
        for group in combinations(range(len(rest)), k):
            if first + sum(rest[i] for i in group) == target:
                left = [rest[i] for i in range(len(rest)) if i not in group]
                if splits(left, target):
                    return True
    return False


def value(rules: RuleSet, c: int) -> int | None:
    """rules.md 1.2: a card's number in sums and builds (aces 1); None for classic courts."""
    r = RANK[c]
    if r >= 10 and rules.face_cards == "pair_only":
        return None
    return r + 1


def capture_values(rules: RuleSet, c: int) -> list[int]:
    if RANK[c] == 0 and rules.ace_value == "one_or_fourteen":
        return [1, 14]
    return [RANK[c] + 1]


def reference_moves(rules: RuleSet, s: RoundState) -> set[Move]:
    seat = s.to_move
    hand = cards_of(s.hands[seat])
    loose = cards_of(s.loose)
    maxv = 14 if rules.face_cards == "numeric" else 10
    dominican = rules.preset == "dominican"
    own = [b for b in s.builds if b.owner == seat]

    def partner(b: Build) -> bool:
        return b.owner != seat and b.owner % s.nsides == seat % s.nsides

    out: set[Move] = set()
    for c in hand:
        rest = [o for o in hand if o != c]

        def holds(take: int, new_value: int | None = None, rest: list[int] = rest) -> bool:
            # Must-hold (1.8.2) with one card per build value: the values still owned after the
            # move must be matched to distinct remaining cards able to capture them.
            need = sorted(
                {b.value for b in own if not b.cards & take}
                | ({new_value} if new_value is not None else set())
            )
            return any(
                all(v in capture_values(rules, card) for v, card in zip(need, pick, strict=True))
                for pick in permutations(rest, len(need))
            )

        v = value(rules, c)
        # Captures (1.6): every non-empty collection of items.
        items: list[tuple[int, Build | None]] = [(1 << x, None) for x in loose]
        items += [(b.cards, b) for b in s.builds]
        for k in range(1, len(items) + 1):
            for combo in combinations(items, k):
                take = sum(m for m, _ in combo)
                taken_builds = [b for _, b in combo if b is not None]
                lc = [x for x in loose if take >> x & 1]
                for w in capture_values(rules, c):
                    if any(b.value != w for b in taken_builds):
                        continue
                    if v is None:  # classic court: one loose court of its rank (1.6.3)
                        if taken_builds or len(lc) != 1 or RANK[lc[0]] != RANK[c]:
                            continue
                    else:
                        vals = [value(rules, x) for x in lc]
                        if any(x is None for x in vals) or not splits([x for x in vals if x], w):
                            continue
                    if dominican and any(RANK[x] + 1 == w and not take >> x & 1 for x in loose):
                        continue
                    if holds(take):
                        out.add(Move(c, CAPTURE, take, 0))
        # Builds (1.7), numerals only in classic.
        if v is not None:
            for k in range(len(loose) + 1):
                for combo in combinations(loose, k):
                    vals = [value(rules, x) for x in combo]
                    if any(x is None for x in vals):
                        continue
                    nums = [x for x in vals if x is not None]
                    smask = sum(1 << x for x in combo)
                    if combo:
                        for target in range(1, maxv + 1):
                            if splits([v, *nums], target) and holds(smask, target):
                                out.add(Move(c, BUILD, smask, target))
                    for b in s.builds:
                        if partner(b) and dominican:
                            continue
                        if splits([v, *nums], b.value) and holds(smask | b.cards, b.value):
                            out.add(Move(c, BUILD, smask | b.cards, b.value))
                        raised = b.value + v
                        if (
                            not b.multiple
                            and raised <= maxv
                            and splits(nums, raised)
                            and not (dominican and b.owner == seat)
                            and holds(smask | b.cards, raised)
                        ):
                            out.add(Move(c, BUILD, smask | b.cards, raised))
        # Trail (1.8.3, 1.9).
        if own:
            continue
        if dominican and any(RANK[x] + 1 == RANK[c] + 1 for x in loose):
            continue
        if holds(0):
            out.add(Move(c, TRAIL, 0, 0))
    return out


def positions(rules: RuleSet, nplayers: int, seed: int, max_items: int = 8) -> list[RoundState]:
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, 2 if nplayers == 4 else nplayers, 0, sh.table, sh.deals[0])
    out = []
    i = 1
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[i])
            i += 1
        if s.loose.bit_count() + len(s.builds) <= max_items:
            out.append(s)
        moves = legal_moves(rules, s)
        # Prefer builds now and then so that positions with builds are common.
        builds = [m for m in moves if m.action == BUILD]
        s = apply(rules, s, rng.choice(builds if builds and rng.random() < 0.5 else moves))
    return out


@settings(max_examples=12, deadline=None)
@given(
    preset=st.sampled_from(sorted(PRESETS)), nplayers=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32)
)
def test_legal_moves_match_reference(preset: str, nplayers: int, seed: int) -> None:
    rules = PRESETS[preset]
    for s in positions(rules, nplayers, seed):
        moves = legal_moves(rules, s)
        got = set(moves)
        want = reference_moves(rules, s)
        assert got == want, (s, sorted(got - want), sorted(want - got))
        assert moves == sorted(want), s  # each once, in order (made in order on a table without builds)
