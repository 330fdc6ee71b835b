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

import dataclasses
import hashlib
import math
import random
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import islice
from operator import attrgetter, ne
from typing import Any, Final

from casino_coach.core import NATIVE
from casino_coach.engine.cards import shuffle
from casino_coach.engine.movegen import Move, apply, legal_moves
from casino_coach.engine.observation import Observation, as_state, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import HAND_SIZE, Build, RoundState
from casino_coach.errors import SearchError, TooBigToSearchError
from casino_coach.search import native_race, native_worlds
from casino_coach.search.inference import Evidence, Likelihood, sample_with_evidence
from casino_coach.search.leaf import HANDMADE, CategoryWeights
from casino_coach.search.native import NativeSolver, WorldSolver, core_legal_moves, make_solver
from casino_coach.search.native_race import MoveTuple
from casino_coach.search.protocol import WorldValues
from casino_coach.search.race import Race, Stopping, run_race
from casino_coach.search.result import (
    Controls,
    Limits,
    MoveValue,
    Outcome,
    SearchResult,
    natural_key,
    plain_sum,
    value_key,
)
from casino_coach.search.solver import (
    INF,
    MoveOrder,
    OutOfNodes,
    RootValue,
    canonical,
    twin_classes,
    without_cycle_collection,
)
from casino_coach.search.tree import SearchTree
from casino_coach.search.worlds import (
    Canon,
    World,
    balanced_worlds,
    count_worlds,
    enumerate_worlds,
    holding_controls,
    in_passes,
    world_state,
)

_new = tuple.__new__

AUTO_DEPTH_MANY: Final = 4  # plies per world with 3 or 4 players when Limits.depth is None


def _horizons(in_hands: int, horizon: int) -> list[int]:
    """The horizons a decision is searched to, in turn while too few worlds fit in the node budget:
    ``horizon``, then each of ``FALLBACK_DEPTHS`` plies from now that stops short of it."""
    return [horizon, *(in_hands - dd for dd in FALLBACK_DEPTHS if in_hands - dd > horizon)]


def _horizon(cards_in_hands: int, depth: int | None, nplayers: int) -> int:
    """Search until at most this many cards remain in the hands (0: the end of the deal)."""
    if depth is None:
        depth = 8 if nplayers == 2 else AUTO_DEPTH_MANY
    return max(0, cards_in_hands - depth)


def goes_to_round_end(nplayers: int, in_hands: int, stock: int, depth: int | None) -> bool:
    """Whether a search ``depth`` plies deep goes on through the round's last deal, from a position with
    ``in_hands`` cards in the hands and ``stock`` in the stock: with two players, in the deal before
    the last, when the plies reach the end of the round. The last deal is then dealt every way the
    stock can be (``Solver.next_deal``)."""
    return depth is not None and nplayers == 2 and stock == nplayers * HAND_SIZE and depth >= in_hands + stock


def _reaches_round_end(horizon: int, last_deal: bool, through: bool) -> bool:
    """Whether a search that stops at ``horizon`` cards in the hands ends the round: it goes to the
    end of the deal, and that deal is the round's last or the search goes on through the last
    (``through``, ``goes_to_round_end``)."""
    return horizon == 0 and (last_deal or through)


def _fallback(in_hands: int, horizon: int, next_deal: bool) -> list[int]:
    """The depths (plies from now) a world falls back on when it alone passes the node budget: each of
    ``FALLBACK_DEPTHS`` that stops short of ``horizon``, and first the end of the deal, where the
    search was to go on through the round's last deal (``next_deal``)."""
    depths = [d for d in FALLBACK_DEPTHS if in_hands - d > horizon]
    return [in_hands, *depths] if next_deal else depths


def _attempts(obs: Observation, depth: int | None) -> tuple[list[int], bool]:
    """The horizons a decision is searched to in turn (``_horizons``), and whether the first goes on
    through the round's last deal (``goes_to_round_end``): then the end of the deal is tried again
    without going on, before any shallower horizon."""
    in_hands = sum(obs.hand_sizes)
    horizon = _horizon(in_hands, depth, obs.nplayers)
    horizons = _horizons(in_hands, horizon)
    through = goes_to_round_end(obs.nplayers, in_hands, obs.stock_count, depth)
    return ([horizon, *horizons] if through else horizons), through


class _Replies:
    """The reply to each root move chosen on the replier's own information (``Limits.reply_worlds``),
    against the omniscient reply of perfect-information Monte Carlo.

    In a sampled world the seat that replies to a root move sees the searcher's hand there, so it
    answers every build and every card left on the table perfectly, and the searcher values leaving
    anything as if it always would. Here the replier sees what it can see: its own hand and the
    table after the root move (``observe``: the searcher's hand, the stock and any other hand are
    unseen to it, and a build the searcher owns tells it that the searcher holds its value, as the
    sampler's must-hold rule says). ``worlds`` deals of those cards (all of them when they are that
    few, else balanced draws) are searched ``depth`` plies after each reply, then the leaf estimate;
    the reply best on average for the replier's side is then the one played in the world. The choice
    depends on the replier's view only, so it is made once per view and decision (``chosen``).
    Cards still to come only: in the last deal of a 2-player round a counting player knows every
    card, and there the searcher's reply is already the replier's.
    """

    def __init__(
        self,
        rules: RuleSet,
        side: int,
        nsides: int,
        *,
        worlds: int,
        depth: int,
        in_hands: int,
        leaf: str,
        rng: random.Random,
        category_weights: CategoryWeights | None = None,
    ) -> None:
        self.rules = rules
        self.side = side
        self.nsides = nsides
        self.worlds = worlds
        # Its own solver (its horizon is not the decision's): after the root move and the reply,
        # ``depth`` plies more.
        self.solver = make_solver(
            rules, side, nsides, max(0, in_hands - 2 - depth), leaf=leaf, category_weights=category_weights
        )
        self.rng = rng
        self.chosen: dict[Observation, Move] = {}

    def choose(self, state: RoundState) -> Move | None:
        """The reply of the seat to move in ``state`` (a world's full state after a root move, its
        stock included), or None when it has no choice."""
        seat = state.to_move
        if not state.hands[seat] or not state.more:
            return None
        solver = self.solver
        replies = solver.moves(canonical(state))
        if len(replies) < 2:
            return None
        view = observe(state, seat)
        got = self.chosen.get(view)
        if got is not None:
            return got
        rules = self.rules
        if count_worlds(view) <= self.worlds:
            worlds = [(w, w.probability) for w in enumerate_worlds(rules, view)]
        else:
            worlds = [(w, 1.0) for w in islice(balanced_worlds(rules, view, self.rng), self.worlds)]
        states = [(canonical(world_state(view, w)), p) for w, p in worlds]
        # Values are the searcher's side's: the replier's own side maximises them, any other side
        # minimises them (two sides exactly; more, the solver's paranoid rule).
        sign = 1.0 if seat % self.nsides == self.side else -1.0
        best = replies[0]
        best_value = -INF
        for r in replies:
            total = 0.0
            for st, p in states:
                total += p * solver.search(apply(rules, st, r), -INF, INF)
            if sign * total > best_value + 1e-9:
                best, best_value = r, sign * total
        self.chosen[view] = best
        return best


