//! What one seat can know (`casino_coach/engine/observation.py`'s `Observation`): its own hand, the
//! table, every card seen so far, and how many cards each other seat and the stock hold. The search
//! deals `unseen` to the other hands and the stock (`search::worlds`).

use super::cards::Mask;
use super::state::{Builds, MAX_SEATS};

/// One seat's view of a round, field for field the Python `Observation`. Per-seat and per-side
/// arrays are 0 past `nplayers` and `nsides`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    /// Whose view this is.
    pub seat: u8,
    /// The seat's own cards.
    pub hand: Mask,
    pub loose: Mask,
    pub builds: Builds,
    /// Per side (seen as they were taken).
    pub captured: [Mask; MAX_SEATS],
    pub sweeps: [u32; MAX_SEATS],
    pub to_move: u8,
    pub last_capturer: i8,
    pub dealer: u8,
    pub nsides: u8,
    /// The number of seats (`len(hand_sizes)`).
    pub nplayers: u8,
    /// Per seat, the observer's own included.
    pub hand_sizes: [u32; MAX_SEATS],
    /// Cards still to be dealt.
    pub stock_count: u32,
    /// Cards in the other hands or the stock, as far as this seat knows.
    pub unseen: Mask,
    /// Per seat, cards known to be in that hand (the own hand for the observer).
    pub known: [Mask; MAX_SEATS],
    pub set_aside: Mask,
}

impl Observation {
    pub fn nplayers(&self) -> usize {
        self.nplayers as usize
    }
}
