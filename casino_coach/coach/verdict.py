"""The verdict on one decision: the search behind it and what it finds.

``judge`` is the one search behind every verdict, made with the limits of a verdict
(``analysis_limits``, ``decision_limits``); ``verdict_of`` reads the verdict on a move from it:
its loss with an interval, its class (``Thresholds``: best, good, inaccuracy, mistake, blunder),
whether it was forced, the explanations of the loss, and, once the game is close, the verdict for the
game (``game_verdict_of``, classed by ``GAME_THRESHOLDS``). ``coach.assessment.assess`` puts them
together for one decision; ``coach.analysis`` does it for every move of a log.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from casino_coach.coach.explain import Explanation, explain_move
from casino_coach.coach.winning import (
    CHANCE_EPSILON,
    ChanceMemo,
    for_the_game,
    game_edges,
    game_search_weights,
    surest_gain,
)
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.errors import CoachError
from casino_coach.formats.codec import move_to_json
from casino_coach.search import Limits, SearchRequest, SearchResult, evaluate


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
    """Loss thresholds in expected round points (calibrated by experiments/calibrate_classes.py).

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


# The classes of the chance of winning the game a move gave up, once the game is close, in
# fractions of a game, by the same rules as the round's classes (``Thresholds``), calibrated from
# self-play at close game scores (experiments/calibrate_classes.py --game: 245 royal positions from 8
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
    *,
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
    # Against the move that beats it most surely (``surest_gain``), as the move for the game is chosen.
    top = surest_gain(edges)
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


# Plies searched per sampled world before the leaf estimate, with any number of players: a 2-player
# deal (8 plies) to its end, and 3 and 4 players as deep (issue 41). At 5 plies, the depth before
# the native core, an outside audit against the same moves searched 8 deep found 4-player losses about
# 0.5 points too high (4 of 10 mistakes and blunders milder at 8); on the bundled 3- and 4-player logs
# 8 plies changed the class of 10-22% of the unforced moves (performance.md, "Search depth").
ANALYSIS_DEPTH: Final = 8
# With at most this many cards left in the hands, a decision is searched to the end of the deal whatever
# the depth (with 3 or 4 players: three cards each, or 3-2-2-2): there the leaf's estimate of the rest
# of the deal is what misled most, and a search to its end costs no more than the early plies of the
# deal (experiments/verdict_stability.py's 3- and 4-player games: under a second a decision). Until this
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
# experiments/verdict_stability.py: 50 classes (as many raw worlds before) 89.2% of the classes the same
# under 5 seeds, 200 classes 92.2% in less time (99 s against 108 s for the twelve games), 400 92.0%
# and 1,000 92.4% in 154 s and 188 s.
VERDICT_EXACT_WORLDS = 200


def analysis_limits(samples: int | None = None, seed: int = 0, depth: int | None = None) -> Limits:
    """The search limits every verdict uses by default: at most ``samples`` (``VERDICT_WORLDS``)
    sampled deals of the unseen cards per move, at least ``VERDICT_MIN_WORLDS`` before sampling may
    stop, ``ANALYSIS_DEPTH`` plies deep per world unless ``depth`` is given; the last deal of a
    round is searched to its end where its worlds are few (``decision_limits``)."""
    samples = VERDICT_WORLDS if samples is None else samples
    return Limits(
        samples=samples,
        min_samples=min(samples, VERDICT_MIN_WORLDS),
        seed=seed,
        depth=depth if depth is not None else ANALYSIS_DEPTH,
        nodes=VERDICT_NODES,
        exact_worlds=VERDICT_EXACT_WORLDS,
    )


def searches_deal_end(depth: int | None) -> bool:
    """Whether a search ``depth`` plies deep goes on to the end of the deal once at most
    ``DEAL_END_CARDS`` cards are left in the hands (``decision_limits``): at the analysis's depth or
    deeper (a quick look stays quick), where that depth stops short of those cards."""
    return depth is not None and ANALYSIS_DEPTH <= depth < DEAL_END_CARDS


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
    if searches_deal_end(limits.depth) and limits.depth < left <= DEAL_END_CARDS:
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
    res = evaluate(
        rules,
        obs,
        limits,
        SearchRequest(focus=move, bands=tuple(thresholds.bands), detail=True, record=record),
    )
    weights = game_search_weights(rules, obs, scores)
    if weights is None:
        return res
    game = evaluate(
        rules,
        obs,
        limits,
        SearchRequest(focus=move, bands=tuple(thresholds.bands), detail=True, category_weights=weights),
    )
    return dataclasses.replace(res, for_game=game)


def verdict_of(
    rules: RuleSet,
    obs: Observation,
    res: SearchResult,
    move: Move,
    thresholds: Thresholds,
    *,
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
        explanations = explain_move(rules, obs, res, move, round(loss, 2), names=names or None)
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
