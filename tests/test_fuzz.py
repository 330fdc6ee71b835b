"""A bounded fuzz test (issue 11): mutated logs, positions and engine lines through the command line and
the engine. Every input ends in exit 0 or 1 with at most one line on stderr, never a traceback, and a
failed command leaves no file behind. ``scripts/fuzz_cli.py`` runs the same mutations for longer."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from casino_coach.cli import app
from casino_coach.services.engine_session import EngineSession

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
