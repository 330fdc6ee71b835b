//! The state of one round (`casino_coach/engine/state.py`'s `RoundState`) as a `Copy` value that
//! is its own transposition key: no heap, so applying a move never allocates.
//!
//! Seats are numbered in the order of play; the side of a seat is `seat % nsides`. Builds are kept
//! sorted by their cards mask (no two builds share a card), as the Python tuple is.

use std::hash::{Hash, Hasher};

use super::cards::Mask;

/// At most this many builds on one table. A seat owning a build keeps a card that takes it
/// (rules.md 1.8.2), so play never comes near; a state with more is refused (`State::new`).
pub const MAX_BUILDS: usize = 16;
pub const MAX_SEATS: usize = 4;

/// A build on the table (rules.md 1.5): its cards, declared value, owner seat, and kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Build {
    pub cards: Mask,
    pub value: u8,
    pub owner: u8,
    pub multiple: bool,
}

/// The builds of a table, sorted by cards; unused slots stay `Build::default()`, so the derived
/// equality and hash see only the builds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Builds {
    items: [Build; MAX_BUILDS],
    len: u8,
}

impl Build {
    /// The build in one word: its cards (52 bits), value, owner and kind above them.
    #[inline]
    pub fn packed(&self) -> u64 {
        self.cards | (self.value as u64) << 52 | (self.owner as u64) << 58 | (self.multiple as u64) << 61
    }
}

/// A word a build; the empty slots are not hashed (they are always empty).
impl Hash for Builds {
    #[inline]
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u8(self.len);
        for b in self.as_slice() {
            h.write_u64(b.packed());
        }
    }
}

impl Builds {
    pub fn as_slice(&self) -> &[Build] {
        &self.items[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every card of every build.
    pub fn cards(&self) -> Mask {
        self.as_slice().iter().fold(0, |m, b| m | b.cards)
    }

    /// From builds in any order; `None` when there are more than `MAX_BUILDS`.
    pub fn from_slice(builds: &[Build]) -> Option<Builds> {
        if builds.len() > MAX_BUILDS {
            return None;
        }
        let mut out = Builds::default();
        out.items[..builds.len()].copy_from_slice(builds);
        out.len = builds.len() as u8;
        out.items[..builds.len()].sort_unstable_by_key(|b| b.cards);
        Some(out)
    }

    /// These builds without those that share a card with `take`.
    pub fn without(&self, take: Mask) -> Builds {
        let mut out = Builds::default();
        for b in self.as_slice() {
            if b.cards & take == 0 {
                out.items[out.len as usize] = *b;
                out.len += 1;
            }
        }
        out
    }

    /// Drops, in place, the builds that share a card with `take` (`without`, for the hot path).
    pub fn remove_taken(&mut self, take: Mask) {
        let n = self.len as usize;
        let mut w = 0;
        for r in 0..n {
            if self.items[r].cards & take == 0 {
                self.items[w] = self.items[r];
                w += 1;
            }
        }
        for slot in &mut self.items[w..n] {
            *slot = Build::default();
        }
        self.len = w as u8;
    }

    /// Inserts `build` in its place, in place (`with`, for the hot path); false when the table is
    /// full.
    pub fn insert(&mut self, build: Build) -> bool {
        let n = self.len as usize;
        if n == MAX_BUILDS {
            return false;
        }
        let mut i = n;
        while i > 0 && self.items[i - 1].cards > build.cards {
            self.items[i] = self.items[i - 1];
            i -= 1;
        }
        self.items[i] = build;
        self.len += 1;
        true
    }

    /// These builds with `build` inserted in its place; `None` when the table is full.
    pub fn with(&self, build: Build) -> Option<Builds> {
        let n = self.len as usize;
        if n == MAX_BUILDS {
            return None;
        }
        let mut out = *self;
        let mut i = n;
        while i > 0 && out.items[i - 1].cards > build.cards {
            out.items[i] = out.items[i - 1];
            i -= 1;
        }
        out.items[i] = build;
        out.len += 1;
        Some(out)
    }
}

/// One moment of a round, with every card placed (hidden cards are placed by a sampled world).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    /// Per seat; seats past `nplayers` are 0.
    pub hands: [Mask; MAX_SEATS],
    pub nplayers: u8,
    pub loose: Mask,
    pub builds: Builds,
    /// Per side; sides past `nsides` are 0.
    pub captured: [Mask; MAX_SEATS],
    pub sweeps: [u32; MAX_SEATS],
    pub to_move: u8,
    /// Side of the last capture, -1 before any.
    pub last_capturer: i8,
    /// The cards not yet dealt, as far as the state knows them (0 when it does not).
    pub stock: Mask,
    /// More cards are to come after those in the hands (`RoundState.more`).
    pub more: bool,
    pub dealer: u8,
    pub nsides: u8,
    /// Residue nobody could collect (rules.md 1.11).
    pub set_aside: Mask,
}

/// The transposition table's hash: the words of the seats and sides in play, and the builds on the
/// table, a handful of `write_u64`s (the derived hash went over every empty slot too, and was a sixth
/// of a search's time). Equal states hash equally: only fields that equality compares are read.
impl Hash for State {
    #[inline]
    fn hash<H: Hasher>(&self, h: &mut H) {
        for &m in &self.hands[..self.nplayers as usize] {
            h.write_u64(m);
        }
        h.write_u64(self.loose);
        self.builds.hash(h);
        for side in 0..self.nsides as usize {
            h.write_u64(self.captured[side] | (self.sweeps[side] as u64) << 52);
        }
        h.write_u64(
            self.to_move as u64
                | (self.last_capturer as u8 as u64) << 8
                | (self.more as u64) << 16
                | (self.dealer as u64) << 24
                | (self.nsides as u64) << 32
                | (self.nplayers as u64) << 40,
        );
        h.write_u64(self.stock);
        h.write_u64(self.set_aside);
    }
}

impl State {
    /// A state of `nplayers` seats and `nsides` sides with no card anywhere, no capture yet, seat 0
    /// to move after the last seat's deal (the tests fill in what they need).
    #[cfg(test)]
    pub fn empty(nplayers: u8, nsides: u8) -> State {
        State {
            hands: [0; MAX_SEATS],
            nplayers,
            loose: 0,
            builds: Builds::default(),
            captured: [0; MAX_SEATS],
            sweeps: [0; MAX_SEATS],
            to_move: 0,
            last_capturer: -1,
            stock: 0,
            more: false,
            dealer: nplayers - 1,
            nsides,
            set_aside: 0,
        }
    }

