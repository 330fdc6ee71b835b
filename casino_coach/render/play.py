"""Rich renderables for ``casino-coach play``: the table, the hand, the numbered moves and the notes of a
``session.PlaySession`` (no logic, no I/O). Everything fits 80 columns and reads without colour."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from casino_coach.engine.cards import ACES_MASK, BIG_CASINO, LITTLE_CASINO, SPADES_MASK, mask_symbols
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import typed_text
from casino_coach.engine.state import deals_per_round
from casino_coach.render import cards_text
from casino_coach.services.play_session import Note, NoteKind, PlaySession

MAX_LISTED = 24  # moves shown under the hand; ``moves`` lists them all

NOTE_STYLES = {
    NoteKind.INFO: "",
    NoteKind.ERROR: "bold red",
    NoteKind.CANDIDATES: "yellow",
    NoteKind.MOVES: "",
    NoteKind.PLAYED: "green",
    NoteKind.BOT: "cyan",
    NoteKind.DEAL: "bold",
    NoteKind.ROUND: "bold",
    NoteKind.GAME_OVER: "bold green",
    NoteKind.HINT: "yellow",
    NoteKind.WHY: "yellow",
    NoteKind.TUTOR: "magenta",
    NoteKind.HELP: "",
    NoteKind.TABLE: "",
    NoteKind.SAVED: "dim",
    NoteKind.REVIEW: "",
    NoteKind.QUIT: "bold",
}
_RED_CARD = re.compile(r"(?:10|[2-9AJQK])[♦♥]")
_BLACK_CARD = re.compile(r"(?:10|[2-9AJQK])[♣♠]")


def words(text: str, style: str = "") -> Text:
    """Plain words with the cards in them coloured by suit."""
    t = Text(text, style=style)
    t.highlight_regex(_RED_CARD, "bold red")
    t.highlight_regex(_BLACK_CARD, "bold")
    return t


def table_panel(session: PlaySession) -> Panel:
    """The table: loose cards, builds (value, single or multiple, owner), scores, piles, cards left."""
    st = session.state
    game = session.game
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    grid.add_row("Table", cards_text(st.loose, empty="(no loose cards)"))
    for b in st.builds:
        t = Text()
        t.append(f"{b.value:>2}", style="bold cyan")
        t.append(f" {'multiple' if b.multiple else 'single  '} ", style="cyan")
        t.append_text(cards_text(b.cards))
        owner = "yours" if b.owner == session.human else f"{session.names[b.owner]}'s"
        t.append(f"  ({owner})", style="dim")
        grid.add_row("Build", t)
    for side, pile in enumerate(st.captured):
        grid.add_row(session.side_name(side), words(" · ".join(pile_words(session, side, pile))))
    others = ", ".join(str(h.bit_count()) for s, h in enumerate(st.hands) if s != session.human)
    total = deals_per_round(st.nplayers)
    deal_no = total - st.deals_left()
    last = ", the last" if st.last_deal else ""
    grid.add_row(
        "Left",
        Text(f"{st.stock.bit_count()} to deal (deal {deal_no} of {total}{last}) · other hands {others}"),
    )
    title = (
        f"Round {game.round_index + 1} · dealer {session.names[st.dealer]} · "
        f"{session.rules.preset} to {session.rules.target}"
    )
    return Panel(grid, title=title, title_align="left", width=80, padding=(0, 1))


def pile_words(session: PlaySession, side: int, pile: int) -> list[str]:
    """A side's line of the scoreboard: game points, cards and spades taken, which of the cards
    that score alone it holds (aces, Big and Little Casino, where the rules score them), and its
    sweeps where sweeps score (rules.md 1.10: not in classic)."""
    rules = session.rules
    st = session.state
    parts = [
        f"{_num(session.game.scores[side])} points",
        f"{pile.bit_count()} cards",
        f"{(pile & SPADES_MASK).bit_count()}♠",
    ]
    aces = pile & ACES_MASK if rules.points_ace else 0
    if aces:
        parts.append(f"ace{'s' if aces.bit_count() > 1 else ''} {mask_symbols(aces)}")
    casinos = pile & (
        (1 << BIG_CASINO if rules.points_big else 0) | (1 << LITTLE_CASINO if rules.points_little else 0)
    )
    if casinos:
        parts.append(f"casino{'s' if casinos.bit_count() > 1 else ''} {mask_symbols(casinos)}")
    if rules.sweeps and rules.points_sweep:
        n = st.sweeps[side]
        parts.append(f"{n} sweep{'' if n == 1 else 's'}")
    return parts


def _num(p: float) -> str:
    return str(int(p)) if p == int(p) else f"{p:.1f}"


def moves_columns(
    numbered: Sequence[tuple[int, Move]],
    limit: int | None = MAX_LISTED,
) -> RenderableType:
    """Numbered moves in the compact notation, in columns, their cards written as the board writes
    them: "7S b10 3D TS" beside a board in 7♠ read as another notation (issue 42)."""
    shown = numbered if limit is None else numbered[:limit]
    cells = [Text.assemble((f"{n:>2} ", "dim"), words(typed_text(m, symbols=True))) for n, m in shown]
    # Columns as wide as the widest move: a move cut over two lines showed, typed as it read, a
    # different move ("11 2C b9 2D 4D 5H 7H", with its 7S on the next line).
    width = max([22, *(cell.cell_len for cell in cells)])
    parts: list[RenderableType] = [Columns(cells, padding=(0, 3), width=width)]
    if limit is not None and len(numbered) > limit:
        parts.append(Text(f"   ... {len(numbered) - limit} more: type moves to see them all", style="dim"))
    return Group(*parts)


def moves_list(numbered: Sequence[tuple[int, Move]]) -> Table:
    """Numbered moves in the notation and in words, one a line."""
    t = Table.grid(padding=(0, 2))
    t.add_column(justify="right", style="dim")
    t.add_column(no_wrap=True)
    t.add_column()
    for n, m in numbered:
        t.add_row(str(n), words(typed_text(m, symbols=True)), words(m.describe()))
    return t


def turn_view(session: PlaySession) -> Group:
    """What the person sees before choosing: the table, the hand and the numbered legal moves."""
    hand = Text.assemble(("Your hand  ", "bold"), cards_text(session.state.hands[session.human]))
    return Group(table_panel(session), hand, moves_columns(session.numbered()))


def tutor_view(note: Note) -> Group:
    """The tutor's warning: the loss and class, each reason as a hanging bullet, the choices."""
    lines = note.text.splitlines()
    reasons = _bullets(note.warning.reasons if note.warning is not None else ())
    # Between the reasons and the choices, the scale of the figures where the session says it.
    said = [words(line, "dim") for line in lines[1:-1] if not line.startswith("  - ")]
    return Group(words(lines[0], "bold"), reasons, *said, words(lines[-1], "magenta"))


