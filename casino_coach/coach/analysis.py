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
* **explanations** naming the cards (``casino_coach.coach.explain``), whose points add up to the loss.

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
from enum import StrEnum
from typing import Any, Final, NamedTuple

from casino_coach.coach.explain import Explanation, explain
from casino_coach.coach.winning import (
    CHANCE_EPSILON,
    ChanceMemo,
    WinChances,
    decision_chances,
    for_the_game,
    game_edges,
    game_search_weights,
)
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points, RoundScore
from casino_coach.engine.state import Build, RoundState
from casino_coach.errors import CoachError, TooBigToSearch, quoted
from casino_coach.formats.codec import move_to_json
from casino_coach.formats.log import GameLog
from casino_coach.formats.replay import Ply, replay
from casino_coach.formats.text import player_name
from casino_coach.search import Limits, MoveValue, SearchResult, evaluate, evaluate_world
from casino_coach.workers import worker_pool


class MoveClass(StrEnum):
    """How good a move was, from its loss in expected points."""

    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


CLASSES: tuple[MoveClass, ...] = tuple(MoveClass)


@dataclass(frozen=True)
class Thresholds:
    """Loss thresholds in expected round points (calibrated by scripts/calibrate_classes.py).

    A move is *best* when it is the search's best move or within ``best`` of it; *good* below
    ``inaccuracy``; an *inaccuracy* below ``mistake``; a *mistake* below ``blunder``; a *blunder* from
    ``blunder`` up. A loss no larger than ``noise`` standard errors is at most an inaccuracy.
    """

    inaccuracy: float = 0.2
    mistake: float = 0.5
    blunder: float = 1.0
    best: float = 0.01
    noise: float = 2.0

    def __post_init__(self) -> None:
        if not 0 <= self.best <= self.inaccuracy <= self.mistake <= self.blunder:
            raise CoachError(
                f"class thresholds must grow: best {self.best} <= inaccuracy {self.inaccuracy} <= "
                f"mistake {self.mistake} <= blunder {self.blunder}"
            )
        if self.noise < 0 or not all(math.isfinite(x) for x in dataclasses.astuple(self)):
            raise CoachError("class thresholds must be finite and the noise factor at least 0")

    @property
    def bands(self) -> tuple[float, float, float]:
        """The class edges above *good*, in points: where the loss's interval must not straddle."""
        return (self.inaccuracy, self.mistake, self.blunder)

    def classify(self, loss: float, stderr: float = 0.0, is_best: bool = False) -> MoveClass:
        """The class of a move that lost ``loss`` points, measured with standard error ``stderr``
        (``classify_interval`` on ``noise`` standard errors either side)."""
        if is_best:
            return MoveClass.BEST
        return self.classify_interval(loss, loss - self.noise * stderr)

    def band(self, loss: float) -> int:
        """How many class edges above *good* (``bands``) the loss reaches, at ``EDGE_DECIMALS``."""
        x = round(loss, EDGE_DECIMALS)
        return sum(1 for edge in self.bands if x >= edge)

    def classify_interval(self, loss: float, low: float) -> MoveClass:
        """The class of a move whose loss is ``loss`` and at least ``low`` with confidence: the class
        of the lower end of its interval. When the search could not pin the loss inside one class,
        this is the lower class, never a harsher one than the evidence supports; *best* is a move the
        search cannot tell from the best move by more than ``best`` points (and whose loss is below
        the *inaccuracy* edge: a move that probably loses more is at best *good*)."""
        loss = round(loss, EDGE_DECIMALS)
        low = max(0.0, min(round(low, EDGE_DECIMALS), loss))
        if loss <= self.best or (low <= self.best and loss < self.inaccuracy):
            return MoveClass.BEST
        return _ABOVE_BEST[self.band(low)]


# Losses are sums of floats: an exact loss of one point can come out as 0.9999999999999996, a mistake
# where the edge says blunder. A loss is set against the edges rounded to this many decimals.
EDGE_DECIMALS: Final = 9
_ABOVE_BEST: Final = (MoveClass.GOOD, MoveClass.INACCURACY, MoveClass.MISTAKE, MoveClass.BLUNDER)


