//! The solver's tables keyed by a state: a state is packed into a few words that tell it apart
//! from every other (`Key`), and the map (`PackedMap`) keeps those words and the value beside
//! them in one arena, found through an open-addressing index of 8-byte slots.
//!
//! A `State` is some 370 bytes, most of them the sixteen build slots a table rarely uses: a std
//! `HashMap` keyed by it copied, compared and rehashed all of them, and was a third of a search's
//! time. Packed, a 2-player state without builds is 5 words. The map only adds and finds (a search
//! never forgets a position), so an entry's place never changes: the search keeps it across the
//! recursion instead of looking the state up again.

use crate::engine::cards::Mask;
use crate::engine::state::{Builds, State, MAX_BUILDS, MAX_SEATS};

/// The most words a key takes: a head word, where the cards are (four bit planes: `set_state`), the
/// sweeps two to a word, the builds and their owners eight to a word.
pub const KEY_WORDS: usize = 1 + 4 + MAX_SEATS / 2 + MAX_BUILDS + MAX_BUILDS / 8;

/// The words of a state (or of what its moves depend on): equal words exactly when the states are
/// equal. A buffer, filled again for each state (`set_state`, `set_moves`): the search keeps one, so
/// that a node neither clears nor copies its 32 words.
#[derive(Clone)]
pub struct Key {
    words: [u64; KEY_WORDS],
    len: usize,
}

/// A constant for each place of a word in a key (SplitMix64's outputs), so that equal words in
/// different places hash apart.
const PLACE: [u64; KEY_WORDS] = {
    let mut out = [0; KEY_WORDS];
    let mut x: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut i = 0;
    while i < KEY_WORDS {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out[i] = z ^ (z >> 31);
        i += 1;
    }
    out
};

/// The two halves of the 128-bit product, folded (a full-width multiply mixes every bit of `x`
/// into every bit of the result).
#[inline(always)]
fn fold(x: u64, k: u64) -> u64 {
    let p = x as u128 * k as u128;
    p as u64 ^ (p >> 64) as u64
}

const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

impl Default for Key {
    fn default() -> Self {
        Key {
            words: [0; KEY_WORDS],
            len: 0,
        }
    }
}

impl Key {
    #[inline(always)]
    fn push(&mut self, w: u64) {
        self.words[self.len] = w;
        self.len += 1;
    }

    /// The builds, a word each (cards, value and kind), then their owners, eight to a word.
    #[inline(always)]
    fn push_builds(&mut self, builds: &Builds) {
        let list = builds.as_slice();
        for b in list {
            self.push(b.cards | (b.value as u64) << 52 | (b.multiple as u64) << 60);
        }
        for chunk in list.chunks(8) {
            let mut w = 0;
            for (i, b) in chunk.iter().enumerate() {
                w |= (b.owner as u64) << (8 * i);
            }
            self.push(w);
        }
    }

    /// The key of a state. Seats past `nplayers` and sides past `nsides` are left out: they are
    /// always empty (`State`), so equal keys still mean equal states.
    #[inline(always)]
    pub fn set_state(&mut self, s: &State) {
        debug_assert!(s.hands[s.nplayers as usize..].iter().all(|&h| h == 0));
        debug_assert!(s.captured[s.nsides as usize..].iter().all(|&c| c == 0));
        debug_assert!(s.sweeps[s.nsides as usize..].iter().all(|&c| c == 0));
        self.len = 0;
        self.push(
            s.to_move as u64
                | (s.last_capturer as u8 as u64) << 8
                | (s.more as u64) << 16
                | (s.dealer as u64) << 24
                | (s.nsides as u64) << 32
                | (s.nplayers as u64) << 40
                | (s.builds.len() as u64) << 48,
        );
        // Where each card is, in bit planes: a code per place (0 for a build, or out of play), its
        // bits spread over the planes. The places are disjoint (the core refuses a state that has a
        // card in two: `python::state_from_py`), so the planes tell every place's cards, in 3 words
        // with two players and 4 with more where the masks took 7 and 11.
        debug_assert!(s.places_disjoint(), "a card in two places");
        let (h, c) = (&s.hands, &s.captured);
        if s.nplayers == 2 {
            // hands 1 and 2, loose 3, stock 4, set aside 5, the piles 6 and 7
            self.push(h[0] | s.loose | s.set_aside | c[1]);
            self.push(h[1] | s.loose | c[0] | c[1]);
            self.push(s.stock | s.set_aside | c[0] | c[1]);
        } else {
            // hands 1 to 4, loose 5, stock 6, set aside 7, the piles 8 to 11
            self.push(h[0] | h[2] | s.loose | s.set_aside | c[1] | c[3]);
            self.push(h[1] | h[2] | s.stock | s.set_aside | c[2] | c[3]);
            self.push(h[3] | s.loose | s.stock | s.set_aside);
            self.push(c[0] | c[1] | c[2] | c[3]);
        }
        let n = s.nsides as usize;
        for pair in s.sweeps[..n].chunks(2) {
            self.push(pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 32);
        }
        self.push_builds(&s.builds);
    }

