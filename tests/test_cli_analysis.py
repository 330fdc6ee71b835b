"""``casino-coach analyze`` and ``export``: output, options, and one-line errors on bad input."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from test_analysis import make_log
from typer.testing import CliRunner

from casino_coach.cli import app

FAST = ["--samples", "3", "--seed", "1"]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "160", "NO_COLOR": "1"})


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    path.write_bytes(orjson.dumps(make_log(21, deals=1)))
    return path


def test_analyze_json(runner: CliRunner, game: Path) -> None:
    res = runner.invoke(app, ["analyze", str(game), "--json", *FAST])
    assert res.exit_code == 0, res.output
    obj = orjson.loads(res.stdout)
    assert len(obj["moves"]) == 8
    m = obj["moves"][0]
    assert {"ply", "seat", "played", "best", "loss", "class", "explanations", "exact"} <= set(m)
    assert m["played"]["card"] and m["class"] in ("best", "good", "inaccuracy", "mistake", "blunder")
    assert [s["player"] for s in obj["summary"]] == ["Ana", "Ben"]
    assert obj["settings"]["samples"] == 3


def test_analyze_terminal(runner: CliRunner, game: Path) -> None:
    res = runner.invoke(app, ["analyze", str(game), *FAST, "--player", "Ben", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "Game analysis: Ana vs Ben" in out and "Summary" in out and "The whole game" in out
    assert "not rated" in out  # Ana's moves are shown, not rated


def test_export_formats(runner: CliRunner, game: Path, tmp_path: Path) -> None:
    for fmt, marker in (
        ("html", b"<!DOCTYPE html>"),
        ("md", b"# Game analysis"),
        ("json", b'"format": "casino-analysis"'),
    ):
        out = tmp_path / f"report.{fmt}"
        res = runner.invoke(app, ["export", str(game), "--format", fmt, "--out", str(out), *FAST])
        assert res.exit_code == 0, res.output
        assert marker in out.read_bytes()


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (["--player", "Zoe"], "player 'Zoe' is not in this game", 1),
        # out of their ranges: usage errors, status 2 as for --seed -1
        (["--jobs", "0"], "--jobs must be from 1 to 64, got 0", 2),
        # hung: a process per move was started
        (["--jobs", str(10**23)], f"--jobs must be from 1 to 64, got {10**23}", 2),
        (["--samples", str(10**23)], f"--samples must be from 1 to 100,000, got {10**23}", 2),
        (["--depth", str(10**23)], f"--depth must be from 1 to 1,000 plies, got {10**23}", 2),
        (["--mistake", "0.1"], "class thresholds must grow", 2),
    ],
)
def test_bad_options_fail_in_one_line(
    runner: CliRunner, game: Path, tmp_path: Path, args: list[str], message: str, status: int
) -> None:
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["export", str(game), "--out", str(out), *FAST, *args])
    assert res.exit_code == status
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert "Traceback" not in res.output and not out.exists()


def test_a_negative_worst_is_refused(runner: CliRunner, game: Path) -> None:
    # --worst -1 listed every missed move but one
    res = runner.invoke(app, ["analyze", str(game), *FAST, "--worst", "-1"])
    assert res.exit_code == 2 and res.stderr.strip() == "error: --worst must be 0 or more, got -1"
