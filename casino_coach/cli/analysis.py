"""``casino-coach analyze`` and ``casino-coach export``: rate every move of a log and report it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import typer

from casino_coach.cli.app import (
    app,
    collection_paused,
    err_console,
    handle_errors,
    progress_task,
    seed_option,
)
from casino_coach.cli.options import (
    BLUNDER,
    DEPTH,
    DETAIL,
    INACCURACY,
    MISTAKE,
    NOISE,
    WORLD,
    check_ranges,
    class_thresholds,
    jobs_option,
    samples_option,
)
from casino_coach.errors import CoachError, UsageError, about
from casino_coach.formats.text import printable
from casino_coach.report import ReportFormat

if TYPE_CHECKING:
    from casino_coach.coach.analysis import GameAnalysis
    from casino_coach.formats.log import GameLog


def _load(file: Path, player: str | None) -> tuple[GameLog, frozenset[int] | None]:
    """Read and re-play the log, and find the player's seat: every error names the file."""
    from casino_coach.coach.analysis import read_checked

    return read_checked(file, player)


def _run(
    file: Path,
    player: str | None,
    jobs: int,
    effort: tuple[int | None, int, int | None],
    edges: tuple[float, float, float, float],
    world: bool,
) -> GameAnalysis:
    """Read, check and analyse the log with a progress bar on stderr: ``effort`` is the samples,
    the seed and the depth, ``edges`` the class edges (inaccuracy, mistake, blunder, noise)."""
    samples, _, depth = effort
    check_ranges(samples=samples, depth=depth, jobs=jobs)
    log, seats = _load(file, player)
    return _analyse(file, log, seats, jobs, effort, edges, world)


def _analyse(
    file: Path,
    log: GameLog,
    seats: frozenset[int] | None,
    jobs: int,
    effort: tuple[int | None, int, int | None],
    edges: tuple[float, float, float, float],
    world: bool,
) -> GameAnalysis:
    """Analyse a log read from ``file`` (``_load``) with a progress bar on stderr."""
    from casino_coach.coach.analysis import AnalysisOptions, analyze
    from casino_coach.coach.verdict import analysis_limits

    samples, seed, depth = effort
    options = AnalysisOptions(
        limits=analysis_limits(samples, seed, depth),
        thresholds=class_thresholds(*edges),
        seats=seats,
        world=world,
        jobs=jobs,
    )
    with progress_task("analysing {task.description}", file.name) as update:

        def step(done: int, total: int) -> None:
            update(completed=done, total=total)

        with about(file):  # the log is re-played there: an illegal move names the file
            return analyze(log, options, progress=step)


def _reports(
    inputs: list[Path],
    player: str | None,
    jobs: int,
    effort: tuple[int | None, int, int | None],
    edges: tuple[float, float, float, float],
    view: tuple[bool, int, bool, bool, bool],
) -> None:
    """``analyze`` given several logs, a folder or a pattern, without a store: the report of each
    log, one after another, in the order given (``view``: JSON, the worst moves, the whole game, the
    real cards, the detail below the headlines). Every log is read, re-played and checked first, so
    a bad one stops the command before any search and before anything is printed. With ``--json``
    one JSON array, printed once every log is analysed: each log's casino-analysis document with
    its ``source`` file added."""
    from rich.console import Console
    from rich.rule import Rule

    from casino_coach.render.analysis import analysis_view
    from casino_coach.report.document import normal_obj
    from casino_coach.services.batch import named_logs

    json, worst, whole_game, world, detail = view
    samples, _, depth = effort
    check_ranges(samples=samples, depth=depth, jobs=jobs)
    files = named_logs(inputs)
    loaded = [(f, *_load(f, player)) for f in files]
    console = Console(highlight=False)
    documents = []
    for i, (file, log, seats) in enumerate(loaded):
        result = _analyse(file, log, seats, jobs, effort, edges, world)
        if json:
            documents.append({**normal_obj(result), "source": str(file)})
            continue
        if i:
            console.print()
        console.print(Rule(f"{printable(str(file))} ({i + 1} of {len(loaded)})", style="bold"), markup=False)
        wide = console.width >= 120
        console.print(analysis_view(result, worst=worst, whole_game=whole_game, wide=wide, detail=detail))
    if json:
        typer.echo(orjson.dumps(documents, option=orjson.OPT_INDENT_2).decode())


