"""A bounded fuzz test (issue 11): mutated logs, positions and engine lines through the command line and
the engine. Every input ends in exit 0 or 1 with at most one line on stderr, never a traceback, and a
failed command leaves no file behind. ``scripts/fuzz_cli.py`` runs the same mutations for longer."""

from __future__ import annotations

import copy
import functools
import importlib.util
import json
import math
import time
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from casino_coach.cli import app
from casino_coach.services import engine_session as protocol
from casino_coach.services.engine_session import EngineSession, encode

ROOT = Path(__file__).resolve().parents[1]
LOG = orjson.loads((ROOT / "replays" / "classic-4p-progress.json").read_bytes())
POSITION = orjson.loads((ROOT / "replays" / "royal-2p-position.json").read_bytes())
runner = CliRunner()

# The mutations of scripts/fuzz_cli.py (which runs them for longer, through real processes).
_spec = importlib.util.spec_from_file_location("fuzz_cli", ROOT / "scripts" / "fuzz_cli.py")
assert _spec is not None and _spec.loader is not None
fuzz_cli = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_cli)
ODD = fuzz_cli.ODD


def _check(result: Any) -> None:
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    doc=st.sampled_from(["log", "position"]),
    pick=st.integers(min_value=0),
    value=st.sampled_from(ODD),
    delete=st.booleans(),
    command=st.sampled_from(["validate", "replay", "moves", "suggest"]),
)
def test_mutated_documents_fail_cleanly(
    tmp_path_factory: Any, doc: str, pick: int, value: Any, delete: bool, command: str
) -> None:
    base = LOG if doc == "log" else POSITION
    paths = fuzz_cli.paths(base)
    mutated = fuzz_cli.mutate(base, paths[pick % len(paths)], value, delete)
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "doc.json"
    path.write_text(json.dumps(mutated))  # json writes integers past 64 bits; orjson would not
    args = [command, str(path)] + (["--samples", "2"] if command == "suggest" else [])
    _check(runner.invoke(app, args, env={"COLUMNS": "100"}))
    assert sorted(p.name for p in folder.iterdir()) == ["doc.json"]  # nothing left behind


@settings(max_examples=60, deadline=None)
@given(
    line=st.one_of(
        st.binary(max_size=200),
        st.builds(
            lambda kind, value: json.dumps({"type": kind, "id": 1, "rules": value, "seat": value}).encode(),
            st.sampled_from(["hello", "new_game", "position", "go", "analyze", "state", "play", "nope"]),
            st.sampled_from(ODD),
        ),
    )
)
def test_the_engine_answers_every_line_and_then_a_good_one(line: bytes) -> None:
    s = EngineSession()
    answer = s.handle(line)
    assert answer is None or isinstance(answer, dict)
    good = s.handle(b'{"type": "hello", "id": 2}')
    assert good is not None and good["type"] != "error"


# Every field of every request (issue 11: "not every engine field is type-validated"): replaced by a
# value of every JSON type (huge and negative whole numbers, fractions, text, lists, objects, nested
# past the reader's depth), or deleted, then sent as a line (JSON) or as a Python object (NaN and
# numbers past 64 bits too). Each answer is a well-formed object, never an internal error, and the
# engine answers the next good request.
_GAME = {"type": "new_game", "rules": {"preset": "classic"}, "players": ["Ana", "Ben"], "seat": 0}
_DEAL = {"type": "deal", "hand": ["AC", "3S", "5S", "JC"], "table": ["3H", "5D", "8S", "TS"], "dealer": 1}
_LIMITS = {"samples": 1, "depth": 1, "seed": 3, "time": 1}
TEMPLATES: list[dict[str, Any]] = [
    {"type": "hello", "id": 1},
    {**_GAME, "id": 2, "partnerships": False},
    {**_DEAL, "id": 3},
    {"type": "move", "id": 4, "move": {"seat": 0, "card": "3S", "action": "capture", "take": ["3H"]}},
    {
        "type": "move",
        "id": 5,
        "move": {"seat": 0, "card": "5S", "action": "build", "take": ["3H"], "value": 8},
    },
    {"type": "state", "id": 6},
    {"type": "legal", "id": 7},
    {"type": "go", "id": 8, **_LIMITS},
    {"type": "analyze", "id": 9, **_LIMITS, "top": 2, "move": {"seat": 0, "card": "JC", "action": "trail"}},
    {"type": "analyze", "id": 10, **_LIMITS, "move": "5S x 5D"},
    {"type": "position", "id": 11, "position": POSITION},
    {"type": "quit", "id": 12},
]
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2, 3, 4, 2**63, 2**64 - 1, -(2**63) - 1, 10**30]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["AC", "8C x 3H", "\x1b[2J", "x" * 3000, "classic", "trail"]),
)
JSON_VALUES = st.one_of(
    st.recursive(
        _SCALARS,
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
        max_leaves=10,
    ),
    st.sampled_from(ODD),
    st.integers(min_value=33, max_value=300).map(lambda n: functools.reduce(lambda x, _: [x], range(n), [])),
)
PYTHON_ONLY = st.sampled_from([float("nan"), float("inf"), -float("inf"), 2**70, -(2**70), 10**400])


