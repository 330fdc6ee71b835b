"""The ``casino-coach`` command line: a thin Typer layer over the library.

Each command module registers itself on ``app`` when imported below, and imports the library its
commands use only when one of them runs: every command, ``--help`` and ``--version`` too, starts by
importing this package, so it imports Typer and little else (``tests/test_cli_conventions.py`` checks
it, and ``coercion`` keeps Pydantic out of the options). ``main`` runs the app and turns
usage errors (an unknown option, a missing argument) into one line on stderr and exit status 2, as
Click does (other bad input is status 1).
"""

from __future__ import annotations

import gc
import sys

import typer

import casino_coach.cli.analysis  # noqa: F401  (registers analyze and export)
from casino_coach import __version__, build, core
from casino_coach.cli import batch as _batch  # noqa: F401  (registers analyze-all and stats)
from casino_coach.cli import drill as _drill  # noqa: F401  (registers drill)
from casino_coach.cli import engine as _engine  # noqa: F401  (registers engine)
from casino_coach.cli import logs as _logs  # noqa: F401  (registers validate, replay, moves, selfplay)
from casino_coach.cli import play as _play  # noqa: F401  (registers play)
from casino_coach.cli import rules_cmd  # noqa: F401  (registers commands)
from casino_coach.cli import search as _search  # noqa: F401  (registers suggest and tree)
from casino_coach.cli.app import INTERRUPTED, USAGE, app, err_console
from casino_coach.errors import CoachError


def _version(value: bool) -> None:
    if value:
        typer.echo(f"casino-coach {__version__} ({build()})")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_version,
        is_eager=True,
        help="Print the version and what runs the hot path (native core or Python reference), and exit.",
    ),
) -> None:
    """A coach for the card game Casino (classic, royal and dominican rules)."""


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``casino-coach`` console script."""
    args = sys.argv[1:] if argv is None else argv
    if not args:  # a bare casino-coach: the help, as --help gives it
        args = ["--help"]
    try:
        core.check()
    except CoachError as e:
        err_console().print(f"error: {e}", markup=False)
        sys.exit(1)
    try:
        rv = app(args=args, prog_name="casino-coach", standalone_mode=False)
    except typer.exceptions.TyperException as e:  # usage errors: unknown option, missing argument
        ctx = getattr(e, "ctx", None)
        if type(e).__name__ == "NoArgsIsHelpError" and ctx is not None:  # (Typer vendors Click)
            typer.echo(ctx.get_help())  # a command given without its arguments: its help
            sys.exit(USAGE)
        where = f"{ctx.command_path}: " if ctx is not None else ""
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        err_console().print(f"error: {where}{e.format_message()}{hint}", markup=False)
        sys.exit(USAGE)
    except (typer.Abort, KeyboardInterrupt):
        err_console().print("error: interrupted", markup=False)
        sys.exit(INTERRUPTED)
    except typer.Exit as e:
        _ending()
        sys.exit(e.exit_code)
    _ending()
    sys.exit(rv if isinstance(rv, int) else 0)


def _ending() -> None:
    """The command is done and the process ends: what it made is frozen out of the cycle
    collector's reach (``gc.freeze``), so that the interpreter's last full pass at exit skips it (a
    pass over every object left, 0.01-0.03 s after an analysis; the objects are freed all the same)."""
    gc.freeze()


__all__ = ["app", "main"]
