"""The search's inputs and outputs: ``Limits`` in, ``SearchResult`` (per-move ``MoveValue``) out."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import mul, sub
from typing import Any, Final, NamedTuple

from casino_coach.core import NATIVE
from casino_coach.engine.movegen import BUILD, CAPTURE, Move
from casino_coach.errors import SearchError
from casino_coach.frozen import Frozen
from casino_coach.search.leaf import HANDMADE, check_leaf

# Values closer than this are equal: moves worth the same can differ in the last bits of their means
# (sums over worlds of fractional points in another order).
VALUE_DIGITS: Final = 9


def value_key(value: float) -> float:
    """The first key of a result's order: the higher value first, values equal to VALUE_DIGITS
    decimals tied (and then ordered by ``natural_key``)."""
    return -round(value, VALUE_DIGITS)


def natural_key(move: Move) -> tuple[int, int]:
    """Between moves of equal value, the natural one first, as a player would play when it makes no
    difference: a capture before a build before a trail, and of two captures (or builds) the one that
    leaves fewer cards exposed on the table. It orders equal values only, never changes one."""
    return (0 if move.action == CAPTURE else 1 if move.action == BUILD else 2, -move.take.bit_count())


# The ranges of the limits a person or a program may ask for (the command-line options and the engine's
# requests check them first, naming the option or field): past them a number is a slip, and a huge
# one would only keep a command or the engine busy for good.
MAX_SAMPLES: Final = 100_000
MAX_PLIES: Final = 1_000
MAX_SECONDS: Final = 3600.0


@dataclass(frozen=True)
class Limits(Frozen):
    """How much effort one decision may take. The same limits and seed give the same answer (with
    ``time=None``; a time limit makes the number of worlds depend on the machine).

    The defaults keep ``evaluate`` well under half a second per decision in a 2-player game.
    """

    samples: int = 40  # maximum worlds sampled per decision
    # With three or more players, at most this many instead (None: ``samples``): a verdict's search
    # costs several times as much a world there (``verdict.limits_for``).
    samples_many: int | None = None
    min_samples: int = 8  # worlds always searched before the stopping rule may stop
    time: float | None = None  # seconds per decision, None = no limit
    seed: int = 0
    exact_worlds: int = 40  # enumerate exactly when the number of consistent worlds is at most this
    # Plies searched per world before the leaf estimate. None: the whole deal with 2 players (8
    # plies), 4 plies with 3 or 4 (a whole deal of 12 or 16 plies costs far too much there).
    depth: int | None = None
    separation: float = 2.0  # stop once the best move leads every other by this many standard errors
    margin: float = 0.2  # ... or is surely within this many points of it (the choice hardly matters)
    nodes: int | None = 100_000  # stop sampling once the search has visited this many nodes
    # With four players, this many nodes instead (None: ``nodes``): a verdict's world costs most there
    # (``verdict.limits_for``).
    nodes_four: int | None = None
    # The estimate where a search stops before the end of the round (``leaf.LEAF_KINDS``): the
    # handmade card odds, or the learned deal-end value fitted by scripts/fit_leaf.py.
    leaf: str = HANDMADE
    # The other side's reply to each root move (the first ply, in deals with cards still to come):
    # 0 keeps perfect-information Monte Carlo's reply, the best one knowing the searcher's hand in
    # each world; N > 0 chooses it on the replier's own information instead: N worlds of the cards
    # that player cannot see (the searcher's hand re-dealt as far as that player knows it), each
    # searched ``reply_depth`` plies after the reply, and the reply best on average there is then
    # valued in the world (``expectimax._Replies``).
    reply_worlds: int = 0
    reply_depth: int = 3
    # Worlds by class (``worlds.world_classes``): worlds that differ only by where two unseen twins
    # lie are one, searched once, and ``exact_worlds`` counts classes. False: every world on its own,
    # as the search was before (searcher-v1).
    classes: bool = True
    # Worlds without replacement: where they are not enumerated (more classes than ``exact_worlds``),
    # no evidence weighs them and the search may draw about as many as there are (``expectimax.shuffles``),
    # every one is searched at most once, in a random order, until the search stops; their mean then
    # varies less than over draws (the finite-population correction), and is the enumeration's once
    # every world is searched. False: balanced draws, which may repeat a world.
    shuffled: bool = False

    def __post_init__(self) -> None:
        if self.samples < 1 or self.min_samples < 1:
            raise SearchError(
                f"samples and min_samples must be at least 1, got {self.samples}, {self.min_samples}"
            )
        if self.samples_many is not None and self.samples_many < 1:
            raise SearchError(f"samples_many must be at least 1, got {self.samples_many}")
        if self.time is not None and not 0 < self.time <= MAX_SECONDS:
            raise SearchError(
                f"the time limit must be a number of seconds above 0, at most {MAX_SECONDS:g}, "
                f"got {self.time}"
            )
        if self.exact_worlds < 0:
            raise SearchError(f"exact_worlds must be at least 0, got {self.exact_worlds}")
        if self.depth is not None and self.depth < 1:
            raise SearchError(f"depth must be at least 1 ply, got {self.depth}")
        if not self.margin >= 0:
            raise SearchError(f"margin must be at least 0, got {self.margin}")
        if self.nodes is not None and self.nodes < 1:
            raise SearchError(f"the node limit must be at least 1, got {self.nodes}")
        if self.nodes_four is not None and self.nodes_four < 1:
            raise SearchError(f"nodes_four must be at least 1, got {self.nodes_four}")
        if not self.separation >= 0:
            raise SearchError(f"separation must be at least 0, got {self.separation}")
        check_leaf(self.leaf)
        if self.reply_worlds < 0:
            raise SearchError(f"reply_worlds must be at least 0, got {self.reply_worlds}")
        if self.reply_depth < 1:
            raise SearchError(f"reply_depth must be at least 1 ply, got {self.reply_depth}")

    def with_seed(self, seed: int) -> Limits:
        """These limits with another ``seed``: a copy of their fields, not checked again (they were,
        and a seed is any int). A bot makes one a decision: ``dataclasses.replace`` or the
        constructor checked every field again each time."""
        out = object.__new__(Limits)
        out.__dict__.update(self.__dict__)
        out.__dict__["seed"] = seed
        return out


@dataclass(frozen=True)
class MoveValue(Frozen):
    """One legal move's value for the player to move.

    ``ev`` is in points: the mover's side's round points minus the mean of the other sides' round
    points, for the whole round (cards already captured included, which shifts every move alike),
    averaged over the worlds; ``stderr`` is its standard error (0 when every world was solved).
    """

    move: Move
    ev: float
    stderr: float
    line: tuple[Move, ...]  # a principal continuation after this move (the most common one)
    # The move's value in each searched world, in the order of ``SearchResult.weights`` (NaN where
    # the move had left the race), and with ``detail``, what happened along its line in each world.
    values: tuple[float, ...] = ()
    # (A sequence of them: from the core's race, made when first read, ``native_race.LazyOutcomes``.)
    outcomes: Sequence[Outcome | None] = ()

    @cached_property
    def in_every_world(self) -> bool:
        """Whether the move was valued in every world searched (it never left the race): only
        such a move bounds another's loss (``SearchResult.loss``). Worked out once (a verdict asks
        for every move's, again and again)."""
        return bool(self.values) and not any(v != v for v in self.values)


