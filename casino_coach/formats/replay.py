"""Game logs (``casino-replay`` v1) and positions (``casino-position`` v1): read, write, validate, re-play.

The formats are the public contract of replay-format.md. ``read_log`` / ``log_to_json`` and
``read_position`` / ``position_to_json`` are converse pairs; written files are canonical (sorted keys,
2-space indent, a newline at the end) and read back equal. Reading checks the structure and every card
(unknown card, a card twice, wrong number of cards); ``replay`` re-plays a log through the engine and
checks the rest: the seat to move, the legality of every move (with the rule it breaks), the dealing, and
each declared round ``result``. Every problem is a ``LogError`` whose message starts with where it is:
``round 2, deal 3, move 5 (ply 37), seat 1, card 8C: ...`` (round, deal and move count from 1 for
people; the ply is the 0-based index of the move across the whole log, as in ``moves --at N``).

Viewer logs (``viewer`` = a seat, other hands ``null``) are re-played on the viewer's ``Observation``:
cards of other seats are learned as they are played, and their moves are checked as far as the viewer
can tell (``observation.observe_move``). A log may stop anywhere in its last deal: a game in progress.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from casino_coach.engine.cards import FULL_DECK, card_name, iter_cards, mask_names, parse_card
from casino_coach.engine.movegen import (
    ACTION_NAMES,
    BUILD,
    CAPTURE,
    TRAIL,
    Move,
    apply,
    illegal_reason,
    legal_moves,
)
from casino_coach.engine.observation import (
    Observation,
    as_state,
    first_deal_observation,
    observe,
    observe_deal,
    observe_move,
    own_moves,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Match, Points, RoundScore
from casino_coach.engine.state import (
    HAND_SIZE,
    PLAYER_COUNTS,
    TABLE_SIZE,
    Build,
    RoundState,
    deal,
    deals_per_round,
    new_round,
    sides_for,
)
from casino_coach.errors import CardError, CoachError, LogError, RulesError, shown
from casino_coach.formats import jsonio

LOG_FORMAT = "casino-replay"
POSITION_FORMAT = "casino-position"
VERSION = 1

Seat = int


# ---------------------------------------------------------------------------------------------------
# Data


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


@dataclass(frozen=True)
class Position:
    """A ``casino-position``: the rules, the number of players, the game scores, and the
    ``Observation`` of the seat to move."""

    rules: RuleSet
    players: int
    observation: Observation
    scores: tuple[Points, ...]
    partnerships: bool = True

    @property
    def to_move(self) -> int:
        return self.observation.to_move

    @property
    def nsides(self) -> int:
        return self.observation.nsides


# ---------------------------------------------------------------------------------------------------
# Cards and moves in JSON


def _card(text: Any, where: str) -> int:
    if not isinstance(text, str):
        raise LogError(f'{where}: expected a card like "8C", got {shown(text)}')
    try:
        return parse_card(text)
    except CardError as e:
        raise LogError(f"{where}: {e}") from None


def _cards(items: Any, where: str, *, size: int | None = None) -> int:
    if not isinstance(items, list):
        raise LogError(f"{where}: expected a list of cards, got {shown(items)}")
    m = 0
    for t in items:
        c = _card(t, where)
        if m >> c & 1:
            raise LogError(f"{where}: card {card_name(c)} appears twice")
        m |= 1 << c
    if size is not None and len(items) != size:
        raise LogError(f"{where}: expected {size} cards, got {len(items)}")
    return m


def names(mask: int) -> list[str]:
    """The canonical names of a mask's cards, in plain string order (how ``take`` is written)."""
    return sorted(mask_names(mask))


def move_to_json(move: Move, seat: int | None = None) -> dict[str, Any]:
    """The move object of replay-format.md: ``seat`` (when given), ``card``, ``action``, ``take``
    (sorted; empty for a plain trail) and ``value`` for builds and table-only-build trails."""
    out: dict[str, Any] = {}
    if seat is not None:
        out["seat"] = seat
    out["card"] = card_name(move.card)
    out["action"] = ACTION_NAMES[move.action]
    out["take"] = names(move.take)
    if move.action == BUILD or (move.action == TRAIL and move.take):
        out["value"] = move.value
    return out


