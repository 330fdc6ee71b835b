"""``casino-coach play``: a game against the coach's bots in the terminal, with hints and a tutor.

The command only wires input and output: lines come from the terminal (with tab completion of commands
and moves), a ``--moves`` file, or a pipe; each goes to ``session.PlaySession.handle`` and what comes back is
drawn by ``render.play``. The game log is written by the session after every round and at the end.
"""

from __future__ import annotations

import datetime
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import typer

from casino_coach.cli.app import INTERRUPTED, Command, app, handle_errors, seed_option
from casino_coach.cli.options import check_ranges
from casino_coach.errors import UsageError, about, printable, quoted

if TYPE_CHECKING:
    from rich.console import Console

    from casino_coach.services.play_session import PlaySession

PROMPT = "your move> "
TUTOR_PROMPT = "r rethink / p play anyway / h hint> "
DEFAULT_TUTOR = "mistake"


def default_out(seed: int, today: datetime.date, folder: Path = Path()) -> Path:
    """``casino-2026-11-29-seed7.json`` in ``folder``; ``-2``, ``-3``... when the name is taken."""
    base = f"casino-{today.isoformat()}-seed{seed}"
    path = folder / f"{base}.json"
    n = 2
    while path.exists():
        path = folder / f"{base}-{n}.json"
        n += 1
    return path


class LineSource:
    """Typed lines: from a terminal (prompt, line editing, tab completion) or a file/pipe (echoed so
    the transcript reads like the game). ``read`` returns None at the end of the input.

    At a terminal the prompt goes to ``input`` itself, not printed before it (as Rich's
    ``Console.input`` does): readline redraws the line it knows of after Backspace or Ctrl-U, and a
    prompt it was not given is wiped."""

    def __init__(
        self,
        console: Console,
        stream: TextIO,
        interactive: bool,
        complete: Callable[[str], list[str]] | None = None,
        ask: Callable[[str], str] | None = None,
    ) -> None:
        self.console = console
        self.stream = stream
        self.interactive = interactive
        self._ask = ask
        self._lines: Iterator[str] = iter(stream)
        if interactive:
            _enable_editing(complete)

    def read(self, prompt: str) -> str | None:
        if self.interactive:
            self.console.file.flush()
            try:
                return (self._ask or input)(prompt)
            except EOFError:
                return None
        for raw in self._lines:
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue  # blank lines and comments in a script
            self.console.print(f"{prompt}{printable(line)}", markup=False, highlight=False)
            return line
        return None


def _enable_editing(complete: Callable[[str], list[str]] | None) -> None:
    """Line editing (importing readline is what gives ``input`` it) and tab completion of the whole
    line (commands and legal moves), when readline is present."""
    try:
        import readline
    except ImportError:  # pragma: no cover - platforms without readline
        return
    if complete is None:
        return
    matches: list[str] = []

    def completer(text: str, state: int) -> str | None:
        nonlocal matches
        if state == 0:
            matches = complete(readline.get_line_buffer())
        return matches[state] if state < len(matches) else None

    readline.set_completer_delims("")
    readline.set_completer(completer)
    readline.parse_and_bind("tab: complete")


