"""Fuzz the command line for longer than CI does (issue 11): mutated logs and positions through real
``casino-coach`` processes, each checked for exit status 0 or 1, at most one line on stderr, no
traceback, no file left behind, and an answer within ``--timeout`` seconds. Prints the cases tried and
the failures by kind, with one example of each.

    python scripts/fuzz_cli.py [--cases 300] [--seed 1] [--timeout 60]

``tests/test_fuzz.py`` draws from the same mutations (``ODD``, ``paths``, ``mutate``) with Hypothesis.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from casino_coach.cli import main; main()"]
COMMANDS = [["validate"], ["replay"], ["moves"], ["suggest", "--samples", "2"], ["analyze", "--samples", "2"]]
DOCUMENTS = ["classic-4p-progress.json", "royal-2p-position.json", "dominican-3p-position.json"]

# Values that have broken readers before: wrong types, extremes, deep nesting, hostile text.
ODD: list[Any] = [
    None,
    True,
    0,
    -1,
    2**70,
    1.5,
    1e308,
    "",
    "x" * 300,
    "\x1b[2J",
    "<script>",
    [],
    {},
    [[[[[]]]]],
    ["AC", "AC"],
    ["ZZ"],
    {"preset": None},
    {"preset": "royal", "sweeps": "yes"},
]


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``obj`` a mutation can hit (the first three items of each list)."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:3]):
            out += paths(v, (*prefix, i))
    return out


def mutate(obj: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    """A copy of ``obj`` with the value at ``path`` replaced (or its key deleted)."""
    obj = json.loads(json.dumps(obj))
    if not path:
        return value
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        parent.pop(path[-1], None)
    else:
        parent[path[-1]] = value
    return obj


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    docs = [json.loads((ROOT / "replays" / name).read_text()) for name in DOCUMENTS]
    failures: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    t0 = time.perf_counter()
    for case in range(args.cases):
        base = rng.choice(docs)
        where = rng.choice(paths(base))
        mutated = mutate(base, where, rng.choice(ODD), rng.random() < 0.3)
        command = rng.choice(COMMANDS)
        with tempfile.TemporaryDirectory() as tmp:
            doc = Path(tmp) / "doc.json"
            doc.write_text(json.dumps(mutated))
            kind = ""
            try:
                proc = subprocess.run(
                    [*CLI, command[0], str(doc), *command[1:]],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    cwd=tmp,
                )
                err = proc.stderr.strip()
                if proc.returncode not in (0, 1):
                    kind = f"exit status {proc.returncode}"
                elif "Traceback" in proc.stderr:
                    kind = "traceback"
                elif proc.returncode and len(err.splitlines()) != 1:
                    kind = "not one error line"
                elif sorted(p.name for p in Path(tmp).iterdir()) != ["doc.json"]:
                    kind = "file left behind"
            except subprocess.TimeoutExpired:
                kind = f"no answer in {args.timeout:g} s"
            if kind:
                failures[kind] += 1
                examples.setdefault(kind, f"{' '.join(command)} with {where} = {json.dumps(mutated)[:120]}")
        if (case + 1) % 50 == 0:
            print(f"{case + 1} cases, {sum(failures.values())} failures", flush=True)
    print(f"{args.cases} cases in {time.perf_counter() - t0:.0f} s; {sum(failures.values())} failures")
    for kind, n in failures.most_common():
        print(f"  {n:4d} {kind}: e.g. {examples[kind]}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
