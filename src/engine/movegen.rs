//! Legal moves and applying a move: `casino_coach/engine/movegen.py` (rules.md §1.15), move for move.
//!
//! A move is `Move { card, action, take, value }` as the Python `Move` tuple is, and the list of
//! legal moves is that of Python's `legal_moves`: each move once, sorted. Generation follows the
//! Python step by step: loose cards are split into value sets by a subset-sum table, disjoint unions
//! of those sets give every capture and every gathering of loose cards, and the must-hold, owner,
//! Dominican and partner rules filter the candidates. A table without builds (most positions) takes
//! a path of its own here (`generate_loose`), as the Python's does (`_generate_simple`): the same
//! moves as the general path, without the checks that only builds need. Sets and unions are made
//! in no particular order; each card's moves are sorted (when they did not come in order) and made
//! unique at the end. The rules are cited in the Python; the comments here name the section.
//! `examples/movegen_bench.rs` times this module and digests its moves over many rule variants.
//!
//! The work is done in reusable buffers (`MoveGen`): after the first few calls of a thread no call
//! allocates. The free functions use one `MoveGen` per thread. The cost, and the memory, grow with
//! the number of moves listed, which grows exponentially with the loose cards: callers bound the
//! table as the Python does (`MAX_LISTED_LOOSE`, the search's `MAX_LOOSE`).

use std::cell::RefCell;

use super::cards::{iter_cards, rank, rank_mask, Mask, ACES_MASK, FULL_DECK};
use super::rules::{
    AceValue, BuildForPartner, CourtPairingCount, EqualLooseCapture, PartnerBuildInteraction,
    ResidueIfNoCapture, Rules, TableCardsInRaise, TrailRestriction,
};
use super::state::{small_rem, Build, Builds, State, MAX_BUILDS};

pub const TRAIL: u8 = 0;
pub const CAPTURE: u8 = 1;
pub const BUILD: u8 = 2;

/// The most loose cards whose moves the Python lists for someone to read (`check_listable`).
pub const MAX_LISTED_LOOSE: u32 = 16;

/// One play: (card, action, take, value) identifies it. The field order is that of Python's
/// `Move` NamedTuple, so the derived order is Python's sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move {
    pub card: u8,
    pub action: u8,
    pub take: Mask,
    pub value: u8,
}

impl Move {
    pub const fn trail(card: u8) -> Move {
        Move {
            card,
            action: TRAIL,
            take: 0,
            value: 0,
        }
    }
}

/// The numerals A..10 of every suit: classic courts never enter sums.
const NUMERALS: Mask = (1 << 40) - 1;
/// The highest total a value set can have (Royal's 14).
const TOP: usize = 14;
/// Families of at most this many sets are walked one by one (as the Python's `_unions` does);
/// more are decided card set by card set (`unions_by_subsets`).
const WALK_SETS: usize = 8;
/// Tables of at most this many cards that enter sums keep their sets in rows of `GRID` a total:
/// sets of one total are an antichain (a superset has a larger total), so at most C(6, 3) = 20.
const GRID_CARDS: u32 = 6;
const GRID: usize = 32;
/// Families of at most this many pairwise-disjoint sets list their unions subset by subset.
const DISJOINT_SETS: usize = 8;
/// The most cards whose subsets `unions_by_subsets` tabulates (a bit each: 512 KiB).
const MAX_SUBSET_CARDS: u32 = 22;

/// The set bits of a small mask, lowest first.
struct BitIter(u32);

