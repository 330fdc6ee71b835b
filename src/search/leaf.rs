//! Values of positions in points (`casino_coach/search/leaf.py`): the exact value of a finished
//! round (`final_points`, `Evaluator::final_value`) and the estimate at a search leaf
//! (`Evaluator::leaf`: the handmade card odds for two sides and for three or four, or the learned
//! deal-end value), from one root side's point of view, and by scoring category
//! (`Evaluator::parts`).
//!
//! Every value is bit for bit the Python reference's: the same floating-point operations in the same
//! order. An `int` meeting a `float` in Python is converted where Python converts it; `x ** k` is
//! libm's `pow`, as CPython calls it (never `powi`, which differs in the last bit); a sum of floats
//! adds left to right from 0 (`leaf.plain_sum`); a dict of categories is walked in the order its
//! keys were first credited. Python's caches become tables built once per `Evaluator` (powers of
//! the measured odds, the binomial laws of the majorities) and a binomial-coefficient table built at
//! compile time; a call allocates nothing.

use std::cell::RefCell;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::engine::cards::{
    count, iter_cards, rank, rank_mask, Mask, ACES_MASK, BIG_CASINO, FULL_DECK, LITTLE_CASINO, NUM_CARDS,
    SPADES_MASK,
};
use crate::engine::rules::{MajorityTie, Rules, SweepCancellation3p};
use crate::engine::state::{State, MAX_SEATS};

const BIG: Mask = 1 << BIG_CASINO;
const LITTLE: Mask = 1 << LITTLE_CASINO;
/// Cards dealt to each player per deal (`state.HAND_SIZE`, rules.md 1.3).
const HAND_SIZE: u32 = 4;
/// Entries of a distribution over 0..=52 cards.
const N: usize = NUM_CARDS + 1;

// ---------------------------------------------------------------------------------------------------
// Scoring categories

/// The words of `Evaluator::leaf_key`.
pub const LEAF_KEY_WORDS: usize = 8;

/// The scoring categories a value is made of (`leaf.CATEGORIES`, with each ace by its card number as
/// Python's `"ace" + card` keys): the majorities, the cash cards, the sweeps, the last capture.
pub const CATEGORY_NAMES: [&str; NUM_CATEGORIES] = [
    "cards", "spades", "big", "little", "ace0", "ace1", "ace2", "ace3", "sweeps", "last",
];
pub const NUM_CATEGORIES: usize = 10;
const CARDS: usize = 0;
const SPADES: usize = 1;
const BIG_KEY: usize = 2;
const LITTLE_KEY: usize = 3;
const ACE_KEY: usize = 4; // + the ace's card number (0..3)
const SWEEPS: usize = 8;
const LAST: usize = 9;

/// The index of a category name in `CATEGORY_NAMES`.
pub fn category_index(name: &str) -> Option<usize> {
    CATEGORY_NAMES.iter().position(|&c| c == name)
}

/// Points per category and side (Python's `Parts`, a dict), with the categories in the order they
/// were first credited: Python walks the dict in that order, and the sums follow it.
#[derive(Clone, Copy, Debug)]
pub struct Parts {
    points: [[f64; MAX_SEATS]; NUM_CATEGORIES],
    order: [u8; NUM_CATEGORIES],
    len: u8,
    present: u16,
}

impl Default for Parts {
    fn default() -> Self {
        Parts {
            points: [[0.0; MAX_SEATS]; NUM_CATEGORIES],
            order: [0; NUM_CATEGORIES],
            len: 0,
            present: 0,
        }
    }
}

impl Parts {
    #[inline]
    fn add(&mut self, key: usize, side: usize, value: f64) {
        if self.present & (1 << key) == 0 {
            self.present |= 1 << key;
            self.order[self.len as usize] = key as u8;
            self.len += 1;
        }
        self.points[key][side] += value;
    }

    /// The categories credited, first credited first, each with its points per side.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &[f64; MAX_SEATS])> + '_ {
        self.order[..self.len as usize]
            .iter()
            .map(move |&k| (k as usize, &self.points[k as usize]))
    }
}

/// Each category of a value as a margin of the root side (`leaf.side_parts`), in Python's order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Margins {
    keys: [u8; NUM_CATEGORIES],
    values: [f64; NUM_CATEGORIES],
    len: u8,
}

impl Margins {
    /// (category name, margin), in the order Python's dict has them.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        (0..self.len as usize).map(move |i| (CATEGORY_NAMES[self.keys[i] as usize], self.values[i]))
    }

    /// (category's index in `CATEGORY_NAMES`, margin), in the order Python's dict has them.
    pub fn indexed(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        (0..self.len as usize).map(move |i| (self.keys[i] as usize, self.values[i]))
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The margin of one category, if it was credited.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.iter().find(|&(k, _)| k == name).map(|(_, v)| v)
    }
}

/// Points per side.
type Pts = [f64; MAX_SEATS];

/// `leaf._credit`: to the side's points, and to its category when the categories are asked for.
#[inline(always)]
fn credit(pts: &mut Pts, parts: &mut Option<&mut Parts>, key: usize, side: usize, value: f64) {
    pts[side] += value;
    if let Some(p) = parts {
        p.add(key, side, value);
    }
}

/// `leaf.plain_sum`: floats added left to right from 0 (CPython 3.11's `sum()`; from 3.12 on
/// `sum()` compensates, which is why the reference spells the loop out).
#[inline]
fn py_sum(xs: &[f64]) -> f64 {
    let mut t = 0.0;
    for &x in xs {
        t += x;
    }
    t
}

