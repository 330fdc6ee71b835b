"""Mirrored matches between two policies, for bot-strength figures.

Each *pair* plays one shuffled deal twice with the seats swapped: first policy A holds the even sides
(side 0, and side 2 with three players) and policy B the odd ones, then the other way round, with the
very same cards and dealer. The pair's value is A's points minus B's points, summed over the two plays
(with three sides, the mean over each policy's sides). By default a play is one round (``unit="round"``:
cheap, and the luck of the cards cancels within the pair); ``unit="game"`` plays each to the target and
uses the final scores. ``mirrored_pairs`` reports the mean per pair with a 95% interval and uses
``jobs`` processes. All plays go through ``game.Game``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from casino_coach.bots.policies import Policy, make_policy
from casino_coach.engine.cards import RANK, RANK_MASK, iter_cards
from casino_coach.engine.movegen import CAPTURE, MAX_LISTED_LOOSE, TRAIL, Move, apply, is_legal, legal_moves
from casino_coach.engine.observation import observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Match, Points
from casino_coach.engine.state import RoundState, check_players, deal, new_round, shuffle_round, sides_for
from casino_coach.errors import CoachError
from casino_coach.formats.game import Game
from casino_coach.workers import worker_pool


@dataclass(frozen=True)
class PairStats:
    """The outcome of ``mirrored_pairs``: mean of A minus B per pair, with a 95% interval."""

    policy_a: str
    policy_b: str
    rules: RuleSet
    nplayers: int
    unit: str
    pairs: int
    mean: float
    ci95: float  # half-width of the 95% interval of the mean (normal approximation)
    stdev: float
    a_better: int  # pairs A won
    b_better: int  # pairs B won
    values: tuple[float, ...] = field(repr=False, default=())

    @property
    def low(self) -> float:
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        return self.mean + self.ci95

    def text(self) -> str:
        return (
            f"{self.policy_a} vs {self.policy_b} ({self.rules.describe()}, {self.nplayers} players, "
            f"{self.pairs} mirrored pairs of one {self.unit}): {self.mean:+.3f} points per pair for "
            f"{self.policy_a}, 95% interval [{self.low:+.3f}, {self.high:+.3f}]; pairs won "
            f"{self.a_better}-{self.b_better}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "policy_a": self.policy_a,
            "policy_b": self.policy_b,
            "rules": self.rules.to_dict(),
            "players": self.nplayers,
            "unit": self.unit,
            "pairs": self.pairs,
            "mean": self.mean,
            "ci95": self.ci95,
            "low": self.low,
            "high": self.high,
            "stdev": self.stdev,
            "a_better": self.a_better,
            "b_better": self.b_better,
        }


def deal_ends(
    rules: RuleSet, seats: Sequence[Policy], dealer: int, rng: random.Random
) -> tuple[list[RoundState], RoundState]:
    """One round from a shuffle of ``rng``, seat ``s`` played by ``seats[s]`` (a forced move is played
    without asking): the states at the end of every deal but the last, and the round's last state.
    What the leaf's measurements (``scripts/measure_leaf.py``, ``scripts/fit_leaf.py``) learn from."""
    nplayers = len(seats)
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, sides_for(nplayers, rules.partnerships), dealer, sh.table, sh.deals[0])
    ends: list[RoundState] = []
    i = 1
    while not s.is_over:
        if s.needs_deal:
            ends.append(s)
            s = deal(s, sh.deals[i])
            i += 1
        moves = legal_moves(rules, s)
        seat = s.to_move
        move = moves[0] if len(moves) == 1 else seats[seat].choose(rules, observe(s, seat), moves, rng)
        s = apply(rules, s, move)
    return ends, s


def play(
    rules: RuleSet,
    seat_policies: Sequence[Policy],
    seed: int,
    *,
    rounds: int | None = 1,
    bot_seed: str = "",
    players: Sequence[str] | None = None,
    scores: Sequence[Points] | None = None,
    **game_options: Any,
) -> Game:
    """Play one game (``rounds`` rounds, or to the target when None) with one policy per seat.

    Seat ``s`` chooses with ``random.Random(f"{bot_seed}:{seed}:{s}")``, so a game is reproducible
    from its seed. The policies are told the game score before each round (``Policy.choose``), with
    ``scores`` added: the score the game stands at outside this one (``game_from``'s rounds).
    ``players`` names the seats (default: the policies' names, numbered where a bot plays two seats:
    "greedy 1", "counter", "greedy 2", so that a log's players and a store's records are told
    apart); ``game_options`` go to ``Game`` (created_by, event, date)."""
    n = len(seat_policies)
    names = list(players) if players is not None else _seat_names([p.name for p in seat_policies])
    game = Game(rules, names, seed=seed, max_rounds=rounds, **game_options)
    base = list(scores) if scores is not None else [0] * game.nsides
    rngs = [random.Random(f"{bot_seed}:{seed}:{s}") for s in range(n)]
    while not game.over:
        seat = game.to_move
        legal = offered_moves(game)
        told = [a + b for a, b in zip(base, game.scores, strict=True)]
        move = seat_policies[seat].choose(rules, game.observation(seat), legal, rngs[seat], scores=told)
        game.play(move)
    return game


