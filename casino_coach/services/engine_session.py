"""The engine protocol: casino_coach as an engine for other programs, in the spirit of chess's UCI.

A controller (a game server, a GUI, a match driver) talks to ``casino-coach engine`` through its
standard input and output, one JSON object per line each way. Every request has a ``type`` and may
carry an ``id``; every answer has a ``type`` and echoes the request's ``id`` when it had one. The engine
plays or advises one seat and sees only what that seat sees: the controller tells it the deals (its own
hand, and the table at the start of each round) and every move played, its own included, as the move
objects of replay-format.md.

===============  ==============================================================  ==============
request          fields (besides ``type`` and ``id``)                            answer
===============  ==============================================================  ==============
``hello``        —                                                               ``hello``
``new_game``     ``rules`` (as in a log), ``players`` (names or a count),        ``ready``
                 ``seat`` (the engine's), ``partnerships`` (4 players)
``position``     ``position`` (a casino-position object): play on from there     ``state``
``deal``         ``hand``; at a round's start also ``table`` and ``dealer``     ``state``
``move``         ``move`` (a move object, or the compact notation ``"8C x 3H"``)  ``state``
``state``        —                                                               ``state``
``legal``        — (the engine's seat must be to move)                           ``legal``
``go``           ``samples``, ``time``, ``seed``, ``depth``: search limits        ``best_move``
``analyze``      the same limits, ``top`` (how many moves to list), and          ``analysis``
                 ``move``: a move to judge, as ``casino-coach analyze`` does
                 (its ``verdict``: loss, interval, class, explanations)
``quit``         —                                                               ``bye``
===============  ==============================================================  ==============

Every field is checked by type and range before it is used (``id``: a string of at most ``MAX_ID``
characters or a whole number; limits, seats, counts: whole numbers in their ranges; cards, moves,
rules and positions as their readers check them); fields a request does not take are ignored.
Anything wrong with a line (not JSON, longer than ``MAX_LINE`` bytes or nested deeper than
``jsonio.MAX_DEPTH``, not an object, no or unknown ``type``, a missing or bad field, a request out of
turn, an illegal move, a move by the wrong seat, a decision too big to search or to list) is answered
with ``{"type": "error", "error": "<what and why>", "request": <the id, else the type, else null>}``
and changes nothing: the engine never stops on a bad line. A ``go`` does not play the move it finds;
the controller sends the move actually played with ``move``, like every other move.

``EngineSession`` holds one engine's state and answers one line at a time (no I/O), so it is tested without
subprocesses; ``serve`` runs a session over lines of input and a writer of output lines.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

from casino_coach import __version__
from casino_coach.coach.assessment import Assessment, Decision, Settings, assess
from casino_coach.coach.classes import Thresholds
from casino_coach.coach.verdict import analysis_limits, limits_for, verdict_json
from casino_coach.engine.cards import mask_names, parse_cards
from casino_coach.engine.movegen import Move, check_listable
from casino_coach.engine.notation import parse_move
from casino_coach.engine.observation import (
    Observation,
    as_state,
    first_deal_observation,
    observe_deal,
    observe_move,
    observed_legal,
    own_moves,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Match, Points
from casino_coach.engine.state import HAND_SIZE, PLAYER_COUNTS, TABLE_SIZE, sides_for
from casino_coach.errors import CoachError, ProtocolError, shown
from casino_coach.formats import jsonio
from casino_coach.formats.codec import move_from_json, move_to_json
from casino_coach.formats.position import position_from_obj
from casino_coach.search import Limits, SearchResult
from casino_coach.search.result import MAX_PLIES, MAX_SAMPLES, MAX_SECONDS
from casino_coach.services.decision import chances_json, game_choice_json

PROTOCOL_NAME = "casino-engine"
PROTOCOL_VERSION = 1
ENGINE_NAME = "casino_coach"

REQUESTS = ("hello", "new_game", "position", "deal", "move", "state", "legal", "go", "analyze", "quit")

MAX_ID = 200  # characters of a string ``id`` (an answer echoes it)
MAX_NAME = 100  # characters of a player's name
MAX_LINE = 1 << 20  # bytes of one request line (a position is about 1 kB)
MAX_TOP = 100_000  # moves an analysis lists (a decision searched has at most 300)

# What a ``go`` or ``analyze`` searches when the request gives no limits: what ``casino-coach analyze``
# searches (``analysis.analysis_limits``: ``ANALYSIS_DEPTH`` plies deep with any number of players)
# unless a depth is given, so the engine's values for a position are the analysis's, bit for bit.
DEFAULT_LIMITS = analysis_limits()

Answer = dict[str, Any]


# ---------------------------------------------------------------------------------------------------
# Reading request fields


def _int_field(
    req: Mapping[str, Any], key: str, lo: int, hi: int | None = None, default: int | None = None
) -> int:
    if key not in req or req[key] is None:
        if default is None:
            raise ProtocolError(f"'{key}' is missing")
        return default
    v = req[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or (hi is not None and v > hi):
        bound = f"from {lo} to {hi}" if hi is not None else f"of at least {lo}"
        raise ProtocolError(f"'{key}' must be a whole number {bound}, got {_number_shown(v)}")
    return v


def _number_shown(v: Any) -> str:
    """A value as an error quotes it; a JSON number with a point or an exponent (1e2), or one too
    large for 64 bits, reaches the engine as a float: said so, since its digits may not be the ones
    sent ("got 1.8446744073709552e+19")."""
    if isinstance(v, float) and math.isfinite(v):
        return f"{v!r} (written with a decimal point or an exponent, or too large for 64 bits)"
    return shown(v)


def _optional_int(req: Mapping[str, Any], key: str, lo: int, hi: int) -> int | None:
    return None if req.get(key) is None else _int_field(req, key, lo, hi)


def _request_id(req: Mapping[str, Any]) -> str | int | None:
    """The request's ``id``: absent or null, a string of at most MAX_ID characters, or a whole number
    that fits in 64 bits (what JSON readers take for an integer)."""
    rid = req.get("id")
    if rid is None or (isinstance(rid, str) and len(rid) <= MAX_ID):
        return rid
    if isinstance(rid, int) and not isinstance(rid, bool) and -(2**63) <= rid < 2**64:
        return rid
    raise ProtocolError(
        f"'id' must be a string of at most {MAX_ID} characters or a whole number, got {_number_shown(rid)}"
    )


def _cards_field(req: Mapping[str, Any], key: str, size: int) -> int:
    raw = req.get(key)
    if not isinstance(raw, list):
        raise ProtocolError(f'\'{key}\' must be a list of {size} cards like ["TD", "2S"], got {shown(raw)}')
    mask = parse_cards(raw, what=key)
    if mask.bit_count() != size:
        raise ProtocolError(f"'{key}' must hold {size} cards, got {mask.bit_count()}")
    return mask


def limits_from(req: Mapping[str, Any], base: Limits = DEFAULT_LIMITS) -> Limits:
    """Search limits from a ``go`` or ``analyze`` request: ``samples``, ``time`` (seconds),
    ``seed`` and ``depth`` (plies per world; null: ``Limits``' own, 8 plies with 2 players, the whole
    deal, and 4 with 3 or 4); what the request does not give comes from ``base``."""
    samples = _int_field(req, "samples", 1, MAX_SAMPLES, base.samples)
    seed = _int_field(req, "seed", 0, 2**63 - 1, base.seed)  # the range of every --seed
    t = req.get("time", base.time)
    if t is not None and (not isinstance(t, int | float) or isinstance(t, bool) or not 0 < t <= MAX_SECONDS):
        raise ProtocolError(
            f"'time' must be a number of seconds above 0 (at most {MAX_SECONDS:g}), got {shown(t)}"
        )
    depth: int | None = base.depth
    if "depth" in req:
        depth = None if req["depth"] is None else _int_field(req, "depth", 1, MAX_PLIES)
    return dataclasses.replace(
        base,
        samples=samples,
        # Worlds asked for are worlds with any number of players.
        samples_many=base.samples_many if "samples" not in req else None,
        min_samples=min(samples, base.min_samples),
        time=float(t) if t is not None else None,
        seed=seed,
        depth=depth,
    )


def engine_limits(
    samples: int | None = None, time: float | None = None, seed: int = 0, depth: int | None = None
) -> Limits:
    """The default limits of an engine (``casino-coach engine``'s options): the analysis's
    (``analysis_limits``, its node budget and exact worlds included), with the options given."""
    return dataclasses.replace(analysis_limits(samples, seed, depth), time=time)


# ---------------------------------------------------------------------------------------------------
# The game as the engine's seat sees it


@dataclass
class EngineGame:
    """One game from the engine's seat: the rules, the players, the seat's ``Observation`` of the
    round being played (None before the first deal), and the running score."""

    rules: RuleSet
    players: list[str]
    seat: int
    match: Match
    obs: Observation | None = None
    dealer: int | None = None  # of the round being played, or of the last one
    rounds: int = 0  # rounds begun
    deal_index: int = 0  # 0-based deal of the round being played
    ply: int = 0  # moves played in the whole game
    last_round: tuple[Points, ...] | None = None  # points of the round that just ended
    history: list[tuple[int, Move]] = field(default_factory=list)

    @property
    def nplayers(self) -> int:
        return len(self.players)

    @property
    def nsides(self) -> int:
        return self.match.nsides

    @property
    def awaiting(self) -> str:
        """What the engine expects next: ``new_round`` (a deal with the table), ``deal`` (the next
        hand), ``move``, or ``nothing`` (the game is over)."""
        if self.match.over:
            return "nothing"
        obs = self.obs
        if obs is None or (obs.stock_count == 0 and not any(obs.hand_sizes)):
            return "new_round"
        if not any(obs.hand_sizes):
            return "deal"
        return "move"


def _table_obj(obs: Observation) -> dict[str, Any]:
    return {
        "loose": mask_names(obs.loose),
        "builds": [
            {"cards": mask_names(b.cards), "value": b.value, "owner": b.owner, "multiple": b.multiple}
            for b in obs.builds
        ],
    }


def _num(x: Points | float) -> Points:
    """Numbers for JSON: whole numbers as ints, the rest rounded (values stay bounded)."""
    if isinstance(x, int):
        return x
    return int(x) if float(x).is_integer() else round(float(x), 4)


def _start_observation(seat: int, n: int, nsides: int, dealer: int, table: int, hand: int) -> Observation:
    """The engine seat's view right after the first deal of a round (rules.md 1.3.2)."""
    if table & hand:
        raise ProtocolError(f"'hand': card {mask_names(table & hand)[0]} is also on the table")
    return first_deal_observation(seat, n, nsides, dealer, table, hand)


# ---------------------------------------------------------------------------------------------------
# The session


class EngineSession:
    """One engine: answers request lines one at a time. ``closed`` turns true after ``quit``.

    ``limits`` are the search limits of a ``go`` or ``analyze`` that gives none of its own.
    """

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.game: EngineGame | None = None
        self.closed = False
        self.lines = 0
        self.limits = limits

    # --- entry points ------------------------------------------------------------------------------

    def handle(self, line: str | bytes) -> Answer | None:
        """The answer to one line of input; None for a blank line (ignored, like UCI does)."""
        self.lines += 1
        if len(line) > MAX_LINE:
            return _error(f"line {self.lines}: longer than {MAX_LINE:,} bytes", None)
        if not line.strip():
            return None
        try:
            req = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            return _error(f"line {self.lines}: not valid JSON ({e})", None)
        if jsonio.depth(req) > jsonio.MAX_DEPTH:
            return _error(f"line {self.lines}: JSON nested more than {jsonio.MAX_DEPTH} levels deep", None)
        if not isinstance(req, dict):
            return _error(
                f'line {self.lines}: expected a JSON object like {{"type": "hello"}}, got {shown(req)}', None
            )
        return self.request(req)

    def request(self, req: Mapping[str, Any]) -> Answer:
        """The answer to one decoded request object (checked as a line is, for callers in Python)."""
        if not isinstance(req, Mapping) or jsonio.depth(req) > jsonio.MAX_DEPTH:
            what = "nested too deep" if isinstance(req, Mapping) else f"got {shown(req)}"
            return _error(f'expected a JSON object like {{"type": "hello"}}, {what}', None)
        kind = req.get("type")
        known = isinstance(kind, str) and len(kind) <= MAX_ID
        try:
            rid = _request_id(req)
        except ProtocolError as e:
            return _error(f"{kind}: {e}" if kind in _HANDLERS else str(e), kind if known else None)
        tag = rid if rid is not None else (kind if known else None)
        try:
            if not isinstance(kind, str):
                raise ProtocolError("a request needs a 'type', one of " + ", ".join(REQUESTS))
            handler = _HANDLERS.get(kind)
            if handler is None:
                raise ProtocolError(
                    f"unknown request type {shown(kind)}: expected one of " + ", ".join(REQUESTS)
                )
            answer = handler(self, req)
        except CoachError as e:
            return _error(f"{kind}: {e}" if isinstance(kind, str) and kind in _HANDLERS else str(e), tag, rid)
        except Exception as e:  # the engine never dies on a line: report it and go on
            return _error(f"internal error while answering {shown(kind)}: {type(e).__name__}: {e}", tag, rid)
        if rid is not None:
            answer = {"type": answer["type"], "id": rid} | {k: v for k, v in answer.items() if k != "type"}
        return answer

    # --- requests ------------------------------------------------------------------------------------

    def _hello(self, req: Mapping[str, Any]) -> Answer:
        return {
            "type": "hello",
            "name": ENGINE_NAME,
            "version": __version__,
            "protocol": PROTOCOL_NAME,
            "protocol_version": PROTOCOL_VERSION,
            "requests": list(REQUESTS),
        }

    def _new_game(self, req: Mapping[str, Any]) -> Answer:
        raw_rules = req.get("rules", {"preset": "classic"})
        rules = RuleSet.from_dict(raw_rules if raw_rules is not None else {"preset": "classic"})
        players = req.get("players", 2)
        if isinstance(players, int) and not isinstance(players, bool) and players in PLAYER_COUNTS:
            names = [f"seat {i}" for i in range(players)]
        elif (
            isinstance(players, list)
            and len(players) in PLAYER_COUNTS
            and all(isinstance(p, str) and 0 < len(p) <= MAX_NAME for p in players)
        ):
            names = list(players)
        else:
            raise ProtocolError(
                f"'players' must be 2, 3 or 4 names of 1 to {MAX_NAME} characters (or that number), "
                f"got {shown(players)}"
            )
        part = req.get("partnerships")
        if part is not None:
            if not isinstance(part, bool):
                raise ProtocolError(f"'partnerships' must be true or false, got {shown(part)}")
            rules = rules.replace(partnerships=part)
        seat = _int_field(req, "seat", 0, len(names) - 1)
        nsides = sides_for(len(names), rules.partnerships)
        self.game = EngineGame(rules, names, seat, Match(rules, nsides))
        return {
            "type": "ready",
            "rules": rules.to_dict(),
            "players": names,
            "seat": seat,
            "side": seat % nsides,
            "nsides": nsides,
            "awaiting": self.game.awaiting,
        }

    def _position(self, req: Mapping[str, Any]) -> Answer:
        raw = req.get("position")
        if not isinstance(raw, dict):
            raise ProtocolError(f"'position' must be a casino-position object, got {shown(raw)}")
        pos = position_from_obj(raw)
        obs = pos.observation
        names = [f"seat {i}" for i in range(pos.players)]
        match = Match(pos.rules, obs.nsides, scores=list(pos.scores))
        self.game = EngineGame(pos.rules, names, obs.seat, match, obs=obs, dealer=obs.dealer, rounds=1)
        return self._state_answer()

    def _deal(self, req: Mapping[str, Any]) -> Answer:
        g = self._game()
        wanted = g.awaiting
        # Whether a deal is wanted at all comes first: a deal out of turn is that, whatever it holds.
        if wanted == "nothing":
            raise ProtocolError("the game is over: start another with new_game")
        if wanted == "move":
            raise ProtocolError(
                f"it is not time to deal: seat {self._obs().to_move} is to move and hands still hold cards"
            )
        hand = _cards_field(req, "hand", HAND_SIZE)
        dealer = _optional_int(req, "dealer", 0, g.nplayers - 1)
        if wanted == "new_round":
            if req.get("table") is None:
                raise ProtocolError("the first deal of a round needs 'table' (the 4 cards laid face up)")
            table = _cards_field(req, "table", TABLE_SIZE)
            if dealer is None:
                dealer = (g.dealer + 1) % g.nplayers if g.dealer is not None else g.nplayers - 1
            g.obs = _start_observation(g.seat, g.nplayers, g.nsides, dealer, table, hand)
            g.dealer = dealer
            g.rounds += 1
            g.deal_index = 0
        else:
            if req.get("table") is not None:
                raise ProtocolError(
                    "only the first deal of a round lays a table; later deals give 'hand' only"
                )
            if dealer is not None and dealer != g.dealer:
                raise ProtocolError(f"the dealer of this round is seat {g.dealer}, not {dealer}")
            obs = self._obs()
            if hand & ~obs.unseen:
                raise ProtocolError(
                    f"'hand': card {mask_names(hand & ~obs.unseen)[0]} has already "
                    "been seen, it cannot be dealt now"
                )
            g.obs = observe_deal(obs, hand, HAND_SIZE)
            g.deal_index += 1
        g.last_round = None
        return self._state_answer()

    def _move(self, req: Mapping[str, Any]) -> Answer:
        g = self._game()
        if g.awaiting != "move":
            raise ProtocolError(f"no move is expected now: waiting for {_awaiting_words(g.awaiting)}")
        obs = self._obs()
        move = _move_field(req, obs)
        mover = obs.to_move
        g.obs = observe_move(g.rules, obs, move)  # IllegalMoveError names the rule
        g.history.append((mover, move))
        g.ply += 1
        g.last_round = None
        if g.obs.stock_count == 0 and not any(g.obs.hand_sizes):
            end = as_state(g.obs, (0,) * g.nplayers, False)
            g.last_round = g.match.add_round(end).points
        return self._state_answer(played=move_to_json(move, mover))

    def _state(self, req: Mapping[str, Any]) -> Answer:
        self._game()
        return self._state_answer()

    def _legal(self, req: Mapping[str, Any]) -> Answer:
        obs = self._own_turn()
        g = self._game()
        check_listable(obs.loose)
        moves = own_moves(g.rules, obs)
        return {"type": "legal", "seat": obs.seat, "moves": [move_to_json(m, obs.seat) for m in moves]}

    def _go(self, req: Mapping[str, Any]) -> Answer:
        a = self._assess(self._limits(req))
        res = a.result
        best = res.best
        return {
            "type": "best_move",
            "seat": res.seat,
            "move": move_to_json(best.move, res.seat),
            "ev": _num(best.ev),
            "stderr": _num(best.stderr),
            **_effort(a),
        }

    def _analyze(self, req: Mapping[str, Any]) -> Answer:
        limits = self._limits(req)
        top = _optional_int(req, "top", 1, MAX_TOP)
        move = _move_field(req, self._own_turn()) if req.get("move") is not None else None
        if move is not None and observed_legal(self._game().rules, self._obs(), move):
            raise ProtocolError(f"'move': {move.describe()} is not a legal move here")
        return analysis_answer(self._assess(limits, move), top)

    def _quit(self, req: Mapping[str, Any]) -> Answer:
        self.closed = True
        return {"type": "bye"}

    # --- helpers -------------------------------------------------------------------------------------

    def _game(self) -> EngineGame:
        if self.game is None:
            raise ProtocolError("no game: send new_game (or position) first")
        return self.game

    def _obs(self) -> Observation:
        g = self._game()
        if g.obs is None:
            raise ProtocolError(
                "no cards dealt yet: send deal with the engine's hand, the table and the dealer"
            )
        return g.obs

    def _own_turn(self) -> Observation:
        g = self._game()
        if g.awaiting != "move":
            raise ProtocolError(f"nothing to play now: waiting for {_awaiting_words(g.awaiting)}")
        obs = self._obs()
        if obs.to_move != g.seat:
            raise ProtocolError(f"it is seat {obs.to_move}'s turn, not the engine's (seat {g.seat})")
        return obs

    def _limits(self, req: Mapping[str, Any]) -> Limits:
        """The search limits of a ``go`` or ``analyze``: the request's, else the session's."""
        return limits_from(req, self.limits)

    def _assess(self, limits: Limits, move: Move | None = None) -> Assessment:
        obs = self._own_turn()
        g = self._game()
        decision = Decision(g.rules, obs, move, tuple(g.match.scores), tuple(g.players))
        return assess(decision, Settings(limits, Thresholds()))

    def _state_answer(self, played: dict[str, Any] | None = None) -> Answer:
        g = self._game()
        out: Answer = {"type": "state"}
        if played is not None:
            out["played"] = played
        out |= {
            "awaiting": g.awaiting,
            "round": max(g.rounds - 1, 0),
            "deal": g.deal_index,
            "dealer": g.dealer,
            "ply": g.ply,
        }
        obs = g.obs
        if obs is not None:
            out |= {
                "to_move": obs.to_move if g.awaiting == "move" else None,
                "seat": g.seat,
                "hand": mask_names(obs.hand),
                "table": _table_obj(obs),
                "hand_sizes": list(obs.hand_sizes),
                "stock": obs.stock_count,
                "captured": [mask_names(p) for p in obs.captured],
                "sweeps": list(obs.sweeps),
                "last_capture": obs.last_capturer if obs.last_capturer >= 0 else None,
            }
        if g.last_round is not None:
            out["round_points"] = [_num(p) for p in g.last_round]
        out["scores"] = [_num(p) for p in g.match.scores]
        out["game_over"] = g.match.over
        out["winner"] = g.match.winner
        return out


_HANDLERS: dict[str, Callable[[EngineSession, Mapping[str, Any]], Answer]] = {
    "hello": EngineSession._hello,
    "new_game": EngineSession._new_game,
    "position": EngineSession._position,
    "deal": EngineSession._deal,
    "move": EngineSession._move,
    "state": EngineSession._state,
    "legal": EngineSession._legal,
    "go": EngineSession._go,
    "analyze": EngineSession._analyze,
    "quit": EngineSession._quit,
}
assert set(_HANDLERS) == set(REQUESTS)


def _move_field(req: Mapping[str, Any], obs: Observation) -> Move:
    """The request's ``move``: a move object or the compact notation, by the seat to move."""
    raw = req.get("move")
    seat: int | None
    if isinstance(raw, str):
        seat, move = None, parse_move(raw)
    elif isinstance(raw, dict):
        seat, move = move_from_json(raw, "'move'")
    else:
        raise ProtocolError(
            f'\'move\' must be a move object like {{"seat": 0, "card": "8C", '
            f'"action": "trail"}}, got {shown(raw)}'
        )
    if seat is not None and not 0 <= seat < obs.nplayers:
        raise ProtocolError(f"'move': 'seat' must be a seat from 0 to {obs.nplayers - 1}, got {shown(seat)}")
    if seat is not None and seat != obs.to_move:
        raise ProtocolError(f"it is seat {obs.to_move}'s turn, not seat {seat}'s")
    return move


def analysis_answer(a: Assessment, top: int | None) -> Answer:
    """The ``analysis`` answer of an assessment (engine-protocol.md): the ``top`` best moves (all by
    default) with their chances to win the game, the decision's chances before the round and the
    move to play for the game, and with a move to judge its ``verdict``, as ``analyze`` gives it."""
    res, d, win = a.result, a.decision, a.chances
    moves = res.moves if top is None else res.moves[:top]

    def chances(m: Move) -> dict[str, Any]:
        after = win.of(m) if win is not None else None
        return {"win_chance": chances_json(after)} if after is not None else {}

    out = {
        "type": "analysis",
        "seat": res.seat,
        "moves": [
            {"move": move_to_json(mv.move, res.seat), "ev": _num(mv.ev), "stderr": _num(mv.stderr)}
            | chances(mv.move)
            for mv in moves
        ],
        "equal_to_best": [move_to_json(m, res.seat) for m in a.equal],
        "legal": len(res.moves),
        **_effort(a),
    }
    if win is not None:
        out["win_chance"] = {
            "scores": [_num(p) for p in d.scores or ()],
            "round_start": chances_json(win.round_start),
            "best_for_game": None if a.for_game is None else game_choice_json(a.for_game, res.seat),
        }
    if a.verdict is not None and d.played is not None:
        out["verdict"] = (
            {"move": move_to_json(d.played, res.seat)}
            | verdict_json(a.verdict, res.value_of(d.played).ev, _num, res.seat)
            | chances(d.played)
        )
    # The decision in words, as every command shows it (``Assessment.headline``), last: a field added.
    out["headline"] = a.headline
    return out


def _awaiting_words(awaiting: str) -> str:
    return {
        "new_round": "the first deal of a round (deal with hand, table and dealer)",
        "deal": "the next deal (deal with hand)",
        "move": "a move",
        "nothing": "nothing: the game is over",
    }[awaiting]


def _effort(a: Assessment) -> dict[str, Any]:
    res = a.result
    return {
        "exact": res.exact,
        "samples": res.samples,
        "nodes": res.nodes,
        "seconds": round(res.seconds, 3),
        "stopped": stopped(res, limits_for(a.settings.limits, a.decision.obs.nplayers), a.decision.played),
    }


def stopped(res: SearchResult, limits: Limits, focus: Move | None) -> str:
    """Why the search of a decision stopped sampling worlds, so that two answers on one decision that
    differ can say why (engine-protocol.md): ``every_world`` (all were searched), ``sample_limit``
    (``limits.samples``), ``node_budget`` (``limits.nodes`` spent), ``time_limit``, or the race's
    own rule: ``best_apart`` (without a move to judge, once the best move stood apart from the
    others: a ``go``, or an ``analyze`` without ``move``) or ``class_settled`` (with one, once its
    loss lay inside one class: an ``analyze`` with ``move``, as ``casino-coach analyze`` judges a
    move). The last two stop at different numbers of worlds, so their values of one move differ by
    their sampling error."""
    if res.enumerated:
        return "every_world"
    if res.samples >= limits.samples:
        return "sample_limit"
    if limits.nodes is not None and res.nodes >= limits.nodes:
        return "node_budget"
    if limits.time is not None and res.seconds >= limits.time:
        return "time_limit"
    return "best_apart" if focus is None else "class_settled"


def _error(message: str, request: Any, rid: Any = None) -> Answer:
    out: Answer = {"type": "error"}
    if rid is not None:
        out["id"] = rid
    out["error"] = message
    out["request"] = request
    return out


def encode(answer: Answer) -> bytes:
    """One answer as one line of JSON (UTF-8, newline-terminated); an answer that cannot be written
    (which the checks of every field keep from happening) becomes an error answer."""
    try:
        return orjson.dumps(answer, option=orjson.OPT_NON_STR_KEYS) + b"\n"
    except TypeError as e:
        return orjson.dumps(_error(f"internal error while writing the answer: {e}", None)) + b"\n"


def bounded_lines(stream: BinaryIO) -> Iterator[bytes]:
    """The lines of ``stream``, each cut at MAX_LINE + 1 bytes (the rest of a longer line is read
    and dropped), so that a line without end cannot fill the memory; ``handle`` refuses the cut ones."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while (rest := stream.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                pass
        yield line


def serve(
    lines: Iterable[str | bytes], write: Callable[[bytes], None], session: EngineSession | None = None
) -> EngineSession:
    """Answer every line of ``lines`` with ``write`` until ``quit`` or the end of the input."""
    s = session or EngineSession()
    for line in lines:
        answer = s.handle(line)
        if answer is not None:
            write(encode(answer))
        if s.closed:
            break
    return s
