"""The sampling search on a toy card game, through the same protocol Casino uses (``search/protocol.py``).

*High-card duel*: the cards are 0..4; the root player holds one card, the other player one of the rest,
unseen (the world). The root either stays (0 points) or offers a duel, which the other player accepts
(the higher card wins 1 point from the lower) or declines (the root gets 0.5). Inside a world both
cards are known, so the other player accepts exactly when he holds the higher card: the duel is worth
0.5 in a world where the root's card is higher and -1 where it is lower. With the root holding 3, the
duel is worth (3 * 0.5 - 1) / 4 = 0.125 and staying 0.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import pytest

from casino_coach.search.minimax import MinimaxValuer, minimax
from casino_coach.search.protocol import Sampler, SearchGame, Worlds, WorldValues
from casino_coach.search.race import MIN_PAIRED, SETTLE, Race, Stopping, run_race
from casino_coach.search.result import loss_high, loss_low, paired_stats, verdict_stderr

CARDS = 5


class Duel(NamedTuple):
    mine: int
    theirs: int
    phase: str  # "offer": the root to move; "answer": the other player; "over"
    points: float = 0.0


class DuelGame:
    def side_to_move(self, state: Duel) -> int:
        return 0 if state.phase == "offer" else 1

    def legal(self, state: Duel) -> list[str]:
        return ["duel", "stay"] if state.phase == "offer" else ["accept", "decline"]

    def apply(self, state: Duel, move: str) -> Duel:
        if move == "stay":
            return state._replace(phase="over")
        if move == "duel":
            return state._replace(phase="answer")
        if move == "decline":
            return state._replace(phase="over", points=0.5)
        return state._replace(phase="over", points=1.0 if state.mine > state.theirs else -1.0)

    def is_terminal(self, state: Duel) -> bool:
        return state.phase == "over"

    def returns(self, state: Duel, side: int) -> float:
        return state.points if side == 0 else -state.points


class DuelSampler:
    """The other player's card: every one of the rest (an enumeration) or endless uniform draws."""

    def __init__(self, mine: int, enumerate_all: bool) -> None:
        self.mine = mine
        self.enumerate_all = enumerate_all

    def __call__(self, rng: random.Random) -> Worlds[int]:
        rest = [c for c in range(CARDS) if c != self.mine]
        if self.enumerate_all:
            rng.shuffle(rest)
            return iter([(c, 1.0, i) for i, c in enumerate(rest)]), len(rest)
        return _draws(rest, rng), None


def _draws(rest: list[int], rng: random.Random) -> Iterator[tuple[int, float, int]]:
    i = 0
    while True:
        yield rng.choice(rest), 1.0, i
        i += 1


def valuer(mine: int) -> MinimaxValuer[Duel, str, int]:
    return MinimaxValuer(DuelGame(), lambda theirs: Duel(mine, theirs, "offer"))


def search(
    mine: int,
    seed: int,
    *,
    enumerate_all: bool = False,
    samples: int = 200,
    min_samples: int = 8,
    focus: str | None = None,
    bands: tuple[float, ...] = (),
) -> tuple[Race[str], int, int | None]:
    sampler: Sampler[int] = DuelSampler(mine, enumerate_all)
    stream, population = sampler(random.Random(seed))
    race = Race(["duel", "stay"], focus)
    stop = Stopping(
        samples=population or samples,
        min_samples=min_samples,
        separation=2.0,
        margin=0.2,
        bands=bands,
        racing=population is None,
    )
    done, _ = run_race(race, [], stream, valuer(mine), stop)
    return race, done, population


def test_the_toy_game_is_a_game_of_the_protocol() -> None:
    game: SearchGame[Duel, str] = DuelGame()
    assert minimax(game, Duel(3, 4, "offer"), 0) == 0.0  # the duel loses 1 there: stay
    assert minimax(game, Duel(3, 1, "offer"), 0) == 0.5
    values, outcomes = valuer(3)(4, ["duel", "stay"])
    assert values == {"duel": (-1.0, ("accept",)), "stay": (0.0, ())} and outcomes is None


def test_enumerated_worlds_give_the_exact_values() -> None:
    race, done, population = search(3, seed=1, enumerate_all=True)
    assert done == population == 4
    (duel, se_duel), (stay, se_stay) = race.results(population)
    assert duel == pytest.approx(0.125) and stay == 0.0
    assert se_duel == se_stay == 0.0  # every world searched: no sampling error


