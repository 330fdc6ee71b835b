//! The bindings of the game chances (`search::chances`): `_core.GameTable`, a shipped table of two
//! sides, `_core.WorldChances`, the chances of one decision's outcomes with what they share, and
//! `_core.GameFinal`, the chance to win the game at the end of a round (the final value of a
//! `_core.Evaluator` for the last deal solved for the game), for
//! `casino_coach/search/native_chances.py`. One call values every world of one move.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::race::PyRaceOutcomes;
use super::{guarded, state_from_py, PyRules};
use crate::engine::cards::ACES_COUNT_OUT;
use crate::search::chances::{
    GameFinal, GameTable, Outcome, WorldChances, ACES, BIG, CARDS, LAST, LITTLE, SPADES,
};
use crate::search::leaf::{CATEGORY_NAMES, NUM_CATEGORIES};
use crate::search::race;

/// A table of the chances of two sides (`chances.GameTable`).
#[pyclass(name = "GameTable", module = "casino_coach._core", frozen)]
pub struct PyGameTable {
    table: Arc<GameTable>,
}

#[pymethods]
impl PyGameTable {
    /// The table of `rules` (a `_core.Rules`) from its chances (one pair per dealer's side, then
    /// score of side 0, then score of side 1, each 0..target).
    #[new]
    fn new(rules: &Bound<'_, PyRules>, chances: Vec<(f64, f64)>) -> PyResult<Self> {
        let chances = chances.into_iter().map(|(a, b)| [a, b]).collect();
        let table = GameTable::new(rules.get().rules.clone(), chances).map_err(PyValueError::new_err)?;
        Ok(PyGameTable {
            table: Arc::new(table),
        })
    }

    /// `GameTable.at(scores, dealer_side)`, for the tests.
    fn at(&self, scores: (f64, f64), dealer_side: usize) -> (f64, f64) {
        let [a, b] = self.table.at([scores.0, scores.1], dealer_side);
        (a, b)
    }
}

/// The chances of one decision's outcomes (`chances.world_chances` with its memo): made from the
/// table, the game score the round started at, the sweeps made so far, the mover's side and the
/// next dealer's side.
#[pyclass(name = "WorldChances", module = "casino_coach._core")]
pub struct PyWorldChances {
    chances: WorldChances,
    /// The parts' keys, in the order of `search::chances`' categories.
    keys: Vec<Py<PyString>>,
    /// Per scoring category of a race's outcome kept in the core (`leaf::CATEGORY_NAMES`), its
    /// slot among the parts' keys (None: a category the chances do not read, the sweeps').
    slots: [Option<usize>; NUM_CATEGORIES],
}

impl PyWorldChances {
    /// A race's outcome (`RaceOutcomes`) as `outcome_from_py` reads the `Outcome` Python makes of it.
    fn outcome_of_race(&self, o: &race::Outcome) -> PyResult<Outcome> {
        let mut values = [None; 9];
        for (key, v) in o.parts.indexed() {
            if let Some(slot) = self.slots[key] {
                values[slot] = Some(v);
            }
        }
        let &[a, b] = o.sweeps.as_slice() else {
            return Err(PyValueError::new_err(
                "an outcome's sweeps of more than two sides",
            ));
        };
        Ok(Outcome {
            parts: values,
            sweeps: [a, b],
            end: o.end,
        })
    }

    /// The mover's chance after each outcome read (None: NaN), and NaN past them up to `nworlds`.
    fn chances_of(&mut self, read: &[Option<Outcome>], nworlds: usize) -> PyResult<Vec<f64>> {
        let chances = &mut self.chances;
        guarded(|| {
            let mut out = vec![f64::NAN; nworlds];
            for (slot, o) in out.iter_mut().zip(read) {
                if let Some(o) = o {
                    *slot = chances.chance(o);
                }
            }
            out
        })
    }
}

fn outcome_from_py(o: &Bound<'_, PyAny>, keys: &[Py<PyString>]) -> PyResult<Outcome> {
    let py = o.py();
    let parts = o.getattr(intern!(py, "parts"))?;
    let parts = parts.cast::<PyDict>()?;
    let mut values = [None; 9];
    for (slot, key) in values.iter_mut().zip(keys) {
        if let Some(v) = parts.get_item(key.bind(py))? {
            *slot = Some(v.extract::<f64>()?);
        }
    }
    let (a, b): (i64, i64) = o.getattr(intern!(py, "sweeps"))?.extract()?;
    let end: bool = o.getattr(intern!(py, "end"))?.extract()?;
    Ok(Outcome {
        parts: values,
        sweeps: [a, b],
        end,
    })
}

