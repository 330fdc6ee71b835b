"""``casino-coach suggest`` and ``casino-coach tree``: what to play here, and the search tree behind it.

Both read a decision from a log (the position before move ``--at N``, or where the log stops) or a
position file; ``suggest`` also takes a position typed in the compact notation (``--hand``, ``--table``
and friends). The search itself is ``casino_coach.search.leaf``.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson
import typer
from rich.console import Console

from casino_coach.cli.app import about, app, err_console, handle_errors, seed_option
from casino_coach.cli.options import rule_option
from casino_coach.cli.rules_cmd import parse_options
from casino_coach.coach.analysis import (
    Thresholds,
    Verdict,
    analysis_limits,
    decision_limits,
    judge,
    verdict_json,
    verdict_of,
    why_not_second,
)
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import parse_hand, parse_table
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import sides_for
from casino_coach.errors import CoachError
from casino_coach.formats.codec import move_to_json
from casino_coach.formats.files import atomic_write_bytes, check_target
from casino_coach.formats.log import GameLog
from casino_coach.formats.position import observation_from_position, read_any
from casino_coach.formats.replay import end_position, position_at, replay
from casino_coach.render.search import suggestion_view
from casino_coach.report.graph import graph_bytes, graph_format, tree_graph
from casino_coach.search import Limits, SearchResult, evaluate
from casino_coach.search.expectimax import check_size
from casino_coach.search.tree import SearchTree


@dataclass(frozen=True)
class Decision:
    """A position to search: the rules, the mover's observation, its ply in the log (or None), the
    move the log plays there (None past the end of the log, or for a position), the players' names
    (a log's), and whether it was typed on the command line (the seat to move is then "you")."""

    rules: RuleSet
    obs: Observation
    ply: int | None
    played: Move | None = None
    names: tuple[str, ...] = ()
    typed: bool = False


def decision_from_file(path: Path, at: int | None) -> Decision:
    """The decision before move ``at`` of a log (default: where it stops), or a position file's."""
    with about(path):
        doc = read_any(path)
    if isinstance(doc, GameLog):
        with about(path):
            rep = replay(doc)
        n = len(rep.plies)
        if at is None or at == n:
            with about(path):  # "FILE: the log stops between rounds: ..."
                end = end_position(rep)
            return Decision(doc.rules, end.observation, n, None, tuple(doc.players))
        if not 0 <= at < n:
            raise CoachError(f"--at {at}: the log has {n} moves, so N goes from 0 to {n}")
        at_ply = rep.plies[at]
        return Decision(doc.rules, position_at(doc, at_ply).observation, at, at_ply.move, tuple(doc.players))
    if at is not None:
        raise CoachError(f"--at: {path} is a position, not a log")
    ply = _position_ply(path)
    return Decision(doc.rules, doc.observation, ply)


def _position_ply(path: Path) -> int | None:
    """The optional ``ply`` field of a position file (read_any has checked the rest)."""
    try:
        obj = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    ply = obj.get("ply") if isinstance(obj, dict) else None
    return ply if isinstance(ply, int) and not isinstance(ply, bool) and ply >= 0 else None


def _int_list(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise CoachError(f"{what}: expected whole numbers separated by commas, got {text!r}") from None


def typed_decision(
    hand: str,
    table: str,
    preset: str,
    options: list[str],
    players: int,
    to_move: int,
    hand_sizes: str | None,
    stock: int,
    seen: str,
    captured: list[str],
    last_capture: int | None,
) -> Decision:
    """A position typed in the compact notation (rules.md, notation.py)."""
    rules = RuleSet.from_dict({"preset": preset, **parse_options(options)})
    nsides = sides_for(players, rules.partnerships) if players in (2, 3, 4) else players
    loose, builds = parse_table(
        table, pair_value=rules.pair_value, default_owner=(to_move + 1) % max(players, 1)
    )
    sizes = _int_list(hand_sizes, "--hand-sizes") if hand_sizes is not None else None
    piles = [parse_hand(c) for c in captured] if captured else None
    if piles is not None and len(piles) != nsides:
        raise CoachError(f"--captured: give one pile per side ({nsides}), in side order")
    obs = observation_from_position(
        rules,
        players,
        to_move,
        parse_hand(hand),
        loose,
        builds,
        hand_sizes=sizes,
        stock=stock,
        seen=parse_hand(seen),
        captured=piles,
        last_capture=-1 if last_capture is None else last_capture,
        partnerships=rules.partnerships,
    )
    return Decision(rules, obs, None, typed=True)


def _number(x: float) -> float:
    if not math.isfinite(x):
        raise CoachError("the search produced a value that is not a finite number")
    return round(x, 4)


def result_json(
    decision: Decision, result: SearchResult, top: int | None, verdict: Verdict | None = None
) -> dict[str, Any]:
    """``{"ply", "seat", "exact", "worlds", "moves": [{card, action, take, value?, ev, stderr}]}``,
    best first, and with a move played at that ply, ``"played"``: its verdict as ``analyze`` gives it."""
    moves = result.moves if top is None else result.moves[:top]
    out: dict[str, Any] = {
        "ply": decision.ply,
        "seat": result.seat,
        "exact": result.exact,
        "worlds": result.samples,
        "moves": [
            move_to_json(mv.move) | {"ev": _number(mv.ev), "stderr": _number(mv.stderr)} for mv in moves
        ],
    }
    if verdict is not None and decision.played is not None:
        out["played"] = move_to_json(decision.played) | verdict_json(
            verdict, result.value_of(decision.played).ev, _number
        )
    return out


def _limits(samples: int | None, seed: int, time: float | None, nplayers: int) -> Limits:
    """The analysis's limits (``analysis_limits``), so that ``suggest --at N`` judges move N as
    ``analyze`` does, with the options given."""
    base = analysis_limits(samples, seed, nplayers)
    return dataclasses.replace(base, time=time) if time is not None else base


_FILE = typer.Argument(None, help="A casino-replay log or casino-position file (JSON).", show_default=False)
_AT = typer.Option(
    None,
    "--at",
    help="The position just before move N of the log (0-based, counted "
    "across the whole log); default: where the log stops.",
)
_SAMPLES = typer.Option(
    None,
    "--samples",
    help=f"At most this many deals of the hidden cards (default {analysis_limits().samples}, as analyze).",
)
_SEED = seed_option(0, "Seed of the sampling: the same seed gives the same answer.")
_TIME = typer.Option(None, "--time", metavar="SECONDS", help="Stop sampling after this many seconds.")


@app.command("suggest")
@handle_errors
def suggest_command(
    file: Path | None = _FILE,
    at: int | None = _AT,
    top: int | None = typer.Option(None, "--top", "-k", metavar="K", help="Show only the K best moves."),
    json: bool = typer.Option(False, "--json", help="Print the ranked moves as JSON."),
    hand: str | None = typer.Option(
        None,
        "--hand",
        metavar="CARDS",
        help="Type a position instead of a FILE: the cards of the seat to move, e.g. '8S 9C' (TD or 10D is "
        "the 10 of diamonds).",
    ),
    table: str = typer.Option(
        "",
        "--table",
        metavar="TABLE",
        help="The table: loose cards, then builds in brackets [CARDS =VALUE @SEAT] (=VALUE: what the build "
        "is worth, default the sum; @SEAT: its owner, default the next seat), e.g. 'AC 2D [6S 3H =9 @1]'.",
    ),
    preset: str = typer.Option(
        "classic",
        "--preset",
        metavar="PRESET",
        help="The rules of a typed position: classic, royal or dominican.",
    ),
    option: list[str] = rule_option(),
    players: int = typer.Option(2, "--players", help="2, 3 or 4 players."),
    to_move: int = typer.Option(0, "--to-move", metavar="SEAT", help="Your seat: the seat to move."),
    hand_sizes: str | None = typer.Option(
        None,
        "--hand-sizes",
        metavar="N,N,...",
        help="Cards held by each seat in seat order, e.g. '2,2' (default: as many as your hand).",
    ),
    stock: int = typer.Option(0, "--stock", help="Cards still to be dealt (0 in the last deal)."),
    seen: str = typer.Option(
        "",
        "--seen",
        metavar="CARDS",
        help="Cards out of play, captured earlier by whoever (they score for nobody), e.g. 'KD 5C'.",
    ),
    captured: list[str] = typer.Option(
        [],
        "--captured",
        metavar="CARDS",
        help="One side's captured cards (they count in its score); give it once per side, in side order, "
        "e.g. --captured 'AS 2S' --captured ''.",
    ),
    last_capture: int | None = typer.Option(
        None,
        "--last-capture",
        metavar="SIDE",
        help="The side that captured last (it takes the rest at the end).",
    ),
    samples: int | None = _SAMPLES,
    seed: int = _SEED,
    time: float | None = _TIME,
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
    if top is not None and top < 1:
        raise CoachError(f"--top must be at least 1, got {top}")
    if file is not None and hand is not None:
        raise CoachError("give a FILE or a typed position (--hand), not both")
    if file is None and hand is None:
        raise CoachError("give a log or position FILE, or type a position with --hand and --table")
    if file is not None:
        decision = decision_from_file(file, at)
    else:
        if at is not None:
            raise CoachError("--at needs a log FILE")
        assert hand is not None
        decision = typed_decision(
            hand, table, preset, option, players, to_move, hand_sizes, stock, seen, captured, last_capture
        )
    obs = decision.obs
    check_size(obs)
    thresholds = Thresholds()
    result = judge(
        decision.rules, obs, _limits(samples, seed, time, obs.nplayers), thresholds, decision.played
    )
    verdict = (
        verdict_of(decision.rules, obs, result, decision.played, thresholds, decision.names)
        if decision.played is not None
        else None
    )
    if json:
        typer.echo(orjson.dumps(result_json(decision, result, top, verdict)).decode())
        return
    why = why_not_second(decision.rules, obs, result, decision.names)
    Console().print(
        suggestion_view(
            obs,
            result,
            why,
            top=top,
            ply=decision.ply,
            played=decision.played,
            verdict=verdict,
            names=decision.names,
            typed=decision.typed,
        )
    )


class GraphFormat(StrEnum):
    """What ``tree`` writes: GraphML, Graphviz DOT or networkx node-link JSON."""

    GRAPHML = "graphml"
    DOT = "dot"
    JSON = "json"


@app.command("tree")
@handle_errors
def tree_command(
    file: Path = typer.Argument(
        ..., help="A casino-replay log or casino-position file (JSON).", show_default=False
    ),
    out: str = typer.Option(
        "-",
        "--out",
        "-o",
        metavar="FILE",
        help="Output file: .graphml, .dot/.gv or .json (node-link); '-' (the default) is standard output.",
        show_default=False,
    ),
    fmt: GraphFormat | None = typer.Option(
        None,
        "--format",
        "-f",
        help="graphml, dot or json; default: from the --out file's extension, dot on standard output.",
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

    \b
    Example: casino-coach tree game.json --at 12 --out tree.graphml
    Example: casino-coach tree game.json | dot -Tsvg > tree.svg
    """
    to_stdout = out == "-"
    if fmt is None:  # an unknown extension fails before any work
        fmt = GraphFormat.DOT if to_stdout else GraphFormat(graph_format(out))
    if not to_stdout:
        check_target(out)  # a folder, a device or a missing folder too
    if max_depth is not None and max_depth < 1:
        raise CoachError(f"--max-depth must be at least 1, got {max_depth}")
    decision = decision_from_file(file, at)
    check_size(decision.obs)
    result = evaluate(
        decision.rules,
        decision.obs,
        decision_limits(_limits(samples, seed, time, decision.obs.nplayers), decision.obs),
        record=True,
    )
    assert isinstance(result.tree, SearchTree)
    g = tree_graph(result.tree, max_depth)
    data = graph_bytes(g, fmt.value)
    if to_stdout:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        atomic_write_bytes(out, data)
    err_console.print(
        f"wrote {'the tree' if to_stdout else out} ({fmt.value}): {g.number_of_nodes()} nodes, "
        f"{g.number_of_edges()} edges ({result.samples} worlds, {result.nodes:,} search nodes)",
        markup=False,
    )