def test_the_same_seed_gives_the_same_worlds_and_values() -> None:
    a, done_a, _ = search(2, seed=5, min_samples=30, focus="duel", bands=(0.24, 0.26))
    b, done_b, _ = search(2, seed=5, min_samples=30, focus="duel", bands=(0.24, 0.26))
    c, _, _ = search(2, seed=6, min_samples=30, focus="duel", bands=(0.24, 0.26))
    assert done_a == done_b and a.values == b.values and a.weights == b.weights
    assert a.values != c.values  # another seed, other worlds


def test_a_dominated_move_leaves_the_race_and_the_race_stops_once_decided() -> None:
    # Holding the highest card, the duel is worth 0.5 in every world and staying 0: staying is
    # clearly worse after MIN_PAIRED worlds, and the race stops at min_samples, far below the cap.
    race, done, _ = search(4, seed=3, min_samples=6)
    assert done == 6 and MIN_PAIRED <= 6
    assert race.active == [0] and not race.complete(1)
    assert race.results(None)[0] == (0.5, 0.0)


def test_a_verdict_samples_until_the_loss_settles_in_one_band() -> None:
    # Holding 4, staying loses exactly 0.5 in every world. A sampled interval is never narrower than
    # a per-world spread of a point allows (``result.verdict_stderr``), so it settles inside
    # [0.2, 1) at the first world count where that floor has shrunk enough (with the stricter width
    # the stopping rule asks for, SETTLE times the interval's), and stops there.
    z = SETTLE * 2.0

    def settled(n: int) -> bool:
        return loss_low(0.5, 0.0, n, z, None) > 0.2 and loss_high(0.5, 0.0, n, z, None) < 1.0

    first = next(n for n in range(6, 100) if settled(n))
    _, done, _ = search(4, seed=3, min_samples=6, focus="stay", bands=(0.2, 1.0))
    assert done == first < 100
    # Holding 2, the duel loses 0.25 on average (0.5 or -1 against staying's 0, world by world):
    # with edges at 0.24 and 0.26 its interval never fits between them, so it runs to the cap.
    race, done, _ = search(2, seed=3, samples=60, min_samples=6, focus="duel", bands=(0.24, 0.26))
    assert done == 60 and race.loss_band(2.0, (0.24, 0.26)) is None
    assert race.complete(0)  # the focus always stays in the race


def test_the_rare_worlds_floor_shrinks_with_the_share_of_the_worlds_searched() -> None:
    # Drawn worlds keep a per-world spread of a point; worlds without replacement keep the same floor
    # times the finite-population correction, none once every world is searched (as an enumeration).
    assert verdict_stderr(0.0, 16, None) == 0.25
    assert verdict_stderr(0.0, 16, 31) == pytest.approx(0.25 * (15 / 30) ** 0.5)
    assert verdict_stderr(0.0, 31, 31) == 0.0
    assert verdict_stderr(0.4, 16, 31) == 0.4  # a wider measured error stands


def test_the_node_budget_stops_the_race() -> None:
    shorts: list[bool] = []

    def over_budget(short: bool) -> bool:
        shorts.append(short)
        return len(shorts) >= 3

    stream, _ = DuelSampler(2, False)(random.Random(0))
    stop = Stopping(samples=100, min_samples=50, separation=2.0, margin=0.2)
    drawn: list[tuple[int, float, int]] = []
    done, out_of_nodes = run_race(Race(["duel", "stay"]), drawn, stream, valuer(2), stop, over_budget)
    assert (done, out_of_nodes) == (3, True)
    assert shorts == [False] * 3  # a bot's race is never short of worlds: it stops at the budget
    # A careful race asks whether the budget is spent while short of its minimum of worlds, which
    # the caller may let it pass (the coach's searches, expectimax._Ladder.over_budget).
    careful: list[bool] = []

    def spent_at_five(short: bool) -> bool:
        careful.append(short)
        return len(careful) >= 5

    stop = Stopping(samples=100, min_samples=4, separation=2.0, margin=0.2, careful=True)
    stream = DuelSampler(2, False)(random.Random(0))[0]
    assert run_race(Race(["duel", "stay"]), [], stream, valuer(2), stop, spent_at_five) == (5, True)
    assert careful == [True, True, True, False, False]
    # A second run over the same drawn worlds (a shallower search) sees them in the same order.
    again: list[int] = []

    def record(world: int, moves: Sequence[str]) -> WorldValues[str]:
        again.append(world)
        return valuer(2)(world, moves)

    run_race(Race(["duel", "stay"]), drawn, stream, record, Stopping(3, 3, 2.0, 0.2))
    assert again == [w for w, _, _ in drawn]


