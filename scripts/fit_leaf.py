"""Fit the learned deal-end value of the search (``search/leaf.py``, ``Limits(leaf="learned")``).

Plays self-play rounds (the ``counter`` bot by default, every round from its own fixed seed) and, at the
end of every deal but the last, records the position as the search's leaf sees it (capture piles,
sweeps, the table, who moves next, what is unseen) and the round margin the side to move next
actually ended with. Per preset, number of players and deals still to come it fits least-squares
weights (a light ridge) over ``leaf.LEARNED_FEATURES`` to that margin less what the side holds for
sure, writes them to ``casino_coach/search/leaf_weights.json`` (``--out``), and prints the RMS error
of the handmade and the learned estimate side by side per deal, on held-out rounds (other seeds) that
the fit never saw::

    python scripts/fit_leaf.py [--rounds 40000] [--holdout 10000] [--preset classic --preset royal]
        [--players 2 --players 4] [--bots counter] [--holdout-bots BOTS] [--seed 1] [--jobs 2]
        [--data DIR] [--out PATH] [--no-write]

A bot is ``NAME[:OPTION=VALUE...]`` (``searcher:samples=16:min_samples=4:nodes=25000``); with
``--holdout-bots`` the held-out rounds are played by other bots than the fit's (how well the weights
carry over to another style of play).

``--exact-last`` fits the value at the end of the fifth deal with 2 players (one deal still to come)
to what that position is worth, not to how the bots' round ended: with two players the last deal hides
nothing (each side's unseen cards are the other's hand), so the mean over the 70 ways the stock can be
dealt of the last deal solved to the end of the round is its exact value under best play. The held-out
error of that row is against the same exact values. ``--deals N`` (repeated) fits only those deals
still to come and keeps the other weights of the file at ``--out``.

Two sides only (2 players, or 4 in two partnerships): with three sides the handmade estimate stays.
``--data DIR`` keeps the played rounds there (one file per preset, players, bots, seed and rounds), so
that a second fit does not play them again. ``--no-write`` prints the figures only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import pickle
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from casino_coach.bots.arena import deal_ends
from casino_coach.bots.policies import Policy, make_policy
from casino_coach.engine.cards import iter_cards
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import HAND_SIZE, RoundState, deal, deals_per_round
from casino_coach.formats.codec import dumps
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.search.leaf import (
    LEARNED_FEATURES,
    WEIGHTS_FILE,
    WEIGHTS_FORMAT,
    Evaluator,
    final_points,
    leaf_features,
    model_key,
    side_value,
)
from casino_coach.search.native import make_solver

# One record: the state at the end of a deal (the next deal not yet dealt), and the round points per
# side the round ended with.
Record = tuple[RoundState, tuple[float, ...]]

WEIGHTS_PATH = Path(__file__).resolve().parents[1] / "casino_coach" / "search" / WEIGHTS_FILE

_JOB: dict[str, Any] = {}


def bot(spec: str) -> Policy:
    """A bot from ``NAME[:OPTION=VALUE...]``, e.g. ``searcher:samples=16:min_samples=4:nodes=25000``."""
    name, *options = spec.split(":")
    values: dict[str, Any] = {}
    for option in options:
        key, _, value = option.partition("=")
        values[key] = float(value) if "." in value else int(value)
    return make_policy(name, **values)


def _init(rules: dict[str, Any], nplayers: int, bots: Sequence[str], seed: int) -> None:
    _JOB.update(rules=RuleSet.from_dict(rules), nplayers=nplayers, bots=[bot(b) for b in bots], seed=seed)


def play_round(rules: RuleSet, nplayers: int, bots: Sequence[Policy], seed: int, index: int) -> list[Record]:
    """Round ``index`` of a run: its own generator (cards and bots) from the seed, the rules and the
    index; seat ``s`` plays ``bots[(s + index) % len(bots)]``, the dealer is ``index % nplayers``."""
    rng = random.Random(f"fit-leaf:{seed}:{rules.preset}:{nplayers}:{index}")
    seats = [bots[(seat + index) % len(bots)] for seat in range(nplayers)]
    ends, s = deal_ends(rules, seats, index % nplayers, rng)
    points = tuple(final_points(rules, s))
    return [(e, points) for e in ends]


def _round(index: int) -> list[Record]:
    return play_round(_JOB["rules"], _JOB["nplayers"], _JOB["bots"], _JOB["seed"], index)


def rounds_records(
    rules: RuleSet,
    nplayers: int,
    bots: Sequence[str],
    seed: int,
    indices: range,
    jobs: int,
    data: Path | None,
) -> list[Record]:
    """The records of rounds ``indices``, played (in ``jobs`` processes) or read from ``data``."""
    cache = None
    if data is not None:
        name = f"{rules.preset}-{nplayers}p-{'+'.join(bots)}-seed{seed}-{indices.start}-{indices.stop}.pickle"
        cache = data / name
        if cache.exists():
            out: list[Record] = pickle.loads(cache.read_bytes())
            return out
    t0 = time.perf_counter()
    records: list[Record] = []
    init = (rules.to_dict(), nplayers, tuple(bots), seed)
    if jobs > 1:
        with multiprocessing.Pool(jobs, initializer=_init, initargs=init) as pool:
            for recs in pool.imap(_round, indices, chunksize=50):
                records.extend(recs)
    else:
        _init(*init)
        for i in indices:
            records.extend(_round(i))
    print(
        f"  played {len(indices)} rounds of {rules.preset}, {nplayers} players "
        f"({'+'.join(bots)}) in {time.perf_counter() - t0:.0f}s",
        file=sys.stderr,
        flush=True,
    )
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(cache, pickle.dumps(records))
    return records


def exact_last(rules: RuleSet, state: RoundState, lead: int) -> float:
    """The exact round margin of side ``lead`` at the end of the fifth deal of a 2-player round: the mean
    over every way the stock can be dealt (70) of the last deal solved to the end of the round, both
    sides seeing every card, as with two players they do in the last deal."""
    cards = list(iter_cards(state.stock))
    solver = make_solver(rules, lead, 2)
    values = []
    for mine in itertools.combinations(cards, len(cards) // 2):
        first = sum(1 << c for c in mine)
        values.append(solver.value(deal(state, (first, state.stock & ~first))))
    return math.fsum(values) / len(values)


def _exact(job: tuple[dict[str, Any], RoundState]) -> float:
    rules, state = job
    return exact_last(RuleSet.from_dict(rules), state, state.to_move % 2)


class Table:
    """Features, targets and the handmade estimate of every record, by deals still to come; with
    ``exact``, the target one deal before the last is the position's exact value (``exact_last``)."""

    def __init__(self, rules: RuleSet, records: Sequence[Record], exact: bool = False, jobs: int = 1) -> None:
        rows: dict[int, list[tuple[list[float], float, float, float]]] = {}
        last = [st for st, _ in records if st.nplayers == 2 and st.stock.bit_count() == 2 * HAND_SIZE]
        exact_values: dict[RoundState, float] = {}
        if exact and last:
            jobs_in = [(rules.to_dict(), st) for st in last]
            if jobs > 1:
                with multiprocessing.Pool(jobs) as pool:
                    exact_values = dict(zip(last, pool.map(_exact, jobs_in, chunksize=20), strict=True))
            else:
                exact_values = {st: _exact(j) for st, j in zip(last, jobs_in, strict=True)}
        for state, points in records:
            lead = state.to_move % 2
            features, sure, deals = leaf_features(rules, state, state.table, lead)
            actual = exact_values.get(state)
            if actual is None:
                actual = side_value(list(points), lead)
            handmade = Evaluator(rules, 2, lead).leaf(state)
            rows.setdefault(deals, []).append((features, sure, actual, handmade))
        self.x = {d: np.array([r[0] for r in v]) for d, v in rows.items()}
        self.sure = {d: np.array([r[1] for r in v]) for d, v in rows.items()}
        self.actual = {d: np.array([r[2] for r in v]) for d, v in rows.items()}
        self.handmade = {d: np.array([r[3] for r in v]) for d, v in rows.items()}