def _bullets(reasons: Sequence[str]) -> Table:
    """Reasons as hanging bullets: a wrapped line starts under the text, not under the dash."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for r in reasons:
        grid.add_row("  -", words(r))
    return grid


def note_view(note: Note) -> RenderableType:
    """One note of the session, styled by its kind."""
    style = NOTE_STYLES.get(note.kind, "")
    if note.kind == NoteKind.HINT and note.reasons:
        lines = note.text.splitlines()
        bullets = [i for i, line in enumerate(lines) if line.startswith("  - ")]
        head = lines[: bullets[0]] if bullets else lines
        tail = lines[bullets[-1] + 1 :] if bullets else []  # the scale, after the reasons it is for
        return Group(
            *(words(line, style) for line in head),
            _bullets(note.reasons),
            *(words(line, "dim") for line in tail),
        )
    if note.kind in (NoteKind.CANDIDATES, NoteKind.MOVES):
        listing = moves_list(note.moves)
        return Group(words(note.text, style), listing)
    if note.kind == NoteKind.TUTOR and note.warning is not None:
        return Panel(tutor_view(note), title="Tutor", title_align="left", border_style="magenta", width=80)
    if note.kind == NoteKind.ROUND:
        return Panel(words(note.text), title="Round over", title_align="left", width=80)
    if note.kind == NoteKind.GAME_OVER:
        return Panel(words(note.text, style), width=80)
    if note.kind == NoteKind.ERROR:
        return words(note.text, style)
    prefix = {NoteKind.BOT: "◆ ", NoteKind.PLAYED: "◇ "}.get(note.kind, "")
    return words(prefix + note.text, style)
