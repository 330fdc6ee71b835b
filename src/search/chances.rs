//! The chance to win the game once the round is over, world by world (`search/chances.py`'s
//! `world_chances` for two sides): the table's lookup (`GameTable.at`), the tallies an outcome may
//! end the round with (`world_tallies`), their score at a game score (`engine/scoring.py`'s
//! `score_tally`, two sides, no carry) and the round's points where it cannot decide the game
//! (`_undecided_points`). Each step does the reference's operations in its order, so every chance
//! is the reference's to the last bit: the products and sums are the same left-to-right loops, and
//! a distribution of points keeps its entries in the order a Python dict inserts them.
//!
//! The last deal solved for the game (`solved_chance`) values each end of the round the solver
//! reaches by the same scoring and table (`GameFinal`, the reference's `game_final`), so that a
//! solver of the core plays the deal for the game without a call back into Python.

use std::sync::Arc;

use crate::engine::cards::{ACES_COUNT_OUT, BIG_CASINO, LITTLE_CASINO, SPADES_MASK};

use crate::engine::rules::{CountOutItem, Rules};
use crate::engine::rules::{
    MajorityTie, NearTarget20, NearTargetMode, NearTargetPrecedence, NearTargetRules,
};
use crate::engine::state::State;
use crate::search::leaf::FinalValue;
use crate::search::solver::FxMap;

/// Below this a probability is 0, above 1 less it is 1 (`chances._SNAP`).
pub const SNAP: f64 = 1e-9;

/// The scoring categories of an outcome's parts, in the order of `chances._category_points`:
/// most cards, most spades, Big Casino, Little Casino, the aces ♠ ♣ ♥ ♦, the last capture.
pub const CARDS: usize = 0;
pub const SPADES: usize = 1;
pub const BIG: usize = 2;
pub const LITTLE: usize = 3;
pub const ACES: [usize; 4] = [4, 5, 6, 7];
pub const LAST: usize = 8;
pub const NCATEGORIES: usize = 9;

/// The points of each category under the rules (`_category_points`; 0 where it scores nothing, the
/// last capture included, which the reference then leaves out).
pub fn category_points(rules: &Rules) -> [i64; NCATEGORIES] {
    let a = rules.points_ace;
    [
        rules.points_cards,
        rules.points_spades,
        rules.points_big,
        rules.points_little,
        a,
        a,
        a,
        a,
        rules.last_capture_point,
    ]
}

/// One world's outcome of a root move, as the chances read it (`result.Outcome`): the mover's
/// margin in each category (None: not credited), the sweeps made along the line, and whether the
/// line reached the end of the round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    pub parts: [Option<f64>; NCATEGORIES],
    pub sweeps: [i64; 2],
    pub end: bool,
}

impl Outcome {
    /// What of the outcome its chance depends on, as a hashable key (the floats by their bits:
    /// only 0.0 and -0.0 are equal with other bits, and they give the same chance).
    fn key(&self) -> OutcomeKey {
        let mut bits = [0u64; NCATEGORIES];
        let mut some = [false; NCATEGORIES];
        for (i, p) in self.parts.iter().enumerate() {
            if let Some(x) = p {
                bits[i] = x.to_bits();
                some[i] = true;
            }
        }
        (bits, some, self.sweeps, self.end)
    }
}

/// An outcome's parts by their bits, which of them are there, its sweeps and its end.
type OutcomeKey = ([u64; NCATEGORIES], [bool; NCATEGORIES], [i64; 2], bool);

/// Who takes one category, with what probability: one or two (side, probability) pairs, side -1
/// for nobody (`_owners`).
#[derive(Clone, Copy, Debug)]
struct Owners {
    n: usize,
    who: [i8; 2],
    p: [f64; 2],
}

impl Owners {
    fn one(side: i8) -> Self {
        Owners {
            n: 1,
            who: [side, 0],
            p: [1.0, 0.0],
        }
    }

    fn iter(&self) -> impl Iterator<Item = (i8, f64)> + '_ {
        (0..self.n).map(|i| (self.who[i], self.p[i]))
    }
}

