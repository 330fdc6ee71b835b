"""The native game chances (src/search/chances.rs) against the reference ``search/chances.py``: the
mover's chance after each world's outcome (``outcome_chances``: ``world_tallies``, each tally
scored by ``score_tally`` at the game score, or ``_undecided_points`` far from the target) to the
last bit, on random outcomes (margins at and past the snapping edges, categories missing, sweeps,
lines ending the round or not), at random game scores far from the target, within its reach, past it
and at the near-target scores, for the presets and the rule options scoring reads (ties split or
carried, the last capture's point, the near-target modes and precedence, a count-out order
reversed), on random tables and the shipped ones; and ``GameTable.at`` itself.

The last deal solved for the game (``solved_chance``) as well: ``_core.GameFinal`` against
``game_final`` on played-out rounds (majorities tied and nobody's, the residue set aside, sweeps, the
last capture), and the core's solver valued by it (``native_chances.game_solver``) against the
reference's ``Solver`` with ``game_final``: the same values to the bit, lines and node counts, on
random last deals of two and four players, the table carried from move to move; the faults and
refusals in one line."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from conftest import near_deal_end
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.cards import ACES_COUNT_OUT, SPADES_MASK, parse_card
from casino_coach.engine.movegen import BUILD, apply, legal_moves
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState
from casino_coach.errors import SearchError
from casino_coach.formats.game import Game
from casino_coach.search import native_chances, native_race
from casino_coach.search.chances import (
    ChanceMemo,
    GameTable,
    exact_deal,
    game_final,
    outcome_chances,
    shipped_tables,
    solved_chance,
    table_for,
    world_chances,
)
from casino_coach.search.expectimax import SearchRequest, evaluate
from casino_coach.search.native import NativeSolver
from casino_coach.search.result import Limits, MoveValue, Outcome
from casino_coach.search.solver import MoveOrder, Solver, canonical

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


@pytest.mark.parametrize("preset", ["classic", "dominican"])
def test_a_searchs_outcomes_are_read_where_the_core_keeps_them(preset: str) -> None:
    """The outcomes of a race run in the core stay there (``native_race.LazyOutcomes``) and the
    core reads each world's chance from them (``WorldChances.race_chances``): the chances the
    reference gives for the same outcomes made into Python's, without making them, for every move,
    at game scores near and far from the target."""
    rules = RuleSet.from_preset(preset)
    table = _table(rules, 6)
    rng = random.Random(3)
    checked = 0
    for seed in range(4):
        game = Game(rules, 2, seed=seed)
        for _ in range(rng.randrange(1, 6)):
            game.play(rng.choice(game.legal()))
        obs = game.observation()
        limits = Limits(samples=24, min_samples=8, depth=4, seed=seed)
        res = evaluate(rules, obs, limits, SearchRequest(detail=True))
        nworlds = res.samples + 2
        for mv in res.moves:
            assert isinstance(mv.outcomes, native_race.LazyOutcomes)
            near, far = (rules.target - 2.0, rules.target - 1.0), (3.0, 5.0)
            scores = (near, far)
            got = [native_chances.outcome_chances(table, obs, sc, mv.outcomes, nworlds, {}) for sc in scores]
            assert mv.outcomes._made is None  # read in the core
            made = tuple(mv.outcomes)
            for chances, sc in zip(got, scores, strict=True):
                want = outcome_chances(table, obs, sc, made, nworlds, ChanceMemo())
                assert chances is not None and _same(chances, want)
                checked += 1
    assert checked >= 16


# ---------------------------------------------------------------------------------------------------
# The last deal solved for the game: the chance at each end of the round, and the solver valued by it


def _over(rng: random.Random, nplayers: int) -> RoundState:
    """A played-out round of two sides whose cards lie anywhere: in the piles or set aside, the
    majorities now and then tied (26 cards each; six spades each, one set aside) or nobody's."""
    deck = list(range(52))
    rng.shuffle(deck)
    piles = [0, 0]
    aside = 0
    kind = rng.randrange(8)
    if kind == 0:  # most cards tied
        for i, c in enumerate(deck):
            piles[i // 26] |= 1 << c
    elif kind == 1:  # most spades tied, a spade set aside
        spades = [c for c in deck if SPADES_MASK >> c & 1]
        aside |= 1 << spades[0]
        for i, c in enumerate(spades[1:]):
            piles[i % 2] |= 1 << c
        for c in deck:
            if not SPADES_MASK >> c & 1:
                piles[rng.randrange(2)] |= 1 << c
    elif kind == 2:  # nobody took anything
        aside = (1 << 52) - 1
    else:
        share = rng.random()
        for c in deck:
            r = rng.random()
            if r < 0.05:
                aside |= 1 << c
            else:
                piles[0 if r < share else 1] |= 1 << c
    return RoundState(
        hands=(0,) * nplayers,
        loose=0,
        builds=(),
        captured=(piles[0], piles[1]),
        sweeps=(rng.choice((0, 0, 1, 2, 4)), rng.choice((0, 0, 1, 3))),
        to_move=rng.randrange(nplayers),
        last_capturer=rng.randrange(-1, 2),
        stock=0,
        more=False,
        dealer=rng.randrange(nplayers),
        nsides=2,
        set_aside=aside,
    )


@pytest.mark.parametrize("rules", RULES, ids=range(len(RULES)))
def test_the_chance_at_the_end_of_a_round_is_the_references(rules: RuleSet) -> None:
    """``_core.GameFinal`` against ``game_final``, to the bit: rounds that decide the game (1 or 0)
    and rounds read from the table, every kind of score, either side, two and four players."""
    rng = random.Random(11)
    decided = read = 0
    for seed in range(300):
        table = _table(rules, seed)
        scores = _scores(rules, rng)
        nplayers = rng.choice((2, 4))
        dealer = rng.randrange(nplayers)
        side = rng.randrange(2)
        want_final = game_final(table, scores, dealer, side)
        got_final = N.GameFinal(native_chances._native_table(table), scores, dealer, side)
        for _ in range(4):
            s = _over(rng, nplayers)
            want = want_final(s)
            assert got_final(s).hex() == want.hex(), (rules.to_dict(), scores, dealer, side, s)
            if want in (0.0, 1.0):
                decided += 1
            else:
                read += 1
    assert decided > 50 and read > 50


def _same_solves(rules: RuleSet, table: GameTable, s: RoundState, scores: tuple[float, float]) -> None:
    """The core's solver for the game and the reference's, on every root move of ``s`` and then on
    each child alone (the table carried from call to call): values to the bit, lines, node counts."""
    side = s.to_move % 2
    ref = Solver(rules, side, 2, final_value=game_final(table, scores, s.dealer, side))
    nat = native_chances.game_solver(table, scores, s.dealer, side)
    assert nat is not None
    moves = sorted(legal_moves(rules, canonical(s)), key=MoveOrder(rules))
    want = ref.root_values(s, moves)
    got = nat.root_values(s, moves)
    assert [(r.move, r.value.hex(), r.line) for r in got] == [(r.move, r.value.hex(), r.line) for r in want]
    assert nat.nodes == ref.nodes
    for m in moves[:4]:
        child = apply(rules, canonical(s), m)
        assert nat.value(child).hex() == ref.value(child).hex()
        assert nat.nodes == ref.nodes


@pytest.mark.parametrize("rules", RULES, ids=range(len(RULES)))
def test_the_last_deal_solved_for_the_game_is_the_references(rules: RuleSet) -> None:
    rng = random.Random(5)
    for seed in range(6):
        nplayers = 2 if seed % 3 else 4
        s = near_deal_end(rules, nplayers, seed, rng.randrange(3, 9), last=True)
        _same_solves(rules, _table(rules, seed), s, _scores(rules, rng))


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(range(len(RULES))),
    st.sampled_from((2, 4)),
    st.integers(0, 2**32 - 1),
    st.integers(1, 8),
)
def test_random_last_deals_solve_alike(index: int, nplayers: int, seed: int, left: int) -> None:
    rules = RULES[index]
    rng = random.Random(seed)
    s = near_deal_end(rules, nplayers, seed, left, last=True)
    _same_solves(rules, _table(rules, seed), s, _scores(rules, rng))


