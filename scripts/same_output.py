"""The native core and the Python reference give the same analysis, byte for byte, on every bundled log.

Runs ``casino-coach analyze LOG --json`` (plus any options given, e.g. ``--samples 16``) on each
casino-replay log of ``replays/`` twice, with ``CASINO_COACH_CORE=native`` and ``=python``, and compares
the outputs. The one field that may differ is ``seconds``, the time the analysis took; it is left out of
the comparison. Exit status 1 when any log differs.

    python scripts/same_output.py [-- ANALYZE OPTIONS]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = "from casino_coach.cli import main; main()"
SECONDS = re.compile(rb'"seconds": *[-+0-9.eE]+')
CORES = {"native": "native core", "python": "Python reference"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("options", nargs="*", help="options for analyze (after --)")
    args = ap.parse_args()
    envs = {core: {**os.environ, "CASINO_COACH_CORE": core} for core in CORES}
    for core, env in envs.items():
        version = subprocess.run(
            [sys.executable, "-c", CLI, "--version"], env=env, capture_output=True, text=True
        )
        if f"({CORES[core]}" not in version.stdout:
            sys.exit(f"CASINO_COACH_CORE={core} runs {version.stdout.strip() or version.stderr.strip()}")
    logs = [p for p in sorted((ROOT / "replays").glob("*.json")) if b'"casino-replay"' in p.read_bytes()]
    differ = 0
    for log in logs:
        out = {}
        for core, env in envs.items():
            proc = subprocess.run(
                [sys.executable, "-c", CLI, "analyze", str(log), "--json", *args.options],
                env=env,
                capture_output=True,
            )
            out[core] = (proc.returncode, SECONDS.sub(b'"seconds":0', proc.stdout), proc.stderr)
        same = out["native"] == out["python"]
        differ += not same
        size = len(out["native"][1])
        print(f"{'same' if same else 'DIFFERENT':9s} {log.relative_to(ROOT)} ({size:,} bytes)", flush=True)
    print(f"{len(logs) - differ} of {len(logs)} logs give the same analysis JSON on both cores")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
