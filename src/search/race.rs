//! The sampling race of one decision (`casino_coach/search/race.py`, which explains it), with
//! Casino's worlds and world valuer (`expectimax.evaluate`'s `_worlds`, `_Ladder` and
//! `_CasinoValuer`): world after world, the root moves still in the race are valued by the
//! decision's solver, and sampling stops where the reference stops.
//!
//! A port, operation for operation: the same running sums added in the same order, the same
//! Student's t factors, the same comparisons (Python's `max` keeps the first of equals, and
//! `max(0.0, x)` is 0.0 for a NaN or a -0.0: `py_max`), the same worlds drawn from a generator in
//! the reference's state, and the same solvers with the same node limits. So a decision's moves,
//! values, worlds and node counts are the reference's to the last bit, and Python calls the core
//! once per decision rather than once per world.
//!
//! What is not here stays in Python (`expectimax.evaluate` chooses): a wall-clock deadline, the
//! recorded search tree, the replies chosen on the replier's information, builds for a partner, and
//! any world or solver the core cannot take.

use std::collections::hash_map::Entry;

use crate::engine::cards::Mask;
use crate::engine::movegen::{Move, BUILD, CAPTURE};
use crate::engine::observation::Observation;
use crate::engine::rng::Random;
use crate::engine::rules::Rules;
use crate::engine::state::State;
use crate::search::inference::{draw_with_evidence, Likelihood};
use crate::search::leaf::{Evaluator, Margins};
use crate::search::solver::{canonical, FxMap, MoveOrder, OutOfNodes, RootValue, Solver};
use crate::search::worlds::{
    self, world_state, BalancedPasses, Canon, InPasses, Sampler, World, WorldsError,
};

/// Worlds before a move may leave the race (`race.MIN_PAIRED`).
pub const MIN_PAIRED: usize = 4;
/// A verdict's (or a careful race's) separation, in the race's standard errors (`race.SETTLE`).
pub const SETTLE: f64 = 1.25;
/// Groups a standard error is taken over (`result.MIN_GROUPS`).
pub const MIN_GROUPS: usize = 12;
/// The standard error of an unknown spread (`result.UNKNOWN_STDERR`).
pub const UNKNOWN_STDERR: f64 = 11.0;
/// The per-world spread a verdict's interval is never narrower than (`result.RARE_WORLDS_SPREAD`).
pub const RARE_WORLDS_SPREAD: f64 = 1.0;

/// Student's t 97.5% quantiles by degrees of freedom (`result._T975`), in ascending order.
const T975: [(i64, f64); 14] = [
    (1, 12.71),
    (2, 4.303),
    (3, 3.182),
    (4, 2.776),
    (5, 2.571),
    (6, 2.447),
    (7, 2.365),
    (8, 2.306),
    (9, 2.262),
    (10, 2.228),
    (12, 2.179),
    (15, 2.131),
    (20, 2.086),
    (30, 2.042),
];

/// How much wider than the normal a 95% interval from `n` values must be (`result.t_factor`).
pub fn t_factor(n: usize) -> f64 {
    let dof = n as i64 - 1;
    if dof > 30 {
        return 1.0;
    }
    let mut q = T975[0].1; // the default key 1
    for &(k, v) in &T975 {
        if k <= dof {
            q = v;
        }
    }
    q / 1.96
}