def move_from_json(obj: Any, where: str = "move") -> tuple[int | None, Move]:
    """Read a move object; returns (seat or None when absent, Move). Raises LogError naming ``where``."""
    if not isinstance(obj, Mapping):
        raise LogError(
            f'{where}: expected a move object like {{"seat": 0, "card": "8C", '
            f'"action": "trail"}}, got {shown(obj)}'
        )
    seat = obj.get("seat")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
        raise LogError(f"{where}: 'seat' must be a seat number, got {shown(seat)}")
    if "card" not in obj:
        raise LogError(f"{where}: the move has no 'card'")
    c = _card(obj["card"], f"{where}, card")
    action_text = obj.get("action", "trail")
    if action_text not in ACTION_NAMES:
        raise LogError(
            f"{where}, card {card_name(c)}: unknown action {shown(action_text)} (trail, capture or build)"
        )
    action = ACTION_NAMES.index(action_text)
    take_raw = obj.get("take", [])
    take = _cards([] if take_raw is None else take_raw, f"{where}, card {card_name(c)}, take")
    if take >> c & 1:
        raise LogError(f"{where}, card {card_name(c)}: the played card is also listed in 'take'")
    value_raw = obj.get("value")
    value = 0
    if action == BUILD or (action == TRAIL and take):
        if not isinstance(value_raw, int) or isinstance(value_raw, bool):
            raise LogError(
                f"{where}, card {card_name(c)}: a build needs a whole-number 'value', got {shown(value_raw)}"
            )
        value = value_raw
    # A capture's value is not part of the move (an ace's 1 or 14 follows from what it takes).
    if action == CAPTURE and not take:
        raise LogError(f"{where}, card {card_name(c)}: a capture lists the cards it takes in 'take'")
    if action == BUILD and not take:
        raise LogError(f"{where}, card {card_name(c)}: a build lists the table cards it uses in 'take'")
    return seat, Move(c, action, take, value)


# ---------------------------------------------------------------------------------------------------
# Reading


def _load(source: bytes | str | Path) -> Any:
    if isinstance(source, Path):
        data = source.read_bytes()
    elif isinstance(source, str):
        data = source.encode() if source.lstrip().startswith(("{", "[")) else Path(source).read_bytes()
    else:
        data = source
    return jsonio.loads(data)


def _check_format(obj: Any, expected: str | None) -> str:
    if not isinstance(obj, Mapping):
        raise LogError(f'expected a JSON object with "format": "{expected or LOG_FORMAT}", got {shown(obj)}')
    fmt = obj.get("format")
    if fmt not in (LOG_FORMAT, POSITION_FORMAT) or (expected is not None and fmt != expected):
        want = expected or f"{LOG_FORMAT} or {POSITION_FORMAT}"
        raise LogError(f"format: unknown format {shown(fmt)}, expected {want}")
    version = obj.get("version")
    if version != VERSION or isinstance(version, bool):
        raise LogError(
            f"version: unknown {fmt} version {shown(version)}, this reader knows version {VERSION}"
        )
    return str(fmt)


def _rules(obj: Mapping[str, Any]) -> RuleSet:
    raw = obj.get("rules", {"preset": "classic"})
    if isinstance(raw, Mapping) and not isinstance(raw.get("preset", "classic"), str):
        raise LogError(f"rules: 'preset' must be classic, royal or dominican, got {shown(raw['preset'])}")
    try:
        return RuleSet.from_dict(raw if raw is not None else {"preset": "classic"})
    except RulesError as e:
        raise LogError(f"rules: {e}") from None


def _int(obj: Mapping[str, Any], key: str, where: str, lo: int, hi: int, default: Any = ...) -> int:
    if key not in obj:
        if default is ...:
            raise LogError(f"{where}: missing '{key}'")
        return int(default)
    v = obj[key]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise LogError(f"{where}: '{key}' must be a whole number from {lo} to {hi}, got {shown(v)}")
    return v


def _partnerships(obj: Mapping[str, Any], rules: RuleSet, nplayers: int) -> tuple[bool, RuleSet]:
    raw = obj.get("partnerships")
    if raw is None:
        part = rules.partnerships
    elif not isinstance(raw, bool):
        raise LogError(f"partnerships: must be true or false, got {shown(raw)}")
    else:
        given = obj.get("rules")
        if isinstance(given, Mapping) and "partnerships" in given and raw != rules.partnerships:
            raise LogError("partnerships: differs from the 'partnerships' rule option")
        part = raw
    return part, (rules if rules.partnerships == part else rules.replace(partnerships=part))


def read_log(source: bytes | str | Path) -> GameLog:
    """Read a ``casino-replay`` v1 log (bytes, JSON text, or a path) and check its structure and
    cards. Use ``replay`` to check it against the rules."""
    obj = _load(source)
    _check_format(obj, LOG_FORMAT)
    return _log_from_obj(obj)


