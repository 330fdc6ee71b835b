//! The bindings of the worlds (`search::worlds`) and of CPython's generator (`engine::rng`), for
//! `casino_coach/search/native_worlds.py` and the differential tests. Observations cross as Python's
//! `Observation` tuples, worlds as `World` tuples `(hands, stock, gone, probability)`.
//!
//! What the reference raises as `SearchError` is `_core.WorldsError`, with the reference's message;
//! an observation the core cannot take is a `ValueError` (the Python side then runs the reference);
//! a fault inside the core is a `CoreFault` (`guarded`).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use super::{guarded, state_to_py, PyRules};
use crate::engine::cards::FULL_DECK;
use crate::engine::observation::Observation;
use crate::engine::rng::Random;
use crate::engine::rules::Rules;
use crate::engine::state::{Build, Builds, MAX_BUILDS, MAX_SEATS};
use crate::search::worlds::{self, BalancedPasses, Canon, World, WorldsError as Failure};

create_exception!(
    _core,
    WorldsError,
    PyException,
    "What casino_coach.search.worlds raises as SearchError, with its message."
);

pub(super) fn raised(e: Failure) -> PyErr {
    WorldsError::new_err(e.0)
}

fn bad(what: &str) -> PyErr {
    PyValueError::new_err(format!("not an observation the native core takes: {what}"))
}

fn item<'py, T: for<'a> FromPyObject<'a, 'py>>(t: &Bound<'py, PyTuple>, i: usize, name: &str) -> PyResult<T> {
    t.get_item(i)?.extract::<T>().map_err(|_| bad(name))
}

/// The core's observation of a Python `Observation` (its 15 fields, in order); a `ValueError` for
/// one the core cannot hold (more than 4 seats or 16 builds, a mask past the 52 cards, counts past
/// the pack, a seat or side out of range).
pub fn observation_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Observation> {
    let t = obj.cast::<PyTuple>().map_err(|_| bad("not a tuple"))?;
    if t.len() != 15 {
        return Err(bad("not 15 fields"));
    }
    let seat: u8 = item(t, 0, "seat")?;
    let hand: u64 = item(t, 1, "hand")?;
    let loose: u64 = item(t, 2, "loose")?;
    let builds: Vec<(u64, u8, u8, bool)> = item(t, 3, "builds")?;
    let captured: Vec<u64> = item(t, 4, "captured")?;
    let sweeps: Vec<u32> = item(t, 5, "sweeps")?;
    let to_move: u8 = item(t, 6, "to_move")?;
    let last_capturer: i8 = item(t, 7, "last_capturer")?;
    let dealer: u8 = item(t, 8, "dealer")?;
    let nsides: u8 = item(t, 9, "nsides")?;
    let hand_sizes: Vec<u32> = item(t, 10, "hand_sizes")?;
    let stock_count: u32 = item(t, 11, "stock_count")?;
    let unseen: u64 = item(t, 12, "unseen")?;
    let known: Vec<u64> = item(t, 13, "known")?;
    let set_aside: u64 = item(t, 14, "set_aside")?;
    let n = hand_sizes.len();
    if !(2..=MAX_SEATS).contains(&n) || known.len() != n {
        return Err(bad("hand sizes and known hands for 2 to 4 seats"));
    }
    if nsides == 0
        || nsides as usize > n
        || captured.len() != nsides as usize
        || sweeps.len() != nsides as usize
    {
        return Err(bad("sides"));
    }
    let nseats = n as u8;
    if seat >= nseats
        || to_move >= nseats
        || dealer >= nseats
        || last_capturer < -1
        || last_capturer >= nsides as i8
    {
        return Err(bad("a seat or side out of range"));
    }
    if hand_sizes.iter().any(|&k| k > 52) || stock_count > 52 {
        return Err(bad("counts past the pack"));
    }
    let mut all = hand | loose | unseen | set_aside;
    for &m in captured.iter().chain(&known) {
        all |= m;
    }
    let list: Vec<Build> = builds
        .iter()
        .map(|&(cards, value, owner, multiple)| {
            all |= cards;
            Build {
                cards,
                value,
                owner,
                multiple,
            }
        })
        .collect();
    if all & !FULL_DECK != 0 || list.iter().any(|b| b.value >= 64) {
        return Err(bad("a card mask past the 52 cards, or a build's value past 63"));
    }
    let builds = Builds::from_slice(&list).ok_or_else(|| bad(&format!("more than {MAX_BUILDS} builds")))?;
    let mut obs = Observation {
        seat,
        hand,
        loose,
        builds,
        captured: [0; MAX_SEATS],
        sweeps: [0; MAX_SEATS],
        to_move,
        last_capturer,
        dealer,
        nsides,
        nplayers: nseats,
        hand_sizes: [0; MAX_SEATS],
        stock_count,
        unseen,
        known: [0; MAX_SEATS],
        set_aside,
    };
    obs.captured[..nsides as usize].copy_from_slice(&captured);
    obs.sweeps[..nsides as usize].copy_from_slice(&sweeps);
    obs.hand_sizes[..n].copy_from_slice(&hand_sizes);
    obs.known[..n].copy_from_slice(&known);
    Ok(obs)
}

