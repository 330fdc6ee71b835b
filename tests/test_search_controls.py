"""Control variates of the sampled worlds (``result.Controls``, ``worlds.holding_controls``): the
corrected mean is linear, unbiased where the features' means are right, less noisy where the values
depend on the features, and the features' means are the chances over the consistent worlds."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from conftest import position
from test_search_worlds import random_state

from casino_coach.core import NATIVE
from casino_coach.engine.notation import parse_hand
from casino_coach.engine.observation import observe
from casino_coach.engine.rules import RuleSet
from casino_coach.search.result import CONTROL_MIN_WORLDS, Controls, _inverse, paired_stats
from casino_coach.search.worlds import balanced_worlds, holding_controls, sample_world

CLASSIC = RuleSet.from_preset("classic")


def _toy(rng: random.Random, n: int, noise: float) -> tuple[Controls, list[float]]:
    """n worlds of two 0/1 features with known chances 0.3 and 0.6, and values 3 x0 - 2 x1 + noise:
    the true mean is 3 * 0.3 - 2 * 0.6 = -0.3."""
    rows = tuple((float(rng.random() < 0.3), float(rng.random() < 0.6)) for _ in range(n))
    values = [3 * a - 2 * b + rng.gauss(0, noise) for a, b in rows]
    return Controls(rows, (0.3, 0.6)), values


def test_controls_cut_the_spread_of_the_mean_and_keep_it_unbiased() -> None:
    rng = random.Random(7)
    plain, corrected, ses = [], [], []
    for _ in range(300):
        controls, values = _toy(rng, 96, 0.5)
        assert controls.applies(values, [1.0] * 96)
        mean, se, n = controls.stats(values, None)
        plain.append(statistics.fmean(values))
        corrected.append(mean)
        ses.append(se)
        assert n == 96
    # The values' spread comes mostly from the features (sd about 1.8 beside the noise's 0.5): the
    # correction takes it away.
    assert statistics.stdev(corrected) < 0.45 * statistics.stdev(plain)
    # Unbiased: the corrected means centre on -0.3 (their sd / sqrt(300) is about 0.003).
    assert abs(statistics.fmean(corrected) + 0.3) < 0.02
    # The standard error it reports is the spread it has (within sampling error of 300 runs).
    assert 0.8 < statistics.fmean(ses) / statistics.stdev(corrected) < 1.25


def test_the_correction_is_linear_in_the_values() -> None:
    rng = random.Random(3)
    controls, a = _toy(rng, 64, 1.0)
    b = [rng.gauss(0, 1) + x for x in a]
    ma, _, _ = controls.stats(a, None)
    mb, _, _ = controls.stats(b, None)
    md, _, _ = controls.stats([x - y for x, y in zip(a, b, strict=True)], None)
    assert math.isclose(md, ma - mb, abs_tol=1e-9)
    # A constant is its own mean, with no error.
    mc, sec, _ = controls.stats([2.5] * 64, None)
    assert math.isclose(mc, 2.5) and sec < 1e-9


def test_controls_apply_only_to_complete_equal_weight_samples_of_enough_worlds() -> None:
    rng = random.Random(5)
    controls, values = _toy(rng, CONTROL_MIN_WORLDS, 1.0)
    weights = [1.0] * CONTROL_MIN_WORLDS
    assert controls.applies(values, weights)
    assert not controls.applies([math.nan, *values[1:]], weights)
    assert not controls.applies(values, [2.0, *weights[1:]])
    few, few_values = _toy(rng, CONTROL_MIN_WORLDS - 1, 1.0)
    assert not few.applies(few_values, weights[1:])
    # paired_stats falls back to the plain mean when they do not apply, and uses them when they do.
    assert math.isclose(
        paired_stats(few_values, weights[1:], None, None, few)[0], statistics.fmean(few_values)
    )
    assert paired_stats(values, weights, None, None, controls) == controls.stats(values, None)
    # Never on enumerated worlds: their mean is exact over the population.
    assert math.isclose(paired_stats(values, weights, 100, None, controls)[0], statistics.fmean(values))


def test_holding_means_are_the_chances_over_the_consistent_worlds() -> None:
    # Three players, a few plies into the round, no builds on the table.
    s = next(s for seed in range(100) if not (s := random_state(CLASSIC, 3, seed, 7)).builds)
    obs = observe(s, s.to_move)
    holding = holding_controls(CLASSIC, obs)
    assert holding is not None
    rng = random.Random(1)
    n = 4000
    seen = [0.0] * len(holding.means)
    for _ in range(n):
        for k, x in enumerate(holding.row(sample_world(CLASSIC, obs, rng))):
            seen[k] += x
    for k, mean in enumerate(holding.means):
        assert abs(seen[k] / n - mean) < 4 * math.sqrt(mean * (1 - mean) / n) + 1e-9
    # The balanced worlds the search draws have the same chances.
    worlds = balanced_worlds(CLASSIC, obs, rng)
    balanced = [0.0] * len(holding.means)
    for _ in range(n):
        for k, x in enumerate(holding.row(next(worlds))):
            balanced[k] += x
    for k, mean in enumerate(holding.means):
        assert abs(balanced[k] / n - mean) < 4 * math.sqrt(mean * (1 - mean) / n) + 1e-9


def test_no_holding_controls_when_a_build_owner_must_hold_its_card() -> None:
    # Seat 1 owns a build of 9 and so holds a nine: the hypergeometric chances are wrong for it.
    s = position(CLASSIC, ["2C 3C", "9H 4H"], "[6S 3H =9 @1] KD", stock=parse_hand("9D 5H 6H 7H"))
    assert holding_controls(CLASSIC, observe(s, 0)) is None
    free = position(CLASSIC, ["2C 3C", "9H 4H"], "6S 3H KD", stock=parse_hand("9D 5H 6H 7H"))
    assert holding_controls(CLASSIC, observe(free, 0)) is not None


def _plain_stats(
    rows: tuple[tuple[float, ...], ...], means: tuple[float, ...], values: list[float]
) -> tuple[float, float]:
    """The corrected mean and standard error (no groups) by the plain comprehensions, term by term,
    as ``Controls`` summed them before it summed by feature columns."""
    n, p = len(rows), len(means)
    xbar = [sum(r[k] for r in rows) / n for k in range(p)]
    centred = [[r[k] - xbar[k] for k in range(p)] for r in rows]
    gram = [[sum(a[i] * a[j] for a in centred) for j in range(p)] for i in range(p)]
    for i in range(p):
        gram[i][i] += 1.0
    inverse = _inverse(gram)
    shift = [xbar[k] - means[k] for k in range(p)]
    g_shift = [sum(inverse[i][j] * shift[j] for j in range(p)) for i in range(p)]
    weights = [1.0 / n - sum(a[k] * g_shift[k] for k in range(p)) for a in centred]
    mean = sum(v * u for v, u in zip(values, weights, strict=True))
    vbar = sum(values) / n
    at_b = [sum(a[k] * v for a, v in zip(centred, values, strict=True)) for k in range(p)]
    beta = [sum(inverse[i][j] * at_b[j] for j in range(p)) for i in range(p)]
    residuals = [
        v - vbar - sum(a[k] * beta[k] for k in range(p)) for a, v in zip(centred, values, strict=True)
    ]
    se = math.sqrt(sum(r * r for r in residuals) / (n * (n - 1)))
    return mean, se * math.sqrt((n - 1) / (n - 1 - p))


def test_the_sums_by_feature_are_the_plain_sums_to_the_last_bit() -> None:
    """The analysis JSON must not move by a bit: the column sums add the same products in the same
    order as the comprehensions over worlds."""
    rng = random.Random(11)
    for _ in range(40):
        p = rng.randrange(1, 9)
        n = rng.randrange(p + 3, 80)
        rows = tuple(tuple(float(rng.random() < rng.random()) for _ in range(p)) for _ in range(n))
        means = tuple(rng.random() for _ in range(p))
        values = [rng.uniform(-5, 5) for _ in range(n)]
        mean, se, _ = Controls(rows, means).stats(values, None)
        want = _plain_stats(rows, means, values)
        assert (mean.hex(), se.hex()) == (want[0].hex(), want[1].hex())


def test_the_core_s_stats_are_the_reference_s_to_the_last_bit() -> None:
    """The core's fit (``_core.ControlFit``) gives ``Controls.stats`` as the reference does, sum for
    sum as the running Python adds (compensated from 3.12 on), with and without groups."""
    rng = random.Random(5)
    for _ in range(60):
        p = rng.randrange(1, 12)
        n = rng.randrange(max(CONTROL_MIN_WORLDS, 3 * p), 160)
        rows = tuple(tuple(float(rng.random() < rng.random()) for _ in range(p)) for _ in range(n))
        controls = Controls(rows, tuple(rng.random() for _ in range(p)))
        values = [rng.choice((rng.uniform(-11, 11), float(rng.randrange(-3, 4)))) for _ in range(n)]
        groups = [i // rng.choice((1, 4, 8)) for i in range(n)]
        for g in (None, groups):
            got, want = controls.stats(values, g), controls.reference_stats(values, g)
            assert [x.hex() for x in got[:2]] == [x.hex() for x in want[:2]] and got[2] == want[2]
    if NATIVE is not None:
        assert controls._fit is not None
        with pytest.raises(ValueError, match="values for"):
            controls.stats(values[1:], None)


def test_the_core_s_fit_is_the_reference_s_to_the_last_bit() -> None:
    """The core's fit (``_core.ControlFit.fit``) is the reference's, operation for operation."""
    rng = random.Random(6)
    for _ in range(40):
        p = rng.randrange(1, 12)
        n = rng.randrange(p + 2, 160)
        rows = tuple(tuple(float(rng.random() < rng.random()) for _ in range(p)) for _ in range(n))
        controls = Controls(rows, tuple(rng.random() for _ in range(p)))
        reference = controls._fit_reference()
        for name in ("centred", "inverse", "columns"):
            got, want = getattr(controls, name), getattr(reference, name)
            assert [[x.hex() for x in r] for r in got] == [[x.hex() for x in r] for r in want], name
        assert [x.hex() for x in controls.mean_weights] == [x.hex() for x in reference.mean_weights]
        assert (controls._fit is None) == (NATIVE is None)
