//! What the other seats' plays in this deal say about the cards they still hold
//! (`casino_coach/search/inference.py`, which explains the model): a world's hands weighed by how
//! sensible those plays were with them, and worlds drawn in proportion to it by rejection.
//!
//! A port, draw for draw: the same weights to the last bit (the same products in the same order,
//! with the C library's `exp`, which CPython's `math.exp` calls too) and the same draws from a
//! CPython-equal generator, so a generator in the state a Python one is in deals the Python one's
//! world and is left where the Python one is left.

use crate::engine::cards::{Mask, ACES_MASK, BIG_CASINO, LITTLE_CASINO, SPADES_MASK};
use crate::engine::movegen::{legal_moves, legal_moves_of, try_apply, Move, BUILD, CAPTURE, TRAIL};
use crate::engine::observation::Observation;
use crate::engine::rng::Random;
use crate::engine::rules::Rules;
use crate::engine::state::{State, MAX_SEATS};
use crate::search::worlds::{Sampler, World, WorldsError};

/// A regret at most this small is no regret (`Likelihood.__call__`'s `1e-9`).
const NO_REGRET: f64 = 1e-9;

/// One play of another seat, prepared (`Likelihood.plays`): the seat, the card played, the gain of
/// the play, and per card the seat might have held, the best capture gain it could have made.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    pub seat: u8,
    pub card: u8,
    pub gain: f64,
    /// (card, best capture gain), in the reference's dict order (the maximum does not depend on it).
    pub best: Vec<(u8, f64)>,
}

/// How likely a sensible player makes the plays, as a function of the hands the seats hold now
/// (`Likelihood`). The plays come in the order they were made.
#[derive(Clone, Debug, PartialEq)]
pub struct Likelihood {
    pub plays: Vec<Play>,
}

impl Likelihood {
    /// The plays' likelihood with these hands, at `regret_scale` (`REGRET_SCALE`, read by the
    /// caller at each use as the reference reads it): per play, latest first, exp(-scale x regret)
    /// for the gain given up against the best capture of a card the seat held then.
    pub fn weight(&self, hands: &[Mask; MAX_SEATS], regret_scale: f64) -> f64 {
        let mut weight = 1.0;
        let mut played_since = [0 as Mask; MAX_SEATS];
        for play in self.plays.iter().rev() {
            let seat = play.seat as usize;
            played_since[seat] |= 1 << play.card;
            let held = hands[seat] | played_since[seat];
            // Python's max over the held cards' gains (the first of equals), default 0.0.
            let mut best: Option<f64> = None;
            for &(c, g) in &play.best {
                if held >> c & 1 != 0 && best.is_none_or(|b| g > b) {
                    best = Some(g);
                }
            }
            let regret = best.unwrap_or(0.0) - play.gain;
            if regret > NO_REGRET {
                weight *= (-regret_scale * regret).exp();
            }
        }
        weight
    }

    /// Whether every play's seat is one of `nplayers` (the reference indexes the hands by it).
    pub fn fits(&self, nplayers: usize) -> bool {
        self.plays.iter().all(|p| (p.seat as usize) < nplayers)
    }
}

/// The worth of taking each card into one's pile, in points (`values.card_values`, rules.md 1.12):
/// a twelfth of "most cards", an eighth of "most spades" for a spade, and the cash cards' points,
/// added in the reference's order.
pub fn card_values(rules: &Rules) -> [f64; 52] {
    let per_card = rules.points_cards as f64 / 12.0;
    let per_spade = rules.points_spades as f64 / 8.0;
    std::array::from_fn(|c| {
        let mut v = per_card;
        if SPADES_MASK >> c & 1 != 0 {
            v += per_spade;
        }
        if c == BIG_CASINO as usize {
            v += rules.points_big as f64;
        }
        if c == LITTLE_CASINO as usize {
            v += rules.points_little as f64;
        }
        if ACES_MASK >> c & 1 != 0 {
            v += rules.points_ace as f64;
        }
        v
    })
}

