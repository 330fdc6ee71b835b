"""Are the verdicts stable? The same games analysed with several seeds, and against a heavy reference.

Seventeen one-round games that are not in ``replays/`` (self-play of the counter and greedy bots with
fixed seeds: 2, 3 and 4 players in each of the three presets) are each analysed at default
settings (``analysis.analysis_limits``, ``--jobs``) once per seed. It prints:

* the share of unforced moves whose class is the same under every seed (target >= 97%), and the number
  of moves that flip between best/good and mistake/blunder (target 0);
* the mean and 95th percentile of the spread of the loss (largest minus smallest over the seeds);
* the median analysis time per game, and with ``--compare DIR`` the same for the code in DIR (today's
  code, say a ``git worktree``), measured in the same run, interleaved game by game, each code in a
  fresh process for each game, ``--repeat N`` times each (the median per game: one timing of a
  two-second game moves by a third from run to run); a process that has analysed other games has its
  worker pool started and its tables warm: timed so, the code here looked 1.29 times the old code
  where fresh processes give 1.6-1.7;
* the median analysis time per game by number of players (targets: 2 players <= 3 s, 4 players <= 6 s
  with ``--jobs 2``);
* with ``--reference``: the classes and losses at default settings against a heavy reference
  (``--scale`` 10 times the worlds and nodes, ``--deeper`` 4 plies deeper, one seed), by number of
  players: class agreement (target >= 95%), the share of the reference's losses inside the reported
  interval (target >= 93%), both for the first seed and over every seed, and the mean absolute loss
  error. ``--reference-round-end N``: the
  reference goes on to the end of the round from N cards left in the hands of a 2-player deal before
  the last (8: the whole deal), where it is exact and the defaults stop on the leaf's estimate
  (``calibrate_intervals.py`` then measures that estimate's error, ``budget.LAST_LEAF_MARGIN``).

    python experiments/verdict_stability.py [--seeds 5 [--first-seed 0]] [--jobs 2]
                                        [--reference [--scale 10] [--deeper 4] [--reference-round-end N]]
                                        [--compare /tmp/base] [--repeat 3] [--games 17 | --game N ...]
                                        [--save results.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import casino_coach

try:
    from casino_coach.bots.arena import play
    from casino_coach.bots.policies import make_policy
    from casino_coach.coach import verdict
    from casino_coach.coach.analysis import AnalysisOptions, analyze
    from casino_coach.coach.classes import Thresholds
    from casino_coach.coach.verdict import analysis_limits
    from casino_coach.engine.rules import RuleSet
    from casino_coach.formats.log import GameLog
except ImportError:  # an older tree, before the sub-packages (timed with --compare)
    from casino_coach.analysis import AnalysisOptions, analysis_limits, analyze  # type: ignore
    from casino_coach.arena import play  # type: ignore
    from casino_coach.replay import GameLog  # type: ignore
    from casino_coach.rules import RuleSet  # type: ignore

    from casino_coach.bots import make_policy  # type: ignore

# Where the casino_coach this script runs comes from (the checkout, or a build on PYTHONPATH).
HERE = str(Path(casino_coach.__file__).resolve().parent.parent)

# (preset, bots in seat order, seed): one round each.
GAMES: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("classic", ("counter", "greedy"), 7001),
    ("classic", ("greedy", "counter"), 7002),
    ("classic", ("counter", "counter"), 7003),
    ("classic", ("greedy", "greedy"), 7004),
    ("royal", ("counter", "greedy"), 7101),
    ("royal", ("greedy", "counter"), 7102),
    ("royal", ("counter", "counter"), 7103),
    ("classic", ("counter", "greedy", "counter"), 7201),
    ("classic", ("greedy", "counter", "greedy"), 7202),
    ("classic", ("counter", "counter", "greedy"), 7203),
    ("royal", ("counter", "greedy", "counter", "greedy"), 7301),
    ("royal", ("greedy", "counter", "greedy", "counter"), 7302),
    # Dominican at every player count, royal 3 and classic 4 players (issue 41's check: 2, 3 and 4
    # players in all three presets).
    ("dominican", ("counter", "greedy"), 7401),
    ("dominican", ("greedy", "counter", "counter"), 7402),
    ("dominican", ("counter", "greedy", "counter", "greedy"), 7403),
    ("royal", ("counter", "greedy", "greedy"), 7404),
    ("classic", ("greedy", "counter", "greedy", "counter"), 7405),
)

_GOOD = {"best", "good"}
_BAD = {"mistake", "blunder"}


def game_log(index: int) -> GameLog:
    preset, bots, seed = GAMES[index]
    rules = RuleSet.from_preset(preset)
    return play(rules, [make_policy(b) for b in bots], seed, rounds=1).to_log()


OVERRIDES: dict[str, Any] = {}  # --set NAME=VALUE: limits to try instead of the defaults (tuning)


def run(
    log: GameLog, seed: int, jobs: int, scale: int = 1, deeper: int = 0
) -> tuple[list[dict[str, Any]], float]:
    """Analyse ``log``: per rated move (ply, class, loss, forced, worlds), and the wall time. The
    limits are the defaults with ``--set``'s, or, for the reference (``scale``, ``deeper``), the
    defaults scaled: one reference, whatever limits are tried against it."""
    try:  # an older tree, whose depth depended on the number of players (run with --compare)
        base = analysis_limits(seed=seed, nplayers=log.nplayers)  # type: ignore[call-arg]
    except TypeError:
        base = analysis_limits(seed=seed)
    limits = dataclasses.replace(base, **OVERRIDES)
    if scale != 1 or deeper:
        limits = dataclasses.replace(
            base,
            samples=base.samples * scale,
            samples_many=None if base.samples_many is None else base.samples_many * scale,
            min_samples=base.min_samples * scale,
            nodes=None if base.nodes is None else base.nodes * scale,
            nodes_four=None if base.nodes_four is None else base.nodes_four * scale,
            depth=None if base.depth is None else base.depth + deeper,
        )
    t0 = time.perf_counter()
    a = analyze(log, AnalysisOptions(limits=limits, jobs=jobs))
    dt = time.perf_counter() - t0
    rows = [
        {
            "ply": m.ply,
            "cls": str(m.cls),
            "loss": m.loss or 0.0,
            "low": getattr(m, "loss_low", None),  # None from an older tree (timed with --compare)
            "high": getattr(m, "loss_high", None),
            "forced": m.forced,
            # Whether ``cls`` is the class of the game's chance (``AnalyzedMove.game``), not the round's.
            "game": getattr(m, "game", None) is not None,
            "worlds": m.samples,
            # What an interval's calibration needs (experiments/calibrate_intervals.py): the standard
            # error, whether the values were exact or searched shallower, and how many cards were left
            # in the hands and the stock.
            "stderr": getattr(m, "stderr", None),
            "exact": getattr(m, "exact", None),
            "round_end": getattr(m, "round_end", None),
            "shallow": getattr(m, "shallow", None),
            "left": sum(view.hand_sizes) if view is not None else None,
            "stock": view.stock if view is not None else None,
        }
        for m in a.moves
        if m.rated
        for view in [getattr(m, "view", None)]
    ]
    return rows, dt


def _time_elsewhere(code: str, index: int, jobs: int, extra: Sequence[str] = ()) -> float:
    """Analysis time of game ``index`` with the casino_coach found in ``code``, in a process of its
    own (with ``--compare`` both codes are timed so: a process that has analysed other games already
    has its worker pool started and its tables warm)."""
    env = dict(os.environ, PYTHONPATH=code)
    out = subprocess.run(
        [sys.executable, __file__, "--time-only", str(index), "--jobs", str(jobs), *extra],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def _reference(args: argparse.Namespace, index: int, log: GameLog) -> list[dict[str, Any]]:
    """The heavy reference's rows for game ``index``: from ``--reference-cache`` where it holds them
    (the same game, scale, extra depth and round end, by this code), else searched and added to it.
    With ``--reference-round-end N`` the reference searches 2-player decisions of the deal before the
    last on to the end of the round from N cards left in the hands (``verdict.decision_limits``'s
    ``ROUND_END_CARDS``), where the defaults stop on the leaf's estimate of the last deal."""
    key = f"{index}:{args.scale}:{args.deeper}"
    if args.reference_round_end != verdict.ROUND_END_CARDS:
        key += f":r{args.reference_round_end}"
    cache: dict[str, Any] = {}
    path = Path(args.reference_cache) if args.reference_cache else None
    if path is not None and path.exists():
        cache = json.loads(path.read_text())
    if key not in cache:
        default = verdict.ROUND_END_CARDS
        verdict.ROUND_END_CARDS = args.reference_round_end  # read by each decision's limits
        try:
            cache[key], _ = run(log, 0, args.jobs, scale=args.scale, deeper=args.deeper)
        finally:
            verdict.ROUND_END_CARDS = default
        if path is not None:
            path.write_text(json.dumps(cache))
    rows: list[dict[str, Any]] = cache[key]
    return [_graded(r) for r in rows]


