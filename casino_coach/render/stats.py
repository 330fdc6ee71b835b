"""Rich renderables for the results store: a player's record over time, every player's totals, and
what a batch run did (no logic, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from casino_coach.errors import MESSAGE_WIDTH
from casino_coach.formats.text import player_name, printable
from casino_coach.report.words import MIXED_MARGIN_WORDS
from casino_coach.services.batch import BatchReport
from casino_coach.services.store import KindSkills, PlayerStats, Record, SkillLoss

# Short headers so that a record fits 80 columns; the caption spells them out.
_CLASS_COLUMNS = (
    ("inaccuracy", "inacc.", "yellow"),
    ("mistake", "mist.", "dark_orange"),
    ("blunder", "blund.", "red"),
)
_LEGEND = (
    "dec.: decisions (rated moves that were not forced); err.: mistakes and blunders per decision; "
    "acc.: accuracy; loss: average margin lost per decision. " + MIXED_MARGIN_WORDS
)


# The explanation kinds (coach/explain.py KINDS) in words; an older store's kinds are shown as written.
KIND_LABELS = {
    "big_casino": "Big Casino 10♦",
    "little_casino": "Little Casino 2♠",
    "ace": "aces",
    "cards": "most cards",
    "spades": "most spades",
    "sweeps": "sweeps",
    "last_capture": "last capture",
}


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind) or printable(kind.replace("_", " "), 40)


def _games_list(records: Sequence[Record]) -> Table:
    """The games of a record by game, numbered as the rows below: day, opponents and the file."""
    t = Table(box=None, pad_edge=False, show_header=False, title="Games", title_justify="left")
    t.add_column(justify="right", style="dim")
    t.add_column(no_wrap=True)
    t.add_column(overflow="fold")
    for i, r in enumerate(records, 1):
        game = r.game
        assert game is not None
        against = ", ".join(player_name(o) for o in game.opponents) or "nobody"
        t.add_row(
            f"{i}.",
            f"{printable(game.date[:10])} vs {against}",
            printable(game.source) if game.source else f"(no file; game {printable(game.hash[:12])})",
        )
    return t


def _pct(x: float | None, nd: int = 1) -> str:
    return "—" if x is None else f"{100 * x:.{nd}f}%"


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None else format(x, fmt)


def _record_table(
    title: str,
    first: str,
    records: Sequence[Record],
    total: Record | None,
    heads: Sequence[str] = (),
    kinds: bool = False,
) -> Table:
    """The records' rows, and a total row; ``kinds``: each row's preset and number of players too."""
    table = Table(
        title=title,
        title_justify="left",
        show_footer=total is not None,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        caption=_LEGEND,
        caption_justify="left",
    )
    table.add_column(first, footer=total.label if total else "", no_wrap=True)
    if kinds:
        table.add_column("preset", no_wrap=True)
        table.add_column("players", justify="right")

    def col(head: str, footer: str, style: str = "", width: int = 5) -> None:
        # Numbers never wrap (min_width): the headers wrap instead when the terminal is narrow.
        table.add_column(head, footer=footer if total else "", style=style, justify="right", min_width=width)

    t = total if total is not None else Record("", 0, 0, {}, 0.0, None)
    col("games", str(t.games))
    col("dec.", str(t.decisions))
    for cls, head, style in _CLASS_COLUMNS:
        col(head, str(t.classes.get(cls, 0)), style)
    col("err.", _pct(t.error_rate), width=6)
    col("acc.", _num(t.accuracy, ".1f"))
    col("loss", _num(t.loss_per_decision, ".3f"))
    for i, r in enumerate(records):
        kind = [r.kind[0], str(r.kind[1])] if kinds and r.kind is not None else ["", ""] if kinds else []
        table.add_row(
            printable(heads[i] if heads else r.label),
            *kind,
            str(r.games),
            str(r.decisions),
            *(str(r.classes.get(c, 0)) for c, _, _ in _CLASS_COLUMNS),
            _pct(r.error_rate),
            _num(r.accuracy, ".1f"),
            _num(r.loss_per_decision, ".3f"),
        )
    return table


def _titled_table(title: str, caption: str) -> Table:
    """A list under the record: its title above, its caption below, both to the left."""
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        caption=caption,
        caption_justify="left",
    )


SKILLS_CAPTION = "margin: lost by the moves not classed best; per game: that margin over the games"


def _skills_table(title: str, skills: Sequence[SkillLoss]) -> Table:
    """One kind of game's skills, weakest first: moves, margin lost, margin lost per game."""
    t = _titled_table(title, SKILLS_CAPTION)
    t.add_column("skill")
    t.add_column("moves", justify="right")
    t.add_column("margin", justify="right")
    t.add_column("per game", justify="right")
    for s in skills:
        t.add_row(s.words, str(s.moves), f"{s.points:.2f}", f"{s.per_game:.2f}")
    return t


