//! The hidden-information search. Each module mirrors the Python module of the same name in
//! `casino_coach/search/`, value for value.

pub mod inference;
pub mod leaf;
pub mod race;
pub mod solver;
pub mod worlds;
