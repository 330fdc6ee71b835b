"""Expectiminimax over the hidden cards: every legal move valued by what the player to move can know.

The hidden cards are the chance events. ``evaluate`` draws worlds consistent with the observation
(``worlds.py``), or enumerates them all when there are at most ``Limits.exact_worlds``, solves each
world exactly with alpha-beta (``solver.py``), and averages each move's values over the worlds: its
expected value and standard error, in points (the mover's side's round points minus the mean of the
other sides', for the whole round). Sampling stops early once the best move leads every other move by
``Limits.separation`` standard errors of the paired difference (the same worlds value every move, so
differences are far less noisy than the values), or at the sample or time limit.

This is "perfect-information Monte Carlo": inside a world every player sees every card, so the
values are optimistic about what information buys (strategy fusion); in the last deal of a 2-player
round a player who counts knows every card, and there the values are exact.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter

from casino_coach.movegen import Move, legal_moves
from casino_coach.observation import Observation, as_state
from casino_coach.rules import RuleSet
from casino_coach.search.result import Limits, MoveValue, SearchResult
from casino_coach.search.solver import STOCK_MARK, Solver, order_key
from casino_coach.search.tree import SearchTree
from casino_coach.search.worlds import (
    SearchError,
    World,
    count_worlds,
    enumerate_worlds,
    sample_world,
    world_state,
)
from casino_coach.state import RoundState


def _horizon(cards_in_hands: int, depth: int | None) -> int:
    return 0 if depth is None else max(0, cards_in_hands - depth)


def root_moves(rules: RuleSet, obs: Observation) -> list[Move]:
    """The legal moves of the observer, who must be the seat to move."""
    if obs.to_move != obs.seat:
        raise SearchError(f"it is seat {obs.to_move}'s turn, not seat {obs.seat}'s: "
                          "only the seat to move can be advised")
    if not obs.hand:
        raise SearchError(f"seat {obs.seat} has no cards: the next deal comes first")
    state = as_state(obs, obs.known, STOCK_MARK if obs.stock_count else 0)
    moves = legal_moves(rules, state)
    if not moves:
        raise SearchError("no legal move in this position")
    return sorted(moves, key=order_key)


class _Stats:
    """Per-move values, world by world (NaN where a move is not legal in a world)."""

    def __init__(self, moves: list[Move]) -> None:
        self.moves = moves
        self.values: list[list[float]] = [[] for _ in moves]
        self.weights: list[float] = []
        self.lines: list[Counter[tuple[Move, ...]]] = [Counter() for _ in moves]

    def add(self, weight: float, per_move: dict[Move, tuple[float, tuple[Move, ...]]]) -> None:
        self.weights.append(weight)
        for i, m in enumerate(self.moves):
            got = per_move.get(m)
            if got is None:
                self.values[i].append(math.nan)
            else:
                self.values[i].append(got[0])
                self.lines[i][got[1]] += 1

    def means(self) -> list[float]:
        out = []
        for vals in self.values:
            pairs = [(v, w) for v, w in zip(vals, self.weights, strict=True) if v == v]
            tw = sum(w for _, w in pairs)
            out.append(sum(v * w for v, w in pairs) / tw if tw > 0 else -math.inf)
        return out

    def separated(self, z: float) -> bool:
        """The best move's paired lead over every other move exceeds z standard errors."""
        means = self.means()
        best = max(range(len(means)), key=lambda i: means[i])
        bv = self.values[best]
        for j, vals in enumerate(self.values):
            if j == best:
                continue
            d = [a - b for a, b in zip(bv, vals, strict=True) if a == a and b == b]
            if len(d) < 2:
                return False
            mean = sum(d) / len(d)
            var = sum((x - mean) ** 2 for x in d) / (len(d) - 1)
            se = math.sqrt(var / len(d))
            if mean - z * se <= 0 and not (se == 0 and mean >= 0):
                return False
        return True

    def stderr(self, i: int, population: int | None) -> float:
        """Standard error of a plain mean over sampled worlds; with a finite population (worlds
        drawn without replacement from an enumeration) the finite-population correction applies."""
        vals = [v for v in self.values[i] if v == v]
        n = len(vals)
        if population is not None and n >= population:
            return 0.0
        if n < 2:
            return 0.0 if population == 1 else _UNKNOWN_STDERR
        mean = sum(vals) / n
        var = sum((x - mean) ** 2 for x in vals) / (n - 1)
        se = math.sqrt(var / n)
        if population is not None:
            se *= math.sqrt(max(0.0, (population - n) / (population - 1)))
        return se


