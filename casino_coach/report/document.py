"""Analysis reports: a ``GameAnalysis`` as JSON, Markdown or one self-contained HTML page.

The report is the analysis itself (data first); this module only chooses a format (``ReportFormat``).
The JSON form is a contract like replay-format.md: per move ``ply``, ``seat``, ``played``, ``best`` (move
objects as in replay-format.md), ``loss``, ``class``, ``explanations`` (each ``text`` and ``points``)
and ``exact``, and a ``summary`` per seat; other fields may be added, never renamed.

The HTML page has no external resource at all — inline CSS, card faces drawn with CSS, the chart of
the expected round score as inline SVG — so it opens offline and can be mailed as one file.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

import orjson

from casino_coach.coach.analysis import CLASSES, GameAnalysis, MoveAnalysis, SeatSummary
from casino_coach.engine.cards import SUIT, card_name, card_symbol, iter_cards, mask_symbols
from casino_coach.engine.movegen import Move
from casino_coach.engine.state import Build
from casino_coach.formats.codec import move_to_json
from casino_coach.formats.text import markdown

FORMAT_NAME = "casino-analysis"
FORMAT_VERSION = 1


class ReportFormat(StrEnum):
    """The formats of ``export``."""

    HTML = "html"
    MD = "md"
    JSON = "json"


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
        "luck": [{"round": x.round, "deal": x.deal, "points": _r(x.points)} for x in s.luck],
        "luck_total": _r(s.luck_total),
        "result": _r(s.result),
        "luck_adjusted": _r(s.luck_adjusted),
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
        "rounds": [{"points": [_r(p) for p in pts]} for pts in a.round_points],
        "seconds": _r(a.seconds, 2),
    }


def to_json(a: GameAnalysis) -> bytes:
    return orjson.dumps(to_obj(a), option=orjson.OPT_INDENT_2) + b"\n"


# ---------------------------------------------------------------------------------------------------
# Shared words


def title(a: GameAnalysis) -> str:
    return f"Game analysis: {' vs '.join(a.players)} ({a.rules.describe()})"


def class_label(m: MoveAnalysis) -> str:
    if not m.rated:
        return "not rated"
    if m.forced:
        return "forced"
    return m.cls.value if m.cls is not None else ""


def loss_basis(m: MoveAnalysis) -> str:
    """What a loss rests on: "exact", "1.01 to 3.28 over 56 worlds", "over all 9 worlds the player
    could face", with ", searched shallower to fit the node budget" when it was."""
    if m.exact:
        return "exact"
    worlds = f"{m.samples} world{'s' if m.samples != 1 else ''}"
    if m.loss_high - m.loss_low < 0.005:  # every consistent world was searched
        text = f"over all {worlds} the player could face"
    else:
        text = f"{m.loss_low:.2f} to {m.loss_high:.2f} over {worlds}"
    return text + (", searched shallower to fit the node budget" if m.shallow else "")


UNCERTAIN_WORDS = "the interval spans two classes, so the milder is given"


def loss_words(m: MoveAnalysis) -> str:
    """The loss with what it rests on: "lost 2.15 (1.01 to 3.28 over 56 worlds)", "lost 4.00
    (exact)"; an uncertain class says that it is the milder of the classes its interval spans."""
    if m.loss is None:
        return ""
    text = f"lost {m.loss:.2f} ({loss_basis(m)})"
    return text + (f"; {UNCERTAIN_WORDS}" if m.uncertain else "")


def where(m: MoveAnalysis) -> str:
    return f"round {m.round + 1}, deal {m.deal + 1}"


def table_words(loose: int, builds: tuple[Build, ...]) -> str:
    parts = [mask_symbols(loose)] if loose else []
    parts += [f"[{mask_symbols(b.cards)} ={b.value}]" for b in builds]
    return " ".join(parts) or "(empty)"


