"""Game logs (``casino-replay`` v1, replay-format.md): the log as data, ``read_log`` and its converse
``log_to_json``. Reading checks the structure and every card (unknown card, a card twice, wrong number
of cards); the re-play through the engine (``replay.py``) checks the rest. Every problem is a
``LogError`` whose message starts with where it is. Written files are canonical and read back equal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casino_coach.engine.movegen import (
    Move,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import (
    HAND_SIZE,
    PLAYER_COUNTS,
    TABLE_SIZE,
    sides_for,
)
from casino_coach.errors import LogError, shown
from casino_coach.formats.codec import (
    LOG_FORMAT,
    VERSION,
    check_format,
    dumps,
    load,
    move_from_json,
    move_to_json,
    names,
    read_cards,
    read_int,
    read_partnerships,
    read_rules,
)

Seat = int


@dataclass(frozen=True)
class DealLog:
    """One deal: the table cards (first deal of a round only), each seat's hand (None when unknown),
    and the moves played in order as (seat, move)."""

    table: int | None
    hands: tuple[int | None, ...]
    moves: tuple[tuple[Seat, Move], ...] = ()


@dataclass(frozen=True)
class RoundLog:
    """One round: its dealer, its deals, and the result the log's author declared (points per side)."""

    dealer: int
    deals: list[DealLog]
    result: tuple[Points, ...] | None = None


@dataclass(frozen=True)
class GameLog:
    """A whole ``casino-replay`` log (replay-format.md)."""

    rules: RuleSet
    players: list[str]
    viewer: int | None
    rounds: list[RoundLog]
    seed: int | None = None
    created_by: str | None = None
    event: str | None = None
    date: str | None = None
    partnerships: bool = True  # only meaningful with 4 players

    @property
    def nplayers(self) -> int:
        return len(self.players)

    @property
    def nsides(self) -> int:
        return sides_for(self.nplayers, self.partnerships)

    @property
    def nmoves(self) -> int:
        return sum(len(d.moves) for r in self.rounds for d in r.deals)


def read_log(source: bytes | str | Path) -> GameLog:
    """Read a ``casino-replay`` v1 log (bytes, JSON text, or a path) and check its structure and
    cards. Use ``replay`` to check it against the rules."""
    obj = load(source)
    check_format(obj, LOG_FORMAT)
    return log_from_obj(obj)


def log_from_obj(obj: Mapping[str, Any]) -> GameLog:
    rules = read_rules(obj)
    players = obj.get("players")
    if (
        not isinstance(players, list)
        or len(players) not in PLAYER_COUNTS
        or not all(isinstance(p, str) for p in players)
    ):
        raise LogError(f"players: expected 2, 3 or 4 player names, got {shown(players)}")
    n = len(players)
    partnerships, rules = read_partnerships(obj, rules, n)
    viewer = obj.get("viewer")
    if viewer is not None and (
        not isinstance(viewer, int) or isinstance(viewer, bool) or not 0 <= viewer < n
    ):
        raise LogError(f"viewer: must be null or a seat from 0 to {n - 1}, got {shown(viewer)}")
    rounds_raw = obj.get("rounds")
    if not isinstance(rounds_raw, list):
        raise LogError(f"rounds: expected a list of rounds, got {shown(rounds_raw)}")
    rounds = [_round_from_obj(r, i, n, viewer) for i, r in enumerate(rounds_raw)]
    extras: dict[str, Any] = {}
    seed = obj.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise LogError(f"seed: must be a whole number, got {shown(seed)}")
    for key in ("created_by", "event", "date"):
        v = obj.get(key)
        if v is not None and not isinstance(v, str):
            raise LogError(f"{key}: must be text, got {shown(v)}")
        extras[key] = v
    return GameLog(
        rules=rules,
        players=list(players),
        viewer=viewer,
        rounds=rounds,
        seed=seed,
        partnerships=partnerships,
        **extras,
    )