def test_a_move_leaves_a_verdicts_race_only_after_its_minimum_of_worlds() -> None:
    """A move whose gain comes from a few worlds (here: one in eight, +8 points; a little less than
    the move played in the others) looks clearly worse after four worlds that all miss them, with a
    spread near 0. The bot's race may drop it there; a verdict's race keeps it until its minimum of
    worlds, so that it can still be the best move that bounds the played move's loss."""

    def rare(world: int, moves: Sequence[str]) -> WorldValues[str]:
        gain = {"played": 0.0, "rare": 8.0 if world % 8 == 7 else -0.1 - 0.01 * (world % 3)}
        return {m: (gain[m], ()) for m in moves}, None

    def race_of(focus: str | None, bands: tuple[float, ...], min_samples: int) -> Race[str]:
        race = Race(["played", "rare"], focus)
        stop = Stopping(samples=24, min_samples=min_samples, separation=2.0, margin=0.0, bands=bands)
        run_race(race, [], iter((w, 1.0, w) for w in range(100)), rare, stop)
        return race

    def worlds(race: Race[str], i: int) -> int:
        return sum(1 for v in race.values[i] if v == v)

    # The bot's race: the rare move is out after MIN_PAIRED worlds, before its first good world.
    assert worlds(race_of(None, (), 4), 1) == MIN_PAIRED
    # A verdict on the played move: the rare move is searched in at least 16 worlds, and found best.
    verdict = race_of("played", (0.2, 0.5, 1.0), 16)
    assert worlds(verdict, 1) >= 16 and verdict.mean(1) > verdict.mean(0)


def test_paired_stats_over_groups_drawn_together() -> None:
    """Worlds drawn together (a balanced pass) vary less in their mean than independent ones: the
    standard error over the groups counts it, and agrees with the spread of the mean over many runs.
    Each group here draws 5 of 10 values without replacement, as a pass deals each card at most once;
    its mean's variance is then (10 - 5) / (10 - 1) of five independent draws'."""
    values = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 4.0, 8.0]
    rng = random.Random(5)
    means: list[float] = []
    grouped: list[float] = []
    plain: list[float] = []
    for _ in range(400):
        diffs: list[float] = []
        groups: list[int] = []
        for g in range(30):
            diffs += rng.sample(values, 5)
            groups += [g] * 5
        mean, se, n = paired_stats(diffs, [1.0] * len(diffs), None, groups)
        assert n == 150
        means.append(mean)
        grouped.append(se)
        plain.append(paired_stats(diffs, [1.0] * len(diffs))[1])
    spread = statistics.stdev(means)
    assert statistics.fmean(grouped) == pytest.approx(spread, rel=0.15)
    assert statistics.fmean(plain) > 1.25 * spread  # independent draws' formula: too wide by ~1.34


def test_paired_stats_falls_back_to_the_worlds_with_few_or_single_groups() -> None:
    diffs = [float(i % 7) for i in range(40)]
    ones = [1.0] * 40
    plain = paired_stats(diffs, ones)
    assert paired_stats(diffs, ones, None, list(range(40))) == plain  # every world a group of its own
    assert paired_stats(diffs, ones, None, [i // 4 for i in range(40)]) == plain  # 10 groups: too few
    assert paired_stats(diffs, ones, None, [i // 3 for i in range(40)]) != plain  # 14 groups
    assert paired_stats(diffs, ones, 40, [i // 3 for i in range(40)])[1] == 0.0  # an enumeration


def test_the_race_running_sums_give_paired_stats() -> None:
    # The race reads its means and paired differences from running sums (race._Running) after every
    # world; they must be what paired_stats gives over all the worlds read: NaN (not searched) and
    # unequal weights among them, worlds in groups of 13 or on their own.
    from casino_coach.search.race import _Running

    rng = random.Random(1)
    for _ in range(300):
        n = rng.randrange(1, 200)
        grouped = rng.random() < 0.7
        xs = [rng.gauss(rng.uniform(-3, 3), rng.uniform(0, 3)) if rng.random() > 0.1 else float("nan")]
        xs += [rng.gauss(0, 2) if rng.random() > 0.1 else float("nan") for _ in range(n - 1)]
        ws = [1.0 if rng.random() < 0.7 else rng.uniform(0.1, 2) for _ in range(n)]
        gs = [i // 13 if grouped else i for i in range(n)]
        run = _Running()
        for x, w, g in zip(xs, ws, gs, strict=True):
            run.add(x, w, g)
        mean, se, count = run.stats()
        want_mean, want_se, want_count = paired_stats(xs, ws, None, gs)
        assert count == want_count
        assert mean == pytest.approx(want_mean, rel=1e-9, abs=1e-12)
        assert se == pytest.approx(want_se, rel=1e-9, abs=1e-12)
