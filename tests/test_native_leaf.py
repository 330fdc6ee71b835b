"""The native leaf evaluator (src/search/leaf.rs) gives the Python reference's values bit for bit
(casino_coach/search/leaf.py): ``final``, ``leaf`` and ``parts`` (its categories in the same order) of
positions at every stage of a round, by random play and made up, for each preset and the scoring
options, 2-4 players with and without partnerships, both leaf estimates, with and without category
weights, from every root side; and ``final_points`` and ``majority_odds`` on their own. Floats are
compared by ``float.hex``: equal to the last bit, and 0.0 is not -0.0."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.observation import first_deal_observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState, deal, new_round, shuffle_round
from casino_coach.search.chances import game_weights, table_for
from casino_coach.search.leaf import (
    CategoryWeights,
    Evaluator,
    final_points,
    learned_weights,
    majority_odds,
)

pytestmark = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")

# Every preset, and each scoring option the leaf reads (and a few it must ignore) on one of them.
RULES: tuple[RuleSet, ...] = (
    RuleSet.from_preset("classic"),
    RuleSet.from_preset("royal"),
    RuleSet.from_preset("dominican"),
    RuleSet.from_preset("classic", sweeps=True, majority_tie="split"),
    RuleSet.from_preset("classic", majority_tie="carry_over", last_capture_point=1),
    RuleSet.from_preset("royal", sweep_cancellation=True, majority_tie="split"),
    RuleSet.from_preset("dominican", sweep_cancellation_3p="none", points_sweep=2),
    RuleSet.from_preset("royal", points_cards=2, points_spades=2, points_big=3, points_little=0),
    RuleSet.from_preset("dominican", points_ace=2, points_cards=0, last_capture_point=1),
    RuleSet.from_preset("classic", points_spades=0, points_big=0, points_ace=0),
    RuleSet.from_preset("royal", last_capture_takes_table=False, residue_if_no_capture="dealer"),
    RuleSet.from_preset("classic", last_capture_takes_table=False),
    # near-target options leave the learned weights of the preset in use (leaf._IGNORED_OPTIONS)
    RuleSet.from_preset("dominican", near_target_20="most_spades", target=15),
    RuleSet.from_preset("royal", ace_value="hand14_table1"),
)
# (players, partnerships)
TABLES: tuple[tuple[int, bool], ...] = ((2, False), (3, False), (4, True), (4, False))


def _hex(x: float) -> str:
    return x.hex()


@cache
def _native_rules(rules: RuleSet) -> Any:
    assert core.NATIVE is not None
    return core.NATIVE.Rules(rules)


def _learned(rules: RuleSet, nsides: int) -> dict[int, tuple[tuple[float, ...], ...]]:
    out = {}
    for n in (2, 3, 4):
        w = learned_weights(rules, n, nsides)
        if w is not None:
            out[n] = w
    return out


def _pair(
    rules: RuleSet, nsides: int, side: int, leaf: str, weights: CategoryWeights | None
) -> tuple[Evaluator, Any]:
    """The reference and the native evaluator of the same arguments."""
    assert core.NATIVE is not None
    native = core.NATIVE.Evaluator(
        _native_rules(rules), nsides, side, leaf, None, weights, _learned(rules, nsides)
    )
    return Evaluator(rules, nsides, side, leaf, None, weights), native


def _hand_weights(rng: random.Random, nsides: int) -> CategoryWeights:
    """Weights of a random subset of the categories, with names no category has (never looked up)."""
    keys = ["cards", "spades", "big", "little", "ace0", "ace1", "ace2", "ace3", "sweeps", "last", "ace5"]
    out: CategoryWeights = {}
    for k in rng.sample(keys, rng.randint(1, len(keys))):
        out[k] = tuple(rng.choice((1.0, -1.0, 0.0, rng.uniform(-3, 3))) for _ in range(nsides))
    return out


@cache
def _game_weights(preset: str, scores: tuple[int, int]) -> CategoryWeights | None:
    """What ``chances.game_weights`` gives for a first-deal decision of two players at ``scores``."""
    rules = RuleSet.from_preset(preset)
    table = table_for(rules, 2)
    if table is None:
        return None
    obs = first_deal_observation(0, 2, 2, 1, 0b1111 << 36, 0b1111 << 20)
    return game_weights(table, obs, scores)


def _weight_sets(rng: random.Random, rules: RuleSet, nsides: int) -> list[CategoryWeights | None]:
    out: list[CategoryWeights | None] = [None, _hand_weights(rng, nsides)]
    if nsides == 2:
        out.append(_game_weights(rules.preset, rng.choice(((0, 0), (15, 18), (19, 17), (20, 20)))))
    return out


def _check(rules: RuleSet, states: list[RoundState], rng: random.Random) -> int:
    """Compare every evaluation of ``states`` (one number of players); the number compared."""
    nsides = states[0].nsides
    compared = 0
    for weights in _weight_sets(rng, rules, nsides):
        for leaf in ("handmade", "learned"):
            for side in range(nsides):
                ref, native = _pair(rules, nsides, side, leaf, weights)
                for s in states:
                    where = (rules.to_dict(), leaf, weights, side, s)
                    assert _hex(native.final(s)) == _hex(ref.final(s)), where
                    assert _hex(native.leaf(s)) == _hex(ref.leaf(s)), where
                    want = [(k, _hex(v)) for k, v in ref.parts(s).items()]
                    assert [(k, _hex(v)) for k, v in native.parts(s).items()] == want, where
                    compared += 1
    return compared


def _played(rules: RuleSet, nplayers: int, nsides: int, seed: int, keep: float) -> list[RoundState]:
    """Positions of one round of random play: its first position, each deal's end (where the search
    stops), a share ``keep`` of the others, and the played-out round."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, nsides, rng.randrange(nplayers), sh.table, sh.deals[0])
    out = [s]
    nxt = 1
    while not s.is_over:
        if s.needs_deal:
            out.append(s)
            s = deal(s, sh.deals[nxt])
            nxt += 1
            continue
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))
        if rng.random() < keep:
            out.append(s)
    out.append(s)
    return out


