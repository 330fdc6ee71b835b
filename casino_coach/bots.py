"""Bots: policies that choose a move from one seat's ``Observation`` (never the hidden hands).

* ``random``: a uniformly random legal move.
* ``greedy``: the best immediate gain: the capture worth most in scoring terms (cards, spades, 10♦,
  2♠, aces, a sweep when sweeps score); with nothing to gain it trails its least valuable card.
* ``counter``: a card-counting heuristic. It values a move by what it takes now, plus a build's value
  if it survives, minus what the next player can expect to take from the table it leaves: for every
  rank still unseen, the chance the next player holds one (from the unseen pool and the hand sizes,
  hypergeometric) times the best capture that rank makes there, including a sweep.
* ``searcher``: the search engine's policy, imported lazily from ``casino_coach.search.policy``.

``make_policy(name, **options)`` builds one by name. Randomness always comes from the ``rng`` argument.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from math import comb
from typing import Any, Protocol, runtime_checkable

from casino_coach.cards import (
    ACES_MASK,
    BIG_CASINO,
    BIT,
    LITTLE_CASINO,
    NUM_CARDS,
    RANK_MASK,
    SPADES_MASK,
    iter_cards,
)
from casino_coach.errors import CoachError, RulesError
from casino_coach.movegen import CAPTURE, TRAIL, Move, apply, legal_moves
from casino_coach.observation import Observation, as_state
from casino_coach.rules import RuleSet
from casino_coach.state import HAND_SIZE, RoundState

BOT_NAMES = ("random", "greedy", "counter", "searcher")

# A marker outside the pack standing for cards still to be dealt, so that ``apply`` does not end the
# round (and collect the residue) while the real stock is unknown; see observation.observe_move.
_MORE_TO_COME = 1 << NUM_CARDS


@runtime_checkable
class Policy(Protocol):
    """Chooses one of the ``legal`` moves for the seat of ``obs`` (which is the seat to move)."""

    name: str

    def choose(self, rules: RuleSet, obs: Observation, legal: Sequence[Move], rng: random.Random) -> Move: ...


# ---------------------------------------------------------------------------------------------------
# What cards are worth


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


def _values(rules: RuleSet) -> tuple[float, ...]:
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


def _table_after(rules: RuleSet, obs: Observation, move: Move) -> RoundState:
    """The state after ``move`` with the other hands left empty (only the table and piles matter)."""
    hands = tuple(obs.hand if s == obs.seat else 0 for s in range(obs.nplayers))
    more = obs.stock_count > 0 or sum(obs.hand_sizes) > 1
    state = as_state(obs, hands, _MORE_TO_COME if more else 0)
    return apply(rules, state, move)


def immediate_gain(rules: RuleSet, obs: Observation, move: Move) -> float:
    """Points a capture takes now (its cards and the card played, plus a sweep); 0 for other moves."""
    if move.action != CAPTURE:
        return 0.0
    values = _values(rules)
    gain = mask_value(values, move.take | BIT[move.card])
    if move.take == obs.table:
        last = obs.stock_count == 0 and sum(obs.hand_sizes) == 1
        if not last or rules.final_capture_can_sweep:
            gain += sweep_value(rules)
    return gain


# ---------------------------------------------------------------------------------------------------
# The policies


class RandomPolicy:
    """A uniformly random legal move."""

    name = "random"

    def choose(self, rules: RuleSet, obs: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        return legal[rng.randrange(len(legal))]


class GreedyPolicy:
    """The move with the best immediate gain; otherwise trail (or build with) the least valuable card."""

    name = "greedy"

    def choose(self, rules: RuleSet, obs: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        values = _values(rules)
        best: Move | None = None
        best_key: tuple[float, float, int] | None = None
        for m in legal:
            gain = immediate_gain(rules, obs, m)
            # Ties: give away as little as possible; prefer trails to builds (nothing is promised).
            key = (gain, -values[m.card] if m.action != CAPTURE else 0.0, -(m.action != TRAIL))
            if best_key is None or key > best_key:
                best, best_key = m, key
        assert best is not None
        return best


class CounterPolicy:
    """Card counting: gain now, plus surviving builds, minus the next player's expected take.

    ``build_keep`` is the share of a build's worth counted as banked (the owner usually takes it next
    turn); ``risk_weight`` scales the expected loss to the next player.
    """

    name = "counter"

    def __init__(self, build_keep: float = 0.9, risk_weight: float = 1.0) -> None:
        self.build_keep = build_keep
        self.risk_weight = risk_weight

    def choose(self, rules: RuleSet, obs: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        if len(legal) == 1:
            return legal[0]
        values = _values(rules)
        odds = _rank_odds(obs)
        cache: dict[tuple[int, tuple[object, ...]], float] = {}
        best: Move | None = None
        best_score = float("-inf")
        for m in legal:
            score = self.evaluate(rules, obs, m, values, odds, cache)
            if score > best_score + 1e-9:
                best, best_score = m, score
        assert best is not None
        return best

    def evaluate(
        self,
        rules: RuleSet,
        obs: Observation,
        move: Move,
        values: tuple[float, ...],
        odds: list[tuple[int, float]],
        cache: dict[tuple[int, tuple[object, ...]], float],
    ) -> float:
        after = _table_after(rules, obs, move)
        score = immediate_gain(rules, obs, move)
        if move.action == CAPTURE:
            pass
        elif move.action != TRAIL or move.take:
            built = next(b for b in after.builds if b.cards >> move.card & 1 or b.cards & move.take)
            score += self.build_keep * mask_value(values, built.cards)
        else:
            score -= 0.01 * values[move.card]  # among equal trails, keep the valuable card
        if after.is_over or (obs.stock_count == 0 and sum(obs.hand_sizes) == 1):
            return score
        key = (after.loose, after.builds)
        risk = cache.get(key)
        if risk is None:
            risk = _expected_loss(rules, obs, after, values, odds)
            cache[key] = risk
        # The last cards of the round: whoever captured last takes what is left (rules.md 1.11).
        if obs.stock_count == 0 and sum(obs.hand_sizes) <= obs.nplayers:
            residue = mask_value(values, after.table)
            mine = after.last_capturer == obs.seat % obs.nsides
            score += 0.5 * residue if mine else -0.5 * residue
        return score - self.risk_weight * risk


def _rank_odds(obs: Observation) -> list[tuple[int, float]]:
    """For each rank with unseen cards: (a representative unseen card, P(the next seat holds one))."""
    nxt = (obs.seat + 1) % obs.nplayers
    h = obs.hand_sizes[nxt]
    if h == 0 and obs.stock_count:
        h = HAND_SIZE  # the next deal comes first
    pool = obs.unseen
    u = pool.bit_count()
    out: list[tuple[int, float]] = []
    if u == 0 or h == 0:
        return out
    h = min(h, u)
    total = comb(u, h)
    for r in range(13):
        cards = pool & RANK_MASK[r]
        k = cards.bit_count()
        if not k:
            continue
        p = 1.0 - comb(u - k, h) / total
        out.append(((cards & -cards).bit_length() - 1, p))
    return out


def _expected_loss(
    rules: RuleSet,
    obs: Observation,
    after: RoundState,
    values: tuple[float, ...],
    odds: list[tuple[int, float]],
) -> float:
    """What the next seat can expect to take from ``after``'s table on its turn."""
    table = after.table
    if not table:
        return 0.0
    nxt = after.to_move
    # The next seat plays one card of a given rank; our builds do not bind it (ownership rules).
    builds = tuple(b._replace(owner=obs.seat) if b.owner == nxt else b for b in after.builds)
    sweep = sweep_value(rules)
    gains: list[tuple[float, float]] = []
    for card, p in odds:
        hands = tuple(BIT[card] if s == nxt else 0 for s in range(obs.nplayers))
        state = after._replace(hands=hands, builds=builds, stock=_MORE_TO_COME)
        best = 0.0
        for m in legal_moves(rules, state):
            if m.action != CAPTURE:
                continue
            g = mask_value(values, m.take) + values[card]
            if m.take == table:
                g += sweep
            best = max(best, g)
        if best > 0:
            gains.append((best, p))
    gains.sort(reverse=True)
    expected = 0.0
    none_better = 1.0
    for g, p in gains:
        expected += g * p * none_better
        none_better *= 1.0 - p
    return expected


# ---------------------------------------------------------------------------------------------------
# By name


def make_policy(name: str, **options: Any) -> Policy:
    """A policy by name: random, greedy, counter, or searcher (the search engine, imported lazily)."""
    key = name.strip().lower()
    if key == "random":
        return RandomPolicy()
    if key == "greedy":
        return GreedyPolicy()
    if key == "counter":
        try:
            return CounterPolicy(**options)
        except TypeError as e:
            raise CoachError(f"bot 'counter': {e}") from None
    if key == "searcher":
        try:
            module = importlib.import_module("casino_coach.search.policy")
        except ImportError as e:
            raise CoachError(
                f"bot 'searcher' is not available: casino_coach.search.policy cannot be imported ({e})"
            ) from None
        cls = getattr(module, "SearcherPolicy", None)
        if cls is None:
            raise CoachError(
                "bot 'searcher' is not available: casino_coach.search.policy has no SearcherPolicy"
            )
        policy: Policy = cls(**options)
        return policy
    raise RulesError(f"unknown bot {name!r}: choose one of {', '.join(BOT_NAMES)}")