def _graded(row: dict[str, Any]) -> dict[str, Any]:
    """A reference ``row`` with the round's class read from its loss and interval by today's rule
    (``Thresholds.classify_interval``), as today's code reads its own: a cached reference keeps the
    class its code read, and the rule may have changed since (its search has not)."""
    if row.get("game") or row["forced"] or row.get("low") is None:
        return row
    return {**row, "cls": str(Thresholds().classify_interval(row["loss"], row["low"]))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument(
        "--first-seed", type=int, default=0, metavar="N", help="seeds N, N+1, ... (another sample of seeds)"
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--games", type=int, default=len(GAMES))
    ap.add_argument(
        "--game", type=int, action="append", default=[], metavar="N", help="only game N (1-based; repeatable)"
    )
    ap.add_argument("--reference", action="store_true")
    ap.add_argument("--scale", type=int, default=10, help="the reference's worlds and nodes, x default")
    ap.add_argument("--deeper", type=int, default=4, help="the reference's plies beyond the defaults")
    ap.add_argument(
        "--reference-round-end",
        type=int,
        default=None,
        metavar="N",
        help="the reference goes on to the end of the round from N cards in the deal before the last",
    )
    ap.add_argument("--compare", metavar="DIR", help="also time the casino_coach in DIR")
    ap.add_argument(
        "--repeat", type=int, default=1, metavar="N", help="with --compare: time each game N times per code"
    )
    ap.add_argument("--save", metavar="FILE", help="write every move's results as JSON")
    ap.add_argument(
        "--reference-cache",
        metavar="FILE",
        help="keep the reference's results in FILE (JSON, by game, scale and depth) and read them back",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="try other search limits (samples, min_samples, nodes, nodes_four, exact_worlds)",
    )
    ap.add_argument("--time-only", type=int, metavar="GAME", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.reference and args.reference_round_end is None:
        args.reference_round_end = verdict.ROUND_END_CARDS
    for item in args.set:
        name, _, value = item.partition("=")
        OVERRIDES[name] = int(value)
    if args.time_only is not None:
        print(run(game_log(args.time_only), 0, args.jobs)[1])
        return
    same = total = flips = 0
    spreads: list[float] = []
    times: list[float] = []
    old_times: list[float] = []
    # Per number of players: the reference's class agreements, its losses inside the interval of the
    # first seed, the unforced moves compared, and the analysis times.
    ref_agree: dict[int, int] = {}
    ref_inside: dict[int, int] = {}
    ref_total: dict[int, int] = {}
    all_agree: dict[int, int] = {}  # the same over every seed's classes and intervals
    all_inside: dict[int, int] = {}
    by_players_times: dict[int, list[float]] = {}
    ref_err: list[float] = []
    saved: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    chosen = [n - 1 for n in args.game] or list(range(min(args.games, len(GAMES))))
    for gi in chosen:
        preset, bots, gseed = GAMES[gi]
        log = game_log(gi)
        per_seed = []
        for s in range(args.first_seed, args.first_seed + args.seeds):
            rows, dt = run(log, s, args.jobs)
            per_seed.append({r["ply"]: r for r in rows})
            if s == args.first_seed:
                times.append(dt)
                by_players_times.setdefault(len(bots), []).append(dt)
        if args.compare:
            # Both codes cold, in processes of their own, in turn, --repeat times each: the median.
            sets = [f"--set={item}" for item in args.set]
            pair = [(HERE, sets), (args.compare, [])]
            timed: dict[str, list[float]] = {HERE: [], args.compare: []}
            for r in range(args.repeat):
                for code, extra in pair[:: 1 - 2 * ((gi + r) % 2)]:
                    timed[code].append(_time_elsewhere(code, gi, args.jobs, extra))
            times[-1] = by_players_times[len(bots)][-1] = statistics.median(timed[HERE])
            old_times.append(statistics.median(timed[args.compare]))
        g_same = g_total = g_flips = 0
        for ply, first in per_seed[0].items():
            if first["forced"]:
                continue
            rows = [p[ply] for p in per_seed]
            classes = {"forced" if r["forced"] else r["cls"] for r in rows}
            g_total += 1
            g_same += len(classes) == 1
            g_flips += bool(classes & _GOOD) and bool(classes & _BAD)
            losses = [r["loss"] for r in rows]
            spreads.append(max(losses) - min(losses))
        ref_note = ""
        ref_rows: list[dict[str, Any]] = []
        if args.reference:
            ref_rows = _reference(args, gi, log)
            ref = {r["ply"]: r for r in ref_rows}
            n = len(bots)
            g_agree = g_inside = g_n = 0
            for ply, first in per_seed[0].items():
                if first["forced"] or ref[ply]["forced"]:
                    continue
                g_n += 1
                g_agree += first["cls"] == ref[ply]["cls"]
                g_inside += first["low"] - 1e-9 <= ref[ply]["loss"] <= first["high"] + 1e-9
                ref_err.append(abs(first["loss"] - ref[ply]["loss"]))
                # Every seed's, too: one seed's count moves by a move or two from draw to draw.
                for rows in per_seed:
                    row = rows[ply]
                    all_agree[n] = all_agree.get(n, 0) + (row["cls"] == ref[ply]["cls"])
                    all_inside[n] = all_inside.get(n, 0) + (
                        row["low"] - 1e-9 <= ref[ply]["loss"] <= row["high"] + 1e-9
                    )
            ref_agree[n] = ref_agree.get(n, 0) + g_agree
            ref_inside[n] = ref_inside.get(n, 0) + g_inside
            ref_total[n] = ref_total.get(n, 0) + g_n
            ref_note = f", reference agrees {g_agree}/{g_n}, inside the interval {g_inside}/{g_n}"
        same += g_same
        total += g_total
        flips += g_flips
        saved.append(
            {
                "game": gi,
                "preset": preset,
                "bots": bots,
                "seed": gseed,
                "seeds": [list(p.values()) for p in per_seed],
                "reference": ref_rows,
            }
        )
        old = f" (DIR: {old_times[-1]:.1f} s)" if args.compare else ""
        print(
            f"game {gi + 1:2d} {preset} {len(bots)}p {'/'.join(bots)}: {g_same}/{g_total} unforced "
            f"moves keep their class, {g_flips} good<->bad flips{ref_note}; {times[-1]:.1f} s{old}",
            flush=True,
        )
    print()
    print(
        f"class the same under all {args.seeds} seeds: {same}/{total} = {100 * same / max(1, total):.1f}% "
        f"(target >= 97%)"
    )
    print(f"best/good <-> mistake/blunder flips: {flips} (target 0)")
    print(
        f"spread of the loss over the seeds: mean {statistics.fmean(spreads or [0]):.3f}, "
        f"95th percentile {_pct(spreads, 0.95):.3f} points"
    )
    print(f"median analysis time per game (--jobs {args.jobs}): {statistics.median(times):.1f} s", end="")
    if old_times:
        ratio = statistics.median(times) / statistics.median(old_times)
        print(
            f"; the code in {args.compare}: {statistics.median(old_times):.1f} s; ratio {ratio:.2f} "
            f"(target <= 1.5)",
            end="",
        )
    print()
    for n, ts in sorted(by_players_times.items()):
        print(f"  {n} players: median {statistics.median(ts):.1f} s a game over {len(ts)} games")
    if args.reference:
        print(
            f"against the heavy reference ({args.scale}x worlds, {args.deeper} plies deeper): mean absolute "
            f"loss error {statistics.fmean(ref_err or [0]):.3f} points"
        )
        for n in sorted(ref_total):
            t = max(1, ref_total[n])
            print(
                f"  {n} players: class agrees {ref_agree[n]}/{ref_total[n]} = {100 * ref_agree[n] / t:.1f}% "
                f"(target >= 95%); reference loss inside the interval {ref_inside[n]}/{ref_total[n]} = "
                f"{100 * ref_inside[n] / t:.1f}% (target >= 93%); over all {args.seeds} seeds "
                f"{100 * all_agree[n] / (t * args.seeds):.1f}% and "
                f"{100 * all_inside[n] / (t * args.seeds):.1f}%"
            )
    print(f"({time.perf_counter() - t_start:.0f} s in all; load average {os.getloadavg()[0]:.1f})")
    if args.save:
        Path(args.save).write_text(json.dumps(saved))


if __name__ == "__main__":
    main()
