"""The race of a decision in the native core (src/search/race.rs, ``search/native_race.py``) against
the reference (``race.run_race`` with ``expectimax``'s worlds, ``_Ladder`` and ``_CasinoValuer``):
``evaluate`` gives the same result to the last bit either way (moves, values per world, standard
errors, lines, outcomes, worlds, weights, groups, controls, node counts, shallowness) on the
decisions of seeded rounds of every preset with 2 to 4 players, with and without evidence, for the
best move and for a verdict (a focus and class bands), at node budgets that make worlds fall back on
shallower searches, and by class or world by world."""

from __future__ import annotations

import dataclasses
import math
import pickle
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import deal, new_round, shuffle_round
from casino_coach.engine.values import immediate_gain
from casino_coach.errors import SearchError, TooBigToSearchError
from casino_coach.search import expectimax, native, native_race, race, result
from casino_coach.search.expectimax import SearchRequest, check_moves, check_table, evaluate
from casino_coach.search.inference import Evidence, next_evidence
from casino_coach.search.result import Limits, SearchResult
from casino_coach.search.worlds import holding_controls

pytestmark = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")
N: Any = core.NATIVE

PRESETS = ("classic", "royal", "dominican")
BANDS = (0.2, 0.5, 1.0)


def _decisions(
    rules: RuleSet, nplayers: int, seed: int
) -> list[tuple[Observation, tuple[Evidence, ...], list[Move]]]:
    """Every searchable decision with a choice in a seeded round (half greedy, half random play),
    with the evidence the searcher would have (two players) and the legal moves."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    nsides = 2 if nplayers == 4 and rules.partnerships else nplayers
    s = new_round(nplayers, nsides, rng.randrange(nplayers), sh.table, sh.deals[0])
    nxt = 1
    previous: dict[int, tuple[Observation, Move, tuple[Evidence, ...]]] = {}
    out = []
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[nxt])
            nxt += 1
        obs = observe(s, s.to_move)
        prev = previous.get(s.to_move)
        evidence = next_evidence(rules, *prev, obs) if prev else ()
        moves = legal_moves(rules, s)
        try:
            check_table(s.loose)
            check_moves(len(moves))
        except TooBigToSearchError:
            pass
        else:
            if len(moves) > 1:
                out.append((obs, evidence, moves))
        if rng.random() < 0.5:
            move = max(moves, key=lambda m: immediate_gain(rules, obs, m))
        else:
            move = rng.choice(moves)
        previous[s.to_move] = (obs, move, evidence)
        s = apply(rules, s, move)
    return out


def _spy_on_the_core(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What the core was asked for from now on: each decision it set up (``for_decision``) or whose
    worlds it dealt (``decision_worlds``), as it answered (None: it left the decision to the
    reference)."""
    calls: list[Any] = []
    for name in ("decision_worlds", "for_decision"):
        real = getattr(native_race, name)

        def spy(*args: Any, real: Any = real) -> Any:
            got = real(*args)
            calls.append(got)
            return got

        monkeypatch.setattr(native_race, name, spy)
    return calls


def _key(res: SearchResult) -> str:
    """Everything of a result but the time it took, to the last bit (``repr`` of a float is exact)."""
    return repr(dataclasses.replace(res, seconds=0.0))


def _both(
    monkeypatch: pytest.MonkeyPatch, rules: RuleSet, obs: Observation, limits: Limits, **ask: Any
) -> SearchResult:
    """``evaluate`` at ``limits``, asked ``ask`` (``SearchRequest``'s fields), in the core's race and
    in the reference's: the same result, or the same error of the search."""
    calls = _spy_on_the_core(monkeypatch)
    request = SearchRequest(**ask)
    try:
        got = evaluate(rules, obs, limits, request)
    except SearchError as e:
        got_error: SearchError | None = e
    else:
        got_error = None
    assert calls, "the core's race was not asked for"
    monkeypatch.setattr(native_race, "in_core", lambda: False)
    try:
        want = evaluate(rules, obs, limits, request)
    except SearchError as e:
        assert got_error is not None and type(got_error) is type(e) and str(got_error) == str(e)
        return None  # type: ignore[return-value]
    finally:
        monkeypatch.undo()
    assert got_error is None, got_error
    assert _key(got) == _key(want)
    return got


LIMITS = st.builds(
    Limits,
    samples=st.sampled_from([4, 12, 40]),
    min_samples=st.sampled_from([2, 8, 16]),
    exact_worlds=st.sampled_from([0, 40]),
    depth=st.sampled_from([None, 2, 3]),
    nodes=st.sampled_from([None, 300, 3000, 100_000]),
    classes=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    shuffled=st.booleans(),
)


