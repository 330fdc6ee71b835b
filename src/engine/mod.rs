//! The rules engine: cards as bit indices, sets of cards as `u64` masks, rule sets as plain data,
//! the round state as a `Copy` value that is its own transposition key. Each module mirrors the
//! Python module of the same name in `casino_coach/engine/`, which cites the rules.

pub mod cards;
pub mod movegen;
pub mod observation;
pub mod playout;
pub mod rng;
pub mod rules;
pub mod state;
