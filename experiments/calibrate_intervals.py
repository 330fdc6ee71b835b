"""How wide must a loss's interval be to hold the heavy reference's loss, and how should a class be read?

Reads what ``experiments/verdict_stability.py --reference --save FILE`` saved (every rated move of its
games under each seed, and the heavy reference's) and prints, by number of players:

* how often the reference's loss lies inside the interval the analysis reported (issue 41's target:
  at least 93%), and the margin that, added to both ends of every interval whose search stopped short
  of the end of the round, would bring that to 95%: the error of the depth cut, the leaf and the model
  of the others' play, which the sampling error does not cover (the intervals reported carry today's
  margin, ``budget.CUT_MARGINS``, already: this is what would be added to it);
* with two players, the same for the moves of the deal before the last whose search stopped on the
  leaf's estimate of the last deal, under every seed (``budget.LAST_LEAF_MARGIN``; against a
  reference that goes on to the end of the round there, ``verdict_stability.py
  --reference-round-end 8``, the exact value);
* for each way of reading a class from a loss and its interval, with that margin: how many unforced
  moves keep their class under every seed, the flips between best/good and mistake/blunder, the
  agreement with the reference's class (read the same way from its own interval), and how many moves
  are called good or best at an estimated loss of 0.4 or more.

    python experiments/calibrate_intervals.py results.json [--coverage 0.95] [--reference other.json]

``--reference``: take the heavy reference from another run's file (the same games), so that a run
of other settings without ``--reference`` can be set against the one reference.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from casino_coach.coach.verdict import MoveClass, Thresholds

TH = Thresholds()
_GOOD = {MoveClass.BEST, MoveClass.GOOD}
_BAD = {MoveClass.MISTAKE, MoveClass.BLUNDER}
_ORDER = (MoveClass.BEST, MoveClass.GOOD, MoveClass.INACCURACY, MoveClass.MISTAKE, MoveClass.BLUNDER)

Row = dict[str, Any]
Rule = Callable[[float, float], MoveClass]


def today(loss: float, low: float) -> MoveClass:
    """Today's rule (``Thresholds.classify_interval``): *best* as at the low end; any other move the
    estimate's class, at most one above the low end's."""
    return TH.classify_interval(loss, low)


def low_end(loss: float, low: float) -> MoveClass:
    """The rule before: the class of the interval's low end."""
    if today(loss, low) is MoveClass.BEST:
        return MoveClass.BEST
    return _ORDER[1 + TH.band(low)]


def point(loss: float, low: float) -> MoveClass:
    """The class of the estimate itself."""
    return TH.classify_interval(loss, loss)


def one_above_low(loss: float, low: float) -> MoveClass:
    """The estimate's class, *best* included, but at most one class harsher than the low end's."""
    a, b = _ORDER.index(point(loss, low)), _ORDER.index(low_end(loss, low))
    return _ORDER[min(a, b + 1)]


RULES: dict[str, Rule] = {
    "today": today,
    "low end (before)": low_end,
    "estimate": point,
    "estimate, one above low": one_above_low,
}


def widened(row: Row, margin: float) -> tuple[float, float]:
    """The row's interval with ``margin`` added at both ends, where its search stopped short of the
    end of the round (``round_end``; in a file saved before that was saved, a last deal's search
    went to the end)."""
    reached = row.get("round_end")
    if row.get("exact") or (reached if reached is not None else row.get("stock") == 0):
        return row["low"], row["high"]
    return max(0.0, row["low"] - margin), row["high"] + margin


def coverage(pairs: Sequence[tuple[Row, Row]], margin: float) -> float:
    inside = 0
    for mine, ref in pairs:
        low, high = widened(mine, margin)
        inside += low - 1e-9 <= ref["loss"] <= high + 1e-9
    return inside / max(1, len(pairs))


def margin_for(pairs: Sequence[tuple[Row, Row]], target: float) -> float:
    """The smallest margin (to 0.01) whose coverage reaches ``target``."""
    m = 0.0
    while coverage(pairs, m) < target and m < 10:
        m += 0.01
    return round(m, 2)


