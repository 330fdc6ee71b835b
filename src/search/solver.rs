//! The perfect-information solver: alpha-beta over one world, to the end of the current deal or a
//! horizon, with a transposition table shared by every root move and every world of one decision.
//!
//! A move-for-move port of `casino_coach/search/solver.py`, which explains the method: the same
//! move order (the same stable sort, the same twin classes), the same principal variation search
//! with the same null windows, the same table bounds and the same node count, so that a node
//! budget stops both at the same node and every value, line and count is the reference's.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::cards::{twin_groups, Mask, FULL_DECK, TWIN_CARDS};
use crate::engine::movegen::{apply, apply_in_place, legal_moves, Move, CAPTURE, TRAIL};
use crate::engine::rules::{BuildForPartner, Rules};
use crate::engine::state::{small_rem, State, HAND_SIZE, MAX_BUILDS};
use crate::search::leaf::{Evaluator, LEAF_KEY_WORDS};
use crate::search::table::{Key, Packed, PackedMap};

pub const INF: f64 = f64::INFINITY;
/// Width of a null window (values are points, far coarser).
pub const NULL: f64 = 1e-9;
/// What a line is cut to (`Solver.principal_line`'s and `proving_line`'s `limit`).
pub const LINE_LIMIT: usize = 64;

/// FxHash (rustc's): a multiply-rotate hash, fast on the integer fields of a state. Not resistant to
/// chosen collisions, which no state of a game can mount.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The search passed its node limit (the table stays valid), as Python's `OutOfNodes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfNodes;

/// The order the search tries moves in (`solver.MoveOrder`): a sort key, lower first, from each
/// card's scoring worth in hundredths of a point (`values.cached_values`, rounded by Python).
#[derive(Clone, Debug)]
pub struct MoveOrder {
    pub weight: [i64; 52],
}

impl MoveOrder {
    fn mask(&self, mut mask: Mask) -> i64 {
        let mut w = 0;
        while mask != 0 {
            w += self.weight[mask.trailing_zeros() as usize];
            mask &= mask - 1;
        }
        w
    }

    pub fn key(&self, m: &Move) -> i64 {
        if m.action == CAPTURE {
            -1_000_000 - self.mask(m.take) - self.weight[m.card as usize]
        } else if m.action == TRAIL {
            self.weight[m.card as usize]
        } else {
            -500_000 - self.mask(m.take)
        }
    }
}

/// The lowest bit of each rank's four.
const RANK_LOW: Mask = 0x1_1111_1111_1111;

/// The groups of twins of a mask (`cards.twin_groups`), at most one per rank, lowest rank first:
/// (groups, how many). A rank's twins are its clubs, diamonds and hearts (bits 0 to 2 of its
/// four), and it has a group when two of them are in the mask; all ranks are tested at once (most
/// lists of moves have no twins, and a rank at a time was a twentieth of the search).
#[inline]
fn twin_groups_of(mask: Mask) -> ([Mask; 13], usize) {
    let m = mask & TWIN_CARDS;
    let mut two = (m & m >> 1 | m & m >> 2 | m >> 1 & m >> 2) & RANK_LOW;
    let mut out = [0; 13];
    let mut n = 0;
    while two != 0 {
        out[n] = m & 0b1111 << two.trailing_zeros();
        n += 1;
        two &= two - 1;
    }
    (out, n)
}

/// The move that stands for `m` among those that differ from it only by twins of the hand
/// (`in_hand`) or of the loose cards (`on_table`): the lowest twins in their place.
#[inline]
fn twin_key(m: &Move, in_hand: &[Mask], on_table: &[Mask]) -> Move {
    let mut card = m.card;
    for &g in in_hand {
        if g >> card & 1 != 0 {
            card = g.trailing_zeros() as u8;
            break;
        }
    }
    let mut take = m.take;
    for &g in on_table {
        let part = take & g;
        if part != 0 && part != g {
            take = (take & !g) | lowest(g, part.count_ones());
        }
    }
    Move {
        card,
        action: m.action,
        take,
        value: m.value,
    }
}

