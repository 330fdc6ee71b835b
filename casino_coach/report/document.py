"""Analysis reports: a ``GameAnalysis`` as JSON, Markdown or one self-contained HTML page.

The report is the analysis itself (data first); this module only chooses a format (``ReportFormat``).
The JSON form is a contract like replay-format.md: per move ``ply``, ``seat``, ``played``, ``best`` (move
objects as in replay-format.md), ``loss``, ``class``, ``explanations`` (each ``text`` and ``points``)
and ``exact``, and a ``summary`` per seat; other fields may be added, never renamed.

The HTML page is a review page to step through (``casino_coach.report.review``, from the Jinja2
templates in ``templates/``), with no external resource at all — inline CSS, SVG and script — so it
opens offline and can be mailed as one file. The words the formats share are in ``words``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from casino_coach.coach.analysis import GameAnalysis, MoveAnalysis, PositionView, SeatSummary
from casino_coach.coach.classes import CLASSES
from casino_coach.coach.verdict import game_class_json
from casino_coach.coach.winning import WinChances
from casino_coach.engine.cards import card_name, iter_cards, mask_symbols
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import table_words
from casino_coach.engine.state import Build
from casino_coach.formats.codec import move_to_json
from casino_coach.formats.text import markdown, side_names
from casino_coach.report import ReportFormat
from casino_coach.report.words import (
    accuracy_words,
    game_verdict_words,
    loss_words,
    luck_words,
    mark_label,
    near_target_values_words,
    settings_words,
    where,
    win_words,
    world_worth_showing,
)

FORMAT_NAME = "casino-analysis"
FORMAT_VERSION = 1


def render(analysis: GameAnalysis, fmt: ReportFormat) -> bytes:
    """The report in format ``fmt``, as the bytes of the file to write."""
    if fmt is ReportFormat.JSON:
        return to_json(analysis)
    if fmt is ReportFormat.MD:
        return to_markdown(analysis).encode()
    return to_html(analysis).encode()


# ---------------------------------------------------------------------------------------------------
# JSON


def _r(x: float | None, nd: int = 3) -> float | None:
    return None if x is None else round(float(x), nd)


def _names(mask: int) -> list[str]:
    return [card_name(c) for c in iter_cards(mask)]


def _build_obj(b: Build) -> dict[str, Any]:
    return {"cards": _names(b.cards), "value": b.value, "owner": b.owner, "multiple": b.multiple}


def move_obj(m: MoveAnalysis, players: Sequence[str]) -> dict[str, Any]:
    """One move of the analysis as JSON data."""
    world = None
    if m.world is not None:
        world = {
            "best": move_to_json(m.world.best, m.seat),
            "best_value": _r(m.world.best_value),
            "played_value": _r(m.world.played_value),
            "loss": _r(m.world.loss),
            "class": m.world.cls.value,
        }
    return {
        "ply": m.ply,
        "round": m.round,
        "deal": m.deal,
        "move_index": m.move_index,
        "seat": m.seat,
        "player": players[m.seat],
        "side": m.side,
        "rated": m.rated,
        "played": move_to_json(m.played, m.seat),
        "best": move_to_json(m.best, m.seat) if m.best is not None else None,
        "played_value": _r(m.played_value),
        "best_value": _r(m.best_value),
        "loss": _r(m.loss),
        "stderr": _r(m.stderr),
        "class": m.cls.value if m.cls is not None else None,
        "forced": m.forced,
        "exact": m.exact,
        "legal": m.legal,
        "explanations": [{"kind": e.kind, "text": e.text, "points": _r(e.points, 2)} for e in m.explanations],
        "verdict": ({"kind": m.verdict.kind, "text": m.verdict.text} if m.verdict else None),
        "world": world,
        "alternatives": [{"move": move_to_json(mv, m.seat), "value": _r(v)} for mv, v in m.alternatives],
        "table": {"loose": _names(m.loose), "builds": [_build_obj(b) for b in m.builds]},
        "hand": _names(m.hand) if m.hand is not None else None,
        "samples": m.samples,
        "worlds": m.samples,
        "loss_interval": [_r(m.loss_low), _r(m.loss_high)] if m.rated else None,
        "uncertain": m.uncertain,
        "shallow": m.shallow,
        "position": _position_obj(m.view),
        "win_chance": win_chance_obj(m.win, m.best, m.played, m.side),
        "game_verdict": game_verdict_words(m),
        "game_class": game_class_json(m.game, m.seat),
        "not_judged": m.not_judged,
    }


def win_chance_obj(
    win: WinChances | None, best: Move | None, played: Move, side: int
) -> dict[str, Any] | None:
    """A decision's game chances (``coach.winning``): per side, before the round (``round_start``)
    and once it is over after the best move and after the move played, and the chance the move
    played gave up for its side (``lost``, best minus played); null without a table for the rules."""
    if win is None:
        return None
    after_best = win.of(best) if best is not None else None
    after_played = win.of(played)
    out: dict[str, Any] = {
        "round_start": [_r(p, 4) for p in win.round_start],
        "best": [_r(p, 4) for p in after_best] if after_best is not None else None,
        "played": [_r(p, 4) for p in after_played] if after_played is not None else None,
        "lost": None,
    }
    if after_best is not None and after_played is not None:
        out["lost"] = _r(after_best[side] - after_played[side], 4)
    return out


def _position_obj(v: PositionView | None) -> dict[str, Any] | None:
    """The whole position before a move as far as the log tells (``PositionView``): per seat the cards
    known to be in the hand and the hand's size, per side the captured cards and sweeps, the cards
    still to be dealt and the game score before the round."""
    if v is None:
        return None
    return {
        "hands": [_names(h) for h in v.hands],
        "hand_sizes": list(v.hand_sizes),
        "captured": [_names(c) for c in v.captured],
        "sweeps": list(v.sweeps),
        "stock": v.stock,
        "scores": list(v.scores),
    }


def summary_obj(s: SeatSummary) -> dict[str, Any]:
    return {
        "seat": s.seat,
        "player": s.player,
        "side": s.side,
        "moves": s.moves,
        "unforced": s.unforced,
        "classes": dict(s.classes),
        "loss_total": _r(s.loss_total),
        "loss_per_decision": _r(s.loss_per_decision),
        "accuracy": _r(s.accuracy, 1),
        "game_accuracy": _r(s.game_accuracy, 1),
        "luck": [{"round": x.round, "deal": x.deal, "points": _r(x.points)} for x in s.luck],
        "luck_total": _r(s.luck_total),
        "result": _r(s.result),
        "luck_adjusted": _r(s.luck_adjusted),
        "not_judged": s.not_judged,
    }


def to_obj(a: GameAnalysis) -> dict[str, Any]:
    """The whole analysis as JSON data."""
    lim = a.options.limits
    th = a.options.thresholds
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "rules": a.rules.to_dict(),
        "players": list(a.players),
        "viewer": a.viewer,
        "settings": {
            "samples": lim.samples,
            "min_samples": lim.min_samples,
            "nodes": lim.nodes,
            "depth": lim.depth,
            "seed": lim.seed,
            "evidence": False,
            "world": a.options.world,
            "thresholds": {
                "best": th.best,
                "inaccuracy": th.inaccuracy,
                "mistake": th.mistake,
                "blunder": th.blunder,
                "noise": th.noise,
            },
        },
        "moves": [move_obj(m, a.players) for m in a.moves],
        "summary": [summary_obj(s) for s in a.summaries],
        "rounds": [_round_obj(a, i) for i in range(len(a.round_points))],
        "totals": list(a.totals),
        "winner": a.winner,
        "seconds": _r(a.seconds, 2),
    }


def _round_obj(a: GameAnalysis, i: int) -> dict[str, Any]:
    """A played-out round: ``points`` per side, and, as ``replay --json`` gives them, the
    ``breakdown`` per side (points per scoring item and the raw counts) and the ``sweeps``."""
    out: dict[str, Any] = {"points": [_r(p) for p in a.round_points[i]]}
    if i < len(a.round_scores):
        rs = a.round_scores[i]
        out["breakdown"] = [dict(b) for b in rs.breakdown]
        out["sweeps"] = list(rs.sweep_counts)
    return out


def to_json(a: GameAnalysis) -> bytes:
    return orjson.dumps(to_obj(a), option=orjson.OPT_INDENT_2) + b"\n"


# ---------------------------------------------------------------------------------------------------
# Markdown


def _md_move(m: MoveAnalysis, players: Sequence[str], edge: float) -> list[str]:
    head = f"- **ply {m.ply}, {players[m.seat]}** played **{m.played.describe()}**"
    if m.rated:
        head += f" — *{mark_label(m)}*"
        if m.missed and m.loss is not None and m.best is not None:
            head += f", {loss_words(m)} (best: {m.best.describe()})"
        elif m.exact:
            head += " [exact]"
        if m.world is not None and world_worth_showing(m, edge):
            head += f"; on the cards actually held: lost {m.world.loss:.2f} ({m.world.cls.value})"
    elif m.not_judged:
        head += f" — *not judged*: {m.not_judged}"
    lines = [
        head,
        f"  - table: {table_words(m.loose, m.builds)}"
        + (f"; hand: {mask_symbols(m.hand)}" if m.hand is not None else ""),
    ]
    lines += [f"  - {markdown(e.text)} ({e.points:.2f})" for e in m.explanations]
    if m.verdict is not None:
        lines.append(f"  - {m.verdict.text}")
    disagree = game_verdict_words(m)
    if disagree is not None:
        lines.append(f"  - {disagree}")
    game = win_words(m) if m.missed else None
    if game is not None:
        lines.append(f"  - {game}")
    return lines


def to_markdown(a: GameAnalysis) -> str:
    # Names come from the log as written: escaped here, so that none can act as markup or reach a
    # terminal that shows the file raw.
    names = [markdown(p) for p in a.players]
    out = [
        f"# Game analysis: {' vs '.join(names)} ({a.rules.describe()})",
        "",
        settings_words(a) + ".",
        "",
        "## Summary",
        "",
        "| Player | Moves | Unforced | "
        + " | ".join(c.value.capitalize() for c in CLASSES)
        + " | Lost | Lost per decision | Accuracy | Game accuracy | Luck | Result | Luck-adjusted |",
        "|---" * (10 + len(CLASSES)) + "|",
    ]
    for s in a.summaries:
        out.append(
            f"| {markdown(s.player)} | {s.moves} | {s.unforced} | "
            + " | ".join(str(s.classes[c.value]) for c in CLASSES)
            + f" | {s.loss_total:.2f} | {s.loss_per_decision:.3f} | {accuracy_words(s)} | "
            f"{accuracy_words(s, True)} | {s.luck_total:+.2f} | {s.result:+.2f} | {s.luck_adjusted:+.2f} |"
        )
    if any(s.not_judged for s in a.summaries):
        counts = ", ".join(f"{markdown(s.player)} {s.not_judged}" for s in a.summaries)
        out += ["", f"Moves not judged (too big to search; each says why below): {counts}."]
    out += ["", "Luck per deal:", ""]
    out += [f"- {markdown(s.player)}: {luck_words(s)}" for s in a.summaries if s.luck]
    out += [
        "",
        "Lost: expected round points lost against the search's best move. Accuracy: "
        "Lichess's formula on the loss as a share of a round's 11 points; for the game, Lichess's "
        "accuracy from the chances of winning the game each move gave up. Luck: how much better "
        "the dealt cards were than an average deal from the same position.",
        "",
    ]
    worst = a.worst()
    if worst:
        out += ["## Worst moves", ""]
        for m in worst:
            # the ply too: two of the worst moves can be one player's in one deal
            out += [f"### Ply {m.ply}, {where(m)}: {names[m.seat]}", ""]
            out += _md_move(m, names, a.options.thresholds.inaccuracy)
            out.append("")
    out += ["## Move by move", ""]
    sides = side_names(a.players, a.nsides)
    current: tuple[int, int] | None = None
    for m in a.moves:
        if (m.round, m.deal) != current:
            if current is None or m.round != current[0]:
                pts = a.round_points[m.round] if m.round < len(a.round_points) else None
                score = f" (points {', '.join(f'{p:g}' for p in pts)})" if pts else ""
                out += [f"### Round {m.round + 1}{score}", ""]
                near = near_target_values_words(a.rules, m.view.scores if m.view is not None else None, sides)
                if near is not None:
                    out += [near, ""]
            current = (m.round, m.deal)
            out += [f"#### Deal {m.deal + 1}", ""]
        out += _md_move(m, names, a.options.thresholds.inaccuracy)
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------------
# HTML: the review page (``review``, imported on first use: Jinja2 stays off the command line's start)


def to_html(a: GameAnalysis) -> str:
    """The analysis as one self-contained HTML review page (``casino_coach.report.review``)."""
    from casino_coach.report import review

    return review.page(a)


def chart_svg(a: GameAnalysis) -> str:
    """The page's chart alone: the expected game score after every rated move, as inline SVG."""
    from casino_coach.report import review

    return review.chart(a)


__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "ReportFormat",
    "chart_svg",
    "move_obj",
    "render",
    "summary_obj",
    "to_html",
    "to_json",
    "to_markdown",
    "to_obj",
]