@pytest.mark.parametrize(
    "table", [t for t in shipped_tables() if t.nplayers == 2], ids=lambda t: t.rules.preset
)
def test_solved_chance_runs_the_core_and_gives_the_references_chances(table: GameTable) -> None:
    """``solved_chance`` on the shipped tables of two players: the core's solver, kept in the memo
    for the decision's other moves, and the reference's chance after every move."""
    rules = table.rules
    for seed in range(4):
        s = near_deal_end(rules, 2, seed, 7, last=True)
        obs = observe(s, s.to_move)
        assert exact_deal(obs)
        scores = (15 + seed, 20 - seed) if seed % 2 else (18, 18)
        side = s.to_move % 2
        ref = Solver(rules, side, 2, final_value=game_final(table, scores, s.dealer, side))
        memo = ChanceMemo()
        for m in legal_moves(rules, s):
            got = solved_chance(table, obs, scores, m, memo)
            assert got.hex() == ref.value(apply(rules, canonical(s), m)).hex()
        ((solver, _),) = memo.solvers.values()
        assert isinstance(solver, NativeSolver)


def test_the_chance_at_the_end_refuses_what_it_cannot_mirror() -> None:
    rules = RULES[0]
    nt = native_chances._native_table(_table(rules, 1))
    with pytest.raises(ValueError, match="side 2"):
        N.GameFinal(nt, (3, 4), 0, 2)
    with pytest.raises(ValueError, match="score"):
        N.GameFinal(nt, (math.nan, 4), 0, 1)
    final = N.GameFinal(nt, (3, 4), 0, 1)
    over = _over(random.Random(1), 3)
    three = over._replace(nsides=3, captured=(*over.captured, 0, 0)[:3], sweeps=(0, 0, 0))
    with pytest.raises(ValueError, match="two sides, not 3"):
        final(three)
    core_rules = core.native_rules(rules)
    with pytest.raises(ValueError, match="GameFinal"):
        N.Evaluator(core_rules, 2, 0, "handmade", final)  # side 1's chance for side 0
    with pytest.raises(ValueError, match="GameFinal"):
        N.Evaluator(core_rules, 3, 1, "handmade", final)
    assert native_chances.game_solver(GameTable(rules, 3, 3, {}, {}), (1, 2, 3), 0, 0) is None