    /// Makes this state `from` again (after a move applied to a copy of it in place): every field,
    /// and the builds only when either table has any. The search's way of trying a node's moves in
    /// one child state, where a copy of all 370 bytes a move was the larger part of applying it.
    #[inline]
    pub fn restore(&mut self, from: &State) {
        let State {
            hands,
            nplayers,
            loose,
            builds,
            captured,
            sweeps,
            to_move,
            last_capturer,
            stock,
            more,
            dealer,
            nsides,
            set_aside,
        } = from;
        // Builds::default() is the only empty table (unused slots stay default), so two empty
        // tables are equal already.
        if !(self.builds.is_empty() && builds.is_empty()) {
            self.builds = *builds;
        }
        self.hands = *hands;
        self.nplayers = *nplayers;
        self.loose = *loose;
        self.captured = *captured;
        self.sweeps = *sweeps;
        self.to_move = *to_move;
        self.last_capturer = *last_capturer;
        self.stock = *stock;
        self.more = *more;
        self.dealer = *dealer;
        self.nsides = *nsides;
        self.set_aside = *set_aside;
    }

    pub fn side_of(&self, seat: u8) -> u8 {
        small_rem(seat, self.nsides)
    }

    /// The hands of the seats in play.
    pub fn hands(&self) -> &[Mask] {
        &self.hands[..self.nplayers as usize]
    }

    /// Every card on the table: loose cards and the cards of every build.
    pub fn table(&self) -> Mask {
        self.loose | self.builds.cards()
    }

    pub fn hands_empty(&self) -> bool {
        self.hands.iter().all(|&h| h == 0)
    }

