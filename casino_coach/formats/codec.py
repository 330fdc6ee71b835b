"""The JSON of cards, moves and rules shared by the log and the position formats (replay-format.md):
each card a name like ``"TD"``, a move an object with its seat, action, card, cards taken and value,
and the field readers that say where a bad value is and why (``LogError``). ``dumps`` writes the
canonical form: sorted keys, 2-space indent, a newline at the end."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from casino_coach.engine.cards import card_name, mask_names, parse_card
from casino_coach.engine.movegen import (
    ACTION_NAMES,
    BUILD,
    CAPTURE,
    TRAIL,
    Move,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import CardError, LogError, RulesError, UsageError, shown
from casino_coach.formats import jsonio

LOG_FORMAT = "casino-replay"
POSITION_FORMAT = "casino-position"
VERSION = 1


def read_card(text: Any, where: str) -> int:
    if not isinstance(text, str):
        raise LogError(f'{where}: expected a card like "8C", got {shown(text)}')
    try:
        return parse_card(text)
    except CardError as e:
        raise LogError(f"{where}: {e}") from None


def read_cards(items: Any, where: str, *, size: int | None = None) -> int:
    if not isinstance(items, list):
        raise LogError(f"{where}: expected a list of cards, got {shown(items)}")
    m = 0
    for t in items:
        c = read_card(t, where)
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
    c = read_card(obj["card"], f"{where}, card")
    action_text = obj.get("action", "trail")
    if action_text not in ACTION_NAMES:
        raise LogError(
            f"{where}, card {card_name(c)}: unknown action {shown(action_text)} (trail, capture or build)"
        )
    action = ACTION_NAMES.index(action_text)
    take_raw = obj.get("take", [])
    take = read_cards([] if take_raw is None else take_raw, f"{where}, card {card_name(c)}, take")
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


def load(source: bytes | str | Path) -> Any:
    if isinstance(source, Path):
        data = jsonio.read_bytes(source)
    elif isinstance(source, str):
        data = source.encode() if source.lstrip().startswith(("{", "[")) else jsonio.read_bytes(source)
    else:
        data = source
    return jsonio.loads(data)


def check_format(obj: Any, expected: str | None) -> str:
    if not isinstance(obj, Mapping):
        want = f'"{expected}"' if expected else f'"{LOG_FORMAT}" or "{POSITION_FORMAT}"'
        raise LogError(f'expected a JSON object with "format": {want}, got {shown(obj)}')
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


def read_rules(obj: Mapping[str, Any]) -> RuleSet:
    raw = obj.get("rules", {"preset": "classic"})
    if isinstance(raw, Mapping) and not isinstance(raw.get("preset", "classic"), str):
        raise LogError(f"rules: 'preset' must be classic, royal or dominican, got {shown(raw['preset'])}")
    try:
        return RuleSet.from_dict(raw if raw is not None else {"preset": "classic"})
    except RulesError as e:
        text = str(e)
        raise LogError(text if text.startswith("rules: ") else f"rules: {text}") from None


def read_int(obj: Mapping[str, Any], key: str, where: str, lo: int, hi: int, default: Any = ...) -> int:
    if key not in obj:
        if default is ...:
            raise LogError(f"{where}: missing '{key}'")
        return int(default)
    v = obj[key]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise LogError(f"{where}: '{key}' must be a whole number from {lo} to {hi}, got {shown(v)}")
    return v


def read_partnerships(obj: Mapping[str, Any], rules: RuleSet, nplayers: int) -> tuple[bool, RuleSet]:
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


def dumps(obj: Any) -> bytes:
    """Canonical JSON of any object (sorted keys, 2-space indent, newline at the end)."""
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def parse_options(items: list[str]) -> dict[str, object]:
    """Rule options typed as ``NAME=VALUE`` pairs (``-r`` on the command line); VALUE is JSON (true,
    3, "most_spades", a list), a bare word, or bare words separated by commas (a list). UsageError
    for an item that is not NAME=VALUE; RulesError for a VALUE meant as JSON (a list, an object)
    that does not read."""
    out: dict[str, object] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:  # the command line's syntax, not the rules': a usage error
            raise UsageError(f"option {item!r}: expected NAME=VALUE, like sweeps=true")
        try:
            value = jsonio.loads(raw, RulesError)
        except RulesError as e:
            if raw.lstrip().startswith(("[", "{")):  # meant as JSON: say what is wrong with it
                raise RulesError(f"option {name.strip()!r}: {e}") from None
            # Bare words with commas are a list, as ``rules`` shows one ("spades, cards, aces, ...").
            out[name.strip()] = [w.strip() for w in raw.split(",")] if "," in raw else raw.strip()
            continue
        if isinstance(value, float) and raw.strip().lstrip("-").isdecimal():
            # A whole number past 64 bits reads as a float (1e+23): no rule option takes one so large.
            raise RulesError(f"option {name.strip()!r}: {raw.strip()} is too large a number")
        out[name.strip()] = value
    return out