def fit(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Least squares with a light ridge (features scaled to unit variance; the constant unpenalised),
    so that a feature constant in these positions gets weight 0 instead of an arbitrary one."""
    scale = x.std(axis=0)
    scale[0] = 1.0
    scale[scale == 0] = math.inf
    xs = x / scale
    penalty = np.full(x.shape[1], ridge * len(y))
    penalty[0] = 0.0
    w = np.linalg.solve(xs.T @ xs + np.diag(penalty), xs.T @ y)
    out: np.ndarray = w / scale
    return out


def rms(err: np.ndarray) -> float:
    return float(np.sqrt(np.mean(err**2)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40_000, help="rounds to fit on, per preset and players")
    ap.add_argument("--holdout", type=int, default=10_000, help="other rounds to measure the error on")
    ap.add_argument("--preset", action="append", choices=RuleSet.preset_names())
    ap.add_argument("--players", action="append", type=int, choices=(2, 4))
    ap.add_argument("--bots", default="counter", help="comma-separated bots, taking the seats in turn")
    ap.add_argument("--holdout-bots", help="the bots of the held-out rounds (default: --bots)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ridge", type=float, default=1e-4)
    ap.add_argument("--data", type=Path, help="keep the played rounds in this folder (and reuse them)")
    ap.add_argument("--out", type=Path, default=WEIGHTS_PATH, help="where to write the weights")
    ap.add_argument("--no-write", action="store_true", help="print the figures, write no weights")
    ap.add_argument(
        "--exact-last", action="store_true", help="fit the fifth deal's end to its exact value (2 players)"
    )
    ap.add_argument("--deals", action="append", type=int, help="fit only these deals still to come")
    args = ap.parse_args()
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    held_bots = [b.strip() for b in (args.holdout_bots or args.bots).split(",") if b.strip()]
    for b in (*bots, *held_bots):
        bot(b)
    # With --deals, the weights of the other deals (and the other models) come from the file replaced.
    replaced: dict[str, Any] = json.loads(args.out.read_text()) if args.deals else {}
    old_models: dict[str, Any] = replaced.get("models", {})
    models: dict[str, Any] = dict(old_models)
    print(
        f"RMS error of the deal-end estimate (points, the round margin of the side to move next) on "
        f"{args.holdout} held-out rounds of {'+'.join(held_bots)} per row; fit on {args.rounds} rounds of "
        f"{'+'.join(bots)}"
    )
    print(f"{'model':12s} {'deal':>4s} {'positions':>9s} {'handmade':>9s} {'learned':>8s} {'(fit)':>6s}")
    for preset in args.preset or ["classic", "royal", "dominican"]:
        rules = RuleSet.from_preset(preset)
        for nplayers in args.players or [2]:
            key = model_key(preset, nplayers)
            train = Table(
                rules,
                rounds_records(rules, nplayers, bots, args.seed, range(args.rounds), args.jobs, args.data),
                args.exact_last,
                args.jobs,
            )
            test = Table(
                rules,
                rounds_records(
                    rules,
                    nplayers,
                    held_bots,
                    args.seed,
                    range(args.rounds, args.rounds + args.holdout),
                    args.jobs,
                    args.data,
                ),
                args.exact_last,
                args.jobs,
            )
            total = deals_per_round(nplayers)
            weights: dict[str, list[float]] = {}
            figures: dict[str, dict[str, float]] = {}
            kept = old_models.get(key, {})
            if args.deals:
                weights = dict(kept.get("weights", {}))
                figures = dict(kept.get("held_out_rms", {}))
            for deals in sorted(train.x, reverse=True):
                if args.deals and deals not in args.deals:
                    continue
                w = fit(train.x[deals], train.actual[deals] - train.sure[deals], args.ridge)
                weights[str(deals)] = [round(float(v), 6) for v in w]
                fitted = rms(train.x[deals] @ w + train.sure[deals] - train.actual[deals])
                learned = rms(test.x[deals] @ w + test.sure[deals] - test.actual[deals])
                handmade = rms(test.handmade[deals] - test.actual[deals])
                n = len(test.actual[deals])
                deal_no = total - deals
                figures[str(deal_no)] = {"positions": n, "handmade": handmade, "learned": learned}
                print(
                    f"{key:12s} {deal_no:4d} {n:9d} {handmade:9.3f} {learned:8.3f} {fitted:6.3f}", flush=True
                )
            fitted_with = {
                "rounds": args.rounds,
                "holdout": args.holdout,
                "bots": bots,
                "holdout_bots": held_bots,
                "seed": args.seed,
                "exact_last": args.exact_last,
            }
            if args.deals:  # a refit of some deals: the model's own record stays, the refit is added
                refit = {"deals": sorted(args.deals), **fitted_with}
                models[key] = kept | {
                    "weights": weights,
                    "held_out_rms": figures,
                    "refits": [*kept.get("refits", []), refit],
                }
            else:
                models[key] = fitted_with | {"weights": weights, "held_out_rms": figures}
    if not args.no_write:
        command = (
            f"scripts/fit_leaf.py --rounds {args.rounds} --holdout {args.holdout} "
            f"--bots {','.join(bots)} --seed {args.seed} --ridge {args.ridge:g}"
            + "".join(f" --preset {p}" for p in args.preset or ())
            + "".join(f" --players {n}" for n in args.players or ())
            + (" --exact-last" if args.exact_last else "")
            + "".join(f" --deals {d}" for d in args.deals or ())
        )
        if args.deals:
            command = f"{replaced['created_by']}; then {command}"
        doc = {
            "format": WEIGHTS_FORMAT,
            "version": 1,
            "created_by": command,
            "features": list(LEARNED_FEATURES),
            "models": models,
        }
        atomic_write_bytes(args.out, dumps(doc))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