@pytest.mark.parametrize("rules", RULES, ids=lambda r: str(sorted(r.to_dict().items())))
def test_random_play_evaluates_alike(rules: RuleSet) -> None:
    rng = random.Random(1234)
    compared = 0
    for nplayers, partners in TABLES:
        nsides = 2 if nplayers == 4 and partners else nplayers
        states = _played(rules, nplayers, nsides, rng.randrange(1 << 30), 0.15)
        compared += _check(rules, states, rng)
    assert compared > 100


def _made_up(rng: random.Random, nplayers: int, nsides: int, stage: str) -> RoundState:
    """A position whose cards lie anywhere (the evaluator needs no legal history): ``over`` (every
    card taken or set aside), ``deal_end`` (hands empty, more to come) or ``mid`` (cards in hands)."""
    places = ["pile"] * nsides + ["table", "set_aside", "hidden"]
    weights = [rng.random() for _ in places]
    if stage == "over":
        weights[nsides] = weights[nsides + 2] = 0.0
    piles = [0] * nsides
    loose = set_aside = hidden = 0
    for c in range(52):
        place = rng.choices(range(len(places)), weights)[0]
        if place < nsides:
            piles[place] |= 1 << c
        elif places[place] == "table":
            loose |= 1 << c
        elif places[place] == "set_aside":
            set_aside |= 1 << c
        else:
            hidden |= 1 << c
    builds: tuple[Build, ...] = ()
    if loose.bit_count() >= 3 and rng.random() < 0.5:
        low = loose & -loose
        two = low | ((loose ^ low) & -(loose ^ low))
        builds = (Build(two, rng.randint(2, 14), rng.randrange(nplayers), rng.random() < 0.5),)
        loose ^= two
    hands = [0] * nplayers
    if stage == "mid":
        for c in range(52):
            if hidden >> c & 1 and rng.random() < 0.3:
                seat = rng.randrange(nplayers)
                if hands[seat].bit_count() < 4:
                    hands[seat] |= 1 << c
                    hidden ^= 1 << c
    more = stage != "over" and (hidden != 0 or stage == "deal_end")
    if stage == "deal_end" and hidden == 0:
        more = False
    return RoundState(
        hands=tuple(hands),
        loose=loose,
        builds=builds,
        captured=tuple(piles),
        sweeps=tuple(rng.choice((0, 0, 0, 1, 2, 5)) for _ in range(nsides)),
        to_move=rng.randrange(nplayers),
        last_capturer=rng.randrange(-1, nsides),
        stock=hidden,
        more=more,
        dealer=rng.randrange(nplayers),
        nsides=nsides,
        set_aside=set_aside,
    )


