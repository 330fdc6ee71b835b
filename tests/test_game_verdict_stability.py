"""scripts/game_verdict_stability.py: what it counts over the seeds' analyses (the analyses themselves
are ``casino-coach analyze --json``'s, tested elsewhere)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

_spec = importlib.util.spec_from_file_location(
    "game_verdict_stability", Path(__file__).resolve().parents[1] / "scripts" / "game_verdict_stability.py"
)
assert _spec is not None and _spec.loader is not None
stability = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(stability)


def _move(cls: str | None, lost: float = 0.0, forced: bool = False) -> dict[str, Any]:
    return {"forced": forced, "game_class": None if cls is None else {"class": cls, "lost": lost}}


def test_it_counts_the_same_classes_the_flips_and_the_spread() -> None:
    runs = [
        {1: _move("best"), 2: _move("good", 0.01), 3: _move(None), 4: _move("blunder", 0.2, forced=True)},
        {1: _move("best"), 2: _move("mistake", 0.06), 3: _move(None), 4: _move("good", 0.0, forced=True)},
    ]
    # Moves 1 and 2 count (3 has no class for the game, 4 is forced): 1 keeps its class, 2 flips
    # from good to mistake; the spreads are 0 and 5 points.
    assert stability.figures(runs) == (
        "2 moves classed for the game, the same class under every seed 1 (50.0%), flips best/good <-> "
        "mistake/blunder 1, spread of the chance given up: mean 2.50, 95th percentile 5.00 points"
    )
    assert stability.figures([{1: _move(None)}]) == "no move classed for the game"
