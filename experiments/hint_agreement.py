"""Do the hint and the verdict agree? The same decisions searched as ``suggest`` and ``play``'s hint
search them (no move in focus: which move is best?) and as ``analyze``, ``suggest --at`` and the tutor
do (the move played in focus: how much does it lose?).

The two are different searches of one decision: the hint spends its worlds on the best move, the
verdict on the move played. What a player sees must still agree: the loss the hint's values give the
move played should lie inside the verdict's interval for it. Over the games of
``verdict_stability.py`` (every rated move with a choice, at default analysis settings), it prints:

* how many of the hint's losses lie outside the verdict's interval, and how many of the hint's own
  intervals do not meet the verdict's (a plain contradiction);
* the mean, 95th percentile and largest difference between the two losses, and the worst cases;
* the worlds and CPU seconds each search took in all.

To see other code's figures (today's main, say), run it with that tree first on ``PYTHONPATH``.

    python experiments/hint_agreement.py [--jobs 2] [--games 12 | --game N ...] [--worst 5]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verdict_stability import GAMES, game_log

from casino_coach.coach.classes import Thresholds
from casino_coach.coach.verdict import analysis_limits, judge
from casino_coach.formats.log import GameLog
from casino_coach.formats.replay import Ply, replay_log

TH = Thresholds()


@functools.cache
def _game(index: int) -> tuple[GameLog, list[Ply]]:
    """Game ``index`` of ``GAMES`` and its replayed plies, played once per process."""
    log = game_log(index)
    return log, replay_log(log).plies


def _both(task: tuple[int, int]) -> dict[str, Any] | None:
    """The hint's and the verdict's loss of the move played at ply ``index`` of game ``game``, with
    their intervals, worlds and CPU seconds; None for a move without a choice."""
    game, index = task
    log, plies = _game(game)
    ply = plies[index]
    obs = ply.observation
    assert obs is not None
    limits = analysis_limits()
    out: dict[str, Any] = {"game": game, "ply": index}
    for name, focus in (("hint", None), ("verdict", ply.move)):
        t0 = time.process_time()
        res = judge(log.rules, obs, limits, TH, focus)
        cpu = time.process_time() - t0
        if len(res.moves) == 1:
            return None
        out[name] = (*res.loss(ply.move, TH.noise), res.samples, cpu)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--games", type=int, default=len(GAMES))
    ap.add_argument("--game", type=int, action="append", help="only this game (index into GAMES)")
    ap.add_argument("--worst", type=int, default=5, help="show this many of the largest differences")
    args = ap.parse_args()
    games = args.game if args.game else list(range(args.games))
    tasks = [(g, p.index) for g in games for p in _game(g)[1] if p.observation is not None]
    with Pool(args.jobs) as pool:
        rows = [r for r in pool.map(_both, tasks, chunksize=1) if r is not None]
    eps = 1e-9
    outside = [r for r in rows if not r["verdict"][1] - eps <= r["hint"][0] <= r["verdict"][2] + eps]
    apart = [r for r in rows if r["hint"][2] < r["verdict"][1] - eps or r["verdict"][2] < r["hint"][1] - eps]
    diffs = sorted(abs(r["hint"][0] - r["verdict"][0]) for r in rows)
    print(f"{len(rows)} moves with a choice over {len(games)} games")
    print(f"the hint's loss outside the verdict's interval: {len(outside)} ({len(outside) / len(rows):.1%})")
    print(f"the two intervals apart: {len(apart)}")
    p95 = diffs[min(len(diffs) - 1, int(0.95 * len(diffs)))]
    print(f"|hint - verdict|: mean {statistics.mean(diffs):.3f}, p95 {p95:.3f}, max {diffs[-1]:.3f}")
    for name in ("hint", "verdict"):
        worlds = sum(r[name][3] for r in rows)
        cpu = sum(r[name][4] for r in rows)
        print(f"{name}: {worlds:,} worlds, {cpu:.1f} CPU s")
    rows.sort(key=lambda r: -abs(r["hint"][0] - r["verdict"][0]))
    for r in rows[: args.worst]:
        h, v = r["hint"], r["verdict"]
        preset, bots, _ = GAMES[r["game"]]
        print(
            f"  game {r['game']} ({preset}, {len(bots)} players) ply {r['ply']}: hint {h[0]:.2f} "
            f"({h[1]:.2f} to {h[2]:.2f}, {h[3]} worlds), verdict {v[0]:.2f} ({v[1]:.2f} to {v[2]:.2f}, "
            f"{v[3]} worlds)"
        )


if __name__ == "__main__":
    main()