/// For each of `moves`, the index of the first one it differs from only by twins of the hand or of
/// the loose cards (`solver.twin_classes`); `None` when neither holds twins.
pub fn twin_classes(moves: &[Move], hand: Mask, loose: Mask) -> Option<Vec<usize>> {
    let (in_hand, nh) = twin_groups_of(hand);
    let (on_table, nt) = twin_groups_of(loose);
    if nh == 0 && nt == 0 {
        return None;
    }
    let mut first: FxMap<Move, usize> = FxMap::default();
    let mut out = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let key = twin_key(m, &in_hand[..nh], &on_table[..nt]);
        out.push(*first.entry(key).or_insert(i));
    }
    Some(out)
}

/// `moves` without those that differ from an earlier one only by twins (`solver.distinct_moves`).
pub fn distinct_moves(mut moves: Vec<Move>, hand: Mask, loose: Mask) -> Vec<Move> {
    let kept = distinct_in_place(&mut moves, hand, loose, &mut Vec::new());
    moves.truncate(kept);
    moves
}

/// Longer lists than this find the twins' stand-ins already seen by a hash set, shorter ones by a
/// scan of them.
const SCAN_SEEN: usize = 48;

/// `distinct_moves` in place: the moves kept come first, in their order, and their number is
/// returned. `seen` is a buffer (the search's: it makes no map for a short list).
pub fn distinct_in_place(moves: &mut [Move], hand: Mask, loose: Mask, seen: &mut Vec<Move>) -> usize {
    let (in_hand, nh) = twin_groups_of(hand);
    let (on_table, nt) = twin_groups_of(loose);
    if nh == 0 && nt == 0 {
        return moves.len();
    }
    let (in_hand, on_table) = (&in_hand[..nh], &on_table[..nt]);
    seen.clear();
    let mut set: Option<std::collections::HashSet<Move, BuildHasherDefault<FxHasher>>> = None;
    let mut w = 0;
    for r in 0..moves.len() {
        let m = moves[r];
        let key = twin_key(&m, in_hand, on_table);
        let new = match &mut set {
            Some(set) => set.insert(key),
            None if seen.contains(&key) => false,
            None => {
                seen.push(key);
                if seen.len() > SCAN_SEEN {
                    set = Some(seen.iter().copied().collect());
                }
                true
            }
        };
        if new {
            moves[w] = m;
            w += 1;
        }
    }
    w
}

/// The `k` lowest cards of `group` (`solver._lowest`): the one stand-in for any `k` of a group of
/// twins.
#[inline]
fn lowest(mut group: Mask, k: u32) -> Mask {
    let mut low = 0;
    for _ in 0..k {
        let bit = group & group.wrapping_neg();
        low |= bit;
        group ^= bit;
    }
    low
}

/// How many deals a first hand `first` stands for among those that differ only by where the twins of
/// `groups` lie (`solver.twin_weight`): None unless it holds the lowest twins of each group.
fn twin_weight(first: Mask, groups: &[Mask]) -> Option<u32> {
    let mut weight = 1;
    for &g in groups {
        let k = (first & g).count_ones();
        if first & g != lowest(g, k) {
            return None;
        }
        // C(|g|, k) with |g| at most 3
        weight *= match (g.count_ones(), k) {
            (3, 1) | (3, 2) => 3,
            (2, 1) => 2,
            _ => 1,
        };
    }
    Some(weight)
}

/// The state as the search keys it: without the stock's cards (`solver.canonical`).
pub fn canonical(s: &State) -> State {
    let mut c = *s;
    c.stock = 0;
    c
}

/// What the transposition table knows about a state: its ordered moves (a slice of the move
/// arena), the bounds proven, and the index of the best move found.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    start: u32,
    len: u32,
    lo: f64,
    hi: f64,
    best: u32,
}