    /// The key of a state, in a new buffer.
    pub fn of_state(s: &State) -> Key {
        let mut k = Key::default();
        k.set_state(s);
        k
    }

    /// The key of what a mover's legal moves depend on: the seat, its hand, the table and the
    /// partner's hand (0 unless building for a partner is allowed).
    #[inline(always)]
    pub fn set_moves(&mut self, seat: u8, hand: Mask, loose: Mask, builds: &Builds, partner: Mask) {
        self.len = 0;
        self.push(seat as u64 | (builds.len() as u64) << 8);
        self.push(hand);
        self.push(loose);
        self.push(partner);
        self.push_builds(builds);
    }

    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words[..self.len]
    }

    /// A hash of the words: each word multiplied by an odd constant of its place, and the sum
    /// folded. The words' multiplies do not wait for each other, as FxHash's chain of
    /// them did (a fifth of a search's own time went to that chain). Only where an entry is
    /// placed depends on the hash: finding one compares its words.
    #[inline]
    pub fn hash(&self) -> u64 {
        let mut h = self.len as u64;
        for (&w, &place) in self.words().iter().zip(&PLACE) {
            h = h.wrapping_add(w.wrapping_mul(place | 1));
        }
        fold(h, MIX)
    }
}

/// A value a `PackedMap` keeps: packed into `WORDS` words beside its key, so that a state's key
/// and its value are read together (`pack`, `unpack`).
pub trait Packed: Copy {
    const WORDS: usize;
    fn pack(&self, out: &mut [u64]);
    fn unpack(words: &[u64]) -> Self;
}

/// The maps of the tests: a value of one word.
#[cfg(test)]
impl Packed for u32 {
    const WORDS: usize = 1;
    #[inline(always)]
    fn pack(&self, out: &mut [u64]) {
        out[0] = *self as u64;
    }
    #[inline(always)]
    fn unpack(words: &[u64]) -> Self {
        words[0] as u32
    }
}

impl Packed for (u32, u32) {
    const WORDS: usize = 1;
    #[inline(always)]
    fn pack(&self, out: &mut [u64]) {
        out[0] = self.0 as u64 | (self.1 as u64) << 32;
    }
    #[inline(always)]
    fn unpack(words: &[u64]) -> Self {
        (words[0] as u32, (words[0] >> 32) as u32)
    }
}

/// The low bits of an entry's head word that hold its key's length; the rest are its hash's.
const LEN_BITS: u32 = 5;
const LEN_MASK: u64 = (1 << LEN_BITS) - 1;
const _: () = assert!(KEY_WORDS as u64 <= LEN_MASK);

/// A map from keys to `V` that only grows: entries keep their place (`find`, `insert`, `get`).
///
/// An entry is one run of words in `rows`: a head (the hash, its low bits the key's length), the
/// key's words, then the value's. A lookup that finds its state reads the index's slot and then
/// one run, where a separate entry and key arena cost a cache miss each besides (in the tables of 3
/// and 4 players, hundreds of megabytes, comparing the key in its own arena was 8% of an analysis).
pub struct PackedMap<V> {
    /// Open addressing, linear probing (the hash's top bits pick the slot): 0 for an empty slot,
    /// else the entry's first word's place in `rows` + 1 and, above it, the low half of its hash.
    index: Vec<u64>,
    shift: u32,
    rows: Vec<u64>,
    len: usize,
    _value: std::marker::PhantomData<V>,
}

