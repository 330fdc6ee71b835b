"""Write the curated sample logs of ``replays/``: every preset with 2, 3 and 4 players, full games and
games in progress, full-information and viewer logs, a few rule options, and two positions.

The bots play (counter and greedy, one per seat in turn), every game from a fixed seed, so running this
again writes the same bytes::

    python scripts/make_replays.py [--out replays]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

from casino_coach.bots.policies import Policy, make_policy
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.formats.game import CREATED_BY, Game
from casino_coach.formats.log import log_to_json
from casino_coach.formats.position import position_to_json
from casino_coach.formats.replay import end_position, replay_log

NAMES = ["Ana", "Ben", "Cy", "Dee"]
CREATED = f"{CREATED_BY} scripts/make_replays.py"


def run(
    rules: RuleSet,
    n: int,
    seed: int,
    stop_after: int | None = None,
    bots: tuple[str, ...] = ("counter", "greedy"),
) -> Game:
    """A bot game from ``seed``, played to the end or stopped after ``stop_after`` moves."""
    policies: list[Policy] = [make_policy(bots[s % len(bots)]) for s in range(n)]
    game = Game(
        rules, NAMES[:n], seed=seed, created_by=CREATED, event="casino_coach sample games", date="2026-11-29"
    )
    rngs = [random.Random(f"sample:{seed}:{s}") for s in range(n)]
    played = 0
    while not game.over and (stop_after is None or played < stop_after):
        seat = game.to_move
        move = policies[seat].choose(rules, game.observation(seat), game.legal(), rngs[seat])
        game.play(move)
        played += 1
    return game


# name -> (preset, options, players, seed, moves to stop after or None, viewer seat or None)
SAMPLES: dict[str, tuple[str, dict[str, Any], int, int, int | None, int | None]] = {
    "classic-2p-full": ("classic", {}, 2, 101, None, None),
    "classic-3p-full": ("classic", {}, 3, 102, None, None),
    "classic-4p-full": ("classic", {}, 4, 103, None, None),
    "royal-2p-full": ("royal", {}, 2, 201, None, None),
    "royal-3p-full": ("royal", {}, 3, 202, None, None),
    "royal-4p-full": ("royal", {}, 4, 203, None, None),
    "dominican-2p-full": ("dominican", {}, 2, 301, None, None),
    "dominican-3p-full": ("dominican", {}, 3, 302, None, None),
    "dominican-4p-full": ("dominican", {}, 4, 303, None, None),
    "classic-2p-viewer": ("classic", {}, 2, 111, None, 0),
    "royal-3p-viewer": ("royal", {}, 3, 212, None, 2),
    "dominican-4p-viewer": ("dominican", {}, 4, 313, None, 1),
    "classic-2p-progress": ("classic", {}, 2, 121, 61, None),
    "classic-3p-progress-viewer": ("classic", {}, 3, 122, 30, 1),
    "classic-4p-progress": ("classic", {}, 4, 123, 7, None),
    "royal-2p-progress-viewer": ("royal", {}, 2, 221, 100, 1),
    "royal-3p-progress": ("royal", {}, 3, 222, 13, None),
    "royal-4p-progress-viewer": ("royal", {}, 4, 223, 40, 0),
    "dominican-2p-progress": ("dominican", {}, 2, 321, 25, None),
    "dominican-3p-progress-viewer": ("dominican", {}, 3, 322, 50, 0),
    "dominican-4p-progress": ("dominican", {}, 4, 323, 90, None),
    "classic-2p-options-sweeps-split": (
        "classic",
        {"sweeps": True, "majority_tie": "split"},
        2,
        131,
        None,
        None,
    ),
    "royal-4p-individual": ("royal", {"partnerships": False}, 4, 231, None, None),
    "dominican-2p-pagat-options": (
        "dominican",
        {"near_target_20": "most_spades", "partner_build_interaction": "raise_only"},
        2,
        331,
        None,
        None,
    ),
}

# Positions: where these in-progress logs stop (the seat to move holds known cards there).
POSITIONS = {
    "royal-2p-position": "royal-2p-progress-viewer",
    "dominican-3p-position": "dominican-3p-progress-viewer",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("replays"))
    args = ap.parse_args()
    logs = {}
    for name, (preset, options, n, seed, stop, viewer) in SAMPLES.items():
        rules = RuleSet.from_preset(preset, **options)
        game = run(rules, n, seed, stop)
        log = game.to_log(viewer)
        rep = replay_log(log)  # every sample must re-play before it is written
        logs[name] = rep
        atomic_write_bytes(args.out / f"{name}.json", log_to_json(log))
        state = "won by side " + str(rep.winner) if rep.winner is not None else "in progress"
        print(f"{name}.json: {len(log.rounds)} rounds, {len(rep.plies)} moves, {state}")
    for name, source in POSITIONS.items():
        pos = end_position(logs[source])
        atomic_write_bytes(args.out / f"{name}.json", position_to_json(pos))
        print(f"{name}.json: seat {pos.to_move} to move, from {source}.json")


if __name__ == "__main__":
    main()
