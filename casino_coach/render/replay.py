"""Rich renderables for logs: a replay move by move, round score breakdowns, legal-move tables, and the
one-line summary of ``validate`` (no logic, no I/O)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from casino_coach.engine.movegen import Move, apply, residue_of
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import BREAKDOWN_ITEMS, Points, near_target_items
from casino_coach.engine.state import Build
from casino_coach.formats.log import GameLog
from casino_coach.formats.replay import Ply, Replay, RoundReplay
from casino_coach.formats.text import player_name, side_names
from casino_coach.render import cards_text, move_words, seat_name, table_panel, table_text
from casino_coach.report.words import ITEM_LABELS, near_target_notes

COUNTS = {"cards": "card_count", "spades": "spade_count", "sweeps": "sweep_count"}


def _points(p: Points) -> str:
    return str(int(p)) if p == int(p) else f"{p:g}"


def describe_log(log: GameLog, rep: Replay) -> str:
    """One line: what the log is and how it stands ("royal, 2 players, 4 rounds, 190 moves, ...")."""
    parts = [log.rules.describe(), f"{log.nplayers} players"]
    if log.nplayers == 4:
        parts.append("partnerships" if log.partnerships else "individual")
    parts.append(f"{len(log.rounds)} round{'s' if len(log.rounds) != 1 else ''}")
    parts.append(f"{len(rep.plies)} moves")
    parts.append("full information" if log.viewer is None else f"viewer seat {log.viewer}")
    names = side_names(log.players, log.nsides)
    score = "-".join(_points(s) for s in rep.match.scores)
    if rep.match.winner is not None:
        parts.append(f"won by {names[rep.match.winner]} {score}")
    else:
        parts.append(f"in progress at {score}")
    return ", ".join(parts)


def breakdown_table(log: GameLog, rnd: RoundReplay, totals: Sequence[Points]) -> Table:
    """The round's points per scoring item and side, with the raw counts, and the game score."""
    assert rnd.score is not None
    score = rnd.score
    names = side_names(log.players, log.nsides)
    t = Table(title=f"Round {rnd.index + 1} score", title_justify="left")
    t.add_column("item")
    for name in names:
        t.add_column(name, justify="right")
    for item in BREAKDOWN_ITEMS:
        if item == "last_capture" and not log.rules.last_capture_point:
            continue
        row = [ITEM_LABELS[item]]
        for side in range(len(names)):
            b = score.breakdown[side]
            cell = _points(b[item])
            if item in COUNTS:
                cell += f" ({b[COUNTS[item]]})"
            row.append(cell)
        t.add_row(*row)
    t.add_row(Text("round points", style="bold"), *[Text(_points(p), style="bold") for p in score.points])
    t.add_row(Text("game score", style="bold"), *[Text(_points(p), style="bold") for p in totals])
    return t


def replay_view(rep: Replay) -> Iterator[RenderableType]:
    """The whole game, round by round: deals with the hands and the table, every move in words with
    the table after it (captures and sweeps marked), each round's breakdown and the running score."""
    log = rep.log
    players = [player_name(p) for p in log.players]
    names = side_names(log.players, log.nsides)
    yield Text(describe_log(log, rep), style="bold")
    plies_by_round: dict[int, list[int]] = {}
    for i, p in enumerate(rep.plies):
        plies_by_round.setdefault(p.round, []).append(i)
    running = [0.0] * log.nsides
    # One width for the ply and move columns of every deal, so that the deals read as one table.
    words = [move_words(p.move, sweep=p.index in rep.sweeps, seat=p.seat, players=players) for p in rep.plies]
    ply_width = max(3, len(str(len(rep.plies) - 1)))
    move_width = min(44, max((w.cell_len for w in words), default=4))  # a longer move wraps
    for ri, rlog in enumerate(log.rounds):
        rnd = rep.rounds[ri] if ri < len(rep.rounds) else None
        before = (
            " - ".join(f"{n} {_points(s)}" for n, s in zip(names, rnd.scores_before, strict=True))
            if rnd
            else ""
        )
        yield Rule(
            f"Round {ri + 1}: {seat_name(rlog.dealer, players)} deals"
            + (f"; game {before}" if before else ""),
            align="left",
        )
        idx = plies_by_round.get(ri, [])
        pos = 0
        for di, dlog in enumerate(rlog.deals):
            hands = Text(
                f"Deal {di + 1}"
                + (" (last)" if di == len(rlog.deals) - 1 and rnd and rnd.score else "")
                + ": ",
                style="bold",
            )
            for s, h in enumerate(dlog.hands):
                hands.append(f"\n  {seat_name(s, players)}: ")
                hands.append_text(cards_text(h) if h is not None else Text("(unknown)", style="dim"))
            yield hands
            if dlog.table is not None:
                yield table_panel(dlog.table, (), players, title="Table dealt")
            moves = Table(show_header=True, box=None, pad_edge=False)
            moves.add_column("ply", justify="right", style="dim", width=ply_width)
            moves.add_column("move", width=move_width)
            moves.add_column("table after")
            for _ in dlog.moves:
                i = idx[pos]
                pos += 1
                p = rep.plies[i]
                loose, builds = rep.after[i]
                after = table_text(loose, builds, players)
                if rnd is not None and rnd.score is not None and i == idx[-1]:
                    after = _residue_text(log.rules, p, names) or after
                moves.add_row(str(p.index), words[i], after)
            if dlog.moves:
                yield moves
        if rnd is not None and rnd.score is not None:
            running = [a + b for a, b in zip(running, rnd.score.points, strict=True)]
            yield breakdown_table(log, rnd, running)
            for note in near_target_notes(log.rules, rnd.scores_before, names):
                yield Text(f"{note}.", style="dim")
        elif rnd is not None:
            yield Text("(the round is in progress: the log stops here)", style="yellow")
    if rep.match.winner is not None:
        yield Text(
            f"Winner: {names[rep.match.winner]} ({' - '.join(_points(s) for s in rep.match.scores)})"
            + _win_reason(log.rules, rep),
            style="bold green",
        )
    else:
        yield Text(f"No winner yet: {' - '.join(_points(s) for s in rep.match.scores)}", style="yellow")


