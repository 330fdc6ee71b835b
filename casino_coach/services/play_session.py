"""A game against the coach's bots, played one typed line at a time: the logic of ``casino-coach play``.

A ``PlaySession`` wraps a ``game.Game``: one seat is the person at the keyboard, every other seat is a bot
(``bots.make_policy``). The terminal front end (``cli/play.py``) only reads lines and shows what comes
back, so everything here works, and is tested, without a terminal:

* ``handle(line)`` takes one typed line and returns ``Note`` objects to show: a move in the compact
  notation (``7H``, ``8C x 3H 5S``, ``3H b8 2D 3C``) completed from a unique prefix (``8C`` plays the
  8♣'s only legal move, ``8C x`` its only capture; an ambiguous prefix lists the candidates), the number
  of a move in the numbered list, or a command: ``hint`` (first the card, then the whole move),
  ``why <move>`` (the engine's reason a move is illegal), ``undo`` (practice mode only), ``moves``,
  ``table``, ``help``, ``quit``. A typo gets a suggestion, never an exception.
* ``bot_step()`` plays one bot move and says in words what it took.
* The tutor (``tutor=`` a move class) searches the position before the person's move is played; a move
  that loses at least that class's threshold (``analysis.Thresholds``) is held back with what it loses
  and why (``explain.explain``), and the next line decides: ``r`` rethink, ``p`` play it anyway, ``h``
  a hint.
* With ``out`` set, the game log (``casino-replay``, replay-format.md) is written atomically after every
  round and by ``save()``, so quitting at any point loses nothing. It carries a ``play`` field (the
  person's seat and the bots' kind), and ``PlaySession.resume(path)`` continues such a game: the
  deals and the bots' choices follow from the seed, so it goes on exactly as if it had never stopped.

Bots draw their randomness from a generator seeded by the game seed and the ply, so a game replays
identically from its seed and moves, and an undone position gets the same bot replies again.
"""

from __future__ import annotations

import difflib
import random
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from casino_coach.bots.policies import BOT_NAMES, Policy, make_policy
from casino_coach.coach.assessment import Assessment, Decision, Settings, assess, next_best
from casino_coach.coach.classes import MoveClass, Thresholds
from casino_coach.coach.headline import reasons as headline_reasons
from casino_coach.coach.verdict import GameVerdict, analysis_limits
from casino_coach.coach.winning import GameEdge
from casino_coach.engine.cards import card_symbol, mask_symbols
from casino_coach.engine.movegen import CAPTURE, TRAIL, Move, apply
from casino_coach.engine.notation import (
    complete_move,
    first_card,
    move_text,
    not_a_card,
    not_held,
    parse_move,
    typed_text,
)
from casino_coach.engine.observation import Observation
from casino_coach.engine.reasons import article, illegal_reason
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points, RoundScore
from casino_coach.engine.state import RoundState
from casino_coach.errors import (
    AmbiguousMoveError,
    CoachError,
    IllegalMoveError,
    LogError,
    NotationError,
    TooBigToSearchError,
    quoted,
    shown,
)
from casino_coach.formats import jsonio
from casino_coach.formats.codec import dumps
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.formats.game import Game
from casino_coach.formats.jsonio import loads
from casino_coach.formats.log import GameLog, log_to_obj, read_log
from casino_coach.formats.replay import replay_log
from casino_coach.formats.text import player_name, printable, side_names
from casino_coach.report.words import (
    chance_gap_words,
    for_game_words,
    game_class_words,
    margin_words,
    near_target_notes,
    play_words,
    says,
)
from casino_coach.search import Limits, SearchResult


class NoteKind(StrEnum):
    """What a note is, so a front end can style it."""

    INFO = "info"
    ERROR = "error"  # bad input: what was wrong and a suggestion
    CANDIDATES = "candidates"  # an ambiguous prefix: the moves it could mean
    MOVES = "moves"  # the numbered list of legal moves
    PLAYED = "played"  # the person's move, in words
    BOT = "bot"  # a bot's move, in words
    DEAL = "deal"  # a new deal or a new round
    ROUND = "round"  # a round's score
    GAME_OVER = "game_over"
    HINT = "hint"
    WHY = "why"
    TUTOR = "tutor"  # a move held back by the tutor
    HELP = "help"
    TABLE = "table"  # the front end should show the table again
    SAVED = "saved"
    REVIEW = "review"  # the commands that review the saved log
    QUIT = "quit"


@dataclass(frozen=True)
class TutorWarning:
    """A move the tutor held back: what it loses against the best move, its class, and why; once the
    game is close, its verdict for the game too (``game``, as ``analyze`` gives it)."""

    move: Move
    best: Move
    loss: float
    cls: str
    reasons: tuple[str, ...]
    game: GameVerdict | None = None
    by_game: bool = False  # held back by the class for the game alone: the round's is below the threshold


