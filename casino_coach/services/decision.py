"""A decision to search, as the commands get one: the position before a move of a log (or where it
stops), a position file's, or one typed in the compact notation (``TypedPosition``); its assessment
(``suggest``: ``coach.assessment.assess``, once); and the JSON answer ``suggest --json`` gives for it
(replay-format.md).

Errors name the file they come from (``errors.about``) and say what is wrong (``CoachError``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casino_coach.coach.assessment import Assessment, Decision, Settings, assess
from casino_coach.coach.classes import Thresholds
from casino_coach.coach.verdict import analysis_limits, verdict_json
from casino_coach.coach.winning import GameEdge, WinChances
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import parse_hand, parse_table
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import PLAYER_COUNTS, sides_for
from casino_coach.errors import CoachError, about, quoted
from casino_coach.formats import jsonio
from casino_coach.formats.codec import move_to_json, parse_options
from casino_coach.formats.log import GameLog
from casino_coach.formats.position import Pieces, check_scores, read_any
from casino_coach.formats.replay import end_position, position_at, replay_log
from casino_coach.frozen import Frozen
from casino_coach.report.words import disagreement_words, margin_scale
from casino_coach.search import Limits


@dataclass(frozen=True)
class Query(Frozen):
    """A decision as ``suggest`` and ``tree`` are asked about it: the decision (``Decision``: with
    the move the log plays there, None past the end of the log or for a position), its ply in the
    log (None for a typed position, or a position file without one), and whether it was typed on the
    command line (the seat to move is then "you")."""

    decision: Decision
    ply: int | None = None
    typed: bool = False


@dataclass(frozen=True)
class TypedPosition(Frozen):
    """A position typed in the compact notation (rules.md, notation.py), as ``suggest`` takes it: the
    hand of the seat to move and the table (``[CARDS =VALUE @SEAT]`` for a build), the rules (a preset
    and its options), the players, the seat to move, the cards each seat holds ("2,2"; default: as
    many as the hand), the cards still to deal, the cards out of play, each side's captured cards,
    the side that captured last, the game score per side before the round ("15,18": the chances to
    win the game too) and the dealer."""

    hand: str
    table: str = ""
    preset: str = "classic"
    options: tuple[str, ...] = ()
    players: int = 2
    to_move: int = 0
    hand_sizes: str | None = None
    stock: int = 0
    seen: str = ""
    captured: tuple[str, ...] = ()
    last_capture: int | None = None
    scores: str | None = None
    dealer: int | None = None


@dataclass(frozen=True)
class Effort(Frozen):
    """The search effort ``suggest`` and ``tree`` are given: the analysis's limits
    (``analysis_limits``, for the decision's number of players), so that ``suggest --at N`` judges
    move N as ``analyze`` does, with the samples, seed, time and depth given."""

    samples: int | None = None
    seed: int = 0
    time: float | None = None
    depth: int | None = None

    def limits(self) -> Limits:
        base = analysis_limits(self.samples, self.seed, self.depth)
        return dataclasses.replace(base, time=self.time) if self.time is not None else base


@dataclass(frozen=True)
class Suggestion(Frozen):
    """What ``suggest`` finds: the decision asked about and its assessment."""

    query: Query
    assessment: Assessment


def suggest(
    source: Path | TypedPosition,
    *,
    at: int | None = None,
    effort: Effort = Effort(),
    thresholds: Thresholds = Thresholds(),
    record: bool = False,
    runner_up: bool = False,
) -> Suggestion:
    """The decision of ``source`` (a log, before move ``at`` or where it stops, or a position file;
    or a typed position) and its assessment with ``effort`` and ``thresholds`` (``record``: keep
    the search tree; ``runner_up``: explain what the runner-up loses). A position too big to search
    names the file it came from."""
    path = source if isinstance(source, Path) else None
    query = decision_from_file(source, at) if isinstance(source, Path) else typed_decision(source)
    settings = Settings(effort.limits(), thresholds, record=record, runner_up=runner_up)
    with about(path):
        return Suggestion(query, assess(query.decision, settings))


def decision_from_file(path: Path, at: int | None) -> Query:
    """The decision before move ``at`` of a log (default: where it stops), or a position file's."""
    with about(path):
        doc = read_any(path)
    if isinstance(doc, GameLog):
        with about(path):
            rep = replay_log(doc)
        n = len(rep.plies)
        if at is None or at == n:
            with about(path):  # "FILE: the log stops between rounds: ..."
                end = end_position(rep)
            decision = Decision(doc.rules, end.observation, None, end.scores, tuple(doc.players))
            return Query(decision, n)
        if not 0 <= at < n:
            raise CoachError(f"{path}: --at {at}: the log has {n} moves, so N goes from 0 to {n}")
        at_ply = rep.plies[at]
        with about(path):  # "FILE: round 1, deal 1, move 1 (ply 0), seat 1: the hand of seat 1 ..."
            pos = position_at(doc, at_ply)
        return Query(Decision(doc.rules, pos.observation, at_ply.move, pos.scores, tuple(doc.players)), at)
    if at is not None:
        raise CoachError(f"--at: {path} is a position, not a log")
    return Query(Decision(doc.rules, doc.observation, scores=doc.scores), _position_ply(path))


def _position_ply(path: Path) -> int | None:
    """The optional ``ply`` field of a position file (read_any has checked the rest)."""
    try:
        obj = jsonio.loads(jsonio.read_bytes(path))
    except (OSError, CoachError):
        return None
    ply = obj.get("ply") if isinstance(obj, dict) else None
    return ply if isinstance(ply, int) and not isinstance(ply, bool) and ply >= 0 else None


def _int_list(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise CoachError(f"{what}: expected whole numbers separated by commas, got {quoted(text)}") from None


def typed_decision(typed: TypedPosition) -> Query:
    """The decision of a position typed in the compact notation; with its ``scores`` (the game score
    per side before the round, "15,18") the chances to win the game too."""
    rules = RuleSet.from_dict({"preset": typed.preset, **parse_options(list(typed.options))})
    players, to_move = typed.players, typed.to_move
    nsides = sides_for(players, rules.partnerships) if players in PLAYER_COUNTS else players
    loose, builds = parse_table(
        typed.table, pair_value=rules.pair_value, default_owner=(to_move + 1) % max(players, 1)
    )
    sizes = _int_list(typed.hand_sizes, "--hand-sizes") if typed.hand_sizes is not None else None
    piles = [parse_hand(c) for c in typed.captured] if typed.captured else None
    if piles is not None and len(piles) != nsides:
        raise CoachError(f"--captured: give one pile per side ({nsides}), in side order")
    pieces = Pieces(
        players,
        to_move,
        parse_hand(typed.hand),
        loose,
        tuple(builds),
        hand_sizes=tuple(sizes) if sizes is not None else None,
        stock=typed.stock,
        seen=parse_hand(typed.seen),
        captured=tuple(piles) if piles is not None else None,
        last_capture=-1 if typed.last_capture is None else typed.last_capture,
        partnerships=rules.partnerships,
        dealer=typed.dealer,
    )
    obs = pieces.observation(rules)
    game: tuple[Points, ...] | None = None
    if typed.scores is not None:
        game = tuple(_int_list(typed.scores, "--scores"))
        if len(game) != obs.nsides or min(game) < 0:
            raise CoachError(f"--scores: give one score from 0 up per side ({obs.nsides}), in side order")
        check_scores(rules, game, "--scores")
    return Query(Decision(rules, obs, scores=game), typed=True)


def _number(x: float) -> float:
    if not math.isfinite(x):
        raise CoachError("the search produced a value that is not a finite number")
    return round(x, 4)


def shown_chances(a: Assessment, top: int | None) -> WinChances | None:
    """The game chances of the moves a suggestion lists (the ``top`` best, and the move the log plays
    there); None for a typed position without a game score, or rules without a table."""
    if a.chances is None:
        return None
    moves = a.result.moves if top is None else a.result.moves[:top]
    shown = {mv.move for mv in moves} | {a.decision.played}
    return WinChances(a.chances.round_start, tuple((m, c) for m, c in a.chances.after if m in shown))


def played_game_words(a: Assessment) -> str | None:
    """What ``analyze`` says of the move the log plays here when the game and the round disagree on it
    (``report.words.disagreement_words``: "Right for the round, wrong for the game: ..."), from the
    chances after the round's best, the move played and the move best for the game."""
    d, v = a.decision, a.verdict
    if v is None or v.game is None or d.played is None or d.scores is None:
        return None
    side = d.obs.to_move % d.obs.nsides
    return disagreement_words(
        v.game,
        a.chances,
        side,
        played_move=d.played,
        best_move=v.best,
        loss=v.loss,
        cls=v.cls,
        forced=v.forced,
        scores=d.scores,
    )


def result_json(s: Suggestion, top: int | None) -> dict[str, Any]:
    """``{"ply", "seat", "exact", "worlds", "moves": [{card, action, take, value?, ev, stderr}],
    "equal_to_best": [...], "headline"}``, best first (``equal_to_best``: the other moves the search
    cannot tell from the best, ``Assessment.equal``; ``headline``: the decision in one sentence,
    ``Assessment.headline``, the move played's where there is one), and with a move played at that
    ply, ``"played"``: its verdict as ``analyze`` gives it.
    With a game score and a table for the rules, ``"win_chance"``: the chance of each side to win
    the game before the round (``round_start``), the move to play for the game instead of the
    round's best (``best_for_game``: ``choose_for_game``, as the searcher bot chooses, written by
    ``game_choice_json``; null when none is clearly better or the game is not close), and per move
    (and for the move played) the chances once the round is over after it."""
    a, d = s.assessment, s.assessment.decision
    result, win = a.result, a.chances
    moves = result.moves if top is None else result.moves[:top]
    out: dict[str, Any] = {
        "ply": s.query.ply,
        "seat": result.seat,
        "exact": result.exact,
        "worlds": result.samples,
        "moves": [
            move_to_json(mv.move)
            | {"ev": _number(mv.ev), "stderr": _number(mv.stderr)}
            | _chances_field(win, mv.move)
            for mv in moves
        ],
    }
    if win is not None:
        out["win_chance"] = {
            "scores": list(d.scores or ()),
            "dealer": d.obs.dealer,
            "round_start": chances_json(win.round_start),
            "best_for_game": None if a.for_game is None else game_choice_json(a.for_game),
        }
    if a.verdict is not None and d.played is not None:
        out["played"] = (
            move_to_json(d.played)
            | verdict_json(a.verdict, result.value_of(d.played).ev, _number)
            | _chances_field(win, d.played)
            | {"game_verdict": played_game_words(a)}
        )
    out["equal_to_best"] = [move_to_json(m) for m in a.equal]
    out["value_unit"] = "margin"  # added after the older fields: see replay-format.md
    out["margin_scale"] = margin_scale(d.obs.nsides)
    out["headline"] = a.headline
    return out


def game_choice_json(e: GameEdge, seat: int | None = None) -> dict[str, Any]:
    """A move clearly better for the game than the round's best (``choose_for_game``): the move, and
    how much more chance of winning the game it leaves (``gain``, a fraction) with its 95% interval."""
    gain = {"gain": round(e.gain, 4), "gain_interval": [round(e.low, 4), round(e.high, 4)]}
    return move_to_json(e.move.move, seat) | gain


def chances_json(chances: Sequence[float]) -> list[float]:
    """Chances per side as JSON numbers (4 decimals)."""
    return [round(p, 4) for p in chances]


def _chances_field(win: WinChances | None, move: Move) -> dict[str, Any]:
    after = win.of(move) if win is not None else None
    return {"win_chance": chances_json(after)} if after is not None else {}
