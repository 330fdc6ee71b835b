"""scripts/information_ceiling.py, the oracle of issue 17: without the oracle its pairs are
searcher_strength.py's pairs exactly, with it the searcher sees the other hand and nothing more, and
its reading of the other player's plays is set for its own decisions only."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Sequence
from pathlib import Path

from casino_coach.bots.arena import mirrored_pair
from casino_coach.bots.policies import make_policy
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.search import inference
from casino_coach.search.worlds import sample_world

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "information_ceiling", ROOT / "scripts" / "information_ceiling.py"
)
assert _spec is not None and _spec.loader is not None
ceiling = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ceiling)

CLASSIC = RuleSet.from_preset("classic")
EFFORT = {"samples": 2, "min_samples": 2, "nodes": 3000}


def test_without_the_oracle_a_pair_is_the_arena_s_pair() -> None:
    ceiling._init(CLASSIC.to_dict(), EFFORT, None, False)
    a = make_policy("searcher", **EFFORT)
    b = make_policy("searcher-v1", **EFFORT)
    for seed in (3, 4):
        assert ceiling._pair(seed) == mirrored_pair(CLASSIC, 2, a, b, seed)


class Recorder:
    """Plays as the greedy bot and keeps what it was shown, and the regret scale in force."""

    name = "recorder"

    def __init__(self) -> None:
        self.greedy = make_policy("greedy")
        self.seen: list[Observation] = []
        self.scales: list[float] = []

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        self.seen.append(obs)
        self.scales.append(inference.REGRET_SCALE)
        return self.greedy.choose(rules, obs, legal, rng)


def test_the_oracle_shows_the_other_hand_and_not_the_stock() -> None:
    seer, other = Recorder(), Recorder()
    ceiling._round(CLASSIC, [seer, other], {0}, 5, "x")
    assert len(seer.seen) == 24 and len(other.seen) == 24
    for obs in seer.seen:
        assert obs.known[1].bit_count() == obs.hand_sizes[1]
        # the worlds give the other seat exactly its hand, and the stock stays to be drawn
        world = sample_world(CLASSIC, obs, random.Random(0))
        assert world.hands[1] == obs.known[1]
        assert obs.hidden_count() == obs.stock_count
    assert all(obs.known[0] == 0 for obs in other.seen)


def test_the_regret_scale_holds_for_the_scaled_policy_s_decisions_only() -> None:
    inner = Recorder()
    scaled = ceiling.Scaled(inner, 11.0)
    before = inference.REGRET_SCALE
    other = Recorder()
    ceiling._round(CLASSIC, [scaled, other], set(), 6, "x")
    assert set(inner.scales) == {11.0} and set(other.scales) == {before}
    assert before == inference.REGRET_SCALE