# The classes of the chance of winning the game a move gave up, once the game is close (issue 18), in
# fractions of a game, by the same rules as the round's classes (``Thresholds``), calibrated from
# self-play at close game scores (scripts/calibrate_classes.py --game: 245 royal positions from 8
# counter games to 21, two searches each at the analysis's limits). The noise is small, 95% of the
# chances lost by the first search's best move for the game in the second search under 0.06% (max
# 1.3%), so the rules' floors set the edges: inaccuracy 2%, mistake 5%, blunder 10% of a game.
# ``best``: a move that gives up less than a tenth of a percent is as good as the best for the game.
GAME_THRESHOLDS: Final = Thresholds(inaccuracy=0.02, mistake=0.05, blunder=0.10, best=0.001)


@dataclass(frozen=True)
class GameVerdict:
    """The verdict on a move for the game (``game_verdict_of``): the move best for the game among
    those valued, the chance of winning the game the move played gave up against it (a fraction of a
    game), its 95% interval over the worlds searched (``search.chances.game_edges``), and the class
    of that loss under ``GAME_THRESHOLDS`` (the low end of the interval, as for the round), and how
    much more chance the move played leaves than the best move for the round with confidence
    (``ahead``: the low end of that gain, 0 when it is not above 0 or the move is the round's best)."""

    best: Move
    lost: float
    low: float
    high: float
    cls: MoveClass
    uncertain: bool
    ahead: float = 0.0
    # Whether some move valued leaves another chance of the game than the move played (a move
    # whose round value ties with every other is still a choice for the game then).
    differs: bool = True


def game_verdict_of(
    rules: RuleSet,
    obs: Observation,
    res: SearchResult,
    move: Move,
    scores: Sequence[Points] | None,
    thresholds: Thresholds = GAME_THRESHOLDS,
    memo: ChanceMemo | None = None,
) -> GameVerdict | None:
    """The verdict on ``move`` for the game that started the round at ``scores`` (from a search of
    its decision, ``judge``), compared with every move the search valued (the move best for the game
    may be far down the round's order: the one that gives up round points for the item that wins),
    each paired over the worlds both were searched in: only once the game is close
    (``for_the_game``: far from the target the game's chance follows the round's margin, and the
    round's class says it all), with two sides and a table for the rules; None otherwise. ``memo``:
    what the decision's other chances share (``decision_chances``)."""
    if scores is None or not for_the_game(rules, obs, scores):
        return None
    edges = game_edges(rules, obs, scores, res, move, memo)
    if edges is None:
        return None
    # Against the move that beats it with most confidence (the highest low end), not the highest
    # mean: a move searched in a handful of worlds before it left the race can show a large mean
    # edge by chance alone. Edges within CHANCE_EPSILON of 0 are none (chances equal but for the
    # rounding of floats).
    ahead_of = [e for e in edges if e.gain > CHANCE_EPSILON]
    top = max(ahead_of, key=lambda e: (e.low, e.gain)) if ahead_of else None
    lost = top.gain if top is not None else 0.0
    low = max(0.0, top.low) if top is not None else 0.0
    # The interval of the loss against that move; where no move is ahead, how much the move played
    # may still lose against any of them.
    high = max(lost, top.high) if top is not None else max([0.0, *(e.high for e in edges)])
    # The round's best move against the move played: the move played is ahead for the game with
    # confidence where even the high end of the round's best's edge over it is below 0.
    ahead = max([0.0, *(-e.high for e in edges if e.move.move == res.moves[0].move)])
    return GameVerdict(
        top.move.move if top is not None else move,
        lost,
        low,
        high,
        thresholds.classify_interval(lost, low),
        thresholds.band(low) != thresholds.band(high),
        ahead,
        any(abs(e.gain) > CHANCE_EPSILON for e in edges),
    )


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