def _win_reason(rules: RuleSet, rep: Replay) -> str:
    """Why the winner won where the totals do not show it: a Dominican side near the target wins
    by its item alone (rules.md 1.14.4), and with a count-out the first side to reach the target as
    the items are counted wins, whatever the others' totals come to (1.14.3)."""
    w = rep.match.winner
    if w is None or not rep.rounds:
        return ""
    before = rep.rounds[-1].scores_before[w]
    items = near_target_items(rules, before)
    if items is not None:
        what = " or ".join(ITEM_LABELS.get(i, i) for i in items)
        return f", by the near-{rules.target} rule: at {_points(before)} only {what} could win"
    scores = rep.match.scores
    if rules.count_out and any(s >= rules.target for k, s in enumerate(scores) if k != w):
        order = ", ".join(ITEM_LABELS.get(i, i) for i in rules.count_out_order)
        return f", the first to {rules.target} as the round's items were counted out ({order})"
    return ""


def _residue_text(rules: RuleSet, p: Ply, names: Sequence[str]) -> Text | None:
    """After the last move of a round, the cards it left on the table and who takes them (rules.md
    1.11): "(empty) the rest, A♠ 4♦ 7♦ 8♦, to Ana, the last to capture" (a trail cannot empty the
    table). None when nothing was left, or the state is not in the log."""
    if p.state is None:
        return None
    left = apply(rules, p.state._replace(more=True), p.move)  # the move, before the round ends
    cards, to = residue_of(rules, left)
    if not cards:
        return None
    text = Text("(empty) ", style="dim")
    text.append("the rest, ")
    text.append_text(cards_text(cards))
    if to < 0:
        text.append(", set aside: nobody captured")
    elif to == left.last_capturer:
        text.append(f", to {names[to]}, the last to capture")
    else:
        text.append(f", to {names[to]}, the dealer's side, as nobody captured")
    return text


@dataclass(frozen=True)
class LegalAt:
    """One position of ``moves``: who is to move where, what they hold (None: not in the log), the
    table, and the legal moves (None: unknown, the hand being another seat's in a viewer log) with
    the one the log played there."""

    title: str
    hand: int | None
    loose: int
    builds: tuple[Build, ...]
    legal: Sequence[Move] | None
    played: Move | None = None


def legal_view(positions: Sequence[LegalAt], players: Sequence[str] | None = None) -> Group:
    """Each position's title, hand and table, then its legal moves numbered (the one played marked),
    in columns of one width for every position, so that a list of them reads as one table."""
    number_width = max((len(str(len(p.legal))) for p in positions if p.legal), default=1)
    move_width = max((move_words(m).cell_len for p in positions for m in p.legal or ()), default=4)
    parts: list[RenderableType] = []
    for i, p in enumerate(positions):
        if i:
            parts.append(Text(""))
        parts.append(Text(p.title, style="bold"))
        hand = Text("  hand:  ")
        if p.hand is not None:
            hand.append_text(cards_text(p.hand, empty="(empty)"))
        else:
            hand.append("not in the log, so the legal moves are unknown", style="dim")
        table = Text("  table: ")
        table.append_text(table_text(p.loose, p.builds, players))
        parts += [hand, table]
        if p.legal is None:
            continue
        t = Table(box=None, pad_edge=False, show_header=False, padding=(0, 1, 0, 2))
        t.add_column(justify="right", style="dim", width=number_width)
        t.add_column(width=move_width, no_wrap=True)
        t.add_column()
        for k, m in enumerate(p.legal):
            t.add_row(str(k + 1), move_words(m), Text("played", style="bold green") if m == p.played else "")
        parts.append(t)
    return Group(*parts)