/// A world as the tuple `casino_coach.search.worlds.World` is made from.
pub(super) fn world_to_py<'py>(py: Python<'py>, w: &World, nplayers: usize) -> PyResult<Bound<'py, PyTuple>> {
    (
        PyTuple::new(py, &w.hands[..nplayers])?,
        w.stock,
        w.gone,
        w.probability,
    )
        .into_pyobject(py)
}

fn world_from_py(obj: &Bound<'_, PyAny>, nplayers: usize) -> PyResult<World> {
    let (hands, stock, gone, probability): (Vec<u64>, u64, u64, f64) = obj.extract()?;
    if hands.len() != nplayers {
        return Err(PyValueError::new_err(format!(
            "a world of {} hands for an observation of {nplayers} seats",
            hands.len()
        )));
    }
    let mut w = World {
        hands: [0; MAX_SEATS],
        stock,
        gone,
        probability,
    };
    w.hands[..nplayers].copy_from_slice(&hands);
    Ok(w)
}

fn worlds_to_py<'py>(py: Python<'py>, ws: &[World], nplayers: usize) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for w in ws {
        list.append(world_to_py(py, w, nplayers)?)?;
    }
    Ok(list)
}

/// `worlds.slots(obs)` as (free, per_seat, stock, gone).
#[pyfunction]
fn slots(obs: &Bound<'_, PyAny>) -> PyResult<(u64, Vec<u32>, u32, u32)> {
    let o = observation_from_py(obs)?;
    let sl = guarded(|| worlds::slots(&o))?.map_err(raised)?;
    Ok((sl.free, sl.per_seat[..o.nplayers()].to_vec(), sl.stock, sl.gone))
}

/// `worlds._must_hold(rules, obs)` as (seat, capture values, lowest first).
#[pyfunction]
fn must_hold(obs: &Bound<'_, PyAny>) -> PyResult<Vec<(usize, Vec<u32>)>> {
    let o = observation_from_py(obs)?;
    Ok(worlds::must_hold(&o)
        .into_iter()
        .map(|(s, v)| (s, (0..64).filter(|b| v & (1 << b) != 0).collect()))
        .collect())
}

/// `worlds.count_worlds(obs)`.
#[pyfunction]
fn count_worlds(obs: &Bound<'_, PyAny>) -> PyResult<u128> {
    let o = observation_from_py(obs)?;
    guarded(|| worlds::count_worlds(&o))?.map_err(raised)
}

/// `worlds.count_classes(obs, limit)`.
#[pyfunction]
fn count_classes(py: Python<'_>, obs: &Bound<'_, PyAny>, limit: i64) -> PyResult<u64> {
    let o = observation_from_py(obs)?;
    py.detach(move || guarded(|| worlds::count_classes(&o, limit)))?
        .map_err(raised)
}

/// `worlds.enumerate_worlds(rules, obs)` as World tuples.
#[pyfunction]
fn enumerate_worlds<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyRules>,
    obs: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let o = observation_from_py(obs)?;
    let ws = guarded(|| worlds::enumerate_worlds(&rules.get().rules, &o))?.map_err(raised)?;
    worlds_to_py(py, &ws, o.nplayers())
}

/// `worlds.world_classes(rules, obs)` as World tuples.
#[pyfunction]
fn world_classes<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyRules>,
    obs: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let o = observation_from_py(obs)?;
    let ws = guarded(|| worlds::world_classes(&rules.get().rules, &o))?.map_err(raised)?;
    worlds_to_py(py, &ws, o.nplayers())
}

/// `worlds.world_state(obs, world)` as a state tuple (builds as plain tuples).
#[pyfunction]
fn world_state<'py>(
    py: Python<'py>,
    obs: &Bound<'py, PyAny>,
    world: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let o = observation_from_py(obs)?;
    let w = world_from_py(world, o.nplayers())?;
    state_to_py(py, &worlds::world_state(&o, &w))
}

