//! The Python module `casino_coach._core`: thin PyO3 wrappers over the Rust core, and the
//! conversions between Python's values (`RuleSet`, `RoundState`) and the core's.
//!
//! Every function here is called once per decision, per batch of worlds or per test case, never
//! once per search node. A bad value from Python is a `ValueError` with one line, never a panic.

mod chances;
mod inference;
mod leaf;
mod movegen;
mod race;
mod solver;
mod worlds;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyTuple, PyType};

use crate::engine::rules::*;
use crate::engine::state::{Build, Builds, State, MAX_BUILDS, MAX_SEATS};

create_exception!(
    _core,
    CoreFault,
    PyException,
    "The native core failed inside (a panic): a bug, reported as one line, never a crashed interpreter."
);

/// Run `f`, turning a panic inside it into a `CoreFault` whose text is the panic's message (the
/// default hook's report on stderr is silenced at import: the message travels in the exception).
/// Whatever `f` was changing may be half changed: the caller drops it.
pub fn guarded<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("a panic without a message");
        let line = text.lines().next().unwrap_or_default();
        CoreFault::new_err(format!("the native core failed: {line}"))
    })
}

/// A panic on purpose, for the test that a fault inside the core is one line in Python.
#[pyfunction]
fn fault_for_tests() -> PyResult<()> {
    guarded(|| panic!("a fault made on purpose\nsecond line"))
}

/// A rule set of the core, made once from a checked `casino_coach.engine.rules.RuleSet`.
#[pyclass(name = "Rules", module = "casino_coach._core", frozen)]
pub struct PyRules {
    pub rules: Rules,
}

fn choice<T>(obj: &Bound<'_, PyAny>, name: &str, parse: fn(&str) -> Option<T>) -> PyResult<T> {
    let text: String = obj.getattr(name)?.extract()?;
    parse(&text)
        .ok_or_else(|| PyValueError::new_err(format!("rule option '{name}': unknown choice {text:?}")))
}

fn flag(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    obj.getattr(name)?.extract()
}

fn points(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
    obj.getattr(name)?.extract()
}

#[pymethods]
impl PyRules {
    /// The core's copy of `ruleset` (a `RuleSet`), read option by option.
    #[new]
    fn new(ruleset: &Bound<'_, PyAny>) -> PyResult<Self> {
        let o = ruleset;
        let order: Vec<String> = o.getattr("count_out_order")?.extract()?;
        if order.len() != 6 {
            return Err(PyValueError::new_err(
                "rule option 'count_out_order' must list 6 items",
            ));
        }
        let mut count_out_order = [CountOutItem::Cards; 6];
        for (slot, text) in count_out_order.iter_mut().zip(&order) {
            *slot = CountOutItem::parse(text)
                .ok_or_else(|| PyValueError::new_err(format!("count_out_order: unknown item {text:?}")))?;
        }
        let mut rules = Rules {
            partnerships: flag(o, "partnerships")?,
            deal_pattern: choice(o, "deal_pattern", DealPattern::parse)?,
            direction: choice(o, "direction", Direction::parse)?,
            announce_last_deal: flag(o, "announce_last_deal")?,
            first_dealer: choice(o, "first_dealer", FirstDealer::parse)?,
            face_cards: choice(o, "face_cards", FaceCards::parse)?,
            ace_value: choice(o, "ace_value", AceValue::parse)?,
            ace_singleton_set_in_build: flag(o, "ace_singleton_set_in_build")?,
            court_pairing_count: choice(o, "court_pairing_count", CourtPairingCount::parse)?,
            trail_restriction: choice(o, "trail_restriction", TrailRestriction::parse)?,
            equal_loose_capture: choice(o, "equal_loose_capture", EqualLooseCapture::parse)?,
            equal_loose_build_ok: flag(o, "equal_loose_build_ok")?,
            build_as_card_in_sums: flag(o, "build_as_card_in_sums")?,
            false_build: choice(o, "false_build", FalseBuild::parse)?,
            raise_own_build: flag(o, "raise_own_build")?,
            partner_build_interaction: choice(
                o,
                "partner_build_interaction",
                PartnerBuildInteraction::parse,
            )?,
            build_for_partner: choice(o, "build_for_partner", BuildForPartner::parse)?,
            table_cards_in_raise: choice(o, "table_cards_in_raise", TableCardsInRaise::parse)?,
            table_only_builds: flag(o, "table_only_builds")?,
            allow_duplicate_value_builds: flag(o, "allow_duplicate_value_builds")?,
            multi_set_build_creation: flag(o, "multi_set_build_creation")?,
            merge_builds: flag(o, "merge_builds")?,
            owner_may_trail: flag(o, "owner_may_trail")?,
            court_builds: flag(o, "court_builds")?,
            sweeps: flag(o, "sweeps")?,
            sweep_cancellation: flag(o, "sweep_cancellation")?,
            sweep_cancellation_3p: choice(o, "sweep_cancellation_3p", SweepCancellation3p::parse)?,
            final_capture_can_sweep: flag(o, "final_capture_can_sweep")?,
            last_capture_takes_table: flag(o, "last_capture_takes_table")?,
            last_capture_point: points(o, "last_capture_point")?,
            residue_if_no_capture: choice(o, "residue_if_no_capture", ResidueIfNoCapture::parse)?,
            near_target_20: choice(o, "near_target_20", NearTarget20::parse)?,
            near_target_rules: choice(o, "near_target_rules", NearTargetRules::parse)?,
            near_target_mode: choice(o, "near_target_mode", NearTargetMode::parse)?,
            near_target_precedence: choice(o, "near_target_precedence", NearTargetPrecedence::parse)?,
            majority_tie: choice(o, "majority_tie", MajorityTie::parse)?,
            count_out: flag(o, "count_out")?,
            equal_at_target: choice(o, "equal_at_target", EqualAtTarget::parse)?,
            count_out_order,
            target: points(o, "target")?,
            points_cards: points(o, "points_cards")?,
            points_spades: points(o, "points_spades")?,
            points_big: points(o, "points_big")?,
            points_little: points(o, "points_little")?,
            points_ace: points(o, "points_ace")?,
            points_sweep: points(o, "points_sweep")?,
            claim_during_play: flag(o, "claim_during_play")?,
            ..Rules::classic()
        };
        rules.derive();
        Ok(PyRules { rules })
    }

