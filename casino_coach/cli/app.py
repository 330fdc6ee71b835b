"""The Typer application object and the one error policy every command shares.

Commands live in sibling modules (one per concern) and register themselves on ``app``. A command
body parses its arguments, calls one library function, and renders the result; ``handle_errors``
turns the library's own errors into one line on stderr and exit status 1, with no traceback.
"""

from __future__ import annotations

import functools
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, get_args, get_origin

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from casino_coach.cli.coercion import quick_coercion
from casino_coach.errors import MESSAGE_WIDTH, CoachError, Terminated, UsageError
from casino_coach.formats.text import printable

if TYPE_CHECKING:
    from rich.console import Console


class _Argument(TyperArgument):
    """An argument as Click shows one: ``LOG...`` or ``[FILE]`` in the usage line and the help, never
    Typer's ``{LOG}...`` and ``LOG <list[Path]>``."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        return (name if self.required else f"[{name}]") + ("..." if self.nargs != 1 else "")

    def _rich_display_name(self) -> str:
        return self.display_name_raw + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


def _placeholder(option: TyperOption) -> str:
    """What an option without its own metavar shows for its value: ``N``, ``X``, ``PATH``, ``TEXT``
    or its choices (``[html|md|json]``), as Click writes them, not Typer's ``<int range>``."""
    desc = option.type_descriptor
    if desc.is_choice and desc.choices is not None:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in desc.choices) + "]"
    annotation: Any = desc.annotation
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    if desc.is_path or annotation is Path:
        return "PATH"
    return {int: "N", float: "X"}.get(annotation, "TEXT")


def _quick(param: Any) -> None:
    """Let ``param`` take its plain values without Typer's Pydantic adapter (``coercion``), which
    costs importing Pydantic (55-60 ms) at every command's start."""
    if isinstance(param, TyperArgument | TyperOption) and param._runtime_param is None:
        param._runtime_param = quick_coercion(param.type_descriptor)  # None: Typer's own, as before


class Command(TyperCommand):
    """A command of ``casino-coach``: its ``--help`` option too takes its value without Pydantic."""

    def get_help_option(self, ctx: Any) -> TyperOption | None:  # typer.Context
        option = super().get_help_option(ctx)
        _quick(option)
        return option


class CommandLine(TyperGroup):
    """The ``casino-coach`` group: every command's arguments and options (play's too, whatever
    module declares them) show clean placeholders in ``--help``: ``LOG...``, ``N``, ``PATH``, and
    take their plain values without importing Pydantic (``coercion.quick_coercion``)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for command in [self, *self.commands.values()]:
            if type(command) is TyperCommand:
                command.__class__ = Command
            for param in command.params:
                if type(param) is TyperArgument:
                    if param.metavar is None:
                        param.metavar = (param.name or "arg").upper()
                    param.__class__ = _Argument
                elif isinstance(param, TyperOption) and not (param.is_flag or param.count or param.metavar):
                    param.metavar = _placeholder(param)
                _quick(param)

    def get_help_option(self, ctx: Any) -> TyperOption | None:  # typer.Context
        option = super().get_help_option(ctx)
        _quick(option)
        return option


app = typer.Typer(
    cls=CommandLine,
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


@functools.cache
def err_console() -> Console:
    """Standard error as Rich writes it: one-line errors and progress bars. Made on first use: Rich
    is imported by the commands that print with it, not by every start-up."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


@contextmanager
def progress_task(text: str, description: str) -> Iterator[Callable[..., None]]:
    """A progress bar of one task on stderr while the block runs, gone when it ends, at a terminal
    only; ``text`` is the bar's words (``{task.description}`` stands for ``description``). Yields
    the task's ``update(completed=, total=, description=)``, which does nothing elsewhere (Rich's
    Progress is then not even imported)."""
    if not _may_be_terminal(sys.stderr):  # what Rich would say, without importing it (0.02 s)
        yield lambda **fields: None
        return
    console = err_console()
    if not console.is_terminal:
        yield lambda **fields: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(text), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        yield functools.partial(progress.update, progress.add_task(description, total=None))


def _may_be_terminal(stream: Any) -> bool:
    """False where Rich's ``Console.is_terminal`` surely says no for ``stream``: no environment
    variable that Rich reads to say otherwise (``TTY_COMPATIBLE``, ``FORCE_COLOR``) and not a tty."""
    if "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is not None and bool(isatty())
    except ValueError:  # closed
        return True


@contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cycle collector paused while the block runs (``analyze`` of one log: it reads,
    analyses and writes, allocating hundreds of thousands of objects that live to its end and next
    to no reference cycles; the collector's passes over them were a twelfth of its time). When the
    block ends, what it made goes to the collector's oldest generation without a pass over it (a
    freeze and a thaw: the collector's next young pass would go over all of it, 0.03-0.07 s), where
    the next full pass collects it as usual. Worker processes forked inside the block start with the
    collector paused too."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.enable()


def fail(message: str, status: int = 1) -> typer.Exit:
    """Print ``error: message`` on one line of stderr and return the Exit(``status``) to raise
    (control characters escaped: a file name with a newline made the error two lines)."""
    err_console().print(f"error: {printable(message, MESSAGE_WIDTH)}", markup=False)
    return typer.Exit(status)


# The exit status after Ctrl-C: 128 + SIGINT, as shells report it; and after a usage error, as Click's.
INTERRUPTED = 130
USAGE = 2


def handle_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Map CoachError (and unreadable files) to one line on stderr and exit status 1 (2 for a
    UsageError, as for the parser's own usage errors), Ctrl-C to one "interrupted" line and
    status 130 (Typer would end the command silently), and SIGTERM or SIGHUP while worker
    processes run (``errors.Terminated``) to one "terminated" line and status 128 + the signal."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            err_console().print("error: interrupted", markup=False)
            raise typer.Exit(INTERRUPTED) from None
        except Terminated as e:  # SIGTERM or SIGHUP while workers ran: they are ended already
            err_console().print(f"error: terminated ({signal.Signals(e.signum).name})", markup=False)
            raise typer.Exit(128 + e.signum) from None
        except UsageError as e:
            raise fail(str(e), USAGE) from None
        except CoachError as e:
            raise fail(str(e)) from None
        except OSError as e:
            where = f"{e.filename}: " if e.filename else ""
            raise fail(f"{where}{e.strerror or e}") from None

    return wrapper
