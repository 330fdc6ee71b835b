"""A drill of a player's own mistakes: the positions where a log's player made a mistake or a
blunder, given back one at a time to find a better move (``casino-coach drill``).

``drill_positions`` analyses a log (``coach.analysis.analyze``) and keeps the rated moves of the seats
asked for that are classed as asked (mistake and blunder by default), and of one skill of play when
one is asked for (``coach.skills``: ``drill --skill``). ``DrillSession`` presents them:
``handle(line)`` takes a typed move (the notation ``play`` accepts, ``notation.complete_move``) or a
command and returns what to show. A move is judged by the assessment of its decision at the
analysis's settings (``coach.assessment.assess``: every decision seeds itself, so the search is the
one behind the analysis's verdict), and ``verdict_of`` reads the answer's loss and class from it, as
``analyze`` reads the move played: a drill never disagrees with ``analyze``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from casino_coach.coach.analysis import AnalysisOptions, MoveAnalysis, analyze, read_checked
from casino_coach.coach.assessment import Assessment, Decision, Settings, assess
from casino_coach.coach.classes import DRILLED, MoveClass, Thresholds
from casino_coach.coach.headline import move_headline
from casino_coach.coach.skills import Skill, skill_of
from casino_coach.coach.verdict import Verdict, analysis_limits, verdict_of
from casino_coach.engine.movegen import TRAIL, Move
from casino_coach.engine.notation import complete_move, first_card, not_a_card, typed_text
from casino_coach.engine.observation import Observation, as_state, own_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import RoundState
from casino_coach.errors import AmbiguousMoveError, IllegalMoveError, NotationError, about, quoted
from casino_coach.formats.log import GameLog
from casino_coach.formats.replay import replay_log
from casino_coach.formats.text import printable
from casino_coach.search import Limits, SearchResult

COMMANDS = ("moves", "skip", "help", "quit")
HELP_TEXT = (
    "Type a move in the compact notation, as play takes it ('8C x 3H 5S', '3H b8 2D 3C', '7H t'; "
    "a unique start such as '8C x' is enough), or its number after 'moves'. "
    "moves: the legal moves, numbered; skip: show the best move and go on; quit: stop with the score."
)


@dataclass(frozen=True)
class DrillSettings:
    """How the positions are found and judged: the analysis's search ``limits`` and class
    ``thresholds``, the seats whose moves are drilled (None: every seat whose hands the log gives),
    the classes drilled, the skill drilled (None: every skill), and the processes of the analysis."""

    limits: Limits = field(default_factory=analysis_limits)
    thresholds: Thresholds = field(default_factory=Thresholds)
    seats: frozenset[int] | None = None
    classes: tuple[MoveClass, ...] = DRILLED
    jobs: int = 1
    skill: Skill | None = None


@dataclass(frozen=True)
class Position:
    """One position to solve: where it comes from (the file, shown as written), the log's rules and
    players, the analysis of the move played there (``MoveAnalysis``: its ply, class, loss and best
    move), the mover's observation, the game score the round started at, and the skill of play the
    move played there missed (``coach.skills``)."""

    source: str
    rules: RuleSet
    players: tuple[str, ...]
    played: MoveAnalysis
    obs: Observation
    scores: tuple[Points, ...]
    skill: Skill | None = None

    def decision(self, move: Move | None = None) -> Decision:
        """The decision as ``analyze`` judges it, with ``move`` as the move played (default: the
        log's)."""
        played = self.played.played if move is None else move
        return Decision(self.rules, self.obs, played, self.scores, self.players)

    @property
    def state(self) -> RoundState:
        """The position as the mover sees it (own hand, table): what moves are completed against."""
        return as_state(self.obs, self.obs.known, False)


def drill_positions(
    log: GameLog,
    settings: DrillSettings = DrillSettings(),
    source: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> list[Position]:
    """The positions of ``log`` to drill: the rated moves of ``settings.seats`` that ``analyze``
    classes in ``settings.classes`` (and that miss ``settings.skill`` when it is given), in the order
    of the game."""
    options = AnalysisOptions(
        limits=settings.limits,
        thresholds=settings.thresholds,
        seats=settings.seats,
        world=False,  # the cards actually held play no part in a class
        jobs=settings.jobs,
    )
    analysis = analyze(log, options, progress)
    plies = replay_log(log).plies
    out = []
    for m in analysis.moves:
        if not m.rated or m.forced or m.cls not in settings.classes:
            continue
        skill = move_skill(log.rules, len(log.players), m)
        if settings.skill is not None and skill != settings.skill:
            continue
        ply = plies[m.ply]
        assert ply.observation is not None  # a rated move has the mover's view
        out.append(
            Position(source, log.rules, tuple(log.players), m, ply.observation, tuple(ply.scores), skill)
        )
    return out


def move_skill(rules: RuleSet, nplayers: int, m: MoveAnalysis) -> Skill | None:
    """The skill of play the move ``m`` of an analysis missed (``coach.skills.skill_of``)."""
    return skill_of(rules, nplayers, m.seat, m.loose, m.builds, m.played, m.best, m.explanations)


@dataclass(frozen=True)
class Judgement:
    """An answer judged: the move, its verdict (``verdict_of`` on the decision's assessment), whether
    it is right (the best move or one the search cannot tell from it: ``Assessment.equal``), the best
    move and the moves equal to it, the move the log played there, and the search behind it all."""

    move: Move
    verdict: Verdict
    right: bool
    best: Move
    equal: tuple[Move, ...]
    played: Move
    result: SearchResult
    # The answer in one sentence, as ``analyze`` gives the move played (``coach.headline``).
    headline: str | None = None

    @property
    def loss(self) -> float:
        """The points the answer loses; 0 when it is right."""
        return 0.0 if self.right else self.verdict.loss


def judge_answer(position: Position, assessment: Assessment, move: Move) -> Judgement:
    """``move`` judged against the search of ``position``'s decision (``assessment``), as
    ``analyze`` judges the move played there."""
    res = assessment.result
    th = assessment.settings.thresholds
    d = assessment.decision
    v = verdict_of(d.rules, d.obs, res, move, th, names=d.names, scores=d.scores)
    best = res.moves[0].move
    right = move == best or move in assessment.equal
    headline = move_headline(move, v, res, assessment.equal)
    return Judgement(move, v, right, best, assessment.equal, position.played.played, res, headline)


class NoteKind(StrEnum):
    """What a note of the session is, for the renderer."""

    POSITION = "position"  # a new position to solve
    JUDGEMENT = "judgement"  # an answer judged
    SKIPPED = "skipped"  # the best move shown without an answer
    MOVES = "moves"  # the legal moves, numbered
    CANDIDATES = "candidates"  # the moves an ambiguous answer fits
    ERROR = "error"  # input that is no legal move
    HELP = "help"
    SCORE = "score"  # the drill is over, or was stopped


@dataclass(frozen=True)
class Note:
    """One thing to show: its kind, its text, and the position, judgement or moves it is about."""

    kind: NoteKind
    text: str = ""
    judgement: Judgement | None = None
    moves: tuple[tuple[int, Move], ...] = ()


@dataclass
class Score:
    """How the drill went so far: positions answered, found (right), skipped, margin lost."""

    answered: int = 0
    found: int = 0
    skipped: int = 0
    lost: float = 0.0

    def words(self) -> str:
        """ "3 of 5 found; 1.20 of margin lost in all"."""
        tried = self.answered + self.skipped
        text = f"{self.found} of {tried} found"
        if self.skipped:
            text += f" ({self.skipped} skipped)"
        return f"{text}; {self.lost:.2f} of margin lost in all"


class DrillSession:
    """The positions of a drill, presented one at a time (``handle`` each typed line). Each
    position's decision is assessed once, when it is first shown (``assess``)."""

    def __init__(self, positions: Sequence[Position], settings: Settings) -> None:
        self.positions = list(positions)
        self.settings = settings
        self.index = 0
        self.score = Score()
        self.stopped = False
        self._assessed: dict[int, Assessment] = {}

    @property
    def over(self) -> bool:
        return self.stopped or self.index >= len(self.positions)

    @property
    def current(self) -> Position:
        return self.positions[self.index]

    def assessment(self) -> Assessment:
        """The assessment of the current position's decision, at the analysis's settings."""
        if self.index not in self._assessed:
            p = self.current
            with about(Path(p.source) if p.source else None):
                self._assessed[self.index] = assess(p.decision(), self.settings)
        return self._assessed[self.index]

    def legal(self) -> list[Move]:
        """The current position's legal moves, in the engine's order (the numbers of ``moves``)."""
        p = self.current
        return own_moves(p.rules, p.obs)

    def start(self) -> list[Note]:
        """The first position, or the score when there is none."""
        return self._next()

    def handle(self, line: str) -> list[Note]:
        """Act on one typed line (a move, a number after ``moves``, or a command); never raises for
        bad input."""
        if self.over:
            return [self._score_note()]
        text = " ".join(line.strip().split())
        low = text.lower()
        if not text:
            return [Note(NoteKind.POSITION)]
        if low in COMMANDS:
            return self._command(low)
        if text.isdecimal():
            legal = self.legal()
            n = int(text)
            if not 1 <= n <= len(legal):
                return [
                    Note(
                        NoteKind.ERROR,
                        f"No move {n}: type a number from 1 to {len(legal)} (moves lists them)",
                    )
                ]
            return self.answer(legal[n - 1])
        try:
            move = self.resolve(text)
        except (NotationError, IllegalMoveError) as e:
            return [Note(NoteKind.ERROR, str(e))]
        except AmbiguousMoveError as e:
            found = list(e.candidates)
            legal = self.legal()
            numbered = tuple((legal.index(m) + 1, m) for m in found)
            more = f"{quoted(text)} fits {len(found)} moves: type more of it or its number{trail_hint(found)}"
            return [Note(NoteKind.CANDIDATES, more, moves=numbered)]
        return self.answer(move)

    def resolve(self, text: str) -> Move:
        """The legal move ``text`` means (``notation.complete_move``), or NotationError /
        IllegalMoveError / AmbiguousMoveError saying why it is none."""
        p = self.current
        legal = self.legal()
        if first_card(text) < 0:
            raise NotationError(_unknown(text, p.obs.hand, legal))
        return complete_move(p.rules, p.state, text, legal)

    def answer(self, move: Move) -> list[Note]:
        """Judge ``move`` as the answer to the current position, count it, and go on to the next."""
        j = judge_answer(self.current, self.assessment(), move)
        self.score.answered += 1
        self.score.found += j.right
        self.score.lost += j.loss
        self.index += 1
        return [Note(NoteKind.JUDGEMENT, judgement=j), *self._next()]

    def stop(self) -> list[Note]:
        """Stop the drill: the score so far."""
        self.stopped = True
        return [self._score_note()]

    def _command(self, word: str) -> list[Note]:
        if word == "quit":
            return self.stop()
        if word == "help":
            return [Note(NoteKind.HELP, HELP_TEXT)]
        if word == "moves":
            return [Note(NoteKind.MOVES, "Legal moves:", moves=tuple(enumerate(self.legal(), 1)))]
        a = self.assessment()
        best = a.result.moves[0].move
        played = self.current.played.played
        note = Note(
            NoteKind.SKIPPED,
            judgement=Judgement(best, _best_verdict(a), True, best, a.equal, played, a.result),
        )
        self.score.skipped += 1
        self.index += 1
        return [note, *self._next()]

    def _next(self) -> list[Note]:
        if self.over:
            return [self._score_note()]
        return [Note(NoteKind.POSITION)]

    def _score_note(self) -> Note:
        left = len(self.positions) - self.index
        tail = f" ({left} position{'s' if left != 1 else ''} left)" if self.stopped and left else ""
        return Note(NoteKind.SCORE, f"Score: {self.score.words()}{tail}.")

    def completions(self, prefix: str) -> list[str]:
        """Completions of a partly typed line: commands and the legal moves' notation."""
        low = prefix.lower().lstrip()
        out = [c for c in COMMANDS if c.startswith(low)]
        if not self.over:
            out += [t for t in (typed_text(m) for m in self.legal()) if t.lower().startswith(low)]
        return out


def _best_verdict(a: Assessment) -> Verdict:
    d = a.decision
    best = a.result.moves[0].move
    return verdict_of(d.rules, d.obs, a.result, best, a.settings.thresholds, names=d.names, scores=d.scores)


def _unknown(text: str, hand: int, legal: Sequence[Move]) -> str:
    """A line that is neither a command nor a move starting with a card: the command it may be, or
    what a move looks like."""
    first = text.split()[0] if text.split() else text
    close = difflib.get_close_matches(first.lower(), COMMANDS, n=1, cutoff=0.6)
    if close and len(first) > 1 and not first[0].isdigit():
        return f"Unknown command {quoted(first)}: did you mean {close[0]!r}? (help lists them)"
    return not_a_card(text, hand, legal, ", a number after 'moves', or help")


def trail_hint(found: Sequence[Move]) -> str:
    """How to pick the plain trail among ``found``, where it is one of them."""
    trail = next((m for m in found if m.action == TRAIL and not m.take), None)
    return f" (type {typed_text(trail)} to trail)" if trail is not None else ""


def drill_settings(settings: DrillSettings) -> Settings:
    """The assessment settings of a drill: the analysis's limits and thresholds."""
    return Settings(settings.limits, settings.thresholds)


def no_positions_words(
    sources: Sequence[str], classes: Sequence[MoveClass], player: str | None, skill: Skill | None = None
) -> str:
    """What to say when the logs hold nothing to drill: the classes looked for, in which skill,
    whose, and where."""
    what = " or ".join(c.value for c in classes)
    if skill is not None:
        what += f" in {skill.words} ({skill.value})"
    who = f" by {quoted(player)}" if player is not None else ""
    files = ", ".join(printable(s) for s in sources)
    return f"No {what}{who} in {files}: nothing to drill."


__all__ = [
    "COMMANDS",
    "DRILLED",
    "DrillSession",
    "DrillSettings",
    "Judgement",
    "Note",
    "NoteKind",
    "Position",
    "Score",
    "drill_positions",
    "drill_settings",
    "judge_answer",
    "move_skill",
    "no_positions_words",
    "read_checked",
]
