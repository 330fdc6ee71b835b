"""The chance of winning the game to the target (rules.md 1.14), before a round and after one, and the
root move that gives the mover's side the best of it.

**Before a round** (``game_chances``): the chance that each side wins the game from a game score and
a dealer, read from a table shipped with the package (``game_table.json``). The table is computed by
``solve``, dynamic programming over the rounds still to come: a round is drawn from a measured
distribution of round *tallies* (``scoring.Tally``: who takes most cards, most spades, Big and Little
Casino and each ace, the sweeps each side makes), counted relative to the dealer's side over self-play
rounds of one bot (``scripts/fit_game_table.py``), and every tally is scored at the game score by the
engine itself (``scoring.score_tally``), so the count-out order of Royal and Dominican (who reaches the
target first) and the Dominican near-target rules (a side at 18, 19 or 20 at the start of the count
wins only by most cards, Big Casino, Little Casino, scores nothing else and no sweeps) apply exactly to
each one. The bots measured play for the round, not for the game score, so one distribution serves
every score. The deal passes one seat on after each round (1.3.1), so the dealer's side changes with it.

**After a round** (``chances_after``): the same, from a distribution of the round's tallies instead of
the measured one: the rounds a move leads to. ``world_chances`` reads that distribution from the
search (two sides), world by world: in every world the search follows the move's line to where it
stops and splits its value by scoring category (``result.Outcome``); a category's margin there is its
expected points, so it says how likely the mover's side is to take it, and the sweeps made are
counted. The categories are taken as independent within one world (an approximation: in a real round
taking more cards goes with taking more spades), and a tie for most cards is only seen where the line
reaches the end of the round. In the last deal of a two-player round, where every card still out is
in the other hand (``exact_deal``), the rest of the round is a game of perfect information and the
chance is solved instead (``solved_chance``): minimax over the chance to win the game, both sides
playing the rest of the deal for it, each end of the round scored at the game score (``game_final``),
so that chance is exact for the table. Where the round cannot decide the
game (no side near the target or able to reach it), a tally counts only by the points it adds, and a
world's chance is summed over the few point totals the categories make (``_undecided_points``) instead
of over its hundreds of tallies.

**Choosing for the game** (``choose_for_game``): from a search made with ``detail``, each move's
chance in each world (``world_chances``), and its edge over the best move for the round paired over
the worlds both were searched in, with a 95% interval (``game_edges``); the move played for the game
is, of those whose interval lies above 0, the one ahead most surely (the highest low end), and the
round's best move when none is (with a few sampled worlds a choice by the noisier chances would lose
rounds for nothing; the solved last deal shows the edges exactly). ``game_is_close`` says when that
choice is worth its cost: when some side can reach the target in this round (``for_the_game`` adds a
known score, two sides and a table).

**Searching for the game** (``game_weights``): before the last deal the searcher bot searches every
line for the game, not only the root move. The chance to win is linearised around the round as the
handmade leaf sees it from the mover's observation: a weight per scoring category and side (how much
more chance the mover's side has when it takes the category than when the other side does, over the
other categories' odds; a sweep's, how much one more sweep of a side moves the chance), scaled so that
far from the target the weights are the round's margin. The search values every leaf and end of the
round by them (``leaf.Evaluator``), both sides maximising them: a Dominican side at 19 plays every
line for Big Casino and its opponent to keep it from them, and neither for the aces.

The chances are those of the measured bot playing both sides: they rank game scores and moves, they
do not predict one particular pair of players. This module sits in the search layer so that the bots
can choose by it; ``coach.winning`` reports it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Final

import orjson

from casino_coach.engine.cards import ACES_COUNT_OUT
from casino_coach.engine.movegen import Move, apply
from casino_coach.engine.observation import Observation, as_state
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points, Tally, near_target_items, net_sweeps, score_tally, tally_of
from casino_coach.engine.state import RoundState
from casino_coach.errors import CoachError
from casino_coach.frozen import Frozen
from casino_coach.search import native_chances
from casino_coach.search.leaf import CategoryWeights, Evaluator
from casino_coach.search.native import NativeSolver
from casino_coach.search.result import MoveValue, Outcome, SearchResult, t_factor
from casino_coach.search.solver import Solver, canonical
from casino_coach.search.worlds import count_worlds, enumerate_worlds, world_state

TABLE_FILE: Final = Path(__file__).with_name("game_table.json")
TABLE_FORMAT: Final = "casino-game-table"

# The near-target rules start at most this far below the target (rules.md S7, Soto: at 16 of 21).
QUIET: Final = 5

Chances = tuple[float, ...]  # per side; they add up to 1
State = tuple[tuple[int, ...], int]  # game score per side, the dealer's side


def canonical_tally(rules: RuleSet, tally: Tally) -> Tally:
    """The tally with only what scoring reads kept: the majorities as marks (1 for each side with the
    most cards or spades, 0 for the others), and the last capture only when it scores. Rounds with
    the same canonical tally score alike at every game score."""

    def marks(counts: tuple[int, ...]) -> tuple[int, ...]:
        top = max(counts)
        return tuple(1 if top and c == top else 0 for c in counts)

    return Tally(
        marks(tally.cards),
        marks(tally.spades),
        tally.big,
        tally.little,
        tally.aces,
        tally.sweeps,
        tally.last_capturer if rules.last_capture_point else -1,
    )


def rotate(tally: Tally, by: int) -> Tally:
    """The tally with side ``s`` renamed ``(s + by) % nsides``: a tally counted with the dealer's side
    as side 0, for a dealer's side ``by``."""
    n = len(tally.cards)

    def seq(xs: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(xs[(s - by) % n] for s in range(n))

    def one(s: int) -> int:
        return (s + by) % n if s >= 0 else s

    return Tally(
        seq(tally.cards),
        seq(tally.spades),
        one(tally.big),
        one(tally.little),
        tuple(one(a) for a in tally.aces),
        seq(tally.sweeps),
        one(tally.last_capturer),
    )


def _next_state(rules: RuleSet, scores: tuple[Points, ...], points: Sequence[Points]) -> tuple[int, ...]:
    """The game score after a round that decided nothing. Past the target that only happens to a tie
    for the most (classic, 1.14.2: another round), and then only the order of the scores matters
    (whoever leads after a round wins): they are moved down together until the highest is the
    target, so the table's scores stay within 0..target."""
    return _within_target(rules.target, [int(a + b) for a, b in zip(scores, points, strict=True)])


def _within_target(target: int, scores: Sequence[int]) -> tuple[int, ...]:
    """Scores past the target moved down together until the highest is the target (a tie past it,
    classic: only their order matters), none below 0."""
    over = max(scores) - target
    return tuple(max(0, x - over) for x in scores) if over > 0 else tuple(scores)


def solve(
    rules: RuleSet,
    nsides: int,
    distribution: Mapping[Tally, float],
    tolerance: float = 1e-12,
) -> dict[State, Chances]:
    """The chance that each side wins the game from every game score 0..target per side, before a
    round dealt by each side, when every round's tally is drawn from ``distribution`` (tallies with
    the dealer's side as side 0, and their probabilities). Each tally is scored by the engine at each
    score (``score_tally``); the rounds that decide nothing lead to the next score, dealt by the next
    side. Rounds that change no score (two Dominican sides waiting at 18-20) make the system cyclic,
    so it is solved by repeated sweeps, the highest scores first, until no chance moves by more than
    ``tolerance``."""
    total = sum(distribution.values())
    if not total > 0:
        raise CoachError("the round distribution is empty")
    tallies = [(canonical_tally(rules, t), p / total) for t, p in distribution.items() if p > 0]
    merged: dict[Tally, float] = {}
    for t, p in tallies:
        merged[t] = merged.get(t, 0.0) + p
    grid = range(rules.target + 1)
    states: list[State] = [(sc, d) for sc in itertools.product(grid, repeat=nsides) for d in range(nsides)]
    states.sort(key=lambda st: (-sum(st[0]), st))
    # Per state: the chance each side wins in this round, and where the other rounds lead.
    moves: dict[State, tuple[list[float], dict[State, float]]] = {}
    # Far from the target a round decides nothing and scores what it scores at 0-0: a side that ends
    # it below target - QUIET started it below every near-target score and reached nothing.
    by_dealer = [
        [(rotate(t, d), p, score_tally(rules, rotate(t, d)).points) for t, p in merged.items()]
        for d in range(nsides)
    ]
    quiet = rules.target - QUIET
    for scores, d in states:
        won = [0.0] * nsides
        nxt: dict[State, float] = {}
        for t, p, plain in by_dealer[d]:
            if all(a + b < quiet for a, b in zip(scores, plain, strict=True)):
                points = plain
            else:
                rs = score_tally(rules, t, scores)
                if rs.winner is not None:
                    won[rs.winner] += p
                    continue
                points = rs.points
            key = (_next_state(rules, scores, points), (d + 1) % nsides)
            nxt[key] = nxt.get(key, 0.0) + p
        moves[(scores, d)] = (won, nxt)
    value: dict[State, list[float]] = {st: [1.0 / nsides] * nsides for st in states}
    for _ in range(100_000):
        change = 0.0
        for st in states:
            won, nxt = moves[st]
            v = list(won)
            for key, p in nxt.items():
                w = value[key]
                for s in range(nsides):
                    v[s] += p * w[s]
            change = max(change, max(abs(a - b) for a, b in zip(v, value[st], strict=True)))
            value[st] = v
        if change < tolerance:
            break
    return {st: _normalised(v) for st, v in value.items()}


def _normalised(v: Sequence[float]) -> Chances:
    total = sum(v)
    return tuple(x / total for x in v) if total > 0 else tuple(1.0 / len(v) for _ in v)


# ---------------------------------------------------------------------------------------------------
# The shipped table


@dataclass(frozen=True)
class GameTable(Frozen):
    """The chances of one rule set and number of players, from every score and dealer's side, and
    where they come from (the bot and the number of rounds measured)."""

    rules: RuleSet
    nplayers: int
    nsides: int
    chances: dict[State, Chances]
    source: dict[str, Any]

    def at(self, scores: Sequence[Points], dealer_side: int) -> Chances:
        """The chances before a round from ``scores`` (per side) with ``dealer_side`` dealing."""
        if len(scores) != self.nsides:
            raise CoachError(f"expected a game score for each of {self.nsides} sides, got {len(scores)}")
        key = _within_target(self.rules.target, [math.floor(s) for s in scores])
        return self.chances[(tuple(max(0, x) for x in key), dealer_side % self.nsides)]

    def to_json(self) -> dict[str, Any]:
        n = self.nsides
        grid = range(self.rules.target + 1)
        return {
            "rules": self.rules.to_dict(),
            "players": self.nplayers,
            "sides": n,
            "source": self.source,
            # chances[dealer side][score of side 0][score of side 1]...: the chance of each side
            "chances": [_nest(self.chances, d, (), n, grid) for d in range(n)],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameTable:
        rules = RuleSet.from_dict(data["rules"])
        n = int(data["sides"])
        grid = range(rules.target + 1)
        chances: dict[State, Chances] = {}
        for d in range(n):
            for sc in itertools.product(grid, repeat=n):
                node: Any = data["chances"][d]
                for x in sc:
                    node = node[x]
                chances[(sc, d)] = tuple(float(p) for p in node)
        return cls(rules, int(data["players"]), n, chances, dict(data.get("source", {})))


def _nest(chances: dict[State, Chances], d: int, prefix: tuple[int, ...], n: int, grid: range) -> Any:
    if len(prefix) == n:
        return [round(p, 6) for p in chances[(prefix, d)]]
    return [_nest(chances, d, (*prefix, x), n, grid) for x in grid]


def tables_to_json(tables: Iterable[GameTable]) -> dict[str, Any]:
    return {"format": TABLE_FORMAT, "version": 1, "tables": [t.to_json() for t in tables]}


@cache
def shipped_tables() -> tuple[GameTable, ...]:
    """The tables shipped with the package (empty when the file is missing)."""
    if not TABLE_FILE.exists():
        return ()
    data = orjson.loads(TABLE_FILE.read_bytes())
    if data.get("format") != TABLE_FORMAT:
        raise CoachError(f"{TABLE_FILE.name}: not a {TABLE_FORMAT} file")
    return tuple(GameTable.from_json(t) for t in data["tables"])


def table_for(rules: RuleSet, nplayers: int) -> GameTable | None:
    """The shipped table of these rules (every option as the table was measured with) and number of
    players, or None: the chances are then not known."""
    for t in shipped_tables():
        if t.rules == rules and t.nplayers == nplayers:
            return t
    return None


def game_chances(rules: RuleSet, nplayers: int, scores: Sequence[Points], dealer: int) -> Chances | None:
    """The chance that each side wins the game, before a round dealt by seat ``dealer`` from the game
    score ``scores`` (per side); None without a table for these rules and players."""
    table = table_for(rules, nplayers)
    if table is None:
        return None
    return table.at(scores, dealer % table.nsides)


# ---------------------------------------------------------------------------------------------------
# After a round: from a distribution of its tallies


def chances_after(
    table: GameTable,
    scores: Sequence[Points],
    dealer: int,
    tallies: Mapping[Tally, float],
) -> Chances:
    """The chance that each side wins the game once a round dealt by seat ``dealer`` from ``scores``
    ends with a tally drawn from ``tallies`` (tallies by side, and their probabilities): a round that
    decides the game counts as won by its winner (``score_tally``: the count-out order and the
    near-target rules), any other is followed by the table at the score it leads to."""
    rules = table.rules
    n = table.nsides
    start = tuple(scores)
    total = 0.0
    out = [0.0] * n
    for t, p in tallies.items():
        if p <= 0:
            continue
        total += p
        winner, state = _settled(rules, t, start)
        if winner is not None:
            out[winner] += p
            continue
        after = table.at(state, (dealer + 1) % n)
        for s in range(n):
            out[s] += p * after[s]
    if not total > 0:
        raise CoachError("no round outcome to weigh")
    return tuple(x / total for x in out)


@lru_cache(maxsize=1 << 16)
def _settled(rules: RuleSet, tally: Tally, scores: tuple[Points, ...]) -> tuple[int | None, tuple[int, ...]]:
    """The winner of the game if a round with ``tally`` decides it at ``scores``, else the score it
    leads to (``score_tally``; the decisions of one game meet the same tallies again and again)."""
    rs = score_tally(rules, tally, scores)
    return rs.winner, _next_state(rules, scores, rs.points)


def game_final(
    table: GameTable, scores: Sequence[Points], dealer: int, side: int
) -> Callable[[RoundState], float]:
    """The chance that ``side`` wins the game once a round dealt by seat ``dealer`` from the game score
    ``scores`` is played out as the state given says (the final value of a ``Solver`` for the game)."""
    rules = table.rules
    start = tuple(scores)
    nxt = (dealer + 1) % table.nsides

    def value(state: RoundState) -> float:
        winner, after = _settled(rules, canonical_tally(rules, tally_of(state)), start)
        if winner is not None:
            return 1.0 if winner == side else 0.0
        return table.at(after, nxt)[side]

    return value


# Per scoring category of ``search.Outcome.parts`` (two sides): the item's points under the rules.
def _category_points(rules: RuleSet) -> dict[str, int]:
    out = {
        "cards": rules.points_cards,
        "spades": rules.points_spades,
        "big": rules.points_big,
        "little": rules.points_little,
    }
    for a in ACES_COUNT_OUT:
        out[f"ace{a}"] = rules.points_ace
    if rules.last_capture_point:
        out["last"] = rules.last_capture_point
    return out


_SNAP: Final = 1e-9


def _owners(outcome: Outcome, key: str, worth: Mapping[str, int], me: int) -> list[tuple[int, float]]:
    """Who takes the category ``key`` at the end of one world's outcome, with what probability (-1:
    nobody): the mover's side ``me`` with the probability its margin there says (margin = points x
    (2p - 1)); most cards is tied only where the margin is 0 at the end of the round or nobody is
    credited with it."""
    m = outcome.parts.get(key)
    if not worth.get(key) or m is None or (key == "cards" and outcome.end and abs(m) < _SNAP):
        return [(-1, 1.0)]
    p = min(1.0, max(0.0, (m / worth[key] + 1.0) / 2.0))
    if p > 1 - _SNAP:
        return [(me, 1.0)]
    if p < _SNAP:
        return [(1 - me, 1.0)]
    return [(me, p), (1 - me, 1.0 - p)]


def _sweeps_after(obs: Observation, outcome: Outcome) -> tuple[int, ...]:
    """The sweeps of the round by side: those made so far and along the outcome's line."""
    return tuple(a + b for a, b in zip(obs.sweeps, outcome.sweeps, strict=True))


def world_tallies(rules: RuleSet, obs: Observation, outcome: Outcome) -> list[tuple[Tally, float]]:
    """The tallies one world's outcome of a move may end the round with (two sides), and their
    probabilities: each category goes to a side as ``_owners`` says, independently; the sweeps are
    those made so far and along the line."""
    if obs.nsides != 2:
        raise CoachError("round tallies from the search need two sides")
    me = obs.seat % 2
    worth = _category_points(rules)

    def marks(key: str) -> list[tuple[tuple[int, ...], float]]:
        return [(_MARKS[s], q) for s, q in _owners(outcome, key, worth, me)]

    aces: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
    for a in ACES_COUNT_OUT:
        aces = [((*t, s), p * q) for t, p in aces for s, q in _owners(outcome, f"ace{a}", worth, me)]
    sweeps = _sweeps_after(obs, outcome)
    # Each category's owners once (a comprehension would read the inner ones again for every
    # combination of the outer ones).
    cards, spades, big, little, last = (
        marks("cards"),
        marks("spades"),
        _owners(outcome, "big", worth, me),
        _owners(outcome, "little", worth, me),
        _owners(outcome, "last", worth, me),
    )
    return [
        (Tally(c, sp, b, lt, ac, sweeps, x), pc * ps * pb * pl * pa * px)
        for c, pc in cards
        for sp, ps in spades
        for b, pb in big
        for lt, pl in little
        for ac, pa in aces
        for x, px in last
    ]


def _undecided_points(
    rules: RuleSet, obs: Observation, scores: Sequence[Points], outcome: Outcome
) -> dict[tuple[Points, Points], float] | None:
    """The round's points by side after one world's outcome (two sides), and their probabilities,
    when the round cannot decide the game: no side near the target (1.14.4) and none able to reach
    it with every point of the round and its sweeps. Then a tally counts only by the points it adds
    (``score_tally``: no winner, the points as awarded), and the categories combine as a sum of a
    few values rather than as the hundreds of tallies ``world_tallies`` lists. None when the round
    could decide the game."""
    sweeps = _sweeps_after(obs, outcome)
    if rules.sweeps and rules.points_sweep:
        swept = [x * rules.points_sweep for x in net_sweeps(rules, sweeps)]
    else:
        swept = [0, 0]
    reach = round_points(rules)
    for s in range(2):
        if near_target_items(rules, scores[s]) is not None or scores[s] + reach + swept[s] >= rules.target:
            return None
    me = obs.seat % 2
    dist: dict[tuple[Points, Points], float] = {(swept[0], swept[1]): 1.0}
    for key, worth in _category_points(rules).items():
        if not worth:
            continue
        # A tie for most cards or spades (nobody credited) scores as the rules split or drop it.
        split = key in ("cards", "spades") and rules.majority_tie == "split"
        share: Points = (worth // 2 if worth % 2 == 0 else worth / 2) if split else 0
        owners = _owners(outcome, key, {key: worth}, me)
        nxt: dict[tuple[Points, Points], float] = {}
        for (a, b), p in dist.items():
            for side, q in owners:
                k = (a + worth, b) if side == 0 else (a, b + worth) if side == 1 else (a + share, b + share)
                nxt[k] = nxt.get(k, 0.0) + p * q
        dist = nxt
    return dist


# Majority marks (``canonical_tally``) of two sides by who has the most: nobody (a tie), 0 or 1.
_MARKS: Final = {-1: (1, 1), 0: (1, 0), 1: (0, 1)}


def _outcome_key(outcome: Outcome) -> tuple[Any, ...]:
    """What of a world's outcome its tallies depend on."""
    return (tuple(sorted(outcome.parts.items())), outcome.sweeps, outcome.end)


class ChanceMemo:
    """What the game chances of one decision's moves share (``world_chances``): the mover's chance
    after each world outcome met (worlds and moves often end alike) and after each tally, the
    solver of a last deal played for the game (``solved_chance``) with its position, the native
    core's chances of the decision (``native_chances``), and what the verdict, the chances and the
    move for the game of one assessment each ask again: each move's chances per world
    (``world_chances``) and the edges over a move (``game_edges``), kept with the move's value or the
    result they were read from (a key by identity holds only while that object does)."""

    def __init__(self) -> None:
        self.outcomes: dict[tuple[Any, ...], float] = {}
        self.tallies: dict[Tally, float] = {}
        self.solvers: dict[
            tuple[Observation, tuple[Points, ...]], tuple[Solver | NativeSolver, RoundState]
        ] = {}
        self.native: dict[tuple[Any, ...], Any] = {}
        self.chances: dict[tuple[int, int], tuple[MoveValue, list[float]]] = {}
        self.edges: dict[tuple[int, Move], tuple[SearchResult, list[GameEdge] | None]] = {}


def exact_deal(obs: Observation) -> bool:
    """Whether the rest of the round is a game of perfect information for the mover: the last deal,
    with the cards still out lying one way only (two players: they are all in the other hand)."""
    return obs.last_deal and count_worlds(obs) == 1


def solved_chance(
    table: GameTable, obs: Observation, scores: Sequence[Points], move: Move, memo: ChanceMemo | None = None
) -> float:
    """The mover's side's chance to win the game after ``move`` in a last deal of two sides whose cards
    lie one way (``exact_deal``), both sides playing the rest of the deal for the game: the minimax
    value of the deal for the chance, its ends valued by ``game_final``. (The chances of
    ``world_tallies`` follow instead the lines in which both sides play for the round's margin.) The
    core solves it where it runs (``native_chances.game_solver``: the same values to the bit)."""
    memo = ChanceMemo() if memo is None else memo
    key = (obs, tuple(scores))
    got = memo.solvers.get(key)
    if got is None:
        side = obs.seat % 2
        # The core's solver values the ends by the same chance, computed in the core
        # (``native_chances.game_solver``); the reference's calls ``game_final`` at every end.
        solver: Solver | NativeSolver | None = native_chances.game_solver(table, scores, obs.dealer, side)
        if solver is None:
            solver = Solver(table.rules, side, 2, final_value=game_final(table, scores, obs.dealer, side))
        (world,) = enumerate_worlds(table.rules, obs)
        got = memo.solvers[key] = (solver, canonical(world_state(obs, world)))
    solver, state = got
    return solver.value(apply(table.rules, state, move))


def world_chances(
    table: GameTable,
    obs: Observation,
    scores: Sequence[Points],
    mv: MoveValue,
    nworlds: int,
    memo: ChanceMemo | None = None,
) -> list[float]:
    """The mover's side's chance to win the game once the round is over after the move ``mv``, in
    each of the ``nworlds`` worlds of its search (made with ``detail``; two sides): the chances after
    that world's tallies (``world_tallies``; by the points alone where the round cannot decide the
    game, ``_undecided_points``), NaN where the move was not searched. ``memo`` keeps what other
    moves of the same decision meet again. In a last deal whose cards lie one way (``exact_deal``)
    the one world's chance is the deal's minimax value for the game instead (``solved_chance``):
    both sides play the rest of it for the game."""
    if obs.nsides != 2:
        raise CoachError("round tallies from the search need two sides")
    memo = ChanceMemo() if memo is None else memo
    kept = memo.chances.get((id(mv), nworlds))
    if kept is not None and kept[0] is mv:
        return list(kept[1])
    if nworlds == 1 and mv.outcomes and mv.outcomes[0] is not None and exact_deal(obs):
        got: list[float] | None = [solved_chance(table, obs, scores, mv.move, memo)]
    else:
        got = native_chances.outcome_chances(table, obs, scores, mv.outcomes, nworlds, memo.native)
    if got is None:
        got = outcome_chances(table, obs, scores, mv.outcomes, nworlds, memo)
    memo.chances[(id(mv), nworlds)] = (mv, got)
    return list(got)


def outcome_chances(
    table: GameTable,
    obs: Observation,
    scores: Sequence[Points],
    outcomes: Sequence[Outcome | None],
    nworlds: int,
    memo: ChanceMemo,
) -> list[float]:
    """The mover's side's chance to win the game after each of the first ``nworlds`` of one move's
    world ``outcomes`` (two sides; NaN where None or missing), as ``world_chances`` takes them: the
    chances after the outcome's tallies (``world_tallies``), by the points alone where the round
    cannot decide the game (``_undecided_points``). ``memo`` keeps what other moves meet again."""
    rules = table.rules
    side = obs.seat % 2
    nxt = (obs.dealer + 1) % table.nsides
    start = tuple(scores)
    out = [math.nan] * nworlds
    for i, outcome in enumerate(outcomes[:nworlds]):
        if outcome is None:
            continue
        key = _outcome_key(outcome)
        p = memo.outcomes.get(key)
        if p is None:
            p = 0.0
            points = _undecided_points(rules, obs, scores, outcome)
            if points is not None:
                for pts, q in points.items():
                    p += q * table.at(_next_state(rules, start, pts), nxt)[side]
            else:
                for t, q in world_tallies(rules, obs, outcome):
                    c = memo.tallies.get(t)
                    if c is None:
                        c = memo.tallies[t] = chances_after(table, scores, obs.dealer, {t: 1.0})[side]
                    p += q * c
            memo.outcomes[key] = p
        out[i] = p
    return out


def _owner(tally: Tally, key: str) -> int:
    """Who takes the category ``key`` (``_category_points``) in a tally of two sides (-1: nobody)."""
    if key in ("cards", "spades"):
        marks = tally.cards if key == "cards" else tally.spades
        return -1 if marks[0] == marks[1] else (0 if marks[0] else 1)
    if key == "big":
        return tally.big
    if key == "little":
        return tally.little
    if key == "last":
        return tally.last_capturer
    return tally.aces[ACES_COUNT_OUT.index(int(key[3:]))]


# Below this swing of the chance to win the game over every category of the round (the game is as
# good as decided, or nothing of this round counts), the search plays for the round's margin.
MIN_STAKE: Final = 1e-3


def game_weights(table: GameTable, obs: Observation, scores: Sequence[Points]) -> CategoryWeights | None:
    """What each point of each scoring category is worth to the mover's side for the game that
    started the round at ``scores``, when credited to either side (two sides; ``leaf.Evaluator``):
    the chance to win the game, linearised around the round as the handmade leaf sees it from the
    mover's observation (each category independently, as ``world_tallies`` reads an outcome). A
    category's weight is how much more the chance is when the mover's side takes it than when the
    other side does, over the other categories' chances, per point; a sweep's, how much one more
    sweep of a side moves it. The weights keep the round's units, so that the search's stopping
    rule and margins mean what they mean for the round: they are divided by the chance a point of
    margin would be worth if the round's whole swing of chance were spread over its points evenly,
    as it is far from the target, where every weight is then +1 a point for the mover's side and -1
    for the other's (the margin). In the Dominican near-target rules a side at 19 wins only by Big
    Casino, so at 19-19 its aces weigh nothing and Big Casino the whole round (5.5 a point). None
    when the round cannot move the chance (``MIN_STAKE``)."""
    if obs.nsides != 2:
        raise CoachError("category weights for the game need two sides")
    rules = table.rules
    me = obs.seat % 2
    base = Evaluator(rules, 2, me).parts(as_state(obs, (0,) * obs.nplayers, True))
    tallies = world_tallies(rules, obs, Outcome(base, 0.0, (0, 0), (0, 0), False))
    memo: dict[Tally, float] = {}

    def chance(t: Tally) -> float:
        c = memo.get(t)
        if c is None:
            c = memo[t] = chances_after(table, scores, obs.dealer, {t: 1.0})[me]
        return c

    worth = {k: v for k, v in _category_points(rules).items() if v}
    mass = {k: [0.0, 0.0] for k in worth}
    sums = {k: [0.0, 0.0] for k in worth}
    plain = 0.0
    swept = [0.0, 0.0]
    sweeps_count = bool(rules.sweeps and rules.points_sweep)
    for t, p in tallies:
        c = chance(t)
        plain += p * c
        for key in worth:
            o = _owner(t, key)
            if o >= 0:
                side = 0 if o == me else 1
                mass[key][side] += p
                sums[key][side] += p * c
        if sweeps_count:
            for s in range(2):
                more = tuple(x + (1 if i == s else 0) for i, x in enumerate(t.sweeps))
                swept[s] += p * chance(t._replace(sweeps=more))
    # The chance the category moves from the other side's hands to the mover's (a decided category
    # moves nothing).
    swing: dict[str, float] = {}
    for key, (m_me, m_other) in mass.items():
        if m_me > 0 and m_other > 0:
            swing[key] = sums[key][0] / m_me - sums[key][1] / m_other
    stake = sum(abs(d) for d in swing.values())
    if stake < MIN_STAKE:
        return None
    # Points of margin per unit of chance, the stake spread evenly over the round's points (a
    # category of P points moves the margin by 2P between the sides).
    scale = 2 * sum(worth.values()) / stake
    out: CategoryWeights = {}
    for key, d in swing.items():
        w = scale * d / (2 * worth[key])
        out[key] = (w, -w) if me == 0 else (-w, w)
    if sweeps_count:
        by_side = [scale * (swept[s] - plain) / rules.points_sweep for s in range(2)]
        out["sweeps"] = (by_side[0], by_side[1])
    return out


# Standard errors either side of a game edge's mean: a 95% interval with Student's t.
EDGE_Z: Final = 2.0


@dataclass(frozen=True)
class GameEdge(Frozen):
    """How much more chance of winning the game one move leaves than a reference move, paired over
    the worlds both were searched in (``paired_stats``): the mean, a 95% interval (Student's t over
    ``worlds``; a point where the worlds were all enumerated) and the number of worlds."""

    move: MoveValue
    gain: float
    low: float
    high: float
    worlds: int


def game_edges(
    rules: RuleSet,
    obs: Observation,
    scores: Sequence[Points],
    result: SearchResult,
    reference: Move,
    memo: ChanceMemo | None = None,
) -> list[GameEdge] | None:
    """The edge (``GameEdge``) of every other move of ``result`` (a search of ``obs`` made with
    ``detail``) over the move ``reference`` for the game that started the round at ``scores``: the
    largest gain first (``memo``: what the decision's other chances share). The chances come from
    the search for the game where one was made (``game_source``). None without a table for these
    rules and players, with more than two sides, or when the reference move has no outcomes."""
    memo = ChanceMemo() if memo is None else memo
    result = game_source(result)
    kept = memo.edges.get((id(result), reference))
    if kept is not None and kept[0] is result:
        return None if kept[1] is None else list(kept[1])
    edges = _game_edges(rules, obs, scores, result, reference, memo)
    memo.edges[(id(result), reference)] = (result, edges)
    return None if edges is None else list(edges)


def _game_edges(
    rules: RuleSet,
    obs: Observation,
    scores: Sequence[Points],
    result: SearchResult,
    reference: Move,
    memo: ChanceMemo,
) -> list[GameEdge] | None:
    """``game_edges`` worked out, ``result`` the search the chances come from."""
    table = table_for(rules, obs.nplayers)
    ref = result.value_of(reference)
    if table is None or obs.nsides != 2 or not ref.outcomes:
        return None
    nworlds = len(result.weights)
    base = world_chances(table, obs, scores, ref, nworlds, memo)
    edges = []
    for mv in result.moves:
        if mv.move == reference or not mv.outcomes:
            continue
        mine = world_chances(table, obs, scores, mv, nworlds, memo)
        diffs = [a - b for a, b in zip(mine, base, strict=True)]
        gain, se, n = result.stats(diffs)
        if n == 0:
            continue
        half = EDGE_Z * t_factor(n) * se if math.isfinite(se) else math.inf
        edges.append(GameEdge(mv, gain, max(-1.0, gain - half), min(1.0, gain + half), n))
    edges.sort(key=lambda e: -e.gain)
    return edges


# ---------------------------------------------------------------------------------------------------
# Choosing the root move for the game

# An edge for the game smaller than this is none: the round's margin decides.
CHANCE_EPSILON: Final = 1e-9


def round_points(rules: RuleSet) -> int:
    """The points a round distributes besides the sweeps (rules.md 1.12: 11 in every preset)."""
    return (
        rules.points_cards
        + rules.points_spades
        + rules.points_big
        + rules.points_little
        + len(ACES_COUNT_OUT) * rules.points_ace
        + rules.last_capture_point
    )


# Sweeps a side may add to a round's points when they score (a guess at what a round can bring, not
# a bound: a round with more sweeps is rare).
SWEEP_SLACK: Final = 2


def game_is_close(rules: RuleSet, scores: Sequence[Points]) -> bool:
    """Whether some side can reach the target in this round (the round's points, and SWEEP_SLACK
    sweeps where they score), so that the round's result can decide the game (1.14; the Dominican
    sides at 18-20 are always close). Farther from the target the chance to win follows the round's
    margin, and choosing by the margin is both cheaper and as good."""
    reach = round_points(rules) + (SWEEP_SLACK if rules.sweeps else 0)
    return max(scores) + reach >= rules.target


def for_the_game(rules: RuleSet, obs: Observation, scores: Sequence[Points] | None) -> bool:
    """Whether the decision ``obs``, in a round that started at the game score ``scores``, is played
    and judged for the game as well as the round: a score is known, there are two sides, the rules
    and players have a table, and the game is close (``game_is_close``)."""
    return (
        scores is not None
        and obs.nsides == 2
        and game_is_close(rules, scores)
        and table_for(rules, obs.nplayers) is not None
    )


def game_search_weights(
    rules: RuleSet, obs: Observation, scores: Sequence[Points] | None
) -> CategoryWeights | None:
    """The game's weights (``game_weights``) where the decision ``obs`` is searched for the game: the
    game is close (``for_the_game``: a score, two sides, a table), it is not an exact last deal (that
    one is solved for the game instead, ``solved_chance``) and the round can still move the chance.
    None elsewhere. The searcher bot and the coach's ``judge`` both ask here, so that they search the
    same decisions for the game."""
    if scores is None or not for_the_game(rules, obs, scores) or exact_deal(obs):
        return None
    table = table_for(rules, obs.nplayers)
    return game_weights(table, obs, scores) if table is not None else None


def game_source(result: SearchResult) -> SearchResult:
    """The search a decision's chances to win the game are read from: its search for the game where
    one was made (``SearchResult.for_game``: before the last deal of a close game), else itself."""
    return result.for_game if result.for_game is not None else result


def surest_gain(edges: Sequence[GameEdge]) -> GameEdge | None:
    """Of the ``edges`` over one move, the move ahead of it for the game most surely: of those whose
    gain is above 0 at the low end of its interval, the highest low end, then the highest gain (a
    move searched in a handful of worlds before it left the race can show a large mean edge by
    chance alone); where none is, the highest gain above ``CHANCE_EPSILON``. None where no move is
    ahead. The move to play for the game (``choose_for_game``) and the verdict for the game
    (``coach.verdict.game_verdict_of``) both pick by it."""
    clear = [e for e in edges if e.low > CHANCE_EPSILON]
    if clear:
        return max(clear, key=lambda e: (e.low, e.gain))
    ahead = [e for e in edges if e.gain > CHANCE_EPSILON]
    return max(ahead, key=lambda e: e.gain) if ahead else None


def choose_for_game(
    rules: RuleSet,
    obs: Observation,
    scores: Sequence[Points] | None,
    result: SearchResult,
    memo: ChanceMemo | None = None,
) -> GameEdge | None:
    """The root move to play for the game instead of the best move for the round (the first of
    ``result``, a search made with ``detail``), with its edge, where the decision is played for the
    game (``for_the_game``): of the moves that leave more chance to win the game than the round's
    best over the same worlds (``game_edges``, read from the search for the game where one was made,
    ``SearchResult.for_game``), the one ahead most surely (``surest_gain``). None elsewhere, and when
    no move leaves more chance than the round's best.

    The chances decide, not the order of the search for the game: that search values each category
    by a linear weight (``game_weights``), and where one card wins the game at once (a Dominican side
    at 19 taking Big Casino) the weights can rank a big capture above the move that wins outright,
    while the chances after the worlds' outcomes tell them apart. ``memo``: what the decision's other
    chances share (the verdict for the game asks for the same edges where the best move was played)."""
    if scores is None or not result.moves or not for_the_game(rules, obs, scores):
        return None
    edges = game_edges(rules, obs, scores, result, result.moves[0].move, memo)
    return surest_gain(edges) if edges else None