class _PlayCommand(Command):
    """``--tutor`` takes an optional level: a bare ``--tutor`` (last, or before another option) means
    ``--tutor mistake``. Typer has no optional option values, so the arguments are completed here."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer.Context
        out: list[str] = []
        for i, arg in enumerate(args):
            out.append(arg)
            if arg == "--tutor" and (i + 1 == len(args) or args[i + 1].startswith("-")):
                out.append(DEFAULT_TUTOR)
        return super().parse_args(ctx, out)


# What a resumed game takes from its log, not from the command line.
_FROM_THE_LOG = {
    "preset": "--preset",
    "option": "--option",
    "players": "--players",
    "seed": "--seed",
    "name": "--name",
}


@app.command("play", cls=_PlayCommand)
@handle_errors
def play_command(
    ctx: typer.Context,
    preset: str = typer.Option("classic", "--preset", help="classic, royal or dominican"),
    option: list[str] = typer.Option(
        [], "--option", "-r", metavar="NAME=VALUE", help="Override a rule option, NAME=VALUE, repeatable."
    ),
    players: int = typer.Option(2, "--players", min=2, max=4, help="2, 3 or 4 players (you and bots)."),
    opponent: str = typer.Option(
        "counter", "--opponent", help="The bots: counter, searcher, greedy or random."
    ),
    seed: int | None = seed_option(None, "Shuffle seed (default: a random one)."),
    seat: int = typer.Option(0, "--seat", help="Your seat, 0 to players-1."),
    name: str = typer.Option("You", "--name", help="Your name in the log."),
    practice: bool = typer.Option(False, "--practice", help="Allow undo."),
    tutor: str | None = typer.Option(
        None,
        "--tutor",
        metavar="[inaccuracy|mistake|blunder]",
        help="Stop moves that lose at least this much (default mistake) and say why.",
    ),
    detail: bool = typer.Option(
        False,
        "--detail",
        help="The tutor and the hints give every reason, category by category, below the headline.",
    ),
    samples: int | None = typer.Option(
        None,
        "--samples",
        help="Search effort of hints and the tutor: at most this many deals of the "
        "hidden cards per decision (default: as analyze, so the tutor's verdicts are analyze's).",
        show_default=False,
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="FILE",
        help="Where to write the game log (default: casino-DATE-seedS.json here); its folder must exist.",
    ),
    moves: Path | None = typer.Option(
        None,
        "--moves",
        help="Read the moves from this file instead of the keyboard (one a line, # comments).",
    ),
    resume: Path | None = typer.Option(
        None,
        "--resume",
        metavar="LOG",
        help="Continue the game saved in LOG by play (its rules, players and seed; saved back to LOG "
        "unless --out is given).",
    ),
) -> None:
    """Play Casino against the coach's bots, with hints, a tutor and undo.

    Type moves in the compact notation (8C x 3H 5S) or by number; help lists the commands.
    """
    from rich.console import Console

    from casino_coach.bots.policies import BOT_NAMES, bot_kind
    from casino_coach.coach.verdict import analysis_limits
    from casino_coach.engine.rules import RuleSet
    from casino_coach.formats.codec import parse_options
    from casino_coach.formats.files import check_target
    from casino_coach.services.play_session import TUTOR_LEVELS, PlaySession

    if tutor is not None and tutor not in TUTOR_LEVELS:
        raise UsageError(f"--tutor: unknown level {quoted(tutor)}: choose one of {', '.join(TUTOR_LEVELS)}")
    check_ranges(samples=samples)
    # The options a new game is made of, checked as the parser checks its own (a usage error, 2).
    if _given(ctx, "opponent") and bot_kind(opponent) is None:
        raise UsageError(f"--opponent: unknown bot {quoted(opponent)}: choose one of {', '.join(BOT_NAMES)}")
    if resume is None and not 0 <= seat < players:
        raise UsageError(f"--seat must be from 0 to {players - 1} with {players} players, got {seat}")
    if resume is None and preset not in RuleSet.preset_names():
        raise UsageError(
            f"--preset: unknown preset {quoted(preset)}: choose one of {', '.join(RuleSet.preset_names())}"
        )
    if out is not None:
        check_target(out)  # a log that cannot be written fails now, not at the first save
    interactive = moves is None and sys.stdin.isatty()
    # In a script "7H" is the trail, as the notation says: a file cannot answer "which one?".
    if resume is not None:
        given = [flag for key, flag in _FROM_THE_LOG.items() if _given(ctx, key)]
        if given:
            raise typer.BadParameter(
                f"a resumed game keeps its log's rules, players, seed and names: drop {', '.join(given)}",
                param_hint="'--resume'",
            )
        with about(resume):
            session = PlaySession.resume(
                resume,
                seat=seat if _given(ctx, "seat") else None,
                opponent=opponent if _given(ctx, "opponent") else None,
                out=out,
                practice=practice,
                tutor=tutor,
                samples=samples,
                literal=not interactive,
            )
    else:
        rules = RuleSet.from_dict({"preset": preset, **parse_options(option)})
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        today = datetime.date.today()
        session = PlaySession(
            rules,
            players=players,
            human=seat,
            name=name,
            opponent=opponent,
            seed=seed,
            practice=practice,
            tutor=tutor,
            out=out if out is not None else default_out(seed, today),
            date=today.isoformat(),
            limits=analysis_limits(samples) if samples else None,
            literal=not interactive,
        )
    session.detail = detail
    console = Console(highlight=False)
    if moves is not None:
        with moves.open(encoding="utf-8") as f:
            run(session, console, LineSource(console, f, interactive=False))
    else:
        stdin = sys.stdin
        source = LineSource(console, stdin, interactive=interactive, complete=session.completions)
        run(session, console, source)


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` was typed on the command line (not left at its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def run(session: PlaySession, console: Console, source: LineSource) -> None:
    """The game loop: bots play, the table is shown, a line is read and handled, until the end."""
    from casino_coach.engine.reasons import article
    from casino_coach.render.play import note_view, words

    opponents = ", ".join(p for s, p in enumerate(session.names) if s != session.human)
    extras = ["practice: undo allowed"] if session.practice else []
    if session.tutor is not None:
        extras.append(f"tutor: stops {article(session.tutor)} or worse")
    console.print(
        words(
            f"Casino ({session.rules.describe()}) against {opponents}, seed "
            f"{session.seed}. Log: {printable(str(session.out))}" + "".join(f"; {x}" for x in extras)
        )
    )
    if session.resumed_at is not None:
        console.print(
            words(f"Resumed after {session.resumed_at} moves: round {session.game.round_index + 1}. ")
            + words(session.score_text())
        )
    console.print(
        "Type a move (8C x 3H 5S) or its number; hint, why, undo, help, quit.", style="dim", markup=False
    )
    try:
        _loop(session, console, source)
    except KeyboardInterrupt:  # Ctrl-C quits like ``quit``: the game so far is saved
        console.print("\nInterrupted.")
        for note in session.stop():
            console.print(note_view(note))
        raise typer.Exit(INTERRUPTED) from None


def _loop(session: PlaySession, console: Console, source: LineSource) -> None:
    from casino_coach.render.play import note_view, turn_view
    from casino_coach.services.play_session import NoteKind

    shown = -1
    while not session.over:
        if session.bot_to_move:
            with _thinking(console, source, f"{session.names[session.game.to_move]} is thinking"):
                notes = session.bot_step()
            for note in notes:
                console.print(note_view(note))
            continue
        if shown != session.ply:
            console.print(turn_view(session))
            shown = session.ply
        line = source.read(TUTOR_PROMPT if session.pending is not None else PROMPT)
        if line is None:
            console.print("Input ended.")
            for note in session.stop():
                console.print(note_view(note))
            return
        with _thinking(console, source, "thinking"):
            notes = session.handle(line)
        for note in notes:
            if note.kind == NoteKind.TABLE:
                shown = -1
                continue
            console.print(note_view(note))


def _thinking(console: Console, source: LineSource, what: str) -> AbstractContextManager[object]:
    """A spinner while a bot, a hint or the tutor searches (at a terminal only)."""
    if source.interactive and console.is_terminal:
        return console.status(f"{what}...", spinner="dots")
    return nullcontext()