@dataclass(frozen=True)
class Outcome(Frozen):
    """One root move in one world, followed along the solver's principal line to where the search
    stops: the value by scoring category (margins of the mover's side, ``evaluate.CATEGORIES``; they
    add up to the move's value in the world, but for ``other``, where the line does not reach the
    value the search proved), the cards each side captured on the way, the sweeps each side made, and
    whether the line reached the end of the round."""

    parts: dict[str, float]
    other: float
    gained: tuple[int, ...]  # per side: cards captured along the line (the mover's card included)
    sweeps: tuple[int, ...]
    end: bool


# Control variates (``Controls``) correct a mean only over at least this many worlds, and this many
# per feature: a regression on fewer fits the sample's noise as well as its signal.
CONTROL_MIN_WORLDS: Final = 48
# Whether this Python's ``sum`` of floats compensates (3.12 and later): the core adds the sums of
# ``Controls.stats`` as it does.
COMPENSATED_SUM: Final = sys.version_info >= (3, 12)
CONTROL_WORLDS_PER_FEATURE: Final = 3
# The ridge of the regression, in the units of a 0/1 feature's sum of squares: it keeps the fit
# defined when a feature happens to be the same in every world of the sample.
CONTROL_RIDGE: Final = 1.0


class _FitParts(NamedTuple):
    """A fit of control variates (``Controls``): the rows less their mean, the inverse of their ridge
    Gram matrix, per world the weight of its value in the corrected mean, and the centred rows by
    feature."""

    centred: tuple[tuple[float, ...], ...]
    inverse: tuple[tuple[float, ...], ...]
    mean_weights: tuple[float, ...]
    columns: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class Controls(Frozen):
    """Control variates of the worlds searched (a regression estimator): per world, features whose
    mean over every consistent world is known (``means``; ``worlds.holding_controls``: whether each
    other hand holds a card of each rank). A mean over the sampled worlds is corrected by how far the
    sample's features stray from those means, times the slope of the values on the features fitted
    over the same worlds (ridge least squares): the part of the values that the features explain no
    longer varies from sample to sample, and the standard error is the residuals'. The correction is
    linear in the values, so the corrected difference of two moves is the difference of their
    corrected values, and corrected categories add up to the corrected whole."""

    rows: tuple[tuple[float, ...], ...]  # per world searched, in the order of the values
    means: tuple[float, ...]
    # The fit in the core (``_core.ControlFit``), whose ``stats`` are the reference's, sum for sum;
    # None on the Python reference.
    _fit: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n, p = len(self.rows), len(self.means)
        fit = None
        if NATIVE is not None and n > p + 1:  # the same fit in the core, operation for operation
            fit = NATIVE.ControlFit.fit(self.rows, self.means, CONTROL_RIDGE, COMPENSATED_SUM)
        object.__setattr__(self, "_fit", fit)

    # The fit's parts, read by the reference's ``stats`` only: made when first read (from the core's
    # fit, a world's and a feature's worth of floats each: at thousands of worlds, milliseconds a
    # decision that only the core's ``stats`` read).
    @cached_property
    def _parts(self) -> _FitParts:
        if self._fit is None:
            return self._fit_reference()
        mean_weights, by_feature, inverse, centred = self._fit.parts()
        return _FitParts(
            tuple(map(tuple, centred)),
            tuple(map(tuple, inverse)),
            tuple(mean_weights),
            tuple(map(tuple, by_feature)),
        )

    @property
    def centred(self) -> tuple[tuple[float, ...], ...]:
        """The rows less their mean."""
        return self._parts.centred

    @property
    def inverse(self) -> tuple[tuple[float, ...], ...]:
        """The inverse of the rows' ridge Gram matrix."""
        return self._parts.inverse

    @property
    def mean_weights(self) -> tuple[float, ...]:
        """Per world, the weight of its value in the corrected mean."""
        return self._parts.mean_weights

    @property
    def columns(self) -> tuple[tuple[float, ...], ...]:
        """The centred rows by feature (per feature, its value in each world), for the sums over
        worlds."""
        return self._parts.columns

    # The sums below are sum(map(mul, xs, ys)): the products of the plain comprehensions, in their
    # order, summed alike, only without a Python frame per term.
    def _fit_reference(self) -> _FitParts:
        """The fit in Python (the reference, which the core's must equal)."""
        n, p = len(self.rows), len(self.means)
        by_feature = tuple(zip(*self.rows, strict=True)) if n else ((),) * p
        xbar = [sum(by_feature[k]) / n for k in range(p)] if n else [0.0] * p
        centred = tuple(tuple(map(sub, r, xbar)) for r in self.rows)
        columns = tuple(zip(*centred, strict=True)) if n else ((),) * p
        gram = [[0.0] * p for _ in range(p)]
        for i in range(p):
            for j in range(i, p):
                # a[i] * a[j] == a[j] * a[i]: the matrix is symmetric to the last bit.
                gram[i][j] = gram[j][i] = sum(map(mul, columns[i], columns[j]))
        for i in range(p):
            gram[i][i] += CONTROL_RIDGE
        inverse = _inverse(gram)
        shift = [xbar[k] - self.means[k] for k in range(p)]
        g_shift = [sum(map(mul, inverse[i], shift)) for i in range(p)]
        weights = tuple(1.0 / n - sum(map(mul, a, g_shift)) for a in centred)
        return _FitParts(centred, tuple(tuple(row) for row in inverse), weights, columns)

    @staticmethod
    def enough(worlds: int, features: int) -> bool:
        """Whether ``worlds`` are enough to fit ``features`` control variates on."""
        return worlds >= max(CONTROL_MIN_WORLDS, CONTROL_WORLDS_PER_FEATURE * features)

    def applies(self, values: Sequence[float], weights: Sequence[float]) -> bool:
        """Whether the correction applies: a value in every world, every world weighing the same,
        and worlds enough for the features."""
        return len(values) == len(self.rows) and all(v == v for v in values) and self.fits(weights)

    def fits(self, weights: Sequence[float]) -> bool:
        """What ``applies`` asks of the worlds rather than the values: every world weighing the same,
        and worlds enough for the features."""
        return Controls.enough(len(self.rows), len(self.means)) and all(w == weights[0] for w in weights)

    def stats(self, values: Sequence[float], groups: Sequence[int] | None) -> tuple[float, float, int]:
        """The corrected mean of ``values`` (one per world, ``applies``), its standard error (over
        the ``groups`` as ``paired_stats`` takes it, on the residuals, with the features' degrees of
        freedom) and the number of worlds."""
        if self._fit is not None:  # the same sums in the core, without a Python frame per world
            try:
                got: tuple[float, float, int] = self._fit.stats(values, groups)
            except (ValueError, TypeError, OverflowError):
                pass  # the reference says what is wrong
            else:
                return got
        return self.reference_stats(values, groups)

    def reference_stats(
        self, values: Sequence[float], groups: Sequence[int] | None
    ) -> tuple[float, float, int]:
        """``stats`` in Python (the reference, which the core's must equal)."""
        n, p = len(self.rows), len(self.means)
        if len(values) != n:
            raise ValueError(f"{len(values)} values for {n} worlds")
        mean = sum(map(mul, values, self.mean_weights))
        vbar = sum(values) / n
        at_b = [sum(map(mul, self.columns[k], values)) for k in range(p)]
        beta = [sum(map(mul, self.inverse[i], at_b)) for i in range(p)]
        residuals = [v - vbar - sum(map(mul, a, beta)) for a, v in zip(self.centred, values, strict=True)]
        se = None
        if groups is not None:
            se = grouped_stderr([(r, 1.0, g) for r, g in zip(residuals, groups, strict=True)], float(n))
        if se is None:
            se = math.sqrt(sum(r * r for r in residuals) / (n * (n - 1)))
        return mean, se * math.sqrt((n - 1) / (n - 1 - p)), n


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite matrix (Gauss-Jordan; small: a few dozen rows)."""
    p = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(p)] for i, row in enumerate(matrix)]
    for c in range(p):
        pivot = a[c][c]
        row_c = [x / pivot for x in a[c]]
        a[c] = row_c
        for r in range(p):
            if r != c:
                f = a[r][c]
                if f != 0.0:
                    a[r] = [x - f * y for x, y in zip(a[r], row_c, strict=True)]
    return [row[p:] for row in a]


@dataclass(frozen=True)
class SearchResult(Frozen):
    """Every legal move of one decision, best first, with the effort spent."""

    seat: int
    exact: bool  # the game's value, solved to the end of the round (``expectimax._result`` says where)
    moves: tuple[MoveValue, ...]
    samples: int  # worlds searched
    nodes: int
    seconds: float
    tree: object | None = None  # the recorded tree (``tree.SearchTree``) when record=True
    weights: tuple[float, ...] = ()  # per searched world, in the order of ``MoveValue.values``
    groups: tuple[int, ...] = ()  # per searched world, the group it was drawn in (``paired_stats``)
    controls: Controls | None = None  # the searched worlds' control variates (``paired_stats``)
    population: int | None = None  # the number of consistent worlds when they were enumerated
    shallow: bool = False  # the node budget forced a shallower search than the limits asked for
    depth: int | None = None  # plies searched per world (None: to the end of the deal or round)
    leaf: str = HANDMADE  # the estimate where the search stopped before the end of the round
    # Every world was searched to the end of the round, with no leaf estimate: in the last deal, or on
    # through it from the deal before (``expectimax.goes_to_round_end``).
    round_end: bool = False
    # The error of the depth cut and the leaf that the standard errors do not cover, in points: added
    # to both ends of every loss's interval (``loss``); set by the verdict (``coach.verdict.judge``).
    cut_margin: float = 0.0
    # The same decision searched for the game (``chances.game_weights``: both sides playing every line
    # for the chance to win it), where it was judged in a close game before the last deal: the game's
    # chances and its move come from this one (``chances.game_source``), the round's values from
    # ``moves``.
    for_game: SearchResult | None = None
    # Derived, for the questions a verdict, its explanations and the game's chances ask again and
    # again: each move's value by move, the paired statistics asked so far by pair of moves, and
    # whether the control variates fit these worlds (``Controls.fits``).
    _by_move: dict[Move, MoveValue] = field(init=False, repr=False, compare=False)
    _paired: dict[tuple[Move, Move], tuple[float, float, int]] = field(init=False, repr=False, compare=False)
    _controlled: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_move: dict[Move, MoveValue] = {}
        for mv in self.moves:
            by_move.setdefault(mv.move, mv)
        object.__setattr__(self, "_by_move", by_move)
        object.__setattr__(self, "_paired", {})
        controls = self.controls
        fits = controls is not None and self.population is None and controls.fits(self.weights)
        object.__setattr__(self, "_controlled", fits)

    @property
    def best(self) -> MoveValue:
        return self.moves[0]

    @property
    def enumerated(self) -> bool:
        """Whether every consistent world was searched (kinds of deal alike searched once): the values
        carry no sampling error, though they are exact only where ``exact`` says so."""
        return self.population is not None and self.samples >= self.population

    def value_of(self, move: Move) -> MoveValue:
        """The value of ``move``; SearchError when it is not a legal move of this decision."""
        mv = self._by_move.get(move)
        if mv is None:
            raise SearchError("that move is not one of the legal moves of this decision")
        return mv

    def paired(self, a: Move, b: Move) -> tuple[float, float, int]:
        """Mean, standard error and number of worlds of value(a) - value(b) over the worlds in which
        both were searched: the same worlds value both, so the difference is far less noisy than
        either value. Worked out once per pair (a verdict asks for each pair more than once)."""
        got = self._paired.get((a, b))
        if got is None:
            va, vb = self.value_of(a).values, self.value_of(b).values
            got = self._paired[(a, b)] = self.stats([x - y for x, y in zip(va, vb, strict=True)])
        return got

    def stats(self, per_world: Sequence[float]) -> tuple[float, float, int]:
        """Mean, standard error and number of worlds of a quantity given per searched world (NaN
        where it is not known), as every verdict of this search takes them (``paired_stats``; the
        controls' test of the worlds made once, ``Controls.fits``)."""
        controls = self.controls
        if (
            self._controlled
            and controls is not None
            and len(per_world) == len(controls.rows)
            and all(v == v for v in per_world)
        ):
            return controls.stats(per_world, self.groups or None)
        groups = self.groups or None
        if NATIVE is not None:  # the same sums in the core, without a Python frame per world
            try:
                got: tuple[float, float, int] = NATIVE.paired_stats(
                    per_world, self.weights, self.population, groups
                )
            except (ValueError, TypeError, OverflowError):
                pass
            else:
                return got
        return paired_stats(per_world, self.weights, self.population, groups)

    def loss(self, move: Move, z: float = 2.0) -> tuple[float, float, float]:
        """(loss, low, high): how many points ``move`` loses against the best move, and a confidence
        interval of about ``z`` standard errors from the paired differences to every move that may be
        the best (Student's t with few worlds), widened by ``cut_margin`` at both ends. The loss is 0
        for the best move itself."""
        best = self.moves[0]
        if best.move == move:
            loss = lo = 0.0
        else:
            _, se, n = self.paired(best.move, move)
            loss = max(0.0, best.ev - self.value_of(move).ev)
            lo = max(0.0, loss_low(loss, se, n, z, self.population) - self.cut_margin)
        hi = loss
        for mv in self.moves:
            # Moves that left the race were clearly behind the best: they bound nothing.
            if mv.move == move or not mv.in_every_world:
                continue
            d, se, n = self.paired(mv.move, move)
            if n:
                hi = max(hi, loss_high(d, se, n, z, self.population))
        return loss, lo, max(hi, loss) + self.cut_margin


def loss_low(loss: float, se: float, n: int, z: float, population: int | None) -> float:
    """The low end of a loss's interval: the paired difference to the best move, ``z`` of its
    standard errors (``verdict_stderr``, Student's t over ``n`` worlds) below the loss."""
    return max(0.0, loss - z * t_factor(n) * verdict_stderr(se, n, population))


def loss_high(d: float, se: float, n: int, z: float, population: int | None) -> float:
    """The high end that a move worth ``d`` more than the focus (paired) sets to its loss."""
    se = verdict_stderr(se, n, population)
    return d + z * t_factor(n) * se if math.isfinite(se) else d + UNKNOWN_STDERR


# With one sampled world the spread is unknown; report the full scale of a round's points instead of
# pretending to know (values must stay finite numbers).
UNKNOWN_STDERR: Final = 11.0


# The spread of a paired difference that a sample of worlds may not show: a move can lose only in the
# few worlds where an opponent holds one particular card, and a handful of draws can miss them all
# (and then the measured spread is nearly 0). So a verdict's interval over sampled worlds is never
# narrower than this per-world spread allows (``verdict_stderr``); an enumeration needs no such care,
# and worlds taken without replacement less of it the more of them were searched.
# A point: at half a point, 2-player moves that lose 0.3 settled as *best* on 16-45 worlds under one
# seed in five (experiments/verdict_stability.py), where the differences that count lie in a few worlds
# and swing by 2-3 points.
RARE_WORLDS_SPREAD: Final = 1.0


def verdict_stderr(se: float, n: int, population: int | None) -> float:
    """The standard error a verdict uses for a paired difference over ``n`` worlds (of the
    ``population`` of an enumeration, or of worlds taken without replacement, with its correction)."""
    if n == 0 or (population is not None and n >= population):
        return se
    floor = RARE_WORLDS_SPREAD / math.sqrt(n)
    if population is not None:
        floor *= math.sqrt((population - n) / (population - 1))
    return max(se, floor)


def paired_stats(
    diffs: Sequence[float],
    weights: Sequence[float],
    population: int | None = None,
    groups: Sequence[int] | None = None,
    controls: Controls | None = None,
) -> tuple[float, float, int]:
    """Weighted mean, standard error and count of the finite values of ``diffs`` (NaN: not searched).
    The standard error uses the effective number of worlds (sum w)^2 / sum w^2, and the
    finite-population correction when the worlds come from an enumeration of ``population``.

    With ``groups`` (per world, the group it was drawn in: ``protocol.Worlds``), worlds drawn together
    are not independent, the groups are: a balanced pass deals each hidden card to the other hands at
    most once, so its worlds differ more from each other than independent draws would, and their mean
    varies less. The standard error is then the groups' (``grouped_stderr``), which counts that
    gain instead of ignoring it, once there are ``MIN_GROUPS`` of them. With ``controls`` (sampled
    worlds only), the mean is corrected by the worlds' control variates where they apply
    (``Controls``)."""
    if controls is not None and population is None and controls.applies(diffs, weights):
        return controls.stats(diffs, groups)
    pairs = [(d, w, i) for i, (d, w) in enumerate(zip(diffs, weights, strict=True)) if d == d and w > 0]
    n = len(pairs)
    if n == 0:
        return 0.0, math.inf, 0
    sw = plain_sum(w for _, w, _ in pairs)
    mean = plain_sum(d * w for d, w, _ in pairs) / sw
    if population is not None and n >= population:
        return mean, 0.0, n
    if n == 1:
        return mean, math.inf, 1
    if groups is not None and population is None:
        se_groups = grouped_stderr([(d - mean, w, groups[i]) for d, w, i in pairs], sw)
        if se_groups is not None:
            return mean, se_groups * t_factor(len({groups[i] for _, _, i in pairs})) / t_factor(n), n
    sw2 = plain_sum(w * w for _, w, _ in pairs)
    neff = sw * sw / sw2
    var = plain_sum(w * (d - mean) ** 2 for d, w, _ in pairs) / sw * n / (n - 1)
    se = math.sqrt(var / neff)
    if population is not None:
        se *= math.sqrt(max(0.0, (population - n) / (population - 1)))
    return mean, se, n


# Groups a standard error is taken over (``grouped_stderr``): fewer say too little of the spread.
MIN_GROUPS: Final = 12


def grouped_stderr(residuals: Sequence[tuple[float, float, int]], total_weight: float) -> float | None:
    """The standard error of a weighted mean from its (residual, weight, group) per world, the groups
    independent and the worlds within one not (the linearised variance of a ratio over clusters):
    None with fewer than ``MIN_GROUPS`` groups, or when every group holds one world (then the groups
    are the worlds, and the plain formula applies)."""
    totals: dict[int, float] = {}
    for r, w, g in residuals:
        totals[g] = totals.get(g, 0.0) + w * r
    k = len(totals)
    if k < MIN_GROUPS or k == len(residuals):
        return None
    return math.sqrt(k / (k - 1) * plain_sum(t * t for t in totals.values())) / total_weight


def plain_sum(xs: Iterable[float]) -> float:
    """The sum of ``xs`` added left to right, as the core adds (``paired_stats`` is also the core's,
    ``race.rs``): Python 3.12's ``sum`` of floats compensates, which can differ in the last bit."""
    total = 0.0
    for x in xs:
        total += x
    return total


# Student's t 97.5% quantiles over the normal one, by degrees of freedom (n - 1); 1 beyond 30.
_T975 = {
    1: 12.71,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    12: 2.179,
    15: 2.131,
    20: 2.086,
    30: 2.042,
}


def t_factor(n: int) -> float:
    """How much wider than the normal a 95% interval from ``n`` values must be (Student's t)."""
    dof = n - 1
    if dof > 30:
        return 1.0
    key = max((k for k in _T975 if k <= dof), default=1)
    return _T975[key] / 1.96