/// Python's `max(0.0, x)`: the first argument unless the second is strictly greater.
#[inline]
fn py_max0(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// A side's points minus the mean of the other sides' points (`leaf.side_value`).
pub fn side_value(points: &[f64], side: usize) -> f64 {
    let n = points.len();
    points[side] - (py_sum(points) - points[side]) / (n - 1) as f64
}

// ---------------------------------------------------------------------------------------------------
// A finished round

/// Points of one majority item per side for final counts (`leaf._majority_share`, rules.md 1.12, S10).
fn majority_share(counts: &[u32], points: i64, tie: MajorityTie) -> Pts {
    let mut out = [0.0; MAX_SEATS];
    let best = counts.iter().copied().max().unwrap_or(0);
    if points == 0 || best == 0 {
        return out;
    }
    let ntop = counts.iter().filter(|&&c| c == best).count();
    if ntop == 1 {
        let s = counts.iter().position(|&c| c == best).unwrap_or(0);
        out[s] = points as f64;
    } else if tie == MajorityTie::Split {
        for (s, &c) in counts.iter().enumerate() {
            if c == best {
                out[s] = points as f64 / ntop as f64;
            }
        }
    }
    out
}

/// Sweeps per side after cancelling (`scoring.net_sweeps`, rules.md 1.10, S2, S3).
fn net_sweeps(rules: &Rules, sweeps: &[u32]) -> [i64; MAX_SEATS] {
    let n = sweeps.len();
    let mut out = [0i64; MAX_SEATS];
    for s in 0..n {
        out[s] = sweeps[s] as i64;
    }
    if !rules.sweep_cancellation {
        return out;
    }
    if n == 2 {
        out[0] = (sweeps[0] as i64 - sweeps[1] as i64).max(0);
        out[1] = (sweeps[1] as i64 - sweeps[0] as i64).max(0);
    } else if rules.sweep_cancellation_3p == SweepCancellation3p::NetVsMax {
        for s in 0..n {
            let most = (0..n).filter(|&o| o != s).map(|o| sweeps[o]).max().unwrap_or(0);
            out[s] = (sweeps[s] as i64 - most as i64).max(0);
        }
    }
    out
}

/// `leaf._credit_owned`: what the piles already hold for sure (sweeps, aces, Big and Little Casino).
fn credit_owned(rules: &Rules, pts: &mut Pts, parts: &mut Option<&mut Parts>, s: &State) {
    let n = s.nsides as usize;
    let sweeps = &s.sweeps[..n];
    if rules.sweeps && sweeps.iter().any(|&x| x != 0) && rules.points_sweep != 0 {
        // `sweep_points`: zeros unless sweeps score (rules.md 1.10, S1-S3)
        let net = net_sweeps(rules, sweeps);
        for (side, &x) in net[..n].iter().enumerate() {
            let v = (x * rules.points_sweep) as f64;
            if v != 0.0 {
                credit(pts, parts, SWEEPS, side, v);
            }
        }
    }
    let ace = rules.points_ace;
    for (side, &p) in s.captured[..n].iter().enumerate() {
        if parts.is_none() {
            // The search's hot path: one integer sum, as Python adds it.
            let owned = ace * count(p & ACES_MASK) as i64
                + if p & BIG != 0 { rules.points_big } else { 0 }
                + if p & LITTLE != 0 { rules.points_little } else { 0 };
            pts[side] += owned as f64;
            continue;
        }
        if ace != 0 {
            for c in iter_cards(p & ACES_MASK) {
                credit(pts, parts, ACE_KEY + c as usize, side, ace as f64);
            }
        }
        if p & BIG != 0 {
            credit(pts, parts, BIG_KEY, side, rules.points_big as f64);
        }
        if p & LITTLE != 0 {
            credit(pts, parts, LITTLE_KEY, side, rules.points_little as f64);
        }
    }
}

fn credit_majority(pts: &mut Pts, parts: &mut Option<&mut Parts>, key: usize, share: &Pts, n: usize) {
    for (s, &v) in share[..n].iter().enumerate() {
        if v != 0.0 {
            credit(pts, parts, key, s, v);
        }
    }
}

fn final_points_into(rules: &Rules, s: &State, mut parts: Option<&mut Parts>) -> Pts {
    let n = s.nsides as usize;
    let piles = &s.captured[..n];
    let mut pts = [0.0; MAX_SEATS];
    let mut counts = [0u32; MAX_SEATS];
    let mut spades = [0u32; MAX_SEATS];
    for (i, &p) in piles.iter().enumerate() {
        counts[i] = count(p);
        spades[i] = count(p & SPADES_MASK);
    }
    let share = majority_share(&counts[..n], rules.points_cards, rules.majority_tie);
    credit_majority(&mut pts, &mut parts, CARDS, &share, n);
    let share = majority_share(&spades[..n], rules.points_spades, rules.majority_tie);
    credit_majority(&mut pts, &mut parts, SPADES, &share, n);
    credit_owned(rules, &mut pts, &mut parts, s);
    if rules.last_capture_point != 0 && s.last_capturer >= 0 {
        let side = s.last_capturer as usize;
        credit(&mut pts, &mut parts, LAST, side, rules.last_capture_point as f64);
    }
    pts
}

/// Round points per side of a played-out round with game scores 0 (`leaf.final_points`, as
/// `scoring.score_round` gives them, rules.md 1.12); sides past `s.nsides` are 0.
pub fn final_points(rules: &Rules, s: &State) -> [f64; MAX_SEATS] {
    final_points_into(rules, s, None)
}

/// Like `final_points`, collecting the points by category as well.
pub fn final_parts(rules: &Rules, s: &State) -> Parts {
    let mut parts = Parts::default();
    final_points_into(rules, s, Some(&mut parts));
    parts
}

// ---------------------------------------------------------------------------------------------------
// Majorities as probabilities

/// `math.comb(n, k)` for n <= 52, as floats (exact: every one is below 2**53).
static COMB: [[f64; N]; N] = {
    let mut ints = [[0u64; N]; N];
    let mut out = [[0.0f64; N]; N];
    let mut n = 0;
    while n < N {
        ints[n][0] = 1;
        let mut k = 1;
        while k <= n {
            ints[n][k] = ints[n - 1][k - 1] + if k < n { ints[n - 1][k] } else { 0 };
            k += 1;
        }
        let mut k = 0;
        while k <= n {
            out[n][k] = ints[n][k] as f64;
            k += 1;
        }
        n += 1;
    }
    out
};

/// The binomial laws of one item among `k` sides (`leaf._binom_pmf`, `_binom_cdf_lt`), and the
/// majority odds read from them (`leaf.majority_odds`).
#[derive(Clone)]
pub struct MajorityOdds {
    k: usize,
    /// P(X = x) for X ~ Binomial(n, 1/k): `pmf[n][x]`.
    pmf: [[f64; N]; N],
    /// P(X < t): `cdf[n][t]`, t = 0..n+1.
    cdf: [[f64; N + 1]; N],
    /// `3.0 ** -n`.
    scale3: [f64; N],
}

impl fmt::Debug for MajorityOdds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MajorityOdds({} sides)", self.k)
    }
}

impl MajorityOdds {
    pub fn new(k: usize) -> Box<MajorityOdds> {
        assert!((2..=MAX_SEATS).contains(&k), "majority odds of {k} sides");
        let mut t = Box::new(MajorityOdds {
            k,
            pmf: [[0.0; N]; N],
            cdf: [[0.0; N + 1]; N],
            scale3: [0.0; N],
        });
        let p = 1.0 / k as f64;
        let q = 1.0 - p;
        let mut pp = [0.0; N];
        let mut qq = [0.0; N];
        for x in 0..N {
            pp[x] = p.powf(x as f64);
            qq[x] = q.powf(x as f64);
            t.scale3[x] = 3.0f64.powf(-(x as f64));
        }
        for n in 0..N {
            for x in 0..=n {
                t.pmf[n][x] = COMB[n][x] * pp[x] * qq[n - x];
            }
            let mut acc = 0.0;
            for x in 0..=n {
                acc += t.pmf[n][x];
                t.cdf[n][x + 1] = acc;
            }
        }
        t
    }

    /// (P(side s ends with strictly the most), P(the most is tied)) when `remaining` more items go to
    /// the `k` sides uniformly at random (`leaf.majority_odds`): exact for 2 and 3 sides; for 4 each
    /// side's share is taken as an independent binomial.
    pub fn odds(&self, counts: &[u32], remaining: u32) -> ([f64; MAX_SEATS], f64) {
        let n = self.k;
        debug_assert_eq!(counts.len(), n);
        let mut wins = [0.0; MAX_SEATS];
        let r = remaining as usize;
        if r == 0 {
            let best = counts.iter().copied().max().unwrap_or(0);
            if counts.iter().filter(|&&c| c == best).count() == 1 {
                wins[counts.iter().position(|&c| c == best).unwrap_or(0)] = 1.0;
                return (wins, 0.0);
            }
            return (wins, 1.0);
        }
        let pmf = &self.pmf[r];
        if n == 2 {
            // Side 0 gets X, side 1 gets remaining - X.
            let d = counts[0] as i64 - counts[1] as i64;
            let (mut p0, mut p1) = (0.0, 0.0);
            for (x, &p) in pmf[..=r].iter().enumerate() {
                let diff = d + 2 * x as i64 - r as i64;
                if diff > 0 {
                    p0 += p;
                } else if diff < 0 {
                    p1 += p;
                }
            }
            wins[0] = p0;
            wins[1] = p1;
            return (wins, py_max0(1.0 - p0 - p1));
        }
        if n == 3 {
            return self.three_sides(counts, r);
        }
        let cdf = &self.cdf[r];
        for s in 0..n {
            let mut total = 0.0;
            for (x, &px) in pmf[..=r].iter().enumerate() {
                let t = counts[s] as i64 + x as i64;
                let mut prod = px;
                for (o, &co) in counts.iter().enumerate() {
                    if o != s {
                        let lim = t - co as i64; // the other side needs fewer than lim more
                        prod *= cdf[lim.clamp(0, r as i64 + 1) as usize];
                        if prod == 0.0 {
                            break;
                        }
                    }
                }
                total += prod;
            }
            wins[s] = total;
        }
        (wins, py_max0(1.0 - py_sum(&wins[..n])))
    }

