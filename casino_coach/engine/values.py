"""What cards are worth at once: the one card-value model the bots and the inference over the other
players' plays share (a capture's immediate gain in points).

Majority items are spread over the cards: a card is worth about a twelfth of the "most cards" points
(a one-card swing decides that item about that often), a spade an eighth of "most spades"; the cash
cards their points (rules.md 1.12).
"""

from __future__ import annotations

from casino_coach.engine.cards import (
    ACES_MASK,
    BIG_CASINO,
    BIT,
    LITTLE_CASINO,
    NUM_CARDS,
    SPADES_MASK,
    iter_cards,
)
from casino_coach.engine.movegen import CAPTURE, Move, apply
from casino_coach.engine.observation import Observation, as_state
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState


def card_values(rules: RuleSet) -> tuple[float, ...]:
    """The scoring worth of taking each card into one's pile, in points (rules.md 1.12).

    Majority items are spread over the cards: a card is worth about a twelfth of the "most cards"
    points (a one-card swing decides that item about that often), a spade an eighth of "most spades".
    """
    per_card = rules.points_cards / 12
    per_spade = rules.points_spades / 8
    out = []
    for c in range(NUM_CARDS):
        v = per_card
        if SPADES_MASK >> c & 1:
            v += per_spade
        if c == BIG_CASINO:
            v += rules.points_big
        if c == LITTLE_CASINO:
            v += rules.points_little
        if ACES_MASK >> c & 1:
            v += rules.points_ace
        out.append(v)
    return tuple(out)


_VALUE_CACHE: dict[RuleSet, tuple[float, ...]] = {}


def cached_values(rules: RuleSet) -> tuple[float, ...]:
    v = _VALUE_CACHE.get(rules)
    if v is None:
        v = _VALUE_CACHE[rules] = card_values(rules)
    return v


def mask_value(values: tuple[float, ...], mask: int) -> float:
    total = 0.0
    for c in iter_cards(mask):
        total += values[c]
    return total


def sweep_value(rules: RuleSet) -> float:
    return float(rules.points_sweep) if rules.sweeps else 0.0


def table_after(rules: RuleSet, obs: Observation, move: Move) -> RoundState:
    """The state after ``move`` with the other hands left empty (only the table and piles matter)."""
    hands = tuple(obs.hand if s == obs.seat else 0 for s in range(obs.nplayers))
    more = obs.stock_count > 0 or sum(obs.hand_sizes) > 1
    state = as_state(obs, hands, more)
    return apply(rules, state, move)


def immediate_gain(rules: RuleSet, obs: Observation, move: Move) -> float:
    """Points a capture takes now (its cards and the card played, plus a sweep); 0 for other moves."""
    if move.action != CAPTURE:
        return 0.0
    values = cached_values(rules)
    gain = mask_value(values, move.take | BIT[move.card])
    if move.take == obs.table:
        last = obs.stock_count == 0 and sum(obs.hand_sizes) == 1
        if not last or rules.final_capture_can_sweep:
            gain += sweep_value(rules)
    return gain