@dataclass(frozen=True)
class WorldCost:
    """The move against the cards actually held (perfect information)."""

    best: Move
    best_value: float
    played_value: float
    loss: float
    cls: MoveClass


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
    alternatives: tuple[tuple[Move, float], ...] = ()  # the best few moves and their values
    world: WorldCost | None = None
    verdict: Explanation | None = None  # "unlucky" / "lucky" when the two costs disagree
    samples: int = 0  # worlds searched
    seconds: float = 0.0
    # The loss's confidence interval (``Thresholds.noise`` standard errors of the paired difference,
    # Student's t with few worlds); a single point when the values are exact.
    loss_low: float = 0.0
    loss_high: float = 0.0
    shallow: bool = False  # the node budget forced a shallower search than the limits asked for
    uncertain: bool = False  # the interval straddles a class edge: the class is the lower one
    view: PositionView | None = None  # the whole position before the move, as far as the log tells
    # The chance of each side to win the game (``coach.winning``): before the round, and once it is
    # over after the best move and after the move played. None without a table for the rules.
    win: WinChances | None = None
    # The verdict for the game once it is close (``game_verdict_of``): the chance of winning it lost.
    game: GameVerdict | None = None
    # Why the move is not rated although its hand is known: the decision is bigger than the search
    # takes on (``search.expectimax.MAX_LOOSE``, ``MAX_MOVES``), in the words suggest and the engine use.
    not_judged: str | None = None

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


# Plies searched per sampled world before the leaf estimate, by number of players: with more hands in
# play each ply costs more, and a whole game must stay a matter of a minute or two. Each reaches the
# mover's next turn: at 4 plies four players' lines stopped just before it, so a build was never seen
# to come home and the leaf, which knows no owners, gave its cards to nobody (a multiple build of 9
# whose every other 9 was seen, a 1.82-point blunder; best at 5 plies). Against a reference of four
# times the worlds at 8 plies (the two royal 4-player games of scripts/verdict_stability.py), 5 plies
# gave mean absolute loss errors of 0.118 and 0.077 where 4 gave 0.155 and 0.090 (0.49 and 0.02 on
# builds, against 0.80 and 0.21), classes agreeing 35/42 and 24/36 (33/42 and 24/36), in 1.3 and 1.6
# times the time.
ANALYSIS_DEPTH = {2: 8, 3: 5, 4: 5}
# With at most this many cards left in the hands, a decision is searched to the end of the deal whatever
# the depth (with 3 or 4 players: three cards each, or 3-2-2-2): there the leaf's estimate of the rest
# of the deal is what misled most, and a search to its end costs no more than the early plies of the
# deal (scripts/verdict_stability.py's 3- and 4-player games: under a second a decision). Until this
# rule, a 3- or 4-player last deal whose worlds were enumerated was meant to be searched to its end,
# but a depth of None there means 4 plies (``expectimax.AUTO_DEPTH_MANY``): it was searched 4 deep.
DEAL_END_CARDS = 9


# How many worlds a verdict may rest on: at least VERDICT_MIN_WORLDS, and more, up to VERDICT_WORLDS,
# while the loss of the move played still straddles a class edge (``judge``); the node budget is large
# enough that those worlds fit at the analysis depth, or the decision is searched shallower.
VERDICT_WORLDS = 320
VERDICT_MIN_WORLDS = 16
VERDICT_NODES = 1_600_000
# Enumerate the consistent worlds when they fall into at most this many classes (worlds that differ
# only by where unseen twins lie are one class, ``search.worlds.world_classes``): with two players that
# covers most decisions where the other player holds two cards (100-400 classes), and every one where
# it holds one; then the values are exact for the search's depth. Measured with
# scripts/verdict_stability.py: 50 classes (as many raw worlds before) 89.2% of the classes the same
# under 5 seeds, 200 classes 92.2% in less time (99 s against 108 s for the twelve games), 400 92.0%
# and 1,000 92.4% in 154 s and 188 s.
VERDICT_EXACT_WORLDS = 200


def analysis_limits(
    samples: int | None = None, seed: int = 0, nplayers: int = 2, depth: int | None = None
) -> Limits:
    """The search limits every verdict uses by default: at most ``samples`` (``VERDICT_WORLDS``)
    sampled deals of the unseen cards per move, at least ``VERDICT_MIN_WORLDS`` before sampling may
    stop, ``ANALYSIS_DEPTH`` plies deep per world unless ``depth`` is given; the last deal of a
    round is searched to its end where its worlds are few (``decision_limits``)."""
    samples = VERDICT_WORLDS if samples is None else samples
    return Limits(
        samples=samples,
        min_samples=min(samples, VERDICT_MIN_WORLDS),
        seed=seed,
        depth=depth if depth is not None else ANALYSIS_DEPTH.get(nplayers, 4),
        nodes=VERDICT_NODES,
        exact_worlds=VERDICT_EXACT_WORLDS,
    )


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