    /// `leaf._three_sides`: exact multinomial over the (r + 1)(r + 2) / 2 splits. For each x0 the
    /// splits one side wins are a run of x1, so each side's run is added on its own: every side's
    /// terms come in Python's order (x0, then x1, increasing), without a branch per split.
    fn three_sides(&self, counts: &[u32], remaining: usize) -> ([f64; MAX_SEATS], f64) {
        let mut wins = [0.0; MAX_SEATS];
        let scale = self.scale3[remaining];
        let (c0, c1, c2) = (counts[0] as i64, counts[1] as i64, counts[2] as i64);
        for (x0, &ways) in COMB[remaining][..=remaining].iter().enumerate() {
            let a = ways * scale;
            let r = remaining - x0;
            let ri = r as i64;
            let t0 = c0 + x0 as i64;
            let row = &COMB[r];
            // side 1 takes x1, side 2 the other r - x1; ties for the most score for nobody
            let d = c2 + ri - c1; // t1 > t2 when 2 x1 > d
            let runs = [
                // side 0: t0 > c1 + x1 and t0 > c2 + r - x1
                (0, (c2 + ri - t0 + 1).max(0), (t0 - c1 - 1).min(ri)),
                // side 1: c1 + x1 > t0 and 2 x1 > d
                (1, (t0 - c1 + 1).max(d.div_euclid(2) + 1).max(0), ri),
                // side 2: c2 + r - x1 > t0 and 2 x1 < d
                (2, 0, (c2 + ri - t0 - 1).min((d - 1).div_euclid(2)).min(ri)),
            ];
            for (side, lo, hi) in runs {
                let mut w = wins[side];
                for x1 in lo..=hi {
                    w += a * row[x1 as usize];
                }
                wins[side] = w;
            }
        }
        (wins, py_max0(1.0 - py_sum(&wins[..3])))
    }
}

/// Answers of `MajorityOdds::odds` remembered per thread, by a hash of the question.
const ODDS_MEMO_BITS: u32 = 12;

thread_local! {
    static ODDS_MEMO: RefCell<Vec<(u64, [f64; MAX_SEATS], f64)>> = const { RefCell::new(Vec::new()) };
}

/// `odds.odds(counts, remaining)`, remembered: the odds are a function of the number of sides, the
/// counts and the items still out alone, and a search of three or four sides asks the same question
/// at most of its leaves (the counts change only with a capture), where working it out again was
/// half of the search's time. The answer is the one worked out, bit for bit.
fn remembered_odds(odds: &MajorityOdds, counts: &[u32], remaining: u32) -> ([f64; MAX_SEATS], f64) {
    // Every count and `remaining` is at most 52: six bits each, and a bit to mark a slot in use.
    let mut key = 1 << 63 | (odds.k as u64) << 30 | remaining as u64;
    for (i, &c) in counts.iter().enumerate() {
        key |= (c as u64 & 63) << (6 + 6 * i);
    }
    if remaining > 52 || counts.iter().any(|&c| c > 52) {
        return odds.odds(counts, remaining);
    }
    let at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - ODDS_MEMO_BITS)) as usize;
    ODDS_MEMO.with(|memo| {
        let Ok(mut memo) = memo.try_borrow_mut() else {
            return odds.odds(counts, remaining);
        };
        if memo.is_empty() {
            memo.resize(1 << ODDS_MEMO_BITS, (0, [0.0; MAX_SEATS], 0.0));
        }
        let slot = &mut memo[at];
        if slot.0 != key {
            let (wins, tie) = odds.odds(counts, remaining);
            *slot = (key, wins, tie);
        }
        (slot.1, slot.2)
    })
}

// ---------------------------------------------------------------------------------------------------
// Where the cards still out end up, two sides (`leaf.P_PAIR_DEAD` ... `P_HIDDEN_BY_DEALS`, measured
// by scripts/measure_leaf.py; indexed [next deal is the last one]).

pub const P_PAIR_DEAD: [f64; 2] = [0.26, 0.24];
pub const P_PAIR: [f64; 2] = [0.51, 0.50];
pub const MAX_TABLE_CLASS: u32 = 8;
pub const P_SUM_BY_SIZE: [[f64; 8]; 2] = [
    [0.60, 0.59, 0.61, 0.63, 0.64, 0.65, 0.67, 0.70],
    [0.50, 0.55, 0.57, 0.58, 0.59, 0.62, 0.64, 0.67],
];
pub const P_HIDDEN_BY_DEALS: [f64; 6] = [0.40, 0.40, 0.45, 0.47, 0.48, 0.49];

/// Every probability above once, in increasing order: Python groups cards in a dict keyed by the
/// probability (equal probabilities share one group) and sorts the groups by (cards, probability),
/// so a group here is an index into this list.
const PROBS: [f64; NPROBS] = [
    0.24, 0.26, 0.40, 0.45, 0.47, 0.48, 0.49, 0.50, 0.51, 0.55, 0.57, 0.58, 0.59, 0.60, 0.61, 0.62, 0.63,
    0.64, 0.65, 0.67, 0.70,
];
const NPROBS: usize = 21;

fn prob_index(p: f64) -> u8 {
    let i = PROBS.iter().position(|&q| q == p);
    i.expect("every measured probability is in PROBS") as u8
}

/// The groups of cards still out by the probability that the side to move next takes each (Python's
/// `groups: dict[float, int]`), remembering the order in which the probabilities first came.
struct Groups {
    masks: [Mask; NPROBS],
    order: [u8; NPROBS],
    len: usize,
    seen: u32,
}

impl Groups {
    #[inline]
    fn new() -> Groups {
        Groups {
            masks: [0; NPROBS],
            order: [0; NPROBS],
            len: 0,
            seen: 0,
        }
    }

    #[inline]
    fn add(&mut self, p: u8, cards: Mask) {
        if self.seen & (1 << p) == 0 {
            self.seen |= 1 << p;
            self.order[self.len] = p;
            self.len += 1;
        }
        self.masks[p as usize] |= cards;
    }

    /// (probability index, cards), in the dict's order.
    #[inline]
    fn iter(&self) -> impl Iterator<Item = (u8, Mask)> + '_ {
        self.order[..self.len]
            .iter()
            .map(move |&p| (p, self.masks[p as usize]))
    }
}