/// An entry in three words: its bounds, then where its moves start, how many there are and the
/// best one's index, 16 bits each for the two counts (`moves_keyed` keeps a position's moves
/// below `MAX_NODE_MOVES`).
impl Packed for Entry {
    const WORDS: usize = 3;
    #[inline(always)]
    fn pack(&self, out: &mut [u64]) {
        out[0] = self.lo.to_bits();
        out[1] = self.hi.to_bits();
        out[2] = self.start as u64 | (self.len as u64) << 32 | (self.best as u64) << 48;
    }
    #[inline(always)]
    fn unpack(words: &[u64]) -> Self {
        Entry {
            lo: f64::from_bits(words[0]),
            hi: f64::from_bits(words[1]),
            start: words[2] as u32,
            len: (words[2] >> 32) as u16 as u32,
            best: (words[2] >> 48) as u32,
        }
    }
}

/// The most legal moves a position in the search may have (an entry keeps their number in 16 bits).
const MAX_NODE_MOVES: usize = u16::MAX as usize;

/// The value of one root move in one world, and the line proving it (the move first).
#[derive(Clone, Debug, PartialEq)]
pub struct RootValue {
    pub mv: Move,
    pub value: f64,
    pub line: Vec<Move>,
}

/// A leaf's value (`Evaluator::leaf`), remembered by the solver (`stamp`) that worked it out.
#[derive(Clone, Copy, Default)]
struct LeafSlot {
    key: [u64; LEAF_KEY_WORDS],
    stamp: u64,
    value: f64,
}

/// Slots of the leaf values remembered, one per hash (the latest kept).
const LEAF_BITS: u32 = 11;

/// A solver's tables, kept when it is dropped for the next solver made on the same thread (the
/// search makes one or more a decision): growing them again from nothing cost a tenth of the
/// search's time, in copies and fresh pages. Tables past `KEEP_BYTES` (all kept together) are freed.
/// A 3- or 4-player decision's tables reach hundreds of MB: freed and faulted in again for every
/// decision they took a sixth of a 4-player analysis's time, in the kernel (6.6 s of 37 s).
struct Tables {
    tt: PackedMap<Entry>,
    move_index: PackedMap<(u32, u32)>,
    arena: Vec<Move>,
}

const KEEP_BYTES: usize = 512 << 20;
/// At most this many sets of tables kept per thread: a ladder's depths, at most 4 (its horizon and
/// `expectimax.FALLBACK_DEPTHS`).
const SPARE_SETS: usize = 4;

/// The last solver's stamp: a new one for each solver of the process (a solver may move to another
/// thread), so that none reads the leaf values of another (of other rules, side or leaf).
static STAMPS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Emptied tables of the thread's solvers gone, for its next ones (a decision's ladder has a
    /// solver per depth alive at once).
    static SPARE_TABLES: RefCell<Vec<Tables>> = const { RefCell::new(Vec::new()) };
    /// The leaf values the thread's solvers worked out, each with its solver's stamp.
    static LEAVES: RefCell<Vec<LeafSlot>> = const { RefCell::new(Vec::new()) };
}

impl Tables {
    /// The thread's spare tables, empty, or new ones.
    fn take() -> Tables {
        let spare = SPARE_TABLES.with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop()));
        spare.unwrap_or_else(|| Tables {
            tt: PackedMap::default(),
            move_index: PackedMap::default(),
            arena: Vec::new(),
        })
    }

    /// The bytes the tables hold.
    fn bytes(&self) -> usize {
        self.tt.capacity_bytes()
            + self.move_index.capacity_bytes()
            + self.arena.capacity() * std::mem::size_of::<Move>()
    }

    /// Keeps these tables, emptied, for a next solver of the thread, unless the thread keeps
    /// `SPARE_SETS` already or they would take it past `KEEP_BYTES` in all.
    fn keep(mut self) {
        SPARE_TABLES.with(|s| {
            let Ok(mut s) = s.try_borrow_mut() else {
                return;
            };
            if s.len() >= SPARE_SETS || self.bytes() + s.iter().map(Tables::bytes).sum::<usize>() > KEEP_BYTES
            {
                return;
            }
            self.tt.clear();
            self.move_index.clear();
            self.arena.clear();
            s.push(self);
        });
    }
}

