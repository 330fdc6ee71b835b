"""Hostile input (issue 11): each case of the outside fuzzer that crashed, as a test. Every bad input
ends in one line on stderr and exit status 1 (2 for a usage error), never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import one_error_line
from typer.testing import CliRunner

from casino_coach.cli import app
from casino_coach.errors import LogError, shown
from casino_coach.formats import jsonio
from casino_coach.formats.replay import read_log
from casino_coach.services.engine_session import EngineSession

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def log_obj() -> dict[str, Any]:
    # A short log (one deal of four players) keeps analyze and export quick.
    return dict(
        orjson.loads((Path(__file__).parents[1] / "replays" / "classic-4p-progress.json").read_bytes())
    )


def _write(tmp_path: Path, obj: Any) -> Path:
    p = tmp_path / "log.json"
    p.write_bytes(obj if isinstance(obj, bytes) else orjson.dumps(obj))
    return p


@pytest.mark.parametrize("command", ["validate", "replay", "moves", "analyze", "suggest", "export"])
def test_null_rules_beside_partnerships(tmp_path: Path, log_obj: dict[str, Any], command: str) -> None:
    # item 1: "rules": null with "partnerships": true crashed every reader with a TypeError
    path = _write(tmp_path, {**log_obj, "rules": None, "partnerships": True})
    out = ["--out", str(tmp_path / "report.html")] if command == "export" else []
    result = cli(command, str(path), *out)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if result.exit_code:
        one_error_line(result)


def test_count_out_order_with_a_number_is_one_line() -> None:
    # item 2
    err = one_error_line(cli("rules", "royal", "-o", 'count_out_order=[1,"cards"]'))
    assert "count_out_order" in err


@pytest.mark.parametrize("where", ["top", "players", "rules"])
def test_json_nested_a_thousand_deep_is_refused(tmp_path: Path, log_obj: dict[str, Any], where: str) -> None:
    # item 3: RecursionError from 999-1024 levels, at the top or inside any field
    deep = b"[" * 1000 + b"0" + b"]" * 1000  # orjson itself will not write this
    data = deep if where == "top" else orjson.dumps({**log_obj, where: "DEEP"}).replace(b'"DEEP"', deep)
    with pytest.raises(LogError, match="nested more than"):
        read_log(data)
    err = one_error_line(cli("validate", str(_write(tmp_path, data))))
    assert "nested" in err


def test_the_engine_survives_a_deep_line_and_answers_the_next() -> None:
    # item 12: an array (or an id) nested 300 deep killed the engine
    s = EngineSession()
    deep = b"[" * 300 + b"]" * 300
    answer = s.handle(deep)
    assert answer is not None and answer["type"] == "error" and "nested" in answer["error"]
    deep_id = b'{"type": "hello", "id": ' + b"[" * 300 + b"]" * 300 + b"}"
    answer = s.handle(deep_id)
    assert answer is not None and answer["type"] == "error"
    answer = s.handle(b'{"type": "hello", "id": 1}')
    assert answer is not None and answer["type"] != "error"


def test_a_seed_too_big_for_64_bits_is_a_usage_error_before_any_work() -> None:
    # item 5: --seed >= 2**64 failed with a TypeError after the whole analysis
    result = cli("analyze", "replays/classic-4p-progress.json", "--seed", str(2**64))
    assert result.exit_code == 2 and "--seed" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_quoted_values_are_short_and_escaped() -> None:
    # item 18 (a 50 MB card string echoed whole) and item 16 (escape sequences reaching the terminal)
    assert len(shown("8" * 50_000_000)) <= 60
    assert "\x1b" not in shown("\x1b]0;PWNED\x07Ana") and "\n" not in shown("a\nb")
    assert jsonio.depth([[[]], {"a": [1]}]) == 3 and jsonio.depth(5) == 0


def test_the_engine_process_answers_after_bad_lines() -> None:
    lines = b"\n".join([b"[" * 300 + b"]" * 300, b"{not json", b'{"type": "hello", "id": 7}']) + b"\n"
    proc = subprocess.run(
        [sys.executable, "-c", "from casino_coach.cli import main; main()", "engine"],
        input=lines,
        capture_output=True,
        timeout=60,
        check=False,
    )
    answers = [orjson.loads(x) for x in proc.stdout.splitlines()]
    assert [a["type"] for a in answers][:2] == ["error", "error"] and answers[2]["id"] == 7


FAST_ARGS = ["--samples", "4", "--depth", "2", "--no-world"]
SMALL_LOG = Path(__file__).parents[1] / "replays" / "classic-4p-progress.json"


def test_a_bad_cluster_address_leaves_no_store(tmp_path: Path) -> None:
    # item 6: ValueError 'missing port number', and the store file created anyway
    store = tmp_path / "r.db"
    err = one_error_line(
        cli("analyze-all", str(SMALL_LOG), "--store", str(store), "--cluster", "not-an-address")
    )
    assert "--cluster" in err and not store.exists()


def test_nothing_stored_leaves_no_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # item 14: an empty folder, or a bad file behind a glob, left a store behind
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    assert cli("analyze", "empty").exit_code == 1
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.json").write_text("{not json")
    assert cli("analyze", "bad/*.json", *FAST_ARGS).exit_code == 1
    assert not list(tmp_path.glob("*.db*"))


def test_a_file_named_like_a_glob_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # item 14: 'game [1].json' was taken as a glob pattern and analysed into a store
    monkeypatch.chdir(tmp_path)
    Path("game [1].json").write_bytes(SMALL_LOG.read_bytes())
    result = cli("analyze", "game [1].json", *FAST_ARGS)
    assert result.exit_code == 0, result.output
    assert "Ana" in result.stdout and not list(tmp_path.glob("*.db*"))


def test_a_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    # item 7: another program's database with a 'games' table
    import sqlite3

    store = tmp_path / "other.db"
    with sqlite3.connect(store) as db:
        db.execute("CREATE TABLE games (id INTEGER, title TEXT)")
    before = store.read_bytes()
    for args in (["stats", "--store", str(store)], ["analyze-all", str(SMALL_LOG), "--store", str(store)]):
        err = one_error_line(cli(*args))
        assert "not a results store" in err
    assert store.read_bytes() == before


def test_a_damaged_record_is_one_line(tmp_path: Path) -> None:
    # item 7: a text where a count belongs crashed stats with a TypeError
    import sqlite3

    store = tmp_path / "r.db"
    assert cli("analyze-all", str(SMALL_LOG), "--store", str(store), *FAST_ARGS).exit_code == 0
    with sqlite3.connect(store) as db:
        db.execute("UPDATE players SET loss_total = 'lots', decisions = 'many'")
    err = one_error_line(cli("stats", "--store", str(store)))
    assert str(store) in err


def test_export_writes_through_a_symlink_and_refuses_special_files(tmp_path: Path) -> None:
    # item 13: the temporary file was renamed over devices, FIFOs, symlinks and folders
    import os

    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    result = cli("export", str(SMALL_LOG), "--format", "md", "--out", str(link), *FAST_ARGS)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and real.read_text().startswith("#")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    for target in (fifo, folder, Path("/dev/null")):
        err = one_error_line(cli("export", str(SMALL_LOG), "--out", str(target), *FAST_ARGS))
        assert str(target) in err and "cannot write" in err
    assert Path("/dev/null").is_char_device() and fifo.is_fifo() and not list(folder.iterdir())
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


HOSTILE = ["\x1b]0;PWNED\x07Ana", "\x1b[2J<script>alert(1)</script>*Ben*"]


def test_names_with_escape_sequences_never_reach_the_output_raw(
    tmp_path: Path, log_obj: dict[str, Any]
) -> None:
    # item 16: names with terminal escape sequences were printed raw, and written raw into Markdown
    obj = {**log_obj, "players": [*HOSTILE, "Cy", "Di"]}
    path = _write(tmp_path, obj)
    for args in (["validate", str(path)], ["replay", str(path)], ["analyze", str(path), *FAST_ARGS]):
        result = cli(*args)
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output and "\x07" not in result.output, args
        assert "PWNED" in result.output or args[0] == "validate"
    md = tmp_path / "r.md"
    assert cli("export", str(path), "--format", "md", "--out", str(md), *FAST_ARGS).exit_code == 0
    text = md.read_text()
    assert "\x1b" not in text and "<script>" not in text and "\\<script\\>" in text
    assert orjson.loads(path.read_bytes())["players"][:2] == HOSTILE  # the log itself is unchanged


@pytest.mark.parametrize("command", ["analyze", "export"])
def test_ctrl_c_is_one_line(tmp_path: Path, command: str) -> None:
    # item 8: SIGINT to the process group printed 49-110 lines of worker tracebacks, and the tool's
    # own line never showed (Typer ended the command silently with status 130)
    import os
    import signal
    import time

    log = Path(__file__).parents[1] / "replays" / "classic-2p-full.json"
    args = [command, str(log), "--jobs", "2"] + (
        ["--out", str(tmp_path / "r.html")] if command == "export" else []
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", "from casino_coach.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    time.sleep(4)  # long enough for the workers to be busy, far from the end of the analysis
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.decode() == "error: interrupted\n"
    assert not (tmp_path / "r.html").exists()
