"""``casino-coach engine``: the engine protocol (``services.engine_session``) on standard input and output."""

from __future__ import annotations

import contextlib
import sys

import typer

from casino_coach.cli.app import app, handle_errors, seed_option
from casino_coach.cli.options import check_ranges, samples_option


@app.command("engine")
@handle_errors
def engine_command(
    samples: int | None = samples_option(
        "Sampled deals of the unseen cards per go/analyze, unless the request says"
    ),
    time: float | None = typer.Option(
        None,
        "--time",
        metavar="SECONDS",
        help="Seconds per go/analyze, unless the request says (default: no time limit).",
    ),
    seed: int = seed_option(0, "Seed of the search's sampling, unless the request says."),
    depth: int | None = typer.Option(
        None,
        "--depth",
        help="Plies searched per sampled deal, unless the request says (default: 8; with 2 players the rest "
        "of the round once at most 3 cards are left in the deal before the last; with 3 or 4 players the "
        "rest of the deal once at most 13 cards are left in the hands, the whole of the last).",
        show_default=False,
    ),
) -> None:
    """Run as an engine for other programs: one JSON request per line on stdin, one JSON answer per
    line on stdout, until {"type": "quit"} or the end of the input. See docs/engine-protocol.md for
    the protocol.

    Example: echo '{"type": "hello", "id": 1}' | casino-coach engine
    """
    from casino_coach.services.engine_session import EngineSession, bounded_lines, engine_limits, serve

    check_ranges(samples=samples, depth=depth, time=time)
    limits = engine_limits(samples, time, seed, depth)
    out = sys.stdout.buffer

    def write(data: bytes) -> None:
        out.write(data)
        out.flush()

    with contextlib.suppress(BrokenPipeError):  # the controller went away: nothing left to answer
        serve(bounded_lines(sys.stdin.buffer), write, EngineSession(limits))
