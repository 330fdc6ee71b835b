"""The native game chances (src/search/chances.rs) against the reference ``search/chances.py``: the
mover's chance after each world's outcome (``outcome_chances``: ``world_tallies``, each tally
scored by ``score_tally`` at the game score, or ``_undecided_points`` far from the target) to the
last bit, on random outcomes (margins at and past the snapping edges, categories missing, sweeps,
lines ending the round or not), at random game scores far from the target, within its reach, past it
and at the near-target scores, for the presets and the rule options scoring reads (ties split or
carried, the last capture's point, the near-target modes and precedence, a count-out order
reversed), on random tables and the shipped ones; and ``GameTable.at`` itself."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.cards import ACES_COUNT_OUT
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.game import Game
from casino_coach.search import native_chances
from casino_coach.search.chances import ChanceMemo, GameTable, outcome_chances, shipped_tables, world_chances
from casino_coach.search.result import MoveValue, Outcome

pytestmark = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")
N: Any = core.NATIVE

RULES = [
    RuleSet.from_preset("classic"),
    RuleSet.from_preset("royal"),
    RuleSet.from_preset("dominican"),
    RuleSet.from_preset("classic", sweeps=True, majority_tie="split", last_capture_point=1),
    RuleSet.from_preset("royal", majority_tie="carry_over", sweep_cancellation=True),
    RuleSet.from_preset("dominican", near_target_rules="soto", near_target_mode="cap_at_20"),
    RuleSet.from_preset("dominican", near_target_precedence="count_out", near_target_20="most_spades"),
    RuleSet.from_preset("dominican", count_out=False, majority_tie="split"),
    RuleSet.from_preset(
        "royal",
        count_out_order=["sweeps", "aces", "little_casino", "big_casino", "spades", "cards"],
        last_capture_point=1,
    ),
]
KEYS = ["cards", "spades", "big", "little", "last", *(f"ace{a}" for a in ACES_COUNT_OUT)]


def _table(rules: RuleSet, seed: int) -> GameTable:
    """A table of random chances for ``rules`` (the chances are read, never solved, here)."""
    rng = random.Random(seed)
    grid = range(rules.target + 1)
    chances = {}
    for d in range(2):
        for a in grid:
            for b in grid:
                x = rng.random()
                chances[((a, b), d)] = (x, 1.0 - x)
    return GameTable(rules, 2, 2, chances, {})


def _obs(rules: RuleSet, seat: int, sweeps: tuple[int, int], dealer: int) -> Observation:
    state = Game(rules, 2, seed=1).state
    return observe(state._replace(sweeps=sweeps, to_move=seat, dealer=dealer), seat)


def _margin(rng: random.Random) -> float:
    """A category's margin: whole points, exactly at and past the snapping edges, near 0 and anything."""
    edge = rng.choice([1.0, 2.0, 3.0])
    return rng.choice(
        [
            0.0,
            -0.0,
            1e-10,
            -1e-10,
            edge,
            -edge,
            edge * (1 - 2e-9),
            -edge * (1 - 5e-10),
            edge + 1.0,
            -edge - 2.0,
            0.5,
            -1.5,
            rng.uniform(-3, 3),
            rng.uniform(-0.3, 0.3),
        ]
    )


def _outcome(rng: random.Random) -> Outcome | None:
    if rng.random() < 0.05:
        return None
    parts = {k: _margin(rng) for k in KEYS if rng.random() < 0.85}
    if rng.random() < 0.3:
        parts["sweeps"] = rng.uniform(-2, 2)  # read by neither
    return Outcome(parts, 0.0, (0, 0), (rng.randrange(3), rng.randrange(3)), rng.random() < 0.4)


def _scores(rules: RuleSet, rng: random.Random) -> tuple[float, float]:
    t = rules.target

    def one() -> float:
        kind = rng.randrange(5)
        if kind == 0:
            return rng.randrange(4)  # far
        if kind == 1:
            return t - 1 - rng.randrange(6)  # near, and the near-target scores
        if kind == 2:
            return t + rng.randrange(3)  # at or past it (a tie past it, classic)
        if kind == 3:
            return rng.randrange(t) + 0.5  # half points of a split tie
        return rng.randrange(t + 1)

    return one(), one()


def _same(a: list[float], b: list[float]) -> bool:
    return [x.hex() for x in a] == [x.hex() for x in b]


def _check(rules: RuleSet, table: GameTable, seed: int, moves: int = 3, worlds: int = 12) -> None:
    rng = random.Random(seed)
    obs = _obs(rules, rng.randrange(2), (rng.randrange(3), rng.randrange(3)), rng.randrange(2))
    scores = _scores(rules, rng)
    ref_memo, native_memo = ChanceMemo(), ChanceMemo()
    pool = [_outcome(rng) for _ in range(worlds)]
    for _ in range(moves):
        # Moves share some worlds' outcomes (the memos) and not others; some moves list fewer.
        mixed = tuple(o if rng.random() < 0.5 else _outcome(rng) for o in pool)
        outcomes = mixed[: rng.randrange(worlds + 1)]
        nworlds = worlds if rng.random() < 0.8 else max(0, len(outcomes) - 2)
        want = outcome_chances(table, obs, scores, outcomes, nworlds, ref_memo)
        got = native_chances.outcome_chances(table, obs, scores, outcomes, nworlds, native_memo.native)
        assert got is not None
        assert _same(got, want), (rules.preset, scores, obs.seat, obs.sweeps, outcomes, got, want)


@pytest.mark.parametrize("rules", RULES, ids=range(len(RULES)))
def test_the_chances_are_the_references(rules: RuleSet) -> None:
    table = _table(rules, 7)
    for seed in range(150):
        _check(rules, table, seed)


@settings(max_examples=150)
@given(st.sampled_from(range(len(RULES))), st.integers(0, 2**32 - 1))
def test_random_outcomes_and_scores(index: int, seed: int) -> None:
    rules = RULES[index]
    _check(rules, _table(rules, seed), seed, moves=2, worlds=6)


def test_the_shipped_tables_give_the_references_chances() -> None:
    tables = [t for t in shipped_tables() if t.nsides == 2]
    assert tables
    for table in tables:
        for seed in range(40):
            _check(table.rules, table, seed)


def test_the_table_is_read_as_the_reference_reads_it() -> None:
    rules = RULES[0]
    table = _table(rules, 3)
    native = native_chances._native_table(table)
    rng = random.Random(4)
    for _ in range(500):
        scores = (rng.choice([-2, 0, 3.5, 20, 21, 22.5, 30]), rng.uniform(-3, 30))
        d = rng.randrange(4)
        assert native.at(scores, d) == table.at(scores, d % 2)


def test_world_chances_runs_the_core_and_the_last_deal_stays_solved() -> None:
    """``world_chances`` gives the core's chances; NaN past the outcomes; a table of another size
    is refused (the reference runs)."""
    rules = RULES[2]
    table = _table(rules, 5)
    rng = random.Random(9)
    obs = _obs(rules, 1, (1, 0), 0)
    outcomes = tuple(_outcome(rng) for _ in range(6))
    mv = MoveValue(None, 0.0, 0.0, (), (), outcomes)  # type: ignore[arg-type]
    got = world_chances(table, obs, (17, 18), mv, 8)
    assert _same(got, outcome_chances(table, obs, (17, 18), outcomes, 8, ChanceMemo()))
    assert math.isnan(got[7]) and math.isnan(got[6])
    with pytest.raises(ValueError, match="lists"):
        N.GameTable(core.native_rules(rules), [(0.5, 0.5)] * 3)
