"""The Typer application object and the one error policy every command shares.

Commands live in sibling modules (one per concern) and register themselves on ``app``. A command
body parses its arguments, calls one library function, and renders the result; ``handle_errors``
turns the library's own errors into one line on stderr and exit status 1, with no traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import typer
from rich.console import Console

from casino_coach.errors import CardError, CoachError, IllegalMoveError, LogError, NotationError, RulesError

app = typer.Typer(
    name="casino-coach",
    help="A coach for the card game Casino: replay, check, search and analyse games "
    "(classic, royal and dominican rules).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# The largest seed any command takes: seeds are written into logs and JSON as 64-bit integers.
SEED_MAX = 2**63 - 1


def seed_option(default: int | None, help: str) -> Any:
    """The ``--seed`` option of a command, bounded to ``0..SEED_MAX`` (a usage error beyond)."""
    return typer.Option(default, "--seed", min=0, max=SEED_MAX, help=help)


P = ParamSpec("P")
R = TypeVar("R")

err_console = Console(stderr=True, highlight=False, soft_wrap=True)


@contextmanager
def about(path: Path) -> Iterator[None]:
    """Errors in reading or re-playing the file ``path`` name it first ("FILE: round 1, deal 1,
    ..."), whichever command met them."""
    try:
        yield
    except (LogError, CardError, IllegalMoveError, NotationError, RulesError) as e:
        text = str(e)
        if text.startswith(f"{path}: "):
            raise
        raise type(e)(f"{path}: {text}") from None


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on one line of stderr and return the Exit(1) to raise."""
    err_console.print(f"error: {message}", markup=False)
    return typer.Exit(1)


# The exit status after Ctrl-C: 128 + SIGINT, as shells report it; and after a usage error, as Click's.
INTERRUPTED = 130
USAGE = 2


def handle_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Map CoachError (and unreadable files) to one line on stderr and exit status 1, and Ctrl-C to
    one "interrupted" line and status 130 (Typer would end the command silently)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            err_console.print("error: interrupted", markup=False)
            raise typer.Exit(INTERRUPTED) from None
        except CoachError as e:
            raise fail(str(e)) from None
        except OSError as e:
            where = f"{e.filename}: " if e.filename else ""
            raise fail(f"{where}{e.strerror or e}") from None

    return wrapper