def _round_from_obj(obj: Any, ri: int, n: int, viewer: int | None) -> RoundLog:
    where = f"round {ri + 1}"
    if not isinstance(obj, Mapping):
        raise LogError(f"{where}: expected a round object, got {shown(obj)}")
    dealer = read_int(obj, "dealer", where, 0, n - 1)
    deals_raw = obj.get("deals")
    if not isinstance(deals_raw, list):
        raise LogError(f"{where}: 'deals' must be a list, got {shown(deals_raw)}")
    deals: list[DealLog] = []
    for di, d in enumerate(deals_raw):
        dw = f"{where}, deal {di + 1}"
        if not isinstance(d, Mapping):
            raise LogError(f"{dw}: expected a deal object, got {shown(d)}")
        table: int | None = None
        if di == 0:
            if d.get("table") is None:
                raise LogError(f"{dw}: the first deal of a round needs the {TABLE_SIZE} 'table' cards")
            table = read_cards(d["table"], f"{dw}, table", size=TABLE_SIZE)
        elif d.get("table") not in (None, []):
            raise LogError(f"{dw}: only the first deal of a round lays cards on the table (rules.md 1.3.3)")
        hands_raw = d.get("hands")
        if not isinstance(hands_raw, list) or len(hands_raw) != n:
            raise LogError(
                f"{dw}: 'hands' must list one hand (or null) per seat, {n} in all, got {shown(hands_raw)}"
            )
        hands: list[int | None] = []
        for s, h in enumerate(hands_raw):
            if h is None:
                if viewer is None:
                    raise LogError(
                        f"{dw}, seat {s}: the hand is null, but a log without a 'viewer' must give every hand"
                    )
                if s == viewer:
                    raise LogError(f"{dw}, seat {s}: the viewer's own hand must be given")
                hands.append(None)
            else:
                hands.append(read_cards(h, f"{dw}, seat {s} hand", size=HAND_SIZE))
        moves_raw = d.get("moves", [])
        if not isinstance(moves_raw, list):
            raise LogError(f"{dw}: 'moves' must be a list, got {shown(moves_raw)}")
        moves: list[tuple[int, Move]] = []
        for mi, m in enumerate(moves_raw):
            mw = f"{dw}, move {mi + 1}"
            seat, move = move_from_json(m, mw)
            if seat is None:
                raise LogError(f"{mw}: the move has no 'seat'")
            if not 0 <= seat < n:
                raise LogError(f"{mw}: 'seat' must be from 0 to {n - 1}, got {seat}")
            moves.append((seat, move))
        deals.append(DealLog(table, tuple(hands), tuple(moves)))
    result: tuple[Points, ...] | None = None
    res = obj.get("result")
    if res is not None:
        pts = res.get("points") if isinstance(res, Mapping) else None
        if (
            not isinstance(pts, list)
            or not pts
            or not all(isinstance(p, int | float) and not isinstance(p, bool) for p in pts)
        ):
            raise LogError(
                f'{where}, result: expected {{"points": [...]}} with a number per side, got {shown(res)}'
            )
        result = tuple(pts)
    return RoundLog(dealer, deals, result)


def log_to_obj(log: GameLog) -> dict[str, Any]:
    """The JSON object of a log (what ``log_to_json`` writes)."""
    rounds: list[dict[str, Any]] = []
    for r in log.rounds:
        deals: list[dict[str, Any]] = []
        for d in r.deals:
            dd: dict[str, Any] = {
                "hands": [None if h is None else names(h) for h in d.hands],
                "moves": [move_to_json(m, s) for s, m in d.moves],
            }
            if d.table is not None:
                dd["table"] = names(d.table)
            deals.append(dd)
        ro: dict[str, Any] = {"dealer": r.dealer, "deals": deals}
        if r.result is not None:
            ro["result"] = {"points": list(r.result)}
        rounds.append(ro)
    out: dict[str, Any] = {
        "format": LOG_FORMAT,
        "version": VERSION,
        "rules": log.rules.to_dict(),
        "players": list(log.players),
        "viewer": log.viewer,
        "rounds": rounds,
    }
    if log.nplayers == 4:
        out["partnerships"] = log.partnerships
    for key in ("seed", "created_by", "event", "date"):
        v = getattr(log, key)
        if v is not None:
            out[key] = v
    return out


def log_to_json(log: GameLog) -> bytes:
    """The canonical JSON of a log: sorted keys, 2-space indent, newline at the end."""
    return dumps(log_to_obj(log))