@dataclass(frozen=True)
class Note:
    """One thing to show: a kind, the words (always complete on their own), and data for styling."""

    kind: NoteKind
    text: str
    seat: int | None = None
    move: Move | None = None
    moves: tuple[tuple[int, Move], ...] = ()  # (number in the legal list, move) for lists
    score: RoundScore | None = None
    warning: TutorWarning | None = None
    reasons: tuple[str, ...] = ()  # a hint's reasons, one sentence each (also in ``text``)


COMMANDS = ("hint", "why", "undo", "moves", "table", "score", "help", "quit")
_ALIASES = {
    "h": "hint",
    "?": "help",
    "m": "moves",
    "ls": "moves",
    "list": "moves",
    "t": "table",
    "show": "table",
    "board": "table",
    "q": "quit",
    "exit": "quit",
    "u": "undo",
    "scores": "score",
    "back": "undo",
    "takeback": "undo",
}
_PLAY_WORDS = {"p", "play", "y", "yes", "anyway", "play anyway", "ok"}
_RETHINK_WORDS = {"r", "rethink", "n", "no", "cancel"}
CLASS_ORDER = ("best", "good", "inaccuracy", "mistake", "blunder")
TUTOR_LEVELS = ("inaccuracy", "mistake", "blunder")

HELP_TEXT = """\
Type a move in the compact notation, or its number in the list of legal moves:
  7H t            trail the 7♥
  8C x 3H 5S      the 8♣ captures 3♥ and 5♠
  3H b8 2D 3C     the 3♥ builds 8 with 2♦ and 3♣ (new build, extend or raise)
A unique start is enough: 8C plays the 8♣ when it has one legal move, 8C x its
only capture, 3H b8 its only build of 8; otherwise the candidates are listed.
Tab completes commands and moves.
Commands:
  3               play move 3 of the list
  moves           list the legal moves, numbered
  hint            which card to play; hint again for the whole move
  why <move>      why a move is not legal (why 8C x 3H), or the last refused one
  undo            take back your last move and the replies to it (--practice)
  table, score    show the table or the score again
  help            this text
  quit            stop; the game so far is saved"""


def bot_names(opponent: str, count: int) -> list[str]:
    """Names for ``count`` bots of one kind: "Counter", or "Counter 1", "Counter 2", ..."""
    base = opponent.strip().capitalize() or "Bot"
    return [base] if count == 1 else [f"{base} {i + 1}" for i in range(count)]


@dataclass
class _Decision:
    """What the session knows about the person's current decision (reset after every move)."""

    ply: int
    assessment: Assessment | None = None
    hint_level: int = 0
    pending: TutorWarning | None = None
    refused: str | None = None  # the last move that was refused (not a typo), for a bare ``why``
    approved: set[Move] = field(default_factory=set)  # moves the tutor already let through