/// P(the side to move ends strictly ahead), P(strictly behind), from a lead of `d`, when it takes x
/// of the remaining cards with probability pmf[x] (`leaf._lead_odds`).
#[inline]
fn lead_odds(d: i64, pmf: &[f64]) -> (f64, f64) {
    // diff = d + 2x - total is above 0 from x = t // 2 + 1 on and below 0 up to x < ceil(t / 2)
    // (t = total - d): two runs, each summed in increasing x as Python's one loop sums it.
    let len = pmf.len() as i64;
    let t = len - 1 - d;
    let win_from = (t.div_euclid(2) + 1).clamp(0, len) as usize;
    let lose_to = (t + 1).div_euclid(2).clamp(0, len) as usize;
    let (mut win, mut lose) = (0.0, 0.0);
    for &p in &pmf[win_from..] {
        win += p;
    }
    for &p in &pmf[..lose_to] {
        lose += p;
    }
    (win, lose)
}

/// `-(-hidden // (HAND_SIZE * nplayers))`: deals still to come, a part-played deal counted.
#[inline]
fn deals_to_come(hidden: Mask, nplayers: u8) -> u32 {
    count(hidden).div_ceil(HAND_SIZE * nplayers as u32)
}

/// The measured odds and the binomial laws of two sides, for one rule set.
#[derive(Clone)]
struct TwoSides {
    /// `p ** x` and `(1 - p) ** x` for each of `PROBS`.
    pow_p: [[f64; N]; NPROBS],
    pow_q: [[f64; N]; NPROBS],
    /// `_binomial(n, p)` of each of `PROBS` and n = 0..52: row (p, n) at `(p * N + n) * N`.
    binomials: Vec<f64>,
    pair_dead: [u8; 2],
    pair: [u8; 2],
    sum_by_size: [[u8; 8]; 2],
    hidden_by_deals: [u8; 6],
}

impl TwoSides {
    fn new() -> Box<TwoSides> {
        let mut t = Box::new(TwoSides {
            pow_p: [[0.0; N]; NPROBS],
            pow_q: [[0.0; N]; NPROBS],
            binomials: vec![0.0; NPROBS * N * N],
            pair_dead: P_PAIR_DEAD.map(prob_index),
            pair: P_PAIR.map(prob_index),
            sum_by_size: P_SUM_BY_SIZE.map(|row| row.map(prob_index)),
            hidden_by_deals: P_HIDDEN_BY_DEALS.map(prob_index),
        });
        for (i, &p) in PROBS.iter().enumerate() {
            let q = 1.0 - p;
            for x in 0..N {
                t.pow_p[i][x] = p.powf(x as f64);
                t.pow_q[i][x] = q.powf(x as f64);
            }
        }
        for i in 0..NPROBS {
            let (pp, qq) = (&t.pow_p[i], &t.pow_q[i]);
            for n in 0..N {
                let at = (i * N + n) * N;
                for x in 0..=n {
                    t.binomials[at + x] = COMB[n][x] * pp[x] * qq[n - x];
                }
            }
        }
        t
    }

    /// `leaf._count_pmf`: the law of the number of cards the side to move takes, from groups of
    /// (cards, probability each) sorted as Python sorts them; its length is returned.
    ///
    /// The binomial laws come from a table, computed as Python computes them, and the first one is
    /// the law itself (Python convolves it with [1.0], which changes no bit).
    fn count_pmf(&self, groups: &Groups, only: Mask, out: &mut [f64; N]) -> usize {
        // sorted(((m & only).bit_count(), p) ...): insertion sort of at most NPROBS pairs
        let mut keys = [(0u32, 0u8); NPROBS];
        let mut k = 0;
        for (p, m) in groups.iter() {
            let item = (count(m & only), p);
            let mut i = k;
            while i > 0 && keys[i - 1] > item {
                keys[i] = keys[i - 1];
                i -= 1;
            }
            keys[i] = item;
            k += 1;
        }
        out[0] = 1.0;
        let mut len = 1;
        for &(n, p) in &keys[..k] {
            if n == 0 {
                continue;
            }
            let n = n as usize;
            let b = self.binomial(n, p);
            if len == 1 {
                // out is [1.0]: 0.0 + 1.0 * b[j] is b[j] (every b[j] is a non-negative float)
                out[..=n].copy_from_slice(b);
                len = n + 1;
                continue;
            }
            let mut acc = [0.0; N];
            for (i, &pa) in out[..len].iter().enumerate() {
                for (a, &pb) in acc[i..=i + n].iter_mut().zip(b) {
                    *a += pa * pb;
                }
            }
            out[..len + n].copy_from_slice(&acc[..len + n]);
            len += n;
        }
        len
    }

    /// `_binomial(n, p)`: `comb(n, x) * p**x * (1 - p) ** (n - x)` for x = 0..=n, from the table.
    #[inline]
    fn binomial(&self, n: usize, p: u8) -> &[f64] {
        let at = (p as usize * N + n) * N;
        &self.binomials[at..at + n + 1]
    }
}

// ---------------------------------------------------------------------------------------------------
// The learned deal-end value (two sides): `leaf.LEARNED_FEATURES`, weights from leaf_weights.json.

pub const LEARNED_FEATURES: [&str; NUM_FEATURES] = [
    "lead",
    "cards_odds",
    "spades_odds",
    "table_cash_odds",
    "hidden_cash",
    "cards",
    "spades",
    "table",
    "table_spades",
    "table_cash",
    "hidden_spades",
    "pair_live",
    "pair_dead",
    "table_0",
    "table_1",
    "table_2",
    "sweepable",
];
pub const NUM_FEATURES: usize = 17;

/// The fitted weights of the learned leaf for one rule set (`leaf.learned_weights`), per number of
/// players: a row per deals still to come (an empty row: nothing fitted there, the handmade
/// estimate is used). Python reads `leaf_weights.json` and hands the rows over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LearnedWeights {
    by_players: [Option<Vec<Option<[f64; NUM_FEATURES]>>>; MAX_SEATS + 1],
}

impl LearnedWeights {
    pub fn new() -> LearnedWeights {
        LearnedWeights::default()
    }

    /// The rows of `nplayers` players (2..=4), each empty or of `NUM_FEATURES` weights.
    pub fn set<R: AsRef<[f64]>>(&mut self, nplayers: usize, rows: &[R]) -> Result<(), String> {
        if !(2..=MAX_SEATS).contains(&nplayers) {
            return Err(format!("learned weights for {nplayers} players"));
        }
        let mut out = Vec::with_capacity(rows.len());
        for (deals, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            if row.is_empty() {
                out.push(None);
            } else if let Ok(w) = <[f64; NUM_FEATURES]>::try_from(row) {
                out.push(Some(w));
            } else {
                return Err(format!(
                    "learned weights, {nplayers} players, {deals} deals to come: {} weights, not {NUM_FEATURES}",
                    row.len()
                ));
            }
        }
        self.by_players[nplayers] = Some(out);
        Ok(())
    }

    fn rows(&self, nplayers: u8) -> Option<&[Option<[f64; NUM_FEATURES]>]> {
        self.by_players.get(nplayers as usize).and_then(|r| r.as_deref())
    }
}

// ---------------------------------------------------------------------------------------------------
// The evaluator

/// The estimate at a leaf (`leaf.LEAF_KINDS`): the handmade odds, or the learned deal-end value with
/// its weights (for two sides; the handmade one where no weights were fitted).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Leaf {
    #[default]
    Handmade,
    Learned(LearnedWeights),
}