class _Ladder:
    """The solver of a decision, and shallower ones to fall back on: when one world alone takes more
    than the node budget (a table full of cards in Royal can), that world and the rest are searched
    FALLBACK_DEPTHS plies deep instead, and the result is no longer exact. ``cap`` is what the
    decision may still spend (``NODE_CAP`` times the budget in all): once it is spent, the world goes
    straight to the shallowest search, whose nodes are no more than the moves it values."""

    def __init__(
        self,
        rules: RuleSet,
        side: int,
        nsides: int,
        horizon: int,
        in_hands: int,
        *,
        budget: int | None,
        leaf: str = HANDMADE,
        cap: int | None = None,
        replies: _Replies | None = None,
        category_weights: CategoryWeights | None = None,
        next_deal: bool = False,
    ) -> None:
        self.rules = rules
        self.side = side
        self.nsides = nsides
        self.in_hands = in_hands
        self.leaf = leaf
        self.replies = replies
        self.category_weights = category_weights
        self.solvers = [self._solver(horizon, next_deal)]
        self.depths = _fallback(in_hands, horizon, next_deal)
        self.budget = budget
        self.cap = cap
        self.shallow = False

    def _solver(self, horizon: int, next_deal: bool = False) -> WorldSolver:
        solver = make_solver(
            self.rules,
            self.side,
            self.nsides,
            horizon,
            leaf=self.leaf,
            category_weights=self.category_weights,
            next_deal=next_deal,
        )
        if self.replies is not None:
            solver.share_caches(self.replies.solver)
        return solver

    @property
    def nodes(self) -> int:
        return sum(s.nodes for s in self.solvers)

    def over_budget(self, short: bool = False) -> bool:
        """Whether the decision's node budget is spent (sampling stops there); with ``short`` (a
        careful race short of its minimum of worlds), whether all but a budget of the cap is."""
        if self.budget is None:
            return False
        if short and self.cap is not None:
            return self.nodes >= self.cap - self.budget
        return self.nodes >= self.budget

    def root_values(self, state: RoundState, moves: list[Move]) -> list[RootValue]:
        while True:
            solver = self.solvers[-1]
            limit = solver.nodes + self.budget if self.budget is not None and self.depths else 1 << 62
            if self.cap is not None and self.depths:
                limit = min(limit, solver.nodes + max(0, self.cap - self.nodes))
            solver.node_limit = limit
            try:
                if self.replies is not None and state.more:
                    return [self._replied(solver, state, m) for m in moves]
                return solver.root_values(state, moves)
            except OutOfNodes:
                if self.cap is not None and self.nodes >= self.cap:
                    del self.depths[:-1]
                depth = self.depths.pop(0)
                horizon = self.in_hands - depth
                self.solvers.append(self._solver(horizon))
                self.shallow = True

    def _replied(self, solver: WorldSolver, state: RoundState, move: Move) -> RootValue:
        """A root move's value in the world ``state`` when the reply to it is the one the replier
        chooses on its own information (``_Replies``); the search goes on from there as usual."""
        assert self.replies is not None
        rules = self.rules
        child = apply(rules, state, move)
        reply = None
        if self.in_hands - 1 > solver.horizon:  # else the search stops after the move anyway
            reply = self.replies.choose(child)
        if reply is None:
            c = canonical(child)
            return RootValue(move, solver.search(c, -INF, INF), (move, *solver.principal_line(c)))
        g = canonical(apply(rules, child, reply))
        value = solver.search(g, -INF, INF)
        return RootValue(move, value, (move, reply, *solver.principal_line(g)), reply)


class _CasinoValuer:
    """Casino's world valuer (``protocol.WorldValuer``): the root moves' values in one world by the
    decision's solver, with the line proving each (and what happens along it, with ``detail``), and
    each line added to the search tree when one is recorded."""

    def __init__(
        self,
        rules: RuleSet,
        obs: Observation,
        solver: _Ladder,
        per_partner: bool,
        detail: bool,
        tree: SearchTree | None,
    ) -> None:
        self.rules = rules
        self.obs = obs
        self.solver = solver
        self.per_partner = per_partner
        self.detail = detail
        self.tree = tree

    def __call__(self, world: World, moves: Sequence[Move]) -> WorldValues[Move]:
        rules = self.rules
        state = world_state(self.obs, world)
        wm = list(moves)
        if self.per_partner:  # building for a partner: the observer's moves depend on the partner's hand
            legal = set(legal_moves(rules, state))
            wm = [m for m in wm if m in legal]
        values = self.solver.root_values(state, wm)
        outcomes: dict[Move, Any] | None = None
        if self.detail:
            last = self.solver.solvers[-1]
            outcomes = {rv.move: follow(rules, last, state, rv) for rv in values}
        if self.tree is not None:
            for rv in values:
                self.tree.add_line(rv.line, rv.value)
        return {rv.move: (rv.value, rv.line[1:]) for rv in values}, outcomes


