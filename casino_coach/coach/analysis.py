"""Game analysis: rate every move of a log, class it, explain the misses, sum up each player.

For every move of a log the position is searched from the mover's point of view — only what they could
know (``Ply.observation``, searched by ``search.evaluate``) — and, when the log has every hand, again
with the cards actually held (``search.evaluate_world`` on ``Ply.state``). Values are expected round
points: the mover's side's points minus the mean of the other sides', over the whole round.

* **loss** = value of the search's best move - value of the move played (never below 0);
* **class** from the loss (``Thresholds``): best (the best move, or as good as it), good, inaccuracy,
  mistake, blunder. A loss inside the search's own noise (``noise`` x the standard error of the
  difference) is at most an inaccuracy. **Forced** moves (one legal move, or every move equal) are
  marked and left out of the rates;
* the **world cost** (the same with the real cards) and a verdict when the two disagree: "right on what
  you knew, unlucky" or "lucky: the risk did not come";
* a **headline**: the best move and the decisive reason in one sentence (``coach.headline``), and the
  **explanations** below it, naming the cards (``coach.explain``), whose points add up to the loss.

The summary per player counts the classes over unforced moves and gives the expected points lost in
total and per decision, an accuracy percentage and the luck of the deals.

**Accuracy** adapts Lichess's formula from win-percentage to round points: a move's accuracy is
``103.1668 * exp(-0.04354 * d) - 3.1669`` (clamped to 0..100) where ``d = 100 * loss / 11`` is the loss
as a percentage of the 11 points a round distributes; a player's accuracy is the mean over unforced
moves. A loss of 0.1 point scores 96%, 0.5 about 81%, 1 point 66%, 2 points (Big Casino) 44%. Where
the rules have a table of winning chances (``coach.winning``), the **game accuracy** is Lichess's own:
from the chance of winning the game each move gave up, aggregated as Lichess aggregates a game
(``game_accuracy``).

**Luck** of a deal for a side: the value of its first decision in the deal (its best move's value, from
what it then knew) minus the value its side had just before the cards were dealt (the played value of
the last rated move before the deal, from that side's point of view; 0 at the start of a round, when
no card is known and the deal is symmetric). It measures how much better or worse the new cards are
than the average deal from that position. With three or more sides a side's own last value is the
prior. Each side's values come from its own information, so the sides' lucks need not cancel: each
side's luck is taken relative to the mean of the sides' luck in that deal, and a deal's luck sums to
zero. The luck-adjusted result is the side's actual round margin minus its total luck.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NamedTuple

from casino_coach.coach.assessment import Assessment, Decision, Settings, WorldCost, assess
from casino_coach.coach.classes import CLASSES, MoveClass, Thresholds
from casino_coach.coach.explain import Explanation
from casino_coach.coach.verdict import GameVerdict, analysis_limits, limits_for, move_class
from casino_coach.coach.winning import WinChances
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points, RoundScore
from casino_coach.engine.state import Build, RoundState
from casino_coach.errors import CoachError, TooBigToSearchError, about, quoted
from casino_coach.formats.log import GameLog, read_log
from casino_coach.formats.replay import Ply, replay_log
from casino_coach.formats.text import player_name, printable
from casino_coach.search import Limits
from casino_coach.workers import worker_pool


def percent_accuracy(lost: float) -> float:
    """Lichess's accuracy of a move, in percent, from the percentage points it gave up."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * max(lost, 0.0)) - 3.1669))


def move_accuracy(loss: float) -> float:
    """Accuracy of one move in percent (Lichess's formula on the loss as a share of 11 points)."""
    return percent_accuracy(100.0 * loss / 11.0)