/// Per scoring category, the value of one point of it to each side (`leaf.CategoryWeights`);
/// categories without a weight are worth nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CategoryWeights {
    w: [Option<[f64; MAX_SEATS]>; NUM_CATEGORIES],
}

impl CategoryWeights {
    pub fn new() -> CategoryWeights {
        CategoryWeights::default()
    }

    /// Weigh the category `name` (`CATEGORY_NAMES`) at `per_side` (one weight per side, at most
    /// four). False for a name that is no category: Python's lookup never finds it either.
    pub fn set(&mut self, name: &str, per_side: &[f64]) -> bool {
        assert!(per_side.len() <= MAX_SEATS, "a category weight per side");
        let Some(k) = category_index(name) else {
            return false;
        };
        let mut w = [0.0; MAX_SEATS];
        w[..per_side.len()].copy_from_slice(per_side);
        self.w[k] = Some(w);
        true
    }

    /// `leaf.weighted_value`: the value of the points `parts` holds at these weights.
    pub fn value(&self, parts: &Parts, nsides: usize) -> f64 {
        let mut v = 0.0;
        for (k, pts) in parts.iter() {
            if let Some(w) = &self.w[k] {
                for s in 0..nsides {
                    v += w[s] * pts[s];
                }
            }
        }
        v
    }
}

/// What a played-out round is worth to the root side where not its points (Python's `final_value`
/// callable, e.g. the chance to win the game).
pub type FinalValue = Arc<dyn Fn(&State) -> f64 + Send + Sync>;

/// Leaf and terminal values from one root side's point of view (`leaf.Evaluator`). Built once per
/// decision; `Clone` is cheap (the tables are shared), and it is `Send + Sync`. Python's per-position
/// caches are left to the caller's transposition table: every value here is a pure function of the
/// position.
#[derive(Clone)]
pub struct Evaluator {
    rules: Rules,
    n: usize,
    root_side: usize,
    /// The learned weights, for two sides only (`learned_weights` is None for three or four).
    learned: Option<LearnedWeights>,
    final_value: Option<FinalValue>,
    category_weights: Option<CategoryWeights>,
    /// Cards that only a card of their own rank takes (`leaf.pair_only`).
    pair_only: Mask,
    two: Option<Arc<TwoSides>>,
    majority: Option<Arc<MajorityOdds>>,
}

impl fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Evaluator")
            .field("nsides", &self.n)
            .field("root_side", &self.root_side)
            .field("learned", &self.learned.is_some())
            .field("final_value", &self.final_value.is_some())
            .field("category_weights", &self.category_weights)
            .finish()
    }
}

/// The tables of two sides, made once per process: they depend on nothing (the search makes an
/// evaluator per decision, and building them took about as long as a small decision's search).
fn shared_two_sides() -> Arc<TwoSides> {
    static TWO: OnceLock<Arc<TwoSides>> = OnceLock::new();
    TWO.get_or_init(|| Arc::from(TwoSides::new())).clone()
}

/// The majority odds of `n` sides (3 or 4), made once per process.
fn shared_majority_odds(n: usize) -> Arc<MajorityOdds> {
    static ODDS: [OnceLock<Arc<MajorityOdds>>; MAX_SEATS + 1] = [const { OnceLock::new() }; MAX_SEATS + 1];
    ODDS[n].get_or_init(|| Arc::from(MajorityOdds::new(n))).clone()
}

impl Evaluator {
    /// As Python's `Evaluator(rules, nsides, root_side, leaf, final_value, category_weights)`.
    /// Panics unless 2 <= nsides <= 4 and root_side < nsides.
    pub fn new(
        rules: &Rules,
        nsides: u8,
        root_side: u8,
        leaf: Leaf,
        final_value: Option<FinalValue>,
        category_weights: Option<CategoryWeights>,
    ) -> Evaluator {
        let n = nsides as usize;
        assert!((2..=MAX_SEATS).contains(&n), "an evaluator of {n} sides");
        assert!(root_side < nsides, "root side {root_side} of {n} sides");
        let mut pair_only = 0;
        for c in 0..NUM_CARDS {
            let b = rules.build_value[c];
            if b == 0 || b >= rules.max_build {
                pair_only |= 1 << c;
            }
        }
        let learned = match leaf {
            Leaf::Learned(w) if n == 2 => Some(w),
            _ => None,
        };
        Evaluator {
            rules: rules.clone(),
            n,
            root_side: root_side as usize,
            learned,
            final_value,
            category_weights,
            pair_only,
            two: (n == 2).then(shared_two_sides),
            majority: (n > 2).then(|| shared_majority_odds(n)),
        }
    }

    pub fn nsides(&self) -> usize {
        self.n
    }

    pub fn root_side(&self) -> usize {
        self.root_side
    }

    /// Exact value of a played-out round (`Evaluator.final`): `final_value` of it where one was
    /// given, else its points at the category weights, else the root side's margin.
    pub fn final_value(&self, s: &State) -> f64 {
        debug_assert_eq!(s.nsides as usize, self.n);
        if let Some(fv) = &self.final_value {
            return fv(s);
        }
        if let Some(cw) = &self.category_weights {
            return cw.value(&final_parts(&self.rules, s), self.n);
        }
        let pts = final_points(&self.rules, s);
        side_value(&pts[..self.n], self.root_side)
    }

    /// Expected value of the rest of the round at a position where the search stops
    /// (`Evaluator.leaf`).
    pub fn leaf(&self, s: &State) -> f64 {
        debug_assert_eq!(s.nsides as usize, self.n);
        let table = s.table();
        if let Some(cw) = &self.category_weights {
            let mut parts = Parts::default();
            self.leaf_points(s, table, Some(&mut parts));
            return cw.value(&parts, self.n);
        }
        if let Some(rows) = self.learned.as_ref().and_then(|w| w.rows(s.nplayers)) {
            let lead = (s.to_move % 2) as usize;
            let v = self.learned_value(s, table, lead, rows);
            return if lead != self.root_side { -v } else { v };
        }
        let pts = self.leaf_points(s, table, None);
        side_value(&pts[..self.n], self.root_side)
    }

    /// What `leaf` reads of a state, in words: equal words, equal leaf values. The piles, the
    /// residue set aside, the table's cards, the sweeps, the number of players, and with two sides
    /// which of them moves next; not the hands, the stock or the builds' owners (the cards still out
    /// are all that is not in a pile, and they matter only as that).
    #[inline]
    pub fn leaf_key(&self, s: &State) -> [u64; LEAF_KEY_WORDS] {
        let lead = if self.n == 2 { (s.to_move % 2) as u64 } else { 0 };
        let c = &s.captured;
        let w = &s.sweeps;
        [
            c[0],
            c[1],
            c[2],
            c[3],
            s.set_aside | lead << 56,
            s.table() | (s.nplayers as u64) << 56,
            w[0] as u64 | (w[1] as u64) << 32,
            w[2] as u64 | (w[3] as u64) << 32,
        ]
    }

    /// The value of a position where the search stops (`final_value` at the end of the round, else
    /// `leaf`) by scoring category, as margins of the root side (`Evaluator.parts`): always the
    /// handmade breakdown, without the category weights.
    pub fn parts(&self, s: &State) -> Margins {
        let mut parts = Parts::default();
        if s.is_over() {
            final_points_into(&self.rules, s, Some(&mut parts));
        } else {
            self.leaf_points(s, s.table(), Some(&mut parts));
        }
        let mut out = Margins::default();
        for (k, pts) in parts.iter() {
            out.keys[out.len as usize] = k as u8;
            out.values[out.len as usize] = side_value(&pts[..self.n], self.root_side);
            out.len += 1;
        }
        out
    }