_JOBS = jobs_option("Analyse with N processes (moves are independent; the result does not depend on N).")
_PLAYER = typer.Option(
    None, "--player", "-p", metavar="NAME", help="Rate only this player's moves (name or seat)."
)
_SAMPLES = samples_option()
_SEED = seed_option(0, "Salt of the search's sampling: each position draws its own worlds from it.")


@app.command("analyze")
@handle_errors
def analyze_command(
    files: list[Path] = typer.Argument(
        ...,
        help="A casino-replay log (JSON). Several logs, a folder or a glob pattern: the report of "
        "each, one after another (with --json a JSON array); with --store, into a results store "
        "instead, as analyze-all does.",
        show_default=False,
        metavar="LOG",
    ),
    json: bool = typer.Option(
        False,
        "--json",
        help="Print the analysis as JSON instead (one document; an array of them for several logs).",
    ),
    jobs: int = _JOBS,
    player: str | None = _PLAYER,
    samples: int | None = _SAMPLES,
    seed: int = _SEED,
    inaccuracy: float = INACCURACY,
    mistake: float = MISTAKE,
    blunder: float = BLUNDER,
    noise: float = NOISE,
    world: bool = WORLD,
    depth: int | None = DEPTH,
    detail: bool = DETAIL,
    worst: int | None = typer.Option(
        None,
        "--worst",
        show_default=False,
        help="How many of the worst moves (N) to explain first [default: 5].",
    ),
    moves: bool | None = typer.Option(
        None,
        "--moves/--no-moves",
        show_default=False,
        help="Show the whole game after the worst moves [default: moves].",
    ),
    store: Path | None = typer.Option(
        None,
        "--store",
        "-s",
        metavar="FILE",
        help="Analyse into this results store (SQLite), skipping games already there; see analyze-all.",
    ),
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        metavar="ADDRESS",
        help="With --store: run on this Dask scheduler (tcp://HOST:PORT); see analyze-all.",
    ),
) -> None:
    """Rate every move of a game log: the loss in expected points against the best move, a class
    (best, good, inaccuracy, mistake, blunder), and why, naming the cards.

    \b
    Example: casino-coach analyze replays/classic-2p-full.json --jobs 2 --player Ana
    Example: casino-coach analyze replays/royal-2p-full.json replays/dominican-2p-full.json --json
    Example: casino-coach analyze games/ --store results.db
    """
    if cluster is not None and store is None:
        raise UsageError("--cluster analyses into a results store: give --store FILE too")
    if store is not None:  # the batch path of cli/batch.py: into the store, a line (or JSON) of summary
        from casino_coach.cli import batch

        if worst is not None or moves is not None:  # they shape one game's report, which is not written
            shaped = "--worst" if worst is not None else "--moves" if moves else "--no-moves"
            raise UsageError(f"{shaped} shapes one game's report: with a store it has no use")
        raise typer.Exit(
            batch.analyze_command_many(
                files,
                store,
                cluster,
                jobs=jobs,
                player=player,
                samples=samples,
                seed=seed,
                depth=depth,
                world=world,
                thresholds=class_thresholds(inaccuracy, mistake, blunder, noise),
                json=json,
            )
        )
    worst = 5 if worst is None else worst
    moves = True if moves is None else moves
    if worst < 0:  # a.worst(-1) listed every missed move but one
        raise UsageError(f"--worst must be 0 or more, got {worst}")
    effort, edges = (samples, seed, depth), (inaccuracy, mistake, blunder, noise)
    if (
        len(files) != 1
        or files[0].is_dir()
        or (any(c in str(files[0]) for c in "*?[") and not files[0].is_file())  # a real file is a file
    ):  # several logs, a folder or a pattern: each log's report, one after another
        _reports(files, player, jobs, effort, edges, (json, worst, moves, world, detail))
        return
    with collection_paused():  # one log read, analysed and written: nothing for the collector to find
        result = _run(files[0], player, jobs, effort, edges, world)
        if json:
            from casino_coach.report.document import render

            typer.echo(render(result, ReportFormat.JSON).decode(), nl=False)  # as export writes it
            return
    from rich.console import Console

    from casino_coach.render.analysis import analysis_view

    console = Console(highlight=False)
    wide = console.width >= 120
    console.print(analysis_view(result, worst=worst, whole_game=moves, wide=wide, detail=detail))