const START_BITS: u32 = 10;
/// `clear` keeps the size of an index of up to this many bits (128 KiB).
const KEEP_INDEX_BITS: u32 = 14;
/// Below one entry for this many slots, `clear` empties the entries' slots rather than the index.
const SPARSE_SHARE: usize = 8;

impl<V: Packed> Default for PackedMap<V> {
    fn default() -> Self {
        PackedMap {
            index: vec![0; 1 << START_BITS],
            shift: 64 - START_BITS,
            rows: Vec::new(),
            len: 0,
            _value: std::marker::PhantomData,
        }
    }
}

/// The hash an entry is placed by: `hash` without the bits its head gives to the key's length.
#[inline(always)]
fn placed(hash: u64) -> u64 {
    hash & !LEN_MASK
}

impl<V: Packed> PackedMap<V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the value of `key` (of hash `hash`) is, if the map holds it.
    #[inline]
    pub fn find(&self, key: &Key, hash: u64) -> Option<usize> {
        let h = placed(hash);
        let head = h | key.len as u64;
        let tag = h as u32 as u64;
        let mask = self.index.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let slot = self.index[i];
            if slot == 0 {
                return None;
            }
            if slot >> 32 == tag {
                let at = (slot as u32 - 1) as usize;
                // The head first: it holds the key's length, and the run of an entry with a
                // shorter key may end (with the rows) before this key's words would.
                if self.rows[at] == head && same_words(&self.rows[at + 1..at + 1 + key.len], key.words()) {
                    return Some(at + 1 + key.len);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Starts loading the index slot where a key of `hash` is looked for, so that its cache miss
    /// overlaps other work before `find` (nothing on a machine without a prefetch instruction).
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot = &self.index[(placed(hash) >> self.shift) as usize];
            // SAFETY: SSE is part of x86_64, and a prefetch reads nothing the program sees (the
            // address is a slot of the index, in bounds).
            unsafe { _mm_prefetch::<_MM_HINT_T0>((slot as *const u64).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// Adds `key` (not in the map) with `value`; where its value is.
    #[inline]
    pub fn insert(&mut self, key: &Key, hash: u64, value: V) -> usize {
        if (self.len + 1) * 2 > self.index.len() {
            self.grow();
        }
        let h = placed(hash);
        let first = self.rows.len();
        assert!(first < u32::MAX as usize, "a table of more than 32 GB");
        self.rows.push(h | key.len as u64);
        self.rows.extend_from_slice(key.words());
        let at = self.rows.len();
        self.rows.resize(at + V::WORDS, 0);
        value.pack(&mut self.rows[at..]);
        place(&mut self.index, self.shift, h, first);
        self.len += 1;
        at
    }

    #[cold]
    fn grow(&mut self) {
        let bits = 64 - self.shift + 1;
        self.index.clear();
        self.index.resize(1 << bits, 0);
        self.shift = 64 - bits;
        for (first, h) in runs(&self.rows, V::WORDS) {
            place(&mut self.index, self.shift, h, first);
        }
    }

    /// The value at `at`, a place `find` or `insert` gave.
    #[inline]
    pub fn get(&self, at: usize) -> V {
        V::unpack(&self.rows[at..at + V::WORDS])
    }

    /// Replaces the value at `at`, a place `find` or `insert` gave.
    #[inline]
    pub fn set(&mut self, at: usize, value: V) {
        value.pack(&mut self.rows[at..at + V::WORDS]);
    }

    /// Empties the map, keeping the room its entries took. An index of up to `KEEP_INDEX_BITS`
    /// keeps its size too, so that the next search of the same size does not grow it again (a
    /// searcher's decision grew it three times, each placing every entry again); a larger one
    /// starts small again (a small search in a large index would touch more of memory).
    pub fn clear(&mut self) {
        let bits = 64 - self.shift;
        if bits <= KEEP_INDEX_BITS && self.len * SPARSE_SHARE < self.index.len() {
            // Few entries for the index: their slots emptied one by one, where the whole index
            // was written (most of a small decision's solvers).
            let mask = self.index.len() - 1;
            for (first, h) in runs(&self.rows, V::WORDS) {
                let slot = h << 32 | (first as u64 + 1);
                let mut i = (h >> self.shift) as usize;
                while self.index[i] != slot {
                    i = (i + 1) & mask;
                }
                self.index[i] = 0;
            }
        } else if bits <= KEEP_INDEX_BITS {
            self.index.fill(0);
        } else {
            self.index.clear();
            self.index.resize(1 << START_BITS, 0);
            self.shift = 64 - START_BITS;
        }
        self.rows.clear();
        self.len = 0;
    }

    /// The bytes the map holds.
    pub fn capacity_bytes(&self) -> usize {
        (self.index.capacity() + self.rows.capacity()) * 8
    }

    /// A map without room, to stand in for one moved out (`std::mem::replace`); not to be used.
    pub fn hollow() -> Self {
        PackedMap {
            index: Vec::new(),
            shift: 64 - START_BITS,
            rows: Vec::new(),
            len: 0,
            _value: std::marker::PhantomData,
        }
    }

    /// The value of `key`, if it is in the map.
    #[inline]
    pub fn lookup(&self, key: &Key) -> Option<V> {
        self.find(key, key.hash()).map(|at| self.get(at))
    }
}

/// Puts the entry whose run starts at `first` in `index` (of `shift`), at the first free slot
/// from its hash `h`'s.
#[inline]
fn place(index: &mut [u64], shift: u32, h: u64, first: usize) {
    let mask = index.len() - 1;
    let mut i = (h >> shift) as usize;
    while index[i] != 0 {
        i = (i + 1) & mask;
    }
    index[i] = h << 32 | (first as u64 + 1);
}

/// Each entry of `rows` (values of `value_words` words): where its run starts, with the hash it is
/// placed by, in the order the entries were added.
fn runs(rows: &[u64], value_words: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
    let mut first = 0;
    std::iter::from_fn(move || {
        let head = *rows.get(first)?;
        let at = first;
        first += 1 + (head & LEN_MASK) as usize + value_words;
        Some((at, head & !LEN_MASK))
    })
}

/// Whether two keys' words of the same length are equal: compared in line, where a slice's `==`
/// called `memcmp` for five to seven words.
#[inline(always)]
fn same_words(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::state::Build;

    fn state() -> State {
        State {
            hands: [0b1011, 0b110000, 0, 0],
            nplayers: 2,
            loose: 1 << 40,
            builds: Builds::default(),
            captured: [1 << 20, 0, 0, 0],
            sweeps: [1, 0, 0, 0],
            to_move: 1,
            last_capturer: 0,
            stock: 0,
            more: true,
            dealer: 0,
            nsides: 2,
            set_aside: 0,
        }
    }

    /// The keys of `n` states that differ by the second side's sweeps.
    fn keys(n: u32) -> Vec<Key> {
        let mut s = state();
        (0..n)
            .map(|i| {
                s.sweeps[1] = i;
                Key::of_state(&s)
            })
            .collect()
    }

    #[test]
    fn keys_tell_states_apart() {
        let s = state();
        let mut variants = vec![s];
        let mut t = s;
        t.hands[0] ^= 1;
        variants.push(t);
        let mut t = s;
        t.sweeps[1] = 1;
        variants.push(t);
        let mut t = s;
        t.last_capturer = -1;
        variants.push(t);
        let mut t = s;
        t.more = false;
        variants.push(t);
        for (owner, multiple, value) in [(0, false, 9), (1, false, 9), (0, true, 9), (0, false, 10)] {
            let mut t = s;
            t.builds = Builds::from_slice(&[Build {
                cards: 0b11 << 44,
                value,
                owner,
                multiple,
            }])
            .unwrap();
            variants.push(t);
        }
        for (i, a) in variants.iter().enumerate() {
            for (j, b) in variants.iter().enumerate() {
                assert_eq!(
                    Key::of_state(a).words() == Key::of_state(b).words(),
                    i == j,
                    "{i} {j}"
                );
            }
        }
    }

    #[test]
    fn a_card_in_another_place_is_another_key() {
        for n in 2..=MAX_SEATS {
            // A card in a hand, a pile, loose, the stock, set aside, or nowhere (out of play).
            let places = 2 * n + 4;
            let key = |place: usize| {
                let mut s = State::empty(n as u8, n as u8);
                let card: Mask = 1 << 37;
                match place {
                    p if p < n => s.hands[p] = card,
                    p if p < 2 * n => s.captured[p - n] = card,
                    p if p == 2 * n => s.loose = card,
                    p if p == 2 * n + 1 => s.stock = card,
                    p if p == 2 * n + 2 => s.set_aside = card,
                    _ => {}
                }
                Key::of_state(&s)
            };
            for a in 0..places {
                for b in 0..places {
                    assert_eq!(key(a).words() == key(b).words(), a == b, "{n} players, {a} {b}");
                }
            }
        }
    }

    #[test]
    fn the_map_finds_what_it_holds_across_growth() {
        let mut map: PackedMap<u32> = PackedMap::default();
        let keys = keys(5000);
        for (i, k) in keys.iter().enumerate() {
            assert!(map.find(k, k.hash()).is_none());
            let at = map.insert(k, k.hash(), i as u32);
            assert_eq!(map.get(at), i as u32);
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(map.lookup(k), Some(i as u32));
        }
        assert_eq!(map.len(), 5000);
    }

    #[test]
    fn a_longer_key_of_the_same_hash_is_not_found_in_a_shorter_ones_run() {
        // Only the index's tag and the head tell entries apart before their words are compared: a
        // key longer than the last entry's, looked for at that entry's hash, once read past the
        // end of the rows.
        let mut map: PackedMap<u32> = PackedMap::default();
        let short = Key::of_state(&state());
        let mut s = state();
        s.builds = Builds::from_slice(&[Build {
            cards: 0b11 << 44,
            value: 9,
            owner: 0,
            multiple: false,
        }])
        .unwrap();
        let long = Key::of_state(&s);
        assert!(long.len > short.len + 1);
        map.insert(&short, short.hash(), 7);
        assert_eq!(map.find(&long, short.hash()), None);
        assert_eq!(map.lookup(&short), Some(7));
    }

    #[test]
    fn a_cleared_map_is_empty_whether_small_or_grown() {
        let mut map: PackedMap<u32> = PackedMap::default();
        for n in [3u32, 100, 127, 128, 600, 5000, 40, 20_000, 3] {
            let keys = keys(n);
            for (i, k) in keys.iter().enumerate() {
                map.insert(k, k.hash(), i as u32);
            }
            let slots = map.index.len();
            map.clear();
            // An index of up to KEEP_INDEX_BITS keeps its size, a larger one starts small again.
            let kept = if slots <= 1 << KEEP_INDEX_BITS {
                slots
            } else {
                1 << START_BITS
            };
            assert!(map.is_empty() && map.index.len() == kept, "{n} entries");
            assert!(map.index.iter().all(|&slot| slot == 0), "{n} entries");
            assert!(keys.iter().all(|k| map.lookup(k).is_none()));
        }
    }

    #[test]
    fn a_cleared_map_grows_again_in_the_room_it_kept() {
        let mut map: PackedMap<u32> = PackedMap::default();
        let keys = keys(20_000);
        assert!(
            1 << KEEP_INDEX_BITS < 2 * keys.len(),
            "an index that starts small again"
        );
        for (i, k) in keys.iter().enumerate() {
            map.insert(k, k.hash(), i as u32);
        }
        let (room, index_room) = (map.capacity_bytes(), map.index.capacity());
        map.clear();
        for (i, k) in keys.iter().enumerate() {
            map.insert(k, k.hash(), i as u32);
            assert_eq!(map.index.capacity(), index_room, "after {i} entries");
        }
        assert_eq!(map.capacity_bytes(), room);
        assert!(keys
            .iter()
            .enumerate()
            .all(|(i, k)| map.lookup(k) == Some(i as u32)));
    }
}
