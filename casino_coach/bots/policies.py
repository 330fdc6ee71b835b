"""Bots: policies that choose a move from one seat's ``Observation`` (never the hidden hands).

* ``random``: a uniformly random legal move.
* ``greedy``: the best immediate gain: the capture worth most in scoring terms (cards, spades, 10♦,
  2♠, aces, a sweep when sweeps score); with nothing to gain it trails its least valuable card.
* ``counter``: a card-counting heuristic. It values a move by what it takes now, plus a build's value
  if it survives, minus what the next player can expect to take from the table it leaves: for every
  rank still unseen, the chance the next player holds one (from the unseen pool and the hand sizes,
  hypergeometric) times the best capture that rank makes there, including a sweep.
* ``searcher``: the search engine's policy (``casino_coach.bots.searcher``).
* ``searcher-v1``: the searcher frozen as it was before the learned leaf (today's limits, the
  handmade leaf), the baseline every change to the searcher is measured against.

``make_policy(name, **options)`` builds one by name. Randomness always comes from the ``rng`` argument.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb
from typing import Any, Protocol, runtime_checkable

from casino_coach.bots.searcher import SearcherPolicy, searcher_v1
from casino_coach.engine.cards import (
    BIT,
    RANK_MASK,
)
from casino_coach.engine.movegen import CAPTURE, TRAIL, Move, legal_moves
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import HAND_SIZE, RoundState
from casino_coach.engine.values import (
    cached_values,
    immediate_gain,
    mask_value,
    sweep_value,
    table_after,
)
from casino_coach.errors import CoachError, RulesError

BOT_NAMES = ("random", "greedy", "counter", "searcher", "searcher-v1")


@runtime_checkable
class Policy(Protocol):
    """Chooses one of the ``legal`` moves for the seat of ``obs`` (which is the seat to move).
    ``scores`` is the game score per side before this round when the game knows it (None: not
    told); only the searcher plays for it (``goal``), the others play every round alike."""

    name: str

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move: ...


# ---------------------------------------------------------------------------------------------------
# The policies


class RandomPolicy:
    """A uniformly random legal move."""

    name = "random"

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        return legal[rng.randrange(len(legal))]


class GreedyPolicy:
    """The move with the best immediate gain; otherwise trail (or build with) the least valuable card."""

    name = "greedy"

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        values = cached_values(rules)
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

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        if len(legal) == 1:
            return legal[0]
        values = cached_values(rules)
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
        after = table_after(rules, obs, move)
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
        # only the next seat's card is shown: more cards are to come, the round does not end here
        state = after._replace(hands=hands, builds=builds, stock=0, more=True)
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


def bot_kind(name: str) -> str | None:
    """The kind of bot ``name`` names, case and spaces aside ("Counter" is counter), or None."""
    key = name.strip().lower()
    return key if key in BOT_NAMES else None


def make_policy(name: str, **options: Any) -> Policy:
    """A policy by name: random, greedy, counter, searcher (the search engine) or searcher-v1 (the
    frozen baseline searcher)."""
    key = bot_kind(name)
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
        return SearcherPolicy(**options)
    if key == "searcher-v1":
        return searcher_v1(**options)
    raise RulesError(f"unknown bot {name!r}: choose one of {', '.join(BOT_NAMES)}")