/// Python's `max(a, b)`: `b` only when it is greater (so `a` for a NaN `b`, or equals).
#[inline]
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// `bisect.bisect_right(edges, x)`.
fn bisect_right(edges: &[f64], x: f64) -> usize {
    let (mut lo, mut hi) = (0, edges.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if x < edges[mid] {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// `result.verdict_stderr` for sampled worlds (no population).
fn verdict_stderr(se: f64, n: usize) -> f64 {
    if n == 0 {
        return se;
    }
    py_max(se, RARE_WORLDS_SPREAD / (n as f64).sqrt())
}

/// `result.loss_low` for sampled worlds.
pub fn loss_low(loss: f64, se: f64, n: usize, z: f64) -> f64 {
    py_max(0.0, loss - z * t_factor(n) * verdict_stderr(se, n))
}

/// `result.loss_high` for sampled worlds.
pub fn loss_high(d: f64, se: f64, n: usize, z: f64) -> f64 {
    let se = verdict_stderr(se, n);
    if se.is_finite() {
        d + z * t_factor(n) * se
    } else {
        d + UNKNOWN_STDERR
    }
}

/// Running sums of one series given per world (`race._Running`).
#[derive(Clone, Debug, Default)]
struct Running {
    read: usize,
    n: usize,
    sw: f64,
    sw2: f64,
    swx: f64,
    swx2: f64,
    groups: FxMap<u64, (f64, f64)>,
    gxx: f64,
    gxw: f64,
    gww: f64,
}

impl Running {
    fn add(&mut self, x: f64, w: f64, g: u64) {
        self.read += 1;
        if x.is_nan() || w <= 0.0 {
            return;
        }
        self.n += 1;
        self.sw += w;
        self.sw2 += w * w;
        self.swx += w * x;
        self.swx2 += w * x * x;
        let (gx, gw) = self.groups.get(&g).copied().unwrap_or((0.0, 0.0));
        let nx = gx + w * x;
        let nw = gw + w;
        self.gxx += nx * nx - gx * gx;
        self.gxw += nx * nw - gx * gw;
        self.gww += nw * nw - gw * gw;
        self.groups.insert(g, (nx, nw));
    }

    fn mean(&self) -> f64 {
        if self.sw > 0.0 {
            self.swx / self.sw
        } else {
            f64::NEG_INFINITY
        }
    }

    /// Mean, standard error and count (`_Running.stats`).
    fn stats(&self) -> (f64, f64, usize) {
        let n = self.n;
        if n == 0 {
            return (0.0, f64::INFINITY, 0);
        }
        let mean = self.swx / self.sw;
        if n == 1 {
            return (mean, f64::INFINITY, 1);
        }
        let k = self.groups.len();
        if MIN_GROUPS <= k && k < n {
            let spread = py_max(0.0, self.gxx - 2.0 * mean * self.gxw + mean * mean * self.gww);
            let se = (k as f64 / (k - 1) as f64 * spread).sqrt() / self.sw;
            return (mean, se * t_factor(k) / t_factor(n), n);
        }
        let neff = self.sw * self.sw / self.sw2;
        let var = py_max(0.0, self.swx2 - self.sw * mean * mean) / self.sw * n as f64 / (n - 1) as f64;
        (mean, (var / neff).sqrt(), n)
    }
}

/// Python's `x ** 2` on a float: the C library's `pow`, which CPython calls (the compiler makes
/// `x * x` of a constant exponent, which may round otherwise: `black_box` keeps the call).
#[inline]
fn py_square(x: f64) -> f64 {
    x.powf(std::hint::black_box(2.0))
}

/// Python's `min(a, b)`: `b` only when it is less.
#[inline]
fn py_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// `result.grouped_stderr` of the (residual, weight, group) of each world: None with fewer than
/// `MIN_GROUPS` groups or a world to each group. The groups' totals are summed in the order the
/// groups are first met, as the reference's dict keeps them.
fn grouped_stderr(residuals: &[(f64, f64, u64)], total_weight: f64) -> Option<f64> {
    // Each group's place in `totals`: a decision's worlds may be thousands of groups, and a search
    // of the list for each world made this quadratic.
    let mut place: FxMap<u64, usize> = FxMap::default();
    let mut totals: Vec<f64> = Vec::new();
    for &(r, w, g) in residuals {
        match place.entry(g) {
            Entry::Occupied(at) => totals[*at.get()] += w * r,
            Entry::Vacant(at) => {
                at.insert(totals.len());
                totals.push(0.0 + w * r);
            }
        }
    }
    let k = totals.len();
    if k < MIN_GROUPS || k == residuals.len() {
        return None;
    }
    let mut squares = 0.0;
    for &t in &totals {
        squares += t * t;
    }
    Some((k as f64 / (k - 1) as f64 * squares).sqrt() / total_weight)
}

/// `result.paired_stats` without control variates: the weighted mean, standard error and count of
/// the values of `diffs` that are not NaN (in worlds of weight above 0), by the groups (`groups`,
/// for sampled worlds) or with the finite-population correction (worlds of an enumeration of
/// `population`). Sums run left to right, as the reference's `sum` of floats does.
pub fn paired_stats(
    diffs: &[f64],
    weights: &[f64],
    population: Option<usize>,
    groups: Option<&[u64]>,
) -> (f64, f64, usize) {
    let kept: Vec<usize> = (0..diffs.len())
        .filter(|&i| !diffs[i].is_nan() && weights[i] > 0.0)
        .collect();
    let n = kept.len();
    if n == 0 {
        return (0.0, f64::INFINITY, 0);
    }
    let (mut sw, mut swd) = (0.0, 0.0);
    for &i in &kept {
        sw += weights[i];
    }
    for &i in &kept {
        swd += diffs[i] * weights[i];
    }
    let mean = swd / sw;
    if population.is_some_and(|p| n >= p) {
        return (mean, 0.0, n);
    }
    if n == 1 {
        return (mean, f64::INFINITY, 1);
    }
    if let (Some(groups), None) = (groups, population) {
        let residuals: Vec<(f64, f64, u64)> = kept
            .iter()
            .map(|&i| (diffs[i] - mean, weights[i], groups[i]))
            .collect();
        if let Some(se) = grouped_stderr(&residuals, sw) {
            let mut distinct: Vec<u64> = kept.iter().map(|&i| groups[i]).collect();
            distinct.sort_unstable();
            distinct.dedup();
            return (mean, se * t_factor(distinct.len()) / t_factor(n), n);
        }
    }
    let (mut sw2, mut spread) = (0.0, 0.0);
    for &i in &kept {
        sw2 += weights[i] * weights[i];
    }
    for &i in &kept {
        spread += weights[i] * py_square(diffs[i] - mean);
    }
    let neff = sw * sw / sw2;
    let var = spread / sw * n as f64 / (n - 1) as f64;
    let mut se = (var / neff).sqrt();
    if let Some(p) = population {
        se *= py_max(0.0, (p - n) as f64 / (p - 1) as f64).sqrt();
    }
    (mean, se, n)
}

/// Python's `sum` of floats, from 0: left to right before Python 3.12, with Neumaier's
/// compensation from 3.12 on (`compensated`), as CPython adds them; the reference's sums that are
/// `sum` (not `plain_sum`) are added so here, to the last bit.
pub fn py_sum(xs: impl Iterator<Item = f64>, compensated: bool) -> f64 {
    let mut total = 0.0;
    if !compensated {
        for x in xs {
            total += x;
        }
        return total;
    }
    let mut c = 0.0;
    for x in xs {
        let t = total + x;
        if total.abs() >= x.abs() {
            c += (total - t) + x;
        } else {
            c += (x - t) + total;
        }
        total = t;
    }
    // As CPython: the compensation is not added where it is 0 (the sign of a negative zero stays)
    // or not finite (an overflowed sum stays infinite, not NaN).
    if c != 0.0 && c.is_finite() {
        total += c;
    }
    total
}

/// The fit of `result.Controls` as `Controls.stats` reads it: per world the weight of its value in
/// the corrected mean, the centred features by feature and by world, and the inverse of their ridge
/// Gram matrix. Its `stats` is `Controls.stats`, sum for sum (`py_sum`).
pub struct ControlFit {
    pub mean_weights: Vec<f64>,
    pub columns: Vec<Vec<f64>>,
    pub inverse: Vec<Vec<f64>>,
    pub centred: Vec<Vec<f64>>,
    pub compensated: bool,
}

impl ControlFit {
    /// `Controls.__post_init__`: the fit of `rows` (per world, its features) on features whose
    /// means over every consistent world are `means`, with the ridge `ridge`, operation for
    /// operation as the reference makes it (Gauss-Jordan without pivoting: the ridge Gram matrix
    /// is symmetric positive definite). Needs a world at least.
    pub fn fit(rows: &[Vec<f64>], means: &[f64], ridge: f64, compensated: bool) -> ControlFit {
        let (n, p, cs) = (rows.len(), means.len(), compensated);
        let dot = |a: &[f64], b: &[f64]| py_sum(a.iter().zip(b).map(|(x, y)| x * y), cs);
        let xbar: Vec<f64> = (0..p)
            .map(|k| py_sum(rows.iter().map(|r| r[k]), cs) / n as f64)
            .collect();
        let centred: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| r.iter().zip(&xbar).map(|(x, m)| x - m).collect())
            .collect();
        let columns: Vec<Vec<f64>> = (0..p).map(|k| centred.iter().map(|r| r[k]).collect()).collect();
        // The ridge Gram matrix beside the identity, reduced to the identity beside the inverse.
        let mut a = vec![vec![0.0; 2 * p]; p];
        for i in 0..p {
            for j in i..p {
                let g = dot(&columns[i], &columns[j]);
                a[i][j] = g;
                a[j][i] = g;
            }
        }
        for (i, row) in a.iter_mut().enumerate() {
            row[i] += ridge;
            row[p + i] = 1.0;
        }
        for c in 0..p {
            let pivot = a[c][c];
            let row_c: Vec<f64> = a[c].iter().map(|x| x / pivot).collect();
            for (r, row) in a.iter_mut().enumerate() {
                if r != c {
                    let f = row[c];
                    if f != 0.0 {
                        for (x, y) in row.iter_mut().zip(&row_c) {
                            *x -= f * y;
                        }
                    }
                }
            }
            a[c] = row_c;
        }
        let inverse: Vec<Vec<f64>> = a.into_iter().map(|row| row[p..].to_vec()).collect();
        let shift: Vec<f64> = xbar.iter().zip(means).map(|(x, m)| x - m).collect();
        let g_shift: Vec<f64> = inverse.iter().map(|r| dot(r, &shift)).collect();
        let mean_weights = centred
            .iter()
            .map(|r| 1.0 / n as f64 - dot(r, &g_shift))
            .collect();
        ControlFit {
            mean_weights,
            columns,
            inverse,
            centred,
            compensated,
        }
    }

    /// `Controls.stats`: the corrected mean of `values` (one per world), its standard error on the
    /// residuals (by `groups` where they are enough, ``grouped_stderr``), with the features' degrees
    /// of freedom, and the number of worlds.
    pub fn stats(&self, values: &[f64], groups: Option<&[u64]>) -> (f64, f64, usize) {
        let (n, cs) = (values.len(), self.compensated);
        let dot = |a: &[f64], b: &[f64]| py_sum(a.iter().zip(b).map(|(x, y)| x * y), cs);
        let mean = dot(values, &self.mean_weights);
        let vbar = py_sum(values.iter().copied(), cs) / n as f64;
        let at_b: Vec<f64> = self.columns.iter().map(|c| dot(c, values)).collect();
        let beta: Vec<f64> = self.inverse.iter().map(|r| dot(r, &at_b)).collect();
        let residuals: Vec<f64> = self
            .centred
            .iter()
            .zip(values)
            .map(|(a, &v)| v - vbar - dot(a, &beta))
            .collect();
        let grouped = groups.and_then(|g| {
            let by: Vec<(f64, f64, u64)> = residuals.iter().zip(g).map(|(&r, &k)| (r, 1.0, k)).collect();
            grouped_stderr(&by, n as f64)
        });
        let se = grouped
            .unwrap_or_else(|| (py_sum(residuals.iter().map(|r| r * r), cs) / (n * (n - 1)) as f64).sqrt());
        let p = self.columns.len();
        (mean, se * ((n - 1) as f64 / (n - 1 - p) as f64).sqrt(), n)
    }
}

/// What happens along a root move's line in one world (`result.Outcome`, its fields that the core
/// knows: the rest is Python's): the parts of the value at the line's end, the cards each side
/// captured on the way, the sweeps each side made, and whether the round is over there.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub parts: Margins,
    pub gained: Vec<Mask>,
    pub sweeps: Vec<i64>,
    pub end: bool,
}

/// `expectimax.follow` with a native solver: the line proving `value` for `mv` (after `reply`) in
/// the world `state`, and what happens along it.
pub fn follow(
    solver: &mut Solver,
    state: &State,
    mv: Move,
    reply: Option<Move>,
    value: f64,
) -> (Vec<Move>, Outcome) {
    let (line, end) = solver.follow(state, mv, reply, value);
    let n = state.nsides as usize;
    let start = canonical(state);
    let gained = (0..n).map(|k| end.captured[k] & !start.captured[k]).collect();
    let sweeps = (0..n)
        .map(|k| end.sweeps[k] as i64 - state.sweeps[k] as i64)
        .collect();
    let outcome = Outcome {
        parts: solver.eval().parts(&end),
        gained,
        sweeps,
        end: end.is_over(),
    };
    (line, outcome)
}

/// Per-move values world by world and the moves still in the race (`race.Race`).
#[derive(Debug)]
pub struct Race {
    focus: Option<usize>,
    kept: Vec<bool>,
    /// Per move, its value in each world (NaN where it was not searched).
    pub values: Vec<Vec<f64>>,
    pub weights: Vec<f64>,
    pub groups: Vec<u64>,
    /// Per move, each line it was proved by with how often, in the order first met.
    pub lines: Vec<Vec<(Vec<Move>, u32)>>,
    /// Per move, with `detail`, what happened along its line in each world (None: not searched).
    pub outcomes: Vec<Vec<Option<Outcome>>>,
    pub active: Vec<usize>,
    means: Vec<Running>,
    pairs: FxMap<(usize, usize), Running>,
}

/// One world's value of one move: its index, value, line after it, and with `detail` its outcome.
pub type Valued = (usize, f64, Vec<Move>, Option<Outcome>);

impl Race {
    /// The race of `nmoves` moves; `alike` gives per move the index of its kind (`Race.__init__`).
    pub fn new(nmoves: usize, focus: Option<usize>, alike: &[usize]) -> Race {
        let kept = (0..nmoves)
            .map(|i| focus.is_some_and(|f| alike[i] == alike[f]))
            .collect();
        Race {
            focus,
            kept,
            values: vec![Vec::new(); nmoves],
            weights: Vec::new(),
            groups: Vec::new(),
            lines: vec![Vec::new(); nmoves],
            outcomes: vec![Vec::new(); nmoves],
            active: (0..nmoves).collect(),
            means: vec![Running::default(); nmoves],
            pairs: FxMap::default(),
        }
    }

    /// One more world's values (`Race.add`); `detail`: outcomes are kept, per world.
    pub fn add(&mut self, weight: f64, valued: Vec<Valued>, group: u64, detail: bool) {
        self.groups.push(group);
        self.weights.push(weight);
        let mut per_move: Vec<Option<Valued>> = vec![None; self.values.len()];
        for v in valued {
            let i = v.0;
            per_move[i] = Some(v);
        }
        for (i, got) in per_move.into_iter().enumerate() {
            match got {
                None => {
                    self.values[i].push(f64::NAN);
                    if detail {
                        self.outcomes[i].push(None);
                    }
                }
                Some((_, v, line, outcome)) => {
                    self.values[i].push(v);
                    let lines = &mut self.lines[i];
                    match lines.iter_mut().find(|(l, _)| *l == line) {
                        Some((_, count)) => *count += 1,
                        None => lines.push((line, 1)),
                    }
                    if detail {
                        self.outcomes[i].push(outcome);
                    }
                }
            }
        }
    }

    /// The line move `i` was proved by most often, the first met of equals
    /// (`Counter.most_common(1)`), with its count.
    pub fn best_line(&self, i: usize) -> Option<(&[Move], u32)> {
        let mut best: Option<(&[Move], u32)> = None;
        for (line, count) in &self.lines[i] {
            if best.is_none_or(|(_, c)| *count > c) {
                best = Some((line, *count));
            }
        }
        best
    }

    /// The weighted mean of move `i`'s values (`Race.mean`).
    pub fn mean(&mut self, i: usize) -> f64 {
        let run = &mut self.means[i];
        let values = &self.values[i];
        for (k, &v) in values.iter().enumerate().skip(run.read) {
            run.add(v, self.weights[k], self.groups[k]);
        }
        run.mean()
    }

    /// Mean, standard error and count of value(i) - value(j) (`Race.diff`).
    pub fn diff(&mut self, i: usize, j: usize) -> (f64, f64, usize) {
        let run = self.pairs.entry((i, j)).or_default();
        let (a, b) = (&self.values[i], &self.values[j]);
        for k in run.read..a.len() {
            run.add(a[k] - b[k], self.weights[k], self.groups[k]);
        }
        run.stats()
    }

    /// The active move of the highest mean, the first of equals (`max(self.active, key=self.mean)`).
    fn best(&mut self) -> usize {
        let active = self.active.clone();
        let mut best = active[0];
        let mut top = self.mean(best);
        for &j in &active[1..] {
            let m = self.mean(j);
            if m > top {
                best = j;
                top = m;
            }
        }
        best
    }

    /// Drop the moves clearly behind the best; true when the race is decided (`Race.update`).
    pub fn update(&mut self, z: f64, margin: f64, min_paired: usize) -> bool {
        let best = self.best();
        let mut keep = vec![best];
        let mut decided = true;
        for j in self.active.clone() {
            if j == best {
                continue;
            }
            let (d, se, n) = self.diff(best, j);
            let zt = z * t_factor(n);
            if !self.kept[j] && n >= min_paired && (d - zt * se > 0.0 || (se == 0.0 && d > 0.0)) {
                continue;
            }
            keep.push(j);
            if !(n >= MIN_PAIRED && d.abs() + zt * se < margin) {
                decided = false;
            }
        }
        keep.sort_unstable();
        self.active = keep;
        decided
    }

    /// (ev, stderr) per move (`Race.results` without control variates): a complete move's
    /// by `paired_stats`, a move that left the race by its paired difference to the best complete
    /// move, never above it.
    pub fn results(&mut self, population: Option<usize>) -> Vec<(f64, f64)> {
        let nworlds = self.weights.len();
        let stats: Vec<Option<(f64, f64)>> = (0..self.values.len())
            .map(|i| {
                self.values[i]
                    .iter()
                    .all(|v| !v.is_nan())
                    .then(|| self.stats_of(i, population))
            })
            .collect();
        // Python's max over the complete moves by their means: the first of equals.
        let mut reference: Option<(usize, f64, f64)> = None;
        for (i, got) in stats.iter().enumerate() {
            if let Some((ev, se)) = *got {
                if reference.is_none_or(|(_, top, _)| ev > top) {
                    reference = Some((i, ev, se));
                }
            }
        }
        let mut out = Vec::with_capacity(stats.len());
        for (i, got) in stats.iter().enumerate() {
            let Some((r, ref_ev, se_ref)) = reference else {
                out.push(self.stats_of(i, population));
                continue;
            };
            if let Some(ev_se) = *got {
                out.push(ev_se);
                continue;
            }
            let (d, se_d, n) = self.diff(r, i);
            if n == 0 {
                out.push(self.stats_of(i, population));
                continue;
            }
            let mut se = if se_d.is_finite() {
                (py_square(se_ref) + py_square(se_d)).sqrt()
            } else {
                UNKNOWN_STDERR
            };
            if population.is_some_and(|p| n >= p) {
                se = 0.0;
            }
            let ev = if nworlds > 0 {
                py_min(ref_ev - d, ref_ev)
            } else {
                self.mean(i)
            };
            out.push((ev, se));
        }
        out
    }

    /// Mean and standard error of move `i`'s values (`Race._stats` without control variates).
    fn stats_of(&self, i: usize, population: Option<usize>) -> (f64, f64) {
        let (mean, se, n) = paired_stats(&self.values[i], &self.weights, population, Some(&self.groups));
        if n == 0 {
            return (f64::NEG_INFINITY, UNKNOWN_STDERR);
        }
        if n == 1 && population == Some(1) {
            return (mean, 0.0);
        }
        (mean, if se.is_finite() { se } else { UNKNOWN_STDERR })
    }

    /// The band the focus's loss lies in with confidence, or None (`Race.loss_band`).
    pub fn loss_band(&mut self, z: f64, bands: &[f64]) -> Option<usize> {
        let best = self.best();
        let f = self.focus.expect("a loss band is the focus's");
        let mut lo = 0.0;
        let mut hi = 0.0;
        if best != f {
            let (d, se, n) = self.diff(best, f);
            if n < MIN_PAIRED {
                return None;
            }
            lo = loss_low(d, se, n, z);
        }
        for j in self.active.clone() {
            if j == f {
                continue;
            }
            let (d, se, n) = self.diff(j, f);
            if n < MIN_PAIRED {
                return None;
            }
            hi = py_max(hi, loss_high(d, se, n, z));
        }
        let low = bisect_right(bands, lo);
        (low == bisect_right(bands, py_max(0.0, hi))).then_some(low)
    }
}

/// When the race of one decision stops (`race.Stopping`, without its deadline).
#[derive(Clone, Debug, PartialEq)]
pub struct Stopping {
    pub samples: usize,
    pub min_samples: usize,
    pub separation: f64,
    pub margin: f64,
    pub bands: Vec<f64>,
    pub racing: bool,
    pub every: bool,
    pub careful: bool,
}

/// Run `race` over the worlds of `drawn`, drawing more with `next` as needed, each valued by `value`
/// (the active moves' indices in, their values out), until `stop` says so or `over_budget` (asked
/// with `short` true while a careful race has fewer than `stop.min_samples` worlds, `race.run_race`):
/// how many worlds were searched, and whether the node budget stopped it.
pub fn run_race<W: Clone, E>(
    race: &mut Race,
    drawn: &mut Vec<(W, f64, u64)>,
    mut next: impl FnMut() -> Result<(W, f64, u64), E>,
    mut value: impl FnMut(&W, &[usize]) -> Result<Vec<Valued>, E>,
    stop: &Stopping,
    detail: bool,
    mut over_budget: impl FnMut(bool) -> bool,
) -> Result<(usize, bool), E> {
    let verdict = race.focus.is_some() && !stop.bands.is_empty();
    let careful = verdict || stop.careful;
    let z = if careful {
        SETTLE * stop.separation
    } else {
        stop.separation
    };
    let min_paired = if careful {
        MIN_PAIRED.max(stop.min_samples)
    } else {
        MIN_PAIRED
    };
    let floor = if careful {
        stop.min_samples.min(stop.samples)
    } else {
        0
    };
    let mut done = 0;
    while done < stop.samples {
        if done == drawn.len() {
            drawn.push(next()?);
        }
        let (world, weight, group) = drawn[done].clone();
        let active = race.active.clone();
        let valued = value(&world, &active)?;
        race.add(weight, valued, group, detail);
        done += 1;
        if done >= stop.samples {
            break;
        }
        if over_budget(done < floor) {
            return Ok((done, true));
        }
        if stop.racing && done >= MIN_PAIRED {
            let decided = race.update(z, stop.margin, min_paired);
            if stop.every || done < stop.min_samples {
                continue;
            }
            if verdict {
                if race.loss_band(z, &stop.bands).is_some() {
                    break;
                }
            } else if decided {
                break;
            }
        }
    }
    Ok((done, false))
}

/// The solver of a decision and the shallower ones it falls back on (`expectimax._Ladder`).
pub struct Ladder {
    rules: Rules,
    root_side: u8,
    nsides: u8,
    in_hands: u32,
    eval: Evaluator,
    order: MoveOrder,
    pub solvers: Vec<Solver>,
    /// The depths still to fall back on (`FALLBACK_DEPTHS` deeper than the horizon).
    depths: Vec<u32>,
    budget: Option<u64>,
    cap: Option<i64>,
    pub shallow: bool,
    /// Whether each move's principal line is read back from the table (true unless the caller only
    /// ranks the moves: `DecisionWorlds.rank`).
    pub lines: bool,
}

impl Ladder {
    /// The ladder from `horizon`, going on through a 2-player round's last deal with `next_deal`
    /// (`Solver::next_deal`; its fallbacks do not), falling back on `depths` (plies from now,
    /// deepest first).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        rules: &Rules,
        root_side: u8,
        nsides: u8,
        horizon: u32,
        next_deal: bool,
        in_hands: u32,
        depths: Vec<u32>,
        budget: Option<u64>,
        cap: Option<i64>,
        eval: Evaluator,
        order: MoveOrder,
    ) -> Ladder {
        let mut ladder = Ladder {
            rules: rules.clone(),
            root_side,
            nsides,
            in_hands,
            eval,
            order,
            solvers: Vec::new(),
            depths,
            budget,
            cap,
            shallow: false,
            lines: true,
        };
        ladder.push(horizon);
        ladder.solvers[0].next_deal = next_deal;
        ladder
    }

    fn push(&mut self, horizon: u32) {
        let solver = Solver::new(
            &self.rules,
            self.root_side,
            self.nsides,
            horizon,
            self.eval.clone(),
            self.order.clone(),
        );
        self.solvers.push(solver);
    }

    pub fn nodes(&self) -> u64 {
        self.solvers.iter().map(|s| s.nodes).sum()
    }

    /// Whether the decision's node budget is spent; with `short`, whether all but a budget of the
    /// cap is (`_Ladder.over_budget`).
    pub fn over_budget(&self, short: bool) -> bool {
        match (self.budget, self.cap) {
            (Some(b), Some(cap)) if short => self.nodes() as i64 >= cap - b as i64,
            (Some(b), _) => self.nodes() >= b,
            _ => false,
        }
    }

    /// Each move's value in this world, searched shallower when the budget runs out
    /// (`_Ladder.root_values`).
    pub fn root_values(&mut self, state: &State, moves: &[Move]) -> Vec<RootValue> {
        loop {
            let spent = self.nodes() as i64;
            let fallback = !self.depths.is_empty();
            let solver = self.solvers.last_mut().expect("a ladder has a solver");
            let mut limit: i64 = match self.budget {
                Some(b) if fallback => solver.nodes as i64 + b as i64,
                _ => 1 << 62,
            };
            if let (Some(cap), true) = (self.cap, fallback) {
                limit = limit.min(solver.nodes as i64 + (cap - spent).max(0));
            }
            solver.node_limit = limit as u64;
            match solver.root_values_lined(state, moves, self.lines) {
                Ok(values) => return values,
                Err(OutOfNodes) => {
                    if self.cap.is_some_and(|cap| self.nodes() as i64 >= cap) {
                        let last = self.depths.len() - 1;
                        self.depths.drain(..last);
                    }
                    let depth = self.depths.remove(0);
                    self.push(self.in_hands - depth);
                    self.shallow = true;
                }
            }
        }
    }
}

