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
from collections.abc import Callable, Sequence

from casino_coach.engine.cards import (
    RANK,
    RANKS,
    card_name,
    card_symbol,
    iter_cards,
    mask_symbols,
    parse_card,
)
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move, legal_moves
from casino_coach.engine.reasons import illegal_reason
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState
from casino_coach.errors import AmbiguousMoveError, CardError, IllegalMoveError, NotationError, quoted

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


def _names(mask: int, name: Callable[[int], str] = card_name) -> str:
    return " ".join(name(c) for c in iter_cards(mask))


def move_text(move: Move, name: Callable[[int], str] = card_name) -> str:
    """The canonical compact form of a move (the inverse of ``parse_move``), its cards written by
    ``name`` (``card_symbol`` for the form people read, which ``parse_move`` reads as well)."""
    c = name(move.card)
    if move.action == CAPTURE:
        return f"{c} x {_names(move.take, name)}"
    if move.action == BUILD:
        return f"{c} b{move.value} {_names(move.take, name)}"
    if move.take:
        return f"{c} t b{move.value} {_names(move.take, name)}"
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


# ---------------------------------------------------------------------------------------------------
# Completing a move typed at the keyboard (``casino-coach play``): a unique prefix of a legal move

# The words of an action a person may type after the card.
_TYPED_ACTIONS = {
    "x": "x",
    "*": "x",
    ":": "x",
    "take": "x",
    "takes": "x",
    "capture": "x",
    "captures": "x",
    "t": "t",
    "-": "t",
    "trail": "t",
    "trails": "t",
    "b": "b",
    "=": "b",
    "build": "b",
    "builds": "b",
}
# A typed line's tokens: looser than ``_TOKEN`` (any word is a token, so that a typo can be named).
_TYPED = re.compile(r"(?:10|[2-9tjqka])[cdhs♣♦♥♠♧♢♡♤]|[x*:+,-]|[b=]\d+|[a-z]+\d*|=|\d+|\S", re.IGNORECASE)
LISTED_IN_ERRORS = 6  # legal moves of the card named in an error message


def first_card(text: str) -> int:
    """The card a typed move starts with, or -1 when it starts with something else (a command)."""
    toks = _TYPED.findall(text)
    try:
        return parse_card(toks[0]) if toks else -1
    except CardError:
        return -1


def not_a_card(text: str, hand: int, legal: Sequence[Move], others: str = "") -> str:
    """Why ``text`` is not a move: its first word is no card. The card of ``hand`` it probably means,
    or what a move looks like (``others``: what else may be typed, as ", a move number, or help")."""
    first = text.split()[0] if text.split() else text
    guess = card_guess(first, hand)
    if guess:
        return f"{quoted(first)} is not a card: did you mean {guess}? Your hand: {mask_symbols(hand)}"
    example = typed_text(legal[0]) if legal else "8C x 3H 5S"
    return (
        f"Cannot read {quoted(text)}: type a move like '{example}'{others} "
        "(cards are a rank A 2-10 J Q K and a suit C D H S, like 10D or QS)"
    )


def typed_text(move: Move, symbols: bool = False) -> str:
    """A move as the person types it: the notation (``move_text``), with a plain trail written
    ``7H t``. A bare ``7H`` at the keyboard is every move of the 7♥ (it completes when there is one),
    so the list must not show the trail as ``7H``: what the list shows, typed, is that move.
    ``symbols`` writes the cards as the board shows them (``7♠ b10 3♦ 10♠``), which reads back the
    same."""
    text = move_text(move, card_symbol if symbols else card_name)
    return f"{text} t" if move.action == TRAIL and not move.take else text


