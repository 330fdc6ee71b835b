"""``casino-coach analyze-all`` (many logs into a results store, locally or on a Dask cluster) and
``casino-coach stats`` (a player's record from the store).

``analyze_many`` is the command's body as a plain function; ``casino-coach analyze`` given several logs,
a folder, a glob or ``--store`` hands its arguments over to it through ``analyze_command_many``.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import typer

from casino_coach.cli.app import app, err_console, handle_errors, progress_task, seed_option
from casino_coach.cli.options import (
    BLUNDER,
    DEPTH,
    INACCURACY,
    MISTAKE,
    NOISE,
    WORLD,
    check_ranges,
    class_thresholds,
    jobs_option,
    samples_option,
)
from casino_coach.coach.classes import Thresholds
from casino_coach.errors import MESSAGE_WIDTH, StoreError, UsageError
from casino_coach.formats.text import printable

if TYPE_CHECKING:
    from casino_coach.services.batch import BatchReport, BatchSettings

DEFAULT_STORE = Path("casino-results.db")


class Period(StrEnum):
    """The periods of ``stats --by`` (``store.PERIODS``), a choice: a wrong one is a usage error."""

    GAME = "game"
    DAY = "day"
    MONTH = "month"
    YEAR = "year"


class Preset(StrEnum):
    """The presets of ``stats --preset`` (``RuleSet.preset_names()``; tests check they agree)."""

    CLASSIC = "classic"
    ROYAL = "royal"
    DOMINICAN = "dominican"


_STORE = typer.Option(
    DEFAULT_STORE,
    "--store",
    "-s",
    metavar="FILE",
    help="The results store (an SQLite file; its folder must exist).",
)


def analyze_many(
    inputs: list[str],
    store: Path = DEFAULT_STORE,
    *,
    settings: BatchSettings,
    jobs: int = 1,
    cluster: str | None = None,
    limit: int | None = None,
    json: bool = False,
) -> int:
    """Analyse every log of ``inputs`` into ``store`` with a progress bar on stderr; print what was
    done (a line, or JSON) and one ``error:`` line on stderr per file that failed. Returns the exit
    status: 1 when a file failed, else 0. A store this run would create is left uncreated when
    nothing is stored in it (no log found, a bad cluster address, every file failed, stopped before
    the first game was done)."""
    from rich.console import Console

    from casino_coach.formats.files import check_target
    from casino_coach.render.stats import batch_view
    from casino_coach.services.batch import check_cluster_address
    from casino_coach.services.store import remove_if_empty

    if cluster is not None:
        check_cluster_address(cluster)
    check_target(store)  # a store in a missing folder is refused, as any output file is
    created = not store.exists()
    try:
        report = _analyze_into(inputs, store, settings, jobs, cluster, limit)
    except BaseException:
        if created:
            remove_if_empty(store)  # a run stopped by Ctrl-C keeps the games it finished
        raise
    if created and not report.analysed:
        remove_if_empty(store)
    for source, reason in report.failed:
        err_console().print(f"error: {printable(source)}: {printable(reason, MESSAGE_WIDTH)}", markup=False)
    if json:
        typer.echo(
            orjson.dumps({"store": str(store), **report.to_json()}, option=orjson.OPT_INDENT_2).decode()
        )
    else:
        Console(highlight=False).print(batch_view(report, str(store)))
    return 1 if report.failed else 0


def _analyze_into(
    inputs: list[str], store: Path, settings: BatchSettings, jobs: int, cluster: str | None, limit: int | None
) -> BatchReport:
    from casino_coach.services.batch import run_batch
    from casino_coach.services.store import Store

    with Store(store) as st, progress_task("{task.description}", "analysing") as update:

        def step(event: str, source: str, done: int, total: int) -> None:
            update(
                completed=done,
                total=total,
                description=f"analysing {printable(Path(source).name)}" if source else "analysing",
            )

        return run_batch(inputs, st, settings, jobs=jobs, cluster=cluster, progress=step, limit=limit)


def _settings(
    samples: int | None, seed: int, depth: int | None, world: bool, player: str | None, thresholds: Thresholds
) -> BatchSettings:
    """How every game is analysed, from the options of analyze-all (or analyze given many logs)."""
    from casino_coach.services.batch import BatchSettings

    return BatchSettings(
        samples=samples, seed=seed, depth=depth, world=world, player=player, thresholds=thresholds
    )


def analyze_command_many(
    inputs: list[Path],
    store: Path | None,
    cluster: str | None,
    *,
    jobs: int,
    player: str | None,
    samples: int | None,
    seed: int,
    depth: int | None,
    world: bool,
    thresholds: Thresholds,
    json: bool,
) -> int:
    """``casino-coach analyze`` given many logs or ``--store``: its options, handed to ``analyze_many``
    (``--jobs`` is then the number of games analysed at once). Returns the exit status."""
    check_ranges(samples=samples, depth=depth, jobs=jobs)
    return analyze_many(
        [str(p) for p in inputs],
        store or DEFAULT_STORE,
        settings=_settings(samples, seed, depth, world, player, thresholds),
        jobs=jobs,
        cluster=cluster,
        json=json,
    )


@app.command("analyze-all")
@handle_errors
def analyze_all_command(
    inputs: list[str] = typer.Argument(
        ...,
        help="Logs: files, folders (every *.json inside) or glob patterns like 'games/**/*.json'.",
        show_default=False,
        metavar="INPUT",
    ),
    store: Path = _STORE,
    jobs: int = jobs_option("Analyse N games at once in local processes."),
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        metavar="ADDRESS",
        help="Run on a Dask distributed scheduler (tcp://HOST:PORT) instead; needs the 'cluster' extra.",
    ),
    player: str | None = typer.Option(
        None,
        "--player",
        "-p",
        metavar="NAME",
        help="Rate only this player's moves; games without the player are skipped.",
    ),
    samples: int | None = samples_option(),
    seed: int = seed_option(0, "Salt of the search's sampling (each position draws its own worlds)."),
    depth: int | None = DEPTH,
    world: bool = WORLD,
    inaccuracy: float = INACCURACY,
    mistake: float = MISTAKE,
    blunder: float = BLUNDER,
    noise: float = NOISE,
    limit: int | None = typer.Option(
        None, "--limit", help="Stop after analysing N games (run again to go on)."
    ),
    json: bool = typer.Option(False, "--json", help="Print the run's summary as JSON."),
) -> None:
    """Analyse many game logs into a results store. Games already analysed with the same settings
    are skipped; each game is stored as soon as it is done, so an interrupted run resumes.

    Example: casino-coach analyze-all games/ 'archive/**/*.json' --store results.db --jobs 2
    """
    check_ranges(samples=samples, depth=depth, jobs=jobs)
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    settings = _settings(
        samples, seed, depth, world, player, class_thresholds(inaccuracy, mistake, blunder, noise)
    )
    status = analyze_many(
        inputs, store, settings=settings, jobs=jobs, cluster=cluster, limit=limit, json=json
    )
    if status:
        raise typer.Exit(status)


@app.command("stats")
@handle_errors
def stats_command(
    player: str | None = typer.Option(
        None,
        "--player",
        "-p",
        metavar="NAME",
        help="Show this player's record over time (default: one line of totals per player).",
    ),
    store: Path = _STORE,
    by: Period | None = typer.Option(
        None,
        "--by",
        help="With --player: a row per game (with its file and opponents), day, month or year.  "
        "[default: month]",
        show_default=False,
    ),
    top: int | None = typer.Option(
        None,
        "--top",
        metavar="N",
        help="With --player: how many kinds of mistake to list.  [default: 5]",
        show_default=False,
    ),
    preset: Preset | None = typer.Option(
        None, "--preset", help="Count only the games of this preset.", show_default=False
    ),
    players: int | None = typer.Option(
        None,
        "--players",
        min=2,
        max=4,
        metavar="N",
        help="Count only the games of N players (2 to 4).",
        show_default=False,
    ),
    json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
) -> None:
    """A player's record from the results store: games, decisions, inaccuracies, mistakes and
    blunders, error rate, accuracy, the most frequent kinds of mistake, and the weakest skills per
    kind of game. Without --player, one line of totals per player and kind of game (preset and
    number of players), then the three weakest skills of each.

    A skill's points are those lost per game by the moves not classed best that it names. A move
    goes under the first of these that fits it:

    \b
      answering-builds   the best took an opponent's build (or took it over)
      protecting-builds  the best cashed, raised or doubled your build; yours did not
      leaving-no-sweep   yours left a table one card takes whole; the best did not
      aces-and-casinos   most of the loss lies in the aces, 10♦ and 2♠
      trailing           the best move trailed
      building           the best move built
      pairs-and-sums     the best move captured

    \b
    Example: casino-coach stats --store results.db
    Example: casino-coach stats --store results.db --preset royal --players 4
    Example: casino-coach stats --player Ana --store results.db --by game
    """
    for name, value, what in (("--by", by, "groups"), ("--top", top, "lists the mistakes of")):
        if value is not None and player is None:  # a setting of one player's record: never ignored
            raise typer.BadParameter(
                f"it {what} one player's record: give --player NAME too", param_hint=name
            )
    if not store.is_file():
        raise StoreError(
            f"{printable(str(store))}: no results store here (make one with casino-coach analyze-all)"
        )
    if store.stat().st_size == 0:  # opening it would make it a store: stats writes nothing
        raise StoreError(
            f"{printable(str(store))}: an empty file, not a results store "
            "(make one with casino-coach analyze-all)"
        )
    if top is not None and top < 0:
        raise UsageError(f"--top must be 0 or more, got {top}")
    from rich.console import Console

    from casino_coach.render.stats import player_stats_view, players_view
    from casino_coach.services.store import GameKinds, Store, all_players, player_stats

    only = GameKinds(preset.value if preset is not None else None, players)
    with Store(store, readonly=True) as st:
        if player is None:
            records = all_players(st, only)
            if json:
                typer.echo(
                    orjson.dumps(
                        {
                            "store": str(store),
                            "players": [
                                {"player": r.label, **{k: v for k, v in r.to_json().items() if k != "period"}}
                                for r in records
                            ],
                        },
                        option=orjson.OPT_INDENT_2,
                    ).decode()
                )
            else:
                Console(highlight=False).print(players_view(records, str(store), only.words()))
            return
        period = by.value if by is not None else "month"
        stats = player_stats(st, player, by=period, top=5 if top is None else top, only=only)
    if json:
        typer.echo(orjson.dumps(stats.to_json(), option=orjson.OPT_INDENT_2).decode())
    else:
        Console(highlight=False).print(player_stats_view(stats))