def test_a_fault_in_the_solver_for_the_game_is_one_line() -> None:
    """A move that would make a seventeenth build (more than the core holds) stops the core's solver
    for the game with a ``SearchError`` of one line, not a crash, and a position that has one is a
    ``SearchError`` of one line too."""
    rules = RULES[0]
    hand0 = (1 << parse_card("3C")) | (1 << parse_card("5C"))
    hand1 = 1 << parse_card("9H")
    loose = 1 << parse_card("2D")
    used = hand0 | hand1 | loose
    free = [c for c in range(52) if not used >> c & 1 and c >> 2 < 10]
    builds = tuple(
        sorted(
            Build((1 << a) | (1 << b), (a >> 2) + (b >> 2) + 2, 1, False)
            for a, b in zip(free[0:32:2], free[1:32:2], strict=True)
        )
    )
    s = RoundState((hand0, hand1), loose, builds, (0, 0), (0, 0), 0, -1, 0, False, 1, 2)
    made = [m for m in legal_moves(rules, s) if m.action == BUILD]
    table = table_for(rules, 2)
    assert made and table is not None
    solver = native_chances.game_solver(table, (18, 19), 1, 0)
    assert solver is not None
    with pytest.raises(
        SearchError, match=r"^the native core failed: a move that makes more than 16 builds"
    ) as e:
        solver.root_values(s, made)
    assert "\n" not in str(e.value)
    # A position past the core's builds is refused in one line as well.
    (past,) = [c for c in (apply(rules, s, m) for m in made) if len(c.builds) == 17]
    with pytest.raises(SearchError, match=r"^17 builds on the table: the native core holds at most 16$"):
        solver.value(past)