/// Alpha-beta with a transposition table, for one root side; reusable across worlds (the table
/// emptied before each with three or four players and cards to come: `root_values_lined`).
pub struct Solver {
    rules: Rules,
    pub root_side: u8,
    pub nsides: u8,
    /// Stop when at most this many cards remain in the hands (0: the end of the deal).
    pub horizon: u32,
    /// With two players, at the end of a deal whose stock holds the round's last deal, go on to the
    /// end of the round instead of the leaf (`Solver.next_deal`): the mean over every way the stock
    /// can be dealt of the last deal solved, where every card is known.
    pub next_deal: bool,
    /// The cards out of play in the worlds searched (in no hand, pile or table, nor the stock: a typed
    /// position's cards scored for nobody), set from each root state: the stock of a deal's end is
    /// every other card that is nowhere in it.
    gone: Mask,
    /// Private: the leaf values remembered are this evaluator's (`eval()` reads it).
    eval: Evaluator,
    pub order: MoveOrder,
    pub nodes: u64,
    pub node_limit: u64,
    partner: bool,
    tt: PackedMap<Entry>,
    move_index: PackedMap<(u32, u32)>,
    arena: Vec<Move>,
    scratch: Vec<Move>,
    /// Buffers of `moves_of`: the sort keys, the twins' stand-ins seen.
    keyed: Vec<(i64, u32)>,
    seen: Vec<Move>,
    /// The key of the state searched, and of the moves listed, filled again each time.
    state_key: Key,
    moves_key: Key,
    /// This solver's stamp on the leaf values it works out (never 0).
    stamp: u64,
}

impl Drop for Solver {
    fn drop(&mut self) {
        Tables {
            tt: std::mem::replace(&mut self.tt, PackedMap::hollow()),
            move_index: std::mem::replace(&mut self.move_index, PackedMap::hollow()),
            arena: std::mem::take(&mut self.arena),
        }
        .keep();
    }
}

impl Solver {
    pub fn new(
        rules: &Rules,
        root_side: u8,
        nsides: u8,
        horizon: u32,
        eval: Evaluator,
        order: MoveOrder,
    ) -> Solver {
        let Tables {
            tt,
            move_index,
            arena,
        } = Tables::take();
        let stamp = STAMPS.fetch_add(1, Ordering::Relaxed) + 1;
        Solver {
            rules: rules.clone(),
            root_side,
            nsides,
            horizon,
            next_deal: false,
            gone: 0,
            eval,
            order,
            nodes: 0,
            node_limit: 1 << 62,
            partner: rules.build_for_partner != BuildForPartner::Never,
            tt,
            move_index,
            arena,
            scratch: Vec::new(),
            keyed: Vec::new(),
            seen: Vec::new(),
            state_key: Key::default(),
            moves_key: Key::default(),
            stamp,
        }
    }