def read_any(source: bytes | str | Path) -> GameLog | Position:
    """Read a log or a position, whichever its ``format`` says."""
    obj = _load(source)
    if _check_format(obj, None) == LOG_FORMAT:
        return _log_from_obj(obj)
    return _position_from_obj(obj)


def _log_from_obj(obj: Mapping[str, Any]) -> GameLog:
    rules = _rules(obj)
    players = obj.get("players")
    if (
        not isinstance(players, list)
        or len(players) not in PLAYER_COUNTS
        or not all(isinstance(p, str) for p in players)
    ):
        raise LogError(f"players: expected 2, 3 or 4 player names, got {shown(players)}")
    n = len(players)
    partnerships, rules = _partnerships(obj, rules, n)
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
    dealer = _int(obj, "dealer", where, 0, n - 1)
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
            table = _cards(d["table"], f"{dw}, table", size=TABLE_SIZE)
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
                hands.append(_cards(h, f"{dw}, seat {s} hand", size=HAND_SIZE))
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


# ---------------------------------------------------------------------------------------------------
# Writing


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


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
    return _dumps(log_to_obj(log))


def dumps(obj: Any) -> bytes:
    """Canonical JSON of any object (sorted keys, 2-space indent, newline at the end)."""
    return _dumps(obj)


# ---------------------------------------------------------------------------------------------------
# Re-playing


@dataclass(frozen=True)
class Ply:
    """One move of a log and the position just before it."""

    index: int  # global 0-based move index (``moves --at N``)
    round: int  # 0-based
    deal: int  # 0-based
    move_index: int  # 0-based, within the deal
    seat: int
    move: Move
    state: RoundState | None  # full state before the move; None when some hand is unknown
    observation: Observation | None  # the mover's view; None when the mover's hand is unknown
    viewer_observation: Observation | None  # the log viewer's view; None for full logs
    scores: tuple[Points, ...]  # game scores per side before this round

    @property
    def where(self) -> str:
        return (
            f"round {self.round + 1}, deal {self.deal + 1}, move {self.move_index + 1} "
            f"(ply {self.index}), seat {self.seat}"
        )


@dataclass(frozen=True)
class RoundReplay:
    """A re-played round: the state at its end (None when hands were unknown), the viewer's view at its
    end, and its score (None for a round in progress)."""

    index: int
    dealer: int
    final: RoundState | None
    final_observation: Observation | None
    score: RoundScore | None
    scores_before: tuple[Points, ...]


@dataclass
class Replay:
    """The result of re-playing a log: every ply, every round, and the game score."""

    log: GameLog
    plies: list[Ply]
    rounds: list[RoundReplay]
    match: Match
    state: RoundState | None = None  # where the log stops (full logs)
    viewer_observation: Observation | None = None  # where the log stops (viewer logs)
    complete: bool = False  # every round played out (the game may still go on)
    after: list[tuple[int, tuple[Build, ...]]] = field(default_factory=list)  # table after each ply
    sweeps: set[int] = field(default_factory=set)  # indices of the plies that swept the table

    @property
    def winner(self) -> int | None:
        return self.match.winner

    def summary_json(self) -> dict[str, Any]:
        """``{"rounds": [{"points", "breakdown", "sweeps"}], "totals", "winner"}`` (replay-format.md),
        over the rounds that were played out."""
        rounds = [
            {
                "points": list(r.score.points),
                "breakdown": [dict(b) for b in r.score.breakdown],
                "sweeps": list(r.score.sweep_counts),
            }
            for r in self.rounds
            if r.score is not None
        ]
        return {"rounds": rounds, "totals": list(self.match.scores), "winner": self.match.winner}


def _viewer_start(log: GameLog, dealer: int, table: int, hand: int) -> Observation:
    n, nsides = log.nplayers, log.nsides
    if table & hand:
        raise CardError(f"seat {log.viewer}: card {mask_names(table & hand)[0]} is dealt twice")
    seat = log.viewer if log.viewer is not None else 0
    return first_deal_observation(seat, n, nsides, dealer, table, hand)


