//! The bindings of the race (`search::race`), for `casino_coach/search/native_race.py`:
//! `_core.DecisionWorlds`, a decision's world stream and the worlds drawn from it, whose `run`
//! races the decision at one depth in one call, with the GIL released.
//!
//! A value the core cannot take is a `ValueError` (the Python side then runs the reference race);
//! what the reference raises as `SearchError` is `_core.WorldsError`; a fault inside the core is a
//! `CoreFault` (`guarded`).

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use super::inference::PyLikelihood;
use super::leaf::PyEvaluator;
use super::movegen::{move_tuple, moves_from, MoveTuple, MAX_BOUND_LOOSE};
use super::worlds::{observation_from_py, raised, state_to, world_to_py, PyRandom};
use super::{guarded, PyRules};
use crate::engine::cards::FULL_DECK;
use crate::engine::movegen::{legal_moves_of, Move};
use crate::engine::observation::Observation;
use crate::engine::rng::Random;
use crate::engine::rules::Rules;
use crate::engine::state::State;
use crate::search::inference::Likelihood;
use crate::search::leaf::CATEGORY_NAMES;
use crate::search::race::{
    self, race_decision, ranked_order, Dealing, Ladder, Race, Stopping, Worlds, MIN_GROUPS, MIN_PAIRED,
    RARE_WORLDS_SPREAD, SETTLE, UNKNOWN_STDERR,
};
use crate::search::solver::{twin_classes, MoveOrder};
use crate::search::worlds::{count_classes, count_worlds, WorldsError};

fn bad(what: &str) -> PyErr {
    PyValueError::new_err(format!("not a race the native core takes: {what}"))
}

/// The likelihood to weigh the worlds by, with its regret scale; a `ValueError` for one with plays of
/// seats the observation does not have.
fn weighing(
    o: &Observation,
    likelihood: Option<&Bound<'_, PyLikelihood>>,
    regret_scale: f64,
) -> PyResult<Option<(Likelihood, f64)>> {
    let weigh = likelihood.map(|lk| (lk.get().likelihood.clone(), regret_scale));
    if weigh.as_ref().is_some_and(|(lk, _)| !lk.fits(o.nplayers())) {
        return Err(bad("a play of a seat past the observation's"));
    }
    Ok(weigh)
}

/// A decision set up: its moves, their twins, and its worlds.
type Decision = (Vec<Move>, Option<Vec<usize>>, Option<Worlds>);

/// `for_decision`'s work: the moves, their twins, and the worlds (None without a move, or with more
/// than `max_moves`).
#[allow(clippy::too_many_arguments)]
fn set_up(
    rules: &Rules,
    o: &Observation,
    seed: u64,
    weight: [i64; 52],
    max_moves: usize,
    exact_worlds: u64,
    classes: bool,
    shuffled_worlds: u64,
    weigh: Option<(Likelihood, f64)>,
    max_draws: i64,
) -> Result<Decision, WorldsError> {
    let o = *o;
    // `as_state(obs, obs.known, obs.stock_count > 0)`: the observer's hand and the cards
    // known to be in the others'.
    let root = State {
        hands: o.known,
        nplayers: o.nplayers,
        loose: o.loose,
        builds: o.builds,
        captured: o.captured,
        sweeps: o.sweeps,
        to_move: o.to_move,
        last_capturer: o.last_capturer,
        stock: 0,
        more: o.stock_count > 0,
        dealer: o.dealer,
        nsides: o.nsides,
        set_aside: o.set_aside,
    };
    let mut moves = Vec::new();
    legal_moves_of(rules, &root, FULL_DECK, &mut moves);
    let order = MoveOrder { weight };
    moves.sort_by_key(|m| order.key(m));
    if moves.is_empty() || moves.len() > max_moves {
        return Ok((moves, None, None));
    }
    let alike = twin_classes(&moves, o.hand, o.loose);
    // `expectimax.dealing`: every world, or class, when there are at most `exact_worlds`
    // (classes only without evidence, `by_class`); else without replacement when there are at most
    // `shuffled_worlds` worlds (`expectimax.shuffled_worlds`) and no evidence; else drawn.
    let by_class = classes && weigh.is_none();
    let enumerate = if by_class {
        let limit = exact_worlds.min(1 << 62) as i64;
        count_classes(&o, limit)? <= exact_worlds
    } else {
        count_worlds(&o)? <= exact_worlds as u128
    };
    let dealing = match (enumerate, weigh) {
        (true, weigh) => Dealing::Enumerate {
            classes: by_class,
            weigh,
        },
        (false, Some(weigh)) => Dealing::Evidence {
            weigh,
            max_draws: max_draws.clamp(0, u32::MAX as i64) as u32,
        },
        (false, None) if 0 < shuffled_worlds && count_worlds(&o)? <= shuffled_worlds as u128 => {
            Dealing::Shuffled { canonical: by_class }
        }
        (false, None) => Dealing::Passes { canonical: by_class },
    };
    let worlds = Worlds::new(rules, &o, Random::new(seed), dealing)?;
    Ok((moves, alike, Some(worlds)))
}

