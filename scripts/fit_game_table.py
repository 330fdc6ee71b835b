"""The game-winning table (casino_coach/search/game_table.json): measure, fit, check against whole games.

Three steps, each its own subcommand::

    python scripts/fit_game_table.py measure --preset classic --preset royal --preset dominican
        [--players 2] [--rounds 10000] [--bot counter] [--seed 1] [--jobs 2]
    python scripts/fit_game_table.py fit [--preset P] [--players N]   # round_tallies.json -> game_table.json
    python scripts/fit_game_table.py show       # what the shipped tables say
    python scripts/fit_game_table.py check --preset dominican --from 0-0 --from 18-15 --games 400

``measure`` plays self-play rounds of one bot in every seat (seat 0 deals) and counts each round's
tally (``scoring.Tally``, canonical: ``chances.canonical_tally``) with the dealer's side as side 0;
the counts go to ``scripts/data/round_tallies.json``, one entry per rule set and number of players
(an entry measured again is replaced). ``fit`` solves the game from every score by dynamic
programming over those distributions (``chances.solve``, which scores every tally with the engine's
count-out and near-target rules) and writes the package's table. ``check`` plays whole games to the
target from chosen scores with the same bot in every seat (the first dealer alternating over the
games) and compares the share of games side 0 won with the table's chance: the table should lie
inside the games' 95% interval (Wilson), as it may miss by chance from one score in twenty; it also
prints each score's z (the difference in standard errors of the table's chance) and their sum of
squares. Exit status 1 if some |z| is over 3.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from casino_coach.bots.arena import game_from, play
from casino_coach.bots.policies import make_policy
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Tally, score_tally, tally_of
from casino_coach.engine.state import sides_for
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.search.chances import (
    TABLE_FILE,
    GameTable,
    canonical_tally,
    solve,
    tables_to_json,
)

DATA = Path(__file__).resolve().parent / "data" / "round_tallies.json"

_JOB: dict[str, Any] = {}


def _init(rules: dict[str, Any], nplayers: int, bot: str) -> None:
    _JOB.update(rules=RuleSet.from_dict(rules), n=nplayers, bot=make_policy(bot))


def _rounds(seeds: list[int]) -> Counter[Tally]:
    rules, n, bot = _JOB["rules"], _JOB["n"], _JOB["bot"]
    out: Counter[Tally] = Counter()
    for seed in seeds:
        game = play(rules, [bot] * n, seed, rounds=1, dealer=0, bot_seed="table")
        out[canonical_tally(rules, tally_of(game.state))] += 1
    return out


def _games(task: tuple[tuple[int, ...], int, int]) -> int | None:
    """One game to the target from ``scores`` with seat ``dealer`` dealing first: the winning side."""
    scores, dealer, seed = task
    return game_from(_JOB["rules"], [_JOB["bot"]] * _JOB["n"], scores, dealer, seed, bot_seed="check")


def _load() -> list[dict[str, Any]]:
    if not DATA.exists():
        return []
    entries: list[dict[str, Any]] = orjson.loads(DATA.read_bytes())["entries"]
    return entries


def _key(entry: dict[str, Any]) -> tuple[str, int]:
    return orjson.dumps(RuleSet.from_dict(entry["rules"]).to_dict()).decode(), int(entry["players"])


def measure(args: argparse.Namespace) -> int:
    entries = {_key(e): e for e in _load()}
    for preset in args.preset or ["classic", "royal", "dominican"]:
        rules = RuleSet.from_preset(preset)
        t0 = time.perf_counter()
        seeds = [args.seed * 10_000_000 + i for i in range(args.rounds)]
        chunks = [seeds[i : i + 100] for i in range(0, len(seeds), 100)]
        counts: Counter[Tally] = Counter()
        init = (rules.to_dict(), args.players, args.bot)
        with multiprocessing.get_context("fork").Pool(args.jobs, _init, init) as pool:
            for i, c in enumerate(pool.imap_unordered(_rounds, chunks)):
                counts.update(c)
                if (i + 1) % 20 == 0:
                    print(f"  {preset}: {(i + 1) * 100} rounds", file=sys.stderr, flush=True)
        entry = {
            "rules": rules.to_dict(),
            "players": args.players,
            "bot": args.bot,
            "rounds": args.rounds,
            "seed": args.seed,
            "tallies": sorted([[list(map(_plain, t)), c] for t, c in counts.items()]),
        }
        entries[_key(entry)] = entry
        print(
            f"{preset}, {args.players} players: {args.rounds} rounds of {args.bot}, {len(counts)} distinct "
            f"tallies [{time.perf_counter() - t0:.0f}s]",
            flush=True,
        )
        DATA.parent.mkdir(exist_ok=True)
        atomic_write_bytes(DATA, orjson.dumps({"entries": list(entries.values())}) + b"\n")
    return 0


def _plain(x: Any) -> Any:
    return list(x) if isinstance(x, tuple) else x


def _tally(data: list[Any]) -> Tally:
    fields: list[Any] = [tuple(x) if isinstance(x, list) else x for x in data]
    return Tally(*fields)


def _describe(rules: RuleSet, dist: dict[Tally, float]) -> str:
    """The dealer's side's mean round margin and its share of the items, from a distribution."""
    total = sum(dist.values())
    margin = 0.0
    for t, c in dist.items():
        pts = score_tally(rules, t).points
        margin += c * (pts[0] - sum(pts[1:]) / (len(pts) - 1))
    return f"dealer's side's mean round margin {margin / total:+.3f} points"


def fit(args: argparse.Namespace) -> int:
    kept: dict[tuple[str, int], GameTable] = {}
    if args.out.exists() and (args.preset or args.players):
        # Only some entries are fitted again: the others are kept as the table file has them.
        for t in orjson.loads(args.out.read_bytes())["tables"]:
            table = GameTable.from_json(t)
            kept[(orjson.dumps(table.rules.to_dict()).decode(), table.nplayers)] = table
    tables = []
    for entry in _load():
        rules = RuleSet.from_dict(entry["rules"])
        n = int(entry["players"])
        if (args.preset and rules.preset not in args.preset) or (args.players and n not in args.players):
            if _key(entry) in kept:
                tables.append(kept[_key(entry)])
            continue
        dist = {_tally(t): float(c) for t, c in entry["tallies"]}
        t0 = time.perf_counter()
        chances = solve(rules, sides_for(n, rules.partnerships), dist)
        source = {k: entry[k] for k in ("bot", "rounds", "seed")}
        table = GameTable(rules, n, sides_for(n, rules.partnerships), chances, source)
        tables.append(table)
        print(f"{rules.preset}, {n} players: solved in {time.perf_counter() - t0:.0f}s", flush=True)
        _report(table, entry)
    atomic_write_bytes(args.out, orjson.dumps(tables_to_json(tables)) + b"\n")
    print(f"wrote {args.out}")
    return 0


_SHOWN = ((10, 10), (15, 18), (18, 15), (18, 18), (19, 17), (20, 19), (20, 20))


def _report(table: GameTable, entry: dict[str, Any]) -> None:
    """What a table says: the dealer's effect, the largest difference the sides' names make (the
    same score and dealer with the sides swapped), and the chances at a few scores."""
    rules = table.rules
    dist = {_tally(t): float(c) for t, c in entry["tallies"]}
    z = (0,) * table.nsides
    print(
        f"{rules.preset}, {table.nplayers} players ({entry['rounds']} rounds of {entry['bot']}; "
        f"{_describe(rules, dist)}): from {'-'.join(map(str, z))} the dealer's side wins "
        f"{100 * table.at(z, 0)[0]:.1f}%",
        flush=True,
    )
    if table.nsides != 2:
        return
    worst: float = 0.0
    where: tuple[tuple[int, ...], int] = ((0, 0), 0)
    for (sc, d), ch in table.chances.items():
        gap = abs(table.chances[((sc[1], sc[0]), 1 - d)][1] - ch[0])
        if gap > worst:
            worst, where = gap, (sc, d)
    (a0, b0), d0 = where
    print(
        f"  largest difference with the sides swapped: {100 * worst:.1f} points of percentage "
        f"(at {a0}-{b0}, side {d0} dealing)"
    )
    for sc in _SHOWN:
        a, b = table.at(sc, 0), table.at(sc, 1)
        print(f"  {'-'.join(map(str, sc))}: side 0 wins {100 * a[0]:.1f}% dealing, {100 * b[0]:.1f}% not")


def show(args: argparse.Namespace) -> int:
    """The figures of the shipped tables (as ``fit`` prints them), without solving again."""
    data = {_key(e): e for e in _load()}
    for t in orjson.loads(TABLE_FILE.read_bytes())["tables"]:
        table = GameTable.from_json(t)
        entry = data.get((orjson.dumps(table.rules.to_dict()).decode(), table.nplayers))
        if entry is not None:
            _report(table, entry)
    return 0


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share k / n."""
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def check(args: argparse.Namespace) -> int:
    rules = RuleSet.from_preset(args.preset)
    table = GameTable.from_json(
        next(
            t
            for t in orjson.loads(TABLE_FILE.read_bytes())["tables"]
            if RuleSet.from_dict(t["rules"]) == rules and t["players"] == args.players
        )
    )
    init = (rules.to_dict(), args.players, table.source["bot"])
    starts = [tuple(int(x) for x in s.split("-")) for s in args.start or ["0-0"]]
    inside_count = 0
    chi2 = 0.0
    worst = 0.0
    with multiprocessing.get_context("fork").Pool(args.jobs, _init, init) as pool:
        for si, scores in enumerate(starts):
            t0 = time.perf_counter()
            base = args.seed * 1_000_000 + si * 10_000
            tasks = [(scores, g % args.players, base + g) for g in range(args.games)]
            winners = pool.map(_games, tasks, chunksize=4)
            done = [w for w in winners if w is not None]
            k = sum(1 for w in done if w == 0)
            n = len(done)
            low, high = wilson(k, n)
            expected = sum(table.at(scores, d % table.nsides)[0] for _, d, _ in tasks) / len(tasks)
            inside = low <= expected <= high
            inside_count += inside
            se = math.sqrt(max(expected * (1 - expected), 1e-12) / n)
            z = (k / n - expected) / se
            chi2 += z * z
            worst = max(worst, abs(z))
            print(
                f"{rules.preset} {args.players}p from {'-'.join(map(str, scores))}: side 0 won "
                f"{k}/{n} games = {100 * k / n:.1f}% "
                f"(95% interval {100 * low:.1f}-{100 * high:.1f}%), "
                f"table {100 * expected:.1f}%: {'inside' if inside else 'OUTSIDE'}, z {z:+.2f} "
                f"[{time.perf_counter() - t0:.0f}s]",
                flush=True,
            )
    print(
        f"{rules.preset} {args.players}p: the table inside the games' 95% interval from "
        f"{inside_count} of {len(starts)} scores; sum of z^2 {chi2:.2f} on {len(starts)} degrees of "
        f"freedom, largest |z| {worst:.2f}",
        flush=True,
    )
    # One score in twenty may fall outside a 95% interval by chance; |z| over 3 would not.
    return 0 if worst <= 3 else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    m = sub.add_parser("measure", help="count round tallies of self-play")
    m.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    m.add_argument("--players", type=int, default=2, choices=(2, 4))
    m.add_argument("--rounds", type=int, default=10_000)
    m.add_argument("--bot", default="counter")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--jobs", type=int, default=2)
    f = sub.add_parser("fit", help="solve the game from the measured rounds, write the table")
    f.add_argument("--out", type=Path, default=TABLE_FILE)
    f.add_argument("--preset", action="append", choices=RuleSet.preset_names(), help="fit only these")
    f.add_argument("--players", type=int, action="append", choices=(2, 4), help="fit only these")
    sub.add_parser("show", help="the figures of the shipped tables")
    c = sub.add_parser("check", help="whole games from chosen scores against the table")
    c.add_argument("--preset", choices=RuleSet.preset_names(), default="classic")
    c.add_argument("--players", type=int, default=2, choices=(2, 4))
    c.add_argument("--from", dest="start", action="append", help="scores per side, e.g. 18-15")
    c.add_argument("--games", type=int, default=400)
    c.add_argument("--seed", type=int, default=2)
    c.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    return {"measure": measure, "fit": fit, "show": show, "check": check}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
