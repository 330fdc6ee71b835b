"""One assessment of a decision: the search, the verdicts and the chances, computed once.

Every entry point that judges a decision (``analyze``, ``export``, ``suggest``, ``tree``, ``play``'s
hint and tutor, the engine, batch analysis) builds a ``Decision``, calls ``assess`` with its
``Settings`` and renders the ``Assessment`` it gets back. So the same position with the same settings
gets the same values everywhere, bit for bit, and nothing is computed twice.

``assess`` searches the decision from the mover's point of view (``verdict.judge``), judges the move
played when there is one (``verdict.verdict_of``: loss, interval, class, explanations, and the
verdict for the game once it is close), gives the chance to win the game after every move valued
(``winning.decision_chances``), picks the move to play for the game where one is clearly better for
it than the round's best (``winning.choose_for_game``), and, when the real cards are known, values
the move against them too (``WorldCost``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from casino_coach.coach.classes import MoveClass, Thresholds
from casino_coach.coach.explain import Explanation, explain_move
from casino_coach.coach.headline import decision_headline, for_game_headline, move_headline
from casino_coach.coach.verdict import (
    GameVerdict,
    Verdict,
    analysis_limits,
    decision_limits,
    judge,
    verdict_of,
)
from casino_coach.coach.winning import ChanceMemo, GameEdge, WinChances, choose_for_game, decision_chances
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import RoundState
from casino_coach.frozen import Frozen
from casino_coach.search import Limits, MoveValue, SearchResult, evaluate_world


@dataclass(frozen=True)
class Decision(Frozen):
    """A decision to judge: the rules, the mover's observation (what the mover knows), the move
    played there or about to be (None: which move is best?), the game score per side the round
    started at (None where it is not known: no chances to win the game), the players' names (for the
    explanations' words) and the real position when every hand is known (the world cost)."""

    rules: RuleSet
    obs: Observation
    played: Move | None = None
    scores: tuple[Points, ...] | None = None
    names: tuple[str, ...] = ()
    state: RoundState | None = None


@dataclass(frozen=True)
class Settings(Frozen):
    """How a decision is judged: the search ``limits`` (the seed is a salt: each decision seeds
    itself), the class ``thresholds``, whether to keep the search tree (``record``: ``tree``), whether
    to value the move played against the real cards where the decision has them (``world``), and
    whether to explain what the runner-up loses against the best move (``runner_up``: ``suggest``'s
    and the hint's "why")."""

    limits: Limits = field(default_factory=analysis_limits)
    thresholds: Thresholds = field(default_factory=Thresholds)
    record: bool = False
    world: bool = False
    runner_up: bool = False


@dataclass(frozen=True)
class WorldCost(Frozen):
    """The move against the cards actually held (perfect information)."""

    best: Move
    best_value: float
    played_value: float
    loss: float
    cls: MoveClass


@dataclass(frozen=True)
class Assessment(Frozen):
    """Everything known about one decision, computed once (``assess``).

    ``result``: the search (``SearchResult``, with the search for the game where one was made);
    ``verdict``: on the move played (None without one), with the verdict for the game in
    ``verdict.game`` once the game is close; ``chances``: the chance of each side to win the game
    before the round and after every move valued (None without a game score or a table for the
    rules); ``for_game``: the move to play for the game instead of the round's best, where one is
    clearly better for it; ``world``: the move played against the real cards (None unless asked and
    known, or when the move was forced); ``equal``: the other moves that the search cannot tell from
    the best (``equal_moves``: each would be classed *best*), best first; ``runner_up``: what the
    next move that is not equal loses against the best move, category by category (empty unless
    asked). ``headline``: the decision in one sentence, the same for every command
    (``coach.headline``: the best move as an instruction and the decisive reason); ``detail``: the
    reasons below it, category by category, adding up to the loss (the verdict's explanations for a
    move played, else what the runner-up loses)."""

    decision: Decision
    settings: Settings
    result: SearchResult
    verdict: Verdict | None = None
    chances: WinChances | None = None
    for_game: GameEdge | None = None
    world: WorldCost | None = None
    equal: tuple[Move, ...] = ()
    runner_up: tuple[Explanation, ...] = ()
    headline: str | None = None
    detail: tuple[Explanation, ...] = ()

    @property
    def game_verdict(self) -> GameVerdict | None:
        """The verdict on the move played for the game, once the game is close."""
        return self.verdict.game if self.verdict is not None else None

    @property
    def side(self) -> int:
        """The mover's side."""
        obs = self.decision.obs
        return obs.to_move % obs.nsides