/// `_owners`: the mover's side `me` takes the category with the probability its margin says
/// (margin = points x (2p - 1)); most cards is tied only where the margin is 0 at the end of the
/// round, or where nobody is credited with it.
fn owners(outcome: &Outcome, cat: usize, worth: i64, me: i8) -> Owners {
    let m = match outcome.parts[cat] {
        Some(m) if worth != 0 && !(cat == CARDS && outcome.end && m.abs() < SNAP) => m,
        _ => return Owners::one(-1),
    };
    let x = (m / worth as f64 + 1.0) / 2.0;
    // Python's max(0.0, x) and min(1.0, x): the first unless the second is beyond it.
    let x = if x > 0.0 { x } else { 0.0 };
    let p = if x < 1.0 { x } else { 1.0 };
    if p > 1.0 - SNAP {
        return Owners::one(me);
    }
    if p < SNAP {
        return Owners::one(1 - me);
    }
    Owners {
        n: 2,
        who: [me, 1 - me],
        p: [p, 1.0 - p],
    }
}

/// Near-target items (`scoring.near_target_items`) as a mask of these bits.
const NEAR_CARDS: u8 = 1;
const NEAR_SPADES: u8 = 2;
const NEAR_BIG: u8 = 4;
const NEAR_LITTLE: u8 = 8;

/// `scoring.near_target_items`: the items that alone can win for a side at this score, or None
/// when it plays normally.
pub fn near_target_items(rules: &Rules, score: f64) -> Option<u8> {
    if rules.near_target_rules == NearTargetRules::Off || score != score.trunc() {
        return None;
    }
    let d = rules.target - score as i64;
    match rules.near_target_rules {
        NearTargetRules::Dominican => match d {
            3 => Some(NEAR_CARDS),
            2 => Some(NEAR_BIG),
            1 => Some(if rules.near_target_20 == NearTarget20::LittleCasino {
                NEAR_LITTLE
            } else {
                NEAR_SPADES
            }),
            _ => None,
        },
        _ => match d {
            5 => Some(NEAR_CARDS | NEAR_BIG),
            4 => Some(NEAR_CARDS | NEAR_SPADES),
            3 => Some(NEAR_CARDS),
            2 => Some(NEAR_BIG),
            1 => Some(NEAR_SPADES),
            _ => None,
        },
    }
}

/// `scoring.net_sweeps` of two sides.
pub fn net_sweeps(rules: &Rules, sweeps: [i64; 2]) -> [i64; 2] {
    if !rules.sweep_cancellation {
        return sweeps;
    }
    [(sweeps[0] - sweeps[1]).max(0), (sweeps[1] - sweeps[0]).max(0)]
}

/// `chances.round_points`: what a round distributes besides the sweeps.
pub fn round_points(rules: &Rules) -> i64 {
    rules.points_cards
        + rules.points_spades
        + rules.points_big
        + rules.points_little
        + 4 * rules.points_ace
        + rules.last_capture_point
}

/// A round's tally of two sides (`scoring.Tally`) as `world_tallies` makes them: the majorities as
/// marks (1 for each side with the most), the holders of Big and Little Casino, of each ace and of
/// the last capture (-1: nobody), and the sweeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tally {
    pub cards: [u8; 2],
    pub spades: [u8; 2],
    pub big: i8,
    pub little: i8,
    pub aces: [i8; 4],
    pub sweeps: [i64; 2],
    pub last: i8,
}

/// An award of `score_tally`: its near-target item (0 for one that meets no condition), side and
/// points.
#[derive(Clone, Copy)]
struct Award {
    near: u8,
    side: usize,
    points: f64,
}