def _send(s: EngineSession, req: Any, as_line: bool) -> dict[str, Any]:
    answer = s.handle(json.dumps(req).encode()) if as_line else s.request(req)
    assert isinstance(answer, dict)
    line = encode(answer)
    assert line.endswith(b"\n") and b"\n" not in line[:-1]  # one line of JSON
    return answer


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    template=st.sampled_from(TEMPLATES),
    pick=st.integers(min_value=0),
    value=st.one_of(JSON_VALUES, PYTHON_ONLY),
    delete=st.booleans(),
    as_line=st.booleans(),
)
def test_every_engine_field_is_checked_and_the_engine_goes_on(
    template: dict[str, Any], pick: int, value: Any, delete: bool, as_line: bool
) -> None:
    if as_line and (
        (isinstance(value, float) and not math.isfinite(value))
        or (isinstance(value, int) and abs(value) > 10**300)
    ):
        as_line = False  # not JSON: only a caller in Python can send it
    s = EngineSession()
    assert s.request(_GAME)["type"] == "ready" and s.request(_DEAL)["type"] == "state"
    fields = fuzz_cli.paths(template)[1:]  # not the whole request
    path = fields[pick % len(fields)]
    req = copy.deepcopy(template)
    parent = req
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    t0 = time.perf_counter()
    answer = _send(s, req, as_line)
    assert time.perf_counter() - t0 < 20, (req, answer)
    assert isinstance(answer.get("type"), str)
    if answer["type"] == "error":
        assert set(answer) <= {"type", "id", "error", "request"}
        assert isinstance(answer["error"], str) and "internal error" not in answer["error"], answer
        assert len(answer["error"]) < 600
        for tag in (answer.get("id"), answer["request"]):
            assert (
                tag is None
                or (isinstance(tag, int) and not isinstance(tag, bool))
                or (isinstance(tag, str) and len(tag) <= protocol.MAX_ID)
            )
    good = _send(s, {"type": "hello", "id": "next"}, as_line)
    assert good["type"] == "hello" and good["id"] == "next"
    if s.game is not None:
        assert _send(s, {"type": "state"}, as_line)["type"] == "state"


# The readers' coverage-guided fuzz target (scripts/fuzz_readers.py, issue 43): its budget runs there;
# here its one-input function runs on the seeds and a few mutations of them, as a smoke test.
_readers_spec = importlib.util.spec_from_file_location("fuzz_readers", ROOT / "scripts" / "fuzz_readers.py")
assert _readers_spec is not None and _readers_spec.loader is not None
fuzz_readers = importlib.util.module_from_spec(_readers_spec)
_readers_spec.loader.exec_module(fuzz_readers)


def test_the_readers_fuzz_target_reads_its_seeds_and_refuses_their_mutations() -> None:
    import random

    seeds = fuzz_readers.corpus()
    outcomes = {fuzz_readers.one_input(s) for s in seeds}
    assert {"log: read", "position: read", "engine: read", "position: refused"} <= outcomes
    rng = random.Random(3)
    for _ in range(60):
        outcome = fuzz_readers.one_input(fuzz_readers.mutate(rng.choice(seeds), rng, seeds))
        assert outcome.split(": ")[0] in fuzz_readers.READERS
    big = bytes([0]) + fuzz_readers.corpus()[0][1:].replace(
        b'"preset"', b'"points_cards": 9223372036854775807, "preset"', 1
    )
    assert fuzz_readers.one_input(big) == "log: refused"  # issue 43, class 6: read, then not writable
