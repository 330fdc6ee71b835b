"""``casino-coach drill``: a player's own mistakes and blunders, given back as positions to solve.

The command only wires input and output: the logs are read and analysed by ``services.drill``, the
lines come from the terminal (tab completion of commands and moves) or a pipe through ``play``'s
``LineSource``, each goes to ``DrillSession.handle``, and what comes back is drawn by ``render.drill``.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from casino_coach.cli.app import INTERRUPTED, app, handle_errors, progress_task, seed_option
from casino_coach.cli.options import DEPTH, check_ranges, jobs_option, samples_option
from casino_coach.cli.play import LineSource
from casino_coach.errors import UsageError, about

if TYPE_CHECKING:
    from rich.console import Console

    from casino_coach.services.drill import DrillSession, Note

PROMPT = "your move> "


class Only(StrEnum):
    """Which misses to drill: mistakes and blunders (the default), or one of them."""

    MISTAKE = "mistake"
    BLUNDER = "blunder"


@app.command("drill")
@handle_errors
def drill_command(
    files: list[Path] = typer.Argument(
        ...,
        help="A casino-replay log (JSON); several logs, a folder or a glob pattern: their positions "
        "one after another.",
        show_default=False,
        metavar="LOG",
    ),
    player: str | None = typer.Option(
        None,
        "--player",
        "-p",
        metavar="NAME",
        help="Drill only this player's moves (name or seat) [default: every player whose hands the "
        "log gives; the viewer in a viewer log].",
        show_default=False,
    ),
    only: Only | None = typer.Option(
        None, "--only", help="Drill only mistakes or only blunders [default: both].", show_default=False
    ),
    skill: str | None = typer.Option(
        None,
        "--skill",
        metavar="SKILL",
        help="Drill only the misses of one skill of play, as stats names them: answering-builds, "
        "protecting-builds, leaving-no-sweep, aces-and-casinos, trailing, building, pairs-and-sums "
        "[default: every skill].",
        show_default=False,
    ),
    samples: int | None = samples_option(),
    seed: int = seed_option(0, "Salt of the search's sampling, as analyze takes it."),
    depth: int | None = DEPTH,
    jobs: int = jobs_option("Analyse with N processes (the result does not depend on N)."),
) -> None:
    """Solve the positions where you made a mistake or a blunder: each is shown as you saw it, you
    type a move, and it is judged as analyze judges moves. quit or the end of input stops with the
    score so far."""
    from rich.console import Console

    from casino_coach.coach.classes import MoveClass
    from casino_coach.coach.skills import parse_skill
    from casino_coach.coach.verdict import analysis_limits
    from casino_coach.render.drill import intro_text
    from casino_coach.services.batch import named_logs
    from casino_coach.services.drill import (
        DRILLED,
        DrillSession,
        DrillSettings,
        drill_positions,
        drill_settings,
        no_positions_words,
        read_checked,
    )

    check_ranges(samples=samples, depth=depth, jobs=jobs)
    try:
        drilled = parse_skill(skill) if skill is not None else None
    except ValueError as e:
        raise UsageError(f"--skill: {e}") from None
    paths = named_logs(files)
    loaded = [(path, *read_checked(path, player)) for path in paths]  # a bad log stops before any search
    classes = DRILLED if only is None else (MoveClass(only.value),)
    limits = analysis_limits(samples, seed, depth)
    positions = []
    for path, log, seats in loaded:
        settings = DrillSettings(limits, seats=seats, classes=classes, jobs=jobs, skill=drilled)
        with progress_task("analysing {task.description}", path.name) as update:

            def step(done: int, total: int) -> None:
                update(completed=done, total=total)

            with about(path):
                positions += drill_positions(log, settings, str(path), step)
    console = Console(highlight=False)
    sources = [str(p) for p in paths]
    if not positions:
        console.print(no_positions_words(sources, classes, player, drilled), markup=False)
        return
    session = DrillSession(positions, drill_settings(DrillSettings(limits)))
    words = drilled.words if drilled is not None else None
    console.print(intro_text(len(positions), sources, [c.value for c in classes], player, words))
    interactive = sys.stdin.isatty() and console.is_terminal
    source = LineSource(console, sys.stdin, interactive, session.completions)
    try:
        _loop(session, console, source, len(paths) > 1)
    except KeyboardInterrupt:  # Ctrl-C stops like quit, with the score so far
        console.print("\nInterrupted.")
        _show(console, session, session.stop(), False)
        raise typer.Exit(INTERRUPTED) from None


def _loop(session: DrillSession, console: Console, source: LineSource, several: bool) -> None:
    """Show each position (naming its file when ``several`` logs are drilled), read answers until
    the drill is over, the input ends or quit."""
    _show(console, session, session.start(), several)
    while not session.over:
        line = source.read(PROMPT)
        if line is None:
            console.print("Input ended.")
            _show(console, session, session.stop(), several)
            return
        _show(console, session, session.handle(line), several)


def _show(console: Console, session: DrillSession, notes: list[Note], several: bool) -> None:
    from casino_coach.render.drill import note_view
    from casino_coach.services.drill import NoteKind

    for note in notes:
        where = None
        if note.kind == NoteKind.POSITION and not session.over:
            session.assessment()  # searched before the prompt, not after the answer
            where = (session.current, session.index + 1, len(session.positions), several)
        console.print(note_view(note, where))