def offered_moves(game: Game) -> list[Move]:
    """The moves a bot chooses from: every legal move, or on a table too big to list them (more than
    MAX_LISTED_LOOSE loose cards, where the captures run into the millions) the legal trails and
    pairings of the hand (each card taking every loose card of its rank). Such tables come of games
    where captures score nothing (only aces, say): bots trail and the table grows."""
    state = game.state
    if game.over or state.loose.bit_count() <= MAX_LISTED_LOOSE:
        return game.legal()
    offered = []
    for c in iter_cards(state.hands[state.to_move]):
        offered.append(Move(c, TRAIL))
        same = state.loose & RANK_MASK[RANK[c]]
        if same:
            offered.append(Move(c, CAPTURE, same))
    return sorted(m for m in offered if is_legal(game.rules, state, m)) or game.legal()


def game_from(
    rules: RuleSet,
    seat_policies: Sequence[Policy],
    scores: Sequence[Points],
    dealer: int,
    seed: int,
    *,
    bot_seed: str = "from",
    max_rounds: int = 200,
) -> int | None:
    """Play a game on from the game score ``scores`` (per side) with seat ``dealer`` dealing the next
    round, one policy per seat, to its end: the winning side (None after ``max_rounds`` rounds without
    one). Each round is a ``play`` of its own (seeded from ``seed`` and the round), scored into a
    ``scoring.Match`` that starts at ``scores``, so the game ends by the rules' own count."""
    n = len(seat_policies)
    match = Match(rules, sides_for(n, rules.partnerships), scores=list(scores))
    for r in range(max_rounds):
        game = play(
            rules,
            seat_policies,
            seed * 1000 + r,
            rounds=1,
            dealer=dealer,
            bot_seed=bot_seed,
            scores=match.scores,
        )
        match.add_round(game.state)
        if match.over:
            return match.winner
        dealer = (dealer + 1) % n
    return None


def _side_points(game: Game, unit: str) -> list[Points]:
    if unit == "round":
        return list(game.match.rounds[0].points)
    return list(game.match.scores)


def mirrored_pair(
    rules: RuleSet, nplayers: int, a: Policy, b: Policy, seed: int, unit: str = "round"
) -> float:
    """A's points minus B's over one deal played twice with the seats swapped."""
    nsides = 2 if nplayers == 4 and rules.partnerships else nplayers
    total = 0.0
    for swap in (False, True):
        a_sides = [s for s in range(nsides) if (s % 2 == 0) != swap]
        b_sides = [s for s in range(nsides) if s not in a_sides]
        seats = [a if (s % nsides) in a_sides else b for s in range(nplayers)]
        game = play(
            rules, seats, seed, rounds=1 if unit == "round" else None, bot_seed=f"{a.name}-{b.name}-{swap}"
        )
        pts = _side_points(game, unit)
        total += sum(pts[s] for s in a_sides) / len(a_sides) - sum(pts[s] for s in b_sides) / len(b_sides)
    return total


def _seat_names(bots: list[str]) -> list[str]:
    """The bots' names, numbered where one plays more than one seat."""
    seen: dict[str, int] = {}
    out = []
    for b in bots:
        seen[b] = seen.get(b, 0) + 1
        out.append(f"{b} {seen[b]}" if bots.count(b) > 1 else b)
    return out


def mirrored_games(rules: RuleSet, nplayers: int, a: Policy, b: Policy, seed: int) -> tuple[int, int]:
    """One sequence of deals (the shuffles of ``Game(seed=seed)``, the same whatever is played) played
    as two whole games to the target with the seats swapped, as ``mirrored_pair``'s plays: the games
    won by A and by B (0, 1 or 2 each; a game won by nobody, possible only with three sides, counts
    for neither)."""
    nsides = 2 if nplayers == 4 and rules.partnerships else nplayers
    won = [0, 0]
    for swap in (False, True):
        a_sides = [s for s in range(nsides) if (s % 2 == 0) != swap]
        seats = [a if (s % nsides) in a_sides else b for s in range(nplayers)]
        game = play(rules, seats, seed, rounds=None, bot_seed=f"{a.name}-{b.name}-{swap}")
        if game.winner is not None:
            won[0 if game.winner in a_sides else 1] += 1
    return won[0], won[1]


