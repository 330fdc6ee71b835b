//! The Python side of the leaf evaluator (`search::leaf`): `_core.Evaluator`, made from the same
//! arguments as `casino_coach.search.leaf.Evaluator`, and `final_points` and `majority_odds`, for
//! the tests that hold the two equal bit for bit. Called once per test case, never per node.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::engine::state::{State, MAX_SEATS};
use crate::python::chances::PyGameFinal;
use crate::python::{state_from_py, PyRules};
use crate::search::leaf::{self, CategoryWeights, Evaluator, Leaf, LearnedWeights, MajorityOdds};

/// A leaf evaluator of the core (`leaf.Evaluator`).
#[pyclass(name = "Evaluator", module = "casino_coach._core", frozen)]
pub struct PyEvaluator {
    pub(crate) ev: Evaluator,
}

impl PyEvaluator {
    fn state(&self, state: &Bound<'_, PyAny>) -> PyResult<State> {
        let s = state_from_py(state)?;
        if s.nsides as usize != self.ev.nsides() {
            return Err(PyValueError::new_err(format!(
                "a state of {} sides for an evaluator of {}",
                s.nsides,
                self.ev.nsides()
            )));
        }
        Ok(s)
    }
}

#[pymethods]
impl PyEvaluator {
    /// As `Evaluator(rules, nsides, root_side, leaf, final_value, category_weights)`, with
    /// `rules` a `_core.Rules`; `final_value` None or a `_core.GameFinal` of two sides for the root
    /// side (a Python callable stays in Python), and
    /// `learned_weights` maps a number of players to its fitted rows (`leaf.learned_weights`).
    #[new]
    #[pyo3(signature = (
        rules, nsides, root_side, leaf="handmade", final_value=None, category_weights=None,
        learned_weights=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        rules: &Bound<'_, PyRules>,
        nsides: u8,
        root_side: u8,
        leaf: &str,
        final_value: Option<&Bound<'_, PyAny>>,
        category_weights: Option<HashMap<String, Vec<f64>>>,
        learned_weights: Option<HashMap<usize, Vec<Vec<f64>>>>,
    ) -> PyResult<Self> {
        if !(2..=MAX_SEATS as u8).contains(&nsides) || root_side >= nsides {
            return Err(PyValueError::new_err(format!(
                "an evaluator of {nsides} sides for side {root_side}"
            )));
        }
        // The chance to win the game is computed in the core; any other final value is a Python
        // function, which stays with the reference.
        let final_value = match final_value {
            None => None,
            Some(f) => match f.cast::<PyGameFinal>() {
                Ok(game) if nsides == 2 && game.get().game.side() == root_side as usize => {
                    Some(game.get().game.clone().into_final_value())
                }
                Ok(_) => {
                    return Err(PyValueError::new_err(format!(
                        "a GameFinal is a final_value of two sides for its own side, not of {nsides} \
                         sides for side {root_side}"
                    )))
                }
                Err(_) => {
                    return Err(PyValueError::new_err(
                        "the native Evaluator takes no Python final_value, only a _core.GameFinal",
                    ))
                }
            },
        };
        let leaf = match leaf {
            "handmade" => Leaf::Handmade,
            "learned" => {
                let mut w = LearnedWeights::new();
                for (nplayers, rows) in learned_weights.unwrap_or_default() {
                    w.set(nplayers, &rows).map_err(PyValueError::new_err)?;
                }
                Leaf::Learned(w)
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown leaf estimate {other:?}: choose one of handmade, learned"
                )))
            }
        };
        let weights = match category_weights {
            None => None,
            Some(map) => {
                let mut cw = CategoryWeights::new();
                for (name, per_side) in &map {
                    if per_side.len() < nsides as usize || per_side.len() > MAX_SEATS {
                        return Err(PyValueError::new_err(format!(
                            "category weight {name:?}: {} weights for {nsides} sides",
                            per_side.len()
                        )));
                    }
                    cw.set(name, per_side); // a name that is no category is never looked up
                }
                Some(cw)
            }
        };
        let rules = &rules.get().rules;
        Ok(PyEvaluator {
            ev: Evaluator::new(rules, nsides, root_side, leaf, final_value, weights),
        })
    }

    /// `Evaluator.final`: the exact value of a played-out round.
    #[pyo3(name = "final")]
    fn final_(&self, state: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.ev.final_value(&self.state(state)?))
    }

    /// `Evaluator.leaf`: the estimate where the search stops.
    fn leaf(&self, state: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.ev.leaf(&self.state(state)?))
    }

    /// `Evaluator.parts`: the value by scoring category, as margins of the root side.
    fn parts<'py>(&self, py: Python<'py>, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let margins = self.ev.parts(&self.state(state)?);
        let out = PyDict::new(py);
        for (name, v) in margins.iter() {
            out.set_item(name, v)?;
        }
        Ok(out)
    }
}

/// `leaf.final_points`: round points per side of a played-out round.
#[pyfunction]
fn final_points(rules: &Bound<'_, PyRules>, state: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let s = state_from_py(state)?;
    let pts = leaf::final_points(&rules.get().rules, &s);
    Ok(pts[..s.nsides as usize].to_vec())
}

/// `leaf.majority_odds`: (P(each side ends with strictly the most), P(a tie for the most)).
#[pyfunction]
fn majority_odds(counts: Vec<u32>, remaining: u32) -> PyResult<(Vec<f64>, f64)> {
    let n = counts.len();
    if !(2..=MAX_SEATS).contains(&n) || counts.iter().map(|&c| c as u64).sum::<u64>() + remaining as u64 > 52
    {
        return Err(PyValueError::new_err(format!(
            "majority odds of {n} sides, {remaining} items to come"
        )));
    }
    let (wins, tie) = MajorityOdds::new(n).odds(&counts, remaining);
    Ok((wins[..n].to_vec(), tie))
}

/// Add the leaf evaluator's class and functions to `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEvaluator>()?;
    m.add_function(wrap_pyfunction!(final_points, m)?)?;
    m.add_function(wrap_pyfunction!(majority_odds, m)?)?;
    Ok(())
}