# The biggest decision the search takes on, checked by ``evaluate`` and ``evaluate_world`` themselves,
# so that it is the same from every entry point: analyze and export mark a bigger decision "not
# judged", with the reason, and suggest and the engine answer it with an error. Captures are unions of
# value sets, and their number grows exponentially with the table: 12 numerals give about 400 moves, 16
# about 13,000, 20 about 190,000 (one legal-move generation then takes seconds; the 48 loose cards of a
# log whose players only trail make more than anything can list). The legal moves bound the rest:
# each is searched and followed in every world, so a decision on 12 loose cards with 700 to 1,000
# moves took 4 to 5 minutes. Real games stay far below both (self-play of every bot, random included:
# at most 16 loose cards and 208 moves, 99.9% of the decisions under 110 moves).
MAX_LOOSE: Final = 12
MAX_MOVES: Final = 300
# And what it spends on one decision at one depth: at most NODE_CAP times the node budget
# (``Limits.nodes``) in the searches that may run out of it, every world and every shallower search it
# falls back on included; past that, a world is searched 1 ply deep (as many nodes as moves). Small
# cards on the table and in the hands can make a decision with few moves of its own costly all the
# same: each shallower search used to get the whole budget again, and searches again shallower too.
# No decision of the bundled logs takes more than two thirds of the budget.
#
# The coach's searches (a verdict, ``suggest``, the engine: ``Stopping.careful``) differ from a bot's
# in two ways, so that the depth a decision is searched at depends on the seed as little as it can:
# - A race with fewer than ``Limits.min_samples`` worlds when the budget runs out goes on at its
#   depth until it has them or has spent twice the budget (``_Ladder.over_budget``), before it is
#   searched again shallower. Its cap is a budget more, so each of its worlds may still take a whole
#   budget before falling back. Stopped at one budget, a decision of 16-30 worlds under four seeds
#   was searched shallower under the fifth, over 3,765 worlds, with another class.
# - A decision searched again shallower has the cap again. With what the deeper attempt left, the
#   seed decided how much that was, and the shallower search's last worlds went 1 ply deep: a
#   3-player last deal of 50 kinds of deal lost 0.26 under most seeds and 1.69 to 2.11 under others.
# A bot's search stops at its budget and keeps what is left of the cap.
NODE_CAP: Final = 2
FALLBACK_DEPTHS: Final[tuple[int, ...]] = (4, 2, 1)
_REPLY_SALT: Final = 0x5EED_2E91  # the replies' worlds come from their own generator


def check_table(loose: int) -> None:
    """TooBigToSearchError when a table's loose cards (a mask) are more than MAX_LOOSE."""
    n = loose.bit_count()
    if n > MAX_LOOSE:
        raise TooBigToSearchError(f"{n} loose cards on the table: the search handles at most {MAX_LOOSE}")


def check_moves(count: int) -> None:
    """TooBigToSearchError when a decision has more than MAX_MOVES legal moves."""
    if count > MAX_MOVES:
        raise TooBigToSearchError(f"{count:,} legal moves: the search handles at most {MAX_MOVES}")


def root_moves(rules: RuleSet, obs: Observation) -> list[Move]:
    """The legal moves of the observer, who must be the seat to move."""
    _check_turn(obs)
    hands = list(obs.known)
    if rules.build_for_partner != "never" and obs.nplayers == 4:
        # Building for a partner depends on the partner's hand: offer every build some world allows
        # (each world then searches those its partner's hand makes legal).
        partner = (obs.seat + 2) % 4
        hands[partner] |= obs.unseen
    state = as_state(obs, tuple(hands), obs.stock_count > 0)
    moves = core_legal_moves(rules, state, _move_order(rules))
    if not moves:
        raise SearchError("no legal move in this position")
    return moves


def _check_turn(obs: Observation) -> None:
    """SearchError unless the observer is the seat to move and holds cards."""
    if obs.to_move != obs.seat:
        raise SearchError(
            f"it is seat {obs.to_move}'s turn, not seat {obs.seat}'s: only the seat to move can be advised"
        )
    if not obs.hand:
        raise SearchError(f"seat {obs.seat} has no cards: the next deal comes first")


@cache
def _move_order(rules: RuleSet) -> MoveOrder:
    """The rules' ``MoveOrder`` (its weights never change), made once per rule set."""
    return MoveOrder(rules)


# Limits fields left out of ``decision_seed`` at their default values.
_LATER_OPTIONS: Final = frozenset({"reply_worlds", "reply_depth"})
# And always: whether worlds are taken by class decides how the worlds drawn are grouped, not which
# are drawn (the same seed draws the same worlds either way); the leaf values the worlds drawn, so
# that either leaf is measured in the same worlds; ``samples_many`` and ``nodes_four`` are resolved
# into ``samples`` and ``nodes`` for the game's players before a search (``verdict.limits_for``);
# ``shuffled`` decides whether the same seed deals without replacement.
_UNSEEDED: Final = frozenset({"classes", "leaf", "samples_many", "nodes_four", "shuffled"})


def decision_seed(rules: RuleSet, obs: Observation, limits: Limits, evidence: Sequence[Evidence] = ()) -> int:
    """The seed of a decision's worlds, from the decision itself: the rules, the observation, the
    limits (``Limits.seed`` is a salt: other seeds, other worlds) and the evidence. Never from where
    the position stands in a log or which command asks, so every command that searches the same
    position with the same settings draws the same worlds, in the same order (whichever move it
    judges: the move played only decides how many of them are searched)."""
    # The options added since (the leaf, the replies) are part of the key only when they are not
    # their defaults, so that the seeds (and every analysis) stay what they were before they existed.
    _, getter, defaults = _later_options()
    later = tuple(map(ne, getter(limits), defaults))
    settings = _seeded_getter(later)(limits)
    # repr((sorted rules, tuple(obs), settings, evidence)), the rules' part written once per rule set
    # and each play's once per play (a deal's plays come back in every later decision of the deal).
    played = ", ".join([_play_repr(e) for e in evidence]) + ("," if len(evidence) == 1 else "")
    key = f"({_rules_repr(rules)}, {_tuple_repr(obs)}, {settings!r}, ({played}))"
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