/// The points a capture takes at once (`values.immediate_gain`): its cards and the card played,
/// summed lowest card first, plus a sweep where it takes the whole `table`, unless it is the round's
/// `last` card and the rules give the last capture no sweep.
fn capture_gain(rules: &Rules, values: &[f64; 52], m: &Move, table: Mask, last: bool) -> f64 {
    let mut gain = 0.0;
    let mut mask = m.take | 1 << m.card;
    while mask != 0 {
        gain += values[mask.trailing_zeros() as usize];
        mask &= mask - 1;
    }
    if m.take == table && (!last || rules.final_capture_can_sweep) {
        gain += if rules.sweeps {
            rules.points_sweep as f64
        } else {
            0.0
        };
    }
    gain
}

/// Per card, the best capture gain the seat to move in `state` could make with it (`inference`'s
/// prepared play: its `best`), where the capture takes something: cards in the order their first
/// gain above 0 comes among the legal moves, as the reference's dict keeps them. `table` and
/// `last` are the observer's (`capture_gain`).
pub fn best_captures(rules: &Rules, state: &State, table: Mask, last: bool) -> Vec<(u8, f64)> {
    let values = card_values(rules);
    let mut moves = Vec::new();
    legal_moves(rules, state, &mut moves);
    let mut best: Vec<(u8, f64)> = Vec::new();
    for m in moves.iter().filter(|m| m.action == CAPTURE) {
        let gain = capture_gain(rules, &values, m, table, last);
        match best.iter_mut().find(|(c, _)| *c == m.card) {
            Some((_, g)) if gain > *g => *g = gain,
            Some(_) => {}
            None if gain > 0.0 => best.push((m.card, gain)),
            None => {}
        }
    }
    best
}

/// `inference._prepared`: the play `mv` of the seat to move at the view `obs` prepared, its seat,
/// card and gain (`immediate_gain`: a capture's `capture_gain`, else 0) and the best capture of each
/// card (`best_captures` where that seat holds every card it might: its known cards and the unseen).
pub fn prepare_play(rules: &Rules, obs: &Observation, mv: &Move) -> Play {
    let seat = obs.to_move;
    let mut hands = [0; MAX_SEATS];
    hands[seat as usize] = obs.unseen | obs.known[seat as usize];
    let state = as_state(obs, hands, false);
    let table = state.table();
    let last = obs.stock_count == 0 && obs.hand_sizes[..obs.nplayers()].iter().sum::<u32>() == 1;
    let gain = if mv.action == CAPTURE {
        capture_gain(rules, &card_values(rules), mv, table, last)
    } else {
        0.0
    };
    Play {
        seat,
        card: mv.card,
        gain,
        best: best_captures(rules, &state, table, last),
    }
}

/// The state `observation.as_state` makes of a view: `hands` for the hands, no stock, `more` cards
/// to come or not.
fn as_state(obs: &Observation, hands: [Mask; MAX_SEATS], more: bool) -> State {
    State {
        hands,
        nplayers: obs.nplayers,
        loose: obs.loose,
        builds: obs.builds,
        captured: obs.captured,
        sweeps: obs.sweeps,
        to_move: obs.to_move,
        last_capturer: obs.last_capturer,
        stock: 0,
        more,
        dealer: obs.dealer,
        nsides: obs.nsides,
        set_aside: obs.set_aside,
    }
}

/// A play the core cannot follow (it would leave more builds than a state holds): the reference
/// reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unfollowed;

