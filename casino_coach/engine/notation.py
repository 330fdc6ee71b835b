"""The compact text forms of moves, hands and tables, for people typing positions.

Moves::

    7H                 trail the 7♥
    8C x 3H 5S         the 8♣ captures 3♥ and 5♠ (also "8Cx3H+5S", "8c: 3h, 5s")
    3H b8 2D 3C        the 3♥ builds 8 with 2♦ and 3♣ (also "3H =8 2D 3C")
    7H t b8 2D 6C      trail the 7♥ beside a build of 8 made of table cards (table_only_builds)

Tables: loose cards, then builds in brackets with their value and owner seat::

    AC 2D [6S 3H =9 @1] [5C 5D =5 @0]

``move_text`` / ``parse_move`` and ``table_text`` / ``parse_table`` round-trip. Cards take every form of
replay-format.md (``10D``, ``td``, ``10♦``).
"""

from __future__ import annotations

import re

from casino_coach.engine.cards import card_name, iter_cards, mask_symbols, parse_card
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move
from casino_coach.engine.state import Build
from casino_coach.errors import CardError, NotationError, quoted

_CARD = r"(?:10|[2-9tjqka])[cdhs♣♦♥♠♧♢♡♤]"
_TOKEN = re.compile(
    rf"\s*(?:(?P<card>{_CARD})|(?P<x>x|\*|:)|(?P<b>(?:b|=)\s*(?P<v>\d+)(?![cdhs♣♦♥♠]))"
    r"|(?P<t>t|-)(?![a-z0-9])|(?P<sep>[,+]))",
    re.IGNORECASE,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            rest = text[pos:].strip().split()[0] if text[pos:].strip() else text[pos:]
            raise NotationError(
                f"cannot read {quoted(rest)} in move {quoted(text)}: expected a card like 8C, "
                "'x' (capture), 'b8' (build 8) or 't' (trail)"
            )
        pos = m.end()
        kind = m.lastgroup or ""
        if kind == "v":
            kind = "b"
        if kind == "sep":
            continue
        if kind == "card":
            out.append(("card", m.group("card")))
        elif kind == "b":
            out.append(("b", m.group("v")))
        else:
            out.append((kind, m.group(kind)))
    return out


def parse_move(text: str) -> Move:
    """Read a move in the compact notation; raise NotationError saying what is wrong."""
    toks = _tokens(text)
    if not toks or toks[0][0] != "card":
        raise NotationError(f"a move starts with the card played, like '8C x 3H 5S'; got {quoted(text)}")
    try:
        card = parse_card(toks[0][1])
        action = TRAIL
        value = 0
        take = 0
        rest = toks[1:]
        if rest and rest[0][0] == "t":
            rest = rest[1:]
            if rest and rest[0][0] == "b":
                value = int(rest[0][1])
                rest = rest[1:]
        elif rest and rest[0][0] == "x":
            action = CAPTURE
            rest = rest[1:]
        elif rest and rest[0][0] == "b":
            action = BUILD
            value = int(rest[0][1])
            rest = rest[1:]
        for kind, tok in rest:
            if kind != "card":
                raise NotationError(
                    f"unexpected {quoted(tok)} in move {quoted(text)}: after the action come "
                    "only the table cards it involves"
                )
            c = parse_card(tok)
            if take >> c & 1:
                raise NotationError(f"card {card_name(c)} is listed twice in move {quoted(text)}")
            if c == card:
                raise NotationError(f"the played card {card_name(c)} cannot also be a table card")
            take |= 1 << c
    except CardError as e:
        raise NotationError(f"in move {quoted(text)}: {e}") from None
    if action == CAPTURE and not take:
        raise NotationError(f"a capture lists the cards it takes, like '8C x 3H 5S'; got {quoted(text)}")
    if action == BUILD and not take:
        raise NotationError(f"a build lists the table cards it uses, like '3H b8 5D'; got {quoted(text)}")
    if action == TRAIL and value and not take:
        raise NotationError(f"a trail with a build lists its table cards; got {quoted(text)}")
    return Move(card, action, take, value)


def _names(mask: int) -> str:
    return " ".join(card_name(c) for c in iter_cards(mask))


def move_text(move: Move) -> str:
    """The canonical compact form of a move (the inverse of ``parse_move``)."""
    c = card_name(move.card)
    if move.action == CAPTURE:
        return f"{c} x {_names(move.take)}"
    if move.action == BUILD:
        return f"{c} b{move.value} {_names(move.take)}"
    if move.take:
        return f"{c} t b{move.value} {_names(move.take)}"
    return c


def parse_hand(text: str) -> int:
    """Read cards separated by spaces, commas or '+' into a mask."""
    mask = 0
    for tok in re.split(r"[\s,+]+", text.strip()):
        if not tok:
            continue
        try:
            c = parse_card(tok)
        except CardError as e:
            raise NotationError(f"in {quoted(text)}: {e}") from None
        if mask >> c & 1:
            raise NotationError(f"card {card_name(c)} is listed twice in {quoted(text)}")
        mask |= 1 << c
    return mask


_BUILD_RE = re.compile(r"\[([^\]]*)\]")


def parse_table(
    text: str, *, pair_value: tuple[int, ...] | None = None, default_owner: int = 0
) -> tuple[int, tuple[Build, ...]]:
    """Read a table: loose cards and ``[cards =value @owner]`` builds. Returns (loose, builds).

    A build without ``=value`` is worth the sum of its cards (aces 1); without ``@owner`` it belongs
    to ``default_owner``. ``pair_value`` (from the rule set) decides single or multiple.
    """
    from casino_coach.engine.cards import RANK

    pv = pair_value or tuple(RANK[c] + 1 for c in range(52))
    builds: list[Build] = []
    seen = 0
    for m in _BUILD_RE.finditer(text):
        body = m.group(1)
        value_m = re.search(r"=\s*(\d+)", body)
        owner_m = re.search(r"@\s*(\d+)", body)
        cards_text = re.sub(r"[=@]\s*\d+", " ", body)
        cards = parse_hand(cards_text)
        if cards.bit_count() < 2:
            raise NotationError(f"a build has at least two cards: [{body}]")
        total = sum(pv[c] for c in iter_cards(cards))
        value = int(value_m.group(1)) if value_m else total
        if value < 1 or total % value:
            raise NotationError(f"the cards of [{body}] do not make sets worth {value}")
        owner = int(owner_m.group(1)) if owner_m else default_owner
        if cards & seen:
            raise NotationError(f"a card appears twice on the table in {quoted(text)}")
        seen |= cards
        builds.append(Build(cards, value, owner, total != value))
    rest = _BUILD_RE.sub(" ", text)
    if "[" in rest or "]" in rest:
        raise NotationError(f"unbalanced brackets in table {quoted(text)}")
    loose = parse_hand(rest)
    if loose & seen:
        raise NotationError(f"a card appears twice on the table in {quoted(text)}")
    return loose, tuple(sorted(builds))


def table_text(loose: int, builds: tuple[Build, ...]) -> str:
    """The canonical compact form of a table (the inverse of ``parse_table``)."""
    parts = [_names(loose)] if loose else []
    parts += [f"[{_names(b.cards)} ={b.value} @{b.owner}]" for b in builds]
    return " ".join(parts)


def table_words(loose: int, builds: tuple[Build, ...]) -> str:
    """The table for people, in card symbols: "A♣ 2♦ [6♠ 3♥ =9]", or "(empty)"."""
    parts = [mask_symbols(loose)] if loose else []
    parts += [f"[{mask_symbols(b.cards)} ={b.value}]" for b in builds]
    return " ".join(parts) or "(empty)"