/// `scoring.score_tally` of two sides without carry, from the game score `scores`: the winner of
/// the game if the round decides it, and the points each side adds.
pub fn score_tally(rules: &Rules, tally: &Tally, scores: [f64; 2]) -> (Option<usize>, [f64; 2]) {
    let near = [
        near_target_items(rules, scores[0]),
        near_target_items(rules, scores[1]),
    ];
    let mut awards: Vec<Award> = Vec::with_capacity(12);
    let majority = |awards: &mut Vec<Award>, near: u8, counts: [u8; 2], base: i64| {
        let top = counts[0].max(counts[1]);
        if base == 0 || top == 0 {
            return;
        }
        if counts[0] != counts[1] {
            let side = if counts[0] == top { 0 } else { 1 };
            awards.push(Award {
                near,
                side,
                points: base as f64,
            });
        } else if rules.majority_tie == MajorityTie::Split {
            let share = base as f64 / 2.0;
            for side in 0..2 {
                awards.push(Award {
                    near,
                    side,
                    points: share,
                });
            }
        }
    };
    for item in rules.count_out_order {
        match item {
            CountOutItem::Cards => majority(&mut awards, NEAR_CARDS, tally.cards, rules.points_cards),
            CountOutItem::Spades => majority(&mut awards, NEAR_SPADES, tally.spades, rules.points_spades),
            CountOutItem::BigCasino => {
                if tally.big >= 0 && rules.points_big != 0 {
                    awards.push(Award {
                        near: NEAR_BIG,
                        side: tally.big as usize,
                        points: rules.points_big as f64,
                    });
                }
            }
            CountOutItem::LittleCasino => {
                if tally.little >= 0 && rules.points_little != 0 {
                    awards.push(Award {
                        near: NEAR_LITTLE,
                        side: tally.little as usize,
                        points: rules.points_little as f64,
                    });
                }
            }
            CountOutItem::Aces => {
                for &s in &tally.aces {
                    if s >= 0 && rules.points_ace != 0 {
                        awards.push(Award {
                            near: 0,
                            side: s as usize,
                            points: rules.points_ace as f64,
                        });
                    }
                }
            }
            CountOutItem::Sweeps => {
                if rules.sweeps && rules.points_sweep != 0 {
                    let net = net_sweeps(rules, tally.sweeps);
                    for side in 0..2 {
                        if net[side] != 0 && near[side].is_none() {
                            awards.push(Award {
                                near: 0,
                                side,
                                points: (net[side] * rules.points_sweep) as f64,
                            });
                        }
                    }
                }
            }
        }
    }
    if rules.last_capture_point != 0 && tally.last >= 0 {
        awards.push(Award {
            near: 0,
            side: tally.last as usize,
            points: rules.last_capture_point as f64,
        });
    }
    let mut raw = [0.0f64; 2];
    for a in &awards {
        raw[a.side] += a.points;
    }
    let mut added = raw;
    for s in 0..2 {
        if near[s].is_some() {
            added[s] = match rules.near_target_mode {
                NearTargetMode::Freeze => 0.0,
                NearTargetMode::CapAt20 => {
                    // max(0, min(raw, target - 1 - score)), as Python's min and max choose.
                    let cap = (rules.target - 1) as f64 - scores[s];
                    let low = if cap < raw[s] { cap } else { raw[s] };
                    if low > 0.0 {
                        low
                    } else {
                        0.0
                    }
                }
            };
        }
    }
    (winner(rules, scores, &awards, near, added), added)
}

/// `scoring._winner` of two sides.
fn winner(
    rules: &Rules,
    scores: [f64; 2],
    awards: &[Award],
    near: [Option<u8>; 2],
    added: [f64; 2],
) -> Option<usize> {
    let mut met = None;
    let mut met_index = awards.len();
    for (i, a) in awards.iter().enumerate() {
        if let Some(cond) = near[a.side] {
            if cond & a.near != 0 {
                met = Some(a.side);
                met_index = i;
                break;
            }
        }
    }
    if met.is_some() && rules.near_target_precedence == NearTargetPrecedence::Automatic {
        return met;
    }
    let target = rules.target as f64;
    if rules.count_out {
        let mut running = scores;
        for (i, a) in awards.iter().enumerate() {
            if i == met_index {
                return met;
            }
            if near[a.side].is_some() {
                continue;
            }
            running[a.side] += a.points;
            if running[a.side] >= target {
                return Some(a.side);
            }
        }
        return met;
    }
    let totals = [scores[0] + added[0], scores[1] + added[1]];
    let best = if totals[1] > totals[0] {
        totals[1]
    } else {
        totals[0]
    };
    if best < target {
        return met;
    }
    if met.is_some() {
        return met;
    }
    if totals[0] == totals[1] {
        None
    } else if totals[0] == best {
        Some(0)
    } else {
        Some(1)
    }
}

/// `chances._within_target`: scores past the target moved down together until the highest is the
/// target, none below 0.
fn within_target(target: i64, s: [i64; 2]) -> [i64; 2] {
    let over = s[0].max(s[1]) - target;
    if over > 0 {
        [(s[0] - over).max(0), (s[1] - over).max(0)]
    } else {
        s
    }
}