def replay(log: GameLog) -> Replay:
    """Re-play ``log`` through the engine; raise LogError at the first problem, naming where it is."""
    rules = log.rules
    n = log.nplayers
    nsides = log.nsides
    match = Match(rules, nsides)
    plies: list[Ply] = []
    rounds: list[RoundReplay] = []
    per_round = deals_per_round(n)
    ply_index = 0
    rep = Replay(log, plies, rounds, match)
    prev_dealer: int | None = None
    for ri, rlog in enumerate(log.rounds):
        rw = f"round {ri + 1}"
        last_round = ri == len(log.rounds) - 1
        if match.over:
            raise LogError(f"{rw}: the game was already won by side {match.winner} after round {ri}")
        if prev_dealer is not None and rlog.dealer != (prev_dealer + 1) % n:
            raise LogError(
                f"{rw}: the dealer must be seat {(prev_dealer + 1) % n}, the seat after "
                f"the last dealer (rules.md 1.3.1), got {rlog.dealer}"
            )
        prev_dealer = rlog.dealer
        if not rlog.deals:
            if not last_round:
                raise LogError(f"{rw}: a round with no deals can only be the last of a log")
            if rlog.result is not None:
                raise LogError(f"{rw}, result: the round was not played out, so it has no result")
            break
        if len(rlog.deals) > per_round:
            raise LogError(
                f"{rw}: {len(rlog.deals)} deals, but a round of {n} players has {per_round} (rules.md 1.3.4)"
            )
        scores_before = tuple(match.scores)
        state: RoundState | None = None
        vobs: Observation | None = None
        full = all(h is not None for d in rlog.deals for h in d.hands)
        known_left: list[int | None] = []  # other seats' hands given in a viewer log
        for di, dlog in enumerate(rlog.deals):
            dw = f"{rw}, deal {di + 1}"
            try:
                if di == 0:
                    assert dlog.table is not None
                    if full:
                        hands = tuple(h for h in dlog.hands if h is not None)
                        state = new_round(n, nsides, rlog.dealer, dlog.table, hands)
                        if log.viewer is not None:
                            vobs = observe(state, log.viewer)
                    else:
                        own = dlog.hands[log.viewer] if log.viewer is not None else None
                        assert own is not None
                        vobs = _viewer_start(log, rlog.dealer, dlog.table, own)
                        _check_given(dlog.hands, vobs.unseen, log.viewer)
                else:
                    if state is not None:
                        if not state.needs_deal:
                            raise LogError(f"{dw}: dealt before every hand of the last deal was played")
                        state = deal(state, tuple(h for h in dlog.hands if h is not None))
                        if log.viewer is not None:
                            vobs = observe(state, log.viewer)
                    else:
                        assert vobs is not None and log.viewer is not None
                        own = dlog.hands[log.viewer]
                        assert own is not None
                        if own & ~vobs.unseen:
                            raise CardError(
                                f"seat {log.viewer}: card {mask_names(own & ~vobs.unseen)[0]} "
                                "is not available to deal (already on the table, dealt "
                                "or played)"
                            )
                        vobs = observe_deal(vobs, own)
                        _check_given(dlog.hands, vobs.unseen, log.viewer)
            except (CardError, CoachError) as e:
                if isinstance(e, LogError):
                    raise
                raise LogError(f"{dw}: {e}") from None
            known_left = list(dlog.hands)
            for mi, (seat, move) in enumerate(dlog.moves):
                mw = f"{dw}, move {mi + 1} (ply {ply_index}), seat {seat}, card {card_name(move.card)}"
                to_move = state.to_move if state is not None else (vobs.to_move if vobs else 0)
                if mi >= HAND_SIZE * n:
                    raise LogError(
                        f"{mw}: a deal has {HAND_SIZE * n} moves ({n} seats x "
                        f"{HAND_SIZE} cards); the next deal must come first"
                    )
                if seat != to_move:
                    raise LogError(
                        f"{mw}: it is seat {to_move}'s turn, not seat {seat}'s "
                        "(seats play in turn, rules.md 1.3.6)"
                    )
                if state is not None:
                    obs_mover: Observation | None = observe(state, seat)
                else:
                    obs_mover = vobs if seat == log.viewer else None
                plies.append(Ply(ply_index, ri, di, mi, seat, move, state, obs_mover, vobs, scores_before))
                if state is not None:
                    reason = illegal_reason(rules, state, move)
                    if reason:
                        raise LogError(f"{mw}: illegal move {_move_words(move)}: {reason}")
                    state = apply(rules, state, move)
                    if vobs is not None:
                        vobs = observe(state, log.viewer) if log.viewer is not None else None
                else:
                    assert vobs is not None
                    given = known_left[seat]
                    if given is not None and not given >> move.card & 1:
                        raise LogError(
                            f"{mw}: illegal move {_move_words(move)}: "
                            f"{card_name(move.card)} is not in the hand of seat {seat}"
                        )
                    try:
                        vobs = observe_move(rules, vobs, move)
                    except CoachError as e:
                        raise LogError(f"{mw}: illegal move {_move_words(move)}: {e}") from None
                    if given is not None:
                        known_left[seat] = given & ~(1 << move.card)
                view = state if state is not None else vobs
                assert view is not None
                rep.after.append((view.loose, view.builds))
                side = seat % nsides
                before = plies[-1].state or plies[-1].viewer_observation
                if before is not None and view.sweeps[side] > before.sweeps[side]:
                    rep.sweeps.add(ply_index)
                ply_index += 1
            played_out = len(dlog.moves) == HAND_SIZE * n
            if not played_out and not (last_round and di == len(rlog.deals) - 1):
                raise LogError(
                    f"{dw}: only {len(dlog.moves)} of {HAND_SIZE * n} moves, but only the "
                    "last deal of a log may stop early"
                )
        finished = len(rlog.deals) == per_round and len(rlog.deals[-1].moves) == HAND_SIZE * n
        if not finished and not last_round:
            raise LogError(
                f"{rw}: only {len(rlog.deals)} of {per_round} deals, but only the last "
                "round of a log may stop early"
            )
        score: RoundScore | None = None
        if finished:
            end = (
                state
                if state is not None
                else (as_state(vobs, (0,) * n, False) if vobs is not None else None)
            )
            assert end is not None
            score = match.add_round(end)
            if rlog.result is not None and not _same_points(rlog.result, score.points):
                raise LogError(
                    f"{rw}, result: the log declares points {_pts(rlog.result)}, but the "
                    f"round scores {_pts(score.points)} "
                    f"({_breakdown_words(score)})"
                )
        elif rlog.result is not None:
            raise LogError(f"{rw}, result: the round was not played out, so it has no result")
        rounds.append(RoundReplay(ri, rlog.dealer, state, vobs, score, scores_before))
        rep.state, rep.viewer_observation = state, vobs
    rep.complete = (
        bool(rounds) and all(r.score is not None for r in rounds) and len(rounds) == len(log.rounds)
    )
    return rep