def rule_figures(games: Sequence[dict[str, Any]], rule: Rule, margin: float) -> dict[str, Any]:
    same = total = flips = agree = compared = hidden = 0
    for g in games:
        seeds = [{r["ply"]: r for r in rows} for rows in g["seeds"]]
        ref = {r["ply"]: r for r in g["reference"]}
        for ply, first in seeds[0].items():
            if first["forced"]:
                continue
            classes = set()
            for s in seeds:
                low, _ = widened(s[ply], margin)
                classes.add(rule(s[ply]["loss"], low))
            total += 1
            same += len(classes) == 1
            flips += bool(classes & _GOOD) and bool(classes & _BAD)
            low, _ = widened(first, margin)
            mine = rule(first["loss"], low)
            hidden += mine in _GOOD and first["loss"] >= 0.4
            r = ref.get(ply)
            if r is not None and not r["forced"]:
                compared += 1
                agree += mine == rule(r["loss"], r["low"])
    return {
        "same": same,
        "total": total,
        "flips": flips,
        "agree": agree,
        "compared": compared,
        "hidden": hidden,
    }


def _last_leaf(games: Sequence[dict[str, Any]], target: float) -> None:
    """Prints how often the reference lies inside the intervals of the 2-player moves of the deal
    before the last whose search stopped at its end, on the leaf, under every seed."""
    pairs = []
    for g in games:
        ref = {r["ply"]: r for r in g["reference"]}
        for rows in g["seeds"]:
            for row in rows:
                r = ref.get(row["ply"])
                leaf = row["stock"] == 8 and not row.get("round_end") and not row.get("exact")
                if leaf and not row["forced"] and r is not None and not r["forced"]:
                    pairs.append((row, r))
    if pairs:
        m = margin_for(pairs, target)
        print(
            f"2 players, the deal before the last, stopped on the leaf: {len(pairs)} moves under every "
            f"seed, reference inside the interval {100 * coverage(pairs, 0.0):.1f}%; a margin of {m:.2f} "
            f"points more makes it {100 * coverage(pairs, m):.1f}%"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--coverage", type=float, default=0.95)
    ap.add_argument("--reference", type=Path, help="the heavy reference's file, if not RESULTS")
    args = ap.parse_args()
    games = json.loads(args.results.read_text())
    if args.reference is not None:
        refs = {g["game"]: g["reference"] for g in json.loads(args.reference.read_text())}
        games = [g | {"reference": refs[g["game"]]} for g in games if g["game"] in refs]
    by_players: dict[int, list[dict[str, Any]]] = {}
    for g in games:
        by_players.setdefault(len(g["bots"]), []).append(g)
    for n, gs in sorted(by_players.items()):
        pairs = []
        for g in gs:
            ref = {r["ply"]: r for r in g["reference"]}
            for row in g["seeds"][0]:
                r = ref.get(row["ply"])
                if not row["forced"] and r is not None and not r["forced"]:
                    pairs.append((row, r))
        m = margin_for(pairs, args.coverage)
        if n == 2:
            _last_leaf(gs, args.coverage)
        print(
            f"{n} players, {len(gs)} games, {len(pairs)} unforced moves: reference inside the interval "
            f"{100 * coverage(pairs, 0.0):.1f}%; a margin of {m:.2f} points makes it "
            f"{100 * coverage(pairs, m):.1f}%"
        )
        for name, rule in RULES.items():
            for margin in sorted({0.0, m}):
                f = rule_figures(gs, rule, margin)
                kept = 100 * f["same"] / max(1, f["total"])
                agreed = 100 * f["agree"] / max(1, f["compared"])
                print(
                    f"  {name:24s} margin {margin:.2f}: same class under every seed {f['same']}/{f['total']} "
                    f"= {kept:.1f}%, {f['flips']} flips, agrees with the reference "
                    f"{f['agree']}/{f['compared']} = {agreed:.1f}%, good or best at a loss >= 0.4: "
                    f"{f['hidden']}"
                )


if __name__ == "__main__":
    main()