/// `worlds.Canon.of(obs)`: maps a world to the canonical world of its class.
#[pyclass(name = "Canon", module = "casino_coach._core", frozen)]
pub struct PyCanon {
    canon: Canon,
    nplayers: usize,
}

#[pymethods]
impl PyCanon {
    #[new]
    fn new(obs: &Bound<'_, PyAny>) -> PyResult<Self> {
        let o = observation_from_py(obs)?;
        let canon = guarded(|| Canon::of(&o))?.map_err(raised)?;
        Ok(PyCanon {
            canon,
            nplayers: o.nplayers(),
        })
    }

    /// `Canon.groups`: per group of two or more free twins, its cards, lowest first.
    #[getter]
    fn groups(&self) -> Vec<Vec<u8>> {
        self.canon.groups.clone()
    }

    /// `Canon.world(world)` as a World tuple.
    fn world<'py>(&self, py: Python<'py>, world: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
        let w = world_from_py(world, self.nplayers)?;
        world_to_py(py, &self.canon.world(&w, self.nplayers), self.nplayers)
    }
}

/// CPython's `random.Random`, draw for draw (`engine::rng`): made from the same int seed, or from
/// the state of a Python generator (`random.Random.getstate()`), and giving its state back in that
/// form, so a stream can go on in either.
#[pyclass(name = "Random", module = "casino_coach._core")]
#[derive(Clone)]
pub struct PyRandom {
    pub(super) rng: Random,
}

/// The 32-bit words of `|seed|`, least significant first (CPython's `random_seed`).
fn seed_words(seed: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let n = seed.call_method0("__abs__")?;
    let bits: usize = n.call_method0("bit_length")?.extract()?;
    let nbytes = bits.div_ceil(32).max(1) * 4;
    let bytes: Vec<u8> = n.call_method1("to_bytes", (nbytes, "little"))?.extract()?;
    Ok(bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

fn state_from(state: &Bound<'_, PyAny>) -> PyResult<Random> {
    // `random.Random.getstate()`: (3, the 625 ints of the twister, gauss_next).
    let (version, words, _gauss): (i64, Vec<u32>, Option<f64>) = state.extract()?;
    if version != 3 {
        return Err(PyValueError::new_err(format!(
            "a generator state of version {version}"
        )));
    }
    Random::from_state(&words).ok_or_else(|| PyValueError::new_err("not a Mersenne Twister state"))
}

pub(super) fn state_to<'py>(py: Python<'py>, rng: &Random) -> PyResult<Bound<'py, PyTuple>> {
    (3, PyTuple::new(py, rng.state())?, py.None()).into_pyobject(py)
}

#[pymethods]
impl PyRandom {
    /// `random.Random(seed)` for an int seed.
    #[new]
    fn new(seed: &Bound<'_, PyAny>) -> PyResult<Self> {
        if !seed.is_instance_of::<pyo3::types::PyInt>() {
            return Err(PyValueError::new_err("the native generator takes an int seed"));
        }
        // A seed of 64 bits or fewer (every decision's: `expectimax.decision_seed`) is read at once;
        // a bigger or negative one word by word, as CPython reads it.
        let rng = match seed.extract::<u64>() {
            Ok(small) => Random::new(small),
            Err(_) => Random::from_words(&seed_words(seed)?),
        };
        Ok(PyRandom { rng })
    }

    /// The generator in the state `random.Random.getstate()` gave.
    #[staticmethod]
    fn from_state(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyRandom {
            rng: state_from(state)?,
        })
    }

    /// `random.Random.getstate()` of a Python generator in this one's state.
    fn getstate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        state_to(py, &self.rng)
    }

    /// `getrandbits(k)`.
    fn getrandbits<'py>(&mut self, py: Python<'py>, k: u32) -> PyResult<Bound<'py, PyAny>> {
        let words = self.rng.getrandbits_words(k);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        py.get_type::<pyo3::types::PyInt>()
            .call_method1("from_bytes", (bytes, "little"))
    }

    /// `random()`.
    fn random(&mut self) -> f64 {
        self.rng.random()
    }

    /// `_randbelow(n)`, n > 0.
    fn randbelow(&mut self, n: u64) -> PyResult<u64> {
        if n == 0 {
            return Err(PyValueError::new_err("randbelow(0)"));
        }
        Ok(self.rng.randbelow(n))
    }

    /// `shuffle(items)`, in place.
    fn shuffle(&mut self, items: &Bound<'_, PyList>) -> PyResult<()> {
        let mut order: Vec<usize> = (0..items.len()).collect();
        self.rng.shuffle(&mut order);
        let old: Vec<Bound<'_, PyAny>> = items.iter().collect();
        for (i, &j) in order.iter().enumerate() {
            items.set_item(i, &old[j])?;
        }
        Ok(())
    }

    /// `sample(population, k)` of a list.
    fn sample<'py>(&mut self, population: &Bound<'py, PyList>, k: usize) -> PyResult<Bound<'py, PyList>> {
        let idx: Vec<usize> = (0..population.len()).collect();
        let picks = self
            .rng
            .sample(&idx, k)
            .ok_or_else(|| PyValueError::new_err("Sample larger than population or is negative"))?;
        let out = PyList::empty(population.py());
        for j in picks {
            out.append(population.get_item(j)?)?;
        }
        Ok(out)
    }
}