impl Iterator for BitIter {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

/// Whether bit `v` of a value mask is set (a build's value from elsewhere may be anything).
#[inline]
fn has(values: u32, v: u32) -> bool {
    v < 32 && values >> v & 1 != 0
}

// ---------------------------------------------------------------------------------------------
// Value sets and their unions

/// Reusable buffers for subset sums and unions.
#[derive(Default)]
struct Scratch {
    subs: Vec<(Mask, u32)>,
    stack: Vec<(usize, Mask)>,
    compressed: Vec<u32>,
    grouped: Vec<u32>,
    seen: Vec<u64>,
    /// Capture options of one card and value (court pairings, option C4).
    opts: Vec<Mask>,
    c4_sums: Vec<Mask>,
    /// The unions of the other builds of a value (option merge_builds).
    merged: Vec<Mask>,
}

/// Appends to `out` every non-empty subset (a mask) of `items` (mask, value) by total, for totals
/// 0..=limit: the subsets with total `t` are `out[at[t]..at[t + 1]]` (`_sums_table`).
fn subset_sums(
    items: impl Iterator<Item = (Mask, u32)>,
    limit: usize,
    subs: &mut Vec<(Mask, u32)>,
    out: &mut Vec<Mask>,
    at: &mut [u32; TOP + 2],
) {
    subs.clear();
    subs.push((0, 0));
    for (m, v) in items {
        let n = subs.len();
        for i in 0..n {
            let (mm, t) = subs[i];
            let nt = t + v;
            if nt as usize <= limit {
                subs.push((mm | m, nt));
            }
        }
    }
    let mut counts = [0u32; TOP + 2];
    for &(_, t) in &subs[1..] {
        counts[t as usize] += 1;
    }
    let base = out.len() as u32;
    let mut pos = base;
    for t in 0..=limit {
        at[t] = pos;
        pos += counts[t];
    }
    at[limit + 1] = pos;
    out.resize(pos as usize, 0);
    let mut fill = [0u32; TOP + 2];
    fill[..=limit].copy_from_slice(&at[..=limit]);
    for &(m, t) in &subs[1..] {
        out[fill[t as usize] as usize] = m;
        fill[t as usize] += 1;
    }
}

/// Appends to `out` every non-empty union of pairwise-disjoint members of `sets`, each once
/// (`_unions`; one set is its own union), in no particular order.
fn unions_of(sets: &[Mask], out: &mut Vec<Mask>, sc: &mut Scratch) {
    let start = out.len();
    if sets.len() <= 1 {
        out.extend_from_slice(sets);
        return;
    }
    // (Without a popcount instruction in the portable build, overlaps are cheaper to gather
    // than cards to count.)
    let mut universe = 0;
    let mut overlap = 0;
    for &s in sets {
        overlap |= universe & s;
        universe |= s;
    }
    if overlap == 0 && sets.len() <= DISJOINT_SETS {
        // Disjoint sets: every non-empty family is a union, and no two the same. The union of
        // family `f` (a bit per set) is that of `f` without its lowest set, and that set.
        let n = sets.len();
        out.resize(start + (1 << n) - 1, 0);
        let region = &mut out[start..];
        for f in 1usize..1 << n {
            let rest = f & (f - 1);
            let low = sets[f.trailing_zeros() as usize];
            region[f - 1] = if rest == 0 { low } else { region[rest - 1] | low };
        }
        return;
    }
    if sets.len() <= WALK_SETS || universe.count_ones() > MAX_SUBSET_CARDS {
        // Every family once, depth first: from the union `acc`, add a set from index `from` on.
        sc.stack.clear();
        sc.stack.push((0, 0));
        while let Some((from, acc)) = sc.stack.pop() {
            for (j, &s) in sets.iter().enumerate().skip(from) {
                if s & acc == 0 {
                    out.push(acc | s);
                    sc.stack.push((j + 1, acc | s));
                }
            }
        }
        let region = &mut out[start..];
        region.sort_unstable();
        let mut w = 0;
        for r in 0..region.len() {
            if w == 0 || region[r] != region[w - 1] {
                region[w] = region[r];
                w += 1;
            }
        }
        out.truncate(start + w);
    } else {
        unions_by_subsets(sets, universe, out, sc);
    }
}

/// `unions_of` for many sets: each subset U of the cards in play is a union when the set holding
/// its lowest card can be taken out of it leaving a union (or nothing). A bit per subset, in
/// increasing order of the subsets, so the unions come sorted and once.
fn unions_by_subsets(sets: &[Mask], universe: Mask, out: &mut Vec<Mask>, sc: &mut Scratch) {
    let n = universe.count_ones() as usize;
    let mut positions = [0u8; 64];
    for (i, c) in iter_cards(universe).enumerate() {
        positions[i] = c;
    }
    // The sets over the cards' indices, grouped by their lowest index.
    sc.compressed.clear();
    for &s in sets {
        let mut x = 0u32;
        for (i, &p) in positions[..n].iter().enumerate() {
            if s >> p & 1 != 0 {
                x |= 1 << i;
            }
        }
        sc.compressed.push(x);
    }
    let mut at = [0usize; 64];
    for &x in &sc.compressed {
        at[x.trailing_zeros() as usize + 1] += 1;
    }
    for i in 0..n {
        at[i + 1] += at[i];
    }
    sc.grouped.clear();
    sc.grouped.resize(sets.len(), 0);
    let mut fill = at;
    for &x in &sc.compressed {
        let low = x.trailing_zeros() as usize;
        sc.grouped[fill[low]] = x;
        fill[low] += 1;
    }
    let words = (1usize << n).div_ceil(64);
    sc.seen.clear();
    sc.seen.resize(words, 0);
    sc.seen[0] = 1;
    for u in 1u32..(1u32 << n) {
        let low = u.trailing_zeros() as usize;
        for &x in &sc.grouped[at[low]..at[low + 1]] {
            let rest = (u ^ x) as usize;
            if x & !u == 0 && sc.seen[rest >> 6] >> (rest & 63) & 1 != 0 {
                sc.seen[(u >> 6) as usize] |= 1 << (u & 63);
                let mut m = 0;
                let mut bits = u;
                while bits != 0 {
                    m |= 1 << positions[bits.trailing_zeros() as usize];
                    bits &= bits - 1;
                }
                out.push(m);
                break;
            }
        }
    }
}

/// The value sets of one table's loose cards (`_Table`): built once per position, for every value
/// the hand (and a partner one builds for) can capture. The sets and unions of a value come in no
/// particular order, and a union may come twice: every move is sorted and made unique at the end.
#[derive(Default)]
struct Table {
    loose: Mask,
    limit: usize,
    /// `sets(w)` = `sums[sum_at[w]..sum_at[w + 1]]`, w = 0..=14 (classic courts' pairing values
    /// 11..13 hold the loose courts of that rank, one each).
    sums: Vec<Mask>,
    sum_at: [u32; TOP + 2],
    /// `unions(w)` = `unions[union_at[w].0..union_at[w].1]`, made for the values asked for.
    unions: Vec<Mask>,
    union_at: [(u32, u32); TOP + 1],
    union_made: u32,
    /// Values whose unions are their sets (one set or none).
    union_in_sums: u32,
    /// The sets are in `grid` (few cards): `sets(w)` = `grid[w * GRID..][..grid_row[w]]`.
    gridded: bool,
    grid: Vec<Mask>,
    grid_row: [u8; TOP + 2],
    /// The subsets made so far, (mask, total), for the grid.
    grid_subs: Vec<(Mask, u32)>,
}

impl Table {
    /// The sets and unions of the values in `need` (a bit per value): every value a move can take
    /// or build is one the hand captures (or the partner's, or any with table_only_builds), so
    /// sets of totals above the highest of them are never read and not made.
    fn build(&mut self, rules: &Rules, loose: Mask, need: u32, sc: &mut Scratch) {
        self.loose = loose;
        self.limit = rules.max_build as usize;
        let summable = if rules.numeric_courts {
            loose
        } else {
            loose & NUMERALS
        };
        let pv = &rules.pair_value;
        let limit = rules.max_build as u32;
        let need = need & ((2 << TOP) - 2);
        let top = (31 - (need | 1).leading_zeros()).min(limit);
        // The cards that enter sums with a value up to `top` (a card's pairing value is its
        // rank's, 1 to 13).
        let eligible = summable & ((1 << (4 * top)) - 1);
        // Past the numerals' limit (classic): a court of pairing value w makes a set of its own.
        let mut courts = 0;
        for w in BitIter(need >> (limit + 1)) {
            courts |= loose & rank_mask(limit as u8 + w as u8);
        }
        // Every non-empty subset of the eligible cards with a total up to `top`, each card alone
        // and joining the subsets made before it, grouped by total: few cards (the most that
        // play leaves on a table) in rows of GRID sets a total, more in one list sorted by total.
        let mut beyond = eligible;
        for _ in 0..GRID_CARDS {
            beyond &= beyond.wrapping_sub(1);
        }
        self.gridded = beyond == 0;
        if self.gridded {
            if self.grid.len() < (TOP + 1) * GRID {
                self.grid.resize((TOP + 1) * GRID, 0);
                self.grid_subs.resize(1 << GRID_CARDS, (0, 0));
            }
            let mut row = [0u8; TOP + 2];
            let mut n = 0;
            let mut rest = eligible;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let v = pv[c] as u32;
                debug_assert!(v >= 1 && v <= top);
                let bit: Mask = 1 << c;
                let made = n;
                for i in 0..made {
                    let (m, t) = self.grid_subs[i];
                    let nt = t + v;
                    if nt <= top {
                        self.grid_subs[n] = (m | bit, nt);
                        n += 1;
                        self.grid[nt as usize * GRID + row[nt as usize] as usize] = m | bit;
                        row[nt as usize] += 1;
                    }
                }
                self.grid_subs[n] = (bit, v);
                n += 1;
                self.grid[v as usize * GRID + row[v as usize] as usize] = bit;
                row[v as usize] += 1;
            }
            while courts != 0 {
                let card = courts.trailing_zeros() as usize;
                courts &= courts - 1;
                let w = pv[card] as usize;
                self.grid[w * GRID + row[w] as usize] = 1 << card;
                row[w] += 1;
            }
            self.grid_row = row;
        } else {
            let subs = &mut sc.subs;
            subs.clear();
            let mut counts = [0u32; TOP + 2];
            let mut rest = eligible;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let v = pv[c] as u32;
                let bit: Mask = 1 << c;
                let n = subs.len();
                subs.reserve(n + 1);
                subs.push((bit, v));
                counts[v as usize] += 1;
                for i in 0..n {
                    let (m, t) = subs[i];
                    let nt = t + v;
                    if nt <= top {
                        subs.push((m | bit, nt));
                        counts[nt as usize] += 1;
                    }
                }
            }
            let mut c = courts;
            while c != 0 {
                counts[pv[c.trailing_zeros() as usize] as usize] += 1;
                c &= c - 1;
            }
            let mut at = [0u32; TOP + 2];
            let mut pos = 0;
            for t in 0..TOP + 1 {
                at[t] = pos;
                pos += counts[t];
            }
            at[TOP + 1] = pos;
            self.sum_at = at;
            self.sums.clear();
            self.sums.resize(pos as usize, 0);
            for &(m, t) in subs.iter() {
                self.sums[at[t as usize] as usize] = m;
                at[t as usize] += 1;
            }
            while courts != 0 {
                let card = courts.trailing_zeros() as usize;
                courts &= courts - 1;
                let w = pv[card] as usize;
                self.sums[at[w] as usize] = 1 << card;
                at[w] += 1;
            }
        }
        // A value of at most one set is its own union: read from the sums.
        self.unions.clear();
        self.union_made = need;
        self.union_in_sums = 0;
        let mut unions = std::mem::take(&mut self.unions);
        for w in BitIter(need) {
            let sets = self.sets(w);
            if sets.len() <= 1 {
                self.union_in_sums |= 1 << w;
            } else {
                let start = unions.len() as u32;
                unions_of(sets, &mut unions, sc);
                self.union_at[w] = (start, unions.len() as u32);
            }
        }
        self.unions = unions;
    }

    /// Loose value sets worth `w`.
    fn sets(&self, w: usize) -> &[Mask] {
        if w > TOP {
            return &[];
        }
        if self.gridded {
            &self.grid[w * GRID..w * GRID + self.grid_row[w] as usize]
        } else {
            &self.sums[self.sum_at[w] as usize..self.sum_at[w + 1] as usize]
        }
    }

    /// Non-empty loose masks that split into sets each worth `w` (rules.md 1.6.1).
    fn unions(&self, w: usize) -> &[Mask] {
        if w > TOP {
            return &[];
        }
        debug_assert!(self.union_made >> w & 1 != 0, "unions of {w} were not made");
        if self.union_in_sums >> w & 1 != 0 {
            return self.sets(w);
        }
        let (a, b) = self.union_at[w];
        &self.unions[a as usize..b as usize]
    }

    /// Loose masks S such that a played card worth `b` and S split into sets worth `v` (with
    /// `alone_ok`, V3's ace as a 14-set); with `multi` off (B9) at most one loose set joins the
    /// card's own set. A mask may come twice (`_Table.gatherings`).
    fn gatherings(&self, b: u32, v: u32, alone_ok: bool, multi: bool, mut f: impl FnMut(Mask)) {
        let us = if multi {
            self.unions(v as usize)
        } else {
            self.sets(v as usize)
        };
        if v == b || alone_ok {
            f(0);
            for &u in us {
                f(u);
            }
        }
        if v > b {
            for &t in self.sets((v - b) as usize) {
                f(t);
                for &u in us {
                    if u & t == 0 {
                        f(t | u);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Legal moves

/// Reusable buffers for generating moves; `legal_moves` and `legal_moves_of` use one per thread.
#[derive(Default)]
pub struct MoveGen {
    table: Table,
    sc: Scratch,
    keys: Keys,
    spare: Vec<Move>,
}

/// One card's moves, as `key`s.
type Keys = Vec<u64>;

thread_local! {
    static GEN: RefCell<MoveGen> = RefCell::new(MoveGen::default());
}

/// Every legal move of the seat to move, each once, sorted (as Python's `legal_moves`); `out` is
/// cleared first. Empty when the round needs a deal.
pub fn legal_moves(rules: &Rules, s: &State, out: &mut Vec<Move>) {
    legal_moves_of(rules, s, FULL_DECK, out);
}

/// The legal moves playing one of the hand cards in `cards` (Python's `legal_moves(..., cards)`);
/// the rest of the hand still counts for must-hold.
pub fn legal_moves_of(rules: &Rules, s: &State, cards: Mask, out: &mut Vec<Move>) {
    GEN.with(|g| match g.try_borrow_mut() {
        Ok(mut g) => g.legal_moves_of(rules, s, cards, out),
        Err(_) => MoveGen::default().legal_moves_of(rules, s, cards, out),
    });
}

impl MoveGen {
    pub fn new() -> MoveGen {
        MoveGen::default()
    }

    /// `legal_moves`, in these buffers.
    pub fn legal_moves(&mut self, rules: &Rules, s: &State, out: &mut Vec<Move>) {
        self.legal_moves_of(rules, s, FULL_DECK, out);
    }

    /// `legal_moves_of`, in these buffers.
    pub fn legal_moves_of(&mut self, rules: &Rules, s: &State, cards: Mask, out: &mut Vec<Move>) {
        out.clear();
        let hand = s.hands[s.to_move as usize];
        if hand == 0 {
            return;
        }
        self.generate(rules, s, cards, true, out);
        if out.is_empty() {
            // The last resort (`_last_resort`): a player who holds cards but has no legal move, as
            // the rules' proof (1.4) allows only when building for a partner or in a position made
            // elsewhere. Decided for the whole hand first.
            let none_at_all = if hand & !cards == 0 {
                true
            } else {
                let mut spare = std::mem::take(&mut self.spare);
                spare.clear();
                self.generate(rules, s, FULL_DECK, true, &mut spare);
                let empty = spare.is_empty();
                self.spare = spare;
                empty
            };
            if none_at_all {
                self.generate(rules, s, FULL_DECK, false, out);
                if out.is_empty() {
                    out.extend(iter_cards(hand).map(Move::trail));
                }
                out.retain(|m| cards >> m.card & 1 != 0);
            }
        }
        // Card by card, each card's moves by action, take and value: sorted and each once.
        debug_assert!(out.windows(2).all(|w| w[0] < w[1]));
    }

    /// `generate` for a table without builds (most positions), the same moves in the same
    /// order: no build to own, keep (1.8.2), extend or raise, so no must-hold filter; option C4
    /// counts builds, so it changes nothing; table_only_builds and classic court_builds take the
    /// general path.
    fn generate_loose(&mut self, rules: &Rules, s: &State, cards: Mask, out: &mut Vec<Move>) {
        let seat = s.to_move as usize;
        let hand = s.hands[seat];
        let capm = &rules.capture_masks;
        let bv = &rules.build_value;
        let pv = &rules.pair_value;
        let mut partner_capm = 0u32;
        if rules.build_for_partner != BuildForPartner::Never && s.nplayers == 4 && s.nsides == 2 {
            for c in iter_cards(s.hands[(seat + 2) % 4]) {
                partner_capm |= capm[c as usize];
            }
        }
        // The values the hand captures, and those it captures with two cards or more: a card's
        // `rest` (the values kept after playing it) without a loop over the hand.
        let mut once = 0u32;
        let mut twice = 0u32;
        for c in iter_cards(hand) {
            let m = capm[c as usize];
            twice |= once & m;
            once |= m;
        }
        let MoveGen { table, sc, keys, .. } = self;
        table.build(rules, s.loose, partner_capm | once, sc);
        let table = &*table;
        let equal_loose = rules.trail_restriction == TrailRestriction::EqualLoose;
        let at_least_one = rules.equal_loose_capture == EqualLooseCapture::AtLeastOne;
        let mut loose_pvs = 0u32;
        if equal_loose {
            for c in iter_cards(s.loose) {
                loose_pvs |= 1 << pv[c as usize];
            }
        }
        let maxb = rules.max_build as u32;
        let multi = rules.multi_set_build_creation;
        let ace14_rule = rules.ace_singleton_set_in_build && maxb == 14;
        let any_capture = rules.trail_restriction == TrailRestriction::AnyCapture;

        for c in iter_cards(hand & cards) {
            let cm = capm[c as usize];
            let rest = partner_capm | twice | (once & !cm);
            let equal_held = equal_loose && has(loose_pvs, pv[c as usize] as u32);
            keys.clear();

            // Captures (1.6); Dominican (1.9): a capture with value w takes every loose card
            // worth w (or one).
            let classic_court = bv[c as usize] == 0;
            for w in BitIter(cm) {
                let equal = if equal_loose && w <= 13 {
                    s.loose & rank_mask(w as u8 - 1)
                } else {
                    0
                };
                let opts: &[Mask] = if classic_court && rules.court_pairing_count == CourtPairingCount::One {
                    table.sets(w)
                } else if classic_court {
                    sc.opts.clear();
                    court_takes(rules, table, w, &mut sc.opts);
                    &sc.opts
                } else {
                    table.unions(w)
                };
                for &t in opts {
                    let takes_equal = if at_least_one {
                        t & equal != 0
                    } else {
                        t & equal == equal
                    };
                    if equal == 0 || takes_equal {
                        keys.push(key(CAPTURE, t, 0));
                    }
                }
            }
            let can_capture = !keys.is_empty();

            // Create a build (1.7.1) onto loose cards, declaring a value kept in hand (1.8.2).
            let b = bv[c as usize] as u32;
            if b > 0 && (rules.equal_loose_build_ok || !equal_held) {
                let ace14 = ace14_rule && rank(c) == 0;
                let vs = rest >> b << b & ((2 << maxb) - 1);
                for v in BitIter(vs) {
                    let v = v as u32;
                    table.gatherings(b, v, ace14 && v == 14, multi, |t| {
                        if t != 0 {
                            keys.push(key(BUILD, t, v));
                        }
                    });
                }
            }

            // Trail (1.9).
            if !(equal_held || any_capture && can_capture) {
                out.push(Move::trail(c));
            }
            if !keys.windows(2).all(|w| w[0] < w[1]) {
                keys.sort_unstable();
                keys.dedup();
            }
            out.extend(keys.iter().map(|&k| unkey(c, k)));
        }
    }

    /// Python's `_generate`: the moves, unsorted and maybe repeated, appended to `out` (`strict`
    /// off: must-hold waived for the builds owned already).
    fn generate(&mut self, rules: &Rules, s: &State, cards: Mask, strict: bool, out: &mut Vec<Move>) {
        let seat = s.to_move as usize;
        let hand = s.hands[seat];
        if hand == 0 {
            return;
        }
        let classic_court_builds = rules.court_builds && !rules.numeric_courts;
        if s.builds.is_empty() && !rules.table_only_builds && !classic_court_builds {
            self.generate_loose(rules, s, cards, out);
            return;
        }
        let capm = &rules.capture_masks;
        let bv = &rules.build_value;
        let pv = &rules.pair_value;
        let nsides = s.nsides.max(1);
        let builds = s.builds.as_slice();
        // Must-hold (1.8.2) counts the partner's capture values when building for him is allowed.
        let mut partner_capm = 0u32;
        let mut partner_hand = 0;
        if rules.build_for_partner != BuildForPartner::Never && s.nplayers == 4 && nsides == 2 {
            partner_hand = s.hands[(seat + 2) % 4];
            for c in iter_cards(partner_hand) {
                partner_capm |= capm[c as usize];
            }
        }
        // The values the hand captures, and those it captures with two cards or more.
        let mut once = 0u32;
        let mut twice = 0u32;
        for c in iter_cards(hand) {
            let m = capm[c as usize];
            twice |= once & m;
            once |= m;
        }
        let mut need = partner_capm | once;
        if rules.table_only_builds {
            need |= (2 << rules.max_build) - 2;
        }
        let MoveGen { table, sc, keys, .. } = self;
        table.build(rules, s.loose, need, sc);
        let table = &*table;

        // The builds the mover owns, as a bit per index in `builds`.
        let mut owned = 0u32;
        let mut dual_ace = false;
        for (i, b) in builds.iter().enumerate() {
            if b.owner as usize == seat {
                owned |= 1 << i;
                // Both ace values can only be needed when a build of 1 or 14 is owned already.
                dual_ace |= b.value == 1 || b.value == 14;
            }
        }
        let owns_build = owned != 0;
        let dual_ace = dual_ace && rules.ace_value == AceValue::OneOrFourteen;
        let partner_aces = if partner_capm != 0 {
            (partner_hand & ACES_MASK).count_ones()
        } else {
            0
        };
        let equal_loose = rules.trail_restriction == TrailRestriction::EqualLoose;
        let mut loose_pvs = 0u32;
        if equal_loose {
            for c in iter_cards(s.loose) {
                loose_pvs |= 1 << pv[c as usize];
            }
        }
        let court_builds = rules.court_builds && !rules.numeric_courts;
        let maxb = rules.max_build as u32;

        for c in iter_cards(hand) {
            if cards >> c & 1 == 0 {
                continue;
            }
            let rest = partner_capm | twice | (once & !capm[c as usize]);
            // Must-hold (1.8.2): every build the mover still owns after the move needs a capture card.
            let mut exposed = 0u32;
            if strict {
                for i in BitIter(owned) {
                    if !has(rest, builds[i].value as u32) {
                        exposed |= 1 << i;
                    }
                }
            }
            let keeps = |take: Mask| BitIter(exposed).all(|i| take & builds[i].cards != 0);
            // The card's moves, each as its action, take and value (`key`), sorted below: so the
            // moves come out in order, card by card, without sorting the whole list.
            keys.clear();

            // Captures (1.6).
            captures(rules, s, table, sc, c, &mut |t| {
                if keeps(t) {
                    keys.push(key(CAPTURE, t, 0));
                }
            });
            let can_capture = !keys.is_empty();

            // Builds (1.7).
            let b = bv[c as usize] as u32;
            let mut builds_ok = b > 0 || court_builds;
            if equal_loose && !rules.equal_loose_build_ok && has(loose_pvs, pv[c as usize] as u32) {
                builds_ok = false;
            }
            if builds_ok && (!builds.is_empty() || court_builds || (rest >> b << b) & ((2 << maxb) - 1) != 0)
            {
                build_moves(rules, s, table, sc, c, rest, &mut |take, v| {
                    if keeps(take) {
                        keys.push(key(BUILD, take, v));
                    }
                });
            }

            // Trail (1.8.3, 1.9).
            let mut trail_ok = !owns_build || rules.owner_may_trail;
            if equal_loose && has(loose_pvs, pv[c as usize] as u32) {
                trail_ok = false;
            }
            if rules.trail_restriction == TrailRestriction::AnyCapture && can_capture {
                trail_ok = false;
            }
            let mut plain_trail = trail_ok && exposed == 0;
            if plain_trail && rules.table_only_builds {
                for v in 1..=maxb {
                    if !has(rest, v) || !value_free(rules, builds, v, None) {
                        continue;
                    }
                    for &u in table.unions(v as usize) {
                        if u.count_ones() >= 2 {
                            keys.push(key(TRAIL, u, v));
                        }
                    }
                }
            }

            // Must-hold, one card per build value: a Royal ace captures as 1 or as 14, never both
            // in one move, so an owner of builds of 1 and 14 needs two aces.
            if strict && dual_ace && (hand & !(1 << c) & ACES_MASK).count_ones() + partner_aces < 2 {
                let both = |k: &u64| needs_both_ace_values(&unkey(c, *k), builds, owned);
                plain_trail &= !both(&0);
                keys.retain(|k| !both(k));
            }

            if plain_trail {
                out.push(Move::trail(c));
            }
            // Often made in order already (one capture value, no builds).
            if !keys.windows(2).all(|w| w[0] < w[1]) {
                keys.sort_unstable();
                keys.dedup();
            }
            out.extend(keys.iter().map(|&k| unkey(c, k)));
        }
    }
}

/// A card's move as one number that sorts as the move: its action, take (52 bits) and value (4
/// bits: at most 14).
#[inline]
fn key(action: u8, take: Mask, value: u32) -> u64 {
    debug_assert!(value < 16 && take >> 52 == 0);
    (action as u64) << 56 | take << 4 | value as u64
}

/// The move of card `c` that `key` made.
#[inline]
fn unkey(c: u8, k: u64) -> Move {
    Move {
        card: c,
        action: (k >> 56) as u8,
        take: k >> 4 & FULL_DECK,
        value: (k & 15) as u8,
    }
}

/// Whether, after `m`, its player owns (or creates) builds of both 1 and 14.
fn needs_both_ace_values(m: &Move, builds: &[Build], owned: u32) -> bool {
    let mut need1 = false;
    let mut need14 = false;
    for b in BitIter(owned).map(|i| &builds[i]) {
        if b.cards & m.take == 0 {
            need1 |= b.value == 1;
            need14 |= b.value == 14;
        }
    }
    if m.action == BUILD || m.value != 0 {
        need1 |= m.value == 1;
        need14 |= m.value == 14;
    }
    need1 && need14
}

/// B8: with allow_duplicate_value_builds off, no other build (but `consumed`) may have `value`.
fn value_free(rules: &Rules, builds: &[Build], value: u32, consumed: Option<Mask>) -> bool {
    rules.allow_duplicate_value_builds
        || builds
            .iter()
            .all(|b| b.value as u32 != value || Some(b.cards) == consumed)
}

/// The loose cards a classic court of pairing value `w` may take (1.6.3, court_pairing_count),
/// appended to `opts`.
fn court_takes(rules: &Rules, table: &Table, w: usize, opts: &mut Vec<Mask>) {
    let singles = table.sets(w);
    let all = singles.iter().fold(0, |m, s| m | s);
    match rules.court_pairing_count {
        CourtPairingCount::One => opts.extend_from_slice(singles),
        CourtPairingCount::All => {
            if !singles.is_empty() {
                opts.push(all);
            }
        }
        CourtPairingCount::OneOrThree => {
            opts.extend_from_slice(singles);
            if singles.len() == 3 {
                opts.push(all);
            }
        }
    }
}

/// Every take mask card `c` may capture, before the must-hold filter (`_captures`); a take may
/// come more than once.
#[inline(always)]
fn captures(rules: &Rules, s: &State, table: &Table, sc: &mut Scratch, c: u8, emit: &mut impl FnMut(Mask)) {
    let builds = s.builds.as_slice();
    let equal_loose = rules.trail_restriction == TrailRestriction::EqualLoose;
    let classic_court = rules.build_value[c as usize] == 0;
    let mut ws = rules.capture_masks[c as usize];
    if builds.is_empty() && !equal_loose && !classic_court {
        // Loose cards only (C4 counts builds, and there are none).
        while ws != 0 {
            let w = ws.trailing_zeros() as usize;
            ws &= ws - 1;
            for &t in table.unions(w) {
                emit(t);
            }
        }
        return;
    }
    while ws != 0 {
        let w = ws.trailing_zeros() as usize;
        ws &= ws - 1;
        let mut use_opts = false;
        let court_singles = classic_court && rules.court_pairing_count == CourtPairingCount::One;
        if classic_court && !court_singles {
            sc.opts.clear();
            court_takes(rules, table, w, &mut sc.opts);
            use_opts = true;
        }
        if rules.build_as_card_in_sums && !classic_court {
            use_opts = with_builds_in_sums(rules, s, table, sc, w);
        }
        let loose_opts: &[Mask] = if court_singles {
            table.sets(w)
        } else if use_opts {
            &sc.opts
        } else {
            table.unions(w)
        };
        let mut nb = 0;
        for b in builds {
            nb += (b.value as usize == w) as usize;
        }
        let equal = if equal_loose && w <= 13 {
            s.loose & rank_mask(w as u8 - 1)
        } else {
            0
        };
        if nb == 0 && equal == 0 {
            for &t in loose_opts {
                emit(t);
            }
            continue;
        }
        // Every choice of the builds of value w, with nothing loose or each loose option.
        let at_least_one = rules.equal_loose_capture == EqualLooseCapture::AtLeastOne;
        let mut bmasks = [0 as Mask; MAX_BUILDS];
        let mut at = 0;
        for b in builds {
            if b.value as usize == w {
                bmasks[at] = b.cards;
                at += 1;
            }
        }
        for pick in 0u32..1 << nb {
            let mut bm = 0;
            for (i, m) in bmasks[..nb].iter().enumerate() {
                if pick >> i & 1 != 0 {
                    bm |= m;
                }
            }
            for x in std::iter::once(0).chain(loose_opts.iter().copied()) {
                let t = x | bm;
                // Dominican (1.9): a capture with value w takes every loose card worth w (or one).
                if equal != 0
                    && (if at_least_one {
                        t & equal == 0
                    } else {
                        t & equal != equal
                    })
                {
                    continue;
                }
                if t != 0 {
                    emit(t);
                }
            }
        }
    }
}

/// Option C4: single builds also count as cards of their value inside capture sums. Fills
/// `sc.opts` and says so; false when the loose unions stand.
fn with_builds_in_sums(rules: &Rules, s: &State, table: &Table, sc: &mut Scratch, w: usize) -> bool {
    let builds = s.builds.as_slice();
    let singles = |b: &&Build| !b.multiple && (b.value as usize) < w;
    if !builds.iter().any(|b| singles(&b)) || w > table.limit {
        return false;
    }
    let bv = &rules.build_value;
    let items = iter_cards(s.loose)
        .filter(|&c| bv[c as usize] > 0)
        .map(|c| (1 << c, bv[c as usize] as u32))
        .chain(builds.iter().filter(singles).map(|b| (b.cards, b.value as u32)));
    let mut at = [0u32; TOP + 2];
    sc.c4_sums.clear();
    subset_sums(items, table.limit, &mut sc.subs, &mut sc.c4_sums, &mut at);
    let sets = std::mem::take(&mut sc.c4_sums);
    let mut opts = std::mem::take(&mut sc.opts);
    opts.clear();
    unions_of(&sets[at[w] as usize..at[w + 1] as usize], &mut opts, sc);
    sc.c4_sums = sets;
    sc.opts = opts;
    true
}

/// Create (1.7.1), extend (1.7.2) and raise (1.7.3) with card `c`; must-hold of the new value
/// (`rest`: the capture values kept). A move may come more than once.
#[inline(always)]
fn build_moves(
    rules: &Rules,
    s: &State,
    table: &Table,
    sc: &mut Scratch,
    c: u8,
    rest: u32,
    emit: &mut impl FnMut(Mask, u32),
) {
    let seat = s.to_move;
    let nsides = s.nsides.max(1);
    let builds = s.builds.as_slice();
    let maxb = rules.max_build as u32;
    let court = rules.build_value[c as usize] == 0; // a classic court, only with court_builds
    let b = if court {
        rules.pair_value[c as usize]
    } else {
        rules.build_value[c as usize]
    } as u32;
    let ace14 = rules.ace_singleton_set_in_build && rank(c) == 0 && maxb == 14;
    let multi = rules.multi_set_build_creation;

    // Create: onto a non-empty set of loose cards, declaring v; must-hold makes v a value kept.
    let mut vs = if court {
        rest & 1 << b
    } else {
        rest >> b << b & ((2 << maxb) - 1)
    };
    while vs != 0 {
        let v = vs.trailing_zeros();
        vs &= vs - 1;
        if !value_free(rules, builds, v, None) {
            continue;
        }
        let own_set = if court { v } else { b };
        table.gatherings(own_set, v, ace14 && v == 14, multi, |t| {
            if t != 0 {
                emit(t, v);
            }
        });
    }

    for (i, bld) in builds.iter().enumerate() {
        let own = bld.owner == seat;
        let partner = !own && bld.owner % nsides == seat % nsides;
        let v = bld.value as u32;
        if !court && !rules.numeric_courts && v > 10 {
            continue; // a classic court build (court_builds) takes only courts of its rank
        }
        // Extend: c (with loose cards) adds v-sets; the build becomes multiple (1.7.2).
        if has(rest, v)
            && (!partner || rules.partner_build_interaction == PartnerBuildInteraction::Free)
            && (b <= v || (ace14 && v == 14))
        {
            sc.merged.clear();
            if rules.merge_builds {
                sc.opts.clear();
                for (j, o) in builds.iter().enumerate() {
                    if j != i && o.value as u32 == v {
                        sc.opts.push(o.cards);
                    }
                }
                if !sc.opts.is_empty() {
                    let extra = std::mem::take(&mut sc.opts);
                    let mut merged = std::mem::take(&mut sc.merged);
                    unions_of(&extra, &mut merged, sc);
                    sc.opts = extra;
                    sc.merged = merged;
                }
            }
            let merged = &sc.merged;
            let own_set = if court { v } else { b };
            table.gatherings(own_set, v, ace14 && v == 14, multi, |t| {
                emit(bld.cards | t, v);
                for &m in merged {
                    emit(bld.cards | t | m, v);
                }
            });
        }
        // Raise a single build with the hand card (1.7.3); multiple builds never.
        if bld.multiple || court {
            continue;
        }
        if own && !rules.raise_own_build {
            continue;
        }
        if partner && rules.partner_build_interaction == PartnerBuildInteraction::None {
            continue;
        }
        let mut raise = |nv: u32, helper: Mask| {
            if nv > maxb || !has(rest, nv) || !value_free(rules, builds, nv, Some(bld.cards)) {
                return;
            }
            emit(bld.cards | helper, nv);
            let us = if multi {
                table.unions(nv as usize)
            } else {
                table.sets(nv as usize)
            };
            for &u in us {
                if u & helper == 0 {
                    emit(bld.cards | helper | u, nv);
                }
            }
        };
        raise(v + b, 0);
        if rules.table_cards_in_raise == TableCardsInRaise::WithHandCard {
            let room = maxb as i64 - v as i64 - b as i64;
            for total in 1..=room.max(0) as u32 {
                for &m in table.sets(total as usize) {
                    raise(v + b + total, m);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Applying a move

/// The state after `mv` (assumed legal), collecting the residue when the round ends (Python's
/// `apply`). Panics only when the move would make a table of more than `MAX_BUILDS` builds, which
/// no game reaches (see `try_apply`).
pub fn apply(rules: &Rules, s: &State, mv: Move) -> State {
    let mut n = *s;
    if !apply_in_place(rules, &mut n, mv) {
        panic!("a move that makes more than {MAX_BUILDS} builds on the table");
    }
    n
}

/// `apply`, or None when the move would leave more than `MAX_BUILDS` builds on the table.
pub fn try_apply(rules: &Rules, s: &State, mv: Move) -> Option<State> {
    let mut n = *s;
    apply_in_place(rules, &mut n, mv).then_some(n)
}

/// `apply` on the state itself (no copy of it); false, with the state half changed, when the move
/// would leave more than `MAX_BUILDS` builds on the table.
pub fn apply_in_place(rules: &Rules, n: &mut State, mv: Move) -> bool {
    let seat = n.to_move as usize;
    let side = small_rem(seat as u8, n.nsides.max(1)) as usize;
    let bit: Mask = 1 << (mv.card & 63);
    n.hands[seat] ^= bit;
    let take = mv.take;
    if take != 0 && !n.builds.is_empty() {
        n.builds.remove_taken(take);
    }
    let round_over = !n.more && n.hands.iter().all(|&h| h == 0);
    match mv.action {
        CAPTURE => {
            n.loose &= !take;
            n.captured[side] |= take | bit;
            n.last_capturer = side as i8;
            if n.loose == 0 && n.builds.is_empty() && (rules.final_capture_can_sweep || !round_over) {
                n.sweeps[side] = n.sweeps[side].saturating_add(1);
            }
        }
        BUILD => {
            n.loose &= !take;
            if !n
                .builds
                .insert(new_build(rules, take | bit, mv.value, seat as u8))
            {
                return false;
            }
        }
        _ => {
            n.loose |= bit;
            if take != 0 {
                // table_only_builds: the trailed card stays loose beside a build of table cards
                n.loose &= !take;
                if !n.builds.insert(new_build(rules, take, mv.value, seat as u8)) {
                    return false;
                }
            }
        }
    }
    n.to_move = small_rem(seat as u8 + 1, n.nplayers.max(1));
    if round_over {
        collect_residue(rules, n);
    }
    true
}

/// A build of `cards` declared `value` by `seat`: multiple unless its cards sum to the value.
fn new_build(rules: &Rules, cards: Mask, value: u8, seat: u8) -> Build {
    let total: u32 = iter_cards(cards)
        .map(|c| rules.pair_value[c as usize] as u32)
        .sum();
    Build {
        cards,
        value,
        owner: seat,
        multiple: total != value as u32,
    }
}

/// rules.md 1.11 and S5: the cards left on the table when the round ends, and the side they go to
/// (-1: set aside, scoring for nobody).
pub fn residue_of(rules: &Rules, s: &State) -> (Mask, i8) {
    let mut to = if rules.last_capture_takes_table {
        s.last_capturer
    } else {
        -1
    };
    if to < 0 && rules.residue_if_no_capture == ResidueIfNoCapture::Dealer && rules.last_capture_takes_table {
        to = (s.dealer % s.nsides.max(1)) as i8;
    }
    (s.table(), to)
}

/// The residue taken from the table; this is never a sweep.
fn collect_residue(rules: &Rules, s: &mut State) {
    let (residue, to) = residue_of(rules, s);
    if residue == 0 {
        return;
    }
    if to < 0 {
        s.set_aside |= residue;
    } else {
        s.captured[to as usize] |= residue;
    }
    s.loose = 0;
    if !s.builds.is_empty() {
        s.builds = Builds::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cards::card;

    fn cards(text: &str) -> Mask {
        text.split_whitespace().fold(0, |m, t| {
            let b = t.as_bytes();
            let r = b"A23456789TJQK".iter().position(|&x| x == b[0]).unwrap() as u8;
            let s = b"CDHS".iter().position(|&x| x == b[1]).unwrap() as u8;
            m | 1 << card(r, s)
        })
    }

    fn position(hands: &[&str], loose: &str, builds: &[Build]) -> State {
        let n = hands.len();
        let nsides = if n == 4 { 2 } else { n as u8 };
        let mut s = State::empty(n as u8, nsides);
        s.loose = cards(loose);
        s.builds = Builds::from_slice(builds).unwrap();
        for (i, h) in hands.iter().enumerate() {
            s.hands[i] = cards(h);
        }
        s
    }

    fn moves(rules: &Rules, s: &State) -> Vec<Move> {
        let mut out = Vec::new();
        legal_moves(rules, s, &mut out);
        out
    }

    #[test]
    fn pagat_eight_takes_sets_not_all_six() {
        // rules.md 1.6.1: table A 2 3 5 6 8, an 8 may take 8+(6,2)+(5,3) or 8+(5,2,A).
        let s = position(&["8C", "KH"], "AD 2D 3D 5D 6D 8D", &[]);
        let got = moves(&Rules::classic(), &s);
        let takes: Vec<Mask> = got
            .iter()
            .filter(|m| m.action == CAPTURE)
            .map(|m| m.take)
            .collect();
        let mut want: Vec<Mask> = [
            "8D",
            "2D 6D",
            "3D 5D",
            "AD 2D 5D",
            "2D 6D 8D",
            "3D 5D 8D",
            "AD 2D 5D 8D",
            "2D 3D 5D 6D",
            "2D 3D 5D 6D 8D",
        ]
        .iter()
        .map(|t| cards(t))
        .collect();
        want.sort();
        assert_eq!(takes, want);
        assert_eq!(got.len(), 10);
        assert_eq!(got[0], Move::trail(card(7, 0)));
    }

    #[test]
    fn must_hold_and_owner_may_not_trail() {
        let build = Build {
            cards: cards("6D 2D"),
            value: 8,
            owner: 0,
            multiple: false,
        };
        let s = position(&["8C 3H", "2H"], "5S 3D", &[build]);
        let got = moves(&Rules::classic(), &s);
        let c3 = card(2, 2);
        let c8 = card(7, 0);
        let want = vec![
            Move {
                card: c3,
                action: CAPTURE,
                take: cards("3D"),
                value: 0,
            },
            Move {
                card: c3,
                action: BUILD,
                take: cards("5S"),
                value: 8,
            },
            Move {
                card: c3,
                action: BUILD,
                take: cards("2D 6D 5S"),
                value: 8,
            },
            Move {
                card: c8,
                action: CAPTURE,
                take: cards("2D 6D"),
                value: 0,
            },
            Move {
                card: c8,
                action: CAPTURE,
                take: cards("2D 3D 5S 6D"),
                value: 0,
            },
        ];
        let mut want = want;
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn dominican_must_take_both_tens() {
        let s = position(&["TC AS", "2H"], "TD TH 8S 6D", &[]);
        let got = moves(&Rules::dominican(), &s);
        let tens: Vec<Move> = got.iter().copied().filter(|m| m.card == card(9, 0)).collect();
        assert_eq!(
            tens,
            vec![Move {
                card: card(9, 0),
                action: CAPTURE,
                take: cards("TD TH"),
                value: 0
            }]
        );
    }

    /// `Table::build`'s sums as the table by totals makes them (`_sums_table`), for the test.
    fn sums_by_table(rules: &Rules, loose: Mask) -> Vec<Vec<Mask>> {
        let limit = rules.max_build as usize;
        let summable = if rules.numeric_courts {
            loose
        } else {
            loose & NUMERALS
        };
        let mut sums = vec![Vec::new(); TOP + 1];
        for c in iter_cards(summable) {
            let v = rules.pair_value[c as usize] as usize;
            if v == 0 || v > limit {
                continue;
            }
            for t in (1..=limit - v).rev() {
                let (low, high) = sums.split_at_mut(t + v);
                high[0].extend(low[t].iter().map(|&m| m | 1 << c));
            }
            sums[v].push(1 << c);
        }
        sums
    }

    #[test]
    fn sums_are_the_tables_by_totals() {
        let mut rng = crate::engine::playout::SplitMix64(3);
        let mut sc = Scratch::default();
        let mut table = Table::default();
        for rules in [Rules::classic(), Rules::royal(), Rules::dominican()] {
            for _ in 0..3000 {
                let mut loose = 0;
                for _ in 0..rng.below(11) {
                    loose |= 1 << rng.below(52);
                }
                table.build(&rules, loose, (2 << TOP) - 2, &mut sc);
                let want = sums_by_table(&rules, loose);
                for (w, sets) in want.iter().enumerate().take(rules.max_build as usize + 1).skip(1) {
                    // The same sets, in any order (every move is sorted at the end).
                    let mut got = table.sets(w).to_vec();
                    got.sort();
                    let mut sets = sets.clone();
                    sets.sort();
                    assert_eq!(got, sets, "{loose:#x} {w}");
                }
            }
        }
    }

    #[test]
    fn unions_by_subsets_match_the_walk() {
        // Many sets: the subset table and the plain walk agree.
        let rules = Rules::royal();
        let mut sc = Scratch::default();
        let mut table = Table::default();
        let loose = cards("AC AD 2C 2D 3C 3D 4C 4D 5C 6C 7C 8C 9C");
        table.build(&rules, loose, 1 << 14 | 1 << 10 | 1 << 7, &mut sc);
        for w in [7, 10, 14] {
            let sets = table.sets(w).to_vec();
            assert!(sets.len() > WALK_SETS);
            let mut fast = Vec::new();
            unions_by_subsets(&sets, sets.iter().fold(0, |m, s| m | s), &mut fast, &mut sc);
            let mut walk = Vec::new();
            let mut stack = vec![(0usize, 0 as Mask)];
            while let Some((from, acc)) = stack.pop() {
                for (j, &s) in sets.iter().enumerate().skip(from) {
                    if s & acc == 0 {
                        walk.push(acc | s);
                        stack.push((j + 1, acc | s));
                    }
                }
            }
            walk.sort();
            walk.dedup();
            assert_eq!(fast, walk);
            let mut got = table.unions(w).to_vec();
            got.sort();
            assert_eq!(got, walk);
        }
    }

    #[test]
    fn unions_of_few_sets_are_the_walks() {
        // Disjoint families (listed subset by subset) and overlapping ones (walked), 0 to 8 sets.
        let mut rng = crate::engine::playout::SplitMix64(5);
        let mut sc = Scratch::default();
        for _ in 0..5000 {
            let n = rng.below(9) as usize;
            let disjoint = rng.below(2) == 0;
            let mut sets = Vec::new();
            let mut used: Mask = 0;
            while sets.len() < n {
                let mut s: Mask = 0;
                for _ in 0..1 + rng.below(3) {
                    s |= 1 << rng.below(20);
                }
                if disjoint && s & used != 0 {
                    continue;
                }
                used |= s;
                sets.push(s);
            }
            let mut got = Vec::new();
            unions_of(&sets, &mut got, &mut sc);
            let mut walk = Vec::new();
            let mut stack = vec![(0usize, 0 as Mask)];
            while let Some((from, acc)) = stack.pop() {
                for (j, &s) in sets.iter().enumerate().skip(from) {
                    if s & acc == 0 {
                        walk.push(acc | s);
                        stack.push((j + 1, acc | s));
                    }
                }
            }
            walk.sort();
            walk.dedup();
            if disjoint {
                assert_eq!(got.len(), walk.len(), "{sets:?}");
            }
            got.sort();
            got.dedup();
            assert_eq!(got, walk, "{sets:?}");
        }
    }

    #[test]
    fn sweep_and_residue() {
        let rules = Rules::royal();
        let s = position(&["9C 2C", "2H 3S"], "4D 5D", &[]);
        let mv = Move {
            card: card(8, 0),
            action: CAPTURE,
            take: cards("4D 5D"),
            value: 0,
        };
        let after = apply(&rules, &s, mv);
        assert_eq!(after.sweeps[..2], [1, 0]);
        assert_eq!(after.last_capturer, 0);
        let mut end = position(&["2C", ""], "4D 5D", &[]);
        end.last_capturer = 1;
        let fin = apply(&rules, &end, Move::trail(card(1, 0)));
        assert!(fin.is_over());
        assert_eq!(fin.captured[1], cards("4D 5D 2C"));
        assert_eq!(fin.sweeps[..2], [0, 0]);
    }
}