# With one sampled world the spread is unknown; report the full scale of a round's points instead of
# pretending to know (values must stay finite numbers).
_UNKNOWN_STDERR = 11.0


def evaluate(rules: RuleSet, obs: Observation, limits: Limits = Limits(), *,
             record: bool = False) -> SearchResult:
    """Value every legal move of the seat to move from its own observation only.

    Raises SearchError when the observer is not the seat to move, has no cards, or when the
    observation's counts are inconsistent.
    """
    t0 = time.perf_counter()
    moves = root_moves(rules, obs)
    nworlds = count_worlds(obs)
    rng = random.Random(limits.seed)
    enumerated: list[World] | None = None
    if nworlds <= limits.exact_worlds:
        enumerated = enumerate_worlds(rules, obs)
        rng.shuffle(enumerated)  # a time limit then stops on a random subset, not a biased one
    in_hands = sum(obs.hand_sizes)
    horizon = _horizon(in_hands, limits.depth)
    side = obs.seat % obs.nsides
    solver = Solver(rules, side, obs.nsides, horizon)
    stats = _Stats(moves)
    tree = SearchTree(obs.seat, obs.nplayers) if record else None
    per_partner = rules.build_for_partner != "never" and obs.nplayers == 4
    deadline = None if limits.time is None else t0 + limits.time
    max_worlds = len(enumerated) if enumerated is not None else limits.samples
    done = 0
    while done < max_worlds:
        world = enumerated[done] if enumerated is not None else sample_world(rules, obs, rng)
        state = world_state(obs, world)
        wm = moves
        if per_partner:  # building for a partner: the observer's moves depend on the partner's hand
            legal = set(legal_moves(rules, state))
            wm = [m for m in moves if m in legal]
        values = solver.root_values(state, wm)
        stats.add(world.probability or 1.0, {rv.move: (rv.value, rv.line[1:]) for rv in values})
        if tree is not None:
            for rv in values:
                tree.add_line(rv.line, rv.value)
        done += 1
        if done >= max_worlds:
            break
        if deadline is not None and time.perf_counter() >= deadline and done >= 2:
            break
        if enumerated is None and done >= limits.min_samples and stats.separated(limits.separation):
            break
    complete = enumerated is not None and done == len(enumerated)
    population = len(enumerated) if enumerated is not None else None
    means = stats.means()
    order = sorted(range(len(moves)), key=lambda i: (-means[i], moves[i]))
    out = []
    for i in order:
        line = stats.lines[i].most_common(1)[0][0] if stats.lines[i] else ()
        ev = means[i]
        if not math.isfinite(ev):
            raise SearchError(f"no world in which move {i} is legal was searched")
        out.append(MoveValue(moves[i], ev, stats.stderr(i, population), line))
    exact = complete and obs.stock_count == 0 and horizon == 0
    if tree is not None:
        tree.exact = exact
        tree.set_root(done, out[0].ev)
    return SearchResult(seat=obs.seat, exact=exact, moves=tuple(out), samples=done,
                        nodes=solver.nodes, seconds=time.perf_counter() - t0, tree=tree)


def evaluate_world(rules: RuleSet, state: RoundState, limits: Limits = Limits()) -> SearchResult:
    """Perfect information: value every move of the seat to move knowing every hidden card (the
    cost of a move against the cards actually held). Exact when the search reaches the end of the
    round; ``limits.depth`` applies, the sampling limits do not."""
    t0 = time.perf_counter()
    seat = state.to_move
    if not state.hands[seat]:
        raise SearchError(f"seat {seat} has no cards: the next deal comes first")
    horizon = _horizon(sum(h.bit_count() for h in state.hands), limits.depth)
    solver = Solver(rules, seat % state.nsides, state.nsides, horizon)
    values = solver.root_values(state)
    values.sort(key=lambda rv: (-rv.value, rv.move))
    out = tuple(MoveValue(rv.move, rv.value, 0.0, rv.line[1:]) for rv in values)
    return SearchResult(seat=seat, exact=state.stock == 0 and horizon == 0, moves=out, samples=1,
                        nodes=solver.nodes, seconds=time.perf_counter() - t0, tree=None)
