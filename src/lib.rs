//! The native core of casino_coach: the Casino rules engine and the hidden-information search,
//! called from Python once per decision (or once per batch of worlds), never once per node.
//!
//! The Python package (`casino_coach/`) stays the readable reference: every rule is cited there,
//! and the tests hold this core equal to it move for move and value for value.

#[cfg(feature = "python")]
mod python;

pub mod engine;
pub mod search;
