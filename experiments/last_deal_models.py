"""The last deal of a two-player round played for the game under two models of the other side: what
changes when the chances are solved with both sides playing the rest of the deal for the game
(``chances.solved_chance``, today's) instead of following the lines both play for the round's margin
(the chances of ``chances.world_tallies`` on the exact search's one world, the earlier model).

Positions: the last deals of self-play rounds of the ``counter`` bot, at a random point of the deal
(0-6 plies into it, at least two legal moves), each given a random game score of 12-20 per side. In
each, the move chosen for the game as ``choose_for_game`` chooses (the best chance when it beats the
round's best move, else that move) by either model, and where the two choices differ, what the new
choice gains over the old one:

* against an opponent who plays the rest of the deal to win the game (minimax over the chance), and
* against the round-margin bot (``goal="round"``, which plays the best move for the round: solved
  exactly; among moves equally good for the round, the mean of their chances), the opponent of
  ``searcher_strength.py --games``, while the mover plays for the game.

::

    python experiments/last_deal_models.py [--preset dominican ...] [--positions 1500] [--seed 2]
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from casino_coach.bots.policies import make_policy
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.observation import observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import RoundState
from casino_coach.formats.game import Game
from casino_coach.search import Limits, SearchRequest, evaluate
from casino_coach.search.chances import (
    GameTable,
    chances_after,
    game_final,
    solved_chance,
    table_for,
    world_tallies,
)
from casino_coach.search.solver import Solver, canonical


def last_deal_positions(rules: RuleSet, n: int, seed: int) -> list[RoundState]:
    """``n`` positions of the last deal of counter-bot rounds, each with two legal moves or more."""
    rng = random.Random(seed)
    bot = make_policy("counter")
    out: list[RoundState] = []
    game_seed = seed * 1_000_003
    while len(out) < n:
        game_seed += 1
        game = Game(rules, 2, seed=game_seed, max_rounds=1)
        stop = rng.randrange(7)
        into = -1
        while not game.state.is_over:
            s = game.state
            if s.stock == 0 and not s.needs_deal:
                into += 1
                if into == stop:
                    break
            game.play(bot.choose(rules, game.observation(), game.legal(), rng))
        if not game.state.is_over and len(legal_moves(rules, game.state)) > 1:
            out.append(game.state)
    return out


def _choose(moves: Sequence[Move], chance: dict[Move, float]) -> Move:
    """As ``choose_for_game`` on exact chances: the best chance where it beats the round's best."""
    top = max(moves, key=lambda m: chance[m])
    return top if chance[top] > chance[moves[0]] + 1e-9 else moves[0]


def against_round_bot(table: GameTable, state: RoundState, scores: tuple[Points, ...], side: int) -> float:
    """``side``'s chance to win the game from ``state`` playing for the game against an opponent who
    plays the best move for the round (the mean over moves equally good for it)."""
    rules = table.rules
    solver = Solver(rules, 1 - side, 2)
    final = game_final(table, scores, state.dealer, side)
    memo: dict[RoundState, float] = {}

    def value(s: RoundState) -> float:
        got = memo.get(s)
        if got is not None:
            return got
        if s.is_over:
            v = final(s)
        else:
            moves = legal_moves(rules, s)
            if s.to_move % 2 == side:
                v = max(value(apply(rules, s, m)) for m in moves)
            else:
                rounds = [solver.value(apply(rules, canonical(s), m)) for m in moves]
                top = max(rounds)
                best = [m for m, r in zip(moves, rounds, strict=True) if r >= top - 1e-9]
                v = sum(value(apply(rules, s, m)) for m in best) / len(best)
        memo[s] = v
        return v

    return value(state)


def measure(rules: RuleSet, table: GameTable, positions: int, seed: int) -> str:
    rng = random.Random(seed)
    replaced_old = replaced_new = differ = 0
    gain_minimax = gain_round_bot = 0.0
    for state in last_deal_positions(rules, positions, seed):
        side = state.to_move % 2
        scores = (rng.randint(12, 20), rng.randint(12, 20))
        obs = observe(state, state.to_move)
        res = evaluate(rules, obs, Limits(), SearchRequest(detail=True))
        moves = [mv.move for mv in res.moves]
        old: dict[Move, float] = {}
        for mv in res.moves:
            outcome = mv.outcomes[0]
            assert outcome is not None
            old[mv.move] = sum(
                q * chances_after(table, scores, obs.dealer, {t: 1.0})[side]
                for t, q in world_tallies(rules, obs, outcome)
            )
        new = {m: solved_chance(table, obs, scores, m) for m in moves}
        a, b = _choose(moves, old), _choose(moves, new)
        replaced_old += a != moves[0]
        replaced_new += b != moves[0]
        if a != b:
            differ += 1
            gain_minimax += new[b] - new[a]
            vs_bot = [against_round_bot(table, apply(rules, state, m), scores, side) for m in (a, b)]
            gain_round_bot += vs_bot[1] - vs_bot[0]
    per = max(differ, 1)
    return (
        f"{rules.preset}: {positions} last-deal positions; the round's best move gives way to a move for "
        f"the game in {replaced_old} (round-line chances) and {replaced_new} (solved for the game); the two "
        f"choices differ in {differ}, where the solved choice gains {gain_minimax / per:+.3f} of a game on "
        f"average against an opponent playing for the game ({gain_minimax:+.2f} in all) and "
        f"{gain_round_bot / per:+.3f} against the round-margin bot ({gain_round_bot:+.2f} in all)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--positions", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args()
    for preset in args.preset or ["dominican", "royal", "classic"]:
        rules = RuleSet.from_preset(preset)
        table = table_for(rules, 2)
        assert table is not None
        print(measure(rules, table, args.positions, args.seed), flush=True)


if __name__ == "__main__":
    main()
