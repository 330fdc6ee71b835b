"""Options that several commands share, declared once: the rule options, the number of processes,
and the analysis settings (class thresholds, depth, the world cost), so that each reads the same in
every command's ``--help``."""

from __future__ import annotations

import os
from typing import Any

import typer

from casino_coach.coach.classes import Thresholds
from casino_coach.errors import CoachError, UsageError

_DEFAULT = Thresholds()


def rule_option(help: str = "A rule option NAME=VALUE (VALUE as JSON or a bare word), repeatable.") -> Any:
    """The ``--option``/``-r`` of every command that takes rules (``-o`` is ``--out`` everywhere)."""
    return typer.Option([], "--option", "-r", metavar="NAME=VALUE", help=help)


# One default for every --jobs (analyze, export, analyze-all): the CPUs, at most 8.
DEFAULT_JOBS = max(1, min(os.cpu_count() or 1, 8))
MAX_JOBS = 64  # processes: more is a slip (each costs a Python and its memory)


def check_ranges(
    *,
    samples: int | None = None,
    depth: int | None = None,
    time: float | None = None,
    jobs: int | None = None,
) -> None:
    """UsageError naming the option for a search limit or a process count out of its range, before
    any work (the engine's requests take the same ranges: ``search.result.MAX_SAMPLES`` and co.)."""
    from casino_coach.search.result import MAX_PLIES, MAX_SAMPLES, MAX_SECONDS  # the search, for its bounds

    if samples is not None and not 1 <= samples <= MAX_SAMPLES:
        raise UsageError(f"--samples must be from 1 to {MAX_SAMPLES:,}, got {samples}")
    if depth is not None and not 1 <= depth <= MAX_PLIES:
        raise UsageError(f"--depth must be from 1 to {MAX_PLIES:,} plies, got {depth}")
    if time is not None and not 0 < time <= MAX_SECONDS:
        raise UsageError(f"--time must be a number of seconds above 0, at most {MAX_SECONDS:g}, got {time:g}")
    if jobs is not None and not 1 <= jobs <= MAX_JOBS:
        raise UsageError(f"--jobs must be from 1 to {MAX_JOBS}, got {jobs}")


def class_thresholds(inaccuracy: float, mistake: float, blunder: float, noise: float) -> Thresholds:
    """The class thresholds the options ask for; UsageError when they do not grow (``Thresholds``).
    An *inaccuracy* edge below *best*'s default takes *best* down with it."""
    best = min(_DEFAULT.best, inaccuracy) if inaccuracy >= 0 else _DEFAULT.best
    try:
        return Thresholds(inaccuracy=inaccuracy, mistake=mistake, blunder=blunder, best=best, noise=noise)
    except CoachError as e:
        raise UsageError(str(e)) from None


def samples_option(help: str = "At most this many sampled deals of the unseen cards per move") -> Any:
    """The ``--samples`` option: unset, the analysis's worlds for the game's number of players
    (``verdict.analysis_limits``, said in words without importing the search)."""
    from casino_coach.coach.budget import VERDICT_WORLDS, VERDICT_WORLDS_MANY

    return typer.Option(
        None,
        "--samples",
        metavar="N",
        help=f"{help} (default {VERDICT_WORLDS:,} with two players, {VERDICT_WORLDS_MANY:,} with three or "
        "four).",
        show_default=False,
    )


def jobs_option(help: str) -> Any:
    """The ``--jobs``/``-j`` option, defaulting to ``DEFAULT_JOBS`` (said in words: it varies by machine)."""
    return typer.Option(
        DEFAULT_JOBS,
        "--jobs",
        "-j",
        metavar="N",
        help=f"{help} Default: the number of CPUs, at most 8.",
        show_default=False,
    )


INACCURACY = typer.Option(
    _DEFAULT.inaccuracy,
    "--inaccuracy",
    metavar="POINTS",
    help="Loss (points) from which a move is an inaccuracy.",
)
MISTAKE = typer.Option(
    _DEFAULT.mistake, "--mistake", metavar="POINTS", help="Loss (points) from which a move is a mistake."
)
BLUNDER = typer.Option(
    _DEFAULT.blunder, "--blunder", metavar="POINTS", help="Loss (points) from which a move is a blunder."
)
NOISE = typer.Option(
    _DEFAULT.noise,
    "--noise",
    metavar="K",
    help="Width of the loss's interval: K standard errors each side; a class is at most one above its "
    "low end's.",
)
DEPTH = typer.Option(
    None,
    "--depth",
    metavar="N",
    help="Plies searched per sampled deal before estimating (default: 8; with 2 players the rest of the "
    "round once at most 3 cards are left in the deal before the last; with 3 or 4 players the rest of the "
    "deal once at most 13 cards are left in the hands, the whole of the last).",
    show_default=False,
)
DETAIL = typer.Option(
    False,
    "--detail",
    help="Below each move's headline, the reasons category by category, with the points each accounts for.",
)
WORLD = typer.Option(
    True,
    "--world/--no-world",
    help="Also value each move against the cards actually held (logs with every hand).",
)