def searches_deal_end(depth: int | None, nplayers: int) -> bool:
    """Whether a search ``depth`` plies deep goes on to the end of the deal once at most
    ``DEAL_END_CARDS`` cards are left in the hands (``decision_limits``): at the analysis's depth or
    deeper (a quick look stays quick), where that depth stops short of those cards."""
    return depth is not None and ANALYSIS_DEPTH.get(nplayers, 4) <= depth < DEAL_END_CARDS


def decision_limits(limits: Limits, obs: Observation) -> Limits:
    """The limits one decision is judged with: ``limits``, except that the last deal of a 2-player
    round is searched to the end of the round (every card is known to a player who counts, so the
    values are exact), and any deal is searched to its end once at most ``DEAL_END_CARDS`` cards are
    left in the hands (the end of the round in a last deal: with 3 or 4 players too, exact where the
    worlds are enumerated), unless the limits ask for less than the analysis's depth (a quick look)."""
    if limits.depth is None:
        return limits
    if obs.stock_count == 0 and obs.nplayers == 2:
        return dataclasses.replace(limits, depth=None)
    left = sum(obs.hand_sizes)
    if searches_deal_end(limits.depth, obs.nplayers) and limits.depth < left <= DEAL_END_CARDS:
        return dataclasses.replace(limits, depth=left)
    return limits


def judge(
    rules: RuleSet,
    obs: Observation,
    limits: Limits,
    thresholds: Thresholds = Thresholds(),
    move: Move | None = None,
    *,
    record: bool = False,
    scores: Sequence[Points] | None = None,
) -> SearchResult:
    """The one search behind every verdict: ``analyze``, ``export``, ``suggest``, ``tree``, the hints
    and the tutor of ``play``, the engine and batch analysis all judge a decision through it, so the
    same position with the same settings gets the same values, bit for bit (``record``: keep the
    search tree, which changes nothing else).

    With the game score the round started at (``scores``), a decision of a close game before the last
    deal (``chances.game_search_weights``) is searched a second time for the game, as the searcher
    bot searches it, with the same limits, worlds and focus,
    into ``SearchResult.for_game``: the chances to win and the move for the game come from it.

    With the ``move`` played (or about to be), sampling aims at that move's class: it goes on until
    the move's loss lies inside one band of ``thresholds`` with confidence (``noise`` standard
    errors), or the sample limit is reached, and records what is needed to explain the loss.
    Without, it aims at the best move. Either way it records what explanations need (``detail``), so
    that every caller's search is the same one."""
    limits = dataclasses.replace(decision_limits(limits, obs), separation=thresholds.noise)
    res = evaluate(rules, obs, limits, focus=move, bands=thresholds.bands, detail=True, record=record)
    weights = game_search_weights(rules, obs, scores)
    if weights is None:
        return res
    game = evaluate(
        rules, obs, limits, focus=move, bands=thresholds.bands, detail=True, category_weights=weights
    )
    return dataclasses.replace(res, for_game=game)


def why_not_second(rules: RuleSet, obs: Observation, res: SearchResult, names: Sequence[str] = ()) -> str:
    """Why the best move of ``res`` (a search made with ``detail``) beats the runner-up, in the
    explanations' words: what the runner-up would lose, category by category."""
    best = res.moves[0]
    if len(res.moves) == 1:
        return f"{best.move.describe()} is the only legal move."
    second = res.moves[1]
    loss = max(0.0, best.ev - second.ev)
    head = f"Best: {best.move.describe()}. The next best, {second.move.describe()}, loses {loss:.2f}"
    reasons = explain(rules, obs, res, second.move, round(loss, 2), names=names or None, yours="it")
    if not reasons:
        return head + ": about as good."
    return head + ":\n" + "\n".join(f"  - {e.text} ({e.points:.2f})" for e in reasons)


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
    return _rate(rules, ply, limits, thresholds, tuple(names or ()), True)