/// `worlds.sample_world(rules, obs, rng)`, drawing from `rng`.
#[pyfunction]
fn sample_world<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyRules>,
    obs: &Bound<'py, PyAny>,
    rng: &Bound<'py, PyRandom>,
) -> PyResult<Bound<'py, PyTuple>> {
    let o = observation_from_py(obs)?;
    let mut r = rng.borrow_mut();
    let w = guarded(|| worlds::sample_world(&rules.get().rules, &o, &mut r.rng))?.map_err(raised)?;
    world_to_py(py, &w, o.nplayers())
}

/// `worlds.balanced_passes(rules, obs, rng)`: an endless iterator of (world, pass), from its own
/// generator (a copy of `rng`; `getstate` gives its state back). With `canonical`, each world is
/// the canonical world of its class (`Canon.of(obs).world`), as the search takes them by class.
#[pyclass(name = "BalancedPasses", module = "casino_coach._core")]
pub struct PyBalancedPasses {
    rules: Rules,
    passes: BalancedPasses,
    rng: Random,
    canon: Option<Canon>,
    nplayers: usize,
}

impl PyBalancedPasses {
    fn next_pair<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (passes, rules, rng) = (&mut self.passes, &self.rules, &mut self.rng);
        let (mut w, pass) = guarded(|| passes.next_world(rules, rng))?.map_err(raised)?;
        if let Some(canon) = &self.canon {
            w = canon.world(&w, self.nplayers);
        }
        (world_to_py(py, &w, self.nplayers)?, pass).into_pyobject(py)
    }
}

#[pymethods]
impl PyBalancedPasses {
    #[new]
    #[pyo3(signature = (rules, obs, rng, canonical=false))]
    fn new(
        rules: &Bound<'_, PyRules>,
        obs: &Bound<'_, PyAny>,
        rng: &Bound<'_, PyRandom>,
        canonical: bool,
    ) -> PyResult<Self> {
        let o = observation_from_py(obs)?;
        let rules = rules.get().rules.clone();
        // An observation without a Canon has no worlds either: the stream raises on its first.
        let (passes, canon) = guarded(|| {
            let canon = if canonical { Canon::of(&o).ok() } else { None };
            (BalancedPasses::new(&rules, &o), canon)
        })?;
        Ok(PyBalancedPasses {
            passes,
            rules,
            rng: rng.borrow().rng.clone(),
            canon,
            nplayers: o.nplayers(),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.next_pair(py)
    }

    /// The next `n` (world, pass) pairs.
    fn take<'py>(&mut self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for _ in 0..n {
            out.append(self.next_pair(py)?)?;
        }
        Ok(out)
    }

    /// The stream's generator state, as `random.Random.getstate()`.
    fn getstate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        state_to(py, &self.rng)
    }
}

/// Adds these functions and classes to the module `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("WorldsError", m.py().get_type::<WorldsError>())?;
    m.add_function(wrap_pyfunction!(slots, m)?)?;
    m.add_function(wrap_pyfunction!(must_hold, m)?)?;
    m.add_function(wrap_pyfunction!(count_worlds, m)?)?;
    m.add_function(wrap_pyfunction!(count_classes, m)?)?;
    m.add_function(wrap_pyfunction!(enumerate_worlds, m)?)?;
    m.add_function(wrap_pyfunction!(world_classes, m)?)?;
    m.add_function(wrap_pyfunction!(world_state, m)?)?;
    m.add_function(wrap_pyfunction!(sample_world, m)?)?;
    m.add_class::<PyCanon>()?;
    m.add_class::<PyRandom>()?;
    m.add_class::<PyBalancedPasses>()?;
    Ok(())
}
