"""The verdict on one decision: the search behind it and what it finds.

``judge`` is the one search behind every verdict, made with the limits of a verdict
(``analysis_limits``, ``decision_limits``); ``verdict_of`` reads the verdict on a move from it:
its loss with an interval, its class (``Thresholds``: best, good, inaccuracy, mistake, blunder),
whether it was forced, the explanations of the loss, and, once the game is close, the verdict for the
game (``game_verdict_of``, classed by ``GAME_THRESHOLDS``). ``coach.assessment.assess`` puts them
together for one decision; ``coach.analysis`` does it for every move of a log. The classes and
their thresholds are in ``coach.classes``, the limits' numbers in ``coach.budget``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from casino_coach.coach.budget import (
    ANALYSIS_DEPTH,
    CUT_MARGINS,
    DEAL_END_CARDS,
    LAST_LEAF_MARGIN,
    ROUND_END_CARDS,
    VERDICT_EXACT_WORLDS,
    VERDICT_LEAF,
    VERDICT_MIN_WORLDS,
    VERDICT_NODES,
    VERDICT_NODES_FOUR,
    VERDICT_SHUFFLED,
    VERDICT_WORLDS,
    VERDICT_WORLDS_MANY,
)
from casino_coach.coach.classes import GAME_THRESHOLDS, MoveClass, Thresholds
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
from casino_coach.engine.state import HAND_SIZE
from casino_coach.formats.codec import move_to_json
from casino_coach.search import Limits, SearchRequest, SearchResult, evaluate
from casino_coach.search.expectimax import goes_to_round_end
from casino_coach.search.leaf import HANDMADE, learned_weights


@dataclass(frozen=True)
class GameVerdict:
    """The verdict on a move for the game (``game_verdict_of``): the move best for the game among
    those valued, the chance of winning the game the move played gave up against it (a fraction of a
    game), its 95% interval over the worlds searched (``search.chances.game_edges``), and the class
    of that loss under ``GAME_THRESHOLDS`` (``Thresholds.classify_interval``, as for the round), and
    how much more chance the move played leaves than the best move for the round with confidence
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


def analysis_limits(samples: int | None = None, seed: int = 0, depth: int | None = None) -> Limits:
    """The search limits every verdict uses by default: at most ``samples`` sampled deals of the
    unseen cards per move (by default ``VERDICT_WORLDS`` with two players and ``VERDICT_WORLDS_MANY``
    with more: ``limits_for``), at least ``VERDICT_MIN_WORLDS`` before sampling may stop,
    ``ANALYSIS_DEPTH`` plies deep per world unless ``depth`` is given; the last deal of a round is
    searched to its end where its worlds are few (``decision_limits``)."""
    many = VERDICT_WORLDS_MANY if samples is None else None
    samples = VERDICT_WORLDS if samples is None else samples
    return Limits(
        samples=samples,
        samples_many=many,
        min_samples=min(samples, VERDICT_MIN_WORLDS),
        seed=seed,
        depth=depth if depth is not None else ANALYSIS_DEPTH,
        nodes=VERDICT_NODES,
        nodes_four=VERDICT_NODES_FOUR,
        exact_worlds=VERDICT_EXACT_WORLDS,
        leaf=VERDICT_LEAF,
        shuffled=VERDICT_SHUFFLED,
    )


def leaf_used(rules: RuleSet, nplayers: int, nsides: int, limits: Limits) -> str:
    """The estimate a search with ``limits`` values the end of a deal with, for these rules and
    players: the learned leaf where it has weights (``leaf.learned_weights``: two sides playing a
    fitted preset), else the handmade one, whatever the limits ask."""
    if limits.leaf == HANDMADE or learned_weights(rules, nplayers, nsides) is None:
        return HANDMADE
    return limits.leaf


def searches_deal_end(depth: int | None) -> bool:
    """Whether a search ``depth`` plies deep goes on to the end of the deal once at most
    ``DEAL_END_CARDS`` cards are left in the hands (``decision_limits``): at the analysis's depth or
    deeper (a quick look stays quick), where that depth stops short of those cards."""
    return depth is not None and ANALYSIS_DEPTH <= depth < DEAL_END_CARDS