@settings(max_examples=40, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    nplayers=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32 - 1),
    limits=LIMITS,
    pick=st.integers(0, 2**16),
    verdict=st.booleans(),
)
def test_the_cores_race_is_the_references(
    preset: str, nplayers: int, seed: int, limits: Limits, pick: int, verdict: bool
) -> None:
    rules = RuleSet.from_preset(preset)
    found = _decisions(rules, nplayers, seed)
    if not found:
        return
    obs, evidence, moves = found[pick % len(found)]
    kw: dict[str, Any] = {"limits": limits, "evidence": evidence}
    if verdict:
        kw |= {"focus": moves[pick % len(moves)], "bands": BANDS, "detail": True}
    with pytest.MonkeyPatch.context() as mp:
        _both(mp, rules, obs, **kw)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("nplayers", [2, 3, 4])
def test_every_decision_of_a_round_at_the_searchers_and_the_analysis_settings(
    preset: str, nplayers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = RuleSet.from_preset(preset)
    searcher = Limits(samples=4, min_samples=2, nodes=3000)
    analysis = Limits(samples=80, min_samples=16, separation=2.0, depth=3)
    for k, (obs, evidence, moves) in enumerate(_decisions(rules, nplayers, 7 + nplayers)):
        seeded = dataclasses.replace(searcher, seed=k)
        _both(monkeypatch, rules, obs, limits=seeded, evidence=evidence)
        if k % 3 == 0:
            focus = moves[k % len(moves)]
            _both(
                monkeypatch,
                rules,
                obs,
                limits=analysis,
                evidence=evidence,
                focus=focus,
                bands=BANDS,
                detail=True,
            )


def test_the_searchers_decisions_run_in_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """The common configurations take the core's race (else this file would test nothing), and the
    ones it does not port (a time limit, the recorded tree, the replies) take the reference's."""
    rules = RuleSet.from_preset("classic")
    obs, evidence, _ = _decisions(rules, 2, 3)[4]
    made = _spy_on_the_core(monkeypatch)
    evaluate(
        rules, obs, Limits(samples=4, min_samples=2, nodes=3000), SearchRequest(evidence=tuple(evidence))
    )
    evaluate(rules, obs, Limits(samples=4, min_samples=2, nodes=3000, exact_worlds=0))
    assert len(made) == 2 and all(m is not None for m in made)
    evaluate(rules, obs, Limits(samples=4, time=5.0))
    evaluate(rules, obs, Limits(samples=4), SearchRequest(record=True))
    evaluate(rules, obs, Limits(samples=4, reply_worlds=2))
    assert len(made) == 2


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("nplayers", [2, 3, 4])
def test_best_move_is_the_first_move_of_the_result(
    preset: str, nplayers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``best_move`` (the core setting the decision up, racing it and ordering the moves in one call,
    without making a result) plays the move that ``evaluate`` lists first, or the first of those
    allowed, in the core and in the reference; the core's values and standard errors are the
    result's to the last bit. At the searcher's settings, and where the worlds' control variates may
    apply (a result is made then)."""
    rules = RuleSet.from_preset(preset)
    ranked: list[Any] = []
    real = native_race.rank_decision
    monkeypatch.setattr(
        native_race, "rank_decision", lambda *a, **k: ranked.append(real(*a, **k)) or ranked[-1]
    )
    for k, (obs, evidence, _) in enumerate(_decisions(rules, nplayers, 11 + nplayers)):
        if k % 4 == 2:  # the searcher's settings, its worlds without replacement where they are few
            limits = Limits(samples=40, min_samples=2, nodes=3000, seed=k, shuffled=True)
            ask = SearchRequest()
        elif k % 4:
            limits, ask = (
                Limits(samples=4, min_samples=2, nodes=3000, seed=k),
                SearchRequest(evidence=evidence),
            )
        else:  # sampled worlds without evidence, enough for control variates
            limits, ask = Limits(samples=60, min_samples=60, exact_worlds=0, depth=2, seed=k), SearchRequest()
        try:
            result = evaluate(rules, obs, limits, ask)
        except SearchError as e:
            with pytest.raises(SearchError, match=re.escape(str(e))):
                expectimax.best_move(rules, obs, limits, ask)
            continue
        moves = [mv.move for mv in result.moves]
        allowed = set(moves[1:])
        with pytest.MonkeyPatch.context() as mp:
            for core_race in (True, False):
                if not core_race:
                    mp.setattr(native_race, "in_core", lambda: False)
                before = len(ranked)
                assert expectimax.best_move(rules, obs, limits, ask) == moves[0]
                if core_race and k % 4 and not expectimax._per_partner(rules, obs):
                    assert len(ranked) > before and ranked[-1] is not None, "not ranked in the core"
                    listed, (values_se, _, order) = ranked[-1]
                    assert [listed[i] for i in order] == [mv.move for mv in result.moves]
                    for mv in result.moves:
                        assert repr(values_se[listed.index(mv.move)]) == repr((mv.ev, mv.stderr))
                if allowed:
                    assert expectimax.best_move(rules, obs, limits, ask, allowed) == moves[1]
                else:
                    with pytest.raises(SearchError, match="none of the legal moves"):
                        expectimax.best_move(rules, obs, limits, ask, allowed)
    assert any(r is not None for r in ranked), "the core did not order the moves on its own"


@pytest.mark.parametrize(
    "dealing", ["worlds", "classes", "shuffled", "class-shuffled", "passes", "class-passes", "evidence"]
)
def test_the_worlds_and_the_generator_are_the_references(dealing: str) -> None:
    """The worlds the core's race draws are those of ``expectimax._worlds`` from ``random.Random(seed)``,
    in order, and its generator ends where the reference's does."""
    rules = RuleSet.from_preset("classic")
    evidence = dealing == "evidence"
    checked = 0
    for obs, ev, _ in _decisions(rules, 2, 11)[:12]:
        if evidence and not ev:
            continue
        limits = Limits(
            classes=dealing.startswith("class"),
            exact_worlds=10**9 if dealing in ("worlds", "classes") else 0,
            samples=100_000,
            shuffled=dealing.endswith("shuffled"),
        )
        if expectimax.dealing(obs, limits, evidence) != dealing:
            continue
        weigh = expectimax.Likelihood(rules, ev) if evidence else None
        seed = 1234
        worlds = native_race.decision_worlds(rules, obs, dealing, seed, weigh)
        assert worlds is not None
        moves = expectimax.root_moves(rules, obs)
        # Worlds taken without replacement come in passes (``worlds.in_passes``): far enough for
        # several of them.
        n = min(60 if dealing.endswith("shuffled") else 6, worlds.population or 6)
        stop = race.Stopping(samples=n, min_samples=n, separation=2.0, margin=0.2, racing=False)
        got = native_race.run(
            worlds,
            rules,
            side=obs.seat % obs.nsides,
            nsides=obs.nsides,
            horizon=max(0, sum(obs.hand_sizes) - 2),
            next_deal=False,
            in_hands=sum(obs.hand_sizes),
            depths=[],
            budget=None,
            cap=None,
            leaf="handmade",
            category_weights=None,
            moves=moves,
            focus=None,
            alike=None,
            stop=stop,
            detail=False,
        )
        rng = random.Random(seed)
        stream, population = expectimax._worlds(rules, obs, dealing, rng, weigh)
        assert population == worlds.population
        assert worlds.shuffled == expectimax.shuffles(obs, limits, evidence) == dealing.endswith("shuffled")
        want = [next(stream) for _ in range(got.done)]
        stream.close()  # type: ignore[attr-defined]
        assert native_race.drawn(worlds, got.done) == want
        assert worlds.getstate()[:2] == rng.getstate()[:2]
        # The control variates' rows of those worlds, made in the core, are ``Holding.row``'s.
        holding = holding_controls(rules, obs)
        if holding is not None:
            rows = native_race.holding_rows(worlds, got.done, holding.features)
            assert rows == [holding.row(w) for w, _, _ in want]
            assert all(type(x) is float for r in rows for x in r)
            checked += 1
    assert checked > 0


def test_the_constants_are_the_references() -> None:
    assert N.RACE_CONSTANTS == (
        race.MIN_PAIRED,
        race.SETTLE,
        result.MIN_GROUPS,
        result.UNKNOWN_STDERR,
        result.RARE_WORLDS_SPREAD,
    )


@st.composite
def _raced(draw: st.DrawFn) -> tuple[list[list[float]], list[float], list[int], int | None]:
    """Per move its values in each world (NaN once it left the race), the weights, the groups (a
    few worlds to a group, so that enough groups take the groups' error) and a population or None."""
    nworlds = draw(st.integers(0, 30))
    nmoves = draw(st.integers(1, 5))
    value = st.floats(-11.0, 11.0, allow_nan=False, allow_subnormal=False)
    values = []
    for _ in range(nmoves):
        left = draw(st.integers(0, nworlds))
        values.append([draw(value) if k < left else math.nan for k in range(nworlds)])
    if draw(st.booleans()):
        values[draw(st.integers(0, nmoves - 1))] = [draw(value) for _ in range(nworlds)]
    same = draw(st.booleans())
    weights = [1.0 if same else draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5])) for _ in range(nworlds)]
    per_group = draw(st.integers(1, 3))
    groups = [k // per_group for k in range(nworlds)]
    population = draw(st.one_of(st.none(), st.integers(max(nworlds, 1), nworlds + 20)))
    return values, weights, groups, population


@settings(max_examples=300, deadline=None)
@given(raced=_raced())
def test_the_cores_results_are_the_references(
    raced: tuple[list[list[float]], list[float], list[int], int | None],
) -> None:
    """``Race.results`` without control variates, to the last bit: moves complete and not, weights
    of 0, groups enough and too few, enumerations whole and not."""
    values, weights, groups, population = raced
    ref = race.Race(list(range(len(values))))
    ref.load([list(v) for v in values], list(weights), list(groups))
    want = ref.results(population)
    got = N.race_results(values, weights, groups, population)
    assert [(a.hex(), b.hex()) for a, b in got] == [(a.hex(), b.hex()) for a, b in want]


@settings(max_examples=300, deadline=None)
@given(raced=_raced(), grouped=st.booleans())
def test_the_cores_paired_stats_are_the_references(
    raced: tuple[list[list[float]], list[float], list[int], int | None], grouped: bool
) -> None:
    """``paired_stats`` without control variates (``SearchResult.stats`` takes the core's), to the
    last bit, for each move's values and each pair's differences."""
    values, weights, groups, population = raced
    series = [*values, *([a - b for a, b in zip(va, vb, strict=True)] for va in values for vb in values)]
    for diffs in series:
        args = (diffs, weights, population, groups if grouped else None)
        want = result.paired_stats(*args)
        got = N.paired_stats(*args)
        assert (got[0].hex(), got[1].hex(), got[2]) == (want[0].hex(), want[1].hex(), want[2])


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("nplayers", [2, 3, 4])
def test_the_root_moves_are_the_references_in_its_order(
    preset: str, nplayers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``root_moves`` sorted by the move order in the core: the reference's list, in its order."""
    rules = RuleSet.from_preset(preset)
    views = [obs for seed in range(3) for obs, _, _ in _decisions(rules, nplayers, seed)]
    got = [expectimax.root_moves(rules, obs) for obs in views]
    monkeypatch.setattr(native, "NATIVE", None)
    want = [expectimax.root_moves(rules, obs) for obs in views]
    assert got == want and len(views) > 20
    assert any(len(ms) > 8 for ms in want)


def test_the_outcomes_kept_in_the_core_are_the_tuple_of_them_once_read() -> None:
    """A race's outcomes stay in the core until a move's are read (``LazyOutcomes``): then they are
    the reference's tuple of ``Outcome``s (equal to it, shown as it, pickled as it), made once."""
    rules = RuleSet.from_preset("royal")
    obs, evidence, _ = _decisions(rules, 2, 5)[2]
    limits = Limits(samples=12, min_samples=4, depth=3, seed=1)
    request = SearchRequest(evidence=evidence, detail=True)
    got = evaluate(rules, obs, limits, request)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(native_race, "in_core", lambda: False)
        want = evaluate(rules, obs, limits, request)
    for mine, ref in zip(got.moves, want.moves, strict=True):
        lazy = mine.outcomes
        assert isinstance(lazy, native_race.LazyOutcomes) and type(ref.outcomes) is tuple
        assert len(lazy) == len(ref.outcomes) == got.samples and lazy._made is None
        assert lazy == ref.outcomes and ref.outcomes == lazy and lazy != ref.outcomes[:-1]
        assert lazy[0] == ref.outcomes[0] and lazy[-2:] == ref.outcomes[-2:]
        assert list(lazy) == list(ref.outcomes) and repr(lazy) == repr(ref.outcomes)
        assert pickle.loads(pickle.dumps(lazy)) == ref.outcomes
        assert tuple(lazy) is tuple(lazy) or lazy._made is not None  # made once
        with pytest.raises(TypeError):
            hash(lazy)
    assert repr(dataclasses.replace(got, seconds=0.0)) == repr(dataclasses.replace(want, seconds=0.0))
    with pytest.raises(IndexError):
        got.moves[0].outcomes.in_core()[0].count(len(got.moves))


def test_an_outcome_read_from_the_core_is_the_dataclass_s() -> None:
    fields = ({"cards": 1.5, "big": -2.0}, 0.25, (3, 4), (1, 0), True)
    made, read = result.Outcome(*fields), native_race._outcome(fields)
    assert type(read) is result.Outcome and read == made and repr(read) == repr(made)
    assert dataclasses.asdict(read) == dataclasses.asdict(made)
    with pytest.raises(dataclasses.FrozenInstanceError):
        read.other = 1.0  # type: ignore[misc]