def game_accuracy(chances: Sequence[tuple[float, float]]) -> float | None:
    """A player's accuracy from winning chances, as Lichess computes a game's accuracy: each move's
    accuracy (``percent_accuracy``) from the winning percentage it gave up, ``chances`` giving per move
    in order the mover's side's winning percentage after the best move and after the move played; the
    mean of the move accuracies weighted by how much the percentage swings around the move (the
    standard deviation over a window of about a tenth of the moves, 2 to 8, clamped to 0.5-12), and
    their harmonic mean, averaged. None without a move."""
    if not chances:
        return None
    accuracies = [percent_accuracy(best - played) for best, played in chances]
    series = [best for best, _ in chances] + [chances[-1][1]]
    size = min(max(len(chances) // 10, 2), 8)
    windows = [series[:size]] * (size - 2) + [series[i : i + size] for i in range(len(series) - size + 1)]
    weights = [min(max(statistics.pstdev(w), 0.5), 12.0) for w in windows]
    weighted = sum(a * w for a, w in zip(accuracies, weights, strict=True)) / sum(weights)
    harmonic = len(accuracies) / sum(1 / a for a in accuracies) if min(accuracies) > 0 else 0.0
    return (weighted + harmonic) / 2


class PositionView(NamedTuple):
    """The position before a move as far as the log's reader knows it, for reports: the cards known
    to be in each hand (every card of every hand in a full log; in a viewer log the viewer's own hand,
    and another seat's cards only where the log gives them), how many cards each hand holds, each
    side's captured cards and sweeps, the cards still to be dealt, and the game score per side before
    the round."""

    hands: tuple[int, ...]  # per seat
    hand_sizes: tuple[int, ...]  # per seat
    captured: tuple[int, ...]  # per side
    sweeps: tuple[int, ...]  # per side
    stock: int  # how many cards are still to be dealt
    scores: tuple[Points, ...]  # per side, before this round


class AlternativeMove(NamedTuple):
    """One of the best few moves of a decision: its value and, as ``analyze`` would class it were it
    played, its loss and class (``verdict.move_class``). Loss and class are None when read from an
    analysis made before they were kept."""

    move: Move
    value: float
    loss: float | None = None
    cls: MoveClass | None = None


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of the game, rated (``rated``) or only shown (another seat's move in a viewer log)."""

    ply: int
    round: int
    deal: int
    move_index: int
    seat: int
    side: int
    played: Move
    rated: bool
    # The position before the move, for reports: table, and the mover's hand when known.
    loose: int
    builds: tuple[Build, ...]
    hand: int | None
    best: Move | None = None
    played_value: float | None = None
    best_value: float | None = None
    loss: float | None = None
    stderr: float = 0.0
    cls: MoveClass | None = None
    forced: bool = False
    exact: bool = False
    legal: int = 0
    explanations: tuple[Explanation, ...] = ()
    alternatives: tuple[AlternativeMove, ...] = ()  # the best few moves, their values and classes
    world: WorldCost | None = None
    verdict: Explanation | None = None  # "unlucky" / "lucky" when the two costs disagree
    samples: int = 0  # worlds searched
    seconds: float = 0.0
    # The loss's confidence interval (``Thresholds.noise`` standard errors of the paired difference,
    # Student's t with few worlds); a single point when the values are exact.
    loss_low: float = 0.0
    loss_high: float = 0.0
    shallow: bool = False  # the node budget forced a shallower search than the limits asked for
    # Every world was searched to the end of the round, with no leaf estimate (``SearchResult.round_end``).
    round_end: bool = False
    # Every kind of deal the player could face was searched (``SearchResult.enumerated``): the interval
    # is no sampling error, only the margin for what the search estimates (``verdict.cut_margin``).
    enumerated: bool = False
    uncertain: bool = False  # the interval straddles a class edge (``Thresholds.classify_interval`` reads it)
    view: PositionView | None = None  # the whole position before the move, as far as the log tells
    # The chance of each side to win the game (``coach.winning``): before the round, and once it is
    # over after the best move and after the move played. None without a table for the rules.
    win: WinChances | None = None
    # The verdict for the game once it is close (``game_verdict_of``): the chance of winning it lost.
    game: GameVerdict | None = None
    # Why the move is not rated although its hand is known: the decision is bigger than the search
    # takes on (``search.expectimax.MAX_LOOSE``, ``MAX_MOVES``), in the words suggest and the engine use.
    not_judged: str | None = None
    # The move in one sentence (``Assessment.headline``): the best move and the decisive reason; the
    # explanations are its detail. None for a move not rated (or read from an analysis made before).
    headline: str | None = None

    def chances(self) -> tuple[float, float] | None:
        """The mover's side's chance to win the game, in percent, after the best move and after the
        move played (``win``); None where the search gave no chances for both."""
        if self.win is None or self.best is None:
            return None
        best, played = self.win.of(self.best), self.win.of(self.played)
        if best is None or played is None:
            return None
        return 100.0 * best[self.side], 100.0 * played[self.side]

    @property
    def missed(self) -> bool:
        """A rated, unforced move that was not (as good as) the best: the best move is worth showing."""
        return (
            self.rated
            and not self.forced
            and self.cls not in (None, MoveClass.BEST)
            and self.best is not None
            and self.best != self.played
        )


@dataclass(frozen=True)
class DealLuck:
    round: int
    deal: int
    points: float


@dataclass(frozen=True)
class SeatSummary:
    """One player's game in numbers."""

    seat: int
    player: str
    side: int
    moves: int  # rated moves
    unforced: int
    classes: dict[str, int]  # per class, over unforced moves
    loss_total: float
    loss_per_decision: float
    accuracy: float | None  # None without an unforced move
    luck: tuple[DealLuck, ...]  # the side's luck per deal
    luck_total: float
    result: float  # the side's actual margin over the played-out rounds
    luck_adjusted: float
    not_judged: int = 0  # moves of the player too big to search (``MoveAnalysis.not_judged``)
    # The accuracy from winning chances (``game_accuracy``) over the unforced moves whose chances are
    # known (a table for the rules); None without one.
    game_accuracy: float | None = None


@dataclass(frozen=True)
class AnalysisOptions:
    """How to analyse: search limits (the seed is a salt: each decision seeds itself), class thresholds, which
    seats to rate (None: every seat whose hand is known), whether to search the real cards too, and
    how many processes to use."""

    limits: Limits = field(default_factory=analysis_limits)
    thresholds: Thresholds = field(default_factory=Thresholds)
    seats: frozenset[int] | None = None
    world: bool = True
    jobs: int = 1


@dataclass(frozen=True)
class GameAnalysis:
    """The analysis of a whole log: every move, every player's summary, and how it was made."""

    rules: RuleSet
    players: tuple[str, ...]
    viewer: int | None
    nsides: int
    options: AnalysisOptions
    moves: tuple[MoveAnalysis, ...]
    summaries: tuple[SeatSummary, ...]
    round_points: tuple[tuple[float, ...], ...]  # per played-out round, per side
    seconds: float
    round_scores: tuple[RoundScore, ...] = ()  # per played-out round: the awards and the breakdown
    totals: tuple[Points, ...] = ()  # the game score per side after the played-out rounds
    winner: int | None = None  # the side that won the game, when the log plays it to the end

    def worst(self, count: int = 5) -> list[MoveAnalysis]:
        """The missed moves (rated, unforced, not the best) that lost most, worst first."""
        rated = [m for m in self.moves if m.missed and m.loss]
        rated.sort(key=lambda m: (-(m.loss or 0.0), m.ply))
        return rated[:count]


# ---------------------------------------------------------------------------------------------------
# Rating one move


def rate_move(
    rules: RuleSet,
    obs: Observation,
    move: Move,
    limits: Limits,
    thresholds: Thresholds = Thresholds(),
    *,
    state: RoundState | None = None,
    names: Sequence[str] | None = None,
    scores: Sequence[Points] | None = None,
) -> MoveAnalysis:
    """Rate ``move`` by the seat to move in ``obs`` (a position, not a whole log).

    ``state`` is the full ``RoundState`` when the real cards are known: the world cost is then
    measured too. ``scores`` is the game score the round started at (0 each by default): once the
    game is close the move is judged for the game too. The result's ply/round/deal fields are 0.
    """
    start = tuple(scores) if scores is not None else (0,) * obs.nsides
    ply = Ply(0, 0, 0, 0, obs.to_move, move, state, obs, None, start)
    return _rate(rules, ply, Settings(limits, thresholds, world=True), tuple(names or ()))


def _rate(rules: RuleSet, ply: Ply, settings: Settings, names: tuple[str, ...]) -> MoveAnalysis:
    """Judge the move of ``ply`` from the mover's view (``assess``) and show it rated."""
    t0 = time.perf_counter()
    assert ply.observation is not None
    base = _shown(ply)
    decision = Decision(rules, ply.observation, ply.move, tuple(ply.scores), names, ply.state)
    try:
        a = assess(decision, settings)
    except TooBigToSearchError as e:  # shown with the reason, left out of the counts like an unrated move
        return dataclasses.replace(base, not_judged=str(e), seconds=time.perf_counter() - t0)
    return _rated(base, a, time.perf_counter() - t0)


def _rated(base: MoveAnalysis, a: Assessment, seconds: float) -> MoveAnalysis:
    """The move ``base`` shows, rated as its assessment ``a`` judges it."""
    res, v = a.result, a.verdict
    assert v is not None
    return dataclasses.replace(
        base,
        rated=True,
        best=v.best,
        played_value=res.value_of(base.played).ev,
        best_value=res.moves[0].ev,
        loss=v.loss,
        stderr=v.stderr,
        cls=v.cls,
        forced=v.forced,
        exact=res.exact,
        legal=len(res.moves),
        explanations=v.explanations,
        alternatives=tuple(
            AlternativeMove(mv.move, mv.ev, *move_class(res, mv.move, a.settings.thresholds))
            for mv in res.moves[:3]
        ),
        world=a.world,
        verdict=_verdict(base.played, v.cls, a.world) if a.world is not None else None,
        samples=res.samples,
        seconds=seconds,
        loss_low=v.low,
        loss_high=v.high,
        shallow=res.shallow,
        round_end=res.round_end,
        enumerated=res.enumerated,
        uncertain=v.uncertain,
        win=a.chances,
        game=v.game,
        headline=a.headline,
    )


_GOOD = (MoveClass.BEST, MoveClass.GOOD)
_BAD = (MoveClass.MISTAKE, MoveClass.BLUNDER)


def _verdict(move: Move, cls: MoveClass, wc: WorldCost) -> Explanation | None:
    if cls in _GOOD and wc.cls in _BAD:
        return Explanation(
            "unlucky",
            f"Right on what you knew, unlucky: with the cards actually held {move.describe()} cost "
            f"{wc.loss:.2f} of margin ({wc.best.describe()} would have been best)",
            0.0,
        )
    if cls in _BAD and wc.cls in _GOOD:
        return Explanation(
            "lucky",
            f"Lucky: the risk did not come — with the cards actually held {move.describe()} "
            + (f"cost only {wc.loss:.2f} of margin" if round(wc.loss, 2) > 0 else "cost nothing"),
            0.0,
        )
    return None


def _shown(ply: Ply) -> MoveAnalysis:
    """A move as shown without rating: the table before it and the mover's hand when known."""
    view = ply.state if ply.state is not None else (ply.observation or ply.viewer_observation)
    loose = view.loose if view is not None else 0
    builds = view.builds if view is not None else ()
    hand = ply.observation.hand if ply.observation is not None else None
    pv: PositionView | None = None
    if ply.state is not None:
        st = ply.state
        sizes = tuple(h.bit_count() for h in st.hands)
        pv = PositionView(st.hands, sizes, st.captured, st.sweeps, st.stock.bit_count(), ply.scores)
    elif (vo := ply.viewer_observation or ply.observation) is not None:
        pv = PositionView(vo.known, vo.hand_sizes, vo.captured, vo.sweeps, vo.stock_count, ply.scores)
    return MoveAnalysis(
        ply.index,
        ply.round,
        ply.deal,
        ply.move_index,
        ply.seat,
        ply.seat % _nsides(ply),
        ply.move,
        False,
        loose,
        builds,
        hand,
        view=pv,
    )


def _nsides(ply: Ply) -> int:
    view = ply.state if ply.state is not None else (ply.observation or ply.viewer_observation)
    return view.nsides if view is not None else len(ply.scores)


# ---------------------------------------------------------------------------------------------------
# A whole game


@dataclass(frozen=True)
class _Task:
    rules: RuleSet
    ply: Ply
    settings: Settings
    names: tuple[str, ...]


def _run(task: _Task) -> MoveAnalysis:
    return _rate(task.rules, task.ply, task.settings, task.names)


def seat_of(log: GameLog, player: str) -> int:
    """The seat of a player named ``player`` (case-insensitive), or a seat number."""
    names = list(log.players)
    for i, name in enumerate(names):
        if name.casefold() == player.strip().casefold():
            return i
    if player.strip().isdecimal() and int(player) < len(names):
        return int(player)
    raise CoachError(
        f"player {quoted(player)} is not in this game (players: {', '.join(map(player_name, names))})"
    )


def check_seats(log: GameLog, seats: frozenset[int]) -> None:
    """CoachError when ``seats`` asks for a player whose hands a viewer log does not give."""
    if log.viewer is not None and seats - {log.viewer}:
        names = [player_name(p) for p in log.players]
        others = ", ".join(names[s] for s in sorted(seats - {log.viewer}))
        raise CoachError(
            f"cannot rate {others}: this is {names[log.viewer]}'s viewer log, where only "
            f"{names[log.viewer]}'s hands are known"
        )


def read_checked(path: Path, player: str | None) -> tuple[GameLog, frozenset[int] | None]:
    """The log at ``path``, re-played (an illegal move is found before any search), and the seat of
    ``player`` (None: every seat the log rates); every error names the file (``analyze`` and
    ``drill`` read their logs so)."""
    with about(path):
        log = read_log(path)
        replay_log(log)
    if player is None:
        return log, None
    try:
        seats = frozenset({seat_of(log, player)})
        check_seats(log, seats)
    except CoachError as e:  # with several logs, which one lacks the player
        where = printable(str(path))
        raise CoachError(str(e) if str(e).startswith(f"{where}: ") else f"{where}: {e}") from None
    return log, seats


def analyze(
    log: GameLog,
    options: AnalysisOptions = AnalysisOptions(),
    progress: Callable[[int, int], None] | None = None,
) -> GameAnalysis:
    """Analyse every move of ``log``; ``progress(done, total)`` is called as rated moves finish. The
    analysis keeps its limits as they apply to the log's number of players (``limits_for``)."""
    t0 = time.perf_counter()
    options = dataclasses.replace(options, limits=limits_for(options.limits, log.nplayers))
    names = tuple(log.players)
    rep = replay_log(log)
    settings = Settings(options.limits, options.thresholds, world=options.world)
    tasks: list[_Task] = []
    shown: dict[int, MoveAnalysis] = {}
    for ply in rep.plies:
        rate = ply.observation is not None and (options.seats is None or ply.seat in options.seats)
        if rate:
            assert ply.observation is not None
            tasks.append(_Task(log.rules, ply, settings, names))
        else:
            shown[ply.index] = _shown(ply)
    rated = {m.ply: m for m in _map(tasks, options.jobs, progress)}
    moves = tuple(rated.get(p.index) or shown[p.index] for p in rep.plies)
    round_points = tuple(tuple(float(x) for x in r.score.points) for r in rep.rounds if r.score is not None)
    summaries = summarize(moves, names, log.nsides, round_points)
    return GameAnalysis(
        log.rules,
        names,
        log.viewer,
        log.nsides,
        options,
        moves,
        summaries,
        round_points,
        time.perf_counter() - t0,
        tuple(r.score for r in rep.rounds if r.score is not None),
        tuple(rep.match.scores),
        rep.match.winner,
    )


# With --jobs, the plies sent to a worker at a time at most, and the trips each worker makes at least
# (``_map``).
PLIES_PER_TRIP: Final = 3
TRIPS_PER_WORKER: Final = 8


def _map(
    tasks: list[_Task],
    jobs: int,
    progress: Callable[[int, int], None] | None,
) -> Iterable[MoveAnalysis]:
    total = len(tasks)
    if progress:
        progress(0, total)
    out: list[MoveAnalysis] = []
    if jobs <= 1 or total <= 1:
        for i, task in enumerate(tasks):
            out.append(_run(task))
            if progress:
                progress(i + 1, total)
        return out
    # Longest first (the early plies of a deal have the most to search) keeps the processes busy.
    tasks = sorted(tasks, key=lambda t: (t.ply.move_index, t.ply.index))
    # A few plies of about the same size a trip to a worker: each trip costs 0.15-0.25 ms of pickling
    # and waiting (of a 2-player ply's 6 ms on average), and at least TRIPS_PER_WORKER trips each
    # keep the workers' loads even.
    size = max(1, min(PLIES_PER_TRIP, total // (jobs * TRIPS_PER_WORKER)))
    trips = [tasks[i : i + size] for i in range(0, total, size)]
    with worker_pool(min(jobs, len(trips))) as pool:
        for results in pool.unordered(_run_all, trips):
            out.extend(results)
            if progress:
                progress(len(out), total)
    return out


def _run_all(tasks: list[_Task]) -> list[MoveAnalysis]:
    return [_run(t) for t in tasks]


# ---------------------------------------------------------------------------------------------------
# Summaries and luck


def luck_by_deal(moves: Sequence[MoveAnalysis], nsides: int) -> dict[int, list[DealLuck]]:
    """The luck of each deal per side (module docstring): first decision in the deal minus the value
    the side had just before the deal."""
    out: dict[int, list[DealLuck]] = {s: [] for s in range(nsides)}
    rated = [m for m in moves if m.rated and m.best_value is not None and m.played_value is not None]
    seen: set[tuple[int, int, int]] = set()
    for i, m in enumerate(rated):
        key = (m.round, m.deal, m.side)
        if key in seen:
            continue
        seen.add(key)
        prior = 0.0
        for prev in reversed(rated[:i]):
            if (prev.round, prev.deal) == (m.round, m.deal):
                continue
            if prev.round != m.round:
                break
            assert prev.played_value is not None
            if prev.side == m.side:
                prior = prev.played_value
                break
            if nsides == 2:
                prior = -prev.played_value
                break
        assert m.best_value is not None
        out[m.side].append(DealLuck(m.round, m.deal, m.best_value - prior))
    if nsides > 1:
        # Each side's values are from its own information, so the sides' lucks of one deal need not
        # cancel (both sides of a 4-player game "expected to lose" from the first deal, -12.82 and
        # -13.12 over a game); with three or more sides the prior is also the side's own last value,
        # taken before the other sides' last moves of the deal (which favour them). Each side's luck
        # is measured against the mean luck of the sides rated in that deal, so a deal's luck sums to
        # zero and the luck-adjusted results to the results.
        by_deal: dict[tuple[int, int], list[float]] = {}
        for lucks in out.values():
            for x in lucks:
                by_deal.setdefault((x.round, x.deal), []).append(x.points)
        out = {
            side: [
                DealLuck(
                    x.round,
                    x.deal,
                    x.points - sum(by_deal[(x.round, x.deal)]) / len(by_deal[(x.round, x.deal)]),
                )
                if len(by_deal[(x.round, x.deal)]) > 1
                else x
                for x in lucks
            ]
            for side, lucks in out.items()
        }
    return out


def summarize(
    moves: Sequence[MoveAnalysis],
    players: Sequence[str],
    nsides: int,
    round_points: Sequence[Sequence[float]],
) -> tuple[SeatSummary, ...]:
    """One summary per seat (see the module docstring for accuracy and luck)."""
    luck = luck_by_deal(moves, nsides)
    out = []
    for seat, name in enumerate(players):
        side = seat % nsides
        mine = [m for m in moves if m.seat == seat and m.rated]
        unforced = [m for m in mine if not m.forced]
        classes = {c.value: sum(1 for m in unforced if m.cls == c) for c in CLASSES}
        losses = [m.loss or 0.0 for m in unforced]
        total = sum(losses)
        accuracy = (sum(move_accuracy(x) for x in losses) / len(losses)) if losses else None
        result = 0.0
        for pts in round_points:
            others = [p for s, p in enumerate(pts) if s != side]
            result += pts[side] - (sum(others) / len(others) if others else 0.0)
        side_luck = tuple(luck.get(side, []))
        luck_total = sum(x.points for x in side_luck)
        out.append(
            SeatSummary(
                seat,
                name,
                side,
                len(mine),
                len(unforced),
                classes,
                total,
                total / len(losses) if losses else 0.0,
                accuracy,
                side_luck,
                luck_total,
                result,
                result - luck_total,
                sum(1 for m in moves if m.seat == seat and m.not_judged),
                game_accuracy([c for c in (m.chances() for m in unforced) if c is not None]),
            )
        )
    return tuple(out)