class PlaySession:
    """A game between one person (``human`` seat) and bots, driven by typed lines.

    ``opponent`` names the bot of every other seat (``bots.BOT_NAMES``). ``practice`` allows ``undo``.
    ``tutor`` is None or the lowest class the tutor stops: "inaccuracy", "mistake" or "blunder".
    ``limits`` is the search effort of hints and the tutor (default: the analysis's, so the tutor's
    verdict on a move is the one ``analyze`` gives it later).
    ``out``: where the log is written after every round and by ``save()`` (None: not written).
    ``literal``: a move written in full notation is that move, a bare card a trail (for scripts: a
    file of moves cannot answer "which one?"); otherwise a bare card with several moves is ambiguous.
    """

    def __init__(
        self,
        rules: RuleSet,
        *,
        players: int = 2,
        human: int = 0,
        name: str = "You",
        opponent: str = "counter",
        seed: int = 0,
        practice: bool = False,
        tutor: str | None = None,
        limits: Limits | None = None,
        out: str | Path | None = None,
        date: str | None = None,
        literal: bool = False,
        names: Sequence[str] | None = None,
    ) -> None:
        if not 2 <= players <= 4:
            raise CoachError(f"Casino is played by 2, 3 or 4 players, not {players}")
        if not 0 <= human < players:
            raise CoachError(f"your seat must be from 0 to {players - 1}, got {human}")
        if tutor is not None and tutor not in TUTOR_LEVELS:
            raise CoachError(f"unknown tutor level {quoted(tutor)}: choose one of {', '.join(TUTOR_LEVELS)}")
        self.rules = rules
        self.human = human
        self.seed = seed
        self.practice = practice
        self.tutor = tutor
        # Whether the tutor and the hints give every reason, category by category, below the
        # headline (``play --detail``); else the headline alone.
        self.detail = False
        self.limits = limits or analysis_limits()
        self.out = Path(out) if out is not None else None
        self.date = date
        self.literal = literal
        if names is None:
            names = bot_names(opponent, players - 1)
            names.insert(human, name)
        self.players = list(names)  # as the log keeps them
        # as every note and the screen show them (formats.text.player_name): printable and short
        self.names = [player_name(p) for p in self.players]
        self.policies: dict[int, Policy] = {s: make_policy(opponent) for s in range(players) if s != human}
        self.opponent = opponent
        self.game = self._new_game()
        self._margin_said = False  # the scale of the figures is said once a session (``margin_once``)
        self.quit = False
        self.resumed_at: int | None = None  # the moves replayed from a saved log (``resume``)
        self._decision = _Decision(ply=0)
        self._thresholds = Thresholds()

    @classmethod
    def resume(
        cls,
        path: str | Path,
        *,
        seat: int | None = None,
        opponent: str | None = None,
        out: str | Path | None = None,
        samples: int | None = None,
        **options: Any,
    ) -> PlaySession:
        """Continue the game saved by ``play`` in the log at ``path`` (replay-format.md): the same
        rules, players and seed, every move replayed, and the bots and the deals go on exactly as they
        would have (both follow from the seed). The log records the person's seat and the bots'
        kind (its ``play`` field); for a log without it they are taken from ``seat`` and
        ``opponent``, or from the names (bots are named after their kind). ``out`` defaults to
        ``path``; ``samples`` sets the hints' and the tutor's effort (``analysis_limits``); the other
        ``options`` are the constructor's (``practice``, ``tutor``, ``limits``, ``literal``).

        Raises LogError for a log that cannot be read or re-played, and CoachError for one that is
        finished or cannot be continued (a viewer log, no seed, deals that do not follow from it).
        """
        path = Path(path)
        data = jsonio.read_bytes(path)
        log = read_log(data)
        rp = replay_log(log)
        if rp.match.over:
            won = "" if rp.winner is None else f", won by {side_names(log.players, log.nsides)[rp.winner]}"
            scores = "-".join(_pts(p) for p in rp.match.scores)
            raise CoachError(f"{path}: the game is finished ({scores}{won}): there is nothing to resume")
        if log.viewer is not None:
            raise CoachError(
                f"{path}: cannot be resumed: a viewer log (seat {log.viewer}) lacks the other hands"
            )
        if log.seed is None:
            raise CoachError(
                f"{path}: cannot be resumed: the log has no seed to deal the cards still to come"
            )
        record = loads(data).get("play")
        seat, opponent = _resume_seat(path, log.players, record, seat, opponent)
        if samples:
            options["limits"] = analysis_limits(samples)
        session = cls(
            log.rules,
            players=log.nplayers,
            human=seat,
            opponent=opponent,
            seed=log.seed,
            date=log.date,
            names=log.players,
            out=path if out is None else out,
            **options,
        )
        session._replay_log(path, log)
        return session

    def _replay_log(self, path: Path, log: GameLog) -> None:
        """Play the log's moves in this session's game (dealt from the same seed), checking that every
        deal the log shows is the one the seed deals."""
        moves = [m for r in log.rounds for d in r.deals for m in d.moves]
        mismatch = CoachError(
            f"{path}: cannot be resumed: its deals are not the ones its seed {log.seed} deals "
            "(only a game saved by play, unchanged, can be resumed)"
        )
        for seat, move in moves:
            if seat != self.game.to_move:
                raise mismatch
            try:
                self.game.play(move)
            except IllegalMoveError:
                raise mismatch from None
        dealt = self.game.to_log()
        for r_log, r_game in zip(log.rounds, dealt.rounds, strict=False):
            if r_log.dealer != r_game.dealer or any(
                (d.table, d.hands) != (g.table, g.hands)
                for d, g in zip(r_log.deals, r_game.deals, strict=False)
            ):
                raise mismatch
        if len(log.rounds) > len(dealt.rounds):
            raise mismatch
        self.resumed_at = len(moves)

    def _new_game(self) -> Game:
        return Game(self.rules, self.players, seed=self.seed, event="casino-coach play", date=self.date)

    # --- state ---------------------------------------------------------------------------------------

    @property
    def state(self) -> RoundState:
        return self.game.state

    @property
    def over(self) -> bool:
        """The game is won or the person quit."""
        return self.game.over or self.quit

    @property
    def human_to_move(self) -> bool:
        return not self.over and self.game.to_move == self.human

    @property
    def bot_to_move(self) -> bool:
        return not self.over and self.game.to_move != self.human

    @property
    def ply(self) -> int:
        """Moves played so far in the whole game."""
        return len(self.game.history)

    @property
    def pending(self) -> TutorWarning | None:
        """The move the tutor is holding back, waiting for rethink / play anyway / hint."""
        return self._decision.pending

    def legal(self) -> list[Move]:
        """The legal moves of the seat to move, in the order of the numbered list."""
        return self.game.legal()

    def observation(self) -> Observation:
        """What the person can see now."""
        return self.game.observation(self.human)

    def numbered(self, moves: Sequence[Move] | None = None) -> tuple[tuple[int, Move], ...]:
        """(number, move) for ``moves`` (default: every legal move), numbered as in the list."""
        legal = self.legal()
        index = {m: i + 1 for i, m in enumerate(legal)}
        return tuple((index[m], m) for m in (legal if moves is None else moves) if m in index)

    def _current(self) -> _Decision:
        if self._decision.ply != self.ply:
            self._decision = _Decision(ply=self.ply)
        return self._decision

    # --- input ---------------------------------------------------------------------------------------

    def handle(self, line: str) -> list[Note]:
        """Act on one typed line; never raises for bad input."""
        text = " ".join(line.strip().split())
        if self.over:
            return [Note(NoteKind.INFO, "The game is over.")]
        if self.game.to_move != self.human:
            return [Note(NoteKind.ERROR, "It is not your turn.")]
        dec = self._current()
        low = text.lower()
        if dec.pending is not None:
            warning = dec.pending
            if low in _PLAY_WORDS:
                dec.pending = None
                dec.approved.add(warning.move)
                return self._play_human(warning.move)
            if low in _RETHINK_WORDS:
                dec.pending = None
                return [Note(NoteKind.INFO, f"{warning.move.describe()} taken back: choose again.")]
            if _command_word(low) != "hint":
                dec.pending = None  # anything else is a new choice
        elif low in _PLAY_WORDS | _RETHINK_WORDS:
            return [
                Note(
                    NoteKind.ERROR,
                    f"{quoted(text)} answers the tutor, but no move is held back: type "
                    "a move or its number (help lists the commands)",
                )
            ]
        if not text:
            return [Note(NoteKind.TABLE, "")]
        if text.isdecimal():
            return self._by_number(int(text))
        first, _, rest = text.partition(" ")
        word = _command_word(first.lower())
        if word is not None:
            return self._command(word, rest.strip())
        return self._by_text(text)

    def _command(self, word: str, arg: str) -> list[Note]:
        if word == "hint":
            return self.hint()
        if word == "why":
            return self.why(arg)
        if word == "undo":
            return self.undo()
        if word == "moves":
            return [Note(NoteKind.MOVES, "Legal moves:", moves=self.numbered())]
        if word == "table":
            return [Note(NoteKind.TABLE, "")]
        if word == "score":
            return [Note(NoteKind.INFO, self.score_text())]
        if word == "help":
            return [Note(NoteKind.HELP, HELP_TEXT)]
        return self.stop()

    def stop(self) -> list[Note]:
        """The person quits: save the game so far."""
        self.quit = True
        notes = [Note(NoteKind.QUIT, "You left the game.")]
        return notes + self._save_note()

    def _by_number(self, n: int) -> list[Note]:
        legal = self.legal()
        if not 1 <= n <= len(legal):
            one = (
                "there is only 1 legal move: type 1"
                if len(legal) == 1
                else f"there are {len(legal)} legal moves: type a number from 1 to {len(legal)}"
            )
            return [Note(NoteKind.ERROR, f"No move {n}: {one} (moves lists them)")]
        return self._try_play(legal[n - 1])

    def _by_text(self, text: str) -> list[Note]:
        try:
            return self._try_play(self.resolve(text))
        except (NotationError, IllegalMoveError) as e:
            return [Note(NoteKind.ERROR, str(e))]
        except AmbiguousMoveError as e:
            found: list[Move] = list(e.candidates)
        trail = next((m for m in found if m.action == TRAIL and not m.take), None)
        extra = f" ({card_symbol(trail.card)} alone: type {typed_text(trail)} to trail)" if trail else ""
        return [
            Note(
                NoteKind.CANDIDATES,
                f"{quoted(text)} fits {len(found)} moves: type more of the move or its number{extra}",
                moves=self.numbered(found),
            )
        ]

    def resolve(self, text: str) -> Move:
        """The legal move ``text`` means (``notation.complete_move``: NotationError, IllegalMoveError
        or AmbiguousMoveError when it is not one); a refused text is kept for a bare ``why``."""
        if self.literal:
            try:
                move = parse_move(text)
            except NotationError:
                move = None
            if move is not None and move in self.legal():
                return move
            hand = self.state.hands[self.state.to_move]
            trail = move is not None and move.action == TRAIL and not move.take and hand >> move.card & 1
            reason = illegal_reason(self.rules, self.state, move) if move is not None and trail else ""
            if move is not None and reason:
                # A bare card is the trail ("9D"), never another move it would complete to at the
                # keyboard (the 9♦'s capture of the build it owns); other moves typed in full are
                # refused by ``resolve`` with the card's legal moves listed.
                self._current().refused = text
                raise IllegalMoveError(f"{move_text(move)} is not legal: {reason}")
        legal = self.legal()
        if first_card(text) < 0:
            raise NotationError(_unknown(text, self.state.hands[self.state.to_move], legal))
        try:
            return complete_move(self.rules, self.state, text, legal)
        except IllegalMoveError:
            self._current().refused = text  # a move refused; a typo (NotationError) is none
            raise

    # --- playing -------------------------------------------------------------------------------------

    def _try_play(self, move: Move) -> list[Note]:
        """Play the person's move, unless the tutor holds it back first."""
        dec = self._current()
        if self.tutor is not None and move not in dec.approved:
            try:
                warning = self.tutor_check(move)
            except TooBigToSearchError as e:
                note = Note(NoteKind.INFO, f"The tutor cannot judge this move: {e}.")
                return [note, *self._play_human(move)]
            if warning is not None:
                dec.pending = warning
                text = _tutor_text(warning, self.margin_once())
                return [Note(NoteKind.TUTOR, text, move=move, warning=warning)]
        return self._play_human(move)

    def _play_human(self, move: Move) -> list[Note]:
        before = self.state
        words = play_words(self.rules, before, move, "You")
        notes = [Note(NoteKind.PLAYED, words, seat=self.human, move=move)]
        return notes + self._after_play(before, move)

    def bot_step(self) -> list[Note]:
        """Let the bot to move choose and play one move; say what it did."""
        if not self.bot_to_move:
            return []
        seat = self.game.to_move
        obs = self.game.observation(seat)
        rng = random.Random(f"{self.seed}:{self.ply}")
        move = self.policies[seat].choose(self.rules, obs, self.legal(), rng, scores=self.game.scores)
        before = self.state
        notes = [
            Note(NoteKind.BOT, play_words(self.rules, before, move, self.names[seat]), seat=seat, move=move)
        ]
        return notes + self._after_play(before, move)

    def _after_play(self, before: RoundState, move: Move) -> list[Note]:
        end = apply(self.rules, before, move)
        scores_before = tuple(self.game.scores)
        score = self.game.play(move)
        notes: list[Note] = []
        if score is not None:
            residue = self.residue_text(before, move, end)
            if residue:
                notes.append(Note(NoteKind.INFO, residue))
            notes.append(Note(NoteKind.ROUND, self.round_text(score, scores_before), score=score))
            if self.game.over:
                notes.append(Note(NoteKind.GAME_OVER, self.result_text()))
            else:
                dealer = self.names[self.state.dealer]
                notes.append(
                    Note(NoteKind.DEAL, f"Round {self.game.round_index + 1}: {says(dealer, 'deal')}.")
                )
            notes += self._save_note()
        elif before.stock != self.state.stock:
            last = ' The dealer says "last": the final deal.' if self.state.last_deal else ""
            notes.append(Note(NoteKind.DEAL, f"New deal: 4 cards each.{last}"))
        return notes

    def run_bots(self) -> list[Note]:
        """Let the bots play until it is the person's turn or the game is over."""
        notes: list[Note] = []
        while self.bot_to_move:
            notes += self.bot_step()
        return notes

    # --- help for the person -------------------------------------------------------------------------

    def assessment(self) -> Assessment:
        """The assessment of the person's current decision (from what they can see), made once; after
        the tutor held a move back, the one that judged it (``tutor_check``)."""
        dec = self._current()
        if dec.assessment is None:
            dec.assessment = assess(self._decision_of(None), self._settings())
        return dec.assessment

    def search(self) -> SearchResult:
        """The search of the person's current decision (``assessment``)."""
        return self.assessment().result

    def _decision_of(self, move: Move | None) -> Decision:
        """The person's current decision, with the ``move`` about to be played."""
        scores = tuple(self.game.scores)
        return Decision(self.rules, self.observation(), move, scores, tuple(self.players))

    def _settings(self) -> Settings:
        """How the hints and the tutor judge: with the reasons why the best move beats the next."""
        return Settings(self.limits, self._thresholds, runner_up=True)

    def hint(self) -> list[Note]:
        """First the card to play; on a second ``hint`` the whole move. None for a decision too big to
        search (``TooBigToSearchError``): the note says why. Once the game is close, the move to play for
        the game where one is clearly better for it than the round's best (``choose_for_game``, as
        the searcher bot plays and ``suggest`` reports)."""
        dec = self._current()
        try:
            res = self.search()
        except TooBigToSearchError as e:
            return [Note(NoteKind.HINT, f"No hint here: {e}.")]
        for_game = self.assessment().for_game
        best = for_game.move.move if for_game is not None else res.best.move
        dec.hint_level += 1
        if dec.hint_level == 1:
            return [
                Note(
                    NoteKind.HINT,
                    f"Hint: play your {card_symbol(best.card)}. (hint again for the whole move)",
                    move=best,
                )
            ]
        ((num, _),) = self.numbered([best])
        head = f"Hint: {best.describe()} — move {num}, typed {typed_text(best)}."
        why, reasons = self.hint_why(for_game)
        text = "\n".join([head, why, *(f"  - {r}" for r in reasons)])
        text += self.margin_once() if "margin" in why else ""  # where it gives a figure
        return [Note(NoteKind.HINT, text, move=best, reasons=reasons)]

    def hint_why(self, for_game: GameEdge | None = None) -> tuple[str, tuple[str, ...]]:
        """Why the hinted move: what the next best move would lose, in the words ``analyze`` uses
        for a loss (``explain.explain``: statements over the deals the person could face, never the
        hidden cards), one reason per scoring category with its points; for a move hinted for the
        game (``for_game``, from ``Assessment.for_game``), the chances to win it after the move and after the
        round's best."""
        a = self.assessment()
        res = a.result
        best = res.moves[0]
        if len(res.moves) == 1:
            return "Why: it is your only legal move.", ()
        if for_game is not None:
            return f"Why: {for_game_words(for_game, res, a.chances, a.side)}.", ()
        names = [m.describe() for m in a.equal]
        equal = f"{' and '.join(names)} {'is' if len(names) == 1 else 'are'} as good; " if names else ""
        second = next_best(res, a.equal)
        if second is None:
            return f"Why: {equal}every other move is too.", ()
        loss = max(0.0, best.ev - second.ev)
        reasons = a.runner_up
        lead = f"Why: {equal}the next best, {second.move.describe()},"
        if not reasons:
            return f"{lead} is about as good ({loss:.2f} less of margin).", ()
        lead += f" loses {loss:.2f} of margin:"
        if not self.detail:  # the reasons that carry most of it, in the headline's words
            told = headline_reasons(reasons, loss)
            if told:
                return f"{lead} {' and '.join(told)}.", ()
        return lead, tuple(f"{e.text} ({e.points:.2f})" for e in reasons)

    def why(self, arg: str) -> list[Note]:
        """Why a move is illegal: the engine's reason (rules.md section)."""
        dec = self._current()
        text = arg or dec.refused or ""
        if not text:
            return [Note(NoteKind.WHY, "Type why and a move, like: why 8C x 3H")]
        if text.isdecimal():
            n = int(text)
            legal = self.legal()
            if 1 <= n <= len(legal):
                return [Note(NoteKind.WHY, f"Move {n}, {legal[n - 1].describe()}, is legal.")]
            return [Note(NoteKind.WHY, f"There is no move {n}: the list has {len(legal)}.")]
        try:
            move = parse_move(text)
        except NotationError as e:
            return [Note(NoteKind.WHY, f"{e}")]
        hand = self.state.hands[self.human]
        if not hand >> move.card & 1:
            return [Note(NoteKind.WHY, not_held(move.card, hand))]
        reason = illegal_reason(self.rules, self.state, move)
        if not reason:
            return [Note(NoteKind.WHY, f"{move.describe()} is legal.", move=move)]
        return [Note(NoteKind.WHY, f"{move_text(move)} is not legal: {reason}", move=move)]

    def tutor_check(self, move: Move) -> TutorWarning | None:
        """The warning for ``move`` when it loses at least the tutor's threshold, else None;
        TooBigToSearchError for a decision too big to judge. Once the game is close the verdict for the
        game counts as ``analyze`` gives it (``verdict_of`` with the score the round started at): a
        move the game's class puts at the threshold is held back even if it is right for the round,
        and a round loss is let through where the move is the best for the game (it gives up round
        points that do not change the chance to win)."""
        if self.tutor is None or len(self.legal()) < 2:
            return None
        a = assess(self._decision_of(move), self._settings())
        v = a.verdict
        assert v is not None
        g = v.game
        round_bad = _at_least(str(v.cls), self.tutor) and (g is None or g.cls != MoveClass.BEST)
        if not round_bad and not (g is not None and _at_least(str(g.cls), self.tutor)):
            return None
        # The search that held the move back is the decision's from now on: a hint in the same prompt
        # names the move the warning names (a fresh search without the move played drew other worlds
        # and named another move best for the game).
        self._current().assessment = a
        reasons: tuple[str, ...] = ()
        if round_bad:  # the headline, or with ``detail`` every reason, category by category
            detail = tuple(f"{e.text} ({e.points:.2f})" for e in v.explanations)
            reasons = detail if self.detail or a.headline is None else (a.headline,)
        game = game_class_words(g)
        if game is not None and round_bad:  # held back for the game, the headline says it already
            reasons += (game[0].upper() + game[1:],)
        return TutorWarning(move, v.best, v.loss, str(v.cls), reasons, g, by_game=not round_bad)

    def undo(self) -> list[Note]:
        """Take back the person's last move and every bot move since (practice mode only)."""
        if not self.practice:
            return [Note(NoteKind.ERROR, "undo works in practice mode only: start the game with --practice")]
        history = self.game.history
        last = max((i for i, (seat, _) in enumerate(history) if seat == self.human), default=-1)
        if last < 0:
            return [Note(NoteKind.ERROR, "Nothing to undo: you have not moved yet.")]
        keep = history[:last]
        undone = history[last][1]
        game = self._new_game()
        for _, move in keep:
            game.play(move)
        self.game = game
        self._decision = _Decision(ply=self.ply)
        replies = len(history) - last - 1
        tail = f" and {replies} repl{'y' if replies == 1 else 'ies'}" if replies else ""
        return [Note(NoteKind.INFO, f"Took back {undone.describe()}{tail}."), Note(NoteKind.TABLE, "")]

    # --- words ---------------------------------------------------------------------------------------

    def margin_once(self) -> str:
        """The scale of the hint's and the tutor's figures, as a line to add to the first note that shows
        one, and "" after (said once a session): "Values are margins: your points this round minus
        Ben's, so a point that goes to Ben instead counts 2." """
        if self._margin_said:
            return ""
        self._margin_said = True
        n = self.game.nsides
        mine = self.human % n
        others = [self.side_name(s) for s in range(n) if s != mine]
        partners = len(self.players) > n
        points = "your side's points" if partners else "your points"
        if n == 2:
            return "\n" + margin_words(2, points, f"{others[0]}'s", others[0])
        return "\n" + margin_words(n, points, them="one of the others")

    def side_name(self, side: int) -> str:
        return side_names(self.players, self.game.nsides)[side]

    def score_text(self) -> str:
        scores = self.game.scores
        parts = [f"{self.side_name(s)} {_pts(p)}" for s, p in enumerate(scores)]
        return f"Game score (to {self.rules.target}): " + ", ".join(parts)

    def residue_text(self, before: RoundState, move: Move, end: RoundState) -> str:
        """Who took the cards left on the table when ``move`` ended the round (rules.md 1.11: the
        side of the last capture), in words; "" when the table was empty."""
        played = move.take | 1 << move.card if move.action == CAPTURE else 0
        side = before.to_move % before.nsides
        for k in range(end.nsides):
            got = end.captured[k] & ~before.captured[k] & ~(played if k == side else 0)
            if got:
                why = "the last capture" if end.last_capturer == k else "nobody captured: the dealer's side"
                return (
                    f"{says(self.side_name(k), 'take')} the rest of the table, {mask_symbols(got)} ({why})."
                )
        aside = end.set_aside & ~before.set_aside
        if aside:
            return f"The rest of the table, {mask_symbols(aside)}, is set aside: nobody captured."
        return ""

    def round_text(self, score: RoundScore, scores_before: Sequence[Points] = ()) -> str:
        """The round's points and items per side, the game score, and why a side under the near-21
        rule scored what it did (``report.words.near_target_notes``; ``scores_before``: the game
        score the round started at)."""
        parts = [f"{self.side_name(s)} {_pts(p)}" for s, p in enumerate(score.points)]
        items = []
        for s in range(len(score.points)):
            got = [
                f"{k.replace('_', ' ')} {_pts(v)}"
                for k, v in score.breakdown[s].items()
                if k in ("cards", "spades", "big_casino", "little_casino", "aces", "sweeps", "last_capture")
                and v
            ]
            items.append(
                f"{self.side_name(s)}: {', '.join(got) or 'nothing'} "
                f"({score.card_counts[s]} cards, {score.spade_counts[s]} spades)"
            )
        number = len(self.game.match.rounds)
        sides = [self.side_name(k) for k in range(len(score.points))]
        near = "".join(f" {note}." for note in near_target_notes(self.rules, scores_before, sides))
        return (
            f"Round {number}: {', '.join(parts)}. " + "; ".join(items) + "." + near + " " + self.score_text()
        )

    def result_text(self) -> str:
        w = self.game.winner
        if w is None:
            return "Game over. " + self.score_text()
        who = self.side_name(w)
        won = f"{who} win" if w == self.human % self.game.nsides else says(who, "win")
        return f"Game over: {won}. " + self.score_text()

    # --- the log -------------------------------------------------------------------------------------

    def log_json(self) -> bytes:
        """The game so far as a ``casino-replay`` log (every hand known), with a ``play`` field (an
        addition the format allows: readers ignore fields they do not know) recording what ``resume``
        needs beyond the log: the person's seat and the bots' kind."""
        obj = log_to_obj(self.game.to_log())
        obj["play"] = {"seat": self.human, "opponent": self.opponent}
        return dumps(obj)

    def save(self) -> Path | None:
        """Write the log to ``out`` atomically; the path, or None when there is nowhere to write."""
        if self.out is None:
            return None
        atomic_write_bytes(self.out, self.log_json())
        return self.out

    def _save_note(self) -> list[Note]:
        try:
            path = self.save()
        except OSError as e:
            return [
                Note(
                    NoteKind.ERROR, f"could not save the log to {printable(str(self.out))}: {e.strerror or e}"
                )
            ]
        if path is None:
            return []
        notes = [Note(NoteKind.SAVED, f"Game saved to {printable(str(path))}")]
        if self.ply > 0:  # a log without a move has nothing to review
            notes.append(Note(NoteKind.REVIEW, review_text(path, over=self.game.over)))
        return notes

    def completions(self, prefix: str) -> list[str]:
        """Completions of a partly typed line: commands, and the legal moves' notation."""
        low = prefix.lower().lstrip()
        out = [c for c in COMMANDS if c.startswith(low)]
        if self.human_to_move:
            out += [t for t in (typed_text(m) for m in self.legal()) if t.lower().startswith(low)]
        return out


