//! The hidden-information search. Each module mirrors the Python module of the same name in
//! `casino_coach/search/`, value for value; `table` is the solver's transposition table and move
//! cache, where the reference uses dicts.

pub mod chances;
pub mod inference;
pub mod leaf;
pub mod race;
pub mod solver;
pub mod table;
pub mod worlds;
