//! The solver's nodes per second on fixed positions, without Python: the `searcher` bot's settings
//! (`bench_search.py`'s `SEARCHER`: a node budget of 3000, 8 plies deep with 2 players and 4 with
//! 3 or 4, falling back 4, 2 and 1 plies deep as `expectimax._Ladder` does) on positions of seeded
//! random rounds: the first deal (after 0 to 3 random plies) and the first decision of the last
//! deal, 2 players (handmade and learned leaf) and 4 (four sides, and two sides of partners).
//!
//! Each solve is one world: every distinct root move valued by a fresh ladder. Times are the thread's
//! CPU time. It prints, per group,
//! the median over `--repeat` passes of the time per solve and of nodes per second (and nodes per
//! second in the fastest pass, the steadier figure on a busy machine), and a digest of
//! every value and node count (the same digest before and after a change: the same search).
//!
//!     cargo run --release --example node_bench -- [--repeat 15] [--positions 40] [--only 2p]

use _core::engine::movegen::{apply_in_place, MoveGen};
use _core::engine::playout::{shuffled_round, SplitMix64};
use _core::engine::rules::Rules;
use _core::engine::state::{deals_per_round, State};
use _core::search::inference::card_values;
use _core::search::leaf::{Evaluator, Leaf, LearnedWeights};
use _core::search::race::Ladder;
use _core::search::solver::{distinct_moves, MoveOrder, Solver};

/// The thread's CPU time (Linux's `CLOCK_THREAD_CPUTIME_ID`), in seconds: on a shared machine the
/// wall clock counts the time the thread waits for a core as well.
fn cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, out: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid timespec to write, and the clock exists on Linux.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.sec as f64 + t.nsec as f64 * 1e-9
}

/// `bench_search.SEARCHER`'s node budget per decision.
const BUDGET: u64 = 3000;
/// `expectimax.FALLBACK_DEPTHS`.
const FALLBACK_DEPTHS: [u32; 3] = [4, 2, 1];

/// `values.card_values` in hundredths of a point, rounded as Python's `round` (`solver.MoveOrder`).
fn move_order(rules: &Rules) -> MoveOrder {
    MoveOrder {
        weight: card_values(rules).map(|v| (100.0 * v).round_ties_even() as i64),
    }
}

/// The rows of one model of the shipped `leaf_weights.json` (`leaf.read_weights`): a scan for the
/// model's `"weights"` object of arrays, enough for the file `scripts/fit_leaf.py` writes.
fn learned_rows(text: &str, model: &str) -> Vec<Vec<f64>> {
    let at = text
        .find(&format!("\"{model}\""))
        .expect("the model in the weights file");
    let rest = &text[at..];
    let rest = &rest[rest.find("\"weights\"").expect("its weights")..];
    let body = &rest[rest.find('{').expect("an object") + 1..rest.find('}').expect("its end")];
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for item in body.split(']') {
        let Some((key, values)) = item.split_once('[') else {
            continue;
        };
        let deals: usize = key
            .trim_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .expect("deals to come");
        if rows.len() <= deals {
            rows.resize(deals + 1, Vec::new());
        }
        rows[deals] = values
            .split(',')
            .map(|x| x.trim().parse().expect("a weight"))
            .collect();
    }
    rows
}

/// One group of positions, solved with one leaf.
struct Group {
    name: String,
    rules: Rules,
    nsides: u8,
    leaf: Leaf,
    positions: Vec<State>,
}

/// `n` positions of seeded random rounds: early in the first deal, or at the last deal's start.
fn positions(rules: &Rules, nplayers: u8, nsides: u8, last: bool, n: usize, seed: u64) -> Vec<State> {
    let mut rng = SplitMix64(seed);
    let mut gen = MoveGen::new();
    let mut moves = Vec::new();
    let deals = deals_per_round(nplayers);
    let mut out = Vec::new();
    while out.len() < n {
        let (table, hands) = shuffled_round(&mut rng, nplayers);
        let dealer = rng.below(nplayers as u32) as u8;
        let mut s = State::new_round(nplayers, nsides, dealer, table, &hands[0]);
        let mut next = 1;
        let mut plies = if last { u32::MAX } else { rng.below(4) };
        while !s.is_over() {
            if s.needs_deal() {
                s = s.dealt(&hands[next]);
                next += 1;
            }
            if plies == 0 || (last && next == deals && s.stock == 0 && full_hands(&s)) {
                break;
            }
            plies = plies.saturating_sub(1);
            gen.legal_moves(rules, &s, &mut moves);
            let mv = moves[rng.below(moves.len() as u32) as usize];
            assert!(
                apply_in_place(rules, &mut s, mv),
                "a table of more than 16 builds"
            );
        }
        // The search's table bound (expectimax.MAX_LOOSE is larger; random play seldom comes near).
        if !s.is_over() && s.loose.count_ones() <= 12 {
            out.push(s);
        }
    }
    out
}

fn full_hands(s: &State) -> bool {
    s.hands().iter().all(|h| h.count_ones() == 4)
}