@cache
def _later_options() -> tuple[tuple[str, ...], Callable[[Limits], tuple[Any, ...]], tuple[object, ...]]:
    """The options of ``_LATER_OPTIONS``, in field order: their names, a getter of them
    (``attrgetter``, a tuple) and their defaults."""
    later = [f for f in dataclasses.fields(Limits) if f.name in _LATER_OPTIONS]
    names = tuple(f.name for f in later)
    return names, attrgetter(*names), tuple(f.default for f in later)


@cache
def _seeded_getter(later: tuple[bool, ...]) -> Callable[[Limits], tuple[Any, ...]]:
    """The fields of ``Limits`` in a decision's seed, in field order, as a tuple (``attrgetter`` of
    them), where ``later`` says which of ``_later_options`` differ from their defaults."""
    differ = {name for name, d in zip(_later_options()[0], later, strict=True) if d}
    names = [
        f.name
        for f in dataclasses.fields(Limits)
        if f.name not in _UNSEEDED and (f.name not in _LATER_OPTIONS or f.name in differ)
    ]
    return attrgetter(*names)


@lru_cache(maxsize=256)
def _play_repr(e: Evidence) -> str:
    """One play as ``decision_seed`` writes it: repr((tuple(before), tuple(move)))."""
    return f"({_tuple_repr(e.before)}, {_tuple_repr(e.move)})"


def _tuple_repr(t: tuple[Any, ...]) -> str:
    """``repr(tuple(t))``, written by the core where it runs (``_core.tuple_repr``: the same text,
    without Python's ``repr`` of each int)."""
    if NATIVE is not None:
        out: str = NATIVE.tuple_repr(t, Build)
        return out
    return repr(tuple(t))


@cache
def _rules_repr(rules: RuleSet) -> str:
    return repr(sorted(rules.to_dict().items()))


def by_class(limits: Limits, evidence: bool = False) -> bool:
    """Whether ``evaluate`` takes the worlds by class (``worlds.world_classes``): where the limits ask
    for it and no evidence weighs the worlds (the other seats' plays may tell twins apart)."""
    return limits.classes and not evidence


def enumerates(obs: Observation, limits: Limits, evidence: bool = False) -> bool:
    """Whether ``evaluate`` enumerates every world (or class of worlds) of this decision, rather than
    sample them: when there are at most ``limits.exact_worlds``."""
    if by_class(limits, evidence):
        return native_worlds.count_classes(obs, limits.exact_worlds) <= limits.exact_worlds
    return count_worlds(obs) <= limits.exact_worlds


# With ``Limits.shuffled``, worlds are taken without replacement where there are at most this many
# times the most a decision may draw (``Limits.samples``): where draws would repeat many of them.
SHUFFLED_SHARE: Final = 2


def shuffled_worlds(limits: Limits) -> int:
    """The most consistent worlds a decision may have for ``shuffles`` at ``limits`` (0: none)."""
    return SHUFFLED_SHARE * limits.samples if limits.shuffled else 0


def shuffles(obs: Observation, limits: Limits, evidence: bool = False) -> bool:
    """Whether ``evaluate`` takes the decision's worlds without replacement (``Limits.shuffled``):
    every consistent world at most once, in a random order, where they are not enumerated, no
    evidence weighs them, and there are at most ``shuffled_worlds(limits)``."""
    most = shuffled_worlds(limits)
    return not evidence and most > 0 and count_worlds(obs) <= most and not enumerates(obs, limits, evidence)


def dealing(obs: Observation, limits: Limits, evidence: bool = False) -> str:
    """How ``_worlds`` deals the decision's worlds, by name: "worlds" or "classes" (every one, or
    every class, ``enumerates``), "evidence" (drawn in proportion to the evidence), "shuffled" or
    "class-shuffled" (every world at most once, ``shuffles``, each replaced by its class's world for
    the latter), "passes" or "class-passes" (balanced passes, of each class's world for the latter,
    ``by_class``)."""
    classes = by_class(limits, evidence)
    if enumerates(obs, limits, evidence):
        return "classes" if classes else "worlds"
    if evidence:
        return "evidence"
    if shuffles(obs, limits, evidence):
        return "class-shuffled" if classes else "shuffled"
    return "class-passes" if classes else "passes"


def _worlds(
    rules: RuleSet, obs: Observation, dealt: str, rng: random.Random, weigh: Likelihood | None
) -> tuple[Iterator[tuple[World, float, int]], int | None]:
    """The decision's worlds with their weights, dealt as ``dealing`` named it (``dealt``), and the
    number of worlds enumerated when they are few enough (every one, in a random order so that a
    time limit stops on a random subset), or taken without replacement (every world, in a random
    order put in balanced passes, ``in_passes``, for the search to stop in); else balanced draws
    (``balanced_worlds``), or draws in proportion to the evidence. By class (the names "class-..."):
    one world of each class, weighted by its share, or each world replaced by the world of its class
    that the search has met before."""
    classes = dealt.startswith("class")
    if dealt in ("worlds", "classes"):
        enumerated = (
            native_worlds.world_classes(rules, obs) if classes else native_worlds.enumerate_worlds(rules, obs)
        )
        shuffle(rng, enumerated)
        return _weighted(enumerated, weigh), len(enumerated)
    if weigh is not None:
        return _with_evidence(rules, obs, rng, weigh), None
    if dealt.endswith("shuffled"):
        every = native_worlds.enumerate_worlds(rules, obs)
        shuffle(rng, every)
        passes: Iterable[World] = in_passes(rules, obs, every)
        if classes:
            passes = map(Canon.of(obs).world, passes)
        return _weighted(passes, None), len(every)
    return _unweighted(native_worlds.balanced_passes(rules, obs, rng, canonical=classes)), None


