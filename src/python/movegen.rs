//! The bindings of the move generator (`engine::movegen`) and of random play (`engine::playout`),
//! for the differential tests, `scripts/movegen_compare.py` and the engine benchmark. Moves cross as
//! Python's `Move` tuples `(card, action, take, value)`; states as `state_from_py` reads them.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use super::{state_from_py, state_to_py, PyRules};
use crate::engine::cards::FULL_DECK;
use crate::engine::movegen::{self, Move, MAX_LISTED_LOOSE};
use crate::engine::playout;
use crate::engine::state::State;
use crate::search::solver::MoveOrder;

pub(crate) type MoveTuple = (u8, u8, u64, u8);

pub(crate) fn move_tuple(m: &Move) -> MoveTuple {
    (m.card, m.action, m.take, m.value)
}

/// The move of a `move_tuple`.
pub(crate) fn move_from((card, action, take, value): MoveTuple) -> Move {
    Move {
        card,
        action,
        take,
        value,
    }
}

/// The moves of `move_tuple`s.
pub(crate) fn moves_from(moves: Vec<MoveTuple>) -> Vec<Move> {
    moves.into_iter().map(move_from).collect()
}

/// The first line of an error's text, for a one-line ValueError.
fn one_line(e: &PyErr, py: Python<'_>) -> String {
    let text = e.value(py).to_string();
    text.lines().next().unwrap_or_default().to_owned()
}

/// The most loose cards whose moves these bindings list. The Python lists any table, but past
/// `MAX_LISTED_LOOSE` (16) its users refuse to (`check_listable`) and past about 20 it takes minutes;
/// random play reaches 17 now and then. The bound keeps a call's memory in megabytes.
pub(crate) const MAX_BOUND_LOOSE: u32 = 24;

/// A state the core can take: `state_from_py`, with every card mask inside the pack, and (to list
/// moves) at most `MAX_BOUND_LOOSE` loose cards.
pub(crate) fn checked_state(state: &Bound<'_, PyAny>, listing: bool) -> PyResult<State> {
    let py = state.py();
    let s = state_from_py(state).map_err(|e| {
        if e.is_instance_of::<PyValueError>(py) {
            e
        } else {
            PyValueError::new_err(format!("not a round state: {}", one_line(&e, py)))
        }
    })?;
    let mut all = s.loose | s.stock | s.set_aside;
    for &m in s.hands.iter().chain(&s.captured) {
        all |= m;
    }
    for b in s.builds.as_slice() {
        all |= b.cards;
    }
    if all & !FULL_DECK != 0 {
        return Err(PyValueError::new_err(
            "a state's card mask holds bits past the 52 cards",
        ));
    }
    let n = s.loose.count_ones();
    if listing && n > MAX_BOUND_LOOSE {
        return Err(PyValueError::new_err(format!(
            "{n} loose cards on the table: the native core lists legal moves with at most {MAX_BOUND_LOOSE}"
        )));
    }
    Ok(s)
}

fn checked_move(mv: &Bound<'_, PyAny>) -> PyResult<Move> {
    let py = mv.py();
    let (card, action, take, value): (i64, i64, u64, i64) = mv
        .extract()
        .map_err(|e| PyValueError::new_err(format!("not a move tuple: {}", one_line(&e, py))))?;
    if !(0..52).contains(&card) || !(0..=2).contains(&action) || take & !FULL_DECK != 0 {
        return Err(PyValueError::new_err(format!(
            "not a move: card {card}, action {action}, take {take:#x}"
        )));
    }
    let value = u8::try_from(value).map_err(|_| PyValueError::new_err(format!("a move's value {value}")))?;
    Ok(Move {
        card: card as u8,
        action: action as u8,
        take,
        value,
    })
}