/// The `Dealing` of `expectimax.dealing`'s name for it.
fn dealing_of(name: &str, weigh: Option<(Likelihood, f64)>, max_draws: i64) -> PyResult<Dealing> {
    Ok(match (name, weigh) {
        ("worlds", weigh) => Dealing::Enumerate {
            classes: false,
            weigh,
        },
        ("classes", weigh) => Dealing::Enumerate { classes: true, weigh },
        ("evidence", Some(weigh)) => Dealing::Evidence {
            weigh,
            max_draws: max_draws.clamp(0, u32::MAX as i64) as u32,
        },
        ("shuffled", None) => Dealing::Shuffled { canonical: false },
        ("class-shuffled", None) => Dealing::Shuffled { canonical: true },
        ("passes", None) => Dealing::Passes { canonical: false },
        ("class-passes", None) => Dealing::Passes { canonical: true },
        (other, _) => return Err(bad(&format!("dealing {other:?} with this likelihood"))),
    })
}

/// The worlds of one decision (`expectimax._worlds`): dealt as `dealing` says ("worlds" or
/// "classes": every one, shuffled, weighed by `likelihood` if given; "evidence": drawn in
/// proportion to `likelihood`; "passes" or "class-passes": balanced passes, of canonical worlds
/// for the latter), from `rng` (a copy: `getstate` gives the stream's generator state back).
#[pyclass(name = "DecisionWorlds", module = "casino_coach._core")]
pub struct PyDecisionWorlds {
    worlds: Worlds,
}