/// The observer's view after the seat to move in `obs` plays `mv` (`observe_move` of a move known
/// to be legal): the mover's card leaves every hand and the unseen cards, the table and piles are
/// `apply`'s on a state of the known hands (more cards to come until the round's last card). None
/// where the mover holds no card (the reference's count goes below 0, and matches no view); an
/// error where the core cannot follow the play.
pub fn observe_move(rules: &Rules, obs: &Observation, mv: Move) -> Result<Option<Observation>, Unfollowed> {
    let mover = obs.to_move as usize;
    let bit: Mask = 1 << mv.card;
    let mut sizes = obs.hand_sizes;
    let Some(left) = sizes[mover].checked_sub(1) else {
        return Ok(None);
    };
    sizes[mover] = left;
    let mut before = obs.known;
    before[mover] |= bit;
    let last_card = obs.stock_count == 0 && sizes.iter().all(|&n| n == 0);
    let next = try_apply(rules, &as_state(obs, before, !last_card), mv).ok_or(Unfollowed)?;
    let known = obs.known.map(|k| k & !bit);
    Ok(Some(Observation {
        hand: known[obs.seat as usize],
        loose: next.loose,
        builds: next.builds,
        captured: next.captured,
        sweeps: next.sweeps,
        to_move: next.to_move,
        last_capturer: next.last_capturer,
        hand_sizes: sizes,
        unseen: obs.unseen & !bit,
        known,
        set_aside: next.set_aside,
        ..*obs
    }))
}

/// Whether two views show the same public part (`_same_public`).
fn same_public(a: &Observation, b: &Observation) -> bool {
    a.loose == b.loose
        && a.builds == b.builds
        && a.captured == b.captured
        && a.sweeps == b.sweeps
        && a.to_move == b.to_move
        && a.last_capturer == b.last_capturer
        && a.hand_sizes == b.hand_sizes
        && a.stock_count == b.stock_count
        && a.unseen == b.unseen
        && a.set_aside == b.set_aside
        && a.dealer == b.dealer
}

/// The moves of `card` by the seat to move in `obs` as `observed_legal` judges them (`_card_moves`):
/// the known hands for the observer's own moves, else the most permissive hand holding the card;
/// None when the seat holds no card or cannot hold this one (every move of it is refused).
pub fn card_moves(rules: &Rules, obs: &Observation, card: u8) -> Option<Vec<Move>> {
    let mover = obs.to_move as usize;
    let bit: Mask = 1 << card;
    let mut hands = obs.known;
    if mover != obs.seat as usize {
        if obs.hand_sizes[mover] == 0 || (obs.unseen | obs.known[mover]) & bit == 0 {
            return None;
        }
        hands[mover] = obs.known[mover] | obs.unseen | bit;
    }
    let mut listed = Vec::new();
    legal_moves_of(rules, &as_state(obs, hands, false), bit, &mut listed);
    Some(listed)
}

/// The play that took the observer's view from `before` to `after` (`inference.infer_move`): of the
/// candidates the change allows (a trail, a capture of what left the table, a build holding the card
/// shown), in that order, the first the core's move generator lists for the seat to move (as
/// `observed_legal` judges it) and that leads to `after`; None when none does.
pub fn infer_move(
    rules: &Rules,
    before: &Observation,
    after: &Observation,
) -> Result<Option<Move>, Unfollowed> {
    let mover = before.to_move as usize;
    let shown = (before.unseen & !after.unseen) | (before.known[mover] & !after.known[mover]);
    if shown.count_ones() != 1 {
        return Ok(None);
    }
    let card = shown.trailing_zeros() as u8;
    // None: `observed_legal` refuses every candidate.
    let Some(listed) = card_moves(rules, before, card) else {
        return Ok(None);
    };
    let table = before.loose | before.builds.cards();
    let after_table = after.loose | after.builds.cards();
    let mut candidates = vec![
        Move {
            card,
            action: TRAIL,
            take: 0,
            value: 0,
        },
        Move {
            card,
            action: CAPTURE,
            take: table & !after_table,
            value: 0,
        },
    ];
    for b in after.builds.as_slice().iter().filter(|b| b.cards & shown != 0) {
        candidates.push(Move {
            card,
            action: BUILD,
            take: b.cards & !shown,
            value: b.value,
        });
    }
    for mv in candidates {
        if listed.contains(&mv) && observe_move(rules, before, mv)?.is_some_and(|v| same_public(&v, after)) {
            return Ok(Some(mv));
        }
    }
    Ok(None)
}

