//! The bindings of the inference over the other seats' plays (`search::inference`), for
//! `casino_coach/search/inference.py` and the differential tests: the likelihood of the prepared
//! plays (`Likelihood.plays`), and worlds drawn in proportion to it from a `_core.Random`.
//!
//! The regret scale and the number of draws come with each call, read by the Python side at each
//! use as the reference reads `REGRET_SCALE` and `MAX_DRAWS`. A value the core cannot take is a
//! `ValueError` (the Python side then runs the reference); what the reference raises as
//! `SearchError` is `_core.WorldsError`; a fault inside the core is a `CoreFault` (`guarded`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::guarded;
use super::movegen::{checked_state, move_from, move_tuple, MoveTuple, MAX_BOUND_LOOSE};
use super::worlds::{observation_from_py, raised, world_to_py, PyRandom};
use super::PyRules;
use crate::engine::cards::Mask;
use crate::engine::observation::Observation;
use crate::engine::state::MAX_SEATS;
use crate::search::inference::{self, Likelihood, Play};

fn bad(what: &str) -> PyErr {
    PyValueError::new_err(format!("not a likelihood the native core takes: {what}"))
}

fn card_of(c: i64) -> PyResult<u8> {
    u8::try_from(c)
        .ok()
        .filter(|&c| c < 52)
        .ok_or_else(|| bad(&format!("card {c}")))
}

/// `inference.Likelihood` of the prepared plays: `[(seat, card, gain, {card: best gain}), ...]`,
/// in the order they were made.
#[pyclass(name = "Likelihood", module = "casino_coach._core", frozen)]
pub struct PyLikelihood {
    pub(super) likelihood: Likelihood,
}

#[pymethods]
impl PyLikelihood {
    #[new]
    fn new(plays: Vec<(i64, i64, f64, Bound<'_, PyDict>)>) -> PyResult<Self> {
        let mut out = Vec::with_capacity(plays.len());
        for (seat, card, gain, best) in plays {
            let seat = u8::try_from(seat)
                .ok()
                .filter(|&s| (s as usize) < MAX_SEATS)
                .ok_or_else(|| bad(&format!("seat {seat}")))?;
            let mut gains = Vec::with_capacity(best.len());
            for (c, g) in best.iter() {
                let c: i64 = c.extract().map_err(|_| bad("a card that is not an int"))?;
                let g: f64 = g.extract().map_err(|_| bad("a gain that is not a float"))?;
                gains.push((card_of(c)?, g));
            }
            out.push(Play {
                seat,
                card: card_of(card)?,
                gain,
                best: gains,
            });
        }
        Ok(PyLikelihood {
            likelihood: Likelihood { plays: out },
        })
    }

    /// `Likelihood(hands)` at `regret_scale`.
    fn __call__(&self, hands: &Bound<'_, PyTuple>, regret_scale: f64) -> PyResult<f64> {
        let hands: Vec<Mask> = hands.extract().map_err(|_| bad("hands that are not masks"))?;
        if hands.len() > MAX_SEATS || !self.likelihood.fits(hands.len()) {
            return Err(bad("a play of a seat past the hands"));
        }
        let mut all = [0; MAX_SEATS];
        all[..hands.len()].copy_from_slice(&hands);
        Ok(self.likelihood.weight(&all, regret_scale))
    }
}

/// `inference.sample_with_evidence(rules, obs, rng, weigh)`, drawing from `rng`, with `weigh` read
/// at `regret_scale` and at most `max_draws` worlds drawn.
#[pyfunction]
#[pyo3(signature = (rules, obs, rng, weigh, regret_scale, max_draws))]
fn sample_with_evidence<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyRules>,
    obs: &Bound<'py, PyAny>,
    rng: &Bound<'py, PyRandom>,
    weigh: Option<&Bound<'py, PyLikelihood>>,
    regret_scale: f64,
    max_draws: i64,
) -> PyResult<Bound<'py, PyTuple>> {
    let o = observation_from_py(obs)?;
    let weigh = weigh.map(|w| (&w.get().likelihood, regret_scale));
    if weigh.is_some_and(|(lk, _)| !lk.fits(o.nplayers())) {
        return Err(bad("a play of a seat past the observation's"));
    }
    let max_draws = max_draws.clamp(0, u32::MAX as i64) as u32;
    let mut r = rng.borrow_mut();
    let w =
        guarded(|| inference::sample_with_evidence(&rules.get().rules, &o, &mut r.rng, weigh, max_draws))?
            .map_err(raised)?;
    world_to_py(py, &w, o.nplayers())
}

