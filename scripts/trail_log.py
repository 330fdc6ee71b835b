"""Write legal game logs with huge tables (issue 11): the decisions too big to search, or to list.

``--kind trail``: every player trails whenever a trail is legal (rules.md 1.9), else captures the loose
cards of its card's rank (the Dominican rule that forbids trailing it), else plays its first legal move,
so the table grows by a card a turn: 51 loose cards at the last move of a 2-player classic round.

``--kind sweep``: a 2-player round dealt so that the players trail every ace to 5 until 20 small cards
lie on the table, and a ten then captures all of them at once (a sweep of six sets of ten), so the
legality check of that one move meets the biggest capture a table of small cards allows.

    python scripts/trail_log.py --preset classic --players 2 [--kind trail] [--seed 1] --out big.json

``tests/test_hostile.py`` builds its logs with ``trail_log`` and ``sweep_log``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from casino_coach.engine.cards import RANK, RANK_MASK, cards_of, parse_cards
from casino_coach.engine.movegen import CAPTURE, TRAIL, Move, is_legal, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Shuffle
from casino_coach.formats.game import Game
from casino_coach.formats.log import log_to_json

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def _trailer(game: Game) -> Move:
    """A trail if one is legal, else the capture of the loose cards of the card's rank, else the first
    legal move (the table is then small: nobody builds, so only the Dominican rule stops a trail)."""
    rules, state = game.rules, game.state
    hand = cards_of(state.hands[state.to_move])
    for c in hand:
        if is_legal(rules, state, Move(c, TRAIL)):
            return Move(c, TRAIL)
    for c in hand:
        same = state.loose & RANK_MASK[RANK[c]]
        if same and is_legal(rules, state, Move(c, CAPTURE, same)):
            return Move(c, CAPTURE, same)
    return legal_moves(rules, state)[0]


def trail_log(
    preset: str = "classic", players: int = 2, seed: int = 1, options: dict[str, object] | None = None
) -> bytes:
    """One round in which every player trails whenever it may, as a casino-replay log."""
    rules = RuleSet.from_dict({"preset": preset, **(options or {})})
    game = Game(rules, NAMES[:players], seed=seed, max_rounds=1, created_by="scripts/trail_log.py")
    while not game.over:
        game.play(_trailer(game))
    return log_to_json(game.to_log())


def sweep_log(preset: str = "classic") -> bytes:
    """A 2-player round in which 20 small cards are trailed and a ten then captures them all."""
    rules = RuleSet.from_preset(preset)
    small = [parse_cards([f"{r}{s}" for s in "CDHS"]) for r in "A2345"]
    ten = parse_cards(["TC"])
    rest = [1 << c for c in range(52) if not (sum(small) | ten) >> c & 1]
    later: list[tuple[int, ...]] = []
    pack = [ten, *rest]
    for _ in range(4):
        hands = []
        for _seat in range(2):
            hands.append(sum(pack[:4]))
            del pack[:4]
        later.append(tuple(hands))
    deals = ((small[1], small[2]), (small[3], small[4]), *later)
    game = Game(
        rules,
        NAMES[:2],
        shuffles=[Shuffle(small[0], deals)],
        dealer=1,
        max_rounds=1,
        created_by="scripts/trail_log.py",
    )
    tc = ten.bit_length() - 1
    while not game.over:
        state = game.state
        if state.hands[state.to_move] >> tc & 1 and state.loose.bit_count() == 20:
            game.play(Move(tc, CAPTURE, state.loose))
        else:
            game.play(_trailer(game))
    return log_to_json(game.to_log())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=["trail", "sweep"], default="trail")
    ap.add_argument("--preset", default="classic", choices=["classic", "royal", "dominican"])
    ap.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    data = trail_log(a.preset, a.players, a.seed) if a.kind == "trail" else sweep_log(a.preset)
    Path(a.out).write_bytes(data)


if __name__ == "__main__":
    main()