def skills_view(kinds: Sequence[KindSkills]) -> list[RenderableType]:
    """A player's weakest skills, one table per kind of game (preset and number of players)."""
    parts: list[RenderableType] = []
    for k in kinds:
        games = f"{k.games} game{'s' if k.games != 1 else ''}"
        title = f"Weakest skills, {k.preset} {k.nplayers} players ({games})"
        if k.skills:
            parts.append(_skills_table(title, k.skills))
        else:
            parts.append(Text(f"{title}: every move was classed best.", style="green"))
    return parts


def _weakest(skills: Sequence[SkillLoss], n: int = 3) -> str:
    """The ``n`` weakest skills on one line: "building 1.03, leaving no sweep 0.49"."""
    return ", ".join(f"{s.words} {s.per_game:.2f}" for s in skills[:n]) or "—"


def player_stats_view(stats: PlayerStats) -> RenderableType:
    """A player's record per period with the total, then the most frequent kinds of mistake. By
    game, the games come first, numbered, with their day, opponents and file; the rows follow."""
    title = f"{player_name(stats.player)}: record by {stats.by}"
    if stats.only.words():
        title += f" ({stats.only.words()})"
    parts: list[RenderableType] = []
    if stats.by == "game":
        parts += [Text(title, style="italic"), _games_list(stats.periods), Text("")]
        heads = [str(i) for i in range(1, len(stats.periods) + 1)]
        parts.append(_record_table("", "game", stats.periods, stats.total, heads))
    else:
        parts.append(_record_table(title, stats.by, stats.periods, stats.total))
    if stats.kinds:
        kinds = _titled_table(
            "Most frequent kinds of mistake",
            "over inaccuracies, mistakes and blunders; margin: what each kind cost",
        )
        kinds.add_column("kind")
        kinds.add_column("moves", justify="right")
        kinds.add_column("margin", justify="right")
        for k in stats.kinds:
            kinds.add_row(kind_label(k.kind), str(k.moves), f"{k.points:.2f}")
        parts.append(kinds)
        if stats.unexplained:
            parts.append(
                Text(
                    f"and {stats.unexplained:.2f} of margin that no kind explains (they lie in the search's "
                    "estimate of the rest of the round, past the moves it looked at)",
                    style="dim",
                )
            )
    elif not any(stats.total.classes.get(c, 0) for c in ("inaccuracy", "mistake", "blunder")):
        # only when there are none: with --top 0 the kinds are not listed, not absent
        parts.append(Text("No inaccuracy, mistake or blunder on record.", style="green"))
    parts += skills_view(stats.skills)
    mixed = stats.kinds_of_game
    if len(mixed) > 1:  # one record over games of several kinds: say so, and how to pick one
        counts = ", ".join(f"{p} with {n} players ({c})" for p, n, c in mixed)
        parts.append(
            Text(f"over games of several kinds: {counts}; --preset and --players pick one", style="dim")
        )
    return Group(*parts)


def players_view(records: Sequence[Record], store: str, only: str = "") -> RenderableType:
    """Every player's totals, one row per kind of game (preset, players) they played."""
    if not records:
        more = f" of {only}" if only else ""
        return Text(f"{printable(store)}: no analysed games{more} yet.")
    heads = [player_name(r.label) for r in records]
    title = f"Players in {printable(store)}" + (f" ({only})" if only else "")
    skills = _titled_table(
        "Weakest skills (margin lost per game)",
        "the three weakest of each; stats --player NAME lists them all",
    )
    skills.add_column("player", no_wrap=True)
    skills.add_column("preset", no_wrap=True)
    skills.add_column("players", justify="right")
    skills.add_column("weakest skills", overflow="fold")
    for head, r in zip(heads, records, strict=True):
        assert r.kind is not None
        skills.add_row(printable(head), r.kind[0], str(r.kind[1]), _weakest(r.skills))
    return Group(_record_table(title, "player", records, None, heads, kinds=True), skills)


def batch_view(report: BatchReport, store: str) -> RenderableType:
    """One line per outcome of a batch run, then the files that failed and why."""
    lines = Text()
    lines.append(f"{len(report.analysed)} analysed", style="bold green")
    lines.append(f", {len(report.skipped)} already in {printable(store)}")
    if report.duplicates:
        lines.append(f", {len(report.duplicates)} duplicates of another file")
    if report.without_player:
        lines.append(f", {len(report.without_player)} without the player")
    if report.not_logs:
        lines.append(f", {len(report.not_logs)} not game logs (positions, analyses)")
    if report.busy:
        lines.append(f", {len(report.busy)} being analysed by another run on this store")
    if report.failed:
        lines.append(f", {len(report.failed)} failed", style="bold red")
    lines.append(f" ({report.found} file{'s' if report.found != 1 else ''}, {report.seconds:.1f} s")
    if report.analysed:
        lines.append(f", {report.games_per_minute:.1f} games per minute")
    lines.append(")")
    parts: list[RenderableType] = [lines]
    for source, reason in report.failed:
        parts.append(Text(f"  {printable(source)}: {printable(reason, MESSAGE_WIDTH)}", style="red"))
    return Group(*parts)
