"""Measure where the cards still out at a deal's end end up, for the search's leaf estimate.

Plays 2-player rounds of the ``counter`` bot against itself and, at the end of every deal but the last,
looks at each card not yet captured: did the next deal's leader (the side to move) end the round with
it? The probabilities are printed by the classes ``search/evaluate.py`` uses, in the form of its
constants:

* a table card only a card of its own rank can take (classic 10s and courts), with none of that rank
  still unseen (it stays for the residue) or some; any other table card, by the number of cards on the
  table (more cards, more ways to take them): ``evaluate.table_class``;
* a card not yet seen (the stock), by the number of deals still to come;

each split by whether the next deal is the last one (the residue then follows soon).

    python scripts/measure_leaf.py [--rounds 10000] [--preset classic --preset royal] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

from casino_coach.bots.arena import deal_ends
from casino_coach.bots.policies import make_policy
from casino_coach.engine.cards import FULL_DECK, iter_cards
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.search.leaf import deals_to_come, table_class

Tally = defaultdict[tuple[object, ...], list[int]]


def play_round(rules: RuleSet, rng: random.Random, dealer: int) -> tuple[list[RoundState], RoundState]:
    """One counter-vs-counter round: the states at the ends of deals 1..5, and the final state."""
    policy = make_policy("counter")
    return deal_ends(rules, [policy, policy], dealer, rng)


def tally(
    rules: RuleSet, ends: list[RoundState], final: RoundState, table_tally: Tally, hidden_tally: Tally
) -> None:
    for s in ends:
        lead = s.to_move % 2
        table = s.table
        out = FULL_DECK & ~(s.captured[0] | s.captured[1] | s.set_aside)
        hidden = out & ~table
        deals_left = deals_to_come(hidden, 2)
        last = deals_left == 1
        won = final.captured[lead]
        for x in iter_cards(table):
            key = (*table_class(rules, x, table, hidden), last)
            table_tally[key][0] += 1
            table_tally[key][1] += won >> x & 1
        for x in iter_cards(hidden):
            hidden_tally[(deals_left,)][0] += 1
            hidden_tally[(deals_left,)][1] += won >> x & 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10_000)
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for preset in args.preset or ["classic", "royal"]:
        rules = RuleSet.from_preset(preset)
        rng = random.Random(args.seed)
        table_tally: Tally = defaultdict(lambda: [0, 0])
        hidden_tally: Tally = defaultdict(lambda: [0, 0])
        for r in range(args.rounds):
            ends, final = play_round(rules, rng, r % 2)
            tally(rules, ends, final, table_tally, hidden_tally)
        print(f"{preset}: {args.rounds} counter-vs-counter rounds; P(the next deal's leader takes it)")
        for name, t in (("table", table_tally), ("hidden", hidden_tally)):
            for key in sorted(t, key=str):
                n, won = t[key]
                print(f"  {name:6s} {key!s:26s} {won / n:.3f}  ({n} cards)")


if __name__ == "__main__":
    main()
