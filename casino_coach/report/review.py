"""The HTML review page: a ``GameAnalysis`` as one self-contained page that a player steps through.

Python gathers the page's data here: the summary, the result and each round's score breakdown, the
compact move list (in the order of play), the chart's geometry, and per ply the position before the
move (the table, the builds with their owners, the hands the log's reader knows), the positions after
the move played and after the best move (made here with the engine's ``apply``, so that the page's
script knows no rules), the move played beside the best one, the loss with what it rests on, the class
and the explanation. The Jinja2 templates in
``templates/`` lay it out, autoescaped. The per-ply data goes into the page as JSON, with every ``<``,
``>`` and ``&`` written as a ``\\u`` escape so that no text in it (a player named ``</script>``) can end
the script element; a small inline script draws the selected ply from it and moves between plies with
the arrow keys, the move list and the chart. Without the script the page still shows the summary,
the result, the chart, the move list and the breakdowns.

The chart spans the whole game: after each rated move, the expected game margin (the side's game
score before the round minus the others' mean, plus the expected round margin the search gives),
and at the end of each round the actual one. Its coordinates across are percentages, so the SVG
fills any width with its text at its own size (a scaled viewBox made the labels unreadably small on
a phone).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import orjson
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from casino_coach.coach.analysis import GameAnalysis, MoveAnalysis
from casino_coach.coach.classes import CLASSES, DRILLED, MoveClass, Thresholds
from casino_coach.coach.explain import SENTENCE_WIDTH
from casino_coach.coach.skills import skill_of
from casino_coach.coach.winning import table_for
from casino_coach.engine.cards import (
    ACES_COUNT_OUT,
    BIG_CASINO,
    LITTLE_CASINO,
    SPADES_MASK,
    SUIT,
    card_symbol,
    iter_cards,
)
from casino_coach.engine.movegen import BUILD, CAPTURE, Move, apply
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import Build, RoundState
from casino_coach.formats.text import player_name, printable, side_names
from casino_coach.report.words import (
    UNCERTAIN_WORDS,
    accuracy_words,
    analysis_margin_words,
    game_verdict_words,
    loss_basis,
    lost_words,
    luck_words,
    mark_label,
    near_target_notes,
    near_target_values_words,
    settings_words,
    side_margin_words,
    where,
    win_words,
    world_worth_showing,
)

# The marks of the move list, as chess annotators write them: ?! an inaccuracy, ? a mistake, ?? a
# blunder, □ the only legal move; = a move among several that are all worth the same.
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??", "forced": "□", "all equal": "="}

CHART_HEIGHT = 230
_TOP, _BOTTOM = 12, 26  # px above the highest value and below the lowest (the round labels)
_LEFT, _RIGHT = 3.5, 1.0  # percent of the width beside the first and the last ply


@functools.cache
def environment() -> Environment:
    """The templates of ``casino_coach/report/templates``, autoescaped."""
    return Environment(
        loader=PackageLoader("casino_coach.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def script_json(data: Any) -> Markup:
    """``data`` as JSON that is safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` are written
    as ``\\u`` escapes (JSON reads them back as the same characters), so no string can close it."""
    text = orjson.dumps(data).decode()
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


# ---------------------------------------------------------------------------------------------------
# Small pieces


def css_class(label: str) -> str:
    """The CSS class of a class label (``words.mark_label``)."""
    return {"not rated": "unrated", "not judged": "unrated", "all equal": "equal"}.get(label, label)


def _sym(c: int) -> str:
    return card_symbol(c)


def _syms(mask: int) -> list[str]:
    return [card_symbol(c) for c in iter_cards(mask)]


def _red(c: int) -> bool:
    return SUIT[c] in (1, 2)


def move_tokens(m: Move) -> list[tuple[str, bool]]:
    """The compact form of the move list as (text, red) pieces: "9♣×9♦5♠" captures, "3♥→8" builds
    8, "7♥" trails."""
    out = [(_sym(m.card), _red(m.card))]
    if m.action == CAPTURE:
        out.append(("×", False))
        out += [(_sym(c), _red(c)) for c in iter_cards(m.take)]
    elif m.action == BUILD:
        out.append((f"→{m.value}", False))
    return out


def move_data(m: Move) -> dict[str, Any]:
    """A move for the page's script: the card, the cards it takes or builds with, and its words."""
    action = "capture" if m.action == CAPTURE else ("build" if m.action == BUILD else "trail")
    return {
        "card": _sym(m.card),
        "action": action,
        "take": _syms(m.take),
        "value": m.value,
        "text": m.describe(),
    }


def _margin(points: Sequence[Points], side: int) -> float:
    """A side's points minus the mean of the other sides' (the analysis's values are such margins)."""
    others = [float(p) for s, p in enumerate(points) if s != side]
    return float(points[side]) - (sum(others) / len(others) if others else 0.0)


def scores_before(a: GameAnalysis) -> list[tuple[float, ...]]:
    """The game score per side before each round (one more entry than played-out rounds)."""
    out = [(0.0,) * a.nsides]
    for pts in a.round_points:
        out.append(tuple(x + float(p) for x, p in zip(out[-1], pts, strict=True)))
    return out


def _r2(x: float | None) -> float | None:
    return None if x is None else round(float(x), 2)


# ---------------------------------------------------------------------------------------------------
# The chart


def _step(span: float) -> float:
    """The step of a chart's grid: 0.5, or 1, 2 or 5 times a power of ten, the smallest that draws at
    most six steps over ``span``, however wide (a fixed largest step drew 100,000 lines over a
    game of 10**7 points)."""
    if not math.isfinite(span) or span <= 3.0:
        return 0.5
    power = 10.0 ** math.floor(math.log10(span / 6))
    return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if span / (m * power) <= 6)


Point = tuple[float, float, MoveAnalysis | None]  # x, value, the move (None: a square of the score)


def chart_data(a: GameAnalysis) -> dict[str, Any] | None:
    """The chart's geometry: x in percent of the width (per ply, ``xs``), y in pixels; the bands of
    the rounds, the value grid, one line per series, a dot per rated move, a square at each round's
    end. With two sides there is one series, the lead of the first side (of the viewer's, in a
    viewer log); otherwise one per side."""
    if not a.moves:
        return None
    before = scores_before(a)
    pov = _pov(a)
    series = [pov] if a.nsides == 2 else list(range(a.nsides))
    sides = side_names(a.players, a.nsides)
    x = _xs(a)
    last_of = _last_plies(a)
    pts: dict[int, list[Point]] = {s: [] for s in series}
    for m in a.moves:
        if not m.rated or m.played_value is None:
            continue
        for s in series:
            if m.side == s:
                v = m.played_value
            elif a.nsides == 2:
                v = -m.played_value
            else:
                continue
            pts[s].append((x(m.ply), _margin(before[m.round], s) + v, m))
    for r in range(len(a.round_points)):
        if r in last_of:
            for s in series:
                pts[s].append((x(last_of[r] + 0.5), _margin(before[r + 1], s), None))
    values = [v for p in pts.values() for _, v, _ in p]
    if not values:
        return None
    lo, hi = min(0.0, *values), max(0.0, *values)
    span = max(hi - lo, 1.0)
    lo, hi = lo - 0.08 * span, hi + 0.08 * span
    step = _step(hi - lo)
    grid = []
    v = math.ceil(lo / step) * step
    while v <= hi:
        grid.append((v, "0" if abs(v) < 1e-9 else f"{v:+g}", abs(v) < 1e-9))
        v += step
    if a.nsides == 2:
        other = sides[1 - pov]
        legend = [{"k": 0, "text": f"{sides[pov]}'s expected lead over {other}"}]
        caption = f"above 0: {sides[pov]} ahead; below 0: {other} ahead (game points)"
        shown = None
    else:
        # Issue 42: every side's line at once was a sawtooth, each point seen from a different side (a
        # move's value is its mover's, against the others together). One side at a time, chosen.
        legend = [
            {"k": k, "text": f"{sides[s]}: expected game score minus the others' mean"}
            for k, s in enumerate(series)
        ]
        caption = (
            "the chosen player's expected game score minus the others' mean (game points), after each of "
            "its own moves, as it could judge them"
        )
        shown = series.index(pov)
    geometry = _geometry(
        a,
        series,
        pts,
        (lo, hi),
        grid,
        square_tip=lambda s, pv: f"{sides[s]}: {pv:+.2f} after the round",
        dot_tip=lambda s, pv: f"{sides[s]} expected {pv:+.2f}",
        legend=legend,
        caption=caption,
        aria="expected game score after each move",
        shown=shown,
    )
    if shown is not None:
        geometry["pick"] = [{"k": k, "name": sides[s]} for k, s in enumerate(series)]
    return geometry


def win_chart_data(a: GameAnalysis) -> dict[str, Any] | None:
    """The chart of the chance to win the game (``coach.winning``; two sides): after each rated move
    the first side's (the viewer's) chance once the round is over, as the mover could judge it; a
    square at each round's start (the table's chance before the round) and at the end of a game
    that is won. None when no move has game chances (rules without a table, three or more sides)."""
    if a.nsides != 2 or not any(m.win is not None for m in a.moves):
        return None
    pov = _pov(a)
    sides = side_names(a.players, a.nsides)
    x = _xs(a)
    pts: list[Point] = []
    started: set[int] = set()
    for m in a.moves:
        if not m.rated or m.win is None:
            continue
        if m.round not in started:
            started.add(m.round)
            pts.append((x(m.ply - 0.5), 100 * m.win.round_start[pov], None))
        after = m.win.of(m.played)
        if after is not None:
            pts.append((x(m.ply), 100 * after[pov], m))
    last_of = _last_plies(a)
    if a.winner is not None and last_of:
        pts.append((x(last_of[max(last_of)] + 0.5), 100.0 if a.winner == pov else 0.0, None))
    grid = [(v, f"{v:g}%", v == 50) for v in (0.0, 25.0, 50.0, 75.0, 100.0)]
    other = sides[1 - pov]
    return _geometry(
        a,
        [pov],
        {pov: pts},
        (-6.0, 106.0),
        grid,
        square_tip=lambda s, pv: (
            f"{sides[s]}: {pv:.0f}% to win the game before the round"
            if 0 < pv < 100
            else f"{sides[s] if pv else other} won the game"
        ),
        dot_tip=lambda s, pv: f"{sides[s]} {pv:.0f}% to win the game once the round is over",
        legend=[{"k": 0, "text": f"{sides[pov]}'s chance to win the game"}],
        caption=f"above 50%: {sides[pov]} is the likelier winner of the game; below: {other} (from "
        f"{_table_source(a)}, each scored with the rules' count-out and near-target rules)",
        aria="chance to win the game after each move",
    )


def _table_source(a: GameAnalysis) -> str:
    """Where the game chances come from, in words: "10000 self-play rounds of the counter bot"."""
    table = table_for(a.rules, len(a.players))
    src = table.source if table is not None else {}
    if "rounds" in src and "bot" in src:
        return f"{src['rounds']} self-play rounds of the {src['bot']} bot"
    return "self-play rounds"


def _pov(a: GameAnalysis) -> int:
    """The side a two-side chart is drawn for: the viewer's, else the first."""
    return a.viewer % a.nsides if a.viewer is not None else 0


def _xs(a: GameAnalysis) -> Callable[[float], float]:
    n = max(m.ply for m in a.moves) + 1

    def x(ply: float) -> float:
        return round(_LEFT + (100.0 - _LEFT - _RIGHT) * (ply + 0.5) / n, 3)

    return x


def _last_plies(a: GameAnalysis) -> dict[int, int]:
    last_of: dict[int, int] = {}
    for m in a.moves:
        last_of[m.round] = m.ply
    return last_of


def _geometry(
    a: GameAnalysis,
    series: Sequence[int],
    pts: dict[int, list[Point]],
    bounds: tuple[float, float],
    grid_values: Sequence[tuple[float, str, bool]],
    *,
    square_tip: Callable[[int, float], str],
    dot_tip: Callable[[int, float], str],
    legend: list[dict[str, Any]],
    caption: str,
    aria: str,
    shown: int | None = None,
) -> dict[str, Any]:
    """A chart's geometry from its points per series and its value range (``bounds``, low and high)
    and grid lines (value, label, whether it is the line the values are read against); ``aria`` says
    what it shows to a screen reader. With ``shown`` (a series' index) the chart shows one series at
    a time, that one first (the others are ``off``), and the page offers them in a selector."""
    n = max(m.ply for m in a.moves) + 1
    x = _xs(a)
    short = [player_name(p) for p in a.players]
    lo, hi = bounds
    height = CHART_HEIGHT

    def y(v: float) -> float:
        return round(_TOP + (height - _TOP - _BOTTOM) * (hi - v) / (hi - lo), 1)

    grid = [{"y": y(v), "label": label, "zero": zero} for v, label, zero in grid_values]
    first_of: dict[int, int] = {}
    for m in a.moves:
        first_of.setdefault(m.round, m.ply)
    last_of = _last_plies(a)
    bands = []
    for r in sorted(first_of):
        x1, x2 = x(first_of[r] - 0.5), x(last_of[r] + 0.5)
        bands.append({"x": x1, "w": round(x2 - x1, 3), "label": f"round {r + 1}", "odd": r % 2 == 1})
    lines: list[dict[str, Any]] = []
    dots: list[dict[str, Any]] = []
    ends: list[dict[str, Any]] = []
    for k, s in enumerate(series):
        sp = sorted(pts[s], key=lambda p: p[0])
        for p, q in itertools.pairwise(sp):
            lines.append({"k": k, "x1": p[0], "y1": y(p[1]), "x2": q[0], "y2": y(q[1])})
        for px, pv, mv in sp:
            if mv is None:
                ends.append({"k": k, "x": px, "y": y(pv), "tip": square_tip(s, pv)})
                continue
            m = mv
            label = mark_label(m)
            basis = f", {loss_basis(m)}" + ("; the class is uncertain" if m.uncertain else "")
            tip = f"ply {m.ply}, {short[m.seat]}: {m.played.describe()} ({label}{basis}); {dot_tip(s, pv)}"
            big = label in ("mistake", "blunder")
            css = css_class(label) + (" big" if big else "") + _certainty(m)
            dots.append(
                {"k": k, "x": px, "y": y(pv), "r": 6 if big else 4, "css": css, "ply": m.ply, "tip": tip}
            )
    for item in (*lines, *ends, *dots, *legend):
        item["off"] = shown is not None and item["k"] != shown
    return {
        "height": height,
        "xs": [x(p) for p in range(n)],
        "grid": grid,
        "bands": bands,
        "lines": lines,
        "dots": dots,
        "ends": ends,
        "legend": legend,
        "caption": caption,
        "label": aria,
        "top": _TOP,
        "bottom": height - _BOTTOM + 4,
        "pick": [],
        "shown": shown,
    }


def certainty_css(m: MoveAnalysis) -> str:
    """``_certainty`` where a move has a verdict of its own (rated, not forced, with a loss): the move
    list's mark and the panel's class read filled, ring or dashed ring as the chart's dots do; "" for
    a move without one (not rated, not judged, forced), whose label stays as it is."""
    if not m.rated or m.forced or m.loss is None or m.not_judged:
        return ""
    return _certainty(m)


def _certainty(m: MoveAnalysis) -> str:
    """How a dot shows what its verdict rests on (issue 42: a blunder "over 16 worlds" had the same
    red dot as an exact 4.00): filled where the loss is exact, " est" (a ring) where it is an
    estimate (over sampled deals, or over every deal the player could face but resting on the
    search's estimate of the rest of the round or on its model of the others' play), " est unc" (a
    dashed ring) where its interval spans more than one class."""
    if m.uncertain:
        return " est unc"
    return "" if m.exact else " est"


# ---------------------------------------------------------------------------------------------------
# Per ply


def _pile(mask: int) -> dict[str, Any]:
    """A side's captured cards as the board shows them: how many, how many spades, and the cards that
    score by themselves (10♦, 2♠, the aces)."""
    items = [c for c in (BIG_CASINO, LITTLE_CASINO, *ACES_COUNT_OUT) if mask >> c & 1]
    return {"n": mask.bit_count(), "sp": (mask & SPADES_MASK).bit_count(), "items": [_sym(c) for c in items]}


def _table(loose: int, builds: Sequence[Build]) -> dict[str, Any]:
    return {
        "loose": _syms(loose),
        "builds": [
            {"cards": _syms(b.cards), "value": b.value, "owner": b.owner, "multiple": b.multiple}
            for b in builds
        ],
    }


def state_before(a: GameAnalysis, m: MoveAnalysis, last_capturer: int, dealer: int) -> RoundState:
    """The position before ``m`` as an engine state, as far as the analysis tells it (``m.view``): the
    hands hold the cards known (the mover's played card always), and more cards are to come where
    the stock or a hand holds cards not known, so that ``apply`` ends the round (and hands the rest
    of the table to the last capturer, rules.md 1.11) only where the round really ends. Without a
    view (an analysis made without the position) only the table and the mover's hand are known."""
    n = len(a.players)
    v = m.view
    bit = 1 << m.played.card
    if v is not None:
        hands = list(v.hands)
        hands[m.seat] |= bit
        more = v.stock > 0 or any(size > h.bit_count() for size, h in zip(v.hand_sizes, hands, strict=True))
        captured, sweeps = tuple(v.captured), tuple(v.sweeps)
    else:
        hands = [0] * n
        hands[m.seat] = (m.hand or 0) | bit
        more = True
        captured, sweeps = (0,) * a.nsides, (0,) * a.nsides
    return RoundState(
        tuple(hands), m.loose, m.builds, captured, sweeps, m.seat, last_capturer, 0, more, dealer, a.nsides
    )


def after_data(a: GameAnalysis, before: RoundState, m: MoveAnalysis, move: Move) -> dict[str, Any]:
    """The position after ``move`` from ``before`` (the engine's ``apply``): the table, the mover's
    hand (the cards known, and how many more it holds), and, where the analysis has the position,
    what each side took with the move (the residue too, when it ends the round), the mover's side's
    pile and sweeps."""
    after = apply(a.rules, before, move)
    hand = after.hands[m.seat]
    d: dict[str, Any] = {"table": _table(after.loose, after.builds), "hand": _syms(hand)}
    if m.view is not None:
        d["hidden"] = max(0, m.view.hand_sizes[m.seat] - 1 - hand.bit_count())
        d["took"] = [
            [s, _syms(after.captured[s] & ~before.captured[s])]
            for s in range(a.nsides)
            if after.captured[s] & ~before.captured[s]
        ]
        d["pile"] = _pile(after.captured[m.side])
        d["sweep"] = after.sweeps[m.side] > before.sweeps[m.side]
        d["end"] = after.is_over
    return d


def _why_best(m: MoveAnalysis, label: str) -> str:
    """What the page says of a move that lost nothing worth showing."""
    if label == "forced":
        return "The only legal move."
    if label == "all equal":
        return f"Every one of the {m.legal} legal moves is worth the same here."
    if m.loss is not None and m.best is not None and m.best != m.played and m.loss >= 0.005:
        return (
            f"As good as the best move ({m.best.describe()}) within the search's noise: {m.loss:.2f} behind."
        )
    return "The best move."


def ply_data(a: GameAnalysis, m: MoveAnalysis) -> dict[str, Any]:
    """One ply for the page's script: where it is, the position before it, the move and its rating."""
    label = mark_label(m)
    d: dict[str, Any] = {
        "ply": m.ply,
        "round": m.round,
        "deal": m.deal,
        "seat": m.seat,
        "side": m.side,
        "label": label,
        "css": css_class(label),
        "cert": certainty_css(m).strip(),
        "where": where(m),
        "played": move_data(m.played),
        "table": _table(m.loose, m.builds),
    }
    v = m.view
    if v is not None:
        d["hands"] = [_syms(h) for h in v.hands]
        d["sizes"] = list(v.hand_sizes)
        d["piles"] = [_pile(c) for c in v.captured]
        d["sweeps"] = list(v.sweeps)
        d["stock"] = v.stock
        d["scores"] = [float(x) for x in v.scores]
    else:  # an analysis made without the position: the mover's hand when known
        own = _syms(m.hand) if m.hand is not None else []
        d["hands"] = [own if s == m.seat else [] for s in range(len(a.players))]
        d["sizes"] = [len(h) for h in d["hands"]]
    if m.not_judged:
        d["note"] = f"Not judged: {m.not_judged}."
        return d
    if not m.rated:
        why = "the log does not give this hand" if m.hand is None else "the analysis rated other players only"
        d["note"] = f"Not rated: {why}."
        return d
    d["value"] = _r2(m.played_value)
    d["exact"] = m.exact
    game = win_words(m)
    if game is not None:
        d["game"] = game[0].upper() + game[1:] + "."
    disagree = game_verdict_words(m)
    if disagree is not None:
        d["gameVerdict"] = disagree + "."
    if m.missed and m.best is not None and m.loss is not None:
        d["best"] = move_data(m.best)
        d["bestValue"] = _r2(m.best_value)
        d["loss"] = round(m.loss, 2)
        d["basis"] = loss_basis(m) + (f"; {UNCERTAIN_WORDS}" if m.uncertain else "")
    else:
        d["note"] = _why_best(m, label)
    if m.headline is not None and (m.missed or m.game is not None):
        d["headline"] = printable(m.headline, SENTENCE_WIDTH)
    d["why"] = [[printable(e.text, SENTENCE_WIDTH), round(e.points, 2)] for e in m.explanations]
    if m.verdict is not None:
        d["verdict"] = printable(m.verdict.text)
    if m.verdict is None and m.world is not None and world_worth_showing(m, a.options.thresholds.inaccuracy):
        w = m.world
        text = f"On the cards actually held: {lost_words(w.loss)} ({w.cls.value})"
        if w.best != m.played and w.loss >= 0.005:
            text += f"; best there {w.best.describe()}"
        d["world"] = {"text": text, "css": w.cls.value}
    if len(m.alternatives) > 1:
        d["alts"] = [[alt.move.describe(), _r2(alt.value), alt.move == m.played] for alt in m.alternatives]
    return d


def drill_data(a: GameAnalysis, m: MoveAnalysis) -> dict[str, Any] | None:
    """The page's Drill at ``m``, a mistake or blunder (``DRILLED``), else None: the moves the
    analysis valued (its top moves and the move played), in the engine's order so that the order
    gives nothing away, each with its loss against the best, its class and the words the page shows
    once it is picked; and the skill the move played missed (``coach.skills``: its words, and its
    name as ``drill --skill`` takes it, by which the page's drill may be narrowed to one skill).
    Each move has the class ``analyze`` gives it (``AlternativeMove``); in an analysis saved before
    alternatives kept their class, another move than the one played is classed by its loss and the
    standard error of the move played."""
    if not m.rated or m.forced or m.cls not in DRILLED or m.best is None or m.best_value is None:
        return None
    th: Thresholds = a.options.thresholds
    judged: dict[Move, tuple[float, MoveClass]] = {}
    for alt in m.alternatives:
        if alt.loss is not None and alt.cls is not None:
            judged[alt.move] = (alt.loss, alt.cls)
        else:
            loss = max(0.0, m.best_value - alt.value)
            judged[alt.move] = (loss, th.classify(loss, 0.0 if m.exact else m.stderr, alt.move == m.best))
    if m.loss is not None and m.cls is not None:
        judged[m.played] = (m.loss, m.cls)
    best = m.best.describe()
    choices = []
    for mv in sorted(judged):
        loss, cls = judged[mv]
        right = cls == MoveClass.BEST
        if mv == m.best:
            words = f"Right: {mv.describe()}, the best move."
        elif right:
            words = f"Right: {mv.describe()}, as good as the best ({best}) within the noise."
        else:
            words = f"{mv.describe()}: {cls.value}, {loss:.2f} of margin behind the best, {best}."
        if mv == m.played:
            words += " It is the move played in the game."
        choices.append(
            {"move": move_data(mv), "loss": round(loss, 2), "cls": cls.value, "right": right, "words": words}
        )
    skill = skill_of(a.rules, len(a.players), m.seat, m.loose, m.builds, m.played, m.best, m.explanations)
    return {
        "choices": choices,
        "skill": skill.words if skill is not None else "",
        "skillKey": skill.value if skill is not None else "",
    }


def plies_data(a: GameAnalysis) -> list[dict[str, Any]]:
    """Every ply for the page's script (``ply_data``), with the position after the move played
    (``after``) and, where the page names a better move, after that move (``afterBest``): computed
    here with the engine, so that the page needs no rules of its own. The last capture of the round
    so far is followed through the moves, for the residue at the round's end."""
    out = []
    last, round_, dealer = -1, -1, 0
    for m in a.moves:
        if m.round != round_:
            round_, last = m.round, -1
            dealer = (m.seat - 1) % len(a.players)  # the round's first mover sits after the dealer
        d = ply_data(a, m)
        drill = drill_data(a, m)
        if drill is not None:
            d["drill"] = drill
        before = state_before(a, m, last, dealer)
        d["after"] = after_data(a, before, m, m.played)
        if "best" in d and m.best is not None:
            d["afterBest"] = after_data(a, before, m, m.best)
        if m.played.action == CAPTURE:
            last = m.side
        out.append(d)
    return out


# ---------------------------------------------------------------------------------------------------
# The page's parts


def move_list(a: GameAnalysis) -> list[dict[str, Any]]:
    """The compact move list in the order of play: per round, per deal, rows of one move per seat, the
    columns in the round's order of play (its first mover first; the dealer, and so the first mover,
    changes from round to round), so ply 0 stands top left and the plies read left to right, top to
    bottom. A row starts again when play comes back round to a column already filled."""
    n = len(a.players)
    sides = side_names(a.players, a.nsides)
    short = [player_name(p) for p in a.players]
    rounds: list[dict[str, Any]] = []
    order: list[int] = list(range(n))
    for m in a.moves:
        if not rounds or rounds[-1]["index"] != m.round:
            pts = a.round_points[m.round] if m.round < len(a.round_points) else None
            score = ", ".join(f"{sides[s]} {p:g}" for s, p in enumerate(pts)) if pts else ""
            near = near_target_values_words(a.rules, m.view.scores if m.view is not None else None, sides)
            order = [(m.seat + k) % n for k in range(n)]
            rounds.append(
                {
                    "index": m.round,
                    "label": f"Round {m.round + 1}",
                    "score": score,
                    "near": near,
                    "order": [{"seat": s, "name": short[s], "side": s % a.nsides} for s in order],
                    "deals": [],
                }
            )
        deals = rounds[-1]["deals"]
        if not deals or deals[-1]["index"] != m.deal:
            deals.append({"index": m.deal, "label": f"deal {m.deal + 1}", "rows": []})
        rows = deals[-1]["rows"]
        col = order.index(m.seat)
        if not rows or any(cell is not None for cell in rows[-1][col:]):
            rows.append([None] * n)
        label = mark_label(m)
        tip = f"ply {m.ply}, {short[m.seat]}: {m.played.describe()} ({label}"
        if m.missed and m.loss is not None:
            tip += f", {lost_words(m.loss)}, {loss_basis(m)}"
        tip += ")"
        rows[-1][col] = {
            "ply": m.ply,
            "css": css_class(label) + certainty_css(m),
            "mark": MARKS.get(label, ""),
            "tokens": move_tokens(m.played),
            "tip": tip,
        }
    return rounds


def summary_rows(a: GameAnalysis) -> list[dict[str, Any]]:
    """The summary as rows of figures, one column per player."""
    ss = a.summaries
    rows: list[dict[str, Any]] = [
        {"label": "Accuracy", "css": "key", "cells": [accuracy_words(s) for s in ss]},
        *(
            [{"label": "Accuracy for the game", "css": "", "cells": [accuracy_words(s, True) for s in ss]}]
            if any(s.game_accuracy is not None for s in ss)
            else []
        ),
        {"label": "Result (round margin)", "css": "", "cells": [f"{s.result:+.2f}" for s in ss]},
        {"label": "Luck of the deals", "css": "", "cells": [f"{s.luck_total:+.2f}" for s in ss]},
        {"label": "Luck-adjusted", "css": "", "cells": [f"{s.luck_adjusted:+.2f}" for s in ss]},
        {"label": "Margin lost", "css": "", "cells": [f"{s.loss_total:.2f}" for s in ss]},
        {"label": "Lost per decision", "css": "", "cells": [f"{s.loss_per_decision:.3f}" for s in ss]},
        {"label": "Moves rated", "css": "", "cells": [str(s.moves) for s in ss]},
        {"label": "Unforced", "css": "", "cells": [str(s.unforced) for s in ss]},
    ]
    if any(s.not_judged for s in ss):
        rows.append({"label": "Not judged", "css": "", "cells": [str(s.not_judged) for s in ss]})
    for c in CLASSES:
        rows.append(
            {
                "label": c.value,
                "css": f"cls-row {c.value}",
                "cls": c.value,
                "mark": MARKS.get(c.value, ""),
                "cells": [str(s.classes[c.value]) for s in ss],
            }
        )
    return rows


# Items of a round's breakdown: key in RoundScore.breakdown, words, the raw count shown beside it.
_ITEMS = (
    ("cards", "Most cards", "card_count"),
    ("spades", "Most spades", "spade_count"),
    ("big_casino", "Big Casino 10♦", ""),
    ("little_casino", "Little Casino 2♠", ""),
    ("aces", "Aces", ""),
    ("sweeps", "Sweeps", "sweep_count"),
    ("last_capture", "Last capture", ""),
)
_ACE_SYMBOLS = {"ace_spades": "A♠", "ace_clubs": "A♣", "ace_hearts": "A♥", "ace_diamonds": "A♦"}


def round_tables(a: GameAnalysis) -> list[dict[str, Any]]:
    """Each played-out round's score: per scoring item the points of each side (with the counts), the
    round's points and the game score after it. Sweeps appear only under rules that score them, the
    last capture only where it is worth a point."""
    rules = a.rules
    counted = {
        "cards": rules.points_cards > 0,
        "spades": rules.points_spades > 0,
        "big_casino": rules.points_big > 0,
        "little_casino": rules.points_little > 0,
        "aces": rules.points_ace > 0,
        "sweeps": rules.sweeps and rules.points_sweep > 0,
        "last_capture": rules.last_capture_point > 0,
    }
    before = scores_before(a)
    sides = side_names(a.players, a.nsides)
    out = []
    for r, pts in enumerate(a.round_points):
        rows: list[dict[str, Any]] = []
        if r < len(a.round_scores):
            rs = a.round_scores[r]
            aces: list[list[str]] = [[] for _ in range(a.nsides)]
            for award in rs.awards:
                if award.item in _ACE_SYMBOLS:
                    aces[award.side].append(_ACE_SYMBOLS[award.item])
            for key, words, count in _ITEMS:
                if not counted[key]:
                    continue
                cells = []
                for side, b in enumerate(rs.breakdown):
                    extra = str(b.get(count, "")) if count else ""
                    if key == "aces":
                        extra = " ".join(aces[side])
                    extra = f"({extra})" if extra else ""
                    cells.append({"pts": f"{b.get(key, 0):g}", "extra": extra, "won": bool(b.get(key, 0))})
                rows.append({"label": words, "cells": cells})
        out.append(
            {
                "label": f"Round {r + 1}",
                "rows": rows,
                "points": [f"{p:g}" for p in pts],
                "after": [f"{p:g}" for p in before[r + 1]],
                "notes": near_target_notes(rules, before[r], sides) if r < len(a.round_scores) else [],
            }
        )
    return out


def result_words(a: GameAnalysis) -> str:
    """The game's result: who won and the final score, or where a game in progress stands."""
    sides = side_names(a.players, a.nsides)
    totals = [float(t) for t in a.totals] if a.totals else list(scores_before(a)[-1])
    score = " – ".join(f"{sides[s]} {t:g}" for s, t in enumerate(totals))
    played = len(a.round_points)
    rounds = f"{played} round{'s' if played != 1 else ''}"
    if a.winner is not None:
        w = sides[a.winner]
        verb = "win" if " & " in w else "wins"
        return f"{w} {verb} the game after {rounds}: {score}."
    last = a.moves[-1] if a.moves else None
    if last is not None and last.round >= played:
        head = f"A game in progress: the log stops in {where(last)}"
        return f"{head}. Score after {rounds}: {score}." if played else f"{head}, before any round is scored."
    return f"No winner yet after {rounds} (the game goes to {a.rules.target}): {score}."


def page_context(a: GameAnalysis) -> dict[str, Any]:
    """Everything the page template needs."""
    sides = side_names(a.players, a.nsides)
    # A name appears on the page as on the terminal (formats.text.player_name): control characters
    # escaped, cut to 40 characters; the page escapes what is left.
    names = [player_name(p) for p in a.players]
    chart = chart_data(a)
    worst = [
        {
            "ply": m.ply,
            "where": where(m),
            "player": player_name(a.players[m.seat]),
            "move": m.played.describe(),
            "best": m.best.describe() if m.best is not None else "",
            "css": css_class(mark_label(m)),
            "label": mark_label(m),
            "cert": certainty_css(m),
            "basis": loss_basis(m) if m.loss is not None else "",
            "loss": f"{m.loss:.2f}" if m.loss is not None else "",
        }
        for m in a.worst()
    ]
    data = {
        "players": names,
        "sides": sides,
        "margins": [side_margin_words(sides, s) for s in range(a.nsides)],
        "nsides": a.nsides,
        "viewer": a.viewer,
        "xs": chart["xs"] if chart else [],
        "sweepsScore": bool(a.rules.sweeps and a.rules.points_sweep),
        "plies": plies_data(a),
    }
    return {
        "title": f"Game analysis: {' vs '.join(names)} ({a.rules.describe()})",
        "players": names,
        "sides": sides,
        "seat_sides": [s % a.nsides for s in range(len(names))],
        # The player the N / P keys jump between at first: the viewer in a viewer log, else the first.
        "jump_seat": a.viewer if a.viewer is not None else 0,
        "viewer": names[a.viewer] if a.viewer is not None else None,
        "settings": settings_words(a),
        "margin": analysis_margin_words(a),
        "result": result_words(a),
        "summary": summary_rows(a),
        "luck": [{"player": player_name(s.player), "words": luck_words(s)} for s in a.summaries if s.luck],
        "worst": worst,
        "chart": chart,
        "win_chart": win_chart_data(a),
        "moves": move_list(a),
        "rounds": round_tables(a),
        "classes": [c.value for c in CLASSES],
        "marks": MARKS,
        "data": script_json(data),
    }


def page(a: GameAnalysis) -> str:
    """The review page of ``a``: one self-contained HTML file (no script, font or image from
    anywhere else)."""
    return environment().get_template("review.html.j2").render(page_context(a))


def chart(a: GameAnalysis) -> str:
    """The chart alone (``chart.svg.j2``), as the page draws it."""
    return environment().get_template("chart.svg.j2").render(chart=chart_data(a))