/// Where a decision's worlds come from (`expectimax._worlds`).
#[derive(Clone, Debug)]
pub enum Source {
    /// Every world or class, shuffled, with its weight (an enumeration, `_weighted`).
    Listed(Vec<(World, f64)>),
    /// Draws in proportion to the evidence (`_with_evidence`), at a regret scale, in so many draws,
    /// from the observation's sampler once the first world is asked for (where its errors come).
    Evidence(Likelihood, f64, u32, Option<Sampler>),
    /// Balanced passes (`balanced_passes`), each world made its class's with a canon.
    Passes(Box<BalancedPasses>, Option<Canon>),
    /// Every world once, shuffled, in balanced passes (`_shuffled` of `in_passes`), each made its
    /// class's with a canon; how many there are.
    InPasses(Box<InPasses>, Option<Canon>, usize),
}

/// How a decision's worlds are dealt (`expectimax._worlds`): which source, and with what.
#[derive(Clone, Debug)]
pub enum Dealing {
    /// Every world (`enumerate_worlds`), or every class (`world_classes`), weighed by the evidence.
    Enumerate {
        classes: bool,
        weigh: Option<(Likelihood, f64)>,
    },
    /// Draws in proportion to the evidence (`sample_with_evidence`).
    Evidence {
        weigh: (Likelihood, f64),
        max_draws: u32,
    },
    /// Every world (`enumerate_worlds`) at most once, shuffled and put in passes (`InPasses`), each
    /// replaced by its class's canonical world with `canonical` (`expectimax.shuffles`).
    Shuffled { canonical: bool },
    /// Balanced passes, canonical worlds with `canonical`.
    Passes { canonical: bool },
}

