"""How often playing for the game changes the searcher's move, and what the change is worth.

Whole games to 21 between the searcher playing for the game (``goal=game``) and the same searcher
playing for the round's margin, as ``searcher_strength.py --games`` plays them (mirrored pairs, the
same limits); at every close decision before the last deal that the game goal searches with the
game's weights (``chances.game_weights``) the probe also makes the round's search with the same limits
and seed, and counts where the two searches' best moves differ. For each difference it adds the
chance to win the game that the game's move leaves over the round's, by the game search's own
chances (``chances.game_edges``, paired over its worlds): summed over the games, the share of games
the game goal should gain if those chances were right (a first-order estimate: the opponent plays for
the round, the chances assume it plays for the game).

    python experiments/game_goal_gain.py --preset classic --pairs 50 [--samples 4 --min-samples 2 \
        --nodes 3000]

Run it on the compiled build for speed (``PYTHONPATH=build/compiled``).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from casino_coach.bots.arena import mirrored_games, pair_seed
from casino_coach.bots.searcher import SearcherPolicy
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.search.chances import game_edges, game_search_weights
from casino_coach.search.expectimax import SearchRequest, evaluate
from casino_coach.search.inference import Evidence


class Probe(SearcherPolicy):
    """The searcher playing for the game, counting where its move differs from the round's search."""

    def __init__(self, **options: Any) -> None:
        super().__init__("searcher-game", goal="game", **options)
        self.weighted = 0
        self.differ = 0
        self.gain = 0.0

    def _search(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        evidence: tuple[Evidence, ...],
        scores: Sequence[Points] | None = None,
    ) -> Move:
        weights = game_search_weights(rules, obs, scores)
        if weights is not None and scores is not None:
            # The seed the bot's own search draws next, without drawing it.
            state = rng.getstate()
            limits = dataclasses.replace(self.limits, seed=rng.getrandbits(32))
            rng.setstate(state)
            game = evaluate(
                rules,
                obs,
                limits,
                SearchRequest(evidence=tuple(evidence), category_weights=weights, detail=True),
            )
            played = game.moves[0].move
            best = evaluate(rules, obs, limits, SearchRequest(evidence=tuple(evidence))).moves[0].move
            self.weighted += 1
            if played != best:
                self.differ += 1
                edges = game_edges(rules, obs, scores, game, best) or []
                self.gain += next((e.gain for e in edges if e.move.move == played), 0.0)
        return super()._search(rules, obs, legal, rng, evidence, scores)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="dominican", choices=RuleSet.preset_names())
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--min-samples", type=int, default=2)
    ap.add_argument("--nodes", type=int, default=3000)
    args = ap.parse_args()
    rules = RuleSet.from_preset(args.preset)
    options = {"samples": args.samples, "min_samples": args.min_samples, "nodes": args.nodes}
    probe = Probe(**options)
    other = SearcherPolicy("searcher-round", goal="round", **options)
    won = [0, 0]
    for i in range(args.pairs):
        a, b = mirrored_games(rules, 2, probe, other, pair_seed(args.seed, i))
        won[0] += a
        won[1] += b
    games = 2 * args.pairs
    print(
        f"{args.preset}: {games} games (pairs 0-{args.pairs - 1}, seed {args.seed}), "
        f"won {won[0]} / {won[1]}; "
        f"{probe.weighted} decisions searched with the game's weights, {probe.differ} played another move "
        f"than the round's search, adding {probe.gain:.3f} games by the game search's chances: "
        f"{100 * probe.gain / games:.2f} points of share"
    )


if __name__ == "__main__":
    main()
