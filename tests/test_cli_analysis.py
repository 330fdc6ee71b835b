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
    ("args", "message"),
    [
        (["--player", "Zoe"], "player 'Zoe' is not in this game"),
        (["--jobs", "0"], "--jobs must be from 1 to 64, got 0"),
        # hung: a process per move was started
        (["--jobs", str(10**23)], f"--jobs must be from 1 to 64, got {10**23}"),
        (["--samples", str(10**23)], f"--samples must be from 1 to 100,000, got {10**23}"),
        (["--depth", str(10**23)], f"--depth must be from 1 to 1,000 plies, got {10**23}"),
        (["--mistake", "0.1"], "class thresholds must grow"),
    ],
)
def test_bad_options_fail_in_one_line(
    runner: CliRunner, game: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["export", str(game), "--out", str(out), *FAST, *args])
    assert res.exit_code == 1
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert "Traceback" not in res.output and not out.exists()


def test_bad_log_fails_in_one_line_and_writes_nothing(runner: CliRunner, tmp_path: Path) -> None:
    bad = make_log(21, deals=1)
    bad["rounds"][0]["deals"][0]["moves"][2]["card"] = "ZZ"
    path = tmp_path / "bad.json"
    path.write_bytes(orjson.dumps(bad))
    out = tmp_path / "r.html"
    for cmd in (["analyze", str(path)], ["export", str(path), "--out", str(out)]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 1
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and "ZZ" in lines[0]
    assert not out.exists()
    res = runner.invoke(app, ["analyze", str(tmp_path / "missing.json")])
    assert res.exit_code == 1 and "missing.json" in res.stderr


def test_help_has_an_example(runner: CliRunner) -> None:
    for cmd in ("analyze", "export"):
        res = runner.invoke(app, [cmd, "--help"])
        assert res.exit_code == 0 and "Example: casino-coach " + cmd in res.stdout


def test_the_terminal_says_all_equal_not_forced_where_there_was_a_choice(runner: CliRunner) -> None:
    # Issue 10: "forced" stood on moves with several choices, every one worth the same.
    log = Path(__file__).parents[1] / "replays" / "classic-2p-full.json"
    res = runner.invoke(app, ["analyze", str(log), "--json", "--samples", "8", "--depth", "2"])
    moves = orjson.loads(res.stdout)["moves"]
    equal = [m["ply"] for m in moves if m["forced"] and m["legal"] > 1]
    res = runner.invoke(app, ["analyze", str(log), "--samples", "8", "--depth", "2"])
    assert res.exit_code == 0
    rows = [line for line in res.stdout.splitlines() if "all equal" in line]
    assert equal and len(rows) >= len(equal)


def test_a_negative_worst_is_refused(runner: CliRunner, game: Path) -> None:
    # --worst -1 listed every missed move but one
    res = runner.invoke(app, ["analyze", str(game), *FAST, "--worst", "-1"])
    assert res.exit_code == 1 and res.stderr.strip() == "error: --worst must be 0 or more, got -1"