# The streams of ``_worlds`` are generator functions, not generator expressions: mypyc compiles a
# returned generator expression into a list, which an endless stream never finishes. Enumerated
# worlds and draws in proportion to the evidence are each a group of their own (``protocol.Worlds``).
def _weighted(worlds: Iterable[World], weigh: Likelihood | None) -> Iterator[tuple[World, float, int]]:
    for i, w in enumerate(worlds):
        yield w, w.probability * (weigh(w.hands) if weigh is not None else 1.0), i


def _with_evidence(
    rules: RuleSet, obs: Observation, rng: random.Random, weigh: Likelihood
) -> Iterator[tuple[World, float, int]]:
    i = 0
    while True:
        yield sample_with_evidence(rules, obs, rng, weigh), 1.0, i
        i += 1


def _unweighted(passes: Iterator[tuple[World, int]]) -> Iterator[tuple[World, float, int]]:
    for w, group in passes:
        yield w, 1.0, group


@dataclass(frozen=True, eq=False)
class SearchRequest:
    """What one search is asked besides its effort (``Limits``).

    ``evidence``: the other seats' plays of this deal (``inference.py``), which make worlds where
    those plays were sensible more likely; without it every consistent world is equally likely.
    ``focus`` and ``bands``: the move played and the class edges in points; sampling then aims at
    the verdict rather than at the best move, going on until the focus's loss lies inside one band
    with confidence (``SearchResult.loss``), or the sample limit. ``detail``: record what happens
    along each move's line in each world (``MoveValue.outcomes``), for explanations.
    ``category_weights``: value the points of each scoring category as given (``leaf.Evaluator``;
    the chance to win the game, ``chances.game_weights``) instead of as the round's margin.
    ``record``: keep the search tree (``SearchResult.tree``, for ``casino-coach tree``)."""

    evidence: tuple[Evidence, ...] = ()
    focus: Move | None = None
    bands: tuple[float, ...] = ()
    detail: bool = False
    category_weights: CategoryWeights | None = None
    record: bool = False


@dataclass
class _Decision:
    """One decision as ``evaluate`` searches it: its moves and their twins, the worlds (dealt in the
    core's race, ``native``, or a stream here, ``drawn`` keeping what was drawn), the stopping rule,
    the depths to try and the replies."""

    rules: RuleSet
    obs: Observation
    limits: Limits
    ask: SearchRequest
    moves: list[Move]
    alike: list[int] | None
    weigh: Likelihood | None
    native: Any  # the core's worlds of the decision (native_race.decision_worlds), or None
    stream: Iterator[tuple[World, float, int]]
    population: int | None
    stop: Stopping
    horizons: list[int]
    through: bool  # the first of ``horizons`` goes on through the round's last deal (``_attempts``)
    replies: _Replies | None
    drawn: list[tuple[World, float, int]] = field(default_factory=list)

    @property
    def side(self) -> int:
        return self.obs.seat % self.obs.nsides

    @property
    def in_hands(self) -> int:
        return sum(self.obs.hand_sizes)


@dataclass
class _Raced:
    """What the race of a decision came to, at the last depth tried."""

    race: Race[Move]
    done: int
    lines: list[tuple[Move, ...]]
    nodes: int
    shallow: bool
    horizon: int
    through: bool  # searched on through the round's last deal
    tree: SearchTree | None


@without_cycle_collection
def evaluate(
    rules: RuleSet, obs: Observation, limits: Limits = Limits(), ask: SearchRequest = SearchRequest()
) -> SearchResult:
    """Value every legal move of the seat to move from its own observation only, with the effort of
    ``limits`` and what ``ask`` asks besides (``SearchRequest``: evidence, a verdict's focus and
    bands, detail, category weights, the tree).

    The node budget never leaves a decision on fewer than ``limits.min_samples`` worlds: when they
    do not fit in it, the decision is searched again shallower (``SearchResult.shallow``).

    Raises SearchError when the observer is not the seat to move, has no cards, or when the
    observation's counts are inconsistent; TooBigToSearchError when the decision is bigger than the
    search takes on (MAX_LOOSE, MAX_MOVES).
    """
    t0 = time.perf_counter()
    d = _decision(rules, obs, limits, ask, t0)
    try:
        return _result(d, _race(d), t0)
    finally:
        _close(d)


@without_cycle_collection
def best_move(
    rules: RuleSet,
    obs: Observation,
    limits: Limits = Limits(),
    ask: SearchRequest = SearchRequest(),
    allowed: Collection[Move] | None = None,
) -> Move:
    """The move ``evaluate(rules, obs, limits, ask)`` lists first, or first of those in ``allowed``:
    the same search, for a caller that only plays its best move (the ``searcher`` bot). Where the
    race runs in the core and no control variates can apply, the core sets the decision up, races it
    and orders the moves in one call (``_ranked_in_core``), without handing over what only a result
    shows (the values per world, the lines), and no result is made.

    Raises as ``evaluate`` does, and SearchError when none of ``allowed`` is among the moves."""
    ranked: Sequence[MoveTuple] | None = _ranked_in_core(rules, obs, limits, ask)
    if ranked is None:
        t0 = time.perf_counter()
        d = _decision(rules, obs, limits, ask, t0)
        try:
            ranked = [mv.move for mv in _result(d, _race(d), t0).moves]
        finally:
            _close(d)
    for move in ranked:
        if allowed is None or move in allowed:
            return _new(Move, move)  # a move of the core's comes as a plain tuple
    raise SearchError("the search found none of the legal moves it was given")


