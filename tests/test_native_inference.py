"""The native inference (src/search/inference.rs) against the reference ``search/inference.py``: the
same likelihood of a world's hands to the last bit, and from a generator in the same state the same
worlds drawn in proportion to it and the same generator state after, on the views and evidence of
seeded 2-player rounds of every preset (half greedy, half random play, so that some plays pass
captures up and some do not), with builds on the table (must-hold) and at regret scales that make
the rejection run out of draws."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.observation import Observation, as_state, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, deal, new_round, shuffle_round
from casino_coach.engine.values import immediate_gain
from casino_coach.errors import SearchError
from casino_coach.search import inference
from casino_coach.search.inference import (
    Evidence,
    Likelihood,
    next_evidence,
    reference_sample_with_evidence,
    sample_with_evidence,
)

pytestmark = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")
N: Any = core.NATIVE

RULES = [RuleSet.from_preset("classic"), RuleSet.from_preset("royal"), RuleSet.from_preset("dominican")]
SCALES = (inference.REGRET_SCALE, 0.0, 0.5, 40.0)


def _with_evidence(rules: RuleSet, seed: int) -> list[tuple[Observation, tuple[Evidence, ...]]]:
    """Every decision of a seeded 2-player round at which the mover has evidence (``next_evidence``,
    as the searcher collects it), with that evidence."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, 2)
    s = new_round(2, 2, rng.randrange(2), sh.table, sh.deals[0])
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
        if evidence:
            out.append((obs, evidence))
        moves = legal_moves(rules, s)
        if rng.random() < 0.5:
            move = max(moves, key=lambda m: immediate_gain(rules, obs, m))
        else:
            move = rng.choice(moves)
        previous[s.to_move] = (obs, move, evidence)
        s = apply(rules, s, move)
    return out


def _same_draws(rules: RuleSet, obs: Observation, weigh: Likelihood | None, seed: int, count: int) -> None:
    """``count`` worlds in a row from generators seeded alike: the same worlds, the same states."""
    want_rng, got_rng = random.Random(seed), random.Random(seed)
    for _ in range(count):
        want = reference_sample_with_evidence(rules, obs, want_rng, weigh)
        got = sample_with_evidence(rules, obs, got_rng, weigh)
        assert got == want
        assert type(got) is type(want)
        assert got_rng.getstate() == want_rng.getstate()


@settings(max_examples=60, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32 - 1), draw_seed=st.integers(0, 2**64))
def test_the_core_draws_the_references_worlds_from_the_same_state(
    rules: RuleSet, seed: int, draw_seed: int
) -> None:
    positions = _with_evidence(rules, seed)
    for obs, evidence in positions[:: max(1, len(positions) // 6)]:
        weigh = Likelihood(rules, evidence)
        assert weigh.native is not None
        _same_draws(rules, obs, weigh, draw_seed, 6)
        # without evidence, sample_world's draws
        _same_draws(rules, obs, None, draw_seed, 2)


@pytest.mark.parametrize("scale", SCALES)
def test_weights_match_to_the_last_bit_at_every_scale(scale: float, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inference, "REGRET_SCALE", scale)
    rng = random.Random(7)
    checked = below_one = 0
    for rules in RULES:
        for seed in range(6):
            for obs, evidence in _with_evidence(rules, seed):
                weigh = Likelihood(rules, evidence)
                for _ in range(4):
                    hands = reference_sample_with_evidence(rules, obs, rng, None).hands
                    want = weigh(hands)
                    got = weigh.native(hands, scale)
                    assert repr(got) == repr(want)
                    checked += 1
                    below_one += want < 1.0
                _same_draws(rules, obs, weigh, seed, 3)
    assert checked > 300
    assert (below_one > 30) == (scale > 0.0)


def test_a_scale_that_rejects_every_draw_takes_the_last_of_max_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inference, "REGRET_SCALE", 1e6)
    rules = RULES[0]
    positions = [p for seed in range(20) for p in _with_evidence(rules, seed)]
    # some evidence of a capture passed up, whose worlds with the capture card are all but impossible
    heavy = [(o, ev) for o, ev in positions if any(best for _, _, _, best in Likelihood(rules, ev).plays)]
    assert len(heavy) > 10
    for obs, evidence in heavy[:10]:
        _same_draws(rules, obs, Likelihood(rules, evidence), 11, 4)
    monkeypatch.setattr(inference, "MAX_DRAWS", 3)
    for obs, evidence in heavy[:10]:
        _same_draws(rules, obs, Likelihood(rules, evidence), 12, 4)


def test_errors_are_the_references() -> None:
    rules = RULES[0]
    obs, evidence = _with_evidence(rules, 3)[0]
    weigh = Likelihood(rules, evidence)
    bad = obs._replace(stock_count=obs.stock_count + 60)  # more places than cards
    messages = []
    for f in (reference_sample_with_evidence, sample_with_evidence):
        with pytest.raises(SearchError) as e:
            f(rules, bad, random.Random(1), weigh)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_plays_the_core_cannot_take_go_to_the_reference() -> None:
    rules = RULES[0]
    obs, evidence = _with_evidence(rules, 4)[0]
    weigh = Likelihood(rules, evidence)
    weigh.plays.append((0, 60, 0.0, {}))  # a card past the pack
    assert inference._native_likelihood(weigh.plays) is None
    weigh.native = None
    _same_draws(rules, obs, weigh, 5, 3)
    with pytest.raises(ValueError):
        N.Likelihood([(5, 1, 0.0, {})])  # a seat past four
    with pytest.raises(ValueError):
        N.Likelihood([(1, 1, 0.0, {2: "x"})])


# Sweeps that the last capture does not make, and other points for the cards, the spades and a sweep.
SWEEPS = RuleSet.from_preset(
    "classic",
    sweeps=True,
    final_capture_can_sweep=False,
    points_cards=5,
    points_spades=3,
    points_ace=2,
    points_sweep=2,
)


@pytest.mark.parametrize("rules", [*RULES, SWEEPS], ids=lambda r: r.describe())
def test_the_prepared_plays_are_the_references(rules: RuleSet, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Likelihood``'s plays from the core (its move generator, and the best capture of each card
    worked out there): the same gains to the last bit, and the same dicts in the same order."""
    positions = [p for seed in range(12) for p in _with_evidence(rules, seed)]
    got = [Likelihood(rules, evidence).plays for _, evidence in positions]
    monkeypatch.setattr(inference, "NATIVE", None)
    inference._prepared.cache_clear()  # each play is prepared once: again, by the reference
    want = [Likelihood(rules, evidence).plays for _, evidence in positions]
    inference._prepared.cache_clear()
    assert [[(s, c, g.hex(), [(k, v.hex()) for k, v in b.items()]) for s, c, g, b in p] for p in got] == [
        [(s, c, g.hex(), [(k, v.hex()) for k, v in b.items()]) for s, c, g, b in p] for p in want
    ]
    assert sum(len(b) for p in want for _, _, _, b in p) > 50


def _view_pairs(rules: RuleSet, seed: int, nplayers: int = 2) -> list[tuple[Observation, Observation]]:
    """Each seat's views before and after every play of a seeded round (its own plays and the
    others'), and some two plays apart, which no single play explains."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, nplayers, rng.randrange(nplayers), sh.table, sh.deals[0])
    nxt = 1
    views: list[list[Observation]] = []
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[nxt])
            nxt += 1
            views.append([])
        elif not views:
            views.append([])
        views[-1].append(s)
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))
        views[-1].append(s)
    pairs = []
    for deal_states in views:
        for a, b in zip(deal_states[::2], deal_states[1::2], strict=True):
            pairs += [(observe(a, seat), observe(b, seat)) for seat in range(nplayers)]
        for a, b in zip(deal_states[::2], deal_states[3::2], strict=False):
            pairs.append((observe(a, 0), observe(b, 0)))
    return pairs