def verdict_of(
    rules: RuleSet,
    obs: Observation,
    res: SearchResult,
    move: Move,
    thresholds: Thresholds,
    names: Sequence[str] = (),
    scores: Sequence[Points] | None = None,
    memo: ChanceMemo | None = None,
) -> Verdict:
    """The verdict on ``move`` from a search of its decision (``judge``): loss, interval, class,
    whether the move was forced, and the explanations of the loss; with the game score the round
    started at (``scores``), the verdict for the game too once it is close (``game_verdict_of``, with
    ``memo``)."""
    best = res.moves[0]
    loss, low, high = res.loss(move, thresholds.noise)
    # The standard error of the paired difference to the best move, or for the best move itself to
    # the runner-up: a best verdict carries its error bar too.
    other = best.move if best.move != move else (res.moves[1].move if len(res.moves) > 1 else move)
    _, stderr, _ = res.paired(other, move) if other != move else (0.0, 0.0, 0)
    game = game_verdict_of(rules, obs, res, move, scores, memo=memo) if len(res.moves) > 1 else None
    # Every move worth the same for the round is still a choice where the game tells them apart.
    forced = _forced(res) and (game is None or not game.differs)
    cls = thresholds.classify_interval(loss, low)
    explanations: tuple[Explanation, ...] = ()
    if cls != MoveClass.BEST and not forced:
        explanations = explain(rules, obs, res, move, round(loss, 2), names=names or None)
    return Verdict(
        best.move,
        loss,
        low,
        high,
        stderr if math.isfinite(stderr) else 0.0,
        cls,
        forced,
        thresholds.band(low) != thresholds.band(high),
        explanations,
        None if forced else game,
    )


@dataclass(frozen=True)
class Verdict:
    """What ``verdict_of`` finds."""

    best: Move
    loss: float
    low: float
    high: float
    stderr: float
    cls: MoveClass
    forced: bool
    uncertain: bool
    explanations: tuple[Explanation, ...]
    game: GameVerdict | None = None  # once the game is close (``game_verdict_of``)


def verdict_json(
    v: Verdict, ev: float, num: Callable[[float], Any], seat: int | None = None
) -> dict[str, Any]:
    """A verdict as JSON data, as ``suggest --json`` and the engine write it: the move's ``ev``, its
    ``loss`` with ``loss_interval``, ``class``, ``forced``, ``explanations`` and ``game_class``
    (``game_class_json``, its move with ``seat`` where the output's moves carry one); ``num`` writes
    the numbers (each output keeps its own convention)."""
    return {
        "ev": num(ev),
        "loss": num(v.loss),
        "loss_interval": [num(v.low), num(v.high)],
        "class": v.cls.value,
        "forced": v.forced,
        "explanations": [{"kind": e.kind, "text": e.text, "points": e.points} for e in v.explanations],
        "game_class": game_class_json(v.game, seat),
    }


def game_class_json(g: GameVerdict | None, seat: int | None = None) -> dict[str, Any] | None:
    """A verdict for the game (``GameVerdict``) as JSON data: ``class``, the chance of winning the
    game ``lost`` (a fraction, 4 decimals) with ``lost_interval``, ``uncertain``, and the move
    ``best`` for the game; null where the game is not close or has no table."""
    if g is None:
        return None
    return {
        "class": g.cls.value,
        "lost": round(g.lost, 4),
        "lost_interval": [round(g.low, 4), round(g.high, 4)],
        "uncertain": g.uncertain,
        "best": move_to_json(g.best, seat),
    }


def _forced(res: SearchResult) -> bool:
    """One legal move, or every move worth exactly the same in every consistent world (they were
    all enumerated: a sample cannot show that no world tells the moves apart)."""
    if len(res.moves) == 1:
        return True
    if res.population is None or res.samples < res.population:
        return False
    for i in range(len(res.weights)):
        vals = [mv.values[i] for mv in res.moves]
        if any(v != v for v in vals) or max(vals) - min(vals) > 1e-9:
            return False
    return True


