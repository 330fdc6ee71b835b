//! Cards as ints 0..51 (`rank * 4 + suit`, ranks A..K = 0..12, suits C D H S = 0..3) and sets of
//! cards as 52-bit masks, as in `casino_coach/engine/cards.py`.

pub type Mask = u64;

pub const NUM_CARDS: usize = 52;
pub const FULL_DECK: Mask = (1 << NUM_CARDS) - 1;
pub const CLUBS: u8 = 0;
pub const DIAMONDS: u8 = 1;
pub const HEARTS: u8 = 2;
pub const SPADES: u8 = 3;
pub const ACE: u8 = 0;

pub const fn card(rank: u8, suit: u8) -> u8 {
    rank * 4 + suit
}

pub const fn rank(c: u8) -> u8 {
    c >> 2
}

pub const fn suit(c: u8) -> u8 {
    c & 3
}

pub const BIG_CASINO: u8 = card(9, DIAMONDS);
pub const LITTLE_CASINO: u8 = card(1, SPADES);
pub const ACES_MASK: Mask = 0b1111;

pub const fn rank_mask(r: u8) -> Mask {
    0b1111 << (4 * r)
}

pub const SPADES_MASK: Mask = {
    let mut m = 0;
    let mut r = 0;
    while r < 13 {
        m |= 1 << card(r, SPADES);
        r += 1;
    }
    m
};

/// Aces in the count-out order of rules.md 1.14: spades, clubs, hearts, diamonds.
pub const ACES_COUNT_OUT: [u8; 4] = [
    card(ACE, SPADES),
    card(ACE, CLUBS),
    card(ACE, HEARTS),
    card(ACE, DIAMONDS),
];

/// Cards that nothing tells apart (`cards.TWINS`): the clubs, diamonds and hearts of one rank from
/// 2 to K, 10♦ left out.
pub const TWINS: [Mask; 13] = {
    let mut t = [0; 13];
    let mut r = 1;
    while r < 13 {
        t[r as usize] = rank_mask(r) & !SPADES_MASK & !(1 << BIG_CASINO);
        r += 1;
    }
    t
};

pub const TWIN_CARDS: Mask = {
    let mut m = 0;
    let mut r = 0;
    while r < 13 {
        m |= TWINS[r];
        r += 1;
    }
    m
};

/// The lowest card of a non-empty mask.
#[inline]
pub fn lowest(mask: Mask) -> u8 {
    mask.trailing_zeros() as u8
}

/// The cards of a mask, lowest first.
#[inline]
pub fn iter_cards(mask: Mask) -> impl Iterator<Item = u8> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let c = m.trailing_zeros() as u8;
            m &= m - 1;
            Some(c)
        }
    })
}

/// The number of cards in a mask.
#[inline]
pub fn count(mask: Mask) -> u32 {
    mask.count_ones()
}

/// The groups of twins with at least two cards in `mask`, as masks, by rank (`cards.twin_groups`).
pub fn twin_groups(mask: Mask) -> impl Iterator<Item = Mask> {
    let m = mask & TWIN_CARDS;
    (1..13).map(move |r| m & TWINS[r]).filter(|g| g.count_ones() >= 2)
}

/// The canonical two-character form of a card, e.g. "TD" (for messages and tests).
pub fn card_name(c: u8) -> String {
    let ranks = b"A23456789TJQK";
    let suits = b"CDHS";
    let mut s = String::with_capacity(2);
    s.push(ranks[rank(c) as usize] as char);
    s.push(suits[suit(c) as usize] as char);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        assert_eq!(BIG_CASINO, 37);
        assert_eq!(LITTLE_CASINO, 7);
        assert_eq!(SPADES_MASK.count_ones(), 13);
        assert_eq!(TWIN_CARDS.count_ones(), 12 * 3 - 1);
        assert_eq!(card_name(BIG_CASINO), "TD");
        assert_eq!(iter_cards(0b1010).collect::<Vec<_>>(), vec![1, 3]);
        let groups: Vec<Mask> = twin_groups(rank_mask(4) | (1 << card(5, CLUBS))).collect();
        assert_eq!(groups, vec![rank_mask(4) & !SPADES_MASK]);
    }
}
