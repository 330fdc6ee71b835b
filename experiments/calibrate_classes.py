"""Calibrate the move classes of ``casino-coach analyze`` from self-play.

Positions come from self-play rounds of the ``counter`` bot (classic rules by default). Each position
is searched twice at the analysis's default limits with two different seeds, A and B:

* **noise**: the loss that run B gives to the move run A found best. A perfect move still shows this
  much loss from sampling alone, so the "good" band must hold most of it: the inaccuracy threshold is
  the 95th percentile of this noise (rounded up to 0.05 points, at least 0.1), so fewer than 1 in 20
  best moves is called an inaccuracy by chance;
* the noise has a long tail (a search that stopped early on the wrong move), which the thresholds do
  not try to cover: the class is taken at the low end of the loss's interval (``SearchResult.loss``,
  2 standard errors of the paired difference). The script checks how often run B's interval for run
  A's best move reaches down to "best";
* the mistake threshold is twice the inaccuracy threshold and at least half a point; the blunder
  threshold twice the mistake threshold (at least a point: an ace or Little Casino);
* and prints how the moves of three players fall into the classes with these thresholds: the bot
  that played the game (``counter``), ``greedy`` and ``random``.

    python experiments/calibrate_classes.py [--rounds 6] [--every 3] [--samples 24] [--jobs 2]

With ``--game`` it calibrates the classes of the chance of winning the game lost, once the game is
close (``coach.analysis.GAME_THRESHOLDS``, issue 18), by the same rules in fractions of a game (steps of
0.01; inaccuracy at least 0.02, mistake at least 0.05): positions come from ``--games`` whole
self-play games of the ``counter`` bot to the target (2 players; royal by default, where sweeps and the
count-out make close games common), every ``--every``-th decision of the rounds whose game is close
(``game_is_close``); run A's move best for the game (``game_verdict_of`` against A's best move for the
round) is judged for the game in run B, and that chance lost is the noise.

    python experiments/calibrate_classes.py --game [--preset royal] [--games 12] [--every 2] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
from collections import Counter
from dataclasses import dataclass

from casino_coach.bots.arena import play
from casino_coach.bots.policies import make_policy
from casino_coach.coach.classes import CLASSES, GAME_THRESHOLDS, Thresholds
from casino_coach.coach.verdict import analysis_limits, game_verdict_of, judge
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.formats.replay import replay_log
from casino_coach.search import SearchRequest, evaluate
from casino_coach.search.chances import game_is_close


@dataclass(frozen=True)
class Sample:
    noise: float  # loss in run B of run A's best move (for the game: the chance of the game lost)
    low: float  # the low end of run B's interval for that loss
    exact: bool
    losses: dict[str, float]  # policy -> loss of its move (run A)


def _positions(rules: RuleSet, rounds: int, every: int) -> list[tuple[Observation, Move, int]]:
    """(observation of the mover, the move the bot played, seed) for every ``every``-th ply."""
    out = []
    for seed in range(1, rounds + 1):
        game = play(rules, [make_policy("counter"), make_policy("counter")], seed, rounds=1)
        log = game.to_log()
        for ply in replay_log(log).plies:
            if ply.index % every == 0 and ply.observation is not None:
                out.append((ply.observation, ply.move, seed * 1000 + ply.index))
    return out


_RULES: RuleSet | None = None
_SAMPLES = 24


def _init(preset: str, samples: int) -> None:
    global _RULES, _SAMPLES
    _RULES = RuleSet.from_preset(preset)
    _SAMPLES = samples


def _measure(item: tuple[Observation, Move, int]) -> Sample | None:
    obs, played, seed = item
    rules = _RULES
    assert rules is not None
    a = evaluate(rules, obs, analysis_limits(_SAMPLES, seed))
    if len(a.moves) < 2:
        return None
    best_a = a.moves[0].move
    b = evaluate(
        rules,
        obs,
        analysis_limits(_SAMPLES, seed + 7919),
        SearchRequest(focus=best_a, bands=tuple(Thresholds().bands)),
    )
    noise, low, _ = b.loss(best_a)
    rng = random.Random(seed)
    legal = [mv.move for mv in a.moves]
    greedy = make_policy("greedy").choose(rules, obs, legal, rng)
    losses = {
        "counter": a.moves[0].ev - a.value_of(played).ev,
        "greedy": a.moves[0].ev - a.value_of(greedy).ev,
        "random": a.moves[0].ev - a.value_of(rng.choice(legal)).ev,
    }
    return Sample(noise, low, a.exact, losses)


def _close_positions(
    rules: RuleSet, games: int, every: int
) -> list[tuple[Observation, Move, tuple[Points, ...], int]]:
    """(observation, move played, game score at the round's start, seed) for every ``every``-th
    decision of the rounds of ``games`` whole counter-bot games whose game is close."""
    out = []
    for seed in range(1, games + 1):
        game = play(rules, [make_policy("counter"), make_policy("counter")], seed, rounds=None)
        for ply in replay_log(game.to_log()).plies:
            obs = ply.observation
            if ply.index % every == 0 and obs is not None and game_is_close(rules, ply.scores):
                out.append((obs, ply.move, tuple(ply.scores), seed * 1000 + ply.index))
    return out


def _measure_game(item: tuple[Observation, Move, tuple[Points, ...], int]) -> Sample | None:
    obs, played, scores, seed = item
    rules = _RULES
    assert rules is not None
    a = judge(rules, obs, analysis_limits(_SAMPLES, seed))
    if len(a.moves) < 2:
        return None
    ga = game_verdict_of(rules, obs, a, a.moves[0].move, scores)
    if ga is None:
        return None
    b = judge(rules, obs, analysis_limits(_SAMPLES, seed + 7919), move=ga.best)
    gb = game_verdict_of(rules, obs, b, ga.best, scores)
    if gb is None:
        return None
    rng = random.Random(seed)
    legal = [mv.move for mv in a.moves]
    others = {
        "counter": played,
        "greedy": make_policy("greedy").choose(rules, obs, legal, rng),
        "random": rng.choice(legal),
    }
    losses = {}
    for name, move in others.items():
        g = game_verdict_of(rules, obs, a, move, scores)
        losses[name] = 0.0 if g is None else g.lost
    return Sample(gb.lost, gb.low, a.exact, losses)


def _game(args: argparse.Namespace) -> None:
    rules = RuleSet.from_preset(args.preset or "royal")
    items = _close_positions(rules, args.games, args.every)
    with multiprocessing.get_context("fork").Pool(args.jobs, _init, (rules.preset, args.samples)) as pool:
        samples = [s for s in pool.map(_measure_game, items, chunksize=1) if s is not None]
    print(f"{rules.preset}, close positions from {args.games} games:")
    _report(samples, args.samples, "chance of the game lost", GAME_THRESHOLDS, step=0.01, floors=(0.02, 0.05))


def _report(
    samples: list[Sample],
    worlds: int,
    what: str,
    shipped: Thresholds,
    step: float = 0.05,
    floors: tuple[float, float] = (0.1, 0.5),
) -> None:
    """Print the noise, how often run B's interval reaches down to best, the thresholds the rules
    give (inaccuracy: the 95th percentile of the noise rounded up to ``step``, at least ``floors[0]``;
    mistake twice that, at least ``floors[1]``; blunder twice the mistake) beside the shipped ones, and
    how the three players' moves fall into the classes."""
    sampled = [s for s in samples if not s.exact]
    noise = [s.noise for s in sampled]
    print(
        f"{len(samples)} positions with a choice ({len(sampled)} sampled, "
        f"{len(samples) - len(sampled)} exact), {worlds} worlds per search"
    )
    print(
        f"noise: {what} in run B by run A's best move (sampled positions): "
        + ", ".join(f"p{int(q * 100)} {_pct(noise, q):.4f}" for q in (0.5, 0.75, 0.9, 0.95, 0.99))
        + f", max {max(noise, default=0.0):.4f}; zero in {sum(1 for x in noise if x == 0)}"
    )
    inside = sum(1 for s in sampled if s.low <= shipped.best)
    print(
        f"interval: for {inside}/{len(sampled)} of run A's best moves run B's interval reaches down to "
        f"best ({100 * inside / max(1, len(sampled)):.0f}%)"
    )
    inacc = max(floors[0], _up(_pct(noise, 0.95), step))
    mistake = max(_up(2 * inacc, step), floors[1])
    th = Thresholds(inaccuracy=inacc, mistake=mistake, blunder=round(2 * mistake, 2), best=shipped.best)
    print(
        f"thresholds: inaccuracy {th.inaccuracy}, mistake {th.mistake}, blunder {th.blunder} "
        f"(shipped: {shipped.inaccuracy}, {shipped.mistake}, {shipped.blunder})"
    )
    for name in ("counter", "greedy", "random"):
        losses = [s.losses[name] for s in samples]
        counts = Counter(th.classify(x).value for x in losses)
        print(
            f"  {name:8s} mean {what} {statistics.mean(losses):.4f}: "
            + ", ".join(f"{c.value} {100 * counts[c.value] / len(losses):.0f}%" for c in CLASSES)
        )


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _up(x: float, step: float = 0.05) -> float:
    return round(math.ceil(x / step - 1e-9) * step, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6, help="self-play rounds to draw positions from")
    ap.add_argument("--every", type=int, default=3, help="take every N-th ply")
    ap.add_argument("--samples", type=int, default=analysis_limits().samples)
    ap.add_argument("--preset", default=None, help="classic (royal with --game)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--games", type=int, default=12, help="self-play games to the target (with --game)")
    ap.add_argument("--game", action="store_true", help="the classes of the chance of winning the game lost")
    args = ap.parse_args()
    if args.game:
        _game(args)
        return
    args.preset = args.preset or "classic"
    rules = RuleSet.from_preset(args.preset)
    items = _positions(rules, args.rounds, args.every)
    with multiprocessing.get_context("fork").Pool(args.jobs, _init, (args.preset, args.samples)) as pool:
        samples = [s for s in pool.map(_measure, items, chunksize=1) if s is not None]
    print(f"{args.preset}:")
    _report(samples, args.samples, "loss in points", Thresholds())


if __name__ == "__main__":
    main()
