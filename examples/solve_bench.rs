//! The solver's benchmark without Python: replays the solver calls that `benchmarks/record_solves.py`
//! recorded from the search (`evaluate` on the decisions of `bench_search.py`), checks every answer
//! (values to the bit, node counts, lines), and prints nodes per second by section, the median of
//! `--repeat` passes.
//!
//!     python benchmarks/record_solves.py /tmp/solves.txt
//!     cargo run --release --example solve_bench -- /tmp/solves.txt [--repeat 5]

use std::collections::BTreeMap;
use std::time::Instant;

use _core::engine::movegen::Move;
use _core::engine::rules::Rules;
use _core::engine::state::{Build, Builds, State, MAX_SEATS};
use _core::search::leaf::{Evaluator, Leaf};
use _core::search::solver::{MoveOrder, OutOfNodes, Solver};

/// What a call answered, as recorded.
#[derive(Debug, PartialEq)]
enum Answer {
    Out(u64),
    Roots(u64, Vec<(u64, Vec<Move>)>),
    Value(u64, u64),
    Line(Vec<Move>),
}

enum Op {
    New {
        id: usize,
        preset: String,
        section: String,
        root_side: u8,
        nsides: u8,
        horizon: u32,
        weight: [i64; 52],
    },
    Limit(usize, u64),
    Nodes(usize, u64),
    Root(usize, State, Vec<Move>, Answer),
    Search(usize, State, f64, f64, Answer),
    Pline(usize, State, Answer),
    /// A decision made: its solvers are dropped, as Python drops them.
    Done,
}

struct Words<'a>(std::str::SplitWhitespace<'a>);

impl Words<'_> {
    fn word(&mut self) -> &str {
        self.0.next().expect("a word")
    }
    fn int<T: std::str::FromStr>(&mut self) -> T {
        self.word().parse().ok().expect("an integer")
    }
    fn float(&mut self) -> f64 {
        parse_hex_float(self.word())
    }
    fn state(&mut self) -> State {
        let nplayers: u8 = self.int();
        let mut hands = [0; MAX_SEATS];
        for h in hands.iter_mut().take(nplayers as usize) {
            *h = self.int();
        }
        let loose = self.int();
        let nbuilds: usize = self.int();
        let builds: Vec<Build> = (0..nbuilds)
            .map(|_| Build {
                cards: self.int(),
                value: self.int(),
                owner: self.int(),
                multiple: self.int::<u8>() != 0,
            })
            .collect();
        let nsides: u8 = self.int();
        let mut captured = [0; MAX_SEATS];
        for c in captured.iter_mut().take(nsides as usize) {
            *c = self.int();
        }
        let mut sweeps = [0; MAX_SEATS];
        for c in sweeps.iter_mut().take(nsides as usize) {
            *c = self.int();
        }
        State {
            hands,
            nplayers,
            loose,
            builds: Builds::from_slice(&builds).expect("few builds"),
            captured,
            sweeps,
            to_move: self.int(),
            last_capturer: self.int(),
            stock: self.int(),
            more: self.int::<u8>() != 0,
            dealer: self.int(),
            nsides,
            set_aside: self.int(),
        }
    }
    fn moves(&mut self, n: usize) -> Vec<Move> {
        (0..n)
            .map(|_| Move {
                card: self.int(),
                action: self.int(),
                take: self.int(),
                value: self.int(),
            })
            .collect()
    }
    fn line(&mut self) -> Vec<Move> {
        let n = self.int();
        self.moves(n)
    }
    fn equals(&mut self) {
        assert_eq!(self.word(), "=");
    }
}

/// Python's `float.hex()` form, e.g. `-0x1.8000000000000p+1`, `inf`, `-inf`.
fn parse_hex_float(w: &str) -> f64 {
    let (neg, w) = match w.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, w),
    };
    let v = if w == "inf" {
        f64::INFINITY
    } else {
        let w = w.strip_prefix("0x").expect("a hexadecimal float");
        let (mant, exp) = w.split_once('p').expect("an exponent");
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let mut m = u64::from_str_radix(int, 16).expect("hex digits") as f64;
        let mut scale = 1.0 / 16.0;
        for d in frac.chars() {
            m += d.to_digit(16).expect("a hex digit") as f64 * scale;
            scale /= 16.0;
        }
        m * 2f64.powi(exp.parse().expect("an exponent"))
    };
    if neg {
        -v
    } else {
        v
    }
}

fn parse(text: &str) -> Vec<Op> {
    let mut ops = Vec::new();
    for line in text.lines() {
        let mut w = Words(line.split_whitespace());
        let kind = w.word().to_string();
        if kind == "done" {
            ops.push(Op::Done);
            continue;
        }
        let id: usize = w.int();
        let op = match kind.as_str() {
            "new" => {
                let preset = w.word().to_string();
                let section = w.word().to_string();
                let (root_side, nsides, horizon) = (w.int(), w.int(), w.int());
                let mut weight = [0; 52];
                for x in weight.iter_mut() {
                    *x = w.int();
                }
                Op::New {
                    id,
                    preset,
                    section,
                    root_side,
                    nsides,
                    horizon,
                    weight,
                }
            }
            "limit" => Op::Limit(id, w.int()),
            "nodes" => Op::Nodes(id, w.int()),
            "root" => {
                let s = w.state();
                let n = w.int();
                let moves = w.moves(n);
                w.equals();
                let nodes = w.int();
                let answer = if w.word() == "out" {
                    Answer::Out(nodes)
                } else {
                    let values = (0..n).map(|_| (w.float().to_bits(), w.line())).collect();
                    Answer::Roots(nodes, values)
                };
                Op::Root(id, s, moves, answer)
            }
            "search" => {
                let s = w.state();
                let (alpha, beta) = (w.float(), w.float());
                w.equals();
                let nodes = w.int();
                let answer = if w.word() == "out" {
                    Answer::Out(nodes)
                } else {
                    Answer::Value(nodes, w.float().to_bits())
                };
                Op::Search(id, s, alpha, beta, answer)
            }
            "pline" => {
                let s = w.state();
                w.equals();
                Op::Pline(id, s, Answer::Line(w.line()))
            }
            other => panic!("an unknown record {other:?}"),
        };
        ops.push(op);
    }
    ops
}