def settings_words(a: GameAnalysis) -> str:
    lim = a.options.limits
    th = a.options.thresholds
    depth = f"{lim.depth} plies deep" if lim.depth else "to the end of the deal"
    if len(a.players) == 2:
        depth += " (the last deal of a round exactly to its end)"
    return (
        f"search: {lim.min_samples} to {lim.samples} sampled worlds per move (more while the loss "
        f"of the move played straddles a class edge), {depth}, seed {lim.seed}; every world "
        "consistent with what the player saw weighs the same (the other players' plays are not "
        "read as clues: a verdict should not rest on a model of how they play); classes by "
        f"loss in expected points: good < {th.inaccuracy:g} ≤ inaccuracy < {th.mistake:g} ≤ "
        f"mistake < {th.blunder:g} ≤ blunder, taken at the low end of the loss's interval of "
        f"{th.noise:g} standard errors"
    )


def luck_words(s: SeatSummary) -> str:
    """The luck of each deal, round by round: "round 1: +0.40 -1.20 ...; round 2: ..."."""
    rounds: dict[int, list[str]] = {}
    for x in s.luck:
        rounds.setdefault(x.round, []).append(f"{x.points:+.2f}")
    return "; ".join(f"round {r + 1}: {' '.join(v)}" for r, v in sorted(rounds.items())) or "none"


def _acc(s: SeatSummary) -> str:
    return "–" if s.accuracy is None else f"{s.accuracy:.1f}%"


# ---------------------------------------------------------------------------------------------------
# Markdown