#[pymethods]
impl PyWorldChances {
    #[new]
    fn new(
        py: Python<'_>,
        table: &Bound<'_, PyGameTable>,
        scores: (f64, f64),
        sweeps: (i64, i64),
        side: u8,
        next_dealer: usize,
    ) -> Self {
        let mut names = vec![String::new(); 9];
        names[CARDS] = "cards".into();
        names[SPADES] = "spades".into();
        names[BIG] = "big".into();
        names[LITTLE] = "little".into();
        for (&slot, &ace) in ACES.iter().zip(&ACES_COUNT_OUT) {
            names[slot] = format!("ace{ace}");
        }
        names[LAST] = "last".into();
        PyWorldChances {
            chances: WorldChances::new(
                GameTable::clone(&table.get().table),
                [scores.0, scores.1],
                [sweeps.0, sweeps.1],
                side,
                next_dealer,
            ),
            keys: names.iter().map(|n| PyString::new(py, n).unbind()).collect(),
            slots: CATEGORY_NAMES.map(|c| names.iter().position(|n| n == c)),
        }
    }

    /// The mover's chance after each of the first `nworlds` of `outcomes` (`result.Outcome`s, None
    /// where the move was not searched: NaN), as `world_chances`' loop gives them.
    fn chances(&mut self, outcomes: &Bound<'_, PyAny>, nworlds: usize) -> PyResult<Vec<f64>> {
        let mut read = Vec::with_capacity(nworlds);
        for o in outcomes.try_iter()?.take(nworlds) {
            let o = o?;
            read.push(if o.is_none() {
                None
            } else {
                Some(outcome_from_py(&o, &self.keys)?)
            });
        }
        self.chances_of(&read, nworlds)
    }

    /// `chances` of the first `nworlds` of move `mv`'s outcomes in a race kept in the core
    /// (`native_race.LazyOutcomes`), without making Python's `Outcome`s of them.
    fn race_chances(
        &mut self,
        race: &Bound<'_, PyRaceOutcomes>,
        mv: usize,
        nworlds: usize,
    ) -> PyResult<Vec<f64>> {
        let read = race.get().of_move(mv)?.iter().take(nworlds);
        let read = read
            .map(|o| o.as_ref().map(|o| self.outcome_of_race(o)).transpose())
            .collect::<PyResult<Vec<_>>>()?;
        self.chances_of(&read, nworlds)
    }
}

/// The chance of one side to win the game once a round is played out (`chances.game_final`): the
/// final value of a `_core.Evaluator` (and so of a `_core.Solver`) for the last deal solved for the
/// game, computed in the core.
#[pyclass(name = "GameFinal", module = "casino_coach._core", frozen)]
pub struct PyGameFinal {
    pub(crate) game: GameFinal,
}

#[pymethods]
impl PyGameFinal {
    /// As `game_final(table, scores, dealer, side)`: for `side`, in a round dealt by seat `dealer`
    /// from the game score `scores` (per side).
    #[new]
    fn new(table: &Bound<'_, PyGameTable>, scores: (f64, f64), dealer: usize, side: usize) -> PyResult<Self> {
        if side > 1 || !scores.0.is_finite() || !scores.1.is_finite() {
            return Err(PyValueError::new_err(format!(
                "the chance to win the game of side {side} from the score {scores:?}"
            )));
        }
        Ok(PyGameFinal {
            game: GameFinal::new(table.get().table.clone(), [scores.0, scores.1], dealer, side),
        })
    }

    /// The chance of the side once the round ends as `state` (played out, two sides; any other
    /// state of two sides is valued by what its piles hold, as the reference values it).
    fn __call__(&self, state: &Bound<'_, PyAny>) -> PyResult<f64> {
        let s = state_from_py(state)?;
        if s.nsides != 2 {
            return Err(PyValueError::new_err(format!(
                "the chance to win the game after a round of two sides, not {}",
                s.nsides
            )));
        }
        guarded(|| self.game.value(&s))
    }
}

/// Adds these classes to the module `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGameTable>()?;
    m.add_class::<PyWorldChances>()?;
    m.add_class::<PyGameFinal>()?;
    Ok(())
}
