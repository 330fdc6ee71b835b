"""Measure a benchmark on several builds in one run, interleaved (``--compare``).

Used by ``bench_engine.py``, ``bench_search.py`` and ``bench_analysis.py``. The builds:

* ``native``: this checkout with its native core (``CASINO_COACH_CORE=native``; the core built in place
  by the editable install, or ``pip install .``);
* ``python``: this checkout on the Python reference (``CASINO_COACH_CORE=python``);
* ``mypyc``: the last commit that compiled the hot modules with mypyc instead (``MYPYC_REF``), its
  wheel made with ``pip wheel`` into ``build/mypyc/`` once and kept: the fast build before the native
  core, measured beside it.

Each build's modules are compiled to bytecode first (``compileall``), as ``pip install`` compiles an
installed package's: a start-up with ``PYTHONDONTWRITEBYTECODE`` set and no cache would compile every
module from source each time (0.15 s of ``analyze``'s 0.95 s with the native core, less with mypyc,
whose hot modules are compiled already), which no installed build pays.

Each repeat runs the benchmark once per build in a fresh process (``--figures``: it prints its figures
as JSON), the builds in turn and in alternating order, so that a change in the machine's load falls
on all; the medians and the native build's ratios to the others are printed at the end. Each child
checks that it imported the build it was meant to measure.

A figure whose name ends in ``_s`` or ``_ms`` is a time (lower is better); any other is a rate
(higher is better). A ratio is always "native is N times faster".
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MYPYC_REF = "09a2726"  # the last commit whose wheel compiled the hot modules with mypyc
MYPYC_TREE = ROOT / "build" / f"mypyc-{MYPYC_REF}"
BUILD_ENV = "CASINO_COACH_BENCH_BUILD"
BUILDS = ("native", "python", "mypyc")


def check_build() -> None:
    """In a child: fail unless the imported casino_coach is the build the parent asked for."""
    want = os.environ.get(BUILD_ENV)
    if not want:
        return
    import casino_coach

    got = casino_coach.build()
    ok = {
        "native": got == "native core",
        "python": got.startswith("Python reference"),
        "mypyc": got == "compiled",
    }
    if not ok[want]:
        sys.exit(f"asked to measure the {want} build, imported {got!r} from {casino_coach.__file__}")


def is_native() -> bool:
    """Whether this process measures the native core: in a ``--compare`` child, whether it was asked
    to; run on its own, whether the imported casino_coach runs its native core."""
    want = os.environ.get(BUILD_ENV)
    if want:
        return want == "native"
    try:
        from casino_coach import core
    except ImportError:  # a build from before the native core
        return False
    return core.NATIVE is not None


def mypyc_tree() -> Path:
    """``build/mypyc-REF/``: the mypyc wheel of ``MYPYC_REF``, unpacked (made once, about two minutes)."""
    if (MYPYC_TREE / "casino_coach").is_dir():
        return MYPYC_TREE
    print(
        f"building the mypyc wheel of {MYPYC_REF} (pip wheel; a few minutes) ...", file=sys.stderr, flush=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", MYPYC_REF], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
        wheels = Path(tmp) / "wheels"
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(src)],
            check=True,
        )
        (wheel,) = wheels.glob("casino_coach-*.whl")
        part = MYPYC_TREE.with_suffix(".part")
        shutil.rmtree(part, ignore_errors=True)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(part)
        part.rename(MYPYC_TREE)
    return MYPYC_TREE


def _env(build: str, script: str) -> dict[str, str]:
    scripts = str(Path(script).resolve().parent)
    env = {**os.environ, BUILD_ENV: build, "PYTHONSAFEPATH": "1"}
    if build == "mypyc":
        env["PYTHONPATH"] = os.pathsep.join([str(mypyc_tree()), scripts])
    else:
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), scripts])
        env["CASINO_COACH_CORE"] = build
    return env


def _bytecode(build: str) -> None:
    """Compile ``build``'s package to bytecode, as an install does (module docstring)."""
    tree = mypyc_tree() if build == "mypyc" else ROOT
    if not compileall.compile_dir(tree / "casino_coach", quiet=1):
        sys.exit(f"could not compile the {build} build's modules to bytecode")


def compare(
    script: str,
    argv: list[str],
    repeat: int,
    per_repeat: Callable[[int], list[str]] | None = None,
    builds: tuple[str, ...] = BUILDS,
) -> dict[str, dict[str, float]]:
    """Run ``script`` with ``argv`` (its own options, without ``--compare``) ``repeat`` times on each
    build, in turn, and print each figure's medians and the native build's speed-up over the others.
    ``per_repeat(r)`` adds options to repeat ``r`` (every build gets the same). Returns the medians,
    by build and figure."""
    runs: dict[str, list[dict[str, float]]] = {b: [] for b in builds}
    for build in builds:
        _bytecode(build)
    for r in range(repeat):
        for build in builds if r % 2 == 0 else tuple(reversed(builds)):
            proc = subprocess.run(
                [sys.executable, script, *argv, *(per_repeat(r) if per_repeat else []), "--figures"],
                env=_env(build, script),
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                sys.exit(f"the {build} run failed:\n{proc.stderr.strip()}")
            figures = json.loads(proc.stdout.strip().splitlines()[-1])
            runs[build].append(figures)
            print(f"repeat {r + 1}/{repeat} {build:7s} " + _line(figures), flush=True)
    medians = {b: {k: statistics.median(f[k] for f in runs[b]) for k in runs[b][0]} for b in builds}
    print(f"\nmedians of {repeat} runs per build, interleaved:")
    others = [b for b in builds if b != "native"]
    for name in medians[builds[0]]:
        cells = "  ".join(f"{b} {medians[b].get(name, float('nan')):14,.3f}" for b in builds)
        ratios = "  ".join(
            f"{_ratio(name, medians['native'][name], medians[b][name]):6.1f}x {b}" for b in others
        )
        print(f"  {name:38s} {cells}   native: {ratios}")
    return medians


def _ratio(name: str, native: float, other: float) -> float:
    return other / native if name.endswith(("_s", "_ms")) else native / other


def _line(figures: dict[str, float]) -> str:
    return "  ".join(f"{k}={v:,.3f}" for k, v in figures.items())


def emit(figures: dict[str, float]) -> None:
    """In a child (``--figures``): print the figures as the last line, for ``compare``."""
    print(json.dumps(figures), flush=True)