    /// The derived tables, for the tests: (max_build, build_value, pair_value, capture_masks,
    /// simple_tables).
    fn tables(&self) -> (u8, Vec<u32>, Vec<u32>, Vec<u32>, bool) {
        let r = &self.rules;
        (
            r.max_build,
            r.build_value.iter().map(|&v| v as u32).collect(),
            r.pair_value.iter().map(|&v| v as u32).collect(),
            r.capture_masks.to_vec(),
            r.simple_tables,
        )
    }
}

/// A `RoundState` as Python's tuple: (hands, loose, builds, captured, sweeps, to_move,
/// last_capturer, stock, more, dealer, nsides, set_aside), builds as (cards, value, owner, multiple).
type StateTuple = (
    Vec<u64>,
    u64,
    Vec<(u64, u8, u8, bool)>,
    Vec<u64>,
    Vec<u32>,
    u8,
    i8,
    u64,
    bool,
    u8,
    u8,
    u64,
);

/// The core's state of a Python `RoundState`; a `ValueError` for what the core cannot hold.
pub fn state_from_py(obj: &Bound<'_, PyAny>) -> PyResult<State> {
    let (
        hands,
        loose,
        builds,
        captured,
        sweeps,
        to_move,
        last,
        stock,
        more,
        dealer,
        nsides,
        set_aside,
    ): StateTuple = obj.extract()?;
    let n = hands.len();
    if !(2..=MAX_SEATS).contains(&n) || nsides == 0 || nsides as usize > n {
        return Err(PyValueError::new_err(format!(
            "a state of {n} seats and {nsides} sides"
        )));
    }
    if captured.len() != nsides as usize || sweeps.len() != nsides as usize {
        return Err(PyValueError::new_err(
            "a state's capture piles and sweeps are one per side",
        ));
    }
    if to_move as usize >= n || dealer as usize >= n || last < -1 || last >= nsides as i8 {
        return Err(PyValueError::new_err("a state's seat or side out of range"));
    }
    let list: Vec<Build> = builds
        .iter()
        .map(|&(cards, value, owner, multiple)| Build {
            cards,
            value,
            owner,
            multiple,
        })
        .collect();
    let builds = Builds::from_slice(&list).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{} builds on the table: the native core holds at most {MAX_BUILDS}",
            list.len()
        ))
    })?;
    let mut s = State {
        hands: [0; MAX_SEATS],
        nplayers: n as u8,
        loose,
        builds,
        captured: [0; MAX_SEATS],
        sweeps: [0; MAX_SEATS],
        to_move,
        last_capturer: last,
        stock,
        more,
        dealer,
        nsides,
        set_aside,
    };
    s.hands[..n].copy_from_slice(&hands);
    s.captured[..nsides as usize].copy_from_slice(&captured);
    s.sweeps[..nsides as usize].copy_from_slice(&sweeps);
    if !s.places_disjoint() {
        return Err(PyValueError::new_err("a card in two places of a state"));
    }
    Ok(s)
}