@dataclass(frozen=True)
class GameShare:
    """Games to the target won by A and B over mirrored pairs (``mirrored_games``): A's share of
    the games won, with a 95% interval from the spread of the pairs (the two games of a pair share
    their deals, so they are not independent; normal approximation)."""

    pairs: int
    a_won: int
    b_won: int
    share: float
    ci95: float

    @property
    def low(self) -> float:
        return self.share - self.ci95

    @property
    def high(self) -> float:
        return self.share + self.ci95

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "games": 2 * self.pairs,
            "a_won": self.a_won,
            "b_won": self.b_won,
            "share": self.share,
            "ci95": self.ci95,
            "low": self.low,
            "high": self.high,
        }


def game_share(pairs: Sequence[tuple[int, int]]) -> GameShare:
    """A's share of the games won over ``pairs`` of (A's wins, B's wins): the ratio of the totals,
    with the delta method's standard error over the pairs."""
    n = len(pairs)
    if n < 2:
        raise CoachError("at least 2 pairs are needed for an interval")
    a = sum(x for x, _ in pairs)
    b = sum(y for _, y in pairs)
    total = a + b
    if total == 0:
        return GameShare(n, 0, 0, 0.5, 0.5)
    share = a / total
    # The ratio of two means (wins of A, games won per pair): its residuals per pair.
    per_pair = total / n
    resid = [(x - share * (x + y)) / per_pair for x, y in pairs]
    mean = sum(resid) / n
    var = sum((r - mean) ** 2 for r in resid) / (n - 1)
    return GameShare(n, a, b, share, 1.96 * math.sqrt(var / n))


_WORKER: dict[str, Any] = {}


def _init_worker(
    rules_dict: dict[str, Any],
    nplayers: int,
    policies: tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]],
    unit: str,
) -> None:
    (a, opts_a), (b, opts_b) = policies
    _WORKER.update(
        rules=RuleSet.from_dict(rules_dict),
        nplayers=nplayers,
        a=make_policy(a, **opts_a),
        b=make_policy(b, **opts_b),
        unit=unit,
    )


def _run_pair(seed: int) -> float:
    w = _WORKER
    return mirrored_pair(w["rules"], w["nplayers"], w["a"], w["b"], seed, w["unit"])


def pair_seed(seed: int, index: int) -> int:
    """The deal seed of pair ``index`` of a run started with ``seed``."""
    return seed * 1_000_003 + index


def mirrored_pairs(
    rules: RuleSet,
    nplayers: int,
    policy_a_name: str,
    policy_b_name: str,
    *,
    pairs: int,
    seed: int,
    jobs: int = 1,
    unit: str = "round",
    options_a: Mapping[str, Any] | None = None,
    options_b: Mapping[str, Any] | None = None,
) -> PairStats:
    """Play ``pairs`` mirrored pairs of A against B and pair_stats A minus B per pair."""
    if unit not in ("round", "game"):
        raise CoachError(f"unit must be 'round' or 'game', got {unit!r}")
    check_players(nplayers)
    if pairs < 2:
        raise CoachError("at least 2 pairs are needed for an interval")
    opts_a, opts_b = dict(options_a or {}), dict(options_b or {})
    # Build the policies once here so that a bad name fails before any process starts.
    make_policy(policy_a_name, **opts_a)
    make_policy(policy_b_name, **opts_b)
    init = (rules.to_dict(), nplayers, ((policy_a_name, opts_a), (policy_b_name, opts_b)), unit)
    seeds = [pair_seed(seed, i) for i in range(pairs)]
    if jobs > 1:
        with worker_pool(jobs, _init_worker, init) as pool:
            values = pool.map(_run_pair, seeds, chunksize=max(1, pairs // (jobs * 8)))
    else:
        _init_worker(*init)
        values = [_run_pair(s) for s in seeds]
    return pair_stats(policy_a_name, policy_b_name, rules, nplayers, unit, values)


def pair_stats(
    a: str, b: str, rules: RuleSet, nplayers: int, unit: str, values: Sequence[float]
) -> PairStats:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    sd = math.sqrt(var)
    return PairStats(
        a,
        b,
        rules,
        nplayers,
        unit,
        n,
        mean,
        1.96 * sd / math.sqrt(n),
        sd,
        sum(1 for v in values if v > 0),
        sum(1 for v in values if v < 0),
        tuple(values),
    )