def _md_move(m: MoveAnalysis, players: Sequence[str]) -> list[str]:
    head = f"- **ply {m.ply}, {players[m.seat]}** played **{m.played.describe()}**"
    if m.rated:
        head += f" — *{class_label(m)}*"
        if m.missed and m.loss is not None and m.best is not None:
            head += f", {loss_words(m)} (best: {m.best.describe()})"
        elif m.exact:
            head += " [exact]"
        if m.world is not None and not m.forced:
            head += f"; on the cards actually held: lost {m.world.loss:.2f} ({m.world.cls.value})"
    lines = [
        head,
        f"  - table: {table_words(m.loose, m.builds)}"
        + (f"; hand: {mask_symbols(m.hand)}" if m.hand is not None else ""),
    ]
    lines += [f"  - {markdown(e.text)} ({e.points:.2f})" for e in m.explanations]
    if m.verdict is not None:
        lines.append(f"  - {m.verdict.text}")
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
        + " | Lost | Lost per decision | Accuracy | Luck | Result | Luck-adjusted |",
        "|---" * (9 + len(CLASSES)) + "|",
    ]
    for s in a.summaries:
        out.append(
            f"| {markdown(s.player)} | {s.moves} | {s.unforced} | "
            + " | ".join(str(s.classes[c.value]) for c in CLASSES)
            + f" | {s.loss_total:.2f} | {s.loss_per_decision:.3f} | {_acc(s)} | "
            f"{s.luck_total:+.2f} | {s.result:+.2f} | {s.luck_adjusted:+.2f} |"
        )
    out += ["", "Luck per deal:", ""]
    out += [f"- {markdown(s.player)}: {luck_words(s)}" for s in a.summaries if s.luck]
    out += [
        "",
        "Lost: expected round points lost against the search's best move. Accuracy: "
        "Lichess's formula on the loss as a share of a round's 11 points. Luck: how much better "
        "the dealt cards were than an average deal from the same position.",
        "",
    ]
    worst = a.worst()
    if worst:
        out += ["## Worst moves", ""]
        for m in worst:
            out += [f"### {where(m).capitalize()}: {names[m.seat]}", ""]
            out += _md_move(m, names)
            out.append("")
    out += ["## Move by move", ""]
    current: tuple[int, int] | None = None
    for m in a.moves:
        if (m.round, m.deal) != current:
            if current is None or m.round != current[0]:
                pts = a.round_points[m.round] if m.round < len(a.round_points) else None
                score = f" (points {', '.join(f'{p:g}' for p in pts)})" if pts else ""
                out += [f"### Round {m.round + 1}{score}", ""]
            current = (m.round, m.deal)
            out += [f"#### Deal {m.deal + 1}", ""]
        out += _md_move(m, names)
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------------
# HTML

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#1d2a24;
background:#f4f1ea;max-width:1140px}
h1{font-size:24px;margin:0 0 4px} h2{font-size:19px;margin:28px 0 8px;border-bottom:2px solid #2f6b4f}
h3{font-size:16px;margin:18px 0 6px;color:#2f6b4f}
.note{color:#55625b;font-size:13px}
table{border-collapse:collapse;font-size:13px;background:#fff}
th,td{border:1px solid #d5d0c4;padding:4px 7px;text-align:left;vertical-align:top}
th{background:#e8e3d6}
.card{display:inline-block;min-width:22px;padding:2px 3px;margin:1px;border:1px solid #9a9587;
border-radius:4px;background:#fff;font-weight:600;font-size:13px;text-align:center;
box-shadow:0 1px 0 #c9c3b5;color:#1b1b1b;line-height:16px}
.card.red{color:#c0262d} .build{display:inline-block;border:2px dashed #2f6b4f;border-radius:6px;
padding:0 2px;margin:1px} .build b{font-size:11px;color:#2f6b4f}
.cls{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;color:#fff}
.best{background:#2e7d32} .good{background:#689f38} .inaccuracy{background:#c49000}
.mistake{background:#e65100} .blunder{background:#b71c1c} .forced{background:#78909c}
.unrated{background:#b0a99a}
.move{background:#fff;border:1px solid #d5d0c4;border-left:6px solid #b0a99a;border-radius:4px;
margin:6px 0;padding:6px 10px}
.move.best{border-left-color:#2e7d32;background:#fff} .move.good{border-left-color:#689f38;background:#fff}
.move.inaccuracy{border-left-color:#c49000;background:#fffdf3}
.move.mistake{border-left-color:#e65100;background:#fff8f2}
.move.blunder{border-left-color:#b71c1c;background:#fff4f4}
.move.forced{border-left-color:#78909c;background:#fff}
.row{display:flex;gap:14px;flex-wrap:wrap;align-items:center}
.lbl{color:#6b7570;font-size:12px;margin-right:3px}
ul.why{margin:4px 0 0 18px;padding:0;font-size:13px} ul.why li{margin:2px 0}
.pts{color:#b71c1c;font-weight:600} .verdict{font-size:13px;color:#4a148c;margin-top:3px}
svg text{font-family:inherit}
"""


def _card_html(c: int) -> str:
    red = " red" if SUIT[c] in (1, 2) else ""
    return f'<span class="card{red}">{html.escape(card_symbol(c))}</span>'


def _cards_html(mask: int) -> str:
    return "".join(_card_html(c) for c in iter_cards(mask)) or '<span class="note">none</span>'


def _table_html(loose: int, builds: tuple[Build, ...]) -> str:
    parts = [_card_html(c) for c in iter_cards(loose)]
    parts += [
        f'<span class="build">{"".join(_card_html(c) for c in iter_cards(b.cards))}<b>={b.value}</b></span>'
        for b in builds
    ]
    return "".join(parts) or '<span class="note">empty</span>'


def _move_html(m: Move) -> str:
    verb = {0: "trails", 1: "takes", 2: f"builds {m.value} with"}[m.action]
    rest = f" {_cards_html(m.take)}" if m.take else ""
    return f'{_card_html(m.card)} <span class="note">{html.escape(verb)}</span>{rest}'


def _minus(loss: float) -> str:
    return f"−{loss:.2f}" if loss >= 0.005 else "0.00"


def _badge(m: MoveAnalysis) -> str:
    label = class_label(m)
    css = "unrated" if not m.rated else ("forced" if m.forced else label)
    return f'<span class="cls {css}">{html.escape(label)}</span>'


def _move_block(m: MoveAnalysis, players: Sequence[str], anchor: bool = True) -> str:
    css = "" if not m.rated else ("forced" if m.forced else (m.cls.value if m.cls else ""))
    e = html.escape
    ident = f' id="ply{m.ply}"' if anchor else ""
    link = f'<a href="#ply{m.ply}">ply {m.ply}</a>' if not anchor else f"ply {m.ply}"
    parts = [
        f'<div class="move {css}"{ident}><div class="row">'
        f"<b>{link}</b> <b>{e(players[m.seat])}</b> {_badge(m)}"
        f'<span><span class="lbl">played</span>{_move_html(m.played)}</span>'
    ]
    if m.rated and m.loss is not None and not m.forced:
        if m.missed and m.best is not None:
            parts.append(
                f'<span class="pts" title="{e(loss_words(m))}">−{m.loss:.2f}</span>'
                f'<span><span class="lbl">best</span>{_move_html(m.best)}</span>'
            )
        if m.exact:
            parts.append('<span class="note">exact</span>')
        elif m.missed:
            note = loss_basis(m) + (f"; {UNCERTAIN_WORDS}" if m.uncertain else "")
            parts.append(f'<span class="note">{e(note)}</span>')
        if m.world is not None:
            parts.append(
                f'<span><span class="lbl">on the cards actually held</span>'
                f'<span class="cls {m.world.cls.value}">{_minus(m.world.loss)}</span></span>'
            )
    parts.append(
        f'</div><div class="row"><span><span class="lbl">table</span>{_table_html(m.loose, m.builds)}</span>'
    )
    if m.hand is not None:
        parts.append(f'<span><span class="lbl">hand</span>{_cards_html(m.hand)}</span>')
    parts.append("</div>")
    if m.explanations:
        parts.append(
            '<ul class="why">'
            + "".join(
                f'<li>{e(x.text)} <span class="pts">({x.points:.2f})</span></li>' for x in m.explanations
            )
            + "</ul>"
        )
    if m.verdict is not None:
        parts.append(f'<div class="verdict">{e(m.verdict.text)}</div>')
    parts.append("</div>")
    return "".join(parts)


_COLOURS = {
    "best": "#2e7d32",
    "good": "#689f38",
    "inaccuracy": "#c49000",
    "mistake": "#e65100",
    "blunder": "#b71c1c",
    "forced": "#78909c",
}
_SIDE_COLOURS = ("#2f6b4f", "#8e3b8f", "#1f5fa8", "#b35c00")


def chart_points(a: GameAnalysis) -> list[tuple[int, int, float, MoveAnalysis]]:
    """(ply, series, value) for the chart: the expected round margin after each rated move. With two
    sides it is one series from side 0's point of view; otherwise one series per side."""
    out = []
    for m in a.moves:
        if not m.rated or m.played_value is None:
            continue
        if a.nsides == 2:
            out.append((m.ply, 0, m.played_value if m.side == 0 else -m.played_value, m))
        else:
            out.append((m.ply, m.side, m.played_value, m))
    return out


def chart_svg(a: GameAnalysis, width: int = 1080, height: int = 260) -> str:
    """The expected round score across the game as an inline SVG line chart."""
    pts = chart_points(a)
    e = html.escape
    if not pts or not a.moves:
        return '<p class="note">No rated move to chart.</p>'
    left, right, top, bottom = 46, 12, 16, 30
    n = max(m.ply for m in a.moves) + 1
    lo = min(0.0, min(p[2] for p in pts))
    hi = max(0.0, max(p[2] for p in pts))
    span = max(hi - lo, 1.0)
    lo -= 0.08 * span
    hi += 0.08 * span

    def x(ply: float) -> float:
        return left + (width - left - right) * (ply + 0.5) / n

    def y(v: float) -> float:
        return top + (height - top - bottom) * (hi - v) / (hi - lo)

    svg = [
        f'<svg width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="expected round score">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff" stroke="#d5d0c4"/>',
    ]
    # Round boundaries.
    first_of_round: dict[int, int] = {}
    for m in a.moves:
        first_of_round.setdefault(m.round, m.ply)
    for r, ply in sorted(first_of_round.items()):
        xx = x(ply - 0.5)
        svg.append(
            f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{height - bottom}" '
            'stroke="#cfc8b8" stroke-dasharray="4 3"/>'
        )
        svg.append(
            f'<text x="{xx + 4:.1f}" y="{height - 12}" font-size="11" fill="#6b7570">round {r + 1}</text>'
        )
    # Value grid.
    step = 1.0 if span <= 8 else (2.0 if span <= 16 else 5.0)
    v = step * int(lo / step)
    while v <= hi:
        yy = y(v)
        colour = "#9a9587" if abs(v) < 1e-9 else "#ece7dc"
        svg.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - right}" y2="{yy:.1f}" stroke="{colour}"/>')
        svg.append(
            f'<text x="{left - 6}" y="{yy + 4:.1f}" font-size="11" text-anchor="end" '
            f'fill="#6b7570">{v:+g}</text>'
        )
        v += step
    series = sorted({p[1] for p in pts})
    for sidx in series:
        sp = [p for p in pts if p[1] == sidx]
        colour = _SIDE_COLOURS[sidx % len(_SIDE_COLOURS)]
        # One polyline per round: the value restarts at each new deal of cards.
        by_round: dict[int, list[tuple[int, int, float, MoveAnalysis]]] = {}
        for p in sp:
            by_round.setdefault(p[3].round, []).append(p)
        for rpts in by_round.values():
            coords = " ".join(f"{x(p[0]):.1f},{y(p[2]):.1f}" for p in rpts)
            svg.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for ply, _, val, m in sp:
            label = class_label(m)
            fill = _COLOURS.get(label, colour)
            r = 5 if label in ("mistake", "blunder") else 3
            tip = f"ply {ply}, {a.players[m.seat]}: {m.played.describe()} ({label}), expected {val:+.2f}"
            svg.append(
                f'<circle cx="{x(ply):.1f}" cy="{y(val):.1f}" r="{r}" fill="{fill}">'
                f"<title>{e(tip)}</title></circle>"
            )
    legend = (
        "expected round margin for "
        + (a.players[0] if a.nsides == 2 else "each side")
        + " after each move (points)"
    )
    svg.append(f'<text x="{left}" y="12" font-size="12" fill="#1d2a24">{e(legend)}</text>')
    svg.append("</svg>")
    return "".join(svg)


def _summary_html(a: GameAnalysis) -> str:
    e = html.escape
    head = (
        "<tr><th>Player</th><th>Moves</th><th>Unforced</th>"
        + "".join(f'<th><span class="cls {c.value}">{c.value}</span></th>' for c in CLASSES)
        + "<th>Lost (points)</th><th>Lost per decision</th><th>Accuracy</th><th>Luck</th>"
        "<th>Result</th><th>Luck-adjusted</th></tr>"
    )
    rows = []
    for s in a.summaries:
        rows.append(
            f"<tr><td><b>{e(s.player)}</b></td><td>{s.moves}</td><td>{s.unforced}</td>"
            + "".join(f"<td>{s.classes[c.value]}</td>" for c in CLASSES)
            + f"<td>{s.loss_total:.2f}</td><td>{s.loss_per_decision:.3f}</td>"
            f"<td>{_acc(s)}</td><td>{s.luck_total:+.2f}</td><td>{s.result:+.2f}</td>"
            f"<td>{s.luck_adjusted:+.2f}</td></tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def to_html(a: GameAnalysis) -> str:
    e = html.escape
    body = [
        f"<h1>{e(title(a))}</h1>",
        f'<p class="note">{e(settings_words(a))}.</p>',
        "<h2>Summary</h2>",
        _summary_html(a),
        '<p class="note">Lost: expected round points lost against the search\'s best move, from '
        "what the player could know. Accuracy: Lichess's formula on the loss as a share of the 11 "
        "points of a round. Luck: how much better the dealt cards were than an average deal from "
        "the same position; luck-adjusted = result − luck.</p>",
        '<p class="note"><b>Luck per deal</b>: '
        + " · ".join(f"{e(s.player)}: {e(luck_words(s))}" for s in a.summaries if s.luck)
        + "</p>",
        "<h2>Expected round score</h2>",
        chart_svg(a),
    ]
    worst = a.worst()
    if worst:
        body.append("<h2>Worst moves</h2>")
        for m in worst:
            body.append(f"<h3>{e(where(m).capitalize())}</h3>{_move_block(m, a.players, False)}")
    body.append("<h2>Move by move</h2>")
    current: tuple[int, int] | None = None
    for m in a.moves:
        if (m.round, m.deal) != current:
            if current is None or m.round != current[0]:
                pts = a.round_points[m.round] if m.round < len(a.round_points) else None
                score = (
                    " — points " + ", ".join(f"{e(a.players[s])} {p:g}" for s, p in enumerate(pts))
                    if pts and a.nsides == len(a.players)
                    else ""
                )
                body.append(f"<h3>Round {m.round + 1}{score}</h3>")
            current = (m.round, m.deal)
            body.append(f'<p class="note">Deal {m.deal + 1}</p>')
        body.append(_move_block(m, a.players))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title(a))}</title><style>{_CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )


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