#[pymethods]
impl PyDecisionWorlds {
    #[new]
    #[pyo3(signature = (rules, obs, rng, dealing, likelihood=None, regret_scale=3.0, max_draws=64))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        rules: &Bound<'_, PyRules>,
        obs: &Bound<'_, PyAny>,
        rng: &Bound<'_, PyRandom>,
        dealing: &str,
        likelihood: Option<&Bound<'_, PyLikelihood>>,
        regret_scale: f64,
        max_draws: i64,
    ) -> PyResult<Self> {
        let o = observation_from_py(obs)?;
        let weigh = weighing(&o, likelihood, regret_scale)?;
        let dealing = dealing_of(dealing, weigh, max_draws)?;
        let rules = rules.get().rules.clone();
        let rng = rng.borrow().rng.clone();
        let worlds = py
            .detach(move || guarded(|| Worlds::new(&rules, &o, rng, dealing)))?
            .map_err(raised)?;
        Ok(PyDecisionWorlds { worlds })
    }

    /// A decision set up for the core's race in one call (`expectimax._decision`, where the core
    /// races it and no move is in focus): the legal moves of the observer (who must be the seat to
    /// move: `expectimax.root_moves`, its hand and what it knows of the others'), sorted by the
    /// move `order` (52 weights); per move the index of its first twin (`solver.twin_classes`, None
    /// without twins); and the stream of its worlds (as `__new__` makes it from `random.Random(seed)`)
    /// dealt as `expectimax.dealing` chooses at `exact_worlds`, `classes` and `shuffled_worlds`
    /// (`expectimax.shuffled_worlds`: 0 never takes them without replacement), weighed by
    /// `likelihood` when given. The worlds are None when there is no move or more than `max_moves`
    /// (the caller raises as the reference does, before the worlds are counted).
    #[staticmethod]
    #[pyo3(signature = (
        rules, obs, seed, order, max_moves, exact_worlds, classes, shuffled_worlds=0, likelihood=None,
        regret_scale=3.0, max_draws=64
    ))]
    #[allow(clippy::too_many_arguments)]
    fn for_decision(
        py: Python<'_>,
        rules: &Bound<'_, PyRules>,
        obs: &Bound<'_, PyAny>,
        seed: u64,
        order: Vec<i64>,
        max_moves: usize,
        exact_worlds: u64,
        classes: bool,
        shuffled_worlds: u64,
        likelihood: Option<&Bound<'_, PyLikelihood>>,
        regret_scale: f64,
        max_draws: i64,
    ) -> PyResult<SetUp> {
        let o = observation_from_py(obs)?;
        let weight: [i64; 52] = order
            .try_into()
            .map_err(|_| bad("a move order weighs each of 52 cards"))?;
        if o.loose.count_ones() > MAX_BOUND_LOOSE {
            return Err(bad("more loose cards than the core lists the moves of"));
        }
        let weigh = weighing(&o, likelihood, regret_scale)?;
        let rules = rules.get().rules.clone();
        let got = py.detach(move || {
            guarded(|| {
                set_up(
                    &rules,
                    &o,
                    seed,
                    weight,
                    max_moves,
                    exact_worlds,
                    classes,
                    shuffled_worlds,
                    weigh,
                    max_draws,
                )
            })
        })?;
        let (moves, alike, worlds) = got.map_err(raised)?;
        Ok((
            moves.iter().map(move_tuple).collect(),
            alike,
            worlds.map(|worlds| PyDecisionWorlds { worlds }),
        ))
    }

    /// The number of worlds of an enumeration, or of worlds taken without replacement; None for
    /// drawn worlds.
    #[getter]
    fn population(&self) -> Option<usize> {
        self.worlds.population
    }

    /// Whether the worlds are taken without replacement (`expectimax.shuffles`): a race over them
    /// may stop before every one is searched, as over draws.
    #[getter]
    fn shuffled(&self) -> bool {
        self.worlds.shuffled
    }

    /// The stream's generator state, as `random.Random.getstate()`.
    fn getstate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        state_to(py, &self.worlds.rng)
    }

    /// A decision set up and raced in one call, for a caller that only orders the moves (the
    /// `searcher` bot, through `expectimax.best_move`): `for_decision` with its arguments, then the
    /// race of `run` at each of `horizons` in turn (the first going on through a 2-player round's
    /// last deal with `next_deal`) while too few worlds fit in the node budget
    /// (`expectimax._race`: each falling back on those of `fallback` deeper than it, at most `cap`
    /// nodes in all), stopping as `expectimax._decision`'s `Stopping` says with no move in focus
    /// (at most `samples` worlds, or every one of an enumeration). No value per world is handed over,
    /// and no line is read back from the solvers' tables. Returns the moves, and unless there are
    /// none or more than `max_moves`, per move its (ev, stderr) as `Race.results` gives them without
    /// control variates and whether every world searched it (`Race.complete`).
    #[staticmethod]
    #[pyo3(signature = (
        rules, obs, seed, order, max_moves, exact_worlds, classes, shuffled_worlds, likelihood,
        regret_scale, max_draws, evaluator, root_side, nsides, in_hands, horizons, next_deal, fallback,
        budget, cap, samples, min_samples, separation, margin
    ))]
    #[allow(clippy::too_many_arguments)]
    fn rank_decision(
        py: Python<'_>,
        rules: &Bound<'_, PyRules>,
        obs: &Bound<'_, PyAny>,
        seed: u64,
        order: Vec<i64>,
        max_moves: usize,
        exact_worlds: u64,
        classes: bool,
        shuffled_worlds: u64,
        likelihood: Option<&Bound<'_, PyLikelihood>>,
        regret_scale: f64,
        max_draws: i64,
        evaluator: &Bound<'_, PyEvaluator>,
        root_side: u8,
        nsides: u8,
        in_hands: u32,
        horizons: Vec<u32>,
        next_deal: bool,
        fallback: Vec<u32>,
        budget: Option<u64>,
        cap: Option<i64>,
        samples: usize,
        min_samples: usize,
        separation: f64,
        margin: f64,
    ) -> PyResult<Ranked> {
        let o = observation_from_py(obs)?;
        let weight: [i64; 52] = order
            .try_into()
            .map_err(|_| bad("a move order weighs each of 52 cards"))?;
        if o.loose.count_ones() > MAX_BOUND_LOOSE {
            return Err(bad("more loose cards than the core lists the moves of"));
        }
        let ev = evaluator.get().ev.clone();
        if ev.nsides() != nsides as usize || ev.root_side() != root_side as usize || nsides != o.nsides {
            return Err(bad(
                "the evaluator is for other sides than the solver or the observation",
            ));
        }
        if horizons.is_empty() || horizons.iter().any(|&h| h > in_hands) {
            return Err(bad("no horizon, or one past the cards in the hands"));
        }
        let weigh = weighing(&o, likelihood, regret_scale)?;
        let rules = rules.get().rules.clone();
        let got = py.detach(move || {
            guarded(|| -> Result<_, WorldsError> {
                let (moves, alike, worlds) = set_up(
                    &rules,
                    &o,
                    seed,
                    weight,
                    max_moves,
                    exact_worlds,
                    classes,
                    shuffled_worlds,
                    weigh,
                    max_draws,
                )?;
                let Some(mut worlds) = worlds else {
                    return Ok((moves, None));
                };
                let n = moves.len();
                let alike = alike.unwrap_or_else(|| (0..n).collect());
                let population = worlds.population;
                // `_decision`'s `Stopping` without a focus: an enumeration goes through every world,
                // draws race, and so do worlds without replacement, at most every one.
                let every = population.is_some() && !worlds.shuffled;
                let stop = Stopping {
                    samples: match population {
                        Some(p) if every => p,
                        Some(p) => p.min(samples),
                        None => samples,
                    },
                    min_samples,
                    separation,
                    margin,
                    bands: Vec::new(),
                    racing: !every,
                    every,
                    careful: false,
                };
                let floor = min_samples.min(stop.samples);
                let mut nodes: i64 = 0;
                let mut raced = None;
                for (attempt, &horizon) in horizons.iter().enumerate() {
                    // `expectimax._fallback`: the end of the deal first where the search goes on
                    // through the round's last deal.
                    let through = next_deal && attempt == 0;
                    let depths = through
                        .then_some(in_hands)
                        .into_iter()
                        .chain(fallback.iter().copied().filter(|&d| in_hands > horizon + d))
                        .collect();
                    let mut ladder = Ladder::new(
                        &rules,
                        root_side,
                        nsides,
                        horizon,
                        through,
                        in_hands,
                        depths,
                        budget,
                        cap.map(|c| c - nodes),
                        ev.clone(),
                        MoveOrder { weight },
                    );
                    ladder.lines = false;
                    let mut race = Race::new(n, None, &alike);
                    let (done, spent) =
                        race_decision(&mut worlds, &mut ladder, &mut race, &moves, &stop, false)?;
                    nodes += ladder.nodes() as i64;
                    raced = Some(race);
                    // `_shallower`: too few worlds fit in the node budget at this depth.
                    if !(spent && done < floor && attempt < horizons.len() - 1) {
                        break;
                    }
                }
                let mut race = raced.expect("a decision has a horizon");
                let results = race.results(population);
                let complete: Vec<bool> = race
                    .values
                    .iter()
                    .map(|v| v.iter().all(|x| !x.is_nan()))
                    .collect();
                let order = ranked_order(&moves, &results, &complete);
                Ok((moves, Some((results, complete, order))))
            })
        })?;
        let (moves, ranked) = got.map_err(raised)?;
        Ok((moves.iter().map(move_tuple).collect(), ranked))
    }

    /// The control variates' features of the first `n` worlds drawn (`worlds.Holding.row`): per
    /// world, per feature (seat, cards), 1.0 where the seat's hand holds one of the cards, else
    /// 0.0, without making a Python `World` of each (the rows of thousands of worlds were a twentieth
    /// of an analysis).
    fn holding_rows<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        features: Vec<(usize, u64)>,
    ) -> PyResult<Bound<'py, PyList>> {
        if features
            .iter()
            .any(|&(seat, _)| seat >= self.worlds.obs.nplayers())
        {
            return Err(bad("a feature of a seat the worlds do not have"));
        }
        let (one, zero) = (1.0f64.into_pyobject(py)?, 0.0f64.into_pyobject(py)?);
        let out = PyList::empty(py);
        for (w, _, _) in self.worlds.drawn.iter().take(n) {
            let row = features
                .iter()
                .map(|&(seat, cards)| if w.hands[seat] & cards != 0 { &one } else { &zero });
            out.append(PyTuple::new(py, row)?)?;
        }
        Ok(out)
    }

    /// The first `n` worlds drawn, as (World tuple, weight, group).
    fn drawn<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        let nplayers = self.worlds.obs.nplayers();
        for (w, weight, group) in self.worlds.drawn.iter().take(n) {
            out.append((world_to_py(py, w, nplayers)?, *weight, *group))?;
        }
        Ok(out)
    }

    /// The race of the decision at one depth (`race.run_race` with `expectimax._Ladder` and
    /// `_CasinoValuer`) over this stream's worlds, the worlds drawn before first: the solver for
    /// `root_side` of `nsides` with `evaluator` and the move order `order`, stopping at `horizon`
    /// cards (going on through a 2-player round's last deal with `next_deal`, `Solver::next_deal`)
    /// and falling back on `depths` past the node `budget` (at most `cap` in all), values
    /// `moves` (the race's `focus` and per move the index of its kind, `alike`) until the stopping
    /// rule (`race.Stopping`, no deadline) says so. With `detail`, what happens along each line.
    ///
    /// Returns (worlds searched, whether the budget stopped it, nodes, whether shallower, per move
    /// its values per world, the weights, the groups, per move its most frequent line or None,
    /// with `detail` the outcomes (`RaceOutcomes`: per move per world None or an `Outcome`), and
    /// per move its (ev, stderr) as `Race.results` gives them without control variates).
    #[pyo3(signature = (
        evaluator, order, root_side, nsides, horizon, next_deal, in_hands, depths, budget, cap, moves,
        focus, alike, samples, min_samples, separation, margin, bands, racing, every, careful, detail
    ))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        evaluator: &Bound<'py, PyEvaluator>,
        order: Vec<i64>,
        root_side: u8,
        nsides: u8,
        horizon: u32,
        next_deal: bool,
        in_hands: u32,
        depths: Vec<u32>,
        budget: Option<u64>,
        cap: Option<i64>,
        moves: Vec<MoveTuple>,
        focus: Option<usize>,
        alike: Vec<usize>,
        samples: usize,
        min_samples: usize,
        separation: f64,
        margin: f64,
        bands: Vec<f64>,
        racing: bool,
        every: bool,
        careful: bool,
        detail: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let stop = Stopping {
            samples,
            min_samples,
            separation,
            margin,
            bands,
            racing,
            every,
            careful,
        };
        let n = moves.len();
        let Raced {
            done,
            spent,
            nodes,
            shallow,
            race,
            results,
        } = self.race(
            py, evaluator, order, root_side, nsides, horizon, next_deal, in_hands, depths, budget, cap,
            moves, focus, alike, stop, detail,
        )?;
        let lines = PyList::empty(py);
        for i in 0..n {
            match race.best_line(i) {
                Some((line, _)) => lines.append(line.iter().map(move_tuple).collect::<Vec<_>>())?,
                None => lines.append(py.None())?,
            }
        }
        let Race {
            values: per_world,
            weights,
            groups,
            outcomes,
            ..
        } = race;
        let values = PyList::empty(py);
        for v in &per_world {
            values.append(PyList::new(py, v)?)?;
        }
        let outcomes = if detail {
            let kept = PyRaceOutcomes {
                outcomes,
                values: per_world,
            };
            Bound::new(py, kept)?.into_any()
        } else {
            py.None().into_bound(py)
        };
        (
            done, spent, nodes, shallow, values, weights, groups, lines, outcomes, results,
        )
            .into_pyobject(py)
    }
}