/// `chances._next_state`: the game score after a round that decided nothing.
fn next_state(target: i64, start: [f64; 2], points: [f64; 2]) -> [i64; 2] {
    // int(a + b): truncated toward 0.
    within_target(
        target,
        [
            (start[0] + points[0]).trunc() as i64,
            (start[1] + points[1]).trunc() as i64,
        ],
    )
}

/// A table of the chances of two sides (`chances.GameTable`), from every game score 0..target per
/// side and dealer's side.
#[derive(Clone, Debug)]
pub struct GameTable {
    pub rules: Rules,
    /// Indexed by (dealer's side, score of side 0, score of side 1).
    chances: Vec<[f64; 2]>,
}

impl GameTable {
    /// The table of `rules` from its chances listed by dealer's side, then the score of side 0, then
    /// of side 1 (as `GameTable.to_json` nests them).
    pub fn new(rules: Rules, chances: Vec<[f64; 2]>) -> Result<Self, String> {
        let t = rules.target;
        if !(0..=1000).contains(&t) {
            return Err(format!("a game table to the target {t}"));
        }
        let want = 2 * (t as usize + 1) * (t as usize + 1);
        if chances.len() != want {
            return Err(format!(
                "a game table of two sides to {t} lists {want} chances, got {}",
                chances.len()
            ));
        }
        Ok(GameTable { rules, chances })
    }

    /// `GameTable.at`: the chances before a round from `scores` with `dealer_side` dealing.
    pub fn at(&self, scores: [f64; 2], dealer_side: usize) -> [f64; 2] {
        let t = self.rules.target;
        let key = within_target(t, [scores[0].floor() as i64, scores[1].floor() as i64]);
        self.at_key([key[0].max(0), key[1].max(0)], dealer_side % 2)
    }

    fn at_key(&self, key: [i64; 2], dealer_side: usize) -> [f64; 2] {
        let n = self.rules.target as usize + 1;
        self.chances[(dealer_side * n + key[0] as usize) * n + key[1] as usize]
    }
}

/// The tally of a played-out round of two sides as scoring reads it
/// (`canonical_tally(rules, tally_of(state))`): the majorities as marks (1 for each side with the
/// most, none when nobody took any), who holds Big and Little Casino and each ace (-1: nobody, the
/// residue set aside), the sweeps, and the last capture only where it scores.
pub fn round_tally(rules: &Rules, s: &State) -> Tally {
    let piles = [s.captured[0], s.captured[1]];
    let marks = |counts: [u32; 2]| -> [u8; 2] {
        let top = counts[0].max(counts[1]);
        [
            (top != 0 && counts[0] == top) as u8,
            (top != 0 && counts[1] == top) as u8,
        ]
    };
    let holder = |card: u8| -> i8 {
        match piles.iter().position(|p| p >> card & 1 != 0) {
            Some(side) => side as i8,
            None => -1,
        }
    };
    Tally {
        cards: marks([piles[0].count_ones(), piles[1].count_ones()]),
        spades: marks([
            (piles[0] & SPADES_MASK).count_ones(),
            (piles[1] & SPADES_MASK).count_ones(),
        ]),
        big: holder(BIG_CASINO),
        little: holder(LITTLE_CASINO),
        aces: ACES_COUNT_OUT.map(holder),
        sweeps: [s.sweeps[0] as i64, s.sweeps[1] as i64],
        last: if rules.last_capture_point != 0 {
            s.last_capturer
        } else {
            -1
        },
    }
}

/// What a played-out round is worth to one side for the game (`chances.game_final`, the final
/// value of a solver of the last deal played for the game): 1 or 0 where the round decides the
/// game (`score_tally` at the score the round started at), else the side's chance in the table at
/// the score it leads to, with the next side dealing.
#[derive(Clone, Debug)]
pub struct GameFinal {
    table: Arc<GameTable>,
    start: [f64; 2],
    next_dealer: usize,
    side: usize,
}

impl GameFinal {
    /// For `side` in a round dealt by seat `dealer` from the game score `start` (per side).
    pub fn new(table: Arc<GameTable>, start: [f64; 2], dealer: usize, side: usize) -> Self {
        GameFinal {
            table,
            start,
            next_dealer: (dealer + 1) % 2,
            side: side % 2,
        }
    }