def _check_given(hands: tuple[int | None, ...], unseen: int, viewer: int | None) -> None:
    """In a viewer log, other seats' hands that are given must be unseen cards, each dealt once."""
    seen = 0
    for s, h in enumerate(hands):
        if h is None or s == viewer:
            continue
        if h & seen:
            raise CardError(f"seat {s}: card {mask_names(h & seen)[0]} is dealt twice")
        if h & ~unseen:
            raise CardError(
                f"seat {s}: card {mask_names(h & ~unseen)[0]} is not available to deal "
                "(already on the table, dealt or played)"
            )
        seen |= h


def _same_points(a: Sequence[Points], b: Sequence[Points]) -> bool:
    return len(a) == len(b) and all(abs(x - y) < 1e-9 for x, y in zip(a, b, strict=True))


def _pts(points: Sequence[Points]) -> str:
    return "[" + ", ".join(str(p) for p in points) + "]"


def _breakdown_words(score: RoundScore) -> str:
    parts = []
    for side, b in enumerate(score.breakdown):
        items = [f"{k} {v}" for k, v in b.items() if not k.endswith("_count") and v]
        parts.append(f"side {side}: " + (", ".join(items) if items else "nothing"))
    return "; ".join(parts)


def _move_words(move: Move) -> str:
    return f"'{move.describe()}'"


def legal_at(rules: RuleSet, ply: Ply) -> list[Move]:
    """The legal moves of the mover at ``ply``; LogError when the mover's hand is unknown (viewer logs)."""
    if ply.state is not None:
        return legal_moves(rules, ply.state)
    if ply.observation is not None:
        obs = ply.observation
        return own_moves(rules, obs)
    raise LogError(
        f"{ply.where}: the hand of seat {ply.seat} is not in the log (a viewer log of "
        f"seat {_viewer_of(ply)}), so its legal moves are unknown"
    )


def _viewer_of(ply: Ply) -> str:
    return str(ply.viewer_observation.seat) if ply.viewer_observation is not None else "?"


# ---------------------------------------------------------------------------------------------------
# Positions


def _split_ok(cards: list[int], value: int, pv: tuple[int, ...]) -> bool:
    """Do ``cards`` split into disjoint sets each worth ``value`` (rules.md 1.5)? Only the cards'
    values matter, so the search runs over how many cards of each value are left (memoised): a few
    milliseconds for any build, where trying every subset took minutes past 20 cards."""
    counts = [0] * (max(value, max((pv[c] for c in cards), default=0)) + 1)
    for c in cards:
        counts[pv[c]] += 1
    if sum(v * n for v, n in enumerate(counts)) % value or counts[0]:
        return False
    return _splits(tuple(counts), value)