/// What `for_decision` returns: the moves, their twins, and the worlds.
type SetUp = (Vec<MoveTuple>, Option<Vec<usize>>, Option<PyDecisionWorlds>);

/// What `rank_decision` returns: the moves, and unless there are none or too many, per move its
/// (ev, stderr) and whether every world searched it, and the moves' indices best first
/// (`ranked_order`, None where a value is not finite).
type Ranked = (
    Vec<MoveTuple>,
    Option<(Vec<(f64, f64)>, Vec<bool>, Option<Vec<usize>>)>,
);

/// What a race of `run` or `rank` came to.
struct Raced {
    done: usize,
    spent: bool,
    nodes: u64,
    shallow: bool,
    race: Race,
    results: Vec<(f64, f64)>,
}

impl PyDecisionWorlds {
    /// The race of `run` (its arguments): what `race_decision` returned, the ladder, the race and
    /// its results without control variates.
    #[allow(clippy::too_many_arguments)]
    fn race(
        &mut self,
        py: Python<'_>,
        evaluator: &Bound<'_, PyEvaluator>,
        order: Vec<i64>,
        root_side: u8,
        nsides: u8,
        horizon: u32,
        next_deal: bool,
        in_hands: u32,
        depths: Vec<u32>,
        budget: Option<u64>,
        cap: Option<i64>,
        moves: Vec<MoveTuple>,
        focus: Option<usize>,
        alike: Vec<usize>,
        stop: Stopping,
        detail: bool,
    ) -> PyResult<Raced> {
        let ev = evaluator.get().ev.clone();
        if ev.nsides() != nsides as usize || ev.root_side() != root_side as usize {
            return Err(bad("the evaluator is for other sides than the solver"));
        }
        let weight: [i64; 52] = order
            .try_into()
            .map_err(|_| bad("a move order weighs each of 52 cards"))?;
        let n = moves.len();
        if n == 0 || alike.len() != n || alike.iter().any(|&k| k >= n) || focus.is_some_and(|f| f >= n) {
            return Err(bad("moves, their kinds and the focus do not match"));
        }
        if depths.iter().any(|&d| d > in_hands) || nsides as usize != self.worlds.obs.nsides as usize {
            return Err(bad(
                "depths past the cards in the hands, or other sides than the observation's",
            ));
        }
        let moves = moves_from(moves);
        let population = self.worlds.population;
        let worlds = &mut self.worlds;
        let (got, ladder, race, results) = py.detach(|| {
            guarded(|| {
                let mut ladder = Ladder::new(
                    worlds.rules(),
                    root_side,
                    nsides,
                    horizon,
                    next_deal,
                    in_hands,
                    depths,
                    budget,
                    cap,
                    ev,
                    MoveOrder { weight },
                );
                let mut race = Race::new(n, focus, &alike);
                let got = race_decision(worlds, &mut ladder, &mut race, &moves, &stop, detail);
                let results = race.results(population);
                (got, ladder, race, results)
            })
        })?;
        let (done, spent) = got.map_err(raised)?;
        Ok(Raced {
            done,
            spent,
            nodes: ladder.nodes(),
            shallow: ladder.shallow,
            race,
            results,
        })
    }
}

