"""``casino-coach suggest`` and ``casino-coach tree``: what to play here, and the search tree behind it.

Both read a decision from a log (the position before move ``--at N``, or where the log stops) or a
position file; ``suggest`` also takes a position typed in the compact notation (``--hand``, ``--table``
and friends). The search itself is ``casino_coach.search.leaf``.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import typer

from casino_coach.cli.app import app, err_console, handle_errors, seed_option
from casino_coach.cli.options import (
    BLUNDER,
    DEPTH,
    DETAIL,
    INACCURACY,
    MISTAKE,
    NOISE,
    check_ranges,
    class_thresholds,
    rule_option,
    samples_option,
)
from casino_coach.errors import UsageError
from casino_coach.formats.text import printable

if TYPE_CHECKING:
    from casino_coach.services.decision import TypedPosition

_FILE = typer.Argument(None, help="A casino-replay log or casino-position file (JSON).", show_default=False)
_AT = typer.Option(
    None,
    "--at",
    help="The position just before move N of the log (0-based, counted "
    "across the whole log); default: where the log stops.",
)
_SAMPLES = samples_option("At most this many deals of the hidden cards, as analyze")
_SEED = seed_option(0, "Seed of the sampling: the same seed gives the same answer.")
_TIME = typer.Option(None, "--time", metavar="SECONDS", help="Stop sampling after this many seconds.")

_HAND = typer.Option(
    None,
    "--hand",
    metavar="CARDS",
    help="Type a position instead of a FILE: the cards of the seat to move, e.g. '8S 9C' (TD or 10D is "
    "the 10 of diamonds).",
)
_TABLE = typer.Option(
    "",
    "--table",
    metavar="TABLE",
    help="The table: loose cards, then builds in brackets [CARDS =VALUE @SEAT] (=VALUE: what the build "
    "is worth, default the sum; @SEAT: its owner, default the next seat), e.g. 'AC 2D [6S 3H =9 @1]'.",
)
_PRESET = typer.Option(
    "classic",
    "--preset",
    metavar="PRESET",
    help="The rules of a typed position: classic, royal or dominican.",
)
_OPTION = rule_option()
_PLAYERS = typer.Option(2, "--players", help="2, 3 or 4 players.")
_TO_MOVE = typer.Option(0, "--to-move", metavar="SEAT", help="Your seat: the seat to move.")
_HAND_SIZES = typer.Option(
    None,
    "--hand-sizes",
    metavar="N,N,...",
    help="Cards held by each seat in seat order, e.g. '2,2' (default: as many as your hand).",
)
_STOCK = typer.Option(0, "--stock", help="Cards still to be dealt (0 in the last deal).")
_SEEN = typer.Option(
    "",
    "--seen",
    metavar="CARDS",
    help="Cards out of play, captured earlier by whoever (they score for nobody), e.g. 'KD 5C'.",
)
_CAPTURED = typer.Option(
    [],
    "--captured",
    metavar="CARDS",
    help="One side's captured cards (they count in its score); give it once per side, in side order, "
    "e.g. --captured 'AS 2S' --captured ''.",
)
_LAST_CAPTURE = typer.Option(
    None,
    "--last-capture",
    metavar="SIDE",
    help="The side that captured last (it takes the rest at the end).",
)
_SCORES = typer.Option(
    None,
    "--scores",
    metavar="N,N,...",
    help="The game score per side before this round, e.g. '17,19': adds the chances to win the game.",
)
_DEALER = typer.Option(
    None,
    "--dealer",
    metavar="SEAT",
    help="The seat that dealt this round (default: the one the hand sizes imply).",
)


@app.command("suggest")
@handle_errors
def suggest_command(
    *,
    file: Path | None = _FILE,
    at: int | None = _AT,
    top: int | None = typer.Option(None, "--top", "-k", metavar="K", help="Show only the K best moves."),
    json: bool = typer.Option(False, "--json", help="Print the ranked moves as JSON."),
    hand: str | None = _HAND,
    table: str = _TABLE,
    preset: str = _PRESET,
    option: list[str] = _OPTION,
    players: int = _PLAYERS,
    to_move: int = _TO_MOVE,
    hand_sizes: str | None = _HAND_SIZES,
    stock: int = _STOCK,
    seen: str = _SEEN,
    captured: list[str] = _CAPTURED,
    last_capture: int | None = _LAST_CAPTURE,
    scores: str | None = _SCORES,
    dealer: int | None = _DEALER,
    samples: int | None = _SAMPLES,
    seed: int = _SEED,
    time: float | None = _TIME,
    depth: int | None = DEPTH,
    inaccuracy: float = INACCURACY,
    mistake: float = MISTAKE,
    blunder: float = BLUNDER,
    noise: float = NOISE,
    detail: bool = DETAIL,
) -> None:
    """Rank the moves of a position by expected points, with the reason; in the last deal of a
    2-player round, where every card is known, the best line in words, with who plays each card.

    The position is a log (before move --at N, or where it stops), a casino-position file, or one
    typed in the compact notation: cards are a rank (A 2 3 4 5 6 7 8 9 T J Q K; 10 for T) and a suit
    (C D H S), like 8S, TD, 10D; builds are written [CARDS =VALUE @SEAT].

    \b
    Example: casino-coach suggest replays/classic-2p-progress.json --top 3
    Example: casino-coach suggest replays/classic-2p-full.json --at 12
    Example: casino-coach suggest --preset royal --hand '8S 9C' --table 'AC 2D [6S 3H =9 @1]'
                 --hand-sizes 2,2 --seen 'KD 5C' --captured 'AS 2S 3S' --captured 'QH KH'

    A value is the expected points of the round for the side to move minus the others' (their mean
    with three sides), counting cards captured so far. In a typed position every card not in
    --hand, --table, --seen or --captured is unseen: the search deals the other hands (--hand-sizes)
    and the stock (--stock) from them; any left over count as captured by no one known.
    """
    from rich.console import Console

    from casino_coach.render.search import suggestion_render
    from casino_coach.services.decision import Effort, TypedPosition, result_json, suggest

    if top is not None and top < 1:
        raise UsageError(f"--top must be at least 1, got {top}")
    check_ranges(samples=samples, time=time, depth=depth)
    thresholds = class_thresholds(inaccuracy, mistake, blunder, noise)
    typed = None
    if hand is not None:
        typed = TypedPosition(
            hand,
            table,
            preset,
            tuple(option),
            players,
            to_move,
            hand_sizes,
            stock,
            seen,
            tuple(captured),
            last_capture,
            scores,
            dealer,
        )
    source = _source(file, at, typed, typed_only=scores is not None or dealer is not None)
    effort = Effort(samples, seed, time, depth)
    found = suggest(source, at=at, effort=effort, thresholds=thresholds, runner_up=not json)
    if json:
        typer.echo(orjson.dumps(result_json(found, top)).decode())
        return
    Console().print(suggestion_render(found, top, detail))


def _source(
    file: Path | None, at: int | None, typed: TypedPosition | None, *, typed_only: bool
) -> Path | TypedPosition:
    """What ``suggest`` searches: the FILE, or the position typed (``--hand`` and friends);
    ``typed_only``: options of a typed position were given (``--scores``, ``--dealer``)."""
    if file is not None and typed is not None:
        raise UsageError("give a FILE or a typed position (--hand), not both")
    if file is not None:
        if typed_only:
            raise UsageError(
                "--scores and --dealer are for a typed position: a log or position file has its own"
            )
        return file
    if typed is None:
        raise UsageError("give a log or position FILE, or type a position with --hand and --table")
    if at is not None:
        raise UsageError("--at needs a log FILE")
    return typed


class GraphFormat(StrEnum):
    """What ``tree`` writes: GraphML, Graphviz DOT or networkx node-link JSON, or a picture that
    Graphviz's ``dot`` draws (SVG, PNG)."""

    GRAPHML = "graphml"
    DOT = "dot"
    JSON = "json"
    SVG = "svg"
    PNG = "png"