@functools.lru_cache(maxsize=1 << 14)
def _splits(counts: tuple[int, ...], value: int) -> bool:
    top = next((v for v in range(len(counts) - 1, 0, -1) if counts[v]), 0)
    if not top:
        return True
    if top > value:
        return False
    left = list(counts)
    left[top] -= 1
    return _fill(left, value - top, top, value)


def _fill(left: list[int], need: int, cap: int, value: int) -> bool:
    """Complete the set being made (``need`` more, from values at most ``cap``), then split the rest."""
    if need == 0:
        return _splits(tuple(left), value)
    for v in range(min(need, cap), 0, -1):
        if left[v]:
            left[v] -= 1
            ok = _fill(left, need - v, v, value)
            left[v] += 1
            if ok:
                return True
    return False


def observation_from_position(
    rules: RuleSet,
    nplayers: int,
    to_move: int,
    hand: int,
    loose: int,
    builds: Sequence[Build],
    hand_sizes: Sequence[int] | None = None,
    stock: int = 0,
    seen: int = 0,
    captured: Sequence[int] | None = None,
    sweeps: Sequence[int] | None = None,
    last_capture: int = -1,
    scores: Sequence[Points] | None = None,
    partnerships: bool = True,
    dealer: int | None = None,
) -> Observation:
    """The ``Observation`` of the seat to move in a position given piece by piece (masks for card sets;
    ``stock`` is a count of cards still to be dealt). Checks it is consistent; LogError otherwise.
    Cards not in the hand, on the table, captured or ``seen`` are unseen."""
    if nplayers not in PLAYER_COUNTS:
        raise LogError(f"players: Casino is played by 2, 3 or 4 players, not {nplayers}")
    nsides = sides_for(nplayers, partnerships)
    if not 0 <= to_move < nplayers:
        raise LogError(f"to_move: must be a seat from 0 to {nplayers - 1}, got {to_move}")
    if not hand:
        raise LogError("hand: the seat to move must hold at least one card")
    placed = hand
    if loose & placed:
        raise LogError(f"table: card {mask_names(loose & placed)[0]} is also in the hand")
    placed |= loose
    pv = rules.pair_value
    blist: list[Build] = []
    for i, b in enumerate(builds):
        bw = f"table, build {i + 1}"
        if b.cards & placed:
            raise LogError(f"{bw}: card {mask_names(b.cards & placed)[0]} is in two places")
        placed |= b.cards
        if b.cards.bit_count() < 2:
            raise LogError(f"{bw}: a build has at least two cards")
        if not 1 <= b.value <= rules.max_build:
            raise LogError(
                f"{bw}: value {b.value} is not from 1 to {rules.max_build} in {rules.preset} (rules.md 1.2)"
            )
        if not _split_ok(list(iter_cards(b.cards)), b.value, pv):
            raise LogError(f"{bw}: cards {' '.join(names(b.cards))} do not split into sets worth {b.value}")
        if not 0 <= b.owner < nplayers:
            raise LogError(f"{bw}: owner must be a seat from 0 to {nplayers - 1}, got {b.owner}")
        multiple = sum(pv[c] for c in iter_cards(b.cards)) != b.value
        blist.append(b._replace(multiple=multiple))
    if seen & placed:  # seen cards are gone from play (captured ones may be listed too)
        raise LogError(f"seen: card {mask_names(seen & placed)[0]} is also in the hand or on the table")
    caps = tuple(captured) if captured is not None else (0,) * nsides
    if len(caps) != nsides:
        raise LogError(f"captured: expected one pile per side, {nsides} in all, got {len(caps)}")
    for side, p in enumerate(caps):
        if p & placed:
            raise LogError(f"captured, side {side}: card {mask_names(p & placed)[0]} is in two places")
        placed |= p
    sizes = tuple(hand_sizes) if hand_sizes is not None else (hand.bit_count(),) * nplayers
    if len(sizes) != nplayers or not all(0 <= x <= HAND_SIZE for x in sizes):
        raise LogError(f"hand_sizes: expected {nplayers} numbers from 0 to {HAND_SIZE}, got {list(sizes)}")
    if sizes[to_move] != hand.bit_count():
        raise LogError(f"hand_sizes: seat {to_move} holds {hand.bit_count()} cards, not {sizes[to_move]}")
    if stock < 0 or stock % (HAND_SIZE * nplayers):
        raise LogError(f"stock: {stock} is not a whole number of deals of {HAND_SIZE * nplayers} cards")
    unseen = FULL_DECK & ~(placed | seen)
    hidden = sum(sizes) - sizes[to_move] + stock
    if hidden > unseen.bit_count():
        raise LogError(
            f"hand_sizes and stock need {hidden} unseen cards, but only "
            f"{unseen.bit_count()} cards are not listed anywhere"
        )
    sw = tuple(sweeps) if sweeps is not None else (0,) * nsides
    if len(sw) != nsides or any(x < 0 for x in sw):
        raise LogError(f"sweeps: expected {nsides} counts, one per side, got {list(sw)}")
    if not -1 <= last_capture < nsides:
        raise LogError(f"last_capture: must be null or a side from 0 to {nsides - 1}, got {last_capture}")
    if scores is not None and len(scores) != nsides:
        raise LogError(f"scores: expected one score per side, {nsides} in all, got {len(scores)}")
    return Observation(
        seat=to_move,
        hand=hand,
        loose=loose,
        builds=tuple(sorted(blist)),
        captured=caps,
        sweeps=sw,
        to_move=to_move,
        last_capturer=last_capture,
        dealer=(to_move - 1) % nplayers if dealer is None else dealer,
        nsides=nsides,
        hand_sizes=sizes,
        stock_count=stock,
        unseen=unseen,
        known=tuple(hand if s == to_move else 0 for s in range(nplayers)),
    )