    /// `Evaluator._leaf`: points per side expected at the end of the round.
    fn leaf_points(&self, s: &State, table: Mask, mut parts: Option<&mut Parts>) -> Pts {
        let rules = &self.rules;
        let n = self.n;
        let piles = &s.captured[..n];
        let mut taken = s.set_aside;
        let mut counts = [0u32; MAX_SEATS];
        let mut spades = [0u32; MAX_SEATS];
        for (i, &p) in piles.iter().enumerate() {
            taken |= p;
            counts[i] = count(p);
            spades[i] = count(p & SPADES_MASK);
        }
        let out = FULL_DECK & !taken;
        let mut pts = [0.0; MAX_SEATS];
        credit_owned(rules, &mut pts, &mut parts, s);
        if n == 2 {
            let hidden = out & !table;
            let deals = deals_to_come(hidden, s.nplayers);
            let lead = (s.to_move % 2) as usize;
            let args = (lead, counts, spades, table & out, hidden, deals);
            self.two_sides(&mut pts, &mut parts, args);
        } else {
            // Cards still out are worth the same to every side: they cancel in the value.
            let points = rules.points_cards;
            self.majority(&mut pts, &mut parts, CARDS, &counts[..n], count(out), points);
            let (remaining, points) = (count(out & SPADES_MASK), rules.points_spades);
            self.majority(&mut pts, &mut parts, SPADES, &spades[..n], remaining, points);
        }
        pts
    }

    /// The probability index of a card left on the table (`leaf.table_class` and `table_odds`).
    #[inline]
    fn table_prob(&self, two: &TwoSides, x: u8, table: Mask, hidden: Mask, last: usize) -> (u8, bool, bool) {
        if self.pair_only >> x & 1 != 0 {
            let live = hidden & rank_mask(rank(x)) != 0;
            let p = if live { two.pair[last] } else { two.pair_dead[last] };
            return (p, true, live);
        }
        let k = count(table).min(MAX_TABLE_CLASS);
        (two.sum_by_size[last][k as usize - 1], false, false)
    }

    /// The groups of cards still out by the probability the side to move next takes each.
    #[inline]
    fn groups(&self, two: &TwoSides, table: Mask, rest: Mask, deals: u32) -> Groups {
        let last = (deals <= 1) as usize;
        let mut groups = Groups::new();
        groups.add(two.hidden_by_deals[(deals as usize).min(5)], rest);
        for x in iter_cards(table) {
            groups.add(self.table_prob(two, x, table, rest, last).0, 1 << x);
        }
        groups
    }

    /// `Evaluator._two_sides`: each card still out goes to the side to move next (`lead`) with the
    /// probability measured for its class, independently.
    #[inline]
    fn two_sides(
        &self,
        pts: &mut Pts,
        parts: &mut Option<&mut Parts>,
        (lead, counts, spades, table, rest, deals): (
            usize,
            [u32; MAX_SEATS],
            [u32; MAX_SEATS],
            Mask,
            Mask,
            u32,
        ),
    ) {
        let rules = &self.rules;
        let two = self.two.as_deref().expect("two sides");
        let other = 1 - lead;
        let groups = self.groups(two, table, rest, deals);
        let split = rules.majority_tie == MajorityTie::Split;
        let mut pmf = [0.0; N];
        for (key, points, c, only) in [
            (CARDS, rules.points_cards, counts, FULL_DECK),
            (SPADES, rules.points_spades, spades, SPADES_MASK),
        ] {
            if points == 0 {
                continue;
            }
            let len = two.count_pmf(&groups, only, &mut pmf);
            let (win, lose) = lead_odds(c[lead] as i64 - c[other] as i64, &pmf[..len]);
            let pf = points as f64;
            let half = if split { pf * (1.0 - win - lose) / 2.0 } else { 0.0 };
            credit(pts, parts, key, lead, pf * win + half);
            credit(pts, parts, key, other, pf * lose + half);
        }
        for (pi, m) in groups.iter() {
            let p = PROBS[pi as usize];
            if m & BIG != 0 && rules.points_big != 0 {
                let pb = rules.points_big as f64;
                credit(pts, parts, BIG_KEY, lead, pb * p);
                credit(pts, parts, BIG_KEY, other, pb * (1.0 - p));
            }
            if m & LITTLE != 0 && rules.points_little != 0 {
                let pl = rules.points_little as f64;
                credit(pts, parts, LITTLE_KEY, lead, pl * p);
                credit(pts, parts, LITTLE_KEY, other, pl * (1.0 - p));
            }
            if rules.points_ace != 0 {
                let pa = rules.points_ace as f64;
                for ace in iter_cards(m & ACES_MASK) {
                    credit(pts, parts, ACE_KEY + ace as usize, lead, pa * p);
                    credit(pts, parts, ACE_KEY + ace as usize, other, pa * (1.0 - p));
                }
            }
        }
    }

    /// `Evaluator._majority`: three or four sides.
    fn majority(
        &self,
        pts: &mut Pts,
        parts: &mut Option<&mut Parts>,
        key: usize,
        counts: &[u32],
        remaining: u32,
        points: i64,
    ) {
        if points == 0 {
            return;
        }
        let odds = self.majority.as_deref().expect("three or four sides");
        let (wins, tie) = remembered_odds(odds, counts, remaining);
        let pf = points as f64;
        // Approximation: a tie shares the item among all sides.
        let share = if tie != 0.0 && self.rules.majority_tie == MajorityTie::Split {
            pf * tie / self.n as f64
        } else {
            0.0
        };
        for (s, &w) in wins[..self.n].iter().enumerate() {
            credit(pts, parts, key, s, pf * w + share);
        }
    }

    /// `leaf._cash_points`.
    #[inline]
    fn cash_points(&self, mask: Mask) -> i64 {
        let r = &self.rules;
        r.points_ace * count(mask & ACES_MASK) as i64
            + if mask & BIG != 0 { r.points_big } else { 0 }
            + if mask & LITTLE != 0 { r.points_little } else { 0 }
    }

    /// `leaf._sweepable`: one card value takes every table card.
    fn sweepable(&self, table: Mask) -> bool {
        if table == 0 {
            return false;
        }
        let rules = &self.rules;
        let pv = rules.pair_value[table.trailing_zeros() as usize];
        let mut same = true;
        let mut total = 0u32;
        for c in iter_cards(table) {
            if rules.pair_value[c as usize] != pv {
                same = false;
            }
            total += rules.build_value[c as usize] as u32;
        }
        let summable = table & self.pair_only == 0;
        same || (summable && total <= rules.max_build as u32)
    }