/// `result.paired_stats` without control variates: the weighted mean, standard error and count of
/// `diffs` (NaN: not searched) over worlds of `weights`, by `groups` or at an enumeration's
/// `population` (`SearchResult.stats` asks it for each quantity a verdict takes per world).
#[pyfunction]
#[pyo3(signature = (diffs, weights, population=None, groups=None))]
fn paired_stats(
    diffs: Vec<f64>,
    weights: Vec<f64>,
    population: Option<usize>,
    groups: Option<Vec<u64>>,
) -> PyResult<(f64, f64, usize)> {
    let n = diffs.len();
    if weights.len() != n || groups.as_ref().is_some_and(|g| g.len() != n) {
        return Err(bad("values, weights and groups of other lengths"));
    }
    guarded(|| race::paired_stats(&diffs, &weights, population, groups.as_deref()))
}

/// The outcomes of a race run with `detail` (`DecisionWorlds.run`), per move per world None or
/// what happened along the move's line, kept here until Python reads a move's
/// (`native_race.LazyOutcomes`): most verdicts never read them (explanations and the game's
/// chances do, of a few moves), and making a Python `Outcome` of every world's and move's took a
/// tenth of a 2-player analysis.
#[pyclass(name = "RaceOutcomes", module = "casino_coach._core", frozen)]
pub struct PyRaceOutcomes {
    outcomes: Vec<Vec<Option<race::Outcome>>>,
    /// Per move its value in each world, for the outcomes' `other`.
    values: Vec<Vec<f64>>,
}