    /// `self.eval.leaf(s)`, remembered: a leaf is reached again through other orders of the same
    /// moves and by the second pass of a null-window search, and a value looked up costs a tenth
    /// of one worked out.
    #[inline]
    fn leaf(&self, s: &State) -> f64 {
        let key = self.eval.leaf_key(s);
        let mut h = 0u64;
        for w in key {
            h = (h.rotate_left(5) ^ w).wrapping_mul(SEED);
        }
        let at = (h >> (64 - LEAF_BITS)) as usize;
        LEAVES.with(|leaves| {
            let Ok(mut leaves) = leaves.try_borrow_mut() else {
                return self.eval.leaf(s);
            };
            if leaves.is_empty() {
                leaves.resize(1 << LEAF_BITS, LeafSlot::default());
            }
            let slot = &mut leaves[at];
            if slot.stamp != self.stamp || slot.key != key {
                *slot = LeafSlot {
                    key,
                    stamp: self.stamp,
                    value: self.eval.leaf(s),
                };
            }
            slot.value
        })
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn eval(&self) -> &Evaluator {
        &self.eval
    }

    /// The positions the table holds.
    pub fn table_size(&self) -> usize {
        self.tt.len()
    }

    /// The legal moves of `s`, best-looking first, twins once (cached): their place in the arena.
    fn moves_of(&mut self, s: &State) -> (u32, u32) {
        let hash = self.key_moves(s);
        self.moves_keyed(s, hash)
    }

    /// Fills `moves_key` with what the legal moves of `s` depend on; its hash.
    #[inline(always)]
    fn key_moves(&mut self, s: &State) -> u64 {
        let seat = s.to_move;
        let partner = if self.partner && s.nplayers == 4 {
            s.hands[((seat + 2) % 4) as usize]
        } else {
            0
        };
        let key = &mut self.moves_key;
        key.set_moves(seat, s.hands[seat as usize], s.loose, &s.builds, partner);
        key.hash()
    }

    /// `moves_of(s)`, `moves_key` filled for `s` and of hash `hash` (`key_moves`).
    fn moves_keyed(&mut self, s: &State, hash: u64) -> (u32, u32) {
        let seat = s.to_move;
        if let Some(at) = self.move_index.find(&self.moves_key, hash) {
            return self.move_index.get(at);
        }
        let mut moves = std::mem::take(&mut self.scratch);
        legal_moves(&self.rules, s, &mut moves);
        let start = self.arena.len();
        if moves.len() > 1 {
            // Python's sort is stable: by (key, place in the list), each key computed once.
            let order = &self.order;
            let keyed = &mut self.keyed;
            keyed.clear();
            keyed.extend(moves.iter().enumerate().map(|(i, m)| (order.key(m), i as u32)));
            keyed.sort_unstable();
            self.arena.extend(keyed.iter().map(|&(_, i)| moves[i as usize]));
            let sorted = &mut self.arena[start..];
            let kept = distinct_in_place(sorted, s.hands[seat as usize], s.loose, &mut self.seen);
            self.arena.truncate(start + kept);
        } else {
            self.arena.extend_from_slice(&moves);
        }
        let count = self.arena.len() - start;
        assert!(
            count <= MAX_NODE_MOVES,
            "a position with more than {MAX_NODE_MOVES} legal moves"
        );
        let slot = (start as u32, count as u32);
        self.scratch = moves;
        self.move_index.insert(&self.moves_key, hash, slot);
        slot
    }

    /// The legal moves of `s` as the search orders them (`Solver.moves`).
    pub fn moves(&mut self, s: &State) -> Vec<Move> {
        let (start, len) = self.moves_of(s);
        self.arena[start as usize..(start + len) as usize].to_vec()
    }

    /// Every legal move of `s`, twins too, in the search's order (the root's moves).
    pub fn root_moves(&self, s: &State) -> Vec<Move> {
        let mut moves = Vec::new();
        legal_moves(&self.rules, s, &mut moves);
        let order = &self.order;
        moves.sort_by_key(|m| order.key(m));
        moves
    }

    /// The exact minimax value of each of `moves` in this world, with its principal line.
    pub fn root_values(&mut self, state: &State, moves: &[Move]) -> Result<Vec<RootValue>, OutOfNodes> {
        self.root_values_lined(state, moves, true)
    }

    /// `root_values`, with each move's principal line only when `lines` asks for it (else the move
    /// alone): reading a line back from the table searches nothing, so the values and the nodes are
    /// the same either way.
    pub fn root_values_lined(
        &mut self,
        state: &State,
        moves: &[Move],
        lines: bool,
    ) -> Result<Vec<RootValue>, OutOfNodes> {
        self.gone = FULL_DECK & !state.accounted();
        // With three or four players before the last deal, a table per world (`Solver.root_values`):
        // the worlds share almost no position there, and a table kept across them only misses the
        // cache.
        if state.more && state.nplayers >= 3 {
            self.tt.clear();
        }
        let state = canonical(state);
        let mut out = Vec::with_capacity(moves.len());
        for &m in moves {
            let child = apply(&self.rules, &state, m);
            let v = self.search(&child, -INF, INF)?;
            let mut line = vec![m];
            if lines {
                line.extend(self.principal_line(&child));
            }
            out.push(RootValue {
                mv: m,
                value: v,
                line,
            });
        }
        Ok(out)
    }

    /// The minimax value of a position in this world.
    pub fn value(&mut self, state: &State) -> Result<f64, OutOfNodes> {
        self.gone = FULL_DECK & !state.accounted();
        self.search(&canonical(state), -INF, INF)
    }

    /// The best moves from `state` as recorded in the table, to the end of the search.
    pub fn principal_line(&self, state: &State) -> Vec<Move> {
        let mut line = Vec::new();
        let mut s = *state;
        while line.len() < LINE_LIMIT {
            match self.tt.lookup(&Key::of_state(&s)) {
                Some(e) if e.len > 0 => {
                    let m = self.arena[(e.start + e.best) as usize];
                    line.push(m);
                    s = apply(&self.rules, &s, m);
                }
                _ => break,
            }
        }
        line
    }

    /// A line from `state` (of minimax value `value`) that keeps that value to the end of the
    /// search (`Solver.proving_line`).
    pub fn proving_line(&mut self, state: &State, value: f64) -> Result<Vec<Move>, OutOfNodes> {
        let mut line = Vec::new();
        let mut s = canonical(state);
        while line.len() < LINE_LIMIT {
            let left: u32 = s.hands.iter().map(|h| h.count_ones()).sum();
            if left <= self.horizon {
                break;
            }
            let ((start, len), first) = match self.tt.lookup(&Key::of_state(&s)) {
                Some(e) => ((e.start, e.len), e.best),
                None => (self.moves_of(&s), 0),
            };
            let mut found = None;
            for k in 0..len {
                let i = if k == 0 {
                    first
                } else if k <= first {
                    k - 1
                } else {
                    k
                };
                let m = self.arena[(start + i) as usize];
                let child = apply(&self.rules, &s, m);
                let v = self.search(&child, value - NULL, value + NULL)?;
                if value - NULL < v && v < value + NULL {
                    found = Some((m, child));
                    break;
                }
            }
            match found {
                Some((m, child)) => {
                    line.push(m);
                    s = child;
                }
                None => break,
            }
        }
        Ok(line)
    }

    /// What happens along a root move's line in one world (`expectimax.follow`): the line that proves
    /// the move's value `value` (after `reply`, when the reply was chosen outside the search), and the
    /// state at its end. Explaining is not searching: the node limit and count are left as they were.
    pub fn follow(&mut self, state: &State, mv: Move, reply: Option<Move>, value: f64) -> (Vec<Move>, State) {
        let (limit, used) = (self.node_limit, self.nodes);
        self.node_limit = 1 << 62;
        let s = canonical(state);
        let child = apply(&self.rules, &s, mv);
        let mut line = vec![mv];
        let proof = match reply {
            None => self.proving_line(&child, value),
            Some(r) => {
                line.push(r);
                self.proving_line(&apply(&self.rules, &child, r), value)
            }
        };
        self.node_limit = limit;
        self.nodes = used;
        line.extend(proof.expect("no node limit while explaining"));
        let mut end = s;
        for &m in &line {
            end = apply(&self.rules, &end, m);
        }
        (line, end)
    }

    /// The value of `s`, a 2-player deal played out with `stock` left for the round's last deal
    /// (`Solver._last_deals`): the mean, summed in the reference's order, over every way of dealing
    /// the stock (the first seat's hand from the combinations of its cards in ascending order) of
    /// the last deal solved to the end of the round. A deal stands for those that differ from it
    /// only by where twins lie, weighted by their number: the one whose first hand holds the lowest
    /// twins of each group. Kept in the table as an exact entry with no moves, since the rest of the
    /// state fixes the stock.
    fn last_deals(&mut self, s: &State, stock: Mask) -> Result<f64, OutOfNodes> {
        let key = Key::of_state(s);
        let hash = key.hash();
        if let Some(at) = self.tt.find(&key, hash) {
            return Ok(self.tt.get(at).lo);
        }
        let mut cards = [0u8; 2 * HAND_SIZE as usize];
        let mut rest = stock;
        for c in cards.iter_mut() {
            *c = rest.trailing_zeros() as u8;
            rest &= rest - 1;
        }
        let (n, k) = (cards.len(), HAND_SIZE as usize);
        let mut pick: [usize; HAND_SIZE as usize] = std::array::from_fn(|i| i);
        let mut groups = [0; 13];
        let mut ngroups = 0;
        for g in twin_groups(stock) {
            groups[ngroups] = g;
            ngroups += 1;
        }
        let groups = &groups[..ngroups];
        let mut dealt = *s;
        dealt.more = false;
        dealt.stock = 0;
        let (mut total, mut count) = (0.0, 0u32);
        loop {
            let first = pick.iter().fold(0, |m, &i| m | 1 << cards[i]);
            if let Some(weight) = twin_weight(first, groups) {
                dealt.hands[0] = first;
                dealt.hands[1] = stock & !first;
                total += weight as f64 * self.search_left(&dealt, -INF, INF, n as u32)?;
                count += weight;
            }
            // the next combination in lexicographic order (`itertools.combinations`)
            let Some(i) = (0..k).rev().find(|&i| pick[i] != i + n - k) else {
                break;
            };
            pick[i] += 1;
            for j in i + 1..k {
                pick[j] = pick[j - 1] + 1;
            }
        }
        let value = total / count as f64;
        let e = Entry {
            start: 0,
            len: 0,
            lo: value,
            hi: value,
            best: 0,
        };
        self.tt.insert(&key, hash, e);
        Ok(value)
    }

    /// The minimax value of `s` within the window (alpha, beta), as alpha-beta bounds it.
    pub fn search(&mut self, s: &State, alpha: f64, beta: f64) -> Result<f64, OutOfNodes> {
        let left: u32 = s.hands.iter().map(|h| h.count_ones()).sum();
        self.search_left(s, alpha, beta, left)
    }

    fn search_left(
        &mut self,
        s: &State,
        mut alpha: f64,
        mut beta: f64,
        left: u32,
    ) -> Result<f64, OutOfNodes> {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            return Err(OutOfNodes);
        }
        if left <= self.horizon {
            if left == 0 {
                if !s.more {
                    return Ok(self.eval.final_value(s));
                }
                if self.next_deal && s.nplayers == 2 {
                    let stock = FULL_DECK & !s.accounted() & !self.gone;
                    if stock.count_ones() == 2 * HAND_SIZE {
                        return self.last_deals(s, stock);
                    }
                }
            }
            return Ok(self.leaf(s));
        }
        self.state_key.set_state(s);
        let hash = self.state_key.hash();
        // A new node looks its moves up as well: both slots are loaded at once, where the second
        // cache miss used to wait for the first (in the large tables of 3 and 4 players, the two
        // were a third of the search's time).
        let moves_hash = self.key_moves(s);
        self.move_index.prefetch(moves_hash);
        let (at, e) = match self.tt.find(&self.state_key, hash) {
            None => {
                let (start, len) = self.moves_keyed(s, moves_hash);
                let e = Entry {
                    start,
                    len,
                    lo: -INF,
                    hi: INF,
                    best: 0,
                };
                // moves_of keys the moves in its own buffer: this one still holds the state
                (self.tt.insert(&self.state_key, hash, e), e)
            }
            Some(at) => {
                let e = self.tt.get(at);
                if e.lo >= beta {
                    return Ok(e.lo);
                }
                if e.hi <= alpha {
                    return Ok(e.hi);
                }
                if e.lo == e.hi {
                    return Ok(e.lo);
                }
                if e.lo > alpha {
                    alpha = e.lo;
                }
                if e.hi < beta {
                    beta = e.hi;
                }
                (at, e)
            }
        };
        let (a0, b0) = (alpha, beta);
        let first = e.best;
        let mut best_i = first;
        let left = left - 1;
        let maximise = small_rem(s.to_move, self.nsides) == self.root_side;
        let mut best = if maximise { -INF } else { INF };
        // One child state for every move, made the parent again before each.
        let mut child = *s;
        // The stored best move first (k = 0), then the rest in their order.
        for k in 0..e.len {
            let i = if k == 0 {
                first
            } else if k <= first {
                k - 1
            } else {
                k
            };
            let m = self.arena[(e.start + i) as usize];
            if k > 0 {
                child.restore(s);
            }
            if !apply_in_place(&self.rules, &mut child, m) {
                panic!("a move that makes more than {MAX_BUILDS} builds on the table");
            }
            // Principal variation search: the first move with the full window, the others with a
            // null window, searched again when they are better than the best so far.
            if maximise {
                let mut v;
                if k == 0 {
                    v = self.search_left(&child, alpha, beta, left)?;
                } else {
                    v = self.search_left(&child, alpha, alpha + NULL, left)?;
                    if alpha < v && v < beta {
                        v = self.search_left(&child, v, beta, left)?;
                    }
                }
                if v > best {
                    best = v;
                    best_i = i;
                    if v > alpha {
                        alpha = v;
                        if v >= beta {
                            break;
                        }
                    }
                }
            } else {
                let mut v;
                if k == 0 {
                    v = self.search_left(&child, alpha, beta, left)?;
                } else {
                    v = self.search_left(&child, beta - NULL, beta, left)?;
                    if alpha < v && v < beta {
                        v = self.search_left(&child, alpha, v, left)?;
                    }
                }
                if v < best {
                    best = v;
                    best_i = i;
                    if v < beta {
                        beta = v;
                        if v <= alpha {
                            break;
                        }
                    }
                }
            }
        }
        let mut entry = self.tt.get(at);
        entry.best = best_i;
        if best <= a0 {
            if best < entry.hi {
                entry.hi = best;
            }
        } else if best >= b0 {
            if best > entry.lo {
                entry.lo = best;
            }
        } else {
            entry.lo = best;
            entry.hi = best;
        }
        self.tt.set(at, entry);
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cards::twin_groups;
    use crate::engine::playout::SplitMix64;

    #[test]
    fn an_entry_comes_back_from_its_words_as_it_went_in() {
        let most = MAX_NODE_MOVES as u32;
        for (start, len, best, lo, hi) in [
            (0, 0, 0, -INF, INF),
            (7, 3, 2, -0.5, 1.25),
            (u32::MAX, most, most - 1, f64::MIN_POSITIVE, -0.0),
        ] {
            let e = Entry {
                start,
                len,
                lo,
                hi,
                best,
            };
            let mut words = [0; 3];
            e.pack(&mut words);
            assert_eq!(Entry::unpack(&words), e);
            assert_eq!(Entry::unpack(&words).hi.to_bits(), hi.to_bits());
        }
    }

    #[test]
    fn twin_groups_at_once_are_those_rank_by_rank() {
        let mut rng = SplitMix64(3);
        for i in 0..20_000 {
            let mask = match i % 3 {
                0 => rng.next_u64(),
                1 => rng.next_u64() & rng.next_u64(),
                _ => rng.next_u64() | rng.next_u64(),
            } & crate::engine::cards::FULL_DECK;
            let (groups, n) = twin_groups_of(mask);
            assert_eq!(
                groups[..n],
                twin_groups(mask).collect::<Vec<_>>()[..],
                "{mask:#x}"
            );
        }
    }
}