def read_position(source: bytes | str | Path) -> Position:
    """Read a ``casino-position`` v1 (bytes, JSON text, or a path); LogError saying which field."""
    obj = _load(source)
    _check_format(obj, POSITION_FORMAT)
    return _position_from_obj(obj)


def _int_list(obj: Mapping[str, Any], key: str, size: int | None) -> list[int] | None:
    v = obj.get(key)
    if v is None:
        return None
    if (
        not isinstance(v, list)
        or (size is not None and len(v) != size)
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)
    ):
        what = f"{size} whole numbers" if size is not None else "a list of whole numbers"
        raise LogError(f"{key}: expected {what}, got {shown(v)}")
    return list(v)


def _position_from_obj(obj: Mapping[str, Any]) -> Position:
    rules = _rules(obj)
    players_raw = obj.get("players")
    if isinstance(players_raw, list) and all(isinstance(p, str) for p in players_raw):
        players_raw = len(players_raw)
    if not isinstance(players_raw, int) or isinstance(players_raw, bool) or players_raw not in PLAYER_COUNTS:
        raise LogError(f"players: expected the number of players, 2, 3 or 4, got {shown(players_raw)}")
    n = players_raw
    partnerships, rules = _partnerships(obj, rules, n)
    nsides = sides_for(n, partnerships)
    to_move = _int(obj, "to_move", "position", 0, n - 1)
    if "hand" not in obj:
        raise LogError("position: missing 'hand'")
    hand = _cards(obj["hand"], "hand")
    if "table" not in obj:
        raise LogError("position: missing 'table'")
    table = obj["table"]
    builds: list[Build] = []
    if isinstance(table, list):
        loose = _cards(table, "table")
    elif isinstance(table, Mapping):
        loose = _cards(table.get("loose", []), "table, loose")
        braw = table.get("builds", [])
        if not isinstance(braw, list):
            raise LogError(f"table, builds: expected a list of builds, got {shown(braw)}")
        for i, b in enumerate(braw):
            bw = f"table, build {i + 1}"
            if not isinstance(b, Mapping):
                raise LogError(
                    f'{bw}: expected {{"cards": [...], "value": v, "owner": seat}}, got {shown(b)}'
                )
            cards = _cards(b.get("cards"), f"{bw}, cards")
            value = _int(b, "value", bw, 1, 14)
            owner = _int(b, "owner", bw, 0, n - 1)
            mult = b.get("multiple")
            total = sum(rules.pair_value[c] for c in iter_cards(cards))
            if mult is not None and (not isinstance(mult, bool) or mult != (total != value)):
                raise LogError(
                    f"{bw}: 'multiple' is {shown(mult)}, but cards summing to "
                    f"{total} with value {value} make a "
                    f"{'multiple' if total != value else 'single'} build"
                )
            builds.append(Build(cards, value, owner, total != value))
    else:
        raise LogError(f'table: expected {{"loose": [...], "builds": [...]}}, got {shown(table)}')
    sizes = _int_list(obj, "hand_sizes", n)
    stock = _int(obj, "stock", "position", 0, 52, 0)
    seen = _cards(obj.get("seen") or [], "seen")
    captured: list[int] | None = None
    craw = obj.get("captured")
    if craw is not None:
        if not isinstance(craw, list) or len(craw) != nsides:
            raise LogError(
                f"captured: expected one list of cards per side, {nsides} in all, got {shown(craw)}"
            )
        captured = [_cards(p, f"captured, side {s}") for s, p in enumerate(craw)]
    sweeps = _int_list(obj, "sweeps", nsides)
    last = obj.get("last_capture")
    if last is None:
        last = -1
    elif not isinstance(last, int) or isinstance(last, bool):
        raise LogError(f"last_capture: must be null or a side number, got {shown(last)}")
    scores_raw = obj.get("scores")
    scores: tuple[Points, ...]
    if scores_raw is None:
        scores = (0,) * nsides
    else:
        if (
            not isinstance(scores_raw, list)
            or len(scores_raw) != nsides
            or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in scores_raw)
        ):
            raise LogError(f"scores: expected one number per side, {nsides} in all, got {shown(scores_raw)}")
        scores = tuple(scores_raw)
    dealer = obj.get("dealer")
    if dealer is not None and (
        not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n
    ):
        raise LogError(f"dealer: must be a seat from 0 to {n - 1}, got {shown(dealer)}")
    obs = observation_from_position(
        rules,
        n,
        to_move,
        hand,
        loose,
        builds,
        hand_sizes=sizes,
        stock=stock,
        seen=seen,
        captured=captured,
        sweeps=sweeps,
        last_capture=last,
        scores=scores,
        partnerships=partnerships,
        dealer=dealer,
    )
    return Position(rules, n, obs, scores, partnerships)


