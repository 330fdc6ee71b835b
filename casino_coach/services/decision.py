"""A decision to search, as the commands and the engine get one: the position before a move of a log
(or where it stops), a position file's, or one typed in the compact notation; and the JSON answer
``suggest --json`` gives for it (replay-format.md).

Errors name the file they come from (``errors.about``) and say what is wrong (``CoachError``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casino_coach.coach.analysis import Verdict, analysis_limits, verdict_json
from casino_coach.coach.winning import GameEdge, WinChances, choose_for_game, decision_chances
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import parse_hand, parse_table
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import PLAYER_COUNTS, sides_for
from casino_coach.errors import CoachError, about, quoted
from casino_coach.formats import jsonio
from casino_coach.formats.codec import move_to_json, parse_options
from casino_coach.formats.log import GameLog
from casino_coach.formats.position import check_scores, observation_from_position, read_any
from casino_coach.formats.replay import end_position, position_at, replay
from casino_coach.report.words import disagreement_words
from casino_coach.search import Limits, SearchResult


@dataclass(frozen=True)
class Decision:
    """A position to search: the rules, the mover's observation, its ply in the log (or None), the
    move the log plays there (None past the end of the log, or for a position), the players' names
    (a log's), whether it was typed on the command line (the seat to move is then "you"), and the
    game score per side before the round (a log's, a position file's or ``--scores``; else None)."""

    rules: RuleSet
    obs: Observation
    ply: int | None
    played: Move | None = None
    names: tuple[str, ...] = ()
    typed: bool = False
    scores: tuple[Points, ...] | None = None


def decision_from_file(path: Path, at: int | None) -> Decision:
    """The decision before move ``at`` of a log (default: where it stops), or a position file's."""
    with about(path):
        doc = read_any(path)
    if isinstance(doc, GameLog):
        with about(path):
            rep = replay(doc)
        n = len(rep.plies)
        if at is None or at == n:
            with about(path):  # "FILE: the log stops between rounds: ..."
                end = end_position(rep)
            return Decision(doc.rules, end.observation, n, None, tuple(doc.players), scores=end.scores)
        if not 0 <= at < n:
            raise CoachError(f"{path}: --at {at}: the log has {n} moves, so N goes from 0 to {n}")
        at_ply = rep.plies[at]
        with about(path):  # "FILE: round 1, deal 1, move 1 (ply 0), seat 1: the hand of seat 1 ..."
            pos = position_at(doc, at_ply)
        return Decision(doc.rules, pos.observation, at, at_ply.move, tuple(doc.players), scores=pos.scores)
    if at is not None:
        raise CoachError(f"--at: {path} is a position, not a log")
    ply = _position_ply(path)
    return Decision(doc.rules, doc.observation, ply, scores=doc.scores)


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


def typed_decision(
    hand: str,
    table: str,
    preset: str,
    options: list[str],
    players: int,
    to_move: int,
    hand_sizes: str | None,
    stock: int,
    seen: str,
    captured: list[str],
    last_capture: int | None,
    scores: str | None = None,
    dealer: int | None = None,
) -> Decision:
    """A position typed in the compact notation (rules.md, notation.py); with ``scores`` (the game
    score per side before the round, "15,18") the chances to win the game too."""
    rules = RuleSet.from_dict({"preset": preset, **parse_options(options)})
    nsides = sides_for(players, rules.partnerships) if players in PLAYER_COUNTS else players
    loose, builds = parse_table(
        table, pair_value=rules.pair_value, default_owner=(to_move + 1) % max(players, 1)
    )
    sizes = _int_list(hand_sizes, "--hand-sizes") if hand_sizes is not None else None
    piles = [parse_hand(c) for c in captured] if captured else None
    if piles is not None and len(piles) != nsides:
        raise CoachError(f"--captured: give one pile per side ({nsides}), in side order")
    obs = observation_from_position(
        rules,
        players,
        to_move,
        parse_hand(hand),
        loose,
        builds,
        hand_sizes=sizes,
        stock=stock,
        seen=parse_hand(seen),
        captured=piles,
        last_capture=-1 if last_capture is None else last_capture,
        partnerships=rules.partnerships,
        dealer=dealer,
    )
    game: tuple[Points, ...] | None = None
    if scores is not None:
        game = tuple(_int_list(scores, "--scores"))
        if len(game) != obs.nsides or min(game) < 0:
            raise CoachError(f"--scores: give one score from 0 up per side ({obs.nsides}), in side order")
        check_scores(rules, game, "--scores")
    return Decision(rules, obs, None, typed=True, scores=game)


def _number(x: float) -> float:
    if not math.isfinite(x):
        raise CoachError("the search produced a value that is not a finite number")
    return round(x, 4)


def decision_chances_of(decision: Decision, result: SearchResult, top: int | None) -> WinChances | None:
    """The game chances of a decision (``coach.winning``) for the moves shown (the ``top`` best, and
    the move the log plays there): None for a typed position (no game score) or rules without a
    table."""
    if decision.scores is None:
        return None
    moves = list(result.moves if top is None else result.moves[:top])
    if decision.played is not None and all(mv.move != decision.played for mv in moves):
        moves.append(result.value_of(decision.played))
    return decision_chances(decision.rules, decision.obs, decision.scores, moves, result)


def played_game_words(decision: Decision, result: SearchResult, verdict: Verdict | None) -> str | None:
    """What ``analyze`` says of the move the log plays here when the game and the round disagree on it
    (``report.words.disagreement_words``: "Right for the round, wrong for the game: ..."), from the
    chances after the round's best, the move played and the move best for the game."""
    if verdict is None or verdict.game is None or decision.played is None or decision.scores is None:
        return None
    moves = dict.fromkeys((verdict.best, decision.played, verdict.game.best))
    win = decision_chances(
        decision.rules, decision.obs, decision.scores, [result.value_of(m) for m in moves], result
    )
    return disagreement_words(
        verdict.game,
        win,
        decision.obs.to_move % decision.obs.nsides,
        decision.played,
        verdict.best,
        verdict.loss,
        verdict.cls,
        verdict.forced,
        decision.scores,
    )


def result_json(
    decision: Decision, result: SearchResult, top: int | None, verdict: Verdict | None = None
) -> dict[str, Any]:
    """``{"ply", "seat", "exact", "worlds", "moves": [{card, action, take, value?, ev, stderr}]}``,
    best first, and with a move played at that ply, ``"played"``: its verdict as ``analyze`` gives it.
    With a game score and a table for the rules, ``"win_chance"``: the chance of each side to win
    the game before the round (``round_start``), the move to play for the game instead of the
    round's best (``best_for_game``: ``choose_for_game``, as the searcher bot chooses, written by
    ``game_choice_json``; null when none is clearly better or the game is not close), and per move
    (and for the move played) the chances once the round is over after it."""
    moves = result.moves if top is None else result.moves[:top]
    win = decision_chances_of(decision, result, top)
    out: dict[str, Any] = {
        "ply": decision.ply,
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
        choice = choose_for_game(decision.rules, decision.obs, decision.scores, result)
        out["win_chance"] = {
            "scores": list(decision.scores or ()),
            "dealer": decision.obs.dealer,
            "round_start": chances_json(win.round_start),
            "best_for_game": None if choice is None else game_choice_json(choice),
        }
    if verdict is not None and decision.played is not None:
        out["played"] = (
            move_to_json(decision.played)
            | verdict_json(verdict, result.value_of(decision.played).ev, _number)
            | _chances_field(win, decision.played)
            | {"game_verdict": played_game_words(decision, result, verdict)}
        )
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


def suggest_limits(
    samples: int | None, seed: int, time: float | None, nplayers: int, depth: int | None = None
) -> Limits:
    """The analysis's limits (``analysis_limits``), so that ``suggest --at N`` judges move N as
    ``analyze`` does, with the options given."""
    base = analysis_limits(samples, seed, nplayers, depth)
    return dataclasses.replace(base, time=time) if time is not None else base