impl PyRaceOutcomes {
    /// Move `i`'s outcomes per world.
    pub(super) fn of_move(&self, i: usize) -> PyResult<&[Option<race::Outcome>]> {
        self.outcomes
            .get(i)
            .map(Vec::as_slice)
            .ok_or_else(|| PyIndexError::new_err(format!("no move {i} in the race")))
    }
}

#[pymethods]
impl PyRaceOutcomes {
    /// How many worlds move `i` has an outcome or None for.
    fn count(&self, i: usize) -> PyResult<usize> {
        Ok(self.of_move(i)?.len())
    }

    /// Move `i`'s outcomes, per world None or `Outcome`'s fields (parts, other, gained, sweeps,
    /// end), as `outcome_of` makes them: `other` is the world's value less the parts, added in the
    /// dict's order (`plain_sum`).
    fn fields<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (o, &value) in self.of_move(i)?.iter().zip(&self.values[i]) {
            match o {
                None => list.append(py.None())?,
                Some(o) => {
                    let parts = PyDict::new(py);
                    let mut total = 0.0;
                    for (key, v) in o.parts.indexed() {
                        parts.set_item(category_key(py, key), v)?;
                        total += v;
                    }
                    let gained = PyTuple::new(py, &o.gained)?;
                    let sweeps = PyTuple::new(py, &o.sweeps)?;
                    list.append((parts, value - total, gained, sweeps, o.end))?;
                }
            }
        }
        Ok(list)
    }
}