def _rate(
    rules: RuleSet, ply: Ply, limits: Limits, thresholds: Thresholds, names: tuple[str, ...], world: bool
) -> MoveAnalysis:
    """Search the position before ``ply`` from the mover's view and rate the move played."""
    t0 = time.perf_counter()
    obs = ply.observation
    assert obs is not None
    base = _shown(ply)
    try:
        res = judge(rules, obs, limits, thresholds, ply.move, scores=ply.scores)
    except TooBigToSearch as e:  # shown with the reason, left out of the counts like an unrated move
        return dataclasses.replace(base, not_judged=str(e), seconds=time.perf_counter() - t0)
    memo = ChanceMemo()  # the game verdict and the chances reported meet the same worlds' outcomes
    v = verdict_of(rules, obs, res, ply.move, thresholds, names, ply.scores, memo)
    played_ev = res.value_of(ply.move).ev
    win = decision_chances(rules, obs, ply.scores, _win_moves(res, ply.move, v.game), res, memo)
    wc: WorldCost | None = None
    verdict: Explanation | None = None
    if world and ply.state is not None and not v.forced:
        wres = evaluate_world(rules, ply.state, decision_limits(limits, obs))
        wbest = wres.moves[0]
        wp_ev = wres.value_of(ply.move).ev
        wloss = max(0.0, wbest.ev - wp_ev)
        wcls = thresholds.classify(wloss, 0.0, wbest.move == ply.move)
        wc = WorldCost(wbest.move, wbest.ev, wp_ev, wloss, wcls)
        verdict = _verdict(ply.move, v.cls, wc)
    return dataclasses.replace(
        base,
        rated=True,
        best=v.best,
        played_value=played_ev,
        best_value=res.moves[0].ev,
        loss=v.loss,
        stderr=v.stderr,
        cls=v.cls,
        forced=v.forced,
        exact=res.exact,
        legal=len(res.moves),
        explanations=v.explanations,
        alternatives=tuple((mv.move, mv.ev) for mv in res.moves[:3]),
        world=wc,
        verdict=verdict,
        samples=res.samples,
        seconds=time.perf_counter() - t0,
        loss_low=v.low,
        loss_high=v.high,
        shallow=res.shallow,
        uncertain=v.uncertain,
        win=win,
        game=v.game,
    )


# The moves whose game chances a verdict shows: the best few for the round, the one best for the game
# (``game_verdict_of``, once the game is close) and the one played.
WIN_MOVES: Final = 3


def _win_moves(res: SearchResult, played: Move, game: GameVerdict | None = None) -> list[MoveValue]:
    """The moves whose game chances a verdict shows: the best few, the best for the game, the one
    played."""
    out = list(res.moves[:WIN_MOVES])
    for move in (game.best if game is not None else played, played):
        if all(mv.move != move for mv in out):
            out.append(res.value_of(move))
    return out


_GOOD = (MoveClass.BEST, MoveClass.GOOD)
_BAD = (MoveClass.MISTAKE, MoveClass.BLUNDER)


def _verdict(move: Move, cls: MoveClass, wc: WorldCost) -> Explanation | None:
    if cls in _GOOD and wc.cls in _BAD:
        return Explanation(
            "unlucky",
            f"Right on what you knew, unlucky: with the cards actually held {move.describe()} cost "
            f"{wc.loss:.2f} points ({wc.best.describe()} would have been best)",
            0.0,
        )
    if cls in _BAD and wc.cls in _GOOD:
        return Explanation(
            "lucky",
            f"Lucky: the risk did not come — with the cards actually held {move.describe()} "
            + (f"cost only {wc.loss:.2f} points" if round(wc.loss, 2) > 0 else "cost nothing"),
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
    limits: Limits
    thresholds: Thresholds
    names: tuple[str, ...]
    world: bool


def _run(task: _Task) -> MoveAnalysis:
    return _rate(task.rules, task.ply, task.limits, task.thresholds, task.names, task.world)


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


def analyze(
    log: GameLog,
    options: AnalysisOptions = AnalysisOptions(),
    progress: Callable[[int, int], None] | None = None,
) -> GameAnalysis:
    """Analyse every move of ``log``; ``progress(done, total)`` is called as rated moves finish."""
    t0 = time.perf_counter()
    names = tuple(log.players)
    rep = replay(log)
    tasks: list[_Task] = []
    shown: dict[int, MoveAnalysis] = {}
    for ply in rep.plies:
        rate = ply.observation is not None and (options.seats is None or ply.seat in options.seats)
        if rate:
            assert ply.observation is not None
            tasks.append(_Task(log.rules, ply, options.limits, options.thresholds, names, options.world))
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
    with worker_pool(min(jobs, total)) as pool:
        for i, result in enumerate(pool.unordered(_run, tasks)):
            out.append(result)
            if progress:
                progress(i + 1, total)
    return out


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
