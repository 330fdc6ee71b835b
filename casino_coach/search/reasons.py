"""One sentence on why the search's best move is best, in plain words naming cards.

It says what the move does (what it captures, with the cards that score; what a build is for; which
card a trail gives away), what it denies (the capture the next player makes in the principal line of
the runner-up move but not in the best move's line), and by how much it beats the runner-up.
"""

from __future__ import annotations

from casino_coach.cards import (
    ACES_MASK,
    BIG_CASINO,
    LITTLE_CASINO,
    SPADES_MASK,
    card_symbol,
    iter_cards,
    mask_symbols,
)
from casino_coach.movegen import BUILD, CAPTURE, Move
from casino_coach.observation import Observation
from casino_coach.rules import RuleSet
from casino_coach.search.result import MoveValue, SearchResult


def _scoring_words(mask: int) -> list[str]:
    words = []
    if mask >> BIG_CASINO & 1:
        words.append("Big Casino (10♦)")
    if mask >> LITTLE_CASINO & 1:
        words.append("Little Casino (2♠)")
    aces = (mask & ACES_MASK).bit_count()
    if aces:
        words.append("an ace" if aces == 1 else f"{aces} aces")
    spades = (mask & SPADES_MASK).bit_count()
    if spades:
        words.append("a spade" if spades == 1 else f"{spades} spades")
    return words


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _what_it_does(rules: RuleSet, obs: Observation, move: Move) -> str:
    card = card_symbol(move.card)
    if move.action == CAPTURE:
        taken = move.take | 1 << move.card
        text = f"{card} captures {mask_symbols(move.take)}"
        extra = []
        n = taken.bit_count()
        extra.append(f"{n} cards")
        extra += _scoring_words(taken)
        text += f" ({_join(extra)})"
        if move.take == obs.table:
            text += ", sweeping the table"
        return text
    if move.action == BUILD:
        rest = obs.hand & ~(1 << move.card)
        holders = [c for c in iter_cards(rest) if move.value in rules.capture_values[c]]
        text = f"{card} builds {move.value} with {mask_symbols(move.take)}"
        if holders:
            text += f", to take it next turn with the {card_symbol(holders[0])}"
        return text
    return f"trailing {card} risks least"


def _reply_take(line: tuple[Move, ...]) -> int:
    """The table cards the next player captures in a line (0 if its reply is no capture)."""
    if line and line[0].action == CAPTURE:
        return line[0].take
    return 0


def why_best(rules: RuleSet, obs: Observation, result: SearchResult) -> str:
    """One sentence for people on why ``result``'s best move is best."""
    best = result.moves[0]
    text = _what_it_does(rules, obs, best.move)
    if len(result.moves) == 1:
        return f"{text[0].upper()}{text[1:]}: it is the only legal move."
    runner: MoveValue = result.moves[1]
    denied = _reply_take(runner.line) & ~_reply_take(best.line)
    if denied:
        text += (f", and keeps the next player from capturing {mask_symbols(denied)}, as they would "
                 f"after {runner.move.describe()}")
    diff = best.ev - runner.ev
    if diff >= 0.05:
        text += f"; it is worth {diff:.2f} points more than {runner.move.describe()}"
    else:
        text += f"; {runner.move.describe()} is about as good"
    if result.exact:
        text += " (exact: every hidden card is known)"
    return text[0].upper() + text[1:] + "."