def review_text(log: Path, *, over: bool) -> str:
    """How to review a saved log: the ``analyze`` and ``export`` command lines, ready to copy (the
    path quoted for a POSIX shell), with the page named after the log."""
    shown = printable(shlex.quote(str(log)))
    page = printable(shlex.quote(str(log.with_suffix(".html"))))
    what = "the game" if over else "the game so far"
    # A line per command (-o keeps the default log's export within 80 columns), so either copies whole.
    return "\n".join(
        [
            f"Review {what}, or write it as a page to step through:",
            f"casino-coach analyze {shown}",
            f"casino-coach export {shown} -o {page}",
        ]
    )


def _unknown(text: str, hand: int, legal: Sequence[Move]) -> str:
    """A line that is neither a command nor a move starting with a card: suggest what it may be."""
    first = text.split()[0] if text.split() else text
    word = first.lower()
    close = difflib.get_close_matches(word, [*COMMANDS, *_ALIASES], n=1, cutoff=0.6)
    if close and len(word) > 1 and not word[0].isdigit():
        cmd = _command_word(close[0]) or close[0]
        return f"Unknown command {quoted(first)}: did you mean {cmd!r}? (help lists the commands)"
    return not_a_card(text, hand, legal, ", a move number, or help")


# ---------------------------------------------------------------------------------------------------
# Helpers


