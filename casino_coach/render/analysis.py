"""Rich renderables for a game analysis: the summary, the worst moves, the whole game (no logic, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from casino_coach.coach.analysis import GameAnalysis, MoveAnalysis
from casino_coach.coach.classes import CLASSES
from casino_coach.coach.explain import SENTENCE_WIDTH
from casino_coach.formats.text import player_name, printable, side_names
from casino_coach.render import cards_text, move_words, table_text
from casino_coach.report.words import (
    UNCERTAIN_WORDS,
    accuracy_words,
    analysis_margin_words,
    game_verdict_words,
    loss_basis,
    lost_words,
    luck_words,
    mark_label,
    near_target_values_words,
    win_words,
)

CLASS_STYLES = {
    "best": "bold green",
    "good": "green",
    "inaccuracy": "yellow",
    "mistake": "bold dark_orange",
    "blunder": "bold red",
    "forced": "grey50",
    "all equal": "grey50",
    "not rated": "dim",
    "not judged": "dim",
}


def summary_table(a: GameAnalysis) -> Table:
    """One column per player, one row per figure (fits 80 columns with four players)."""
    t = Table(title="Summary", title_justify="left", title_style="bold")
    t.add_column("")
    for s in a.summaries:
        t.add_column(player_name(s.player), justify="right", style="bold")
    rows: list[tuple[str, list[str], str]] = [
        ("moves rated", [str(s.moves) for s in a.summaries], ""),
        ("unforced", [str(s.unforced) for s in a.summaries], ""),
    ]
    rows += [
        (c.value, [str(s.classes[c.value]) for s in a.summaries], CLASS_STYLES[c.value]) for c in CLASSES
    ]
    if any(s.not_judged for s in a.summaries):
        rows.append(("not judged", [str(s.not_judged) for s in a.summaries], ""))
    rows += [
        ("margin lost", [f"{s.loss_total:.2f}" for s in a.summaries], ""),
        ("lost per decision", [f"{s.loss_per_decision:.3f}" for s in a.summaries], ""),
        ("accuracy", [accuracy_words(s) for s in a.summaries], ""),
    ]
    if any(s.game_accuracy is not None for s in a.summaries):
        rows.append(("accuracy for the game", [accuracy_words(s, True) for s in a.summaries], ""))
    rows += [
        ("luck of the deals", [f"{s.luck_total:+.2f}" for s in a.summaries], ""),
        ("result (margin)", [f"{s.result:+.2f}" for s in a.summaries], ""),
        ("luck-adjusted", [f"{s.luck_adjusted:+.2f}" for s in a.summaries], ""),
    ]
    for name, values, style in rows:
        t.add_row(Text(name, style=style or "dim"), *values)
    return t


def move_panel(
    m: MoveAnalysis, players: Sequence[str], near: str | None = None, *, detail: bool = False
) -> Panel:
    """One rated move with its headline, and with ``detail`` the explanations below it (``near``:
    what its values mean under the near-21 rule, ``near_target_values_words``)."""
    lab = mark_label(m)
    style = CLASS_STYLES.get(lab, "")
    lines: list[RenderableType] = []
    played = Text("played ", style="dim")
    played.append_text(move_words(m.played))
    if m.missed and m.best is not None:
        played.append("   best ", style="dim")
        played.append_text(move_words(m.best))
    lines.append(played)
    if m.missed and m.loss:
        # Here, not in the title: a panel's title is cut to its width ("over 320 worl─╮").
        uncertain = f"; {UNCERTAIN_WORDS}" if m.uncertain else ""
        lines.append(Text(f"the loss is {loss_basis(m)}{uncertain}", style="dim"))
    if m.world is not None:
        real = Text("on the cards actually held: ", style="dim")
        real.append(lost_words(m.world.loss), style=CLASS_STYLES[m.world.cls.value])
        if m.world.best != m.played and m.world.loss >= 0.005:
            real.append("   best there ", style="dim")
            real.append_text(move_words(m.world.best))
        lines.append(real)
    where = Text("table ", style="dim")
    where.append_text(table_text(m.loose, m.builds, compact=True))
    if m.hand is not None:
        where.append("   hand ", style="dim")
        where.append_text(cards_text(m.hand))
    lines.append(where)
    if m.headline is not None:
        lines.append(Text(printable(m.headline, SENTENCE_WIDTH), style="bold"))
    for e in m.explanations if detail or m.headline is None else ():
        lines.append(
            Text.assemble("• ", printable(e.text, SENTENCE_WIDTH), (f"  ({e.points:.2f})", "bold red"))
        )
    if m.verdict is not None:
        lines.append(Text(printable(m.verdict.text), style="magenta"))
    disagree = game_verdict_words(m)
    if disagree is not None:
        lines.append(Text(disagree, style="magenta"))
    game = win_words(m)
    if game is not None:
        lines.append(Text(game, style="dim"))
    if near is not None:
        lines.append(Text(near, style="dim"))
    loss = f", {lost_words(m.loss)}" if m.missed and m.loss else (" (exact)" if m.exact else "")
    title = Text.assemble(
        f"ply {m.ply}, round {m.round + 1}, deal {m.deal + 1}, {players[m.seat]}: ", (lab, style), loss
    )
    return Panel(Group(*lines), title=title, title_align="left", border_style=style or "dim")


def game_table(a: GameAnalysis, wide: bool = False) -> Table:
    """Every move: who played what, its class and loss, the best move; the table too when ``wide``."""
    t = Table(title="The whole game", title_justify="left", title_style="bold")
    t.add_column("ply", justify="right")
    t.add_column("deal")
    t.add_column("player")
    if wide:
        t.add_column("table")
    t.add_column("played")
    t.add_column("class")
    t.add_column("loss", justify="right")
    t.add_column("best")
    last_round = -1
    for m in a.moves:
        lab = mark_label(m)
        if m.round != last_round and last_round >= 0:
            t.add_section()
        last_round = m.round
        best = move_words(m.best) if m.missed and m.best is not None else Text("")
        if m.not_judged:  # the reason in the best move's place: there is none
            best = Text(m.not_judged, style="dim")
        cells: list[RenderableType] = [
            str(m.ply),
            f"{m.round + 1}.{m.deal + 1}",
            player_name(a.players[m.seat]),
        ]
        if wide:
            cells.append(table_text(m.loose, m.builds, compact=True))
        cells += [
            move_words(m.played),
            Text(lab, style=CLASS_STYLES[lab]),
            f"{m.loss:.2f}" if m.missed and m.loss is not None else "",
            best,
        ]
        t.add_row(*cells)
    return t


def analysis_view(
    a: GameAnalysis,
    worst: int = 5,
    whole_game: bool = True,
    wide: bool = False,
    detail: bool = False,
) -> Group:
    """The terminal report: header, summary, the worst moves first (each with its headline, and the
    reasons below it with ``detail``), then the whole game."""
    lim = a.options.limits
    th = a.options.thresholds
    head = Text.assemble(
        (f"Game analysis: {' vs '.join(map(player_name, a.players))}", "bold"),
        f"  ({a.rules.describe()})\n",
        (
            f"each move judged over {lim.min_samples} to {lim.samples:,} deals of the hidden cards (more "
            f"until its class is clear), {lim.depth or 'all'} plies ahead, seed {lim.seed}; good < "
            f"{th.inaccuracy:g} ≤ "
            f"inaccuracy < {th.mistake:g} ≤ mistake < {th.blunder:g} ≤ blunder (margin lost, at most "
            f"one class above the interval's low end); {a.seconds:.1f} s\n",
            "dim",
        ),
        analysis_margin_words(a),
    )
    parts: list[RenderableType] = [head, summary_table(a)]
    luck = [
        Text.assemble((f"luck per deal, {player_name(s.player)}: ", "dim"), luck_words(s))
        for s in a.summaries
        if s.luck
    ]
    parts += luck
    bad = a.worst(worst)
    if bad:
        parts.append(Text("Worst moves", style="bold"))
        sides = side_names(a.players, a.nsides)
        parts += [
            move_panel(
                m,
                [player_name(p) for p in a.players],
                near_target_values_words(a.rules, m.view.scores if m.view is not None else None, sides),
                detail=detail,
            )
            for m in bad
        ]
    elif worst:
        parts.append(Text("No move lost points.", style="green"))
    if whole_game:
        parts.append(game_table(a, wide))
    return Group(*parts)
