"""The native worlds (src/search/worlds.rs) and generator (src/engine/rng.rs) against the reference
``search/worlds.py`` and CPython's ``random.Random``: the same counts, the same worlds in the same
order with the same probabilities, the same classes and canonical worlds, the same states, the same
errors, and from a generator in the same state the same random worlds and the same state after, on
random positions of every preset, 2 to 4 players, with builds on the table (must-hold) and with
positions typed without every played card (the ``gone`` surplus)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from conftest import near_deal_end, position
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.cards import iter_cards
from casino_coach.engine.notation import parse_hand
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.errors import SearchError
from casino_coach.search import native_worlds
from casino_coach.search import worlds as ref

pytestmark = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")
N: Any = core.NATIVE

RULES = [
    RuleSet.from_preset("classic"),
    RuleSet.from_preset("royal"),
    RuleSet.from_preset("dominican"),
    RuleSet.from_preset("classic", partnerships=False),
    RuleSet.from_preset("royal", partnerships=False, build_for_partner="announced"),
    RuleSet.from_preset("dominican", partnerships=False),
]

LIMITS = (0, 1, 7, 40, 300)
MOST = 1500  # the most worlds or classes the reference lists in one example (it takes its time)


def _outcome(f: Callable[..., Any], *args: Any) -> Any:
    """What ``f(*args)`` returns, or the message of the error it raises (the reference's SearchError
    and the core's WorldsError carry the same one)."""
    try:
        return f(*args)
    except (SearchError, N.WorldsError) as e:
        return ("error", str(e))


def _observation(
    rules: RuleSet, nplayers: int, seed: int, left: int, last: bool, surplus: int
) -> Observation:
    """A seat's view late in a deal of random play, with ``surplus`` captured cards typed as unseen
    (a position typed without every played card: they go to ``gone``)."""
    s = near_deal_end(rules, nplayers, seed, left, last)
    rng = random.Random(seed)
    obs = observe(s, rng.randrange(nplayers))
    captured = [c for side in obs.captured for c in iter_cards(side)]
    moved = sum(1 << c for c in rng.sample(captured, min(surplus, len(captured))))
    return obs._replace(captured=tuple(side & ~moved for side in obs.captured), unseen=obs.unseen | moved)


def _same_deterministic(rules: RuleSet, obs: Observation) -> None:
    core_rules = core.native_rules(rules)
    want_slots = _outcome(lambda: tuple(ref.slots(obs)))
    assert _outcome(lambda: (lambda t: (t[0], tuple(t[1]), t[2], t[3]))(N.slots(obs))) == want_slots
    assert [(s, sorted(v)) for s, v in ref._must_hold(rules, obs)] == N.must_hold(obs)
    assert _outcome(lambda: N.count_worlds(obs)) == _outcome(lambda: ref.count_worlds(obs))
    for limit in LIMITS:
        assert _outcome(N.count_classes, obs, limit) == _outcome(ref.count_classes, obs, limit)
    if isinstance(want_slots, tuple) and want_slots[0] == "error":
        return
    if ref.count_worlds(obs) <= MOST:
        want = _outcome(ref.enumerate_worlds, rules, obs)
        assert _outcome(lambda: N.enumerate_worlds(core_rules, obs)) == want
    if ref.count_classes(obs, MOST) <= MOST:
        want = _outcome(lambda: ref.world_classes(rules, obs))
        got = _outcome(lambda: N.world_classes(core_rules, obs))
        assert got == want
        if isinstance(want, list):
            # the same floats to the last bit (== already says so; repr makes a failure readable)
            assert [repr(w[3]) for w in got] == [repr(w.probability) for w in want]
    canon = ref.Canon.of(obs)
    native_canon = N.Canon(obs)
    assert [tuple(g) for g in native_canon.groups] == list(canon.groups)


def _same_random(rules: RuleSet, obs: Observation, seed: int, count: int = 30) -> None:
    """The balanced passes and sample_world from generators seeded alike: the same worlds, passes and
    generator states; each world's canonical world and state alike too."""
    core_rules = core.native_rules(rules)
    py_rng = random.Random(seed)
    native = N.BalancedPasses(core_rules, obs, N.Random(seed))
    passes = ref.balanced_passes(rules, obs, py_rng)
    want = _outcome(lambda: [next(passes) for _ in range(count)])
    got = _outcome(lambda: native.take(count))
    assert got == want
    if not isinstance(want, list):
        return
    assert native.getstate() == py_rng.getstate()
    canon = ref.Canon.of(obs)
    native_canon = N.Canon(obs)
    for w, _ in want[:8]:
        assert native_canon.world(w) == canon.world(w)
        assert RoundState(*N.world_state(obs, w)) == ref.world_state(obs, w)
    # sample_world goes on from the same state in both
    rng = N.Random.from_state(py_rng.getstate())
    for _ in range(3):
        assert N.sample_world(core_rules, obs, rng) == ref.sample_world(rules, obs, py_rng)
    assert rng.getstate() == py_rng.getstate()


@settings(max_examples=150, deadline=None)
@given(
    rules=st.sampled_from(RULES),
    nplayers=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
    left=st.integers(1, 12),
    last=st.booleans(),
    surplus=st.sampled_from([0, 0, 1, 3]),
    stream_seed=st.integers(0, 2**64 - 1),
)
def test_native_worlds_are_the_reference(
    rules: RuleSet, nplayers: int, seed: int, left: int, last: bool, surplus: int, stream_seed: int
) -> None:
    obs = _observation(rules, nplayers, seed, min(left, 4 * nplayers), last, surplus)
    _same_deterministic(rules, obs)
    _same_random(rules, obs, stream_seed)


def test_builds_on_the_table_are_held_alike() -> None:
    """Random positions with builds of other seats (must-hold), until 25 are checked."""
    checked = 0
    for seed in range(2000):
        rules = RULES[seed % len(RULES)]
        nplayers = 2 + seed % 3
        obs = _observation(rules, nplayers, seed, 2 + seed % 7, seed % 2 == 0, seed % 3)
        if not ref._must_hold(rules, obs):
            continue
        _same_deterministic(rules, obs)
        _same_random(rules, obs, seed * 0x9E37_79B9_7F4A_7C15 % 2**64, 12)
        checked += 1
        if checked == 25:
            return
    pytest.fail("too few positions with builds")


def test_rare_must_hold_draws_the_owners_hand_first_alike() -> None:
    # Seat 1 holds 2 cards and owns builds of 5 and of 9 with one five and one nine among 22 free
    # cards: a pass of 11 blocks almost never holds both, so the owners' hands are drawn first
    # (``_owners_first``, with ``Random.sample``'s set branch: 2 of 22).
    classic = RULES[0]
    stock = parse_hand("2D 3D 4D 6D 7D 8D TD JD QD KD 2H 3H 4H 6H 7H 8H TH JH QH KH")
    s = position(classic, ["2C 3C", "5D 9D"], "[2S 3S =5 @1] [4S 5S =9 @1]", stock=stock)
    obs = observe(s, 0)
    _same_deterministic(classic, obs)
    _same_random(classic, obs, 2**63 + 5, 25)
    # One card short with builds of 1 and 14 (two aces) in Royal, and a whole shuffle's rejection.
    royal = RULES[1]
    s = position(
        royal, ["5C 6C", "AD AH 2C"], "[AC AS =1 @1] [2D QC =14 @1]", stock=parse_hand("3H 4H 7D 8D 9S TS")
    )
    obs = observe(s, 0)
    _same_deterministic(royal, obs)
    _same_random(royal, obs, 77, 20)


def test_impossible_positions_fail_alike() -> None:
    classic, royal = RULES[0], RULES[1]
    s = position(classic, ["2C 3C", "9H 4H"], "[6S 3H =9 @1] KD", stock=parse_hand("9D 5H 6H 7H"))
    no_nine = observe(s, 0)._replace(unseen=parse_hand("4H 5H 6H 7H 8H 8D"))
    s = position(royal, ["5S 9C", "AS 4H"], "[AC AD =1 @1] [KS AH =14 @1]")
    one_ace = observe(s, 0)
    s = position(classic, ["2C 3C", "9H 4H"], "KD", stock=parse_hand("5H 6H 7H 8H"))
    short = observe(s, 0)._replace(stock_count=8)
    known_seen = observe(s, 0)._replace(known=(parse_hand("2C 3C"), parse_hand("KD")))
    for rules, obs in ((classic, no_nine), (royal, one_ace), (classic, short), (classic, known_seen)):
        want = _outcome(ref.enumerate_worlds, rules, obs)
        assert want[0] == "error"
        _same_deterministic(rules, obs)
        _same_random(rules, obs, 3)


def test_the_search_dispatch_is_the_reference() -> None:
    """``native_worlds`` (what the search calls) gives the reference's values and errors, and falls
    back to the reference for an observation the core cannot take."""
    for seed in range(30):
        rules = RULES[seed % len(RULES)]
        obs = _observation(rules, 2 + seed % 3, seed, 1 + seed % 6, seed % 2 == 1, seed % 2)
        for limit in LIMITS:
            assert _outcome(native_worlds.count_classes, obs, limit) == _outcome(
                ref.count_classes, obs, limit
            )
        if ref.count_classes(obs, MOST) <= MOST:
            got = native_worlds.world_classes(rules, obs)
            assert got == ref.world_classes(rules, obs)
            assert all(type(w) is ref.World for w in got)
        if ref.count_worlds(obs) <= MOST:
            assert native_worlds.enumerate_worlds(rules, obs) == ref.enumerate_worlds(rules, obs)
        # the streams: the same worlds (canonical by class or not), and the generator left where the
        # reference leaves it, however far the stream was read
        canonical = seed % 2 == 0
        canon = ref.Canon.of(obs)
        py_rng, rng = random.Random(seed), random.Random(seed)
        passes = ref.balanced_passes(rules, obs, py_rng)
        stream = native_worlds.balanced_passes(rules, obs, rng, canonical)
        for _ in range(seed % 7 + 1):
            (w, p), (v, q) = next(passes), next(stream)
            assert (canon.world(w) if canonical else w, p) == (v, q) and type(v) is ref.World
        stream.close()
        assert rng.getstate() == py_rng.getstate()
    s = position(RULES[0], ["2C 3C", "9H 4H"], "KD", stock=parse_hand("5H 6H 7H 8H"))
    with pytest.raises(SearchError, match="do not add up"):
        native_worlds.count_classes(observe(s, 0)._replace(stock_count=8), 40)
    odd = observe(s, 0)._replace(stock_count=99)  # past the pack: the core refuses, the reference answers
    with pytest.raises(SearchError, match="do not add up"):
        native_worlds.count_classes(odd, 40)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.one_of(st.integers(0, 2**32), st.integers(0, 2**64 - 1), st.integers(0, 2**200)),
    ks=st.lists(st.integers(0, 140), min_size=1, max_size=12),
    n=st.integers(1, 60),
    k=st.integers(0, 60),
)
def test_the_generator_is_cpythons(seed: int, ks: list[int], n: int, k: int) -> None:
    py, nat = random.Random(seed), N.Random(seed)
    assert nat.getstate() == py.getstate()
    assert [nat.getrandbits(b) for b in ks] == [py.getrandbits(b) for b in ks]
    assert [nat.random() for _ in range(3)] == [py.random() for _ in range(3)]
    assert [nat.randbelow(m) for m in (1, 2, 3, 7, 52, 10**9)] == [
        py._randbelow(m) for m in (1, 2, 3, 7, 52, 10**9)
    ]  # type: ignore[attr-defined]
    a, b = list(range(n)), list(range(n))
    nat.shuffle(a)
    py.shuffle(b)
    assert a == b
    k = min(k, n)
    assert nat.sample(a, k) == py.sample(a, k)  # the pool branch or the set branch, by n and k
    assert nat.getstate() == py.getstate()
    # a state crosses both ways
    cont = N.Random.from_state(py.getstate())
    assert [cont.getrandbits(32) for _ in range(700)] == [py.getrandbits(32) for _ in range(700)]
    py.setstate(cont.getstate())
    assert py.random() == cont.random()