@pytest.mark.parametrize("nplayers", [2, 3, 4])
@pytest.mark.parametrize("rules", [*RULES, SWEEPS], ids=lambda r: r.describe())
def test_plays_are_read_back_as_the_reference_reads_them(
    rules: RuleSet, nplayers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``infer_move`` in the core (its candidates listed and followed there) reads back the play
    the reference reads (or none)."""
    pairs = [p for seed in range(10) for p in _view_pairs(rules, seed, nplayers)]
    got = [inference.infer_move(rules, a, b) for a, b in pairs]
    monkeypatch.setattr(inference, "NATIVE", None)
    want = [inference.infer_move(rules, a, b) for a, b in pairs]
    assert got == want
    assert sum(m is None for m in want) > 20 and sum(m is not None for m in want) > 200


def _own_plays(rules: RuleSet, seed: int) -> list[tuple[Observation, Move]]:
    """Every play of a seeded 2-player round as the seat to move made it: its view before, and the
    play; the plays go half greedy, half random."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, 2)
    s = new_round(2, 2, rng.randrange(2), sh.table, sh.deals[0])
    nxt = 1
    out = []
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[nxt])
            nxt += 1
        obs = observe(s, s.to_move)
        moves = legal_moves(rules, s)
        move = (
            max(moves, key=lambda m: immediate_gain(rules, obs, m))
            if rng.random() < 0.5
            else rng.choice(moves)
        )
        s = apply(rules, s, move)
        out.append((obs, move))
    return out


@pytest.mark.parametrize("rules", [*RULES, SWEEPS], ids=lambda r: r.describe())
def test_the_evidence_is_read_as_the_reference_reads_it(
    rules: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``next_evidence`` with the observer's own play followed and the other seat's read in the core
    (``next_play``; ``observe_own_play`` and ``infer_move`` past a new deal): the same evidence, its
    views made of the same types; a play not legal at the view gives none."""
    cases = []
    for seed in range(8):
        plays = _own_plays(rules, seed)
        # The observer's view at its next turn: before the play after the other seat's.
        for (before, move), (now, _) in zip(plays, plays[2:], strict=False):
            cases.append((before, move, now))
            other = next(
                (m for m in legal_moves(rules, as_state(before, before.known, False)) if m != move), None
            )
            # A play of a card the seat does not hold: refused.
            cases.append((before, move._replace(card=(move.card + 1) % 52), now))
            if other is not None:
                cases.append((before, other, now))
    got = [next_evidence(rules, b, m, (), n) for b, m, n in cases]
    monkeypatch.setattr(inference, "NATIVE", None)
    want = [next_evidence(rules, b, m, (), n) for b, m, n in cases]
    assert got == want
    assert all(type(x) is type(y) for g, w in zip(got, want, strict=True) for x, y in zip(g, w, strict=True))
    assert all(type(b) is Build for g in got for e in g for b in e.before.builds) and any(
        e.before.builds for g in got for e in g
    )
    assert sum(bool(g) for g in got) > 100 and sum(not g for g in got) > 100