/// Per card, the best capture gain of the seat to move in `state` (`inference._prepared`'s
/// `best`, as (card, gain) pairs in its dict's order), with the observer's `table` and whether the
/// round is at its `last` card.
#[pyfunction]
fn best_captures(
    rules: &Bound<'_, PyRules>,
    state: &Bound<'_, PyAny>,
    table: Mask,
    last: bool,
) -> PyResult<Vec<(u8, f64)>> {
    let s = checked_state(state, true)?;
    guarded(|| inference::best_captures(&rules.get().rules, &s, table, last))
}

/// A prepared play as `inference._prepared` gives it, its `best` as (card, gain) pairs.
type PreparedPlay = (u8, u8, f64, Vec<(u8, f64)>);

/// `inference._prepared(rules, before, move)` from the view itself: (seat, card, gain, the best
/// capture gain per card as `best_captures` gives them). A ValueError where the core cannot list
/// the moves of the view (a table of more loose cards than it lists, not a seat's turn): the
/// reference prepares it then.
#[pyfunction]
fn prepare_play(
    rules: &Bound<'_, PyRules>,
    before: &Bound<'_, PyAny>,
    r#move: MoveTuple,
) -> PyResult<PreparedPlay> {
    let b = observation_from_py(before)?;
    if b.loose.count_ones() > MAX_BOUND_LOOSE || b.to_move as usize >= b.nplayers() {
        return Err(bad("a view whose moves the core does not list"));
    }
    card_of(r#move.0 as i64)?;
    let mv = move_from(r#move);
    let play = guarded(|| inference::prepare_play(&rules.get().rules, &b, &mv))?;
    Ok((play.seat, play.card, play.gain, play.best))
}

/// `inference.infer_move(rules, before, after)`: the play (a move tuple) that took the view
/// `before` to `after`, or None. A ValueError where the core cannot read it (a table of more loose
/// cards than it lists, or a play that would leave more builds than it holds): the reference reads
/// it then.
#[pyfunction]
fn infer_move(
    rules: &Bound<'_, PyRules>,
    before: &Bound<'_, PyAny>,
    after: &Bound<'_, PyAny>,
) -> PyResult<Option<MoveTuple>> {
    let b = observation_from_py(before)?;
    let a = observation_from_py(after)?;
    if b.loose.count_ones() > MAX_BOUND_LOOSE || b.to_move as usize >= b.nplayers() {
        return Err(bad("a view whose moves the core does not list"));
    }
    let got = guarded(|| inference::infer_move(&rules.get().rules, &b, &a))?;
    let mv = got.map_err(|_| bad("a play that would leave more builds than the core holds"))?;
    Ok(mv.as_ref().map(move_tuple))
}

/// The observer's view after its own play `move` at `obs` (`observe_move`, the play judged as
/// `next_evidence` judges it: among the core's moves of its card), as the fields of an
/// `Observation` (builds as tuples); None when the play is not legal there. A ValueError where the
/// core cannot say (not the observer's turn, a table of more loose cards than it lists, a play that
/// would leave more builds than it holds): the reference observes it then.
#[pyfunction]
fn observe_own_play<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyRules>,
    obs: &Bound<'py, PyAny>,
    r#move: MoveTuple,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    match own_play(rules, obs, r#move)? {
        None => Ok(None),
        Some(v) => Ok(Some(observation_to_py(py, &v)?)),
    }
}

/// `observe_own_play`'s view, in the core.
fn own_play(
    rules: &Bound<'_, PyRules>,
    obs: &Bound<'_, PyAny>,
    r#move: MoveTuple,
) -> PyResult<Option<Observation>> {
    let o = observation_from_py(obs)?;
    if o.to_move != o.seat || o.loose.count_ones() > MAX_BOUND_LOOSE || r#move.0 >= 52 {
        return Err(bad("a view whose play the core does not follow"));
    }
    let mv = move_from(r#move);
    let r = &rules.get().rules;
    let got = guarded(|| {
        let listed = inference::card_moves(r, &o, mv.card).unwrap_or_default();
        if !listed.contains(&mv) {
            return Ok(None);
        }
        inference::observe_move(r, &o, mv)?
            .map(Some)
            .ok_or(inference::Unfollowed)
    })?;
    got.map_err(|_| bad("a play the core does not follow"))
}

