//! Random rounds played entirely in the core: the engine benchmark (move generations and rounds
//! per second, as `scripts/bench_engine.py` measures the Python) and a smoke test of the engine on
//! every ply of whole rounds.

use super::cards::Mask;
use super::movegen::{apply_in_place, MoveGen};
use super::rules::Rules;
use super::state::{deals_per_round, State, HAND_SIZE, MAX_SEATS, TABLE_SIZE};

/// SplitMix64 (Steele, Lea, Flood 2014): a fast generator of good quality for shuffling; not the
/// generator the Python reference uses, so its rounds are not Python's.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0), by Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
    }
}

/// What `random_rounds` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutCount {
    /// Positions whose legal moves were generated (one per ply).
    pub positions: u64,
    /// Moves applied (as many as positions).
    pub moves: u64,
    /// Legal moves listed over all positions.
    pub listed: u64,
}

/// A round's deal from one shuffled pack: the table cards, then each deal's hands by seat.
pub fn shuffled_round(rng: &mut SplitMix64, nplayers: u8) -> (Mask, [[Mask; MAX_SEATS]; 6]) {
    let mut pack: [u8; 52] = std::array::from_fn(|i| i as u8);
    for i in (1..52).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        pack.swap(i, j);
    }
    let mut table = 0;
    for &c in &pack[..TABLE_SIZE as usize] {
        table |= 1 << c;
    }
    let mut deals = [[0; MAX_SEATS]; 6];
    let mut pos = TABLE_SIZE as usize;
    for hands in deals.iter_mut().take(deals_per_round(nplayers)) {
        for h in hands.iter_mut().take(nplayers as usize) {
            for &c in &pack[pos..pos + HAND_SIZE as usize] {
                *h |= 1 << c;
            }
            pos += HAND_SIZE as usize;
        }
    }
    (table, deals)
}

/// Play `rounds` rounds of `nplayers` seats in `nsides` sides with uniformly random legal moves.
pub fn random_rounds(rules: &Rules, nplayers: u8, nsides: u8, rounds: u64, seed: u64) -> PlayoutCount {
    let mut rng = SplitMix64(seed);
    let mut gen = MoveGen::new();
    let mut moves = Vec::with_capacity(256);
    let mut count = PlayoutCount::default();
    for _ in 0..rounds {
        let (table, deals) = shuffled_round(&mut rng, nplayers);
        let dealer = rng.below(nplayers as u32) as u8;
        let mut s = State::new_round(nplayers, nsides, dealer, table, &deals[0]);
        let mut next = 1;
        while !s.is_over() {
            if s.needs_deal() {
                s = s.dealt(&deals[next]);
                next += 1;
            }
            gen.legal_moves(rules, &s, &mut moves);
            count.positions += 1;
            count.listed += moves.len() as u64;
            let mv = moves[rng.below(moves.len() as u32) as usize];
            assert!(
                apply_in_place(rules, &mut s, mv),
                "a table of more than 16 builds"
            );
            count.moves += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cards::FULL_DECK;
    use crate::engine::movegen::apply;

    #[test]
    fn random_rounds_account_for_every_card() {
        for rules in [Rules::classic(), Rules::royal(), Rules::dominican()] {
            for (n, k) in [(2, 2), (3, 3), (4, 2), (4, 4)] {
                let got = random_rounds(&rules, n, k, 20, 7);
                // 48 cards are played per round, one per ply.
                assert_eq!(got.positions, 20 * 48);
                assert_eq!(got.moves, got.positions);
                assert!(got.listed > got.positions);
            }
        }
        let rules = Rules::royal();
        let mut rng = SplitMix64(1);
        let (table, deals) = shuffled_round(&mut rng, 2);
        let mut s = State::new_round(2, 2, 0, table, &deals[0]);
        let mut gen = MoveGen::new();
        let mut moves = Vec::new();
        let mut next = 1;
        while !s.is_over() {
            if s.needs_deal() {
                s = s.dealt(&deals[next]);
                next += 1;
            }
            assert_eq!(s.accounted(), FULL_DECK);
            gen.legal_moves(&rules, &s, &mut moves);
            assert!(moves.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
            s = apply(&rules, &s, moves[rng.below(moves.len() as u32) as usize]);
        }
        assert_eq!(s.captured[0] | s.captured[1] | s.set_aside, FULL_DECK);
    }
}

#[cfg(test)]
mod perft {
    use super::*;
    use crate::engine::rules::{PartnerBuildInteraction, TableCardsInRaise};

    /// Moves listed over 100 seeded random rounds, pinned (perft-like): the differential tests
    /// (tests/test_native_movegen.py) hold these lists equal to the Python's; a change of count
    /// here is a change of move generation.
    #[test]
    fn pinned_move_counts() {
        let mut variant = Rules::royal();
        variant.build_as_card_in_sums = true;
        variant.merge_builds = true;
        variant.table_cards_in_raise = TableCardsInRaise::WithHandCard;
        variant.partner_build_interaction = PartnerBuildInteraction::RaiseOnly;
        variant.derive();
        let got: Vec<u64> = [
            (Rules::classic(), 2, 2),
            (Rules::royal(), 3, 3),
            (Rules::dominican(), 4, 2),
            (variant, 4, 4),
        ]
        .iter()
        .map(|(rules, n, k)| random_rounds(rules, *n, *k, 100, 2024).listed)
        .collect();
        assert_eq!(got, [25888, 28459, 20295, 27483]);
    }
}

#[cfg(test)]
mod bench {
    use super::*;

    /// Legal moves only, over the positions of 200 random rounds (as `bench_engine.py` times
    /// the Python): `cargo test --release bench_movegen -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn bench_movegen() {
        for (name, rules) in [
            ("classic", Rules::classic()),
            ("royal", Rules::royal()),
            ("dominican", Rules::dominican()),
        ] {
            let mut rng = SplitMix64(1);
            let mut positions = Vec::new();
            let mut gen = MoveGen::new();
            let mut moves = Vec::new();
            for _ in 0..200 {
                let (table, deals) = shuffled_round(&mut rng, 2);
                let mut s = State::new_round(2, 2, 0, table, &deals[0]);
                let mut next = 1;
                while !s.is_over() {
                    if s.needs_deal() {
                        s = s.dealt(&deals[next]);
                        next += 1;
                    }
                    positions.push(s);
                    gen.legal_moves(&rules, &s, &mut moves);
                    s = crate::engine::movegen::apply(
                        &rules,
                        &s,
                        moves[rng.below(moves.len() as u32) as usize],
                    );
                }
            }
            let t = std::time::Instant::now();
            let mut listed = 0;
            for _ in 0..50 {
                for s in &positions {
                    gen.legal_moves(&rules, s, &mut moves);
                    listed += moves.len();
                }
            }
            let dt = t.elapsed().as_secs_f64();
            println!(
                "{name}: movegen {:.0} positions/s ({listed} moves)",
                50.0 * positions.len() as f64 / dt
            );
        }
    }

    /// `cargo test --release bench_random_rounds -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn bench_random_rounds() {
        for (name, rules) in [
            ("classic", Rules::classic()),
            ("royal", Rules::royal()),
            ("dominican", Rules::dominican()),
        ] {
            let t = std::time::Instant::now();
            let got = random_rounds(&rules, 2, 2, 100_000, 1);
            let dt = t.elapsed().as_secs_f64();
            println!(
                "{name}: {:.0} rounds/s, {:.0} positions/s, {:.1} moves per position",
                100_000.0 / dt,
                got.positions as f64 / dt,
                got.listed as f64 / got.positions as f64
            );
        }
    }
}
