"""Analysis reports: a ``GameAnalysis`` as JSON, Markdown or one self-contained HTML page.

The report is the analysis itself (data first); this module only chooses a format (``ReportFormat``).
The JSON form is a contract like replay-format.md: per move ``ply``, ``seat``, ``played``, ``best`` (move
objects as in replay-format.md), ``loss``, ``class``, ``headline`` (the move in one sentence),
``explanations`` (each ``text`` and ``points``: the headline's detail) and ``exact``, and a
``summary`` per seat; other fields may be added, never renamed. Every value,
loss and explanation's ``points`` is a margin (``value_unit``): the mover's side's round points minus
the mean of the other sides', so a point that goes to another side moves it by ``margin_scale``.

The HTML page is a review page to step through (``casino_coach.report.review``, from the Jinja2
templates in ``templates/``), with no external resource at all — inline CSS, SVG and script — so it
opens offline and can be mailed as one file. The words the formats share are in ``words``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from casino_coach.coach.analysis import (
    AlternativeMove,
    AnalysisOptions,
    DealLuck,
    GameAnalysis,
    MoveAnalysis,
    PositionView,
    SeatSummary,
)
from casino_coach.coach.assessment import WorldCost
from casino_coach.coach.classes import CLASSES, MoveClass, Thresholds
from casino_coach.coach.explain import Explanation
from casino_coach.coach.verdict import GameVerdict, analysis_limits, game_class_json, leaf_used
from casino_coach.coach.winning import WinChances
from casino_coach.engine.cards import card_name, iter_cards, mask_symbols
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import table_words
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Award, RoundScore
from casino_coach.engine.state import Build
from casino_coach.errors import CoachError, LogError, shown
from casino_coach.formats import jsonio
from casino_coach.formats.codec import move_from_json, move_to_json, read_cards
from casino_coach.formats.text import markdown, side_names
from casino_coach.report import ReportFormat
from casino_coach.report.words import (
    accuracy_words,
    analysis_margin_words,
    game_verdict_words,
    loss_words,
    lost_words,
    luck_words,
    margin_scale,
    mark_label,
    near_target_values_words,
    settings_words,
    where,
    win_words,
    world_worth_showing,
)
from casino_coach.search.leaf import HANDMADE

FORMAT_NAME = "casino-analysis"
FORMAT_VERSION = 1


def render(analysis: GameAnalysis, fmt: ReportFormat) -> bytes:
    """The report in format ``fmt``, as the bytes of the file to write. Every format is rendered
    from the analysis as its JSON document keeps it (``normalized``), so that a report made from a
    saved document (``export --from``) is the report made from the analysis itself."""
    if fmt is ReportFormat.JSON:
        return orjson.dumps(normal_obj(analysis), option=orjson.OPT_INDENT_2) + b"\n"
    analysis = normalized(analysis)
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
        "alternatives": [
            {
                "move": move_to_json(alt.move, m.seat),
                "value": _r(alt.value),
                "loss": _r(alt.loss),
                "class": alt.cls.value if alt.cls is not None else None,
            }
            for alt in m.alternatives
        ],
        "table": {"loose": _names(m.loose), "builds": [_build_obj(b) for b in m.builds]},
        "hand": _names(m.hand) if m.hand is not None else None,
        "samples": m.samples,
        "worlds": m.samples,
        "loss_interval": [_r(m.loss_low), _r(m.loss_high)] if m.rated else None,
        "uncertain": m.uncertain,
        "shallow": m.shallow,
        "round_end": m.round_end,
        "enumerated": m.enumerated,
        "position": _position_obj(m.view),
        "win_chance": _win_obj(m),
        "game_verdict": game_verdict_words(m),
        "game_class": _game_class_obj(m),
        "not_judged": m.not_judged,
        "headline": m.headline,
    }


def _win_obj(m: MoveAnalysis) -> dict[str, Any] | None:
    """``win_chance_obj``, and the chances after the move best for the game where it is neither the
    best move nor the one played (``game_best``: the reports name them, ``from_obj`` reads them)."""
    out = win_chance_obj(m.win, m.best, m.played, m.side)
    if out is not None and m.win is not None and m.game is not None and m.game.best not in (m.best, m.played):
        after = m.win.of(m.game.best)
        out["game_best"] = [_r(p, 4) for p in after] if after is not None else None
    return out


def _game_class_obj(m: MoveAnalysis) -> dict[str, Any] | None:
    """``game_class_json``, with what the reports' words rest on besides: how much more chance of the
    game the move played leaves than the round's best (``ahead``) and whether the moves differ for
    the game at all (``differs``)."""
    out = game_class_json(m.game, m.seat)
    if out is not None and m.game is not None:
        out |= {"ahead": round(m.game.ahead, 4), "differs": m.game.differs}
    return out


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
        # from the chances as written, so that the document reads back to the same figure
        out["lost"] = _r(round(after_best[side], 4) - round(after_played[side], 4), 4)
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
        "sides": a.nsides,
        "value_unit": "margin",
        "margin_scale": margin_scale(a.nsides),
        "settings": {
            "samples": lim.samples,
            "min_samples": lim.min_samples,
            "exact_worlds": lim.exact_worlds,
            "shuffled": lim.shuffled,
            "nodes": lim.nodes,
            "depth": lim.depth,
            "seed": lim.seed,
            "evidence": False,
            "world": a.options.world,
            "leaf": leaf_used(a.rules, len(a.players), a.nsides, lim),
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
        out["awards"] = [{"item": w.item, "side": w.side, "points": w.points} for w in rs.awards]
    return out


def to_json(a: GameAnalysis) -> bytes:
    return orjson.dumps(to_obj(a), option=orjson.OPT_INDENT_2) + b"\n"


# ---------------------------------------------------------------------------------------------------
# Reading a document back: the converse of ``to_obj``, so that a saved ``analyze --json`` renders as
# the analysis did, without a search (``export --from``). Values come back as the document rounds them.


def normalized(a: GameAnalysis) -> GameAnalysis:
    """The analysis as its document keeps it: its values rounded as ``to_obj`` writes them, and
    what the reports do not show (each move's time, the chances after moves no report names) left
    out. A normalized analysis is its own normal form."""
    return from_obj(to_obj(a))


def normal_obj(a: GameAnalysis) -> dict[str, Any]:
    """``to_obj(normalized(a))``, without reading the whole document back: every field of the
    document but one reads back to itself, so only the words on the game's verdict
    (``game_verdict_words``, from values the document rounds) are said again from the move as read
    back, on the moves that have a verdict for the game and chances (reading every move back took
    0.04 s of a 2-player game's ``analyze --json``)."""
    obj = to_obj(a)
    for m, mo in zip(a.moves, obj["moves"], strict=True):
        if m.game is not None and m.win is not None:
            mo["game_verdict"] = game_verdict_words(_move_from(mo))
    return obj


def read_analysis(source: bytes | str | Path) -> GameAnalysis:
    """The analysis in a casino-analysis file (or its bytes); LogError saying where and why when it
    is not one this reader can read."""
    return from_obj(jsonio.loads(source if isinstance(source, bytes) else jsonio.read_bytes(source)))


def from_obj(obj: Any) -> GameAnalysis:
    """A ``GameAnalysis`` from its JSON data (``to_obj``)."""
    if isinstance(obj, list):
        raise LogError(
            f"a JSON array of {len(obj)} items, not one analysis (analyze of several logs writes an "
            "array: save one log's analysis)"
        )
    if not isinstance(obj, dict):
        raise LogError(f'expected a JSON object with "format": "{FORMAT_NAME}", got {shown(obj)}')
    fmt = obj.get("format")
    if fmt != FORMAT_NAME:
        hint = ": give the log itself, without --from" if fmt == "casino-replay" else ""
        raise LogError(f"format: {shown(fmt)}, not an analysis (expected {FORMAT_NAME}){hint}")
    if obj.get("version") != FORMAT_VERSION or isinstance(obj.get("version"), bool):
        raise LogError(
            f"version: unknown {FORMAT_NAME} version {shown(obj.get('version'))}, this reader knows 1"
        )
    where = "the analysis"
    try:
        where = "rules"
        rules = RuleSet.from_dict(obj["rules"])
        where = "players"
        players = tuple(_text(p) for p in obj["players"])
        where = "settings"
        options = _options_from(obj["settings"])
        moves = []
        for i, m in enumerate(obj["moves"]):
            where = f"moves[{i}]"
            moves.append(_move_from(m))
        summaries_read = []
        for i, s in enumerate(obj["summary"]):
            where = f"summary[{i}]"
            summaries_read.append(_summary_from(s))
        summaries = tuple(summaries_read)
        where = "rounds"
        rounds = [(tuple(float(x) for x in r["points"]), _round_score_from(r)) for r in obj["rounds"]]
        where = "totals"
        totals = tuple(_number(x) for x in obj["totals"])
        winner = obj["winner"]
        nsides = obj.get("sides") or 1 + max([s.side for s in summaries] + [m.side for m in moves])
        return GameAnalysis(
            rules,
            players,
            _optional_int(obj["viewer"]),
            int(nsides),
            options,
            tuple(moves),
            summaries,
            tuple(points for points, _ in rounds),
            float(obj.get("seconds") or 0.0),
            tuple(score for _, score in rounds if score is not None),
            totals,
            _optional_int(winner),
        )
    except KeyError as e:
        raise LogError(f"{where}: the field {shown(e.args[0])} is missing") from None
    except (TypeError, ValueError, AttributeError, IndexError) as e:
        if isinstance(e, CoachError):
            raise LogError(f"{where}: {e}") from None
        raise LogError(f"{where}: a field of the wrong kind: {e}") from None


def _text(x: Any) -> str:
    if not isinstance(x, str):
        raise TypeError(f"expected a text, got {shown(x)}")
    return x


def _number(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise TypeError(f"expected a number, got {shown(x)}")
    return x


def _optional(x: Any) -> float | None:
    return None if x is None else _number(x)


def _optional_int(x: Any) -> int | None:
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"expected a whole number, got {shown(x)}")
    return x


def _options_from(s: Mapping[str, Any]) -> AnalysisOptions:
    th = s["thresholds"]
    base = analysis_limits(int(s["samples"]), int(s["seed"]), s["depth"])
    limits = dataclasses.replace(
        base,
        min_samples=int(s["min_samples"]),
        nodes=s["nodes"],
        nodes_four=None,  # the nodes saved are those of the game's players
        depth=s["depth"],
        exact_worlds=int(s.get("exact_worlds", base.exact_worlds)),
        # An analysis saved before worlds were taken without replacement drew them all.
        shuffled=bool(s.get("shuffled", False)),
        # An analysis saved before the settings named the leaf was made with the handmade one.
        leaf=str(s.get("leaf", HANDMADE)),
    )
    thresholds = Thresholds(
        inaccuracy=_number(th["inaccuracy"]),
        mistake=_number(th["mistake"]),
        blunder=_number(th["blunder"]),
        best=_number(th["best"]),
        noise=_number(th["noise"]),
    )
    return AnalysisOptions(limits=limits, thresholds=thresholds, world=bool(s["world"]))


def _move(obj: Any, where: str) -> Move:
    return move_from_json(obj, where)[1]


def _move_from(m: Mapping[str, Any]) -> MoveAnalysis:
    """One move of the document (``move_obj``)."""
    played = _move(m["played"], "played")
    best = _move(m["best"], "best") if m["best"] is not None else None
    world = m["world"]
    interval = m["loss_interval"] or [0.0, 0.0]
    table = m["table"]
    return MoveAnalysis(
        ply=int(m["ply"]),
        round=int(m["round"]),
        deal=int(m["deal"]),
        move_index=int(m["move_index"]),
        seat=int(m["seat"]),
        side=int(m["side"]),
        played=played,
        rated=bool(m["rated"]),
        loose=read_cards(table["loose"], "table"),
        builds=tuple(
            Build(read_cards(b["cards"], "build"), int(b["value"]), int(b["owner"]), bool(b["multiple"]))
            for b in table["builds"]
        ),
        hand=read_cards(m["hand"], "hand") if m["hand"] is not None else None,
        best=best,
        played_value=_optional(m["played_value"]),
        best_value=_optional(m["best_value"]),
        loss=_optional(m["loss"]),
        stderr=_number(m["stderr"]),
        cls=MoveClass(m["class"]) if m["class"] is not None else None,
        forced=bool(m["forced"]),
        exact=bool(m["exact"]),
        legal=int(m["legal"]),
        explanations=tuple(
            Explanation(_text(e["kind"]), _text(e["text"]), _number(e["points"])) for e in m["explanations"]
        ),
        alternatives=tuple(
            AlternativeMove(
                _move(a["move"], "alternatives"),
                _number(a["value"]),
                _optional(a.get("loss")),
                MoveClass(a["class"]) if a.get("class") is not None else None,
            )
            for a in m["alternatives"]
        ),
        world=None
        if world is None
        else WorldCost(
            best=_move(world["best"], "world"),
            best_value=_number(world["best_value"]),
            played_value=_number(world["played_value"]),
            loss=_number(world["loss"]),
            cls=MoveClass(world["class"]),
        ),
        verdict=Explanation(_text(m["verdict"]["kind"]), _text(m["verdict"]["text"]), 0.0)
        if m["verdict"]
        else None,
        samples=int(m["samples"]),
        loss_low=_number(interval[0]),
        loss_high=_number(interval[1]),
        shallow=bool(m["shallow"]),
        round_end=bool(m.get("round_end", False)),
        # An analysis saved before the field: every world was searched where a rated move's interval had
        # no width.
        enumerated=bool(
            m.get("enumerated", m["loss_interval"] and interval[1] - interval[0] < 0.005 and not m["exact"])
        ),
        uncertain=bool(m["uncertain"]),
        view=_view_from(m["position"]),
        win=_win_from(m["win_chance"], best, played, m["game_class"]),
        game=_game_from(m["game_class"]),
        not_judged=m["not_judged"],
        headline=_text(m["headline"]) if m.get("headline") is not None else None,
    )


def _view_from(v: Mapping[str, Any] | None) -> PositionView | None:
    if v is None:
        return None
    return PositionView(
        hands=tuple(read_cards(h, "position") for h in v["hands"]),
        hand_sizes=tuple(int(n) for n in v["hand_sizes"]),
        captured=tuple(read_cards(c, "position") for c in v["captured"]),
        sweeps=tuple(int(n) for n in v["sweeps"]),
        stock=int(v["stock"]),
        scores=tuple(_number(x) for x in v["scores"]),
    )


def _chances(x: Any) -> tuple[float, ...] | None:
    return None if x is None else tuple(_number(p) for p in x)


def _win_from(
    w: Mapping[str, Any] | None, best: Move | None, played: Move, game: Mapping[str, Any] | None
) -> WinChances | None:
    """The chances the document gives: after the best move, the move played and the move best for
    the game (the only ones a report names)."""
    if w is None:
        return None
    after: list[tuple[Any, tuple[float, ...]]] = []
    for move, chances in (
        (best, _chances(w["best"])),
        (played, _chances(w["played"])),
        (_move(game["best"], "game_class") if game else None, _chances(w.get("game_best"))),
    ):
        if move is not None and chances is not None and all(m != move for m, _ in after):
            after.append((move, chances))
    start = _chances(w["round_start"])
    return WinChances(start if start is not None else (), tuple(after))


def _game_from(g: Mapping[str, Any] | None) -> GameVerdict | None:
    if g is None:
        return None
    low, high = g["lost_interval"]
    return GameVerdict(
        best=_move(g["best"], "game_class"),
        lost=_number(g["lost"]),
        low=_number(low),
        high=_number(high),
        cls=MoveClass(g["class"]),
        uncertain=bool(g["uncertain"]),
        ahead=_number(g.get("ahead", 0.0)),
        differs=bool(g.get("differs", True)),
    )


def _summary_from(s: Mapping[str, Any]) -> SeatSummary:
    return SeatSummary(
        seat=int(s["seat"]),
        player=_text(s["player"]),
        side=int(s["side"]),
        moves=int(s["moves"]),
        unforced=int(s["unforced"]),
        classes={_text(k): int(v) for k, v in s["classes"].items()},
        loss_total=_number(s["loss_total"]),
        loss_per_decision=_number(s["loss_per_decision"]),
        accuracy=_optional(s["accuracy"]),
        luck=tuple(DealLuck(int(x["round"]), int(x["deal"]), _number(x["points"])) for x in s["luck"]),
        luck_total=_number(s["luck_total"]),
        result=_number(s["result"]),
        luck_adjusted=_number(s["luck_adjusted"]),
        not_judged=int(s.get("not_judged", 0)),
        game_accuracy=_optional(s.get("game_accuracy")),
    )


def _round_score_from(r: Mapping[str, Any]) -> RoundScore | None:
    """A played-out round's score, as far as the reports use it (``_round_obj``)."""
    if "breakdown" not in r:
        return None
    breakdown = tuple({_text(k): _number(v) for k, v in b.items()} for b in r["breakdown"])
    return RoundScore(
        awards=tuple(
            Award(_text(w["item"]), int(w["side"]), _number(w["points"])) for w in r.get("awards", ())
        ),
        card_counts=tuple(int(b.get("card_count", 0)) for b in breakdown),
        spade_counts=tuple(int(b.get("spade_count", 0)) for b in breakdown),
        sweep_counts=tuple(int(n) for n in r["sweeps"]),
        points=tuple(_number(x) for x in r["points"]),
        breakdown=breakdown,
    )


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
            head += f"; on the cards actually held: {lost_words(m.world.loss)} ({m.world.cls.value})"
    elif m.not_judged:
        head += f" — *not judged*: {m.not_judged}"
    lines = [
        head,
        f"  - table: {table_words(m.loose, m.builds)}"
        + (f"; hand: {mask_symbols(m.hand)}" if m.hand is not None else ""),
    ]
    if m.headline is not None and (m.missed or m.game is not None):
        lines.append(f"  - **{markdown(m.headline)}**")
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
        analysis_margin_words(a),
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
        "Lost: the expected margin lost against the search's best move. Result: the margin of the "
        "rounds played. Accuracy: "
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
    "from_obj",
    "move_obj",
    "normal_obj",
    "normalized",
    "read_analysis",
    "render",
    "summary_obj",
    "to_html",
    "to_json",
    "to_markdown",
    "to_obj",
]