/// `observe_own_play` and then, in the same call, `infer_move` from the view it gives to `now`
/// (`inference.next_evidence` between two decisions of a seat): None when the own play is not
/// legal; else the view's fields, whether the other seat's play was read, and that play (None when
/// no play explains `now`, or when the seat is to move again). Not read (the caller goes on from
/// the view as `next_evidence` does): a new deal between, or views the core does not read.
#[pyfunction]
fn next_play<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyRules>,
    previous: &Bound<'py, PyAny>,
    played: MoveTuple,
    now: &Bound<'py, PyAny>,
) -> PyResult<Option<NextPlay<'py>>> {
    let Some(mid) = own_play(rules, previous, played)? else {
        return Ok(None);
    };
    let view = observation_to_py(py, &mid)?;
    let now = observation_from_py(now)?;
    let dealt =
        mid.stock_count != now.stock_count && mid.hand_sizes[..mid.nplayers()].iter().all(|&k| k == 0);
    if dealt {
        return Ok(Some((view, false, None)));
    }
    if mid.to_move == now.seat {
        return Ok(Some((view, true, None)));
    }
    if mid.loose.count_ones() > MAX_BOUND_LOOSE || mid.to_move as usize >= mid.nplayers() {
        return Ok(Some((view, false, None)));
    }
    match guarded(|| inference::infer_move(&rules.get().rules, &mid, &now))? {
        Ok(mv) => Ok(Some((view, true, mv.as_ref().map(move_tuple)))),
        Err(_) => Ok(Some((view, false, None))),
    }
}

/// What `next_play` returns when the own play is legal.
type NextPlay<'py> = (Bound<'py, PyTuple>, bool, Option<MoveTuple>);

/// An `Observation`'s fields as a tuple, its builds as (cards, value, owner, multiple) tuples.
fn observation_to_py<'py>(py: Python<'py>, o: &Observation) -> PyResult<Bound<'py, PyTuple>> {
    let n = o.nplayers();
    let k = o.nsides as usize;
    let builds: Vec<(u64, u8, u8, bool)> = o
        .builds
        .as_slice()
        .iter()
        .map(|b| (b.cards, b.value, b.owner, b.multiple))
        .collect();
    // (Fifteen fields: past the tuples that convert whole.)
    let fields: [Bound<'py, PyAny>; 15] = [
        o.seat.into_pyobject(py)?.into_any(),
        o.hand.into_pyobject(py)?.into_any(),
        o.loose.into_pyobject(py)?.into_any(),
        PyTuple::new(py, builds)?.into_any(),
        PyTuple::new(py, &o.captured[..k])?.into_any(),
        PyTuple::new(py, &o.sweeps[..k])?.into_any(),
        o.to_move.into_pyobject(py)?.into_any(),
        o.last_capturer.into_pyobject(py)?.into_any(),
        o.dealer.into_pyobject(py)?.into_any(),
        o.nsides.into_pyobject(py)?.into_any(),
        PyTuple::new(py, &o.hand_sizes[..n])?.into_any(),
        o.stock_count.into_pyobject(py)?.into_any(),
        o.unseen.into_pyobject(py)?.into_any(),
        PyTuple::new(py, &o.known[..n])?.into_any(),
        o.set_aside.into_pyobject(py)?.into_any(),
    ];
    PyTuple::new(py, fields)
}

/// Adds these functions and classes to the module `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLikelihood>()?;
    m.add_function(wrap_pyfunction!(best_captures, m)?)?;
    m.add_function(wrap_pyfunction!(infer_move, m)?)?;
    m.add_function(wrap_pyfunction!(prepare_play, m)?)?;
    m.add_function(wrap_pyfunction!(observe_own_play, m)?)?;
    m.add_function(wrap_pyfunction!(next_play, m)?)?;
    m.add_function(wrap_pyfunction!(sample_with_evidence, m)?)?;
    Ok(())
}