@settings(max_examples=150)
@given(
    st.sampled_from(RULES),
    st.sampled_from(TABLES),
    st.sampled_from(("over", "deal_end", "mid")),
    st.integers(0, 2**32),
)
def test_made_up_positions_evaluate_alike(
    rules: RuleSet, players: tuple[int, bool], stage: str, seed: int
) -> None:
    nplayers, partners = players
    nsides = 2 if nplayers == 4 and partners else nplayers
    rng = random.Random(seed)
    _check(rules, [_made_up(rng, nplayers, nsides, stage) for _ in range(3)], rng)


def _tied(rng: random.Random, nplayers: int, nsides: int) -> RoundState:
    """A played-out round whose sides took the same number of cards (one set aside for three)."""
    pack = list(range(52))
    rng.shuffle(pack)
    piles = [0] * nsides
    for i, c in enumerate(pack[: 52 - 52 % nsides]):
        piles[i % nsides] |= 1 << c
    return _made_up(rng, nplayers, nsides, "over")._replace(
        captured=tuple(piles), set_aside=sum(1 << c for c in pack[52 - 52 % nsides :])
    )


@pytest.mark.parametrize("tie", ["nobody", "split", "carry_over"])
def test_ties_for_the_most_evaluate_alike(tie: str) -> None:
    rng = random.Random(11)
    for preset in ("classic", "royal", "dominican"):
        rules = RuleSet.from_preset(preset, majority_tie=tie)
        for nplayers, partners in TABLES:
            nsides = 2 if nplayers == 4 and partners else nplayers
            _check(rules, [_tied(rng, nplayers, nsides) for _ in range(4)], rng)


def _split_counts(rng: random.Random, n: int) -> Iterator[tuple[tuple[int, ...], int]]:
    for _ in range(60):
        total = rng.randint(0, 52)
        counts = [0] * n
        for _ in range(total):
            counts[rng.randrange(n)] += 1
        yield tuple(counts), 52 - total if rng.random() < 0.3 else rng.randint(0, 52 - total)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_majority_odds_alike(n: int) -> None:
    assert core.NATIVE is not None
    rng = random.Random(n)
    cases = list(_split_counts(rng, n)) + [((0,) * n, r) for r in range(53)]
    for counts, remaining in cases:
        wins, tie = majority_odds(counts, remaining)
        got, got_tie = core.NATIVE.majority_odds(counts, remaining)
        assert [_hex(x) for x in got] == [_hex(x) for x in wins], (counts, remaining)
        assert _hex(got_tie) == _hex(tie), (counts, remaining)


@pytest.mark.parametrize("rules", RULES[:6], ids=lambda r: str(sorted(r.to_dict().items())))
def test_final_points_alike(rules: RuleSet) -> None:
    assert core.NATIVE is not None
    rng = random.Random(7)
    for nplayers, partners in TABLES:
        nsides = 2 if nplayers == 4 and partners else nplayers
        for _ in range(20):
            s = _made_up(rng, nplayers, nsides, "over")
            got = core.NATIVE.final_points(_native_rules(rules), s)
            assert [_hex(x) for x in got] == [_hex(x) for x in final_points(rules, s)], s


def test_the_native_evaluator_refuses_what_it_cannot_mirror() -> None:
    assert core.NATIVE is not None
    rules = _native_rules(RULES[0])
    with pytest.raises(ValueError, match="unknown leaf estimate"):
        core.NATIVE.Evaluator(rules, 2, 0, "deep")
    with pytest.raises(ValueError, match="final_value"):
        core.NATIVE.Evaluator(rules, 2, 0, "handmade", lambda s: 0.0)
    with pytest.raises(ValueError, match="weights for 2 sides"):
        core.NATIVE.Evaluator(rules, 2, 0, "handmade", None, {"cards": (1.0,)})
    with pytest.raises(ValueError, match="sides"):
        core.NATIVE.Evaluator(rules, 2, 2)
    ev = core.NATIVE.Evaluator(rules, 3, 0)
    with pytest.raises(ValueError, match="2 sides for an evaluator of 3"):
        ev.leaf(_played(RULES[0], 2, 2, 1, 0.0)[0])