def limits_for(limits: Limits, nplayers: int) -> Limits:
    """``limits`` for a game of ``nplayers``: with three or more, at most ``limits.samples_many``
    worlds where it is set (the analysis's default: ``VERDICT_WORLDS_MANY``), else ``limits.samples``;
    with four, ``limits.nodes_four`` nodes where it is set (``VERDICT_NODES_FOUR``), else
    ``limits.nodes``. The result has no ``samples_many`` or ``nodes_four`` left to resolve, so that
    an analysis records the worlds and nodes its verdicts could take."""
    if limits.samples_many is None and limits.nodes_four is None:
        return limits
    samples = limits.samples if nplayers == 2 or limits.samples_many is None else limits.samples_many
    nodes = limits.nodes_four if nplayers == 4 and limits.nodes_four is not None else limits.nodes
    return dataclasses.replace(
        limits,
        samples=samples,
        min_samples=min(samples, limits.min_samples),
        samples_many=None,
        nodes=nodes,
        nodes_four=None,
    )


def decision_limits(limits: Limits, obs: Observation) -> Limits:
    """The limits one decision is judged with: ``limits``, except that the last deal of a 2-player
    round is searched to the end of the round (every card is known to a player who counts, so the
    values are exact), and so is the deal before it once at most ``ROUND_END_CARDS`` cards are left
    in the hands (``expectimax.goes_to_round_end``: the last deal dealt every way the stock can be); that
    any deal is searched to its end once at most ``DEAL_END_CARDS`` cards are left in the hands, and
    the last deal of a round always (the end of the round, where no leaf estimate is left: a
    4-player last deal whole, 16 cards); unless the limits ask for less than the analysis's depth (a
    quick look); with the number of worlds for the number of players (``limits_for``)."""
    limits = limits_for(limits, obs.nplayers)
    if limits.depth is None:
        return limits
    if obs.stock_count == 0 and obs.nplayers == 2:
        return dataclasses.replace(limits, depth=None)
    left = sum(obs.hand_sizes)
    to_end = left + obs.stock_count
    if (
        left <= ROUND_END_CARDS
        and ANALYSIS_DEPTH <= limits.depth < to_end
        and goes_to_round_end(obs.nplayers, left, obs.stock_count, to_end)
    ):
        return dataclasses.replace(limits, depth=to_end)
    if (
        searches_deal_end(limits.depth)
        and limits.depth < left
        and (left <= DEAL_END_CARDS or obs.stock_count == 0)
    ):
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
    the move's loss lies between two edges of ``thresholds`` (``Thresholds.edges``, *best*'s among
    them) with confidence (``noise`` standard errors), or the sample limit or the node budget is
    reached, and records what is needed to explain the loss.
    Without, it aims at the best move. Either way it records what explanations need (``detail``), so
    that every caller's search is the same one. Where the search stopped short of the end of the
    round, every loss's interval is widened by the error of that cut (``cut_margin``), which sampling
    more does not shrink."""
    limits = dataclasses.replace(decision_limits(limits, obs), separation=thresholds.noise)
    res = evaluate(
        rules,
        obs,
        limits,
        SearchRequest(focus=move, bands=thresholds.edges, detail=True, record=record),
    )
    margin = cut_margin(obs, res.round_end)
    if margin:  # the depth cut's error, which the standard errors do not cover
        res = dataclasses.replace(res, cut_margin=margin)
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


def cut_margin(obs: Observation, round_end: bool) -> float:
    """What is added to both ends of a loss's interval for the error of the depth cut and the leaf,
    which the standard errors do not cover: none where the search went to the end of the round; with
    two players in the deal before the last, where it stopped on the leaf's estimate of the whole last
    deal, ``budget.LAST_LEAF_MARGIN``; else ``budget.CUT_MARGINS`` by the number of players."""
    if round_end:
        return 0.0
    if obs.nplayers == 2 and obs.stock_count == obs.nplayers * HAND_SIZE:
        return LAST_LEAF_MARGIN
    return CUT_MARGINS.get(obs.nplayers, 0.0)


def move_class(res: SearchResult, move: Move, thresholds: Thresholds) -> tuple[float, MoveClass]:
    """The loss of ``move`` against the best in the search ``res`` and the class ``verdict_of`` gives
    it (``Thresholds.classify_interval``: the estimate's, at most one above its interval's low end's)."""
    loss, low, _ = res.loss(move, thresholds.noise)
    return loss, thresholds.classify_interval(loss, low)


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
    cls = thresholds.classify_interval(loss, low)
    # The standard error of the paired difference to the best move, or for the best move itself to
    # the runner-up: a best verdict carries its error bar too.
    other = best.move if best.move != move else (res.moves[1].move if len(res.moves) > 1 else move)
    _, stderr, _ = res.paired(other, move) if other != move else (0.0, 0.0, 0)
    game = game_verdict_of(rules, obs, res, move, scores, memo=memo) if len(res.moves) > 1 else None
    # Every move worth the same for the round is still a choice where the game tells them apart.
    forced = _forced(res) and (game is None or not game.differs)
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