def _command_word(word: str) -> str | None:
    if word in COMMANDS:
        return word
    return _ALIASES.get(word)


def _resume_seat(
    path: Path, players: Sequence[str], record: Any, seat: int | None, opponent: str | None
) -> tuple[int, str]:
    """The person's seat and the bots' kind for ``PlaySession.resume``: the log's ``play`` record,
    else ``seat`` and ``opponent``, else read from the names (the bots named after their kind)."""
    n = len(players)
    if record is not None:
        rec_seat = record.get("seat") if isinstance(record, dict) else None
        rec_opp = record.get("opponent") if isinstance(record, dict) else None
        if not (isinstance(rec_seat, int) and not isinstance(rec_seat, bool) and 0 <= rec_seat < n) or (
            rec_opp not in BOT_NAMES
        ):
            raise LogError(
                f'{path}: play: expected {{"seat": 0..{n - 1}, "opponent": a bot}}, got {shown(record)}'
            )
        for given, recorded, what in ((seat, rec_seat, "--seat"), (opponent, rec_opp, "--opponent")):
            if given is not None and given != recorded:
                raise CoachError(f"{path}: the game was played with {what} {recorded}, not {given}")
        return rec_seat, rec_opp
    fits = [
        (h, kind)
        for kind in BOT_NAMES
        for h in range(n)
        if (seat is None or h == seat)
        and (opponent is None or kind == opponent)
        and [p for s, p in enumerate(players) if s != h] == bot_names(kind, n - 1)
    ]
    if len(fits) == 1:
        return fits[0]
    if seat is not None and opponent is not None:
        return seat, opponent
    raise CoachError(
        f"{path}: cannot tell which seat is yours and which bots played: give --seat and --opponent"
    )


def _pts(p: Points) -> str:
    return str(int(p)) if p == int(p) else f"{p:.1f}"


def _at_least(cls: str, threshold: str) -> bool:
    return CLASS_ORDER.index(cls) >= CLASS_ORDER.index(threshold)


def _tutor_text(w: TutorWarning, scale: str = "") -> str:
    """The tutor's warning: the loss and class, the reasons, the scale of the figures where the
    session says it (``margin_once``), and the choices."""
    g = w.game
    if w.by_game and g is not None:
        head = (
            f"Tutor: {w.move.describe()} gives up {chance_gap_words(g.lost)} of the chance to win the game "
            f"against {g.best.describe()}: {article(g.cls.value)} for the game."
        )
    else:
        head = (
            f"Tutor: {w.move.describe()} loses about {w.loss:.1f} of margin against the best move: "
            f"{article(w.cls)}."
        )
    lines = [head]
    lines += [f"  - {r}" for r in w.reasons]
    lines += [scale.strip()] if scale.strip() else []
    lines.append("Type r to rethink, p to play it anyway, or h for a hint.")
    return "\n".join(lines)
