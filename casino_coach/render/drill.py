"""Rich renderables for ``casino-coach drill`` (no logic, no I/O): a position to solve as the
player saw it, the judgement of an answer in one line (with the first reason of its loss), and the
notes of ``services.drill.DrillSession``."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from casino_coach.formats.text import player_name, printable
from casino_coach.render import cards_text, table_text
from casino_coach.render.play import moves_list
from casino_coach.render.search import seat_label, side_labels, verdict_words
from casino_coach.report.words import lost_words, margin_words
from casino_coach.services.drill import Judgement, Note, NoteKind, Position


def intro_text(
    count: int, sources: Sequence[str], classes: Sequence[str], player: str | None, skill: str | None = None
) -> Text:
    """What the drill holds (how many positions, from where, whose misses, in which skill: its words)
    and how to answer."""
    files = ", ".join(printable(s) for s in sources)
    what = " and ".join(f"{c}s" for c in classes)
    if skill is not None:
        what += f" in {skill}"
    who = f"by {printable(player, 40)}" if player is not None else "by every player rated"
    plural = "s" if count != 1 else ""
    return Text(
        f"Drill: {count} position{plural} from {files}, the {what} {who}, judged as analyze "
        "judges them. Find a better move than the one played: type it (8C x 3H 5S), or moves, "
        "skip, help, quit.",
    )


def position_view(p: Position, number: int, total: int, source: bool = False) -> Group:
    """The position before the move, as its player saw it: where it is in the game, the table with
    its builds, the hand, the cards taken so far, the game score before the round and the cards
    still to deal; then the move played there and its class (``source``: name the file too, for a
    drill over several logs)."""
    m, obs = p.played, p.obs
    names = [player_name(n) for n in p.players]
    head = Text(
        f"Position {number} of {total}: ply {m.ply} (round {m.round + 1}, deal {m.deal + 1})"
        + (f" of {printable(p.source)}" if source and p.source else ""),
        style="bold",
    )
    mover = Text(f"{seat_label(obs.to_move, p.players)} to move")
    table = Text("Table  ")
    table.append_text(table_text(obs.loose, obs.builds, names))
    hand = Text("Hand   ")
    hand.append_text(cards_text(obs.hand))
    sides = side_labels(obs, p.players)
    # Sweeps only where they score (rules.md 1.10: not in classic), as play's scoreboard shows them.
    scored = p.rules.sweeps and p.rules.points_sweep
    sweeps = [f", {n} sweep{'' if n == 1 else 's'}" if scored and n else "" for n in obs.sweeps]
    taken = ", ".join(f"{sides[s]} {obs.captured[s].bit_count()} cards{sweeps[s]}" for s in range(obs.nsides))
    game = ", ".join(f"{sides[s]} {_pts(p.scores[s])}" for s in range(min(obs.nsides, len(p.scores))))
    facts = Text(f"Taken so far: {taken}. Game score before this round: {game}.", style="dim")
    stock = Text(f"Cards still to deal: {obs.stock_count}.", style="dim")
    cls = m.cls.value if m.cls is not None else "miss"
    loss = f", {lost_words(m.loss)}" if m.loss is not None else ""
    played = Text(
        f"Played in the game: {m.played.describe()} ({_article(cls)} {cls}{loss}). Find a better move."
    )
    parts = [Text(""), head, mover, table, hand, facts, stock, played]
    if number == 1:  # the scale of the figures, said once a drill
        parts.append(
            Text(_margin_words(obs.to_move % obs.nsides, sides, len(p.players) > obs.nsides), style="dim")
        )
    return Group(*parts)


def _margin_words(mine: int, sides: Sequence[str], partners: bool) -> str:
    """``margin_words`` for the drilled player: "Values are margins: your points this round minus
    those of Ben (seat 1), so a point that goes to Ben (seat 1) instead counts 2." """
    others = [s for k, s in enumerate(sides) if k != mine]
    points = "your side's points" if partners else "your points"
    if len(others) == 1:
        return margin_words(2, points, f"those of {others[0]}", others[0])
    return margin_words(len(sides), points, them="one of the others")


def judgement_view(j: Judgement) -> Group:
    """An answer judged, in one line, and for a wrong one its headline (``Judgement.headline``, as
    ``analyze`` gives a move played)."""
    lines: list[RenderableType] = [Text(judgement_words(j), style="green" if j.right else "yellow")]
    if not j.right and j.headline is not None:
        lines.append(Text(f"  {j.headline}"))
    return Group(*lines)


def judgement_words(j: Judgement) -> str:
    """ "Right: A♠ builds 8 with 7♦, the best move." or "8♦ trails: blunder, lost 4.00 (exact).
    Best: A♠ builds 8 with 7♦." (the verdict in ``analyze``'s words: ``verdict_words``)."""
    yours = j.move.describe()
    same = " (the move played in the game)" if j.move == j.played else ""
    if j.right and j.move == j.best:
        return f"Right: {yours}, the best move{_equal_words(j)}."
    if j.right:
        noise = "" if j.result.exact else " within the noise of the search"
        return f"Right: {yours}, as good as the best, {j.best.describe()},{noise}."
    return f"{yours}{same}: {verdict_words(j.verdict, j.result)}. Best: {j.best.describe()}{_equal_words(j)}."


def skipped_words(j: Judgement) -> str:
    """The best move of a position skipped, with the moves as good as it."""
    return f"Skipped. Best: {j.best.describe()}{_equal_words(j)}."


def note_view(note: Note, session_position: tuple[Position, int, int, bool] | None = None) -> RenderableType:
    """One note of the drill session (a position is drawn from ``session_position``: the position,
    its number, how many there are, and whether to name its file: ``position_view``)."""
    if note.kind == NoteKind.POSITION:
        assert session_position is not None
        return position_view(*session_position)
    if note.kind == NoteKind.JUDGEMENT:
        assert note.judgement is not None
        return judgement_view(note.judgement)
    if note.kind == NoteKind.SKIPPED:
        assert note.judgement is not None
        return Text(skipped_words(note.judgement))
    if note.kind in (NoteKind.MOVES, NoteKind.CANDIDATES):
        return Group(Text(note.text), moves_list(note.moves))
    if note.kind == NoteKind.ERROR:
        return Text(printable(note.text, 400), style="red")
    if note.kind == NoteKind.SCORE:
        return Group(Text(""), Text(note.text, style="bold"))
    return Text(note.text)


def _equal_words(j: Judgement) -> str:
    """The moves as good as the best (``Assessment.equal``), named after it."""
    if not j.equal:
        return ""
    noise = "" if j.result.exact else " within the noise"
    return f" (as good{noise}: " + ", ".join(m.describe() for m in j.equal) + ")"


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _pts(p: object) -> str:
    return f"{p:g}" if isinstance(p, float) else str(p)
