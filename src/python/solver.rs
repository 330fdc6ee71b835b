//! The bindings of the solver (`search::solver`): `_core.Solver`, the reference's `Solver` with the
//! same methods, for `casino_coach/search/native.py`. One call searches a world's root moves, a
//! window or a line, with the GIL released; the table lives in the Rust object across the worlds of a
//! decision.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::leaf::PyEvaluator;
use super::movegen::{checked_state, move_tuple, moves_from, MoveTuple};
use super::{guarded, PyRules};
use crate::engine::movegen::Move;
use crate::engine::state::State;
use crate::search::race;
use crate::search::solver::{MoveOrder, OutOfNodes as Spent, Solver};

create_exception!(
    _core,
    OutOfNodes,
    PyException,
    "The search passed its node limit."
);

fn spent(_: Spent) -> PyErr {
    OutOfNodes::new_err("the search passed its node limit")
}

fn tuples(moves: &[Move]) -> Vec<MoveTuple> {
    moves.iter().map(move_tuple).collect()
}

/// Alpha-beta with a transposition table, for one root side (`solver.Solver`).
#[pyclass(name = "Solver", module = "casino_coach._core")]
pub struct PySolver {
    solver: Solver,
}

impl PySolver {
    fn state(&self, state: &Bound<'_, PyAny>) -> PyResult<State> {
        let s = checked_state(state, true)?;
        if s.nsides != self.solver.nsides {
            return Err(PyValueError::new_err(format!(
                "a state of {} sides for a solver of {}",
                s.nsides, self.solver.nsides
            )));
        }
        Ok(s)
    }
}

#[pymethods]
impl PySolver {
    /// A solver for `root_side` of `nsides`, stopping at `horizon` cards in the hands, valuing with
    /// `evaluator` (a `_core.Evaluator` of the same sides) and trying moves in the order of `order`
    /// (`MoveOrder.weight`: each card's worth in hundredths of a point); with `next_deal`, on through
    /// a 2-player round's last deal (`Solver.next_deal`).
    #[new]
    #[pyo3(signature = (rules, evaluator, root_side, nsides, horizon, order, next_deal=false))]
    fn new(
        rules: &Bound<'_, PyRules>,
        evaluator: &Bound<'_, PyEvaluator>,
        root_side: u8,
        nsides: u8,
        horizon: u32,
        order: Vec<i64>,
        next_deal: bool,
    ) -> PyResult<Self> {
        let ev = evaluator.get().ev.clone();
        if ev.nsides() != nsides as usize || ev.root_side() != root_side as usize {
            return Err(PyValueError::new_err(
                "the evaluator is for other sides than the solver",
            ));
        }
        let weight: [i64; 52] = order
            .try_into()
            .map_err(|_| PyValueError::new_err("a move order weighs each of 52 cards"))?;
        let mut solver = Solver::new(
            &rules.get().rules,
            root_side,
            nsides,
            horizon,
            ev,
            MoveOrder { weight },
        );
        solver.next_deal = next_deal;
        Ok(PySolver { solver })
    }

    #[getter]
    fn nodes(&self) -> u64 {
        self.solver.nodes
    }

    #[setter]
    fn set_nodes(&mut self, nodes: u64) {
        self.solver.nodes = nodes;
    }

    #[getter]
    fn node_limit(&self) -> u64 {
        self.solver.node_limit
    }

    #[setter]
    fn set_node_limit(&mut self, limit: u64) {
        self.solver.node_limit = limit;
    }

    #[getter]
    fn horizon(&self) -> u32 {
        self.solver.horizon
    }

    /// The positions the transposition table holds.
    fn table_size(&self) -> usize {
        self.solver.table_size()
    }

    /// `Solver.moves`: the legal moves of `state`, best-looking first, twins once.
    fn moves(&mut self, state: &Bound<'_, PyAny>) -> PyResult<Vec<MoveTuple>> {
        let s = self.state(state)?;
        let solver = &mut self.solver;
        Ok(tuples(&guarded(|| solver.moves(&s))?))
    }

    /// `Solver.root_values`: each move's exact value in this world and its principal line (the
    /// moves after it). OutOfNodes past the node limit.
    fn root_values(
        &mut self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        moves: Vec<MoveTuple>,
    ) -> PyResult<Vec<(f64, Vec<MoveTuple>)>> {
        let s = self.state(state)?;
        let moves = moves_from(moves);
        let solver = &mut self.solver;
        let values = py
            .detach(move || guarded(|| solver.root_values(&s, &moves)))?
            .map_err(spent)?;
        Ok(values
            .iter()
            .map(|rv| (rv.value, tuples(&rv.line[1..])))
            .collect())
    }

    /// `Solver.value`: the minimax value of the world `state` (its stock included).
    fn value(&mut self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<f64> {
        let s = self.state(state)?;
        let solver = &mut self.solver;
        py.detach(move || guarded(|| solver.value(&s)))?.map_err(spent)
    }

    /// `Solver.search`: the minimax value of `state` within the window (alpha, beta).
    fn search(&mut self, py: Python<'_>, state: &Bound<'_, PyAny>, alpha: f64, beta: f64) -> PyResult<f64> {
        let s = self.state(state)?;
        let solver = &mut self.solver;
        py.detach(move || guarded(|| solver.search(&s, alpha, beta)))?
            .map_err(spent)
    }

    /// `Solver.principal_line`: the best moves from `state` as the table records them.
    fn principal_line(&self, state: &Bound<'_, PyAny>) -> PyResult<Vec<MoveTuple>> {
        let s = self.state(state)?;
        Ok(tuples(&guarded(|| self.solver.principal_line(&s))?))
    }

    /// `Solver.proving_line`: a line from `state` that keeps its value `value` to the search's end.
    fn proving_line(
        &mut self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        value: f64,
    ) -> PyResult<Vec<MoveTuple>> {
        let s = self.state(state)?;
        let solver = &mut self.solver;
        let line = py
            .detach(move || guarded(|| solver.proving_line(&s, value)))?
            .map_err(spent)?;
        Ok(tuples(&line))
    }

    /// `expectimax.follow`: the line proving `value` for `move` (after `reply`) in the world `state`,
    /// with what happens along it: (line, parts at its end, cards each side captured on the way,
    /// sweeps each side made, whether the round is over there).
    #[allow(clippy::type_complexity)]
    fn follow<'py>(
        &mut self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
        mv: MoveTuple,
        reply: Option<MoveTuple>,
        value: f64,
    ) -> PyResult<(Vec<MoveTuple>, Bound<'py, PyDict>, Vec<u64>, Vec<i64>, bool)> {
        let s = self.state(state)?;
        let first = moves_from(vec![mv])[0];
        let reply = reply.map(|r| moves_from(vec![r])[0]);
        let solver = &mut self.solver;
        let (line, outcome) = py.detach(move || guarded(|| race::follow(solver, &s, first, reply, value)))?;
        let out = PyDict::new(py);
        for (name, v) in outcome.parts.iter() {
            out.set_item(name, v)?;
        }
        Ok((tuples(&line), out, outcome.gained, outcome.sweeps, outcome.end))
    }

    /// `Evaluator.parts` of the solver's evaluator.
    fn parts<'py>(&self, py: Python<'py>, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let margins = self.solver.eval().parts(&self.state(state)?);
        let out = PyDict::new(py);
        for (name, v) in margins.iter() {
            out.set_item(name, v)?;
        }
        Ok(out)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySolver>()?;
    m.add("OutOfNodes", m.py().get_type::<OutOfNodes>())?;
    Ok(())
}