_EXTENSIONS = {".html": ReportFormat.HTML, ".htm": ReportFormat.HTML, ".md": ReportFormat.MD}
_EXTENSIONS |= {".markdown": ReportFormat.MD, ".json": ReportFormat.JSON}


def _format_of(out: Path) -> ReportFormat:
    """The report format an ``--out`` file name asks for, as ``tree`` takes its format."""
    fmt = _EXTENSIONS.get(out.suffix.lower())
    if fmt is None:
        raise CoachError(f"--out {out}: name a .html, .md or .json file, or give --format html, md or json")
    return fmt


# The options of export that shape a search: with --from the analysis is read as it was saved.
_SEARCH_OPTIONS = {
    "jobs": "--jobs",
    "player": "--player",
    "samples": "--samples",
    "seed": "--seed",
    "inaccuracy": "--inaccuracy",
    "mistake": "--mistake",
    "blunder": "--blunder",
    "noise": "--noise",
    "world": "--world/--no-world",
    "depth": "--depth",
}


@app.command("export")
@handle_errors
def export_command(
    ctx: typer.Context,
    file: Path | None = typer.Argument(
        None, help="A casino-replay log (JSON); or give --from.", show_default=False, metavar="LOG"
    ),
    fmt: ReportFormat | None = typer.Option(
        None,
        "--format",
        "-f",
        help="html (one self-contained page), md or json; default: from the --out file's extension.",
    ),
    out: Path = typer.Option(
        ...,
        "--out",
        "-o",
        metavar="FILE",
        help="The report file to write (its folder must exist).",
        show_default=False,
    ),
    source: Path | None = typer.Option(
        None,
        "--from",
        metavar="ANALYSIS",
        help="Render a saved analysis (the output of analyze --json) instead of a log: no search.",
        show_default=False,
    ),
    jobs: int = _JOBS,
    player: str | None = _PLAYER,
    samples: int | None = _SAMPLES,
    seed: int = _SEED,
    inaccuracy: float = INACCURACY,
    mistake: float = MISTAKE,
    blunder: float = BLUNDER,
    noise: float = NOISE,
    world: bool = WORLD,
    depth: int | None = DEPTH,
) -> None:
    """Analyse a game log and write an annotated report: every move with its class, its explanation
    and the best alternative, and a chart of the expected round score. With --from, write the report
    of an analysis saved by analyze --json, as it was made, without searching again.

    \b
    Example: casino-coach export replays/classic-2p-full.json --format html --out game.html
    Example: casino-coach export --from analysis.json --out game.md
    """
    from casino_coach.formats.files import atomic_write_bytes, check_target
    from casino_coach.report.document import read_analysis, render

    if (file is None) == (source is None):
        raise UsageError(
            "give a LOG to analyse or --from ANALYSIS, not both" if file else "give a LOG or --from ANALYSIS"
        )
    if source is not None:
        given = [flag for key, flag in _SEARCH_OPTIONS.items() if _given(ctx, key)]
        if given:
            raise UsageError(f"{given[0]} shapes a search: --from renders the analysis as it was saved")
    read = file if file is not None else source
    assert read is not None
    check_target(out, [read])  # a folder, a device or a file read fails before the work, not after
    fmt = fmt or _format_of(out)
    if source is not None:
        with about(source):
            result = read_analysis(source)
    else:
        result = _run(
            read, player, jobs, (samples, seed, depth), (inaccuracy, mistake, blunder, noise), world
        )
    atomic_write_bytes(out, render(result, fmt))
    err_console().print(f"wrote {printable(str(out))} ({fmt.value}, {len(result.moves)} moves)", markup=False)


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` was typed on the command line (not left at its default)."""
    got = ctx.get_parameter_source(name)
    return got is not None and got.name in ("COMMANDLINE", "ENVIRONMENT")