    pub fn side(&self) -> usize {
        self.side
    }

    /// The chance `side` wins the game once the round ends as `s` (played out, two sides).
    pub fn value(&self, s: &State) -> f64 {
        assert_eq!(s.nsides, 2, "the chance to win the game of a round of two sides");
        let rules = &self.table.rules;
        let (winner, points) = score_tally(rules, &round_tally(rules, s), self.start);
        match winner {
            Some(w) => {
                if w == self.side {
                    1.0
                } else {
                    0.0
                }
            }
            None => {
                let after = next_state(rules.target, self.start, points);
                self.table
                    .at([after[0] as f64, after[1] as f64], self.next_dealer)[self.side]
            }
        }
    }

    /// This value as an evaluator's final value (`Evaluator::new`).
    pub fn into_final_value(self) -> FinalValue {
        Arc::new(move |s: &State| self.value(s))
    }
}

/// The chances of one decision's outcomes (`world_chances` with its `ChanceMemo`): the table, the
/// game score the round started at, the sweeps made before the decision, the mover's side and the
/// next dealer's side, and what the outcomes and tallies met so far gave.
pub struct WorldChances {
    table: GameTable,
    worth: [i64; NCATEGORIES],
    start: [f64; 2],
    sweeps: [i64; 2],
    side: i8,
    next_dealer: usize,
    outcomes: FxMap<OutcomeKey, f64>,
    tallies: FxMap<Tally, f64>,
}

impl WorldChances {
    pub fn new(table: GameTable, start: [f64; 2], sweeps: [i64; 2], side: u8, next_dealer: usize) -> Self {
        WorldChances {
            worth: category_points(&table.rules),
            table,
            start,
            sweeps,
            side: (side % 2) as i8,
            next_dealer: next_dealer % 2,
            outcomes: FxMap::default(),
            tallies: FxMap::default(),
        }
    }

    /// The mover's chance after one world's outcome (the body of `world_chances`' loop).
    pub fn chance(&mut self, outcome: &Outcome) -> f64 {
        let key = outcome.key();
        if let Some(&p) = self.outcomes.get(&key) {
            return p;
        }
        let mut p = 0.0;
        if let Some(points) = self.undecided_points(outcome) {
            for (pts, q) in points {
                let after = next_state(self.table.rules.target, self.start, pts);
                p += q * self
                    .table
                    .at([after[0] as f64, after[1] as f64], self.next_dealer)[self.side as usize];
            }
        } else {
            for (t, q) in self.world_tallies(outcome) {
                let c = match self.tallies.get(&t) {
                    Some(&c) => c,
                    None => {
                        let c = self.tally_chance(&t);
                        self.tallies.insert(t, c);
                        c
                    }
                };
                p += q * c;
            }
        }
        self.outcomes.insert(key, p);
        p
    }

    /// `chances_after(table, scores, dealer, {t: 1.0})[side]`.
    fn tally_chance(&self, t: &Tally) -> f64 {
        let rules = &self.table.rules;
        let side = self.side as usize;
        let (winner, points) = score_tally(rules, t, self.start);
        let mut out = [0.0f64; 2];
        match winner {
            Some(w) => out[w] += 1.0,
            None => {
                let after = next_state(rules.target, self.start, points);
                let c = self
                    .table
                    .at([after[0] as f64, after[1] as f64], self.next_dealer);
                for s in 0..2 {
                    out[s] += 1.0 * c[s];
                }
            }
        }
        out[side] / 1.0
    }

    fn sweeps_after(&self, outcome: &Outcome) -> [i64; 2] {
        [
            self.sweeps[0] + outcome.sweeps[0],
            self.sweeps[1] + outcome.sweeps[1],
        ]
    }