fn get(solvers: &mut [Option<Solver>], id: usize) -> &mut Solver {
    solvers[id].as_mut().expect("a solver made before")
}

/// One pass over the records: nodes and seconds per section; panics at the first answer that is
/// not the recorded one.
fn replay(ops: &[Op], check: bool) -> BTreeMap<String, (u64, f64)> {
    let mut solvers: Vec<Option<Solver>> = Vec::new();
    let mut out: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    let mut section = String::new();
    let mut nodes = 0;
    let mut t0 = Instant::now();
    let mut flush = |section: &str, nodes: &mut u64, t0: &mut Instant| {
        if !section.is_empty() {
            let e = out.entry(section.to_string()).or_default();
            e.0 += *nodes;
            e.1 += t0.elapsed().as_secs_f64();
        }
        *nodes = 0;
        *t0 = Instant::now();
    };
    for (k, op) in ops.iter().enumerate() {
        match op {
            Op::New {
                id,
                preset,
                section: sec,
                root_side,
                nsides,
                horizon,
                weight,
            } => {
                let name = format!("{preset} {sec}");
                if name != section {
                    flush(&section, &mut nodes, &mut t0);
                    section = name;
                }
                let rules = match preset.as_str() {
                    "classic" => Rules::classic(),
                    "royal" => Rules::royal(),
                    "dominican" => Rules::dominican(),
                    p => panic!("no preset {p}"),
                };
                let ev = Evaluator::new(&rules, *nsides, *root_side, Leaf::Handmade, None, None);
                let order = MoveOrder { weight: *weight };
                let s = Solver::new(&rules, *root_side, *nsides, *horizon, ev, order);
                if solvers.len() <= *id {
                    solvers.resize_with(id + 1, || None);
                }
                solvers[*id] = Some(s);
            }
            Op::Limit(id, n) => get(&mut solvers, *id).node_limit = *n,
            Op::Nodes(id, n) => get(&mut solvers, *id).nodes = *n,
            Op::Root(id, s, moves, want) => {
                let sv = get(&mut solvers, *id);
                let got = match sv.root_values(s, moves) {
                    Err(OutOfNodes) => Answer::Out(sv.nodes),
                    Ok(values) => Answer::Roots(
                        sv.nodes,
                        values
                            .into_iter()
                            .map(|rv| (rv.value.to_bits(), rv.line[1..].to_vec()))
                            .collect(),
                    ),
                };
                if check {
                    assert_eq!(&got, want, "record {}", k + 1);
                }
            }
            Op::Search(id, s, alpha, beta, want) => {
                let sv = get(&mut solvers, *id);
                let got = match sv.search(s, *alpha, *beta) {
                    Err(OutOfNodes) => Answer::Out(sv.nodes),
                    Ok(v) => Answer::Value(sv.nodes, v.to_bits()),
                };
                if check {
                    assert_eq!(&got, want, "record {}", k + 1);
                }
            }
            Op::Done => {
                for s in solvers.drain(..).flatten() {
                    nodes += s.nodes;
                }
            }
            Op::Pline(id, s, want) => {
                let sv = get(&mut solvers, *id);
                let got = Answer::Line(sv.principal_line(s));
                if check {
                    assert_eq!(&got, want, "record {}", k + 1);
                }
            }
        }
    }
    for s in solvers.drain(..).flatten() {
        nodes += s.nodes;
    }
    flush(&section, &mut nodes, &mut t0);
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect("usage: solve_bench FILE [--repeat N]");
    let repeat: usize = match args.iter().position(|a| a == "--repeat") {
        Some(i) => args[i + 1].parse().expect("a number of passes"),
        None => 5,
    };
    let text = std::fs::read_to_string(path).expect("a file of recorded solves");
    let ops = parse(&text);
    let mut runs: BTreeMap<String, (u64, Vec<f64>)> = BTreeMap::new();
    for pass in 0..repeat {
        for (section, (nodes, secs)) in replay(&ops, pass == 0) {
            let e = runs.entry(section).or_default();
            e.0 = nodes;
            e.1.push(secs);
        }
    }
    let mut total = (0u64, 0.0);
    for (section, (nodes, mut secs)) in runs {
        secs.sort_by(f64::total_cmp);
        let median = secs[secs.len() / 2];
        total.0 += nodes;
        total.1 += median;
        println!(
            "{section:18} {nodes:>9} nodes  median {median:.4} s  {:>12.0} nodes/s",
            nodes as f64 / median
        );
    }
    println!(
        "{:18} {:>9} nodes  median {:.4} s  {:>12.0} nodes/s  (answers checked on the first pass)",
        "all",
        total.0,
        total.1,
        total.0 as f64 / total.1
    );
}