/// Solves every position once: (nodes, seconds, per-solve seconds, digest of values and counts).
fn pass(g: &Group) -> (u64, f64, Vec<f64>, u64) {
    let mut nodes = 0;
    let mut digest = 0u64;
    let mut times = Vec::with_capacity(g.positions.len());
    let t0 = cpu_seconds();
    for s in &g.positions {
        let t = cpu_seconds();
        let root_side = s.to_move % g.nsides;
        let in_hands: u32 = s.hands().iter().map(|h| h.count_ones()).sum();
        let depth = if s.nplayers == 2 { 8 } else { 4 };
        let horizon = in_hands.saturating_sub(depth);
        let depths: Vec<u32> = FALLBACK_DEPTHS
            .into_iter()
            .filter(|&d| in_hands > horizon + d)
            .collect();
        let eval = Evaluator::new(&g.rules, g.nsides, root_side, g.leaf.clone(), None, None);
        let order = move_order(&g.rules);
        let probe = Solver::new(
            &g.rules,
            root_side,
            g.nsides,
            horizon,
            eval.clone(),
            order.clone(),
        );
        let moves = distinct_moves(probe.root_moves(s), s.hands[s.to_move as usize], s.loose);
        drop(probe);
        let mut ladder = Ladder::new(
            &g.rules,
            root_side,
            g.nsides,
            horizon,
            false,
            in_hands,
            depths,
            Some(BUDGET),
            None,
            eval,
            order,
        );
        let values = ladder.root_values(s, &moves);
        nodes += ladder.nodes();
        for v in &values {
            for w in [v.value.to_bits(), v.line.len() as u64, ladder.nodes()] {
                digest = (digest.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
            }
        }
        times.push(cpu_seconds() - t);
    }
    (nodes, cpu_seconds() - t0, times, digest)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    match args.iter().position(|a| a == name) {
        Some(i) => args[i + 1].parse().expect("a number"),
        None => default,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repeat = arg(&args, "--repeat", 15);
    let n = arg(&args, "--positions", 40);
    let only = match args.iter().position(|a| a == "--only") {
        Some(i) => args[i + 1].clone(),
        None => String::new(),
    };
    let weights_file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/casino_coach/search/leaf_weights.json"
    );
    let text = std::fs::read_to_string(weights_file).expect("the shipped leaf weights");
    let mut learned = LearnedWeights::new();
    learned
        .set(2, &learned_rows(&text, "classic-2p"))
        .expect("classic 2-player weights");
    let classic = Rules::classic();
    let royal = Rules::royal();
    let mut groups = Vec::new();
    for (name, rules, np, ns, last, leaf) in [
        ("classic 2p first", &classic, 2, 2, false, Leaf::Handmade),
        (
            "classic 2p first L",
            &classic,
            2,
            2,
            false,
            Leaf::Learned(learned.clone()),
        ),
        ("classic 2p last", &classic, 2, 2, true, Leaf::Handmade),
        ("royal 2p first", &royal, 2, 2, false, Leaf::Handmade),
        ("classic 4p first", &classic, 4, 4, false, Leaf::Handmade),
        ("classic 4p last", &classic, 4, 4, true, Leaf::Handmade),
        ("classic 4x2 first", &classic, 4, 2, false, Leaf::Handmade),
    ] {
        if !name.contains(only.as_str()) {
            continue;
        }
        groups.push(Group {
            name: name.to_string(),
            rules: rules.clone(),
            nsides: ns,
            leaf,
            positions: positions(rules, np, ns, last, n, 7 + np as u64 + 10 * last as u64),
        });
    }
    let mut total_nodes = 0;
    let mut total_secs = 0.0;
    let mut total_best = 0.0;
    let mut all = 0u64;
    for g in &groups {
        let mut secs = Vec::new();
        let mut solves = Vec::new();
        let mut nodes = 0;
        let mut digest = 0;
        for _ in 0..repeat {
            let (k, t, per, d) = pass(g);
            nodes = k;
            digest = d;
            secs.push(t);
            solves.push(median(per));
        }
        let best = secs.iter().copied().fold(f64::INFINITY, f64::min);
        let t = median(secs);
        total_nodes += nodes;
        total_secs += t;
        total_best += best;
        all = (all.rotate_left(5) ^ digest).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        println!(
            "{:20} {:>3} solves {:>8} nodes  median solve {:>8.1} us  {:>10.0} nodes/s (best pass {:>10.0})  digest {:016x}",
            g.name,
            g.positions.len(),
            nodes,
            median(solves) * 1e6,
            nodes as f64 / t,
            nodes as f64 / best,
            digest
        );
    }
    println!(
        "{:20} {:>3} passes {:>8} nodes  {:>22.0} nodes/s (best pass {:>10.0})  digest {:016x}",
        "all",
        repeat,
        total_nodes,
        total_nodes as f64 / total_secs,
        total_nodes as f64 / total_best,
        all
    );
}