/// `movegen.legal_moves(rules, state, cards)` as tuples, sorted; with `order` (a move order's
/// weight per card, `solver.MoveOrder`), sorted again by its key, stably, as Python's `sorted`
/// with the order as key sorts them (the search's root moves).
#[pyfunction]
#[pyo3(signature = (rules, state, cards=None, order=None))]
fn legal_moves(
    rules: &Bound<'_, PyRules>,
    state: &Bound<'_, PyAny>,
    cards: Option<u64>,
    order: Option<Vec<i64>>,
) -> PyResult<Vec<MoveTuple>> {
    let s = checked_state(state, true)?;
    let order = match order {
        None => None,
        Some(weight) => Some(MoveOrder {
            weight: weight
                .try_into()
                .map_err(|_| PyValueError::new_err("a move order weighs each of 52 cards"))?,
        }),
    };
    let mut out = Vec::new();
    movegen::legal_moves_of(&rules.get().rules, &s, cards.unwrap_or(FULL_DECK), &mut out);
    if let Some(order) = order {
        out.sort_by_key(|m| order.key(m));
    }
    Ok(out.iter().map(move_tuple).collect())
}

/// `movegen.apply(rules, state, move)` as a state tuple.
#[pyfunction]
fn apply<'py>(
    rules: &Bound<'py, PyRules>,
    state: &Bound<'py, PyAny>,
    r#move: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let s = checked_state(state, false)?;
    let m = checked_move(r#move)?;
    let next = movegen::try_apply(&rules.get().rules, &s, m)
        .ok_or_else(|| PyValueError::new_err("the move would leave more builds than the core holds"))?;
    state_to_py(state.py(), &next)
}

/// The legal moves of `state` with the state after each: `[(move, next_state), ...]`, sorted by
/// move (one call per position for the comparison script).
#[pyfunction]
fn successors<'py>(rules: &Bound<'py, PyRules>, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let py = state.py();
    let r = &rules.get().rules;
    let s = checked_state(state, true)?;
    let mut out = Vec::new();
    movegen::legal_moves(r, &s, &mut out);
    let list = PyList::empty(py);
    for m in &out {
        let next = movegen::try_apply(r, &s, *m)
            .ok_or_else(|| PyValueError::new_err("the move would leave more builds than the core holds"))?;
        list.append((move_tuple(m), state_to_py(py, &next)?))?;
    }
    Ok(list)
}

/// The legal moves of every state of `states`, `passes` times over, generated without the GIL: the
/// number of moves listed in all. The engine benchmark times move generation alone with it, on the
/// positions it times the Python's on, in one call (a call per position would time the call).
#[pyfunction]
fn count_legal_moves(
    py: Python<'_>,
    rules: &Bound<'_, PyRules>,
    states: Vec<Bound<'_, PyAny>>,
    passes: u32,
) -> PyResult<u64> {
    let states = states
        .iter()
        .map(|s| checked_state(s, true))
        .collect::<PyResult<Vec<State>>>()?;
    let r = rules.get().rules.clone();
    Ok(py.detach(move || {
        let mut gen = movegen::MoveGen::new();
        let mut moves = Vec::with_capacity(256);
        let mut listed = 0;
        for _ in 0..passes {
            for s in &states {
                gen.legal_moves(&r, s, &mut moves);
                listed += moves.len() as u64;
            }
        }
        listed
    }))
}

/// Play `rounds` random rounds in the core (without the GIL): (positions whose moves were listed,
/// moves applied, moves listed in all).
#[pyfunction]
fn random_rounds(
    py: Python<'_>,
    rules: &Bound<'_, PyRules>,
    nplayers: u8,
    nsides: u8,
    rounds: u64,
    seed: u64,
) -> PyResult<(u64, u64, u64)> {
    let sides_ok = nsides == nplayers || (nplayers == 4 && nsides == 2);
    if !(2..=4).contains(&nplayers) || !sides_ok {
        return Err(PyValueError::new_err(format!(
            "random rounds of {nplayers} players in {nsides} sides"
        )));
    }
    let r = rules.get().rules.clone();
    let got = py.detach(move || playout::random_rounds(&r, nplayers, nsides, rounds, seed));
    Ok((got.positions, got.moves, got.listed))
}

/// Adds these functions to the module `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MAX_LISTED_LOOSE", MAX_LISTED_LOOSE)?;
    m.add_function(wrap_pyfunction!(legal_moves, m)?)?;
    m.add_function(wrap_pyfunction!(apply, m)?)?;
    m.add_function(wrap_pyfunction!(successors, m)?)?;
    m.add_function(wrap_pyfunction!(random_rounds, m)?)?;
    m.add_function(wrap_pyfunction!(count_legal_moves, m)?)?;
    Ok(())
}
