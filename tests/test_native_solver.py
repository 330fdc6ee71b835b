"""The native solver (src/search/solver.rs, through search/native.py) against the reference
``solver.Solver``: the same values, lines and node counts, call for call, on random positions of every
preset, player count, horizon, leaf and category weights, with the table carried across worlds and a
node limit that stops both at the same node."""

from __future__ import annotations

import random

import pytest
from conftest import before_last_deal, near_deal_end
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.cards import parse_card
from casino_coach.engine.movegen import BUILD, apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState
from casino_coach.errors import SearchError
from casino_coach.search.expectimax import follow
from casino_coach.search.leaf import HANDMADE, LEARNED, CategoryWeights
from casino_coach.search.native import NativeSolver, WorldSolver, make_solver
from casino_coach.search.solver import INF, MoveOrder, OutOfNodes, Solver, canonical

pytestmark = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")

RULES = [
    RuleSet.from_preset("classic"),
    RuleSet.from_preset("royal"),
    RuleSet.from_preset("dominican"),
    RuleSet.from_preset("classic", sweeps=True, majority_tie="split"),
    RuleSet.from_preset("royal", partnerships=False, build_for_partner="announced"),
    RuleSet.from_preset("dominican", sweep_cancellation=False, last_capture_point=1),
]


def _weights(rng: random.Random, nsides: int) -> CategoryWeights | None:
    if nsides != 2 or rng.random() < 0.5:
        return None
    names = ("cards", "spades", "big", "little", "ace0", "ace1", "ace2", "ace3", "sweeps", "last")
    return {k: (rng.uniform(0, 3), -rng.uniform(0, 3)) for k in rng.sample(names, 6)}


def _same(ref: WorldSolver, nat: WorldSolver, s: RoundState) -> None:
    moves = sorted(legal_moves(ref_rules(ref), s), key=MoveOrder(ref_rules(ref)))
    want = ref.root_values(s, moves)
    got = nat.root_values(s, moves)
    assert got == want
    assert nat.nodes == ref.nodes
    for rv in want[:3]:
        child = canonical(apply(ref_rules(ref), s, rv.move))
        assert nat.proving_line(child, rv.value) == ref.proving_line(child, rv.value)
        assert nat.nodes == ref.nodes
        assert nat.eval.parts(child) == ref.eval.parts(child)
        assert list(nat.eval.parts(child)) == list(ref.eval.parts(child))  # the order sums are taken in
    assert nat.moves(canonical(s)) == ref.moves(canonical(s))
    # What happens along each line (the explanations' outcomes), and no node counted for it.
    rules = ref_rules(ref)
    for rv in want:
        assert follow(rules, nat, s, rv) == follow(rules, ref, s, rv)
    assert nat.nodes == ref.nodes


def ref_rules(solver: WorldSolver) -> RuleSet:
    rules: RuleSet = solver.rules  # type: ignore[attr-defined]
    return rules


@settings(max_examples=60, deadline=None)
@given(
    rules=st.sampled_from(RULES),
    nplayers=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
    left=st.integers(3, 12),
    last=st.booleans(),
    depth=st.sampled_from([None, 2, 4]),
    leaf=st.sampled_from([HANDMADE, LEARNED]),
)
def test_the_native_solver_is_the_reference(
    rules: RuleSet, nplayers: int, seed: int, left: int, last: bool, depth: int | None, leaf: str
) -> None:
    s = near_deal_end(rules, nplayers, seed, min(left, 4 * nplayers), last)
    in_hands = sum(h.bit_count() for h in s.hands)
    horizon = 0 if depth is None else max(0, in_hands - depth)
    side = s.to_move % s.nsides
    weights = _weights(random.Random(seed), s.nsides)
    ref = Solver(rules, side, s.nsides, horizon, leaf=leaf, category_weights=weights)
    nat = NativeSolver(rules, side, s.nsides, horizon, leaf=leaf, category_weights=weights)
    _same(ref, nat, s)
    # The table carries over to another world of the same decision, and back.
    other = near_deal_end(rules, nplayers, seed + 1, min(left, 4 * nplayers), last)
    if other.nsides == s.nsides and other.to_move % other.nsides == side:
        _same(ref, nat, other)
        _same(ref, nat, s)