def _ranked_in_core(
    rules: RuleSet, obs: Observation, limits: Limits, ask: SearchRequest
) -> list[MoveTuple] | None:
    """``best_move``'s moves best first (as the core's tuples: ``best_move`` makes a ``Move`` of the
    one it plays), the decision set up and raced in one call to the core
    (``native_race.rank_decision``) and ordered as ``_result`` orders them (by the core, but where a
    value is not finite); None where the core does
    not take it so (a move in focus or class bands, detail, a tree, a time limit, the replies,
    building for a partner, or sampled worlds without evidence that control variates may correct:
    ``_result``'s then). Raises as ``_decision`` does, in the same order."""
    if (
        ask.focus is not None
        or ask.bands
        or ask.detail
        or ask.record
        or limits.time is not None
        or (limits.reply_worlds and obs.stock_count > 0)
        or _per_partner(rules, obs)
        or (not ask.evidence and Controls.enough(limits.samples, 0))
        or not native_race.in_core()
    ):
        return None
    check_table(obs.loose)
    _check_turn(obs)
    seed = decision_seed(rules, obs, limits, ask.evidence)
    weigh = Likelihood(rules, ask.evidence) if ask.evidence else None
    in_hands = sum(obs.hand_sizes)
    horizons, through = _attempts(obs, limits.depth)
    got = native_race.rank_decision(
        rules,
        obs,
        seed,
        weigh,
        _move_order(rules),
        MAX_MOVES,
        limits,
        side=obs.seat % obs.nsides,
        nsides=obs.nsides,
        in_hands=in_hands,
        horizons=horizons,
        next_deal=through,
        fallback=FALLBACK_DEPTHS,
        cap=NODE_CAP * limits.nodes if limits.nodes is not None else None,
        category_weights=ask.category_weights,
        shuffled_worlds=shuffled_worlds(limits),
    )
    if got is None:
        return None
    listed, ranking = got
    if not listed:
        raise SearchError("no legal move in this position")
    check_moves(len(listed))
    assert ranking is not None
    values_se, complete, order = ranking
    if order is None:  # a value that is not finite: ordered (and named) here
        moves = [_new(Move, t) for t in listed]
        return [moves[i] for i in _ranked(moves, None, values_se, complete)]
    return [listed[i] for i in order]


def _close(d: _Decision) -> None:
    """Closes the decision's stream of worlds. Here, not by the garbage collector: an exception raised
    as a stream closes (a Ctrl-C landing in the ``finally`` that hands the generator's state back,
    ``native_worlds``) then reaches the caller, where in a finaliser Python prints it and goes on."""
    close = getattr(d.stream, "close", None)
    if close is not None:
        close()


def _decision(rules: RuleSet, obs: Observation, limits: Limits, ask: SearchRequest, t0: float) -> _Decision:
    """The decision checked and set up: its moves, its worlds, its stopping rule, its depths."""
    check_table(obs.loose)
    focus = ask.focus
    per_partner = _per_partner(rules, obs)
    with_replies = bool(limits.reply_worlds) and obs.stock_count > 0
    # The race runs in the core where it can (``native_race``), else here, world by world.
    in_core = not (ask.record or per_partner or with_replies or limits.time is not None)
    set_up = _set_up_in_core(rules, obs, limits, ask) if in_core and focus is None else None
    if set_up is not None:
        moves, alike, seed, weigh, native = set_up
    else:
        moves = root_moves(rules, obs)
        check_moves(len(moves))
        if focus is not None and focus not in moves:
            raise SearchError(f"{focus.describe()} is not a legal move of this decision")
        seed = decision_seed(rules, obs, limits, ask.evidence)
        weigh = Likelihood(rules, ask.evidence) if ask.evidence else None
        # Moves that differ only by twins have the same value in every world: searched in the same
        # worlds they get the same value, where a twin of the move played left the race earlier than
        # it and was valued apart (9♦ builds 9 at +3.68 beside 9♣ builds 9 at +3.41).
        alike = twin_classes(moves, obs.hand, obs.loose)
        dealt = dealing(obs, limits, weigh is not None)
        native = native_race.decision_worlds(rules, obs, dealt, seed, weigh) if in_core else None
    in_hands = sum(obs.hand_sizes)
    if native is not None:
        population: int | None = native.population
        shuffled: bool = native.shuffled
        stream: Iterator[tuple[World, float, int]] = iter(())
    else:  # (a decision set up in the core always has the core's worlds)
        stream, population = _worlds(rules, obs, dealt, random.Random(seed), weigh)
        shuffled = dealt.endswith("shuffled")
    # An enumeration goes through every world; worlds without replacement stop as draws do.
    every = population is not None and not shuffled
    if population is None:
        max_worlds = limits.samples
    else:
        max_worlds = population if every else min(population, limits.samples)
    horizons, through = _attempts(obs, limits.depth)
    verdict = focus is not None and bool(ask.bands)
    to_round_end = _reaches_round_end(horizons[0], obs.stock_count == 0, through)
    stop = Stopping(
        samples=max_worlds,
        min_samples=limits.min_samples,
        separation=limits.separation,
        margin=limits.margin,
        bands=tuple(ask.bands) if focus is not None else (),
        deadline=None if limits.time is None else t0 + limits.time,
        # An enumeration goes through every world. It values every move in each, but for a verdict's
        # enumeration that stops before the end of the round (a move clearly behind the best bounds
        # nothing: 28 moves over 50 classes of a 3-player last deal 5 plies deep took 6 s).
        racing=not per_partner and (not every or (verdict and not to_round_end)),
        every=every,
        # The coach's searches (its classes' bands given: suggest, the hint, the engine) race as its
        # verdicts do, so that the loss they show for a move is the one its verdict repeats; a bot's
        # search, which only picks a move, drops moves as soon as Student's t allows.
        careful=bool(ask.bands),
    )
    replies = None
    if with_replies:
        replies = _Replies(
            rules,
            obs.seat % obs.nsides,
            obs.nsides,
            worlds=limits.reply_worlds,
            depth=limits.reply_depth,
            in_hands=in_hands,
            leaf=limits.leaf,
            rng=random.Random(seed ^ _REPLY_SALT),
            category_weights=ask.category_weights,
        )
    return _Decision(
        rules,
        obs,
        limits,
        ask,
        moves,
        alike=alike,
        weigh=weigh,
        native=native,
        stream=stream,
        population=population,
        stop=stop,
        horizons=horizons,
        through=through,
        replies=replies,
    )