    /// `world_tallies`: the tallies the outcome may end the round with, and their probabilities,
    /// in the reference's order.
    pub fn world_tallies(&self, outcome: &Outcome) -> Vec<(Tally, f64)> {
        let me = self.side;
        let own = |cat: usize| owners(outcome, cat, self.worth[cat], me);
        let marks = |s: i8| -> [u8; 2] {
            match s {
                -1 => [1, 1],
                0 => [1, 0],
                _ => [0, 1],
            }
        };
        let mut aces: Vec<([i8; 4], f64)> = vec![([0; 4], 1.0)];
        for (i, &cat) in ACES.iter().enumerate() {
            let o = own(cat);
            let mut next = Vec::with_capacity(aces.len() * o.n);
            for &(t, p) in &aces {
                for (s, q) in o.iter() {
                    let mut t = t;
                    t[i] = s;
                    next.push((t, p * q));
                }
            }
            aces = next;
        }
        let sweeps = self.sweeps_after(outcome);
        let (cards, spades, big, little, last) = (own(CARDS), own(SPADES), own(BIG), own(LITTLE), own(LAST));
        let mut out = Vec::with_capacity(cards.n * spades.n * big.n * little.n * aces.len() * last.n);
        for (c, pc) in cards.iter() {
            for (sp, ps) in spades.iter() {
                for (b, pb) in big.iter() {
                    for (lt, pl) in little.iter() {
                        for &(ac, pa) in &aces {
                            for (x, px) in last.iter() {
                                let t = Tally {
                                    cards: marks(c),
                                    spades: marks(sp),
                                    big: b,
                                    little: lt,
                                    aces: ac,
                                    sweeps,
                                    last: x,
                                };
                                out.push((t, pc * ps * pb * pl * pa * px));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// `_undecided_points`: the round's points by side and their probabilities, in the order the
    /// reference's dict holds them, when the round cannot decide the game; None when it could.
    pub fn undecided_points(&self, outcome: &Outcome) -> Option<Vec<([f64; 2], f64)>> {
        let rules = &self.table.rules;
        let sweeps = self.sweeps_after(outcome);
        let swept = if rules.sweeps && rules.points_sweep != 0 {
            let net = net_sweeps(rules, sweeps);
            [net[0] * rules.points_sweep, net[1] * rules.points_sweep]
        } else {
            [0, 0]
        };
        let reach = round_points(rules);
        for (&score, &sw) in self.start.iter().zip(&swept) {
            if near_target_items(rules, score).is_some()
                || score + reach as f64 + sw as f64 >= rules.target as f64
            {
                return None;
            }
        }
        let mut dist: Vec<([f64; 2], f64)> = vec![([swept[0] as f64, swept[1] as f64], 1.0)];
        for (cat, &worth) in self.worth.iter().enumerate() {
            if worth == 0 {
                continue;
            }
            let split = (cat == CARDS || cat == SPADES) && rules.majority_tie == MajorityTie::Split;
            let share = if split { worth as f64 / 2.0 } else { 0.0 };
            let w = worth as f64;
            let o = owners(outcome, cat, worth, self.side);
            let mut next: Vec<([f64; 2], f64)> = Vec::with_capacity(dist.len() * 2);
            for &([a, b], p) in &dist {
                for (side, q) in o.iter() {
                    let k = match side {
                        0 => [a + w, b],
                        1 => [a, b + w],
                        _ => [a + share, b + share],
                    };
                    match next.iter_mut().find(|(key, _)| *key == k) {
                        Some((_, v)) => *v += p * q,
                        None => next.push((k, 0.0 + p * q)),
                    }
                }
            }
            dist = next;
        }
        Some(dist)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cards::{card, Mask, FULL_DECK, SPADES};
    use crate::search::leaf::{Evaluator, Leaf};

    fn table(rules: &Rules) -> GameTable {
        let n = rules.target as usize + 1;
        let chances = (0..2 * n * n)
            .map(|i| {
                let x = (i % 97) as f64 / 97.0;
                [x, 1.0 - x]
            })
            .collect();
        GameTable::new(rules.clone(), chances).unwrap()
    }

    fn outcome(m: f64) -> Outcome {
        Outcome {
            parts: [
                Some(m),
                Some(-m),
                Some(0.5),
                None,
                Some(1.0),
                Some(-1.0),
                Some(0.2),
                Some(0.0),
                None,
            ],
            sweeps: [1, 0],
            end: false,
        }
    }

    #[test]
    fn tallies_add_up_to_one() {
        let rules = Rules::classic();
        let wc = WorldChances::new(table(&rules), [18.0, 17.0], [0, 0], 0, 1);
        let total: f64 = wc.world_tallies(&outcome(0.7)).iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }

    #[test]
    fn far_from_the_target_the_points_decide() {
        let rules = Rules::classic();
        let mut wc = WorldChances::new(table(&rules), [0.0, 1.0], [0, 0], 1, 0);
        let points = wc.undecided_points(&outcome(0.7)).unwrap();
        let total: f64 = points.iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        let c = wc.chance(&outcome(0.7));
        assert!((0.0..=1.0).contains(&c));
        assert_eq!(c.to_bits(), wc.chance(&outcome(0.7)).to_bits());
        let near = WorldChances::new(table(&rules), [20.0, 1.0], [0, 0], 1, 0);
        assert!(near.undecided_points(&outcome(0.7)).is_none());
    }

    /// A played-out round of two players: side 0 with every card but the spades 2 to 7, Little
    /// Casino among them, and the ace of hearts set aside.
    fn over(sweeps: [u32; 2], last: i8) -> State {
        let low_spades: Mask = (1..7).fold(0, |m, r| m | 1 << card(r, SPADES));
        let aside = 1 << ACES_COUNT_OUT[2];
        let mut s = State {
            hands: [0; 4],
            nplayers: 2,
            loose: 0,
            builds: Default::default(),
            captured: [0; 4],
            sweeps: [sweeps[0], sweeps[1], 0, 0],
            to_move: 0,
            last_capturer: last,
            stock: 0,
            more: false,
            dealer: 1,
            nsides: 2,
            set_aside: aside,
        };
        s.captured[1] = low_spades;
        s.captured[0] = FULL_DECK & !low_spades & !aside;
        s
    }

    #[test]
    fn the_tally_of_a_played_out_round_keeps_what_scoring_reads() {
        let rules = Rules::classic();
        let t = round_tally(&rules, &over([2, 1], 1));
        assert_eq!(t.cards, [1, 0]);
        assert_eq!(t.spades, [1, 0]); // 7 spades to 6
        assert_eq!((t.big, t.little), (0, 1));
        assert_eq!(t.aces, [0, 0, -1, 0]);
        assert_eq!((t.sweeps, t.last), ([2, 1], -1)); // the last capture scores nothing in classic
        let mut with_last = Rules::classic();
        with_last.last_capture_point = 1;
        assert_eq!(round_tally(&with_last, &over([0, 0], 1)).last, 1);
        let mut nobody = over([0, 0], -1);
        nobody.set_aside |= nobody.captured[0] | nobody.captured[1];
        nobody.captured = [0; 4];
        let t = round_tally(&rules, &nobody);
        assert_eq!((t.cards, t.spades, t.big, t.aces), ([0, 0], [0, 0], -1, [-1; 4]));
    }

    #[test]
    fn the_chance_at_the_end_of_a_round_is_won_lost_or_read_from_the_table() {
        let rules = Rules::classic();
        let table = Arc::new(table(&rules));
        let s = over([0, 0], 0);
        // 3 cards + 1 spades + 2 Big Casino + 3 aces = 9 for side 0, Little Casino 1 for side 1.
        assert_eq!(
            score_tally(&rules, &round_tally(&rules, &s), [0.0, 0.0]),
            (None, [9.0, 1.0])
        );
        for side in 0..2 {
            let won = GameFinal::new(table.clone(), [12.0, 0.0], 0, side);
            assert_eq!(won.value(&s), if side == 0 { 1.0 } else { 0.0 });
            // 2 + 9 and 10 + 1 decide nothing: the table at 11-11, side 0 dealing after seat 1.
            let read = GameFinal::new(table.clone(), [2.0, 10.0], 1, side);
            assert_eq!(read.value(&s), table.at([11.0, 11.0], 0)[side]);
            let fv = read.clone().into_final_value();
            let ev = Evaluator::new(&rules, 2, side as u8, Leaf::Handmade, Some(fv), None);
            assert_eq!(ev.final_value(&s), read.value(&s));
        }
    }

    #[test]
    fn a_side_past_the_target_wins() {
        let rules = Rules::classic();
        let t = Tally {
            cards: [1, 0],
            spades: [1, 0],
            big: 0,
            little: 0,
            aces: [0, 0, 0, 0],
            sweeps: [0, 0],
            last: -1,
        };
        assert_eq!(score_tally(&rules, &t, [19.0, 0.0]).0, Some(0));
        assert_eq!(score_tally(&rules, &t, [0.0, 0.0]), (None, [11.0, 0.0]));
    }
}
