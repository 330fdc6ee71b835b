"""The pure and the compiled build give the same analysis, byte for byte, on every bundled log.

Runs ``casino-coach analyze LOG --json`` (plus any options given, e.g. ``--samples 16``) on each
casino-replay log of ``replays/`` with both builds and compares the outputs. The one field that may
differ is ``seconds``, the time the analysis took; it is left out of the comparison. The compiled build
is ``compare_builds.compiled_tree()`` unless ``--compiled-python`` names the interpreter of an
environment where the compiled wheel is installed (as ``.ci/run`` does). Exit status 1 when any log
differs.

    python scripts/same_output.py [--compiled-python PATH] [-- ANALYZE OPTIONS]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import compare_builds

ROOT = compare_builds.ROOT
CLI = "from casino_coach.cli import main; main()"
SECONDS = re.compile(rb'"seconds": *[-+0-9.eE]+')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compiled-python", help="an interpreter with the compiled wheel installed")
    ap.add_argument("options", nargs="*", help="options for analyze (after --)")
    args = ap.parse_args()
    safe = {**os.environ, "PYTHONSAFEPATH": "1"}
    builds = {"pure": ([sys.executable], {**safe, "PYTHONPATH": str(ROOT)})}
    if args.compiled_python:
        builds["compiled"] = ([args.compiled_python], {k: v for k, v in safe.items() if k != "PYTHONPATH"})
    else:
        builds["compiled"] = ([sys.executable], {**safe, "PYTHONPATH": str(compare_builds.compiled_tree())})
    for build, (python, env) in builds.items():
        version = subprocess.run([*python, "-c", CLI, "--version"], env=env, capture_output=True, text=True)
        if f"({build})" not in version.stdout:
            sys.exit(f"the {build} interpreter runs {version.stdout.strip() or version.stderr.strip()}")
    logs = [p for p in sorted((ROOT / "replays").glob("*.json")) if b'"casino-replay"' in p.read_bytes()]
    differ = 0
    for log in logs:
        out = {}
        for build, (python, env) in builds.items():
            proc = subprocess.run(
                [*python, "-c", CLI, "analyze", str(log), "--json", *args.options],
                env=env,
                capture_output=True,
            )
            out[build] = (proc.returncode, SECONDS.sub(b'"seconds":0', proc.stdout), proc.stderr)
        same = out["pure"] == out["compiled"]
        differ += not same
        size = len(out["pure"][1])
        print(f"{'same' if same else 'DIFFERENT':9s} {log.relative_to(ROOT)} ({size:,} bytes)", flush=True)
    print(f"{len(logs) - differ} of {len(logs)} logs give the same analysis JSON on both builds")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