    /// `leaf.leaf_features`: the features of a two-sided position for the side `lead` that moves
    /// next, what that side holds for sure (margin), and the deals still to come.
    fn leaf_features(&self, s: &State, table: Mask, lead: usize) -> ([f64; NUM_FEATURES], f64, u32) {
        let rules = &self.rules;
        let two = self.two.as_deref().expect("two sides");
        let piles = &s.captured;
        let other = 1 - lead;
        let taken = s.set_aside | piles[0] | piles[1];
        let out = FULL_DECK & !taken;
        let table = table & out;
        let hidden = out & !table;
        let deals = deals_to_come(hidden, s.nplayers);
        let mut sure = [0.0; MAX_SEATS];
        credit_owned(rules, &mut sure, &mut None, s);
        let last = (deals <= 1) as usize;
        let mut groups = Groups::new();
        groups.add(two.hidden_by_deals[(deals as usize).min(5)], hidden);
        let mut table_cash_odds = 0.0;
        let (mut pair_live, mut pair_dead) = (0u32, 0u32);
        for x in iter_cards(table) {
            let (pi, pair, live) = self.table_prob(two, x, table, hidden, last);
            groups.add(pi, 1 << x);
            if pair {
                if live {
                    pair_live += 1;
                } else {
                    pair_dead += 1;
                }
            }
            let cash = self.cash_points(1 << x);
            if cash != 0 {
                table_cash_odds += cash as f64 * (2.0 * PROBS[pi as usize] - 1.0);
            }
        }
        let (lp, op) = (piles[lead], piles[other]);
        let cards = count(lp) as i64 - count(op) as i64;
        let spades = count(lp & SPADES_MASK) as i64 - count(op & SPADES_MASK) as i64;
        let mut odds = [0.0; 2];
        let mut pmf = [0.0; N];
        for (i, (points, only, d)) in [
            (rules.points_cards, FULL_DECK, cards),
            (rules.points_spades, SPADES_MASK, spades),
        ]
        .into_iter()
        .enumerate()
        {
            if points != 0 {
                let len = two.count_pmf(&groups, only, &mut pmf);
                let (win, lose) = lead_odds(d, &pmf[..len]);
                odds[i] = points as f64 * (win - lose);
            }
        }
        let n_table = count(table);
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let features = [
            1.0,
            odds[0],
            odds[1],
            table_cash_odds,
            self.cash_points(hidden) as f64,
            cards as f64,
            spades as f64,
            n_table as f64,
            count(table & SPADES_MASK) as f64,
            self.cash_points(table) as f64,
            count(hidden & SPADES_MASK) as f64,
            pair_live as f64,
            pair_dead as f64,
            flag(n_table == 0),
            flag(n_table == 1),
            flag(n_table == 2),
            flag(self.sweepable(table)),
        ];
        (features, sure[lead] - sure[other], deals)
    }