# The levels of the tree that ``tree`` writes to a terminal when no --max-depth is given: the moves and
# their first replies (the whole tree of one decision runs to thousands of lines).
TERMINAL_DEPTH = 2


@app.command("tree")
@handle_errors
def tree_command(
    *,
    file: Path = typer.Argument(
        ..., help="A casino-replay log or casino-position file (JSON).", show_default=False
    ),
    out: str = typer.Option(
        "-",
        "--out",
        "-o",
        metavar="FILE",
        help="Output file: .graphml, .dot/.gv, .json (node-link), or .svg/.png (drawn by Graphviz's "
        "dot); '-' (the default) is standard output.",
        show_default=False,
    ),
    fmt: GraphFormat | None = typer.Option(
        None,
        "--format",
        "-f",
        help="graphml, dot, json, or svg/png (drawn by Graphviz's dot, to --out FILE); default: from "
        "the --out file's extension, dot on standard output.",
        show_default=False,
    ),
    at: int | None = _AT,
    max_depth: int | None = typer.Option(
        None, "--max-depth", metavar="D", help="Keep only the first D levels."
    ),
    samples: int | None = _SAMPLES,
    seed: int = _SEED,
    time: float | None = _TIME,
) -> None:
    """Write the search tree of one decision: every move, the principal lines, values and visits.

    The whole tree has thousands of nodes; --max-depth 2 keeps the moves and their first replies,
    and is what a terminal gets when no --max-depth is given.

    \b
    Example: casino-coach tree replays/classic-2p-full.json --at 12 --max-depth 2 --out tree.svg
    Example: casino-coach tree replays/royal-2p-full.json --at 40 --out tree.graphml
    Example: casino-coach tree replays/classic-2p-progress.json --max-depth 2 > tree.dot
    """
    from casino_coach.formats.files import atomic_write_bytes, check_target
    from casino_coach.report.graph import DRAWN, dot_program, graph_bytes, graph_format, tree_graph
    from casino_coach.search.tree import SearchTree
    from casino_coach.services.decision import Effort, suggest

    to_stdout = out == "-"
    if fmt is None:  # an unknown extension fails before any work
        fmt = GraphFormat.DOT if to_stdout else GraphFormat(graph_format(out))
    if fmt.value in DRAWN:
        if to_stdout:  # a picture's bytes are no use on a terminal, and a pipe can take DOT
            raise UsageError(f"--format {fmt.value} draws a picture: give --out FILE")
        dot_program(fmt.value)  # Graphviz missing: one line saying how to install it, before the search
    if not to_stdout:
        check_target(out, [file])  # a folder, a device, a missing folder, the file read too
    if max_depth is not None and max_depth < 1:
        raise UsageError(f"--max-depth must be at least 1, got {max_depth}")
    check_ranges(samples=samples, time=time)
    result = suggest(file, at=at, effort=Effort(samples, seed, time), record=True).assessment.result
    assert isinstance(result.tree, SearchTree)
    # A whole tree is thousands of lines: on a terminal, unless asked, its first levels only.
    shown = TERMINAL_DEPTH if to_stdout and max_depth is None and sys.stdout.isatty() else max_depth
    g = tree_graph(result.tree, shown)
    data = graph_bytes(g, fmt.value)
    if to_stdout:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        atomic_write_bytes(out, data)
    what = "the tree" if to_stdout else printable(out)
    if shown != max_depth:
        what = f"the first {shown} levels of the tree (--max-depth D for more, --out FILE for all of it)"
    err_console().print(
        f"wrote {what} ({fmt.value}): {g.number_of_nodes()} nodes, "
        f"{g.number_of_edges()} edges ({result.samples} worlds, {result.nodes:,} search nodes)",
        markup=False,
    )
