"""The exception hierarchy of casino_coach.

Every error a user can cause (a bad card, bad notation, a bad option, an illegal move, a malformed log)
is a ``CoachError``; the CLI maps it to one line on stderr and exit status 1. Each subclass is also a
``ValueError`` so library users can catch it the ordinary way.
"""

from __future__ import annotations

import signal
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson


class CoachError(ValueError):
    """Root of every error casino_coach raises on purpose."""


class UsageError(CoachError):
    """A command line that asks for something no command does: an option's value out of its range,
    options that exclude each other, an argument missing. The command line exits with status 2 for
    it, as for the usage errors its parser finds itself (an unknown option, a seed below 0)."""


class CardError(CoachError):
    """A card or card list that cannot be parsed (unknown rank or suit, a card twice)."""


class NotationError(CoachError):
    """A move or table written in the compact notation that cannot be parsed."""


class RulesError(CoachError):
    """An unknown rule option, an impossible value, or an unknown preset."""


class IllegalMoveError(CoachError):
    """A move that the rules do not allow in the given position; the message names the rule."""


class AmbiguousMoveError(CoachError):
    """A typed move that fits several legal moves: ``candidates`` holds them (moves, in legal order)."""

    def __init__(self, message: str, candidates: Sequence[Any]) -> None:
        super().__init__(message)
        self.candidates: tuple[Any, ...] = tuple(candidates)


class LogError(CoachError):
    """A game log or position file that is malformed or inconsistent; the message says where."""


class OutputError(CoachError):
    """A place an output file cannot be written to (a folder, a device, a pipe)."""


class GameOverError(CoachError):
    """A round scored into a game that is already won."""


class SearchError(CoachError):
    """A position the search cannot value: inconsistent counts, no consistent world."""


class TooBigToSearchError(SearchError):
    """A position the search refuses to value because it would take too long (a huge table)."""


class TooManyMovesError(CoachError):
    """A position whose legal moves are too many to list for someone to read (a huge table)."""


class ProtocolError(CoachError):
    """A request the engine cannot carry out; answered as an ``error`` object, never raised out."""


class BatchError(CoachError):
    """Inputs that name no log, or a cluster that cannot be reached."""


class WorkerError(CoachError):
    """A worker process that ended in the middle of its work (``workers.py``)."""


class NotALogError(CoachError):
    """A JSON file of another casino_coach format (a position, an analysis): left out, not failed."""


class StoreError(CoachError):
    """A results store that cannot be opened or read (not SQLite, another schema, a bad record)."""


class Terminated(BaseException):
    """SIGTERM or SIGHUP while a pool of workers is open (``workers.py``): raised in the parent, so
    that leaving the pool's ``with`` block ends the workers (a BaseException: no ``except Exception``
    swallows it). Here, not in ``workers``, so that the CLI can catch it without importing
    multiprocessing at start-up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


# Text from the input (a player's name, a file name, a line typed or read, a value quoted in an
# error) reaches the terminal, a page or a message through ``printable`` only: every control or
# format character escaped, so that nothing reaches the terminal raw (an escape sequence would recolour
# it, retitle it or clear it, a bidi override reorder the line, a newline split an error in two), and
# cut to a width, so that a name of 200,000 characters takes no minutes to lay out. The widths:
NAME_WIDTH = 40  # a player's name, in a table or a line of play
SHOWN_WIDTH = 60  # a value an error message quotes
LINE_WIDTH = 200  # a file name or a line of text (a path may be 4,096 bytes long)
MESSAGE_WIDTH = 1000  # a whole message (an error line), its quoted parts each cut already

_ESCAPED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")  # control, format (bidi), unassigned, separators


def printable(text: str, width: int = LINE_WIDTH) -> str:
    """``text`` as it is shown: every control or format character (C0 with the newline, C1, DEL, bidi
    overrides and isolates, line separators) written as its escape (``\\x1b``, ``\\n``,
    ``\\u202e``), and cut to ``width`` characters, the last one an ellipsis (``…``)."""
    if len(text) > width:
        text = text[: width + 1]  # escaping only lengthens: no more is ever shown
    if not text.isprintable():
        text = "".join(
            ch.encode("unicode_escape").decode("ascii")
            if ch != " " and not ch.isprintable() and unicodedata.category(ch) in _ESCAPED
            else ch
            for ch in text
        )
    return text if len(text) <= width else text[: width - 1] + "…"


def shown(value: Any) -> str:
    """``value`` as an error message quotes it: its JSON, printable, at most ``SHOWN_WIDTH`` long."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # nested too deep for JSON, or not JSON at all
        text = f"a {type(value).__name__}" if isinstance(value, list | dict | tuple) else repr(value)
    return printable(text, SHOWN_WIDTH)


def quoted(text: str) -> str:
    """A piece of the user's text as an error message quotes a name or a card: in single quotes,
    printable, at most ``SHOWN_WIDTH`` characters."""
    return f"'{printable(text, SHOWN_WIDTH - 2)}'"


@contextmanager
def about(path: str | Path | None) -> Iterator[None]:
    """Errors in reading or re-playing the file ``path`` name it first ("FILE: round 1, deal 1,
    ..."), whichever command met them, and so do the refusals of a position of it too big to list
    or to search; None: no file (a typed position), the errors as they are."""
    try:
        yield
    except (
        LogError,
        CardError,
        IllegalMoveError,
        NotationError,
        RulesError,
        TooManyMovesError,
        TooBigToSearchError,
    ) as e:
        if path is None:
            raise
        text, where = str(e), printable(str(path))
        if text.startswith(f"{where}: "):
            raise
        raise type(e)(f"{where}: {text}") from None