/// A world drawn with probability proportional to prior x `weigh` by rejection
/// (`sample_with_evidence`): up to `max_draws` worlds (`MAX_DRAWS`), each kept when a uniform draw
/// falls below its weight; past them the last is taken as it is. `weigh`'s plays must fit `obs`'s
/// seats (`Likelihood::fits`).
pub fn sample_with_evidence(
    rules: &Rules,
    obs: &Observation,
    rng: &mut Random,
    weigh: Option<(&Likelihood, f64)>,
    max_draws: u32,
) -> Result<World, WorldsError> {
    let mut sampler = Sampler::new(rules, obs)?;
    draw_with_evidence(&mut sampler, rules, obs, rng, weigh, max_draws)
}

/// `sample_with_evidence` from the `sampler` of `obs` (made once for all of a decision's draws).
pub fn draw_with_evidence(
    sampler: &mut Sampler,
    rules: &Rules,
    obs: &Observation,
    rng: &mut Random,
    weigh: Option<(&Likelihood, f64)>,
    max_draws: u32,
) -> Result<World, WorldsError> {
    let mut world = sampler.draw(rules, obs, rng)?;
    let Some((likelihood, scale)) = weigh else {
        return Ok(world);
    };
    for _ in 1..max_draws {
        if rng.random() < likelihood.weight(&world.hands, scale) {
            return Ok(world);
        }
        world = sampler.draw(rules, obs, rng)?;
    }
    Ok(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_are_worth_their_share_of_the_majorities_and_their_points() {
        let v = card_values(&Rules::classic());
        assert_eq!(v[BIG_CASINO as usize], 3.0 / 12.0 + 2.0);
        assert_eq!(v[LITTLE_CASINO as usize], 3.0 / 12.0 + 1.0 / 8.0 + 1.0);
        let spade_ace = (SPADES_MASK & ACES_MASK).trailing_zeros() as usize;
        assert_eq!(v[spade_ace], 3.0 / 12.0 + 1.0 / 8.0 + 1.0);
        let m = Move {
            card: BIG_CASINO,
            action: CAPTURE,
            take: 1 << LITTLE_CASINO,
            value: 0,
        };
        let mut sweeps = Rules::classic();
        sweeps.sweeps = true;
        let took = v[LITTLE_CASINO as usize] + v[BIG_CASINO as usize];
        assert_eq!(
            capture_gain(&sweeps, &v, &m, 1 << LITTLE_CASINO, false),
            took + 1.0
        );
        sweeps.final_capture_can_sweep = false;
        assert_eq!(capture_gain(&sweeps, &v, &m, 1 << LITTLE_CASINO, true), took);
        assert_eq!(
            capture_gain(&Rules::classic(), &v, &m, 1 << LITTLE_CASINO, false),
            took
        );
    }

    fn play(seat: u8, card: u8, gain: f64, best: &[(u8, f64)]) -> Play {
        Play {
            seat,
            card,
            gain,
            best: best.to_vec(),
        }
    }

    #[test]
    fn a_play_that_passes_a_capture_up_weighs_a_hand_that_could_make_it() {
        // Seat 1 trailed card 3 (gain 0) where card 9 would have taken 1.25 points.
        let lk = Likelihood {
            plays: vec![play(1, 3, 0.0, &[(9, 1.25), (20, 0.5)])],
        };
        let mut hands = [0; MAX_SEATS];
        assert_eq!(lk.weight(&hands, 3.0), 1.0);
        hands[1] = 1 << 9;
        assert_eq!(lk.weight(&hands, 3.0), (-3.0f64 * 1.25).exp());
        hands[1] = (1 << 9) | (1 << 20);
        assert_eq!(lk.weight(&hands, 3.0), (-3.0f64 * 1.25).exp());
        hands[1] = 1 << 20;
        assert_eq!(lk.weight(&hands, 3.0), (-3.0f64 * 0.5).exp());
        // The card played itself was held then.
        let lk = Likelihood {
            plays: vec![play(1, 9, 0.25, &[(9, 1.25)])],
        };
        assert_eq!(lk.weight(&[0; MAX_SEATS], 3.0), (-3.0f64 * 1.0).exp());
        assert!(lk.fits(2) && !lk.fits(1));
    }
}