def _set_up_in_core(
    rules: RuleSet, obs: Observation, limits: Limits, ask: SearchRequest
) -> tuple[list[Move], list[int] | None, int, Likelihood | None, Any] | None:
    """``_decision``'s moves, their twins, the seed, the likelihood and the worlds of a decision the
    core races with no move in focus, the core's part in one call (``native_race.for_decision``);
    None where the core does not take the decision (the set-up is then the reference's). Raises as
    the reference's set-up does, and in the same order: the turn, the moves, then the worlds."""
    if not native_race.in_core():
        return None
    _check_turn(obs)
    seed = decision_seed(rules, obs, limits, ask.evidence)
    weigh = Likelihood(rules, ask.evidence) if ask.evidence else None
    got = native_race.for_decision(
        rules, obs, seed, weigh, _move_order(rules), MAX_MOVES, limits, shuffled_worlds(limits)
    )
    if got is None:
        return None
    moves, alike, worlds = got
    if not moves:
        raise SearchError("no legal move in this position")
    check_moves(len(moves))
    return moves, alike, seed, weigh, worlds


def _per_partner(rules: RuleSet, obs: Observation) -> bool:
    """Whether a seat may build for its partner here (4 players): each world then has its own moves."""
    return rules.build_for_partner != "never" and obs.nplayers == 4


def _race(d: _Decision) -> _Raced:
    """The decision's race, at its depth, then shallower while too few worlds fit in the node budget."""
    limits, ask, obs = d.limits, d.ask, d.obs
    nodes = 0
    budget = limits.nodes
    for attempt, horizon in enumerate(d.horizons):
        # The coach's searches give each depth tried the whole cap and a budget more, a bot's search
        # what is left of the cap (``NODE_CAP``).
        if budget is None:
            left = None
        elif d.stop.careful:
            left = (NODE_CAP + 1) * budget
        else:
            left = NODE_CAP * budget - nodes
        tree = None
        through = d.through and attempt == 0
        if d.native is not None:
            got = native_race.run(
                d.native, d.rules, **_core_race(d, horizon, through, left), detail=ask.detail
            )
            race, done, out_of_nodes, lines = got.race, got.done, got.out_of_nodes, got.lines
            nodes += got.nodes
            shallow = got.shallow
        else:
            solver = _Ladder(
                d.rules,
                d.side,
                obs.nsides,
                horizon,
                d.in_hands,
                budget=limits.nodes,
                leaf=limits.leaf,
                cap=left,
                replies=d.replies,
                category_weights=ask.category_weights,
                next_deal=through,
            )
            race = Race(d.moves, ask.focus, d.alike)
            tree = SearchTree(obs.seat, obs.nplayers) if ask.record else None
            value = _CasinoValuer(d.rules, obs, solver, _per_partner(d.rules, obs), ask.detail, tree)
            done, out_of_nodes = run_race(race, d.drawn, d.stream, value, d.stop, solver.over_budget)
            nodes += solver.nodes
            shallow = solver.shallow
            lines = race.best_lines()
        if not _shallower(d, attempt, done, out_of_nodes):
            break
    if d.replies is not None:
        nodes += d.replies.solver.nodes
    return _Raced(race, done, lines, nodes, shallow or attempt > 0, horizon, through, tree)


def _core_race(d: _Decision, horizon: int, through: bool, cap: int | None) -> dict[str, Any]:
    """The arguments of the core's race of ``d`` at ``horizon`` (on through the round's last deal
    with ``through``), spending at most ``cap`` nodes."""
    return {
        "side": d.side,
        "nsides": d.obs.nsides,
        "horizon": horizon,
        "next_deal": through,
        "in_hands": d.in_hands,
        "depths": _fallback(d.in_hands, horizon, through),
        "budget": d.limits.nodes,
        "cap": cap,
        "leaf": d.limits.leaf,
        "category_weights": d.ask.category_weights,
        "moves": d.moves,
        "focus": d.ask.focus,
        "alike": d.alike,
        "stop": d.stop,
    }


def _shallower(d: _Decision, attempt: int, done: int, out_of_nodes: bool) -> bool:
    """Whether the decision is searched again shallower after ``attempt``: too few worlds fit in the
    node budget at its depth, and a shallower one is left."""
    floor = min(d.limits.min_samples, d.stop.samples)
    return out_of_nodes and done < floor and attempt < len(d.horizons) - 1


def _result(d: _Decision, r: _Raced, t0: float) -> SearchResult:
    """The search's result: each move's value and standard error (corrected by the worlds' control
    variates where they apply), best first."""
    obs, moves, race, done = d.obs, d.moves, r.race, r.done
    controls = None
    # (Too few worlds fit no control variates, whatever their features: the worlds are not fetched.)
    if d.population is None and d.weigh is None and Controls.enough(done, 0):
        controls = _controls(d, done)
    values_se = race.results(d.population, controls)
    out: list[MoveValue] = []
    for i in _ranked(moves, d.ask.focus, values_se, [race.complete(i) for i in range(len(moves))]):
        ev, se = values_se[i]
        outcomes = race.outcomes[i]  # the core's stay there until read (``native_race.LazyOutcomes``)
        kept = tuple(outcomes) if isinstance(outcomes, list) else outcomes
        out.append(MoveValue(moves[i], ev, se, r.lines[i], tuple(race.values[i]), kept))
    # Exact: the game's own value, not an estimate. Every world was searched to the end of the round
    # with no leaf (``round_end``), played by two sides, and either there was one world (classes of
    # twins alike; every card known to the mover, as in the last deal of two players) or the mover
    # plays the last card of its hand before a 2-player last deal, with every consistent world
    # weighing the same: the other player then replies knowing every card but the stock's (the mover
    # has played its last), the last deal is dealt every way, and in it every card is known. Otherwise,
    # over several worlds each is solved as if every player saw every hand, and their mean is not the
    # value of the game where they do not; with three or more sides the solver has the others play
    # together against the mover (paranoid), one model of their play among others.
    complete = d.population is not None and done == d.population
    round_end = _reaches_round_end(r.horizon, obs.stock_count == 0, r.through) and not r.shallow
    last_card = r.through and obs.hand_sizes[obs.seat] == 1 and d.weigh is None
    exact = complete and round_end and obs.nsides == 2 and (d.population == 1 or last_card)
    if r.tree is not None:
        r.tree.exact = exact
        r.tree.set_root(done, out[0].ev)
        r.tree.set_move_values({mv.move: mv.ev for mv in out})
    return SearchResult(
        seat=obs.seat,
        exact=exact,
        moves=tuple(out),
        samples=done,
        nodes=r.nodes,
        seconds=time.perf_counter() - t0,
        tree=r.tree,
        weights=tuple(race.weights),
        groups=tuple(race.groups),
        controls=controls,
        population=d.population,
        shallow=r.shallow,
        depth=d.in_hands - r.horizon if r.horizon else None,
        leaf=d.limits.leaf,
        round_end=round_end,
    )


