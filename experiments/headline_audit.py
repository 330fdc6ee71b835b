"""Audit the headlines: print the headline of every judged move over the bundled replays, to read as a
strong player would, and how many words a move's explanation takes, before and after.

A judged move here is a rated, unforced move that was not the best (``MoveAnalysis.missed``): the
moves a report explains. Its words before the headlines are those of every explanation (what
``analyze`` printed for it); after, those of its headline (what ``analyze`` prints without
``--detail``), and of the detail below it. With ``--base DIR`` (a checkout of the code before, with
its native core built) the words before are measured by that code in a subprocess, on the same
logs and settings, and printed beside the figures of this one.

    python experiments/headline_audit.py [--jobs 2] [--show 50] [--base /work/main] [LOG ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from casino_coach.coach.analysis import AnalysisOptions, analyze
from casino_coach.errors import CoachError
from casino_coach.formats.log import read_log

ROOT = Path(__file__).resolve().parents[1]


def words(text: str) -> int:
    return len(text.split())


def judged(files: list[Path], jobs: int) -> list[dict[str, object]]:
    """Every judged move of ``files``: where it is, its class and loss, its headline (None with code
    that has none) and the words of its explanations and of its headline."""
    out: list[dict[str, object]] = []
    for f in files:
        try:
            log = read_log(f)
        except CoachError:  # a position file, not a game
            continue
        a = analyze(log, AnalysisOptions(jobs=jobs))
        for m in a.moves:
            if not m.missed:
                continue
            headline = getattr(m, "headline", None)
            out.append(
                {
                    "file": f.name,
                    "preset": log.rules.preset,
                    "players": len(log.players),
                    "ply": m.ply,
                    "player": log.players[m.seat],
                    "played": m.played.describe(),
                    "cls": m.cls.value if m.cls else "",
                    "loss": round(m.loss or 0.0, 2),
                    "headline": headline,
                    "detail": sum(words(e.text) for e in m.explanations),
                    "bullets": len(m.explanations),
                    "words": words(headline) if headline else sum(words(e.text) for e in m.explanations),
                }
            )
        print(
            f"{f.name}: {sum(1 for r in out if r['file'] == f.name)} judged moves",
            file=sys.stderr,
            flush=True,
        )
    return out


def figures(counts: list[int]) -> str:
    if not counts:
        return "no judged move"
    return f"median {statistics.median(counts):g}, longest {max(counts)}, over {len(counts)} moves"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="*", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=50, help="print this many headlines to read")
    ap.add_argument("--base", type=Path, help="a checkout of the code before, to measure its words")
    ap.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)  # the subprocess's JSON
    args = ap.parse_args()
    files = args.logs or sorted((ROOT / "replays").glob("*.json"))
    rows = judged(files, args.jobs)
    if args.raw:
        print(json.dumps(rows))
        return
    before = None
    if args.base is not None:
        env = {**os.environ, "PYTHONPATH": str(args.base.resolve())}
        cmd = [sys.executable, __file__, "--raw", "--jobs", str(args.jobs), *map(str, files)]
        old = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
        before = [int(r["words"]) for r in old]
    # The headlines to read: spread over the logs, the largest losses of each first.
    per_file = max(1, -(-args.show // max(1, len(files))))
    shown = []
    for f in files:
        mine = sorted((r for r in rows if r["file"] == f.name), key=lambda r: -float(r["loss"]))  # type: ignore[arg-type]
        shown += mine[:per_file]
    for r in shown[: args.show]:
        print(
            f"[{r['file']} ply {r['ply']}, {r['player']}] {r['played']}: {r['cls']}, lost {r['loss']}\n"
            f"  {r['headline']}"
        )
    print()
    if before is not None:
        print(f"words per judged move before (every explanation, {args.base}): {figures(before)}")
    print(f"words per judged move, headline (analyze): {figures([int(r['words']) for r in rows])}")
    print(f"words per judged move, detail (analyze --detail): {figures([int(r['detail']) for r in rows])}")
    print(f"bullets per judged move, detail: {figures([int(r['bullets']) for r in rows])}")


if __name__ == "__main__":
    main()