def complete_move(rules: RuleSet, state: RoundState, text: str, legal: Sequence[Move] | None = None) -> Move:
    """The legal move of the seat to move that ``text`` means, completing a unique prefix.

    ``8C`` is the 8♣'s only legal move, ``8C x`` its only capture, ``3H b8`` its only build of 8, and
    ``8C x 3H`` the only capture of the 8♣ that takes the 3♥ (a move typed in full is taken as
    typed). Otherwise it raises, with a message that says what is wrong and suggests what may be
    meant: NotationError when the text cannot be read (a typo, a misspelt command),
    IllegalMoveError when it names no legal move (a card not held, a card not on the table, the rule
    it breaks), AmbiguousMoveError with the candidates (in legal order) when several fit.
    """
    legal = list(legal) if legal is not None else legal_moves(rules, state)
    toks = _TYPED.findall(text)
    hand = state.hands[state.to_move]
    card = first_card(text)
    if card < 0:
        raise NotationError(not_a_card(text, hand, legal))
    if not hand >> card & 1:
        raise IllegalMoveError(not_held(card, hand))
    action, value, rest = _typed_action(toks[1:])
    listed = 0
    for tok in rest:
        if tok in "+,":
            continue
        try:
            c = parse_card(tok)
        except CardError:
            hint = "after the action come only the table cards it involves, like '8C x 3H 5S'"
            if tok.lower() in _TYPED_ACTIONS or re.fullmatch(r"[b=]\d*", tok.lower()):
                hint = "the action (x, b8 or t) comes right after the card played"
            raise NotationError(f"Cannot read {quoted(tok)} in {quoted(text)}: {hint}.") from None
        if not state.table >> c & 1:
            raise IllegalMoveError(
                f"{card_symbol(c)} is not on the table. The table: {table_words(state.loose, state.builds)}"
            )
        listed |= 1 << c
    own = [m for m in legal if m.card == card]
    if not own:
        reason = illegal_reason(rules, state, Move(card, TRAIL))
        raise IllegalMoveError(f"{card_symbol(card)} has no legal move now: {reason}.")
    cands = [m for m in own if _fits(m, action, value, listed)]
    if action is not None and (listed or action == "t"):  # "7H t" is the plain trail
        try:
            exact: Move | None = parse_move(text)
        except NotationError:
            exact = None
        if exact is not None and exact in cands:
            return exact
    if len(cands) == 1:
        return cands[0]
    if cands:
        raise AmbiguousMoveError(f"{quoted(text)} fits {len(cands)} moves", cands)
    try:
        reason = illegal_reason(rules, state, parse_move(text))
    except NotationError:
        reason = ""
    what = {"x": "capture", "b": "build", "t": "trail", None: "move"}[action]
    if value is not None and action == "b":
        what = f"build of {value}"
    lead = reason or f"{card_symbol(card)} has no legal {what} matching {quoted(text)}"
    index = {m: i + 1 for i, m in enumerate(legal)}
    nums = ", ".join(f"{index[m]}: {typed_text(m)}" for m in own[:LISTED_IN_ERRORS])
    more = (
        f", and {len(own) - LISTED_IN_ERRORS} more (moves lists them)" if len(own) > LISTED_IN_ERRORS else ""
    )
    raise IllegalMoveError(f"{lead[0].upper()}{lead[1:]}. Legal with {card_symbol(card)}: {nums}{more}")


def _typed_action(toks: list[str]) -> tuple[str | None, int | None, list[str]]:
    """The action typed after the card ("x", "b" or "t", or None), the build value typed with it, and
    the tokens after them (the table cards it involves)."""
    action: str | None = None
    value: int | None = None
    rest = toks
    if rest:
        head = rest[0].lower()
        m = re.fullmatch(r"(?:b|=|build|builds)(\d*)", head)
        if m:
            action = "b"
            rest = rest[1:]
            if m.group(1):
                value = int(m.group(1))
            elif rest and rest[0].isdecimal():
                value = int(rest[0])
                rest = rest[1:]
        elif head in _TYPED_ACTIONS:
            action = _TYPED_ACTIONS[head]
            rest = rest[1:]
            if action == "t" and rest and re.fullmatch(r"[b=]\d+", rest[0].lower()):
                value = int(rest[0][1:])
                rest = rest[1:]
    return action, value, rest


def _fits(m: Move, action: str | None, value: int | None, listed: int) -> bool:
    if action == "x" and m.action != CAPTURE:
        return False
    if action == "b" and (m.action != BUILD or (value is not None and m.value != value)):
        return False
    if action == "t" and (m.action != TRAIL or (value is not None and m.value != value)):
        return False
    return listed & ~m.take == 0


def not_held(card: int, hand: int) -> str:
    same = [c for c in iter_cards(hand) if RANK[c] == RANK[card]]
    guess = f" Did you mean {' or '.join(card_symbol(c) for c in same)}?" if same else ""
    return f"You do not hold {card_symbol(card)}.{guess} Your hand: {mask_symbols(hand)}"


def card_guess(tok: str, hand: int) -> str:
    """A card of the hand that a mistyped card probably means: same rank, or same suit."""
    t = tok.upper()
    rank = t[:-1] if len(t) > 1 else t
    rank = {"10": "T", "1": "A"}.get(rank, rank)
    if len(rank) == 1 and rank in RANKS:
        same = [c for c in iter_cards(hand) if RANKS[RANK[c]] == rank]
        if same:
            return " or ".join(card_symbol(c) for c in same)
    return ""
