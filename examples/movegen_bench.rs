//! The move generator's benchmark without Python: legal moves of the positions of 200 random
//! 2-player rounds per preset (as `benchmarks/bench_engine.py` times `_core.count_legal_moves`),
//! random rounds, and a digest of every move list and next state over random rounds of many rule
//! variants and player counts, so two builds can be checked equal in seconds.
//!
//!     cargo run --release --example movegen_bench -- [--passes 50] [--repeat 5] [--rounds 20000]
//!     cargo run --release --example movegen_bench -- --digest
//!     valgrind --tool=callgrind target/release/examples/movegen_bench --passes 3 --repeat 1 --rounds 0

use std::time::Instant;

use _core::engine::movegen::{apply, apply_in_place, MoveGen};
use _core::engine::playout::{random_rounds, shuffled_round, SplitMix64};
use _core::engine::rules::{
    AceValue, BuildForPartner, CourtPairingCount, EqualLooseCapture, PartnerBuildInteraction, Rules,
    TableCardsInRaise, TrailRestriction,
};
use _core::engine::state::State;

fn presets() -> [(&'static str, Rules); 3] {
    [
        ("classic", Rules::classic()),
        ("royal", Rules::royal()),
        ("dominican", Rules::dominican()),
    ]
}

/// The positions of `rounds` random 2-player rounds (the moves chosen at random).
fn positions(rules: &Rules, rounds: usize) -> Vec<State> {
    let mut rng = SplitMix64(1);
    let mut out = Vec::new();
    let mut gen = MoveGen::new();
    let mut moves = Vec::new();
    for _ in 0..rounds {
        let (table, deals) = shuffled_round(&mut rng, 2);
        let mut s = State::new_round(2, 2, 0, table, &deals[0]);
        let mut next = 1;
        while !s.is_over() {
            if s.needs_deal() {
                s = s.dealt(&deals[next]);
                next += 1;
            }
            out.push(s);
            gen.legal_moves(rules, &s, &mut moves);
            s = apply(rules, &s, moves[rng.below(moves.len() as u32) as usize]);
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Rule variants over the move-generation options of rules.md §2, each from a preset.
fn variants() -> Vec<Rules> {
    let mut out = Vec::new();
    for (_, base) in presets() {
        let tweaks: Vec<fn(&mut Rules)> = vec![
            |_| {},
            |r| r.ace_value = AceValue::Hand14Table1,
            |r| r.ace_value = AceValue::OneOrFourteen,
            |r| r.ace_singleton_set_in_build = true,
            |r| r.court_pairing_count = CourtPairingCount::All,
            |r| r.court_pairing_count = CourtPairingCount::OneOrThree,
            |r| r.trail_restriction = TrailRestriction::EqualLoose,
            |r| r.trail_restriction = TrailRestriction::AnyCapture,
            |r| {
                r.trail_restriction = TrailRestriction::EqualLoose;
                r.equal_loose_capture = EqualLooseCapture::AtLeastOne;
                r.equal_loose_build_ok = false;
            },
            |r| r.build_as_card_in_sums = true,
            |r| r.raise_own_build = false,
            |r| r.partner_build_interaction = PartnerBuildInteraction::RaiseOnly,
            |r| r.partner_build_interaction = PartnerBuildInteraction::None,
            |r| r.build_for_partner = BuildForPartner::Announced,
            |r| r.build_for_partner = BuildForPartner::Provable,
            |r| r.table_cards_in_raise = TableCardsInRaise::WithHandCard,
            |r| r.table_only_builds = true,
            |r| r.allow_duplicate_value_builds = false,
            |r| r.multi_set_build_creation = false,
            |r| r.merge_builds = true,
            |r| r.owner_may_trail = true,
            |r| r.court_builds = true,
            |r| {
                r.build_as_card_in_sums = true;
                r.merge_builds = true;
                r.table_cards_in_raise = TableCardsInRaise::WithHandCard;
                r.allow_duplicate_value_builds = false;
                r.build_for_partner = BuildForPartner::Provable;
                r.court_builds = true;
            },
        ];
        for t in tweaks {
            let mut r = base.clone();
            t(&mut r);
            r.derive();
            out.push(r);
        }
    }
    out
}

fn mix(h: &mut u64, x: u64) {
    *h = (*h ^ x).wrapping_mul(0x100_0000_01B3).rotate_left(17);
}

/// A digest of every legal-move list (and one-card list) and next state of random rounds of every
/// variant, 2-4 players; trails chosen more often to crowd the table.
fn digest() {
    let mut total = 0u64;
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut gen = MoveGen::new();
    let mut moves = Vec::new();
    let mut one = Vec::new();
    for (vi, rules) in variants().iter().enumerate() {
        for (n, k) in [(2u8, 2u8), (3, 3), (4, 2), (4, 4)] {
            let mut rng = SplitMix64(vi as u64 * 31 + n as u64 * 7 + k as u64);
            for _ in 0..40 {
                let (table, deals) = shuffled_round(&mut rng, n);
                let dealer = rng.below(n as u32) as u8;
                let mut s = State::new_round(n, k, dealer, table, &deals[0]);
                let mut next = 1;
                while !s.is_over() {
                    if s.needs_deal() {
                        s = s.dealt(&deals[next]);
                        next += 1;
                    }
                    gen.legal_moves(rules, &s, &mut moves);
                    total += moves.len() as u64;
                    mix(&mut h, moves.len() as u64);
                    for m in &moves {
                        mix(&mut h, m.take);
                        mix(
                            &mut h,
                            (m.card as u64) << 16 | (m.action as u64) << 8 | m.value as u64,
                        );
                        let mut t = s;
                        if apply_in_place(rules, &mut t, *m) {
                            mix(
                                &mut h,
                                t.loose ^ t.captured[0].rotate_left(7) ^ t.captured[1].rotate_left(13),
                            );
                            mix(
                                &mut h,
                                t.builds.len() as u64 ^ (t.sweeps[0] as u64) << 8 ^ (t.to_move as u64) << 16,
                            );
                            for b in t.builds.as_slice() {
                                mix(&mut h, b.packed());
                            }
                        }
                    }
                    let hand = s.hands[s.to_move as usize];
                    let low = hand & hand.wrapping_neg();
                    gen.legal_moves_of(rules, &s, low, &mut one);
                    for m in &one {
                        mix(&mut h, m.take ^ (m.card as u64) << 56 ^ (m.value as u64) << 60);
                    }
                    // Trails (and builds) first half the time: crowded tables.
                    let pick = if rng.below(2) == 0 {
                        moves.iter().position(|m| m.action != 1).unwrap_or(0)
                    } else {
                        rng.below(moves.len() as u32) as usize
                    };
                    if !apply_in_place(rules, &mut s, moves[pick]) {
                        break;
                    }
                }
            }
        }
    }
    println!("digest {h:016x} over {total} moves");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .map_or(default, |i| args[i + 1].parse().expect("a number"))
    };
    if args.iter().any(|a| a == "--digest") {
        digest();
        return;
    }
    let passes = opt("--passes", 50);
    let repeat = opt("--repeat", 5);
    let rounds = opt("--rounds", 20000) as u64;
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|i| args[i + 1].clone());
    let mut gen = MoveGen::new();
    let mut moves = Vec::with_capacity(256);
    for (name, rules) in presets() {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let ps = positions(&rules, 200);
        let mut rates = Vec::new();
        let mut listed = 0usize;
        for _ in 0..repeat {
            listed = 0;
            let t = Instant::now();
            for _ in 0..passes {
                for s in &ps {
                    gen.legal_moves(&rules, s, &mut moves);
                    listed += moves.len();
                }
            }
            rates.push((passes * ps.len()) as f64 / t.elapsed().as_secs_f64());
        }
        let mut rrates = Vec::new();
        if rounds > 0 {
            for _ in 0..repeat {
                let t = Instant::now();
                random_rounds(&rules, 2, 2, rounds, 1);
                rrates.push(rounds as f64 / t.elapsed().as_secs_f64());
            }
        }
        println!(
            "{name}: {} positions, {listed} moves a run; movegen {:.0} positions/s; rounds {:.0}/s",
            ps.len(),
            median(rates),
            if rrates.is_empty() { 0.0 } else { median(rrates) }
        );
    }
}