def position_to_obj(pos: Position) -> dict[str, Any]:
    """The JSON object of a position (what ``position_to_json`` writes)."""
    obs = pos.observation
    out: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "version": VERSION,
        "rules": pos.rules.to_dict(),
        "players": pos.players,
        "to_move": obs.to_move,
        "hand": names(obs.hand),
        "table": {
            "loose": names(obs.loose),
            "builds": [
                {"cards": names(b.cards), "value": b.value, "owner": b.owner, "multiple": b.multiple}
                for b in obs.builds
            ],
        },
        "hand_sizes": list(obs.hand_sizes),
        "stock": obs.stock_count,
        "seen": names(FULL_DECK & ~obs.unseen & ~obs.hand & ~obs.table),
        "captured": [names(p) for p in obs.captured],
        "sweeps": list(obs.sweeps),
        "last_capture": obs.last_capturer if obs.last_capturer >= 0 else None,
        "scores": list(pos.scores),
        "dealer": obs.dealer,
    }
    if pos.players == 4:
        out["partnerships"] = pos.partnerships
    return out


def position_to_json(pos: Position) -> bytes:
    """The canonical JSON of a position."""
    return _dumps(position_to_obj(pos))


def position_at(log: GameLog, ply: Ply) -> Position:
    """The position before ``ply`` as the mover sees it; LogError when the mover's hand is unknown."""
    if ply.observation is None:
        legal_at(log.rules, ply)  # raises the explanation
    assert ply.observation is not None
    return Position(log.rules, log.nplayers, ply.observation, ply.scores, log.partnerships)


def end_observation(rep: Replay) -> Observation:
    """The view of the seat to move where a log in progress stops (the position ``suggest`` helps with).

    LogError when the log does not stop mid-deal with a known hand to move: the game is over, the next
    deal or round is not in the log, or (viewer logs) another seat is to move."""
    last = rep.rounds[-1] if rep.rounds else None
    if last is None or last.score is not None:
        what = "the game is over" if rep.match.over else "the next round's deal is not in the log"
        raise LogError(f"the log stops between rounds: {what}")
    if rep.state is not None:
        if rep.state.needs_deal:
            raise LogError("the log stops between deals: the next deal is not in the log")
        return observe(rep.state, rep.state.to_move)
    obs = rep.viewer_observation
    assert obs is not None
    if not any(obs.hand_sizes):
        raise LogError("the log stops between deals: the next deal is not in the log")
    if obs.to_move != obs.seat:
        raise LogError(
            f"the log stops with seat {obs.to_move} to move, whose hand is not in the log "
            f"(a viewer log of seat {obs.seat})"
        )
    return obs


def end_position(rep: Replay) -> Position:
    """``end_observation`` as a ``Position`` with the game scores."""
    log = rep.log
    return Position(log.rules, log.nplayers, end_observation(rep), tuple(rep.match.scores), log.partnerships)


def legal_in(rules: RuleSet, obs: Observation) -> list[Move]:
    """The legal moves of the seat to move, from its own observation (its own hand decides)."""
    if obs.to_move != obs.seat:
        raise LogError(f"seat {obs.to_move} is to move, but this is the view of seat {obs.seat}")
    return own_moves(rules, obs)