@settings(max_examples=4, deadline=None)
@given(
    rules=st.sampled_from(RULES),
    seed=st.integers(0, 2**32),
    leaf=st.sampled_from([HANDMADE, LEARNED]),
    limit=st.integers(1, 20_000),
)
def test_on_through_the_last_deal_the_native_solver_is_the_reference(
    rules: RuleSet, seed: int, leaf: str, limit: int
) -> None:
    # next_deal: at the end of the deal before the last, the mean of the 70 last deals solved, in
    # the same order, with the same nodes; a node limit inside those deals stops both at one node.
    s = before_last_deal(rules, seed, 1)
    side = s.to_move % 2
    weights = _weights(random.Random(seed), 2)
    ref = Solver(rules, side, 2, leaf=leaf, category_weights=weights, next_deal=True)
    nat = NativeSolver(rules, side, 2, leaf=leaf, category_weights=weights, next_deal=True)
    outcomes = []
    for solver in (ref, nat):
        solver.node_limit = limit
        try:
            outcomes.append(solver.search(canonical(s), -INF, INF))
        except OutOfNodes:
            outcomes.append(None)
        outcomes.append(solver.nodes)
        solver.node_limit = 1 << 62
    assert outcomes[:2] == outcomes[2:]
    _same(ref, nat, s)


@settings(max_examples=25, deadline=None)
@given(rules=st.sampled_from(RULES[:3]), seed=st.integers(0, 2**32), limit=st.integers(1, 400))
def test_a_node_limit_stops_both_at_the_same_node(rules: RuleSet, seed: int, limit: int) -> None:
    s = near_deal_end(rules, 2, seed, 8, False)
    side = s.to_move % s.nsides
    solvers: list[WorldSolver] = [Solver(rules, side, 2), NativeSolver(rules, side, 2)]
    outcomes = []
    for solver in solvers:
        solver.node_limit = limit
        try:
            outcomes.append(("value", solver.search(canonical(s), -INF, INF), solver.nodes))
        except OutOfNodes:
            outcomes.append(("out", 0.0, solver.nodes))
        solver.node_limit = 1 << 62
        outcomes.append(("after", solver.search(canonical(s), -INF, INF), solver.nodes))
    assert outcomes[:2] == outcomes[2:]


def test_make_solver_takes_the_native_core_unless_a_python_function_values_the_end() -> None:
    rules = RULES[0]
    assert isinstance(make_solver(rules, 0, 2), NativeSolver)
    assert isinstance(make_solver(rules, 0, 2, final_value=lambda s: 0.0), Solver)


def test_a_fault_inside_the_core_is_one_line() -> None:
    assert core.NATIVE is not None
    with pytest.raises(core.NATIVE.CoreFault) as fault:
        core.NATIVE.fault_for_tests()
    assert str(fault.value) == "the native core failed: a fault made on purpose"


def test_a_table_past_the_cores_builds_is_a_search_error_not_a_crash() -> None:
    # Sixteen builds of owner 1 (no game comes near: each owner keeps a card that takes each build),
    # and seat 0 can make a seventeenth: the core holds at most MAX_BUILDS, and says so in one line.
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
    assert core.NATIVE is not None and len(builds) == core.NATIVE.MAX_BUILDS
    s = RoundState((hand0, hand1), loose, builds, (0, 0), (0, 0), 0, -1, 0, False, 1, 2)
    made = [m for m in legal_moves(rules, s) if m.action == BUILD]
    assert made
    with pytest.raises(SearchError, match=r"^the native core failed: a move that makes more than 16 builds"):
        NativeSolver(rules, 0, 2).root_values(s, made)