    /// Every hand is empty and cards remain: the next deal comes before the next move.
    pub fn needs_deal(&self) -> bool {
        self.more && self.hands_empty()
    }

    /// The round is played out (the residue has been collected).
    pub fn is_over(&self) -> bool {
        !self.more && self.hands_empty()
    }

    /// Whether no card is in two places (two hands, a hand and a pile, two builds ...): the places'
    /// cards counted one by one are as many as `accounted` unites.
    pub fn places_disjoint(&self) -> bool {
        let builds = self.builds.as_slice().iter().map(|b| &b.cards);
        let places = self.hands.iter().chain(&self.captured).chain(builds);
        let cards: u32 = places
            .chain([&self.loose, &self.stock, &self.set_aside])
            .map(|m| m.count_ones())
            .sum();
        cards == self.accounted().count_ones()
    }

    /// The union of every place a card can be; 52 cards when the state is consistent.
    pub fn accounted(&self) -> Mask {
        let mut m = self.table() | self.stock | self.set_aside;
        for h in self.hands {
            m |= h;
        }
        for p in self.captured {
            m |= p;
        }
        m
    }
}

/// `a % n` for the small numbers of seats and sides, without a division when `a < n` (the search
/// takes a seat's side and the next seat at every node, and a division was a tenth of applying a
/// move).
#[inline(always)]
pub fn small_rem(a: u8, n: u8) -> u8 {
    if a < n {
        a
    } else {
        a % n
    }
}

pub const HAND_SIZE: u32 = 4;
pub const TABLE_SIZE: u32 = 4;

/// rules.md 1.3.4: 6 deals with 2 players, 4 with 3, 3 with 4 (`state.deals_per_round`).
pub fn deals_per_round(nplayers: u8) -> usize {
    (52 - TABLE_SIZE as usize) / (HAND_SIZE as usize * nplayers as usize)
}

impl State {
    /// The state after the first deal (`state.new_round`): `table` face up, `hands` per seat,
    /// the rest of the pack in the stock. The caller deals a consistent pack.
    pub fn new_round(nplayers: u8, nsides: u8, dealer: u8, table: Mask, hands: &[Mask]) -> State {
        let mut s = State {
            hands: [0; MAX_SEATS],
            nplayers,
            loose: table,
            builds: Builds::default(),
            captured: [0; MAX_SEATS],
            sweeps: [0; MAX_SEATS],
            to_move: (dealer + 1) % nplayers,
            last_capturer: -1,
            stock: 0,
            more: false,
            dealer,
            nsides,
            set_aside: 0,
        };
        let mut used = table;
        for (slot, &h) in s.hands.iter_mut().zip(hands) {
            *slot = h;
            used |= h;
        }
        s.stock = super::cards::FULL_DECK & !used;
        s.more = s.stock != 0;
        s
    }

    /// A later deal (`state.deal`, rules.md 1.3.3): `hands` from the stock, none to the table.
    pub fn dealt(&self, hands: &[Mask]) -> State {
        let mut s = *self;
        let mut used = 0;
        for (slot, &h) in s.hands.iter_mut().zip(hands) {
            *slot = h;
            used |= h;
        }
        s.stock = self.stock & !used;
        s.more = self.stock != used;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_stay_sorted_and_bounded() {
        let b = |cards: Mask| Build {
            cards,
            value: 5,
            owner: 0,
            multiple: false,
        };
        let builds = Builds::from_slice(&[b(0b1100), b(0b0011)]).unwrap();
        assert_eq!(builds.as_slice()[0].cards, 0b0011);
        let more = builds.with(b(0b110000)).unwrap().with(b(0b1000000)).unwrap();
        assert_eq!(
            more.as_slice().iter().map(|x| x.cards).collect::<Vec<_>>(),
            vec![3, 12, 48, 64]
        );
        assert_eq!(more.without(0b1000).len(), 3);
        assert_eq!(
            more.without(0b1000),
            Builds::from_slice(&[b(3), b(48), b(64)]).unwrap()
        );
        assert!(Builds::from_slice(&[b(1); MAX_BUILDS + 1]).is_none());
        assert_eq!(more.cards(), 0b1111111);
    }
}