/// The tuple of `state` that `casino_coach.engine.state.RoundState` is made from (builds as
/// plain tuples; the Python side makes them `Build`s).
pub fn state_to_py<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyTuple>> {
    let n = s.nplayers as usize;
    let k = s.nsides as usize;
    let builds: Vec<(u64, u8, u8, bool)> = s
        .builds
        .as_slice()
        .iter()
        .map(|b| (b.cards, b.value, b.owner, b.multiple))
        .collect();
    (
        PyTuple::new(py, &s.hands[..n])?,
        s.loose,
        PyTuple::new(py, builds)?,
        PyTuple::new(py, &s.captured[..k])?,
        PyTuple::new(py, &s.sweeps[..k])?,
        s.to_move,
        s.last_capturer,
        s.stock,
        s.more,
        s.dealer,
        s.nsides,
        s.set_aside,
    )
        .into_pyobject(py)
}

/// `repr(tuple(obj))` for a tuple or a `NamedTuple` (`expectimax.decision_seed`'s key: an
/// observation, a move): Python's text to the character. Ints of 64 bits, bools, None, plain tuples
/// of them and `build` NamedTuples (`state.Build`) are written here; anything else by its own
/// `repr`.
#[pyfunction]
fn tuple_repr(obj: &Bound<'_, PyAny>, build: &Bound<'_, PyType>) -> PyResult<String> {
    let t = obj.cast::<PyTuple>()?;
    let mut out = String::with_capacity(256);
    write_tuple(&mut out, t, build)?;
    Ok(out)
}

/// `build`'s fields, in the order its `repr` writes them.
const BUILD_FIELDS: [&str; 4] = ["cards=", "value=", "owner=", "multiple="];

fn write_tuple(out: &mut String, t: &Bound<'_, PyTuple>, build: &Bound<'_, PyType>) -> PyResult<()> {
    out.push('(');
    for (i, item) in t.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, &item, build)?;
    }
    if t.len() == 1 {
        out.push(',');
    }
    out.push(')');
    Ok(())
}

fn write_repr(out: &mut String, item: &Bound<'_, PyAny>, build: &Bound<'_, PyType>) -> PyResult<()> {
    use std::fmt::Write;
    if item.is_exact_instance_of::<PyInt>() {
        if let Ok(v) = item.extract::<i64>() {
            let _ = write!(out, "{v}");
            return Ok(());
        }
    } else if item.is_exact_instance_of::<PyBool>() {
        out.push_str(if item.is_truthy()? { "True" } else { "False" });
        return Ok(());
    } else if item.is_none() {
        out.push_str("None");
        return Ok(());
    } else if let Ok(t) = item.cast_exact::<PyTuple>() {
        return write_tuple(out, t, build);
    } else if item.get_type().is(build) {
        let t = item.cast::<PyTuple>()?;
        if t.len() == BUILD_FIELDS.len() {
            out.push_str("Build(");
            for (i, (name, field)) in BUILD_FIELDS.iter().zip(t.iter()).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(name);
                write_repr(out, &field, build)?;
            }
            out.push(')');
            return Ok(());
        }
    }
    out.push_str(item.repr()?.to_str()?);
    Ok(())
}

/// A state through the core and back, for the tests of the conversions.
#[pyfunction]
fn state_round_trip<'py>(py: Python<'py>, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    state_to_py(py, &state_from_py(state)?)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    std::panic::set_hook(Box::new(|_| {}));
    m.add("CoreFault", m.py().get_type::<CoreFault>())?;
    m.add_function(wrap_pyfunction!(fault_for_tests, m)?)?;
    m.add("MAX_BUILDS", MAX_BUILDS)?;
    m.add_class::<PyRules>()?;
    m.add_function(wrap_pyfunction!(state_round_trip, m)?)?;
    m.add_function(wrap_pyfunction!(tuple_repr, m)?)?;
    movegen::register(m)?;
    leaf::register(m)?;
    solver::register(m)?;
    worlds::register(m)?;
    inference::register(m)?;
    chances::register(m)?;
    race::register(m)?;
    Ok(())
}
