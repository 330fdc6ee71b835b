"""Coverage-guided fuzzing of the readers (issue 43): the game-log reader, the position reader and the
engine's request reader, fed bytes that libFuzzer mutates (atheris) from a corpus of the shipped logs
and positions and a few engine lines, for a fixed number of runs. Prints the counts.

    python scripts/fuzz_readers.py [--runs 20000] [--seed 1] [--fallback]

``one_input(data)`` is the target: its first byte picks the reader, the rest is the input.

* log: ``read_log``, then ``replay`` (its moves re-played), then ``log_to_json`` (what was read written
  back: a value the reader takes must be one the writers can write, as 2**63 - 1 points were not);
* position: ``read_position``, then ``position_to_json``;
* engine: each line through one ``EngineSession`` (search requests, ``go`` and ``analyze``, are left
  out: they search, which is not reading, and would take the budget); every answer must be an object
  with a ``type`` that encodes, and none may be the engine's "internal error".

An input passes when the reader returns or raises ``CoachError`` (a refusal that says why); any other
exception, or an answer that breaks the rules above, is a crash: printed with its input (and, under
atheris, libFuzzer saves it as ``crash-*``), and the run exits 1.

Without atheris (``pip install atheris``; where no wheel fits the machine it builds with clang and
libFuzzer), or with ``--fallback``, the same target runs on inputs made by plain random mutation of
the same corpus (bytes flipped, inserted, deleted or repeated, pieces spliced from another input,
JSON values replaced by odd ones), for the same number of runs. ``tests/test_fuzz.py`` runs the
target on a few inputs (a smoke test); the budget runs only here.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
READERS = ("log", "position", "engine")
ENGINE_LINES = [
    b'{"type": "hello", "id": 1}',
    b'{"type": "newgame", "id": 2, "rules": {"preset": "royal"}, "players": 2}',
    b'{"type": "legal", "id": 3}',
    b'{"type": "quit"}',
]
ODD = [b"null", b"true", b"-1", b"0", b"18446744073709551616", b"1e308", b'""', b'"\\u001b[2J"', b"[]", b"{}"]

# Imported under atheris's instrumentation when it runs (``main``), so that the readers' code
# reports its coverage to libFuzzer.
modules: dict[str, Any] = {}


def _load() -> None:
    from casino_coach import errors
    from casino_coach.engine.rules import RuleSet
    from casino_coach.formats import log, position, replay
    from casino_coach.search.result import Limits
    from casino_coach.services import engine_session

    modules.update(
        errors=errors,
        log=log,
        position=position,
        replay=replay,
        engine_session=engine_session,
        limits=Limits(samples=2, min_samples=1, depth=1, exact_worlds=2),
        rules=RuleSet,
    )


counts: collections.Counter[str] = collections.Counter()


class Crash(Exception):
    """An input a reader failed on otherwise than by a CoachError."""


def one_input(data: bytes) -> str:
    """Run one input through the reader its first byte picks; what came of it ("log: read", "log:
    refused", ...). Crash (or the reader's own exception) when it is not a CoachError."""
    if not modules:
        _load()
    if not data:
        return "empty"
    reader = READERS[data[0] % len(READERS)]
    body = data[1:]
    coach_error = modules["errors"].CoachError
    try:
        if reader == "log":
            log = modules["log"].read_log(body)
            modules["replay"].replay_log(log)
            modules["log"].log_to_json(log)
        elif reader == "position":
            pos = modules["position"].read_position(body)
            modules["position"].position_to_json(pos)
        else:
            _engine(body)
    except coach_error:
        return f"{reader}: refused"
    return f"{reader}: read"


def _engine(body: bytes) -> None:
    import orjson

    es = modules["engine_session"]
    session = es.EngineSession(modules["limits"])
    for line in body.split(b"\n")[:20]:
        try:
            req = orjson.loads(line)
        except orjson.JSONDecodeError:
            req = None
        if isinstance(req, dict) and req.get("type") in ("go", "analyze"):
            continue  # a search, not a read
        answer = session.handle(line)
        if answer is None:
            continue
        if not isinstance(answer, dict) or not isinstance(answer.get("type"), str):
            raise Crash(f"an answer that is not an object with a type: {answer!r:.200}")
        if "internal error" in str(answer.get("error", "")):
            raise Crash(f"the engine's internal error: {answer['error']:.300}")
        es.encode(answer)


def corpus() -> list[bytes]:
    """The seeds: every shipped log and position for the log and position readers (each to both:
    a log read as a position is a case too), and the engine's lines."""
    seeds = []
    for path in sorted((ROOT / "replays").glob("*.json")):
        data = path.read_bytes()
        seeds += [bytes([0]) + data, bytes([1]) + data]
    seeds.append(bytes([2]) + b"\n".join(ENGINE_LINES))
    for path in sorted((ROOT / "replays").glob("*position*.json")):
        obj = path.read_bytes().replace(b"\n", b" ")
        seeds.append(bytes([2]) + b'{"type": "position", "id": 9, "position": ' + obj + b"}")
    return seeds


def mutate(data: bytes, rng: random.Random, seeds: list[bytes]) -> bytes:
    """One random mutation (the fallback's): flip, insert, delete or repeat bytes, splice in a piece
    of another seed, or put an odd JSON value where a value was."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        at = rng.randrange(len(b) + 1) if b else 0
        if kind == 0 and b:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif kind == 2 and b:
            del b[at : at + rng.randint(1, 64)]
        elif kind == 3 and b:
            piece = b[at : at + rng.randint(1, 32)]
            b[at:at] = piece * rng.randint(1, 50)
        elif kind == 4:
            other = rng.choice(seeds)
            j = rng.randrange(len(other))
            b[at:at] = other[j : j + rng.randint(1, 200)]
        else:
            colon = bytes(b).find(b": ", at)
            if colon != -1:
                end = colon + 2
                while end < len(b) and b[end] not in b",}]":
                    end += 1
                b[colon + 2 : end] = rng.choice(ODD)
    return bytes(b) if b else bytes([rng.randrange(3)])


def run_fallback(runs: int, seed: int, target: Callable[[bytes], str]) -> int:
    rng = random.Random(seed)
    seeds = corpus()
    crashes = 0
    slowest = (0.0, b"")
    for i in range(runs):
        data = seeds[i] if i < len(seeds) else mutate(rng.choice(seeds), rng, seeds)
        t0 = time.perf_counter()
        try:
            counts[target(data)] += 1
        except Exception as e:
            crashes += 1
            counts["crash"] += 1
            if crashes <= 5:
                print(f"CRASH {type(e).__name__}: {e!s:.300}\n  input: {data[:300]!r}", flush=True)
        took = time.perf_counter() - t0
        if took > slowest[0]:
            slowest = (took, data)
    print(f"slowest input: {slowest[0]:.2f} s ({READERS[slowest[1][0] % 3] if slowest[1] else '-'})")
    return crashes


def report(how: str, runs: int, seconds: float) -> None:
    print(f"{how}: {runs} runs in {seconds:.1f} s")
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20_000, help="inputs to run (the budget)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fallback", action="store_true", help="random mutation, without atheris")
    args = ap.parse_args()
    t0 = time.perf_counter()
    try:
        import atheris  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        atheris = None
    if atheris is None or args.fallback:
        if atheris is None:
            print("atheris is not installed: random mutation instead (pip install atheris)")
        _load()
        crashes = run_fallback(args.runs, args.seed, one_input)
        report("random mutation", args.runs, time.perf_counter() - t0)
        sys.exit(1 if crashes else 0)

    with atheris.instrument_imports(include=["casino_coach"]):
        _load()
    seeds_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"fuzz-readers-corpus-{os.getpid()}"
    seeds_dir.mkdir(exist_ok=True)
    for i, data in enumerate(corpus()):
        (seeds_dir / f"seed-{i:03}").write_bytes(data)
    done = 0

    def target(data: bytes) -> None:
        nonlocal done
        try:
            counts[one_input(data)] += 1
        except Exception:
            counts["crash"] += 1
            report("atheris (coverage-guided)", done + 1, time.perf_counter() - t0)
            raise  # libFuzzer prints it, saves the input as crash-*, and exits
        done += 1
        if done >= args.runs:  # the budget, the seeds counted: libFuzzer's own exit skips any report
            report("atheris (coverage-guided)", done, time.perf_counter() - t0)
            for seed_file in seeds_dir.iterdir():
                seed_file.unlink()
            seeds_dir.rmdir()
            sys.stdout.flush()
            os._exit(0)

    # -max_len: a log is some kilobytes (the largest seed); -timeout: an input that takes seconds is a
    # finding too (libFuzzer stops on it)
    longest = max(len(d) for d in corpus())
    atheris.Setup(
        [sys.argv[0], f"-seed={args.seed}", f"-max_len={longest + 1024}", "-timeout=20", str(seeds_dir)],
        target,
    )
    atheris.Fuzz()


if __name__ == "__main__":
    main()