/// The name of scoring category `i` (`leaf::CATEGORY_NAMES`) as a Python string made once, where
/// each outcome's dict made its keys again (half the time of making a move's outcomes).
fn category_key(py: Python<'_>, i: usize) -> &Bound<'_, PyString> {
    let key = match i {
        0 => intern!(py, "cards"),
        1 => intern!(py, "spades"),
        2 => intern!(py, "big"),
        3 => intern!(py, "little"),
        4 => intern!(py, "ace0"),
        5 => intern!(py, "ace1"),
        6 => intern!(py, "ace2"),
        7 => intern!(py, "ace3"),
        8 => intern!(py, "sweeps"),
        _ => intern!(py, "last"),
    };
    debug_assert_eq!(key.to_str().ok(), CATEGORY_NAMES.get(i).copied());
    key
}

/// A fit of control variates (`result.Controls`), made once per `Controls` (`fit`); `stats` is
/// `Controls.stats`, sum for sum as the running Python adds (`compensated`: Python 3.12 and
/// later).
#[pyclass(name = "ControlFit", module = "casino_coach._core", frozen)]
pub struct PyControlFit {
    fit: race::ControlFit,
}

#[pymethods]
impl PyControlFit {
    /// `Controls`'s fit of `rows` (per world, its features; a world at least) on features of
    /// `means` with the ridge `ridge` (`ControlFit::fit`).
    #[staticmethod]
    fn fit(rows: Vec<Vec<f64>>, means: Vec<f64>, ridge: f64, compensated: bool) -> PyResult<Self> {
        let p = means.len();
        if rows.len() <= p + 1 || rows.iter().any(|r| r.len() != p) {
            return Err(bad("control rows of other lengths than the means, or too few"));
        }
        let fit = guarded(|| race::ControlFit::fit(&rows, &means, ridge, compensated))?;
        Ok(PyControlFit { fit })
    }

    /// The fit's parts, as `Controls` keeps them: the weights of the corrected mean, the centred
    /// features by feature, the inverse of the ridge Gram matrix, the centred features by world.
    #[allow(clippy::type_complexity)]
    fn parts(&self) -> (Vec<f64>, Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let f = &self.fit;
        (
            f.mean_weights.clone(),
            f.columns.clone(),
            f.inverse.clone(),
            f.centred.clone(),
        )
    }

    /// The corrected mean, its standard error and the number of worlds of `values` (one per
    /// world), the standard error by `groups` where given (`Controls.stats`).
    #[pyo3(signature = (values, groups=None))]
    fn stats(&self, values: Vec<f64>, groups: Option<Vec<u64>>) -> PyResult<(f64, f64, usize)> {
        let n = self.fit.mean_weights.len();
        if values.len() != n || groups.as_ref().is_some_and(|g| g.len() != n) {
            return Err(PyValueError::new_err(format!(
                "{} values for {n} worlds",
                values.len()
            )));
        }
        guarded(|| self.fit.stats(&values, groups.as_deref()))
    }
}

/// `Race.results` without control variates over worlds given (per move its values, NaN where it
/// was not searched; the weights; the groups; the population of an enumeration), for the test that
/// they are the reference's.
#[pyfunction]
fn race_results(
    values: Vec<Vec<f64>>,
    weights: Vec<f64>,
    groups: Vec<u64>,
    population: Option<usize>,
) -> PyResult<Vec<(f64, f64)>> {
    let n = weights.len();
    if values.is_empty() || groups.len() != n || values.iter().any(|v| v.len() != n) {
        return Err(bad("values, weights and groups of other lengths"));
    }
    let alike: Vec<usize> = (0..values.len()).collect();
    let mut race = Race::new(values.len(), None, &alike);
    race.values = values;
    race.weights = weights;
    race.groups = groups;
    guarded(|| race.results(population))
}

/// Adds the class and the race's constants (for the test that they are the reference's).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDecisionWorlds>()?;
    m.add_class::<PyControlFit>()?;
    m.add_class::<PyRaceOutcomes>()?;
    m.add_function(wrap_pyfunction!(race_results, m)?)?;
    m.add_function(wrap_pyfunction!(paired_stats, m)?)?;
    m.add(
        "RACE_CONSTANTS",
        (MIN_PAIRED, SETTLE, MIN_GROUPS, UNKNOWN_STDERR, RARE_WORLDS_SPREAD),
    )?;
    Ok(())
}