def assess(decision: Decision, settings: Settings = Settings()) -> Assessment:
    """The assessment of ``decision`` with ``settings`` (module docstring). ``TooBigToSearchError`` for a
    decision bigger than the search takes on."""
    rules, obs, move, scores = decision.rules, decision.obs, decision.played, decision.scores
    th = settings.thresholds
    res = judge(rules, obs, settings.limits, th, move, record=settings.record, scores=scores)
    memo = ChanceMemo()  # the game verdict and the chances meet the same worlds' outcomes
    verdict = None
    if move is not None:
        verdict = verdict_of(rules, obs, res, move, th, names=decision.names, scores=scores, memo=memo)
    chances = None
    if scores is not None:
        chances = decision_chances(rules, obs, scores, res.moves, res, memo)
    equal = equal_moves(res, th)
    for_game = choose_for_game(rules, obs, scores, res, memo)
    # The headline of a decision with no move played says why the best move beats the next: what the
    # runner-up loses is computed then whether or not the settings ask to show it (``runner_up``), so
    # that every output's headline is the same.
    runner = (
        _runner_up(rules, obs, res, equal, decision.names) if settings.runner_up or verdict is None else ()
    )
    if verdict is not None and move is not None:
        detail = verdict.explanations
        headline = move_headline(move, verdict, res, equal)
    else:
        detail = runner
        headline = for_game_headline(for_game) if for_game else decision_headline(res, equal, runner)
    return Assessment(
        decision,
        settings,
        res,
        verdict,
        chances,
        for_game,
        _world_cost(decision, settings, verdict),
        equal,
        runner if settings.runner_up else (),
        headline,
        detail,
    )


def equal_moves(res: SearchResult, th: Thresholds) -> tuple[Move, ...]:
    """The moves other than the best that the search cannot tell from it: each would be classed
    *best* (``Thresholds.classify_interval``: a loss of at most ``best``, or an interval reaching
    down to it with a loss below the *inaccuracy* edge), in the search's order. Moves that left the
    race early were clearly behind and are not among them."""
    out = []
    for mv in res.moves[1:]:
        if not mv.in_every_world:
            continue
        loss, low, _ = res.loss(mv.move, th.noise)
        if th.classify_interval(loss, low) == MoveClass.BEST:
            out.append(mv.move)
    return tuple(out)


def next_best(res: SearchResult, equal: tuple[Move, ...]) -> MoveValue | None:
    """The best move of ``res`` after the best and the moves ``equal`` to it
    (``Assessment.equal``), or None."""
    return next((mv for mv in res.moves[1:] if mv.move not in equal), None)


def _world_cost(decision: Decision, settings: Settings, verdict: Verdict | None) -> WorldCost | None:
    """The move played against the real cards, where they are known and it was not forced."""
    state, move = decision.state, decision.played
    if not settings.world or state is None or move is None or verdict is None or verdict.forced:
        return None
    wres = evaluate_world(decision.rules, state, decision_limits(settings.limits, decision.obs))
    wbest = wres.moves[0]
    played = wres.value_of(move).ev
    loss = max(0.0, wbest.ev - played)
    return WorldCost(
        wbest.move, wbest.ev, played, loss, settings.thresholds.classify(loss, 0.0, wbest.move == move)
    )


def _runner_up(
    rules: RuleSet, obs: Observation, res: SearchResult, equal: tuple[Move, ...], names: tuple[str, ...]
) -> tuple[Explanation, ...]:
    """What the next move that is not equal to the best (``equal``) loses against the best move, in
    the explanations' words (``explain``)."""
    second = next_best(res, equal)
    if second is None:
        return ()
    loss = max(0.0, res.moves[0].ev - second.ev)
    return tuple(explain_move(rules, obs, res, second.move, round(loss, 2), names=names or None, yours="it"))


def why_not_second(a: Assessment, detail: bool = True) -> str:
    """Which move is best and why it beats the next one, in the explanations' words: the best move,
    with the moves equal to it named as equal (``Assessment.equal``: "Best, equal within the noise:
    5♦ trails or 3♠ builds 10 with 7♣"), then what the next move that is not equal would lose,
    and with ``detail`` why, category by category (``Assessment.runner_up``, assessed with
    ``Settings.runner_up``)."""
    res = a.result
    best = res.moves[0]
    if len(res.moves) == 1:
        return f"{best.move.describe()} is the only legal move."
    if a.equal:
        moves = [best.move.describe(), *(m.describe() for m in a.equal)]
        named = f"{', '.join(moves[:-1])} or {moves[-1]}"
        head = f"Best, equal{'' if res.exact else ' within the noise'}: {named}"
    else:
        head = f"Best: {best.move.describe()}"
    second = next_best(res, a.equal)
    if second is None:
        return head + "."
    loss = max(0.0, best.ev - second.ev)
    head += f". The next best, {second.move.describe()}, loses {loss:.2f}"
    if not a.runner_up:
        return head + ": about as good."
    if not detail:
        return head + "."
    return head + ":\n" + "\n".join(f"  - {e.text} ({e.points:.2f})" for e in a.runner_up)
