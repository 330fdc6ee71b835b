"""Rich renderables for the search: the ranked moves of ``suggest`` (no logic, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from casino_coach.coach.analysis import Verdict
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import move_text
from casino_coach.engine.observation import Observation
from casino_coach.render import cards_text, move_words, table_text
from casino_coach.search.result import SearchResult


def line_text(line: Sequence[Move], limit: int = 4) -> str:
    """A principal line in compact notation: ``KH x KD, 5C, ...``."""
    shown = [move_text(m) for m in line[:limit]]
    if len(line) > limit:
        shown.append("…")
    return ", ".join(shown) if shown else "—"


def verdict_words(v: Verdict, result: SearchResult) -> str:
    """ "mistake, lost 0.62 (0.51 to 0.74)", "best", "forced"."""
    if v.forced:
        return "forced"
    if result.exact:
        interval = " (exact)"
    elif result.population is not None and result.samples >= result.population:
        interval = f" (over all {result.samples} worlds)"
    else:
        interval = f" ({v.low:.2f} to {v.high:.2f})"
    text = f"{v.cls.value}, lost {v.loss:.2f}{interval}"
    if v.uncertain:
        text += f"; not pinned to one class after {result.samples} worlds, so the milder class is given"
    return text


def effort_text(result: SearchResult) -> str:
    """How the values were found: exact, or over how many worlds, with nodes and speed."""
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    how = (
        "exact: every world solved to the end of the round"
        if result.exact
        else f"{result.samples} world{'s' if result.samples != 1 else ''} searched"
    )
    return f"{how}; {result.nodes:,} nodes in {result.seconds:.2f} s ({rate:,.0f} nodes/s)"


def suggestion_view(
    obs: Observation,
    result: SearchResult,
    why: str,
    *,
    top: int | None = None,
    ply: int | None = None,
    played: Move | None = None,
    verdict: Verdict | None = None,
) -> Group:
    """The position, the ranked moves with value ± standard error (and the line, when the values are
    exact: otherwise a line would be played with cards the player cannot see), the reason, and the
    verdict on the move the log plays here."""
    head = Text(f"Seat {obs.seat} to move" + (f" (ply {ply})" if ply is not None else "") + ": hand ")
    head.append_text(cards_text(obs.hand))
    table_line = Text("Table: ")
    table_line.append_text(table_text(obs.loose, obs.builds))
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("value", justify="right")
    table.add_column("±", justify="right")
    if result.exact:
        table.add_column("best line")
    moves = result.moves if top is None else result.moves[:top]
    for i, mv in enumerate(moves, 1):
        row: list[Text | str] = [
            str(i),
            move_words(mv.move),
            f"{mv.ev:+.2f}",
            "exact" if result.exact else f"{mv.stderr:.2f}",
        ]
        table.add_row(*row, *([line_text(mv.line)] if result.exact else []))
    hidden = len(result.moves) - len(moves)
    parts: list[Text | Table] = [head, table_line, Text(""), table]
    if hidden:
        parts.append(Text(f"   … and {hidden} more move{'s' if hidden != 1 else ''}", style="dim"))
    parts += [Text(""), Text(why)]
    if played is not None and verdict is not None:
        parts.append(Text(""))
        parts.append(Text(f"Played here: {played.describe()} — {verdict_words(verdict, result)}"))
        parts += [Text(f"  - {e.text} ({e.points:.2f})") for e in verdict.explanations]
    parts += [
        Text(effort_text(result), style="dim"),
        Text(
            "Values: points of the round for your side minus the others', averaged over the hidden cards.",
            style="dim",
        ),
    ]
    return Group(*parts)
