"""Measure a benchmark on the pure and the compiled build in one run, interleaved (``--compare``).

Used by ``bench_engine.py``, ``bench_search.py`` and ``bench_analysis.py``. The pure build is this
checkout's sources; the compiled build is the wheel that ``pip wheel .`` makes here (hatch_build.py),
unpacked into ``build/compiled/`` and made again whenever a source file changed. Each repeat runs the
benchmark once per build in a fresh process (``--figures``: it prints its figures as JSON), pure and
compiled alternating so that a change in the machine's load falls on both; the medians and their
ratios are printed at the end. Each child checks that it imported the build it was meant to measure.

A figure whose name ends in ``_s`` is a time (lower is better); any other is a rate (higher is better).
The ratio printed is always "compiled is N times faster".
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "compiled"
BUILD_ENV = "CASINO_COACH_BENCH_BUILD"


def check_build() -> None:
    """In a child: fail unless the imported casino_coach is the build the parent asked for."""
    want = os.environ.get(BUILD_ENV)
    if want:
        import casino_coach

        if casino_coach.build() != want:
            got = casino_coach.build()
            sys.exit(f"asked to measure the {want} build, imported {got} from {casino_coach.__file__}")


def _fingerprint() -> str:
    h = hashlib.sha256()
    for p in sorted([*ROOT.glob("casino_coach/**/*.py"), ROOT / "pyproject.toml", ROOT / "hatch_build.py"]):
        h.update(p.relative_to(ROOT).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def compiled_tree() -> Path:
    """``build/compiled/``: this checkout's wheel, unpacked, made again when a source changed."""
    stamp = BUILD / ".fingerprint"
    want = _fingerprint()
    if stamp.exists() and stamp.read_text() == want:
        return BUILD
    print("building the compiled wheel (pip wheel .; about a minute) ...", file=sys.stderr, flush=True)
    wheels = ROOT / "build" / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(ROOT)],
        check=True,
    )
    (wheel,) = wheels.glob("casino_coach-*.whl")
    shutil.rmtree(BUILD, ignore_errors=True)
    with zipfile.ZipFile(wheel) as z:
        z.extractall(BUILD)
    stamp.write_text(want)
    return BUILD


def compare(
    script: str, argv: list[str], repeat: int, per_repeat: Callable[[int], list[str]] | None = None
) -> None:
    """Run ``script`` with ``argv`` (its own options, without ``--compare``) ``repeat`` times on each
    build, alternating, and print each figure's medians and the compiled build's speed-up.
    ``per_repeat(r)`` adds options to repeat ``r`` (both builds get the same)."""
    trees = {"pure": ROOT, "compiled": compiled_tree()}
    runs: dict[str, list[dict[str, float]]] = {"pure": [], "compiled": []}
    for r in range(repeat):
        for build in ("pure", "compiled") if r % 2 == 0 else ("compiled", "pure"):
            # PYTHONSAFEPATH: the tree on PYTHONPATH, not the checkout beside the script, is imported.
            path = os.pathsep.join([str(trees[build]), str(Path(script).resolve().parent)])
            env = {**os.environ, "PYTHONPATH": path, "PYTHONSAFEPATH": "1", BUILD_ENV: build}
            proc = subprocess.run(
                [sys.executable, script, *argv, *(per_repeat(r) if per_repeat else []), "--figures"],
                env=env,
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                sys.exit(f"the {build} run failed:\n{proc.stderr.strip()}")
            figures = json.loads(proc.stdout.strip().splitlines()[-1])
            runs[build].append(figures)
            print(f"repeat {r + 1}/{repeat} {build:8s} " + _line(figures), flush=True)
    print(f"\nmedians of {repeat} interleaved runs per build:")
    for name in runs["pure"][0]:
        pure = statistics.median(f[name] for f in runs["pure"])
        comp = statistics.median(f[name] for f in runs["compiled"])
        faster = pure / comp if name.endswith("_s") else comp / pure
        print(f"  {name:40s} pure {pure:12,.3f}  compiled {comp:12,.3f}  compiled {faster:5.2f}x faster")


def _line(figures: dict[str, float]) -> str:
    return "  ".join(f"{k}={v:,.3f}" for k, v in figures.items())


def emit(figures: dict[str, float]) -> None:
    """In a child (``--figures``): print the figures as the last line, for ``compare``."""
    print(json.dumps(figures), flush=True)
