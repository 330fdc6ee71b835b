"""Rich renderables (no logic, no I/O): small shared helpers here, one module per concern beside it.

* ``card_text`` / ``cards_text``: cards in the form people read (``10♦``), hearts and diamonds red.
* ``build_text`` / ``table_text`` / ``table_panel``: the table, loose cards then each build with its
  value, kind (single or multiple) and owner.
* ``move_words``: a move in words with coloured cards ("8♣ captures 3♥ 5♠ — sweep").

Everything reads without colour too (``Console(no_color=True)``), and fits 80 columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.panel import Panel
from rich.text import Text

from casino_coach.engine.cards import SUIT, card_symbol, iter_cards
from casino_coach.engine.movegen import CAPTURE, Move
from casino_coach.engine.state import Build

RED_SUITS = (1, 2)  # diamonds, hearts
SWEEP_STYLE = "bold magenta"
CAPTURE_STYLE = "green"
BUILD_STYLE = "cyan"


def card_style(card: int) -> str:
    return "bold red" if SUIT[card] in RED_SUITS else "bold"


def card_text(card: int) -> Text:
    """One card, ``10♦``, in its suit colour."""
    return Text(card_symbol(card), style=card_style(card))


def cards_text(mask: int, empty: str = "") -> Text:
    """The cards of a mask, lowest first, space separated, in suit colours (``empty`` if none)."""
    t = Text()
    for i, c in enumerate(iter_cards(mask)):
        if i:
            t.append(" ")
        t.append(card_symbol(c), style=card_style(c))
    if not t and empty:
        t.append(empty, style="dim")
    return t


def seat_name(seat: int, players: Sequence[str] | None = None) -> str:
    """``Ana (seat 0)`` when names are known, else ``seat 0``."""
    if players and 0 <= seat < len(players):
        return f"{players[seat]} (seat {seat})"
    return f"seat {seat}"


def build_text(build: Build, players: Sequence[str] | None = None) -> Text:
    """``[6♠ 3♥] 9 single, Ben's``: a build's cards, value, kind and owner."""
    t = Text("[")
    t.append_text(cards_text(build.cards))
    t.append("]")
    owner = players[build.owner] if players and 0 <= build.owner < len(players) else f"seat {build.owner}"
    t.append(f" {build.value} {'multiple' if build.multiple else 'single'}, {owner}'s", style=BUILD_STYLE)
    return t


def table_text(
    loose: int, builds: Sequence[Build], players: Sequence[str] | None = None, *, compact: bool = False
) -> Text:
    """The table on one line: loose cards, then each build (``compact``: as ``[cards =value]``, for a
    column of a game table)."""
    t = cards_text(loose)
    for b in builds:
        if t:
            t.append(" " if compact else "  ")
        if compact:
            t.append("[")
            t.append_text(cards_text(b.cards))
            t.append(f" ={b.value}]", style="cyan")
        else:
            t.append_text(build_text(b, players))
    if not t:
        t.append("(empty)" if compact else "(empty table)", style="dim")
    return t


def table_panel(
    loose: int, builds: Sequence[Build], players: Sequence[str] | None = None, title: str = "Table"
) -> Panel:
    """A panel with the loose cards on the first line and one build per line below."""
    body = Text("loose: ", style="dim")
    body.append_text(cards_text(loose, empty="none"))
    for b in builds:
        body.append("\nbuild: ", style="dim")
        body.append_text(build_text(b, players))
    return Panel(body, title=title, title_align="left", expand=False)


def move_words(
    move: Move, *, sweep: bool = False, seat: int | None = None, players: Sequence[str] | None = None
) -> Text:
    """A move in words: "8♣ captures 3♥ 5♠", "3♥ builds 8 with 2♦ 3♣", "7♥ trails"; a sweep is
    marked. With ``seat`` the mover's name comes first."""
    t = Text()
    if seat is not None:
        t.append(seat_name(seat, players) + ": ")
    card, verb, take = move.words()
    t.append_text(card_text(card))
    t.append(verb, style=CAPTURE_STYLE if move.action == CAPTURE else BUILD_STYLE if take else "")
    if take:
        t.append_text(cards_text(take))
    if sweep and move.action == CAPTURE:
        t.append(" — SWEEP", style=SWEEP_STYLE)
    return t


__all__ = [
    "build_text",
    "card_style",
    "card_text",
    "cards_text",
    "move_words",
    "seat_name",
    "table_panel",
    "table_text",
]