    /// `leaf.learned_value`: the learned estimate of the round margin of side `lead`, with the
    /// handmade one where no weights were fitted for the deals still to come.
    fn learned_value(
        &self,
        s: &State,
        table: Mask,
        lead: usize,
        rows: &[Option<[f64; NUM_FEATURES]>],
    ) -> f64 {
        let (features, sure, deals) = self.leaf_features(s, table, lead);
        match rows.get(deals as usize).and_then(|w| w.as_ref()) {
            None => {
                let pts = self.leaf_points(s, table, None);
                pts[lead] - pts[1 - lead]
            }
            Some(w) => {
                let mut v = sure;
                for i in 0..NUM_FEATURES {
                    v += w[i] * features[i];
                }
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cards::card;

    fn state(nplayers: u8, nsides: u8, captured: &[Mask]) -> State {
        let mut s = State::empty(nplayers, nsides);
        s.captured[..captured.len()].copy_from_slice(captured);
        s
    }

    #[test]
    fn binomial_coefficients_are_exact() {
        assert_eq!(COMB[52][26], 495_918_532_948_104.0);
        assert_eq!(COMB[5][2], 10.0);
        for (n, row) in COMB.iter().enumerate() {
            assert_eq!(row.iter().sum::<f64>(), 2f64.powi(n as i32));
        }
    }

    #[test]
    fn probabilities_are_listed_once_in_order() {
        assert!(PROBS.windows(2).all(|w| w[0] < w[1]));
        let t = TwoSides::new();
        assert_eq!(PROBS[t.pair_dead[0] as usize], 0.26);
        assert_eq!(PROBS[t.sum_by_size[1][0] as usize], PROBS[t.pair[1] as usize]);
        assert_eq!(t.pow_q[prob_index(0.5) as usize][3], 0.125);
    }

    /// Values printed by Python's `leaf.majority_odds` (repr round-trips a float exactly).
    #[test]
    fn majority_odds_known_values() {
        let cases: [(&[u32], u32, &[f64], f64); 8] = [
            (&[3, 1], 2, &[0.75, 0.0], 0.25),
            (&[0, 0, 0], 1, &[0.3333333333333333; 3], 0.0),
            (&[20, 0, 0], 5, &[1.0000000000000002, 0.0, 0.0], 0.0),
            (
                &[1, 0, 0],
                2,
                &[0.5555555555555556, 0.1111111111111111, 0.1111111111111111],
                0.2222222222222221,
            ),
            (&[5, 0, 0, 0], 3, &[1.0, 0.0, 0.0, 0.0], 0.0),
            (&[0, 0, 0, 0], 8, &[0.16616601339482484; 4], 0.33533594642070064),
            (
                &[10, 12, 9],
                21,
                &[0.20989894436550213, 0.5502537349646317, 0.12387533841862759],
                0.1159719822512385,
            ),
            (
                &[7, 9, 3, 5],
                18,
                &[
                    0.1556241924374393,
                    0.6791737317738739,
                    0.0026687867023548178,
                    0.025722168900910836,
                ],
                0.1368111201854212,
            ),
        ];
        for (counts, remaining, wins, tie) in cases {
            let odds = MajorityOdds::new(counts.len()).odds(counts, remaining);
            assert_eq!(&odds.0[..counts.len()], wins, "{counts:?} {remaining}");
            assert_eq!(odds.1, tie, "{counts:?} {remaining}");
        }
        let two = MajorityOdds::new(2);
        assert_eq!(two.odds(&[2, 2], 0), ([0.0; 4], 1.0));
        assert_eq!(two.odds(&[2, 1], 0), ([1.0, 0.0, 0.0, 0.0], 0.0));
    }

    /// Python's loop as written, for the runs of `three_sides`.
    #[allow(clippy::needless_range_loop)] // its index loops, as Python writes them
    fn three_sides_as_python(t: &MajorityOdds, counts: &[u32], remaining: usize) -> [f64; 3] {
        let mut wins = [0.0; 3];
        let (c0, c1, c2) = (counts[0] as i64, counts[1] as i64, counts[2] as i64);
        for x0 in 0..=remaining {
            let a = COMB[remaining][x0] * t.scale3[remaining];
            let r = remaining - x0;
            let t0 = c0 + x0 as i64;
            for x1 in 0..=r {
                let t1 = c1 + x1 as i64;
                let t2 = c2 + r as i64 - x1 as i64;
                if t0 > t1 && t0 > t2 {
                    wins[0] += a * COMB[r][x1];
                } else if t1 > t0 && t1 > t2 {
                    wins[1] += a * COMB[r][x1];
                } else if t2 > t0 && t2 > t1 {
                    wins[2] += a * COMB[r][x1];
                }
            }
        }
        wins
    }

    #[test]
    fn three_sides_runs_add_as_python_loops() {
        let t = MajorityOdds::new(3);
        for remaining in 0..=52usize {
            let step = if remaining > 20 { 3 } else { 1 };
            for c0 in (0..=52 - remaining as u32).step_by(step) {
                for c1 in (0..=52 - remaining as u32 - c0).step_by(step) {
                    let c2 = 52 - remaining as u32 - c0 - c1;
                    for counts in [[c0, c1, c2], [c0, c1, 0], [c2, c0, c1 / 2]] {
                        let want = three_sides_as_python(&t, &counts, remaining);
                        let got = t.three_sides(&counts, remaining).0;
                        assert_eq!(
                            [got[0], got[1], got[2]].map(f64::to_bits),
                            want.map(f64::to_bits),
                            "{counts:?} {remaining}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn binomial_tables_add_up() {
        for k in 2..=4 {
            let t = MajorityOdds::new(k);
            assert_eq!(t.pmf[0][0], 1.0);
            assert_eq!(t.pmf[1][0], 1.0 - 1.0 / k as f64);
            for n in 0..N {
                assert!((t.cdf[n][n + 1] - 1.0).abs() < 1e-12);
            }
        }
    }

    /// `count_pmf` as Python computes it (`leaf._count_pmf`): into a new list, i outer.
    fn count_pmf_as_python(t: &TwoSides, groups: &Groups, only: Mask, out: &mut [f64; N]) -> usize {
        // sorted(((m & only).bit_count(), p) ...): insertion sort of at most NPROBS pairs
        let mut keys = [(0u32, 0u8); NPROBS];
        let mut k = 0;
        for (p, m) in groups.iter() {
            let item = (count(m & only), p);
            let mut i = k;
            while i > 0 && keys[i - 1] > item {
                keys[i] = keys[i - 1];
                i -= 1;
            }
            keys[i] = item;
            k += 1;
        }
        out[0] = 1.0;
        let mut len = 1;
        let mut b = [0.0; N];
        let mut acc = [0.0; N];
        for &(n, p) in &keys[..k] {
            if n == 0 {
                continue;
            }
            let n = n as usize;
            // `_binomial(n, p)`: comb(n, x) * p**x * (1 - p) ** (n - x)
            let (pp, qq) = (&t.pow_p[p as usize], &t.pow_q[p as usize]);
            for x in 0..=n {
                b[x] = COMB[n][x] * pp[x] * qq[n - x];
            }
            acc[..len + n].fill(0.0);
            for (i, &pa) in out[..len].iter().enumerate() {
                for (j, &pb) in b[..=n].iter().enumerate() {
                    acc[i + j] += pa * pb;
                }
            }
            len += n;
            out[..len].copy_from_slice(&acc[..len]);
        }
        len
    }

    #[test]
    fn lead_odds_split_as_one_loop() {
        let pmf: Vec<f64> = (0..12).map(|x| 1.0 / (x as f64 + 3.0)).collect();
        for len in 1..=pmf.len() {
            for d in -15..=15 {
                let (mut win, mut lose) = (0.0, 0.0);
                let total = len as i64 - 1;
                for (x, &p) in pmf[..len].iter().enumerate() {
                    let diff = d + 2 * x as i64 - total;
                    if diff > 0 {
                        win += p;
                    } else if diff < 0 {
                        lose += p;
                    }
                }
                let got = lead_odds(d, &pmf[..len]);
                assert_eq!(
                    (got.0.to_bits(), got.1.to_bits()),
                    (win.to_bits(), lose.to_bits())
                );
            }
        }
    }

    #[test]
    fn count_pmf_adds_as_python() {
        let t = TwoSides::new();
        let mut rng = crate::engine::playout::SplitMix64(7);
        for _ in 0..2000 {
            let mut g = Groups::new();
            let mut used = 0;
            for _ in 0..1 + rng.below(5) {
                let p = rng.below(NPROBS as u32) as u8;
                let cards = rng.next_u64() & rng.next_u64() & FULL_DECK & !used;
                used |= cards;
                g.add(p, cards);
            }
            let only = if rng.below(2) == 0 { FULL_DECK } else { SPADES_MASK };
            let (mut fast, mut slow) = ([0.0; N], [0.0; N]);
            let len = t.count_pmf(&g, only, &mut fast);
            assert_eq!(len, count_pmf_as_python(&t, &g, only, &mut slow));
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fast[..len]), bits(&slow[..len]));
        }
    }

    #[test]
    fn count_pmf_of_one_group_is_its_binomial() {
        let t = TwoSides::new();
        let mut g = Groups::new();
        g.add(prob_index(0.5), 0b111);
        g.add(prob_index(0.4), 0);
        let mut pmf = [0.0; N];
        let len = t.count_pmf(&g, FULL_DECK, &mut pmf);
        assert_eq!(&pmf[..len], &[0.125, 0.375, 0.375, 0.125]);
        assert_eq!(lead_odds(0, &pmf[..len]), (0.5, 0.5));
        assert_eq!(lead_odds(1, &pmf[..len]), (0.5, 0.125)); // 1 card of 3: a tie
    }

    #[test]
    fn final_points_of_a_classic_round() {
        let rules = Rules::classic();
        // Side 0: 27 cards with 7 spades (3♠ to 9♠), Big Casino and A♣; side 1 the rest.
        let mut side0 = 0;
        for c in iter_cards(SPADES_MASK).skip(2).take(7) {
            side0 |= 1 << c;
        }
        side0 |= 1 << BIG_CASINO | 1 << card(0, 0);
        let mut c = 0;
        while count(side0) < 27 {
            let m = 1 << c;
            if m & (SPADES_MASK | ACES_MASK | LITTLE) == 0 {
                side0 |= m;
            }
            c += 1;
        }
        let s = state(2, 2, &[side0, FULL_DECK & !side0]);
        let pts = final_points(&rules, &s);
        // 3 cards + 1 spades + 2 Big Casino + 1 ace against Little Casino and three aces
        assert_eq!(pts[..2], [7.0, 4.0]);
        let ev = Evaluator::new(&rules, 2, 1, Leaf::Handmade, None, None);
        assert_eq!(ev.final_value(&s), -3.0);
        let m = ev.parts(&s);
        let names: Vec<&str> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(
            names,
            ["cards", "spades", "ace0", "big", "ace1", "ace2", "ace3", "little"]
        );
        assert_eq!(m.get("cards"), Some(-3.0));
        let mut cw = CategoryWeights::new();
        cw.set("cards", &[2.0, -1.0]);
        assert!(!cw.set("nothing", &[1.0, 1.0]));
        let ev = Evaluator::new(&rules, 2, 0, Leaf::Handmade, None, Some(cw));
        assert_eq!(ev.final_value(&s), 6.0);
        let fixed: FinalValue = Arc::new(|_| 0.25);
        let ev = Evaluator::new(&rules, 2, 0, Leaf::Handmade, Some(fixed), Some(cw));
        assert_eq!(ev.final_value(&s), 0.25);
    }

    #[test]
    fn a_leaf_before_anything_is_taken_is_near_even() {
        for (np, ns) in [(2, 2), (3, 3), (4, 4), (4, 2)] {
            let rules = Rules::royal();
            let mut s = state(np, ns, &[]);
            s.more = true;
            s.stock = FULL_DECK;
            for side in 0..ns {
                let ev = Evaluator::new(&rules, ns, side, Leaf::Handmade, None, None);
                let v = ev.leaf(&s);
                assert!(v.abs() < 1.5, "{np} players, {ns} sides: {v}");
                let total: f64 = ev.parts(&s).iter().map(|(_, x)| x).sum();
                assert!((total - v).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn the_evaluator_is_send_and_sync() {
        fn check<T: Send + Sync + Clone>() {}
        check::<Evaluator>();
    }
}