/// The world stream of one decision and the worlds drawn from it so far, in order, so that a
/// second race (a shallower search of the same decision) goes over the same worlds.
#[derive(Clone, Debug)]
pub struct Worlds {
    rules: Rules,
    pub obs: Observation,
    pub rng: Random,
    source: Source,
    streamed: u64,
    pub drawn: Vec<(World, f64, u64)>,
    /// The number of worlds of an enumeration, or of worlds taken without replacement.
    pub population: Option<usize>,
    /// Whether the worlds are taken without replacement (`Dealing::Shuffled`), for a race that
    /// may stop before every one is searched.
    pub shuffled: bool,
}

impl Worlds {
    /// The stream of `obs`'s worlds, from `rng` (the decision's generator, as yet unused).
    pub fn new(
        rules: &Rules,
        obs: &Observation,
        mut rng: Random,
        dealing: Dealing,
    ) -> Result<Worlds, WorldsError> {
        let shuffled = matches!(dealing, Dealing::Shuffled { .. });
        let source = match dealing {
            Dealing::Shuffled { canonical } => {
                let mut listed = worlds::enumerate_worlds(rules, obs)?;
                rng.shuffle(&mut listed);
                let canon = if canonical { Canon::of(obs).ok() } else { None };
                let count = listed.len();
                Source::InPasses(Box::new(InPasses::new(obs, listed)?), canon, count)
            }
            Dealing::Enumerate { classes, weigh } => {
                let mut listed = if classes {
                    worlds::world_classes(rules, obs)?
                } else {
                    worlds::enumerate_worlds(rules, obs)?
                };
                rng.shuffle(&mut listed);
                let weighted = listed
                    .into_iter()
                    .map(|w| {
                        let weight = match &weigh {
                            Some((lk, scale)) => w.probability * lk.weight(&w.hands, *scale),
                            None => w.probability * 1.0,
                        };
                        (w, weight)
                    })
                    .collect();
                Source::Listed(weighted)
            }
            Dealing::Evidence { weigh, max_draws } => Source::Evidence(weigh.0, weigh.1, max_draws, None),
            Dealing::Passes { canonical } => {
                let canon = if canonical { Canon::of(obs).ok() } else { None };
                Source::Passes(Box::new(BalancedPasses::new(rules, obs)), canon)
            }
        };
        let population = match &source {
            Source::Listed(ws) => Some(ws.len()),
            Source::InPasses(_, _, count) => Some(*count),
            _ => None,
        };
        Ok(Worlds {
            rules: rules.clone(),
            obs: *obs,
            rng,
            source,
            streamed: 0,
            drawn: Vec::new(),
            population,
            shuffled,
        })
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The stream's next world, its weight and its group.
    pub fn next_world(&mut self) -> Result<(World, f64, u64), WorldsError> {
        let i = self.streamed;
        let got = match &mut self.source {
            Source::Listed(ws) => {
                let (w, weight) = *ws
                    .get(i as usize)
                    .ok_or_else(|| WorldsError("no world left in the enumeration".into()))?;
                (w, weight, i)
            }
            Source::Evidence(lk, scale, max_draws, sampler) => {
                let sampler = match sampler {
                    Some(sampler) => sampler,
                    None => sampler.insert(Sampler::new(&self.rules, &self.obs)?),
                };
                let w = draw_with_evidence(
                    sampler,
                    &self.rules,
                    &self.obs,
                    &mut self.rng,
                    Some((lk, *scale)),
                    *max_draws,
                )?;
                (w, 1.0, i)
            }
            Source::InPasses(passes, canon, _) => {
                let mut w = passes
                    .next_world()
                    .ok_or_else(|| WorldsError("no world left in the enumeration".into()))?;
                if let Some(canon) = canon {
                    w = canon.world(&w, self.obs.nplayers());
                }
                (w, w.probability, i)
            }
            Source::Passes(passes, canon) => {
                let (mut w, pass) = passes.next_world(&self.rules, &mut self.rng)?;
                if let Some(canon) = canon {
                    w = canon.world(&w, self.obs.nplayers());
                }
                (w, 1.0, pass)
            }
        };
        self.streamed += 1;
        Ok(got)
    }
}

/// The race of one decision at one depth over `worlds` (an attempt of `expectimax.evaluate`): each
/// world valued by `ladder` for the active ones of `moves`, with `detail` what happens along each
/// line too. How many worlds were searched, and whether the node budget stopped it.
pub fn race_decision(
    worlds: &mut Worlds,
    ladder: &mut Ladder,
    race: &mut Race,
    moves: &[Move],
    stop: &Stopping,
    detail: bool,
) -> Result<(usize, bool), WorldsError> {
    let obs = worlds.obs;
    let mut drawn = std::mem::take(&mut worlds.drawn);
    let ladder_cell = std::cell::RefCell::new(ladder);
    let got = run_race(
        race,
        &mut drawn,
        || worlds.next_world(),
        |world: &World, active: &[usize]| {
            let state = world_state(&obs, world);
            let wm: Vec<Move> = active.iter().map(|&i| moves[i]).collect();
            let mut ladder = ladder_cell.borrow_mut();
            let values = ladder.root_values(&state, &wm);
            let last = ladder.solvers.last_mut().expect("a ladder has a solver");
            Ok(active
                .iter()
                .zip(values)
                .map(|(&i, rv)| {
                    let outcome = detail.then(|| follow(last, &state, rv.mv, None, rv.value).1);
                    (i, rv.value, rv.line[1..].to_vec(), outcome)
                })
                .collect())
        },
        stop,
        detail,
        |short| ladder_cell.borrow().over_budget(short),
    );
    worlds.drawn = drawn;
    got
}

/// `round(value, 9)` as Python rounds it (`result.VALUE_DIGITS`): the decimal string correctly
/// rounded, ties to even, read back (Python's `round` goes through the same two steps).
pub fn round_value(value: f64) -> f64 {
    format!("{value:.9}").parse().unwrap_or(value)
}

/// `expectimax._ranked` without a move in focus: the indices of the moves best first, by the value
/// rounded to 9 decimals (`result.value_key`), then those searched in every world first, then
/// `result.natural_key` (a capture, a build, a trail; more cards taken first), then the move itself.
/// None where a value is not finite (Python then orders them and says which move has no value).
pub fn ranked_order(moves: &[Move], values_se: &[(f64, f64)], complete: &[bool]) -> Option<Vec<usize>> {
    if values_se.iter().any(|(ev, _)| !ev.is_finite()) {
        return None;
    }
    let rounded: Vec<f64> = values_se.iter().map(|&(ev, _)| round_value(ev)).collect();
    // `natural_key` and then the move's fields, as Python compares the tuples.
    let natural = |m: &Move| {
        let kind = match m.action {
            CAPTURE => 0,
            BUILD => 1,
            _ => 2,
        };
        (
            kind,
            std::cmp::Reverse(m.take.count_ones()),
            m.card,
            m.action,
            m.take,
            m.value,
        )
    };
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_by(|&a, &b| {
        // The higher value first; finite (checked above), and -0.0 equal to 0.0 as in Python.
        rounded[b]
            .partial_cmp(&rounded[a])
            .expect("finite values")
            .then(complete[b].cmp(&complete[a]))
            .then_with(|| natural(&moves[a]).cmp(&natural(&moves[b])))
    });
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_as_python_rounds_them() {
        // (value, Python's round(value, 9)): exact ties go to the even digit.
        let cases = [
            (0.0009765625, 0.000976562),
            (0.0029296875, 0.002929688),
            (0.0048828125, 0.004882812),
            (0.0068359375, 0.006835938),
            (-0.0126953125, -0.012695312),
            (-0.0146484375, -0.014648438),
            (1.0000000005, 1.000000001),
            (0.30000000000000004, 0.3),
            (0.6666666666666666, 0.666666667),
            (-0.3333333333333333, -0.333333333),
            (12.3456789015, 12.345678901),
        ];
        for (value, rounded) in cases {
            assert_eq!(round_value(value).to_bits(), f64::to_bits(rounded), "{value}");
        }
    }

    #[test]
    fn moves_rank_by_rounded_value_then_naturally() {
        let trail = Move::trail(3);
        let capture = Move {
            card: 5,
            action: CAPTURE,
            take: 1 << 9 | 1 << 22,
            value: 4,
        };
        let small = Move {
            card: 6,
            action: CAPTURE,
            take: 1 << 9,
            value: 4,
        };
        let moves = [trail, small, capture];
        // Equal to 9 decimals: the capture taking more first, then the other capture, then the trail.
        let values = [(1.0, 0.0), (1.0000000001, 0.0), (0.9999999999, 0.0)];
        assert_eq!(ranked_order(&moves, &values, &[true; 3]), Some(vec![2, 1, 0]));
        // A move some world did not search comes after the equal ones searched in every world,
        // whatever its kind.
        assert_eq!(
            ranked_order(&moves, &values, &[true, true, false]),
            Some(vec![1, 0, 2])
        );
        assert_eq!(
            ranked_order(&moves, &[(2.0, 0.0), (1.0, 0.0), (3.0, 0.0)], &[true; 3]),
            Some(vec![2, 0, 1])
        );
        assert_eq!(
            ranked_order(&moves, &[(f64::NAN, 0.0), (1.0, 0.0), (3.0, 0.0)], &[true; 3]),
            None
        );
    }

    #[test]
    fn t_factors_are_the_references() {
        assert_eq!(t_factor(0), 12.71 / 1.96);
        assert_eq!(t_factor(2), 12.71 / 1.96);
        assert_eq!(t_factor(12), 2.228 / 1.96);
        assert_eq!(t_factor(14), 2.179 / 1.96);
        assert_eq!(t_factor(31), 2.042 / 1.96);
        assert_eq!(t_factor(32), 1.0);
    }

    #[test]
    fn python_max_keeps_the_first_of_equals_and_drops_a_nan() {
        assert!(py_max(0.0, -0.0).is_sign_positive());
        assert_eq!(py_max(0.0, f64::NAN), 0.0);
        assert_eq!(py_max(1.0, 2.0), 2.0);
        assert_eq!(bisect_right(&[0.2, 0.5, 1.0], 0.5), 2);
        assert_eq!(bisect_right(&[0.2, 0.5, 1.0], f64::NAN), 3);
    }

    #[test]
    fn python_sums_are_cpythons() {
        let tenths = || std::iter::repeat_n(0.1, 10);
        // Python 3.11: sum([0.1] * 10) == 0.9999999999999999; 3.12: 1.0.
        assert_eq!(py_sum(tenths(), false), 0.9999999999999999);
        assert_eq!(py_sum(tenths(), true), 1.0);
        // 3.12: sum([1e100, 1.0, -1e100, 1.0]) == 2.0, where a plain sum loses the first 1.0.
        let big = || [1e100, 1.0, -1e100, 1.0].into_iter();
        assert_eq!((py_sum(big(), false), py_sum(big(), true)), (1.0, 2.0));
        assert_eq!(py_sum([f64::INFINITY, 1.0].into_iter(), true), f64::INFINITY);
        assert!(py_sum([-0.0].into_iter(), true) == 0.0 && py_sum(std::iter::empty(), true) == 0.0);
    }

    #[test]
    fn a_control_fit_corrects_the_mean_towards_the_features_means() {
        // 60 worlds, one feature held in a third of them where its mean is a half, the value 2 x + 1:
        // the plain mean is 1.67, the corrected one near 2 (the ridge keeps it a little short).
        let rows: Vec<Vec<f64>> = (0..60)
            .map(|i| vec![if i % 3 == 0 { 1.0 } else { 0.0 }])
            .collect();
        let values: Vec<f64> = rows.iter().map(|r| 2.0 * r[0] + 1.0).collect();
        let fit = ControlFit::fit(&rows, &[0.5], 1.0, false);
        let (mean, se, n) = fit.stats(&values, None);
        assert!((mean - 2.0).abs() < 0.05 && n == 60, "{mean}");
        assert!(se < 0.05, "{se}");
        let groups: Vec<u64> = (0..60).map(|i| i / 4).collect();
        assert_eq!(fit.stats(&values, Some(&groups)).0, mean);
    }

    #[test]
    fn paired_stats_take_the_worlds_searched_and_know_an_enumeration() {
        let nan = f64::NAN;
        // Worlds 1, 2 and 4 count (world 3 was not searched, world 5 weighs nothing).
        let diffs = [1.0, 2.0, nan, 4.0, 9.0];
        let weights = [1.0, 1.0, 1.0, 1.0, 0.0];
        let groups = [0, 1, 2, 3, 4];
        let (mean, se, n) = paired_stats(&diffs, &weights, None, Some(&groups));
        assert_eq!((mean, n), (7.0 / 3.0, 3));
        let spread = py_square(1.0 - mean) + py_square(2.0 - mean) + py_square(4.0 - mean);
        assert_eq!(se, (spread / 3.0 * 3.0 / 2.0 / 3.0).sqrt());
        assert_eq!(paired_stats(&diffs, &weights, Some(3), None).1, 0.0);
        assert!(paired_stats(&diffs, &weights, Some(4), None).1 < se);
        assert_eq!(paired_stats(&[nan], &[1.0], None, None), (0.0, f64::INFINITY, 0));
    }

    #[test]
    fn a_move_that_left_the_race_is_valued_by_its_difference_to_the_best_and_never_above_it() {
        let mut race = Race::new(2, None, &[0, 1]);
        race.values = vec![vec![1.0, 2.0, 3.0, 4.0, 5.0], vec![3.0, 4.5, 5.0, 6.0, f64::NAN]];
        race.weights = vec![1.0; 5];
        race.groups = (0..5).collect();
        let got = race.results(None);
        assert_eq!(got[0].0, 3.0);
        // Ahead of the complete move where it was searched, it is not valued above it.
        assert_eq!(got[1].0, 3.0);
        assert!(got[1].1 > got[0].1);
    }

    #[test]
    fn a_move_clearly_behind_leaves_the_race_and_the_focus_stays() {
        let mut race = Race::new(3, Some(2), &[0, 1, 2]);
        let stop = Stopping {
            samples: 12,
            min_samples: 4,
            separation: 2.0,
            margin: 0.2,
            bands: vec![],
            racing: true,
            every: false,
            careful: false,
        };
        let mut drawn = Vec::new();
        let mut k = 0u64;
        let got: Result<_, ()> = run_race(
            &mut race,
            &mut drawn,
            || {
                k += 1;
                Ok((k, 1.0, k))
            },
            |&world: &u64, active: &[usize]| {
                let w = (world % 3) as f64 * 0.01;
                Ok(active
                    .iter()
                    .map(|&i| (i, [1.0 + w, -3.0 + w, -2.0 - w][i], vec![], None))
                    .collect())
            },
            &stop,
            false,
            |_| false,
        );
        let (done, spent) = got.unwrap();
        // The focus, far behind, keeps the race undecided to the sample limit.
        assert!(!spent && done == 12);
        assert_eq!(race.active, vec![0, 2]);
        assert!(race.values[1].iter().any(|v| v.is_nan()));
        assert_eq!(drawn.len(), done);
    }
}