def _ranked(
    moves: list[Move], focus: Move | None, values_se: Sequence[tuple[float, float]], complete: Sequence[bool]
) -> list[int]:
    """The indices of a decision's moves as its result lists them, best first, from their values
    and standard errors and whether each was searched in every world. SearchError when the best has
    no value (no searched world has it as a legal move)."""
    # The moves are distinct, so their keys alone order them (the index rides along).
    order = sorted(
        [
            (value_key(ev), not complete[i], natural_key(m), m, i)
            for i, (m, (ev, _)) in enumerate(zip(moves, values_se, strict=True))
        ]
    )
    out: list[int] = []
    for key in order:
        i = key[-1]
        if not math.isfinite(values_se[i][0]):
            if moves[i] != focus and out:
                continue  # a build for a partner that no searched world's partner can take
            raise SearchError(f"no searched world has {moves[i].describe()} as a legal move")
        out.append(i)
    return out


def _controls(d: _Decision, done: int) -> Controls | None:
    """The control variates of the ``done`` worlds sampled for decision ``d``
    (``worlds.holding_controls``: their rows made in the core where it drew the worlds), or None
    where they do not apply (too few worlds for them too: the fit is not made for nothing)."""
    holding = holding_controls(d.rules, d.obs)
    if holding is None or not Controls.enough(done, len(holding.means)):
        return None
    if d.native is not None:
        rows = native_race.holding_rows(d.native, done, holding.features)
    else:
        rows = [holding.row(w) for w, _, _ in d.drawn[:done]]
    return Controls(tuple(rows), holding.means)


def follow(rules: RuleSet, solver: WorldSolver, state: RoundState, rv: RootValue) -> Outcome:
    """What happens along a root move's line in one world, to where the search stops: the line that
    proves the move's value (``Solver.proving_line``), so that its end holds that value."""
    if isinstance(solver, NativeSolver):
        return solver.follow(state, rv)
    s = canonical(state)
    budget, used = solver.node_limit, solver.nodes
    solver.node_limit = 1 << 62  # explaining is not searching: it neither stops nor counts
    try:
        child = apply(rules, s, rv.move)
        if rv.reply is None:
            line = (rv.move, *solver.proving_line(child, rv.value))
        else:  # the reply was chosen outside the world's search: the proof starts after it
            line = (rv.move, rv.reply, *solver.proving_line(apply(rules, child, rv.reply), rv.value))
    finally:
        solver.node_limit, solver.nodes = budget, used
    gained = [0] * s.nsides
    for m in line:
        nxt = apply(rules, s, m)
        for k in range(s.nsides):
            gained[k] |= nxt.captured[k] & ~s.captured[k]
        s = nxt
    parts = solver.eval.parts(s)
    end = s.is_over
    sweeps = tuple(a - b for a, b in zip(s.sweeps, state.sweeps, strict=True))
    return Outcome(parts, rv.value - plain_sum(parts.values()), tuple(gained), sweeps, end)


@without_cycle_collection
def evaluate_world(rules: RuleSet, state: RoundState, limits: Limits = Limits()) -> SearchResult:
    """Perfect information: value every move of the seat to move knowing every hidden card (the
    cost of a move against the cards actually held). Exact when the search reaches the end of the
    round; ``limits.depth`` applies, the sampling limits do not. TooBigToSearchError as ``evaluate``."""
    t0 = time.perf_counter()
    seat = state.to_move
    if not state.hands[seat]:
        raise SearchError(f"seat {seat} has no cards: the next deal comes first")
    check_table(state.loose)
    legal = legal_moves(rules, state)
    check_moves(len(legal))
    in_hands = sum(h.bit_count() for h in state.hands)
    horizon = _horizon(in_hands, limits.depth, state.nplayers)
    through = goes_to_round_end(state.nplayers, in_hands, state.stock.bit_count(), limits.depth)
    cap = NODE_CAP * limits.nodes if limits.nodes is not None else None
    solver = _Ladder(
        rules,
        seat % state.nsides,
        state.nsides,
        horizon,
        in_hands,
        budget=limits.nodes,
        leaf=limits.leaf,
        cap=cap,
        next_deal=through,
    )
    values = solver.root_values(state, sorted(legal, key=MoveOrder(rules)))
    values.sort(key=lambda rv: (value_key(rv.value), natural_key(rv.move), rv.move))
    out = tuple(MoveValue(rv.move, rv.value, 0.0, rv.line[1:]) for rv in values)
    round_end = _reaches_round_end(horizon, not state.more, through) and not solver.shallow
    return SearchResult(
        seat=seat,
        exact=round_end and state.nsides == 2,
        moves=out,
        samples=1,
        nodes=solver.nodes,
        seconds=time.perf_counter() - t0,
        tree=None,
        leaf=limits.leaf,
        round_end=round_end,
    )
