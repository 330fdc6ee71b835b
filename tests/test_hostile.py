"""Hostile input (issue 11): each case of the outside fuzzer that crashed, as a test. Every bad input
ends in one line on stderr and exit status 1 (2 for a usage error), never a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import LONG_ANALYSIS, one_error_line, sigint_as_a_terminal_gives
from typer.testing import CliRunner

from casino_coach.cli import app
from casino_coach.engine.notation import parse_move
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import LogError, NotationError, shown
from casino_coach.formats import jsonio
from casino_coach.formats.log import read_log
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
    if command in ("analyze", "suggest", "export"):  # what is read matters here, not the search's depth
        out += ["--samples", "16", "--depth", "2"]
    result = cli(command, str(path), *out)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if result.exit_code:
        one_error_line(result)


def test_count_out_order_with_a_number_is_one_line() -> None:
    # item 2
    err = one_error_line(cli("rules", "royal", "-r", 'count_out_order=[1,"cards"]'))
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


def test_an_output_over_the_log_read_is_refused_before_the_work(tmp_path: Path) -> None:
    # Regression: 'export g.json --out g.json' and 'tree g.json --out g.json' replaced the log with
    # their output, and the README says the logs are never changed.
    log = tmp_path / "g.json"
    log.write_bytes(SMALL_LOG.read_bytes())
    link = tmp_path / "link.json"
    link.symlink_to(log)
    for args in (
        ("export", str(log), "--out", str(log), "--format", "json", *FAST_ARGS),
        ("export", str(log), "--out", str(link), "--format", "json", *FAST_ARGS),
        ("tree", str(log), "--at", "1", "--out", str(log), "--format", "json", "--samples", "4"),
    ):
        err = one_error_line(cli(*args))
        assert "that is the file being read" in err, err
    assert log.read_bytes() == SMALL_LOG.read_bytes()


def test_an_output_folder_that_takes_no_file_is_named_before_the_work(tmp_path: Path) -> None:
    # Regression: 'export --out /sys/x.md' failed after the whole analysis, naming its temporary file
    # ("/sys/.x.md.b25lfzwd: Permission denied").
    for target in ("/sys/x.md", "/proc/x.md"):
        err = one_error_line(cli("export", str(SMALL_LOG), "--out", target, *FAST_ARGS))
        assert err.startswith(f"error: {target}: cannot write the output there: "), err


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
    page = tmp_path / "r.html"
    assert cli("export", str(path), "--out", str(page), *FAST_ARGS).exit_code == 0
    html = page.read_text()
    assert "\x1b" not in html and "<script>alert" not in html and html.count("</script>") == 2
    assert orjson.loads(path.read_bytes())["players"][:2] == HOSTILE  # the log itself is unchanged


def _processes_in_group(group: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended while the folder was read
        if int(fields[2]) == group:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.parametrize("command", ["analyze", "export"])
def test_ctrl_c_is_one_line(tmp_path: Path, command: str) -> None:
    # item 8: SIGINT to the process group printed 49-110 lines of worker tracebacks, and the tool's
    # own line never showed (Typer ended the command silently with status 130)
    import os
    import signal
    import time

    args = [command, *LONG_ANALYSIS] + (["--out", str(tmp_path / "r.html")] if command == "export" else [])
    proc = subprocess.Popen(
        [sys.executable, "-c", "from casino_coach.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=sigint_as_a_terminal_gives,
    )
    deadline = time.monotonic() + 60
    while len(_processes_in_group(proc.pid)) < 3 and time.monotonic() < deadline:  # workers started
        time.sleep(0.1)
    time.sleep(1)  # the workers are busy, far from the end of the analysis
    assert proc.poll() is None, "the analysis ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.decode() == "error: interrupted\n"
    assert not (tmp_path / "r.html").exists()


def _is_helper(pid: int) -> bool:
    """Whether a process is multiprocessing's fork server or resource tracker, not a worker."""
    try:
        cmdline = (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False
    return b"forkserver" in cmdline or b"resource_tracker" in cmdline


def _parent_of(pid: int) -> int:
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def test_a_worker_killed_mid_analysis_is_one_line_not_a_hang(tmp_path: Path) -> None:
    # A worker that died in the middle of a task (killed, out of memory) left multiprocessing.Pool
    # waiting for the lost task forever.
    import os
    import signal
    import time

    command = ["analyze", *LONG_ANALYSIS]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from casino_coach.cli import main; main()", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while not workers and time.monotonic() < deadline:
        group = _processes_in_group(proc.pid)
        # the workers are forked from the command (a parent of one thread) or from a fork server, a
        # child of the command; neither the server nor the resource tracker is a worker
        helpers = {p for p in group if _parent_of(p) == proc.pid and _is_helper(p)}
        workers = [
            p for p in group if p != proc.pid and p not in helpers and _parent_of(p) in {proc.pid, *helpers}
        ]
        time.sleep(0.1)
    assert workers, "no worker process started"
    time.sleep(1)
    os.kill(workers[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    lines = err.decode().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, lines
    assert "worker process ended in the middle of its work" in lines[0]


def test_a_card_both_held_and_seen_is_a_contradiction(tmp_path: Path) -> None:
    # item 15: a card in the hand and in 'seen' passed validate, and suggest ran on it
    err = one_error_line(cli("suggest", "--hand", "8S", "--table", "AC", "--seen", "8S"))
    assert "seen" in err and "8S" in err
    position = dict(orjson.loads((SMALL_LOG.parent / "royal-2p-position.json").read_bytes()))
    position["seen"] = [*position.get("seen", []), position["hand"][0]]
    err = one_error_line(cli("validate", str(_write(tmp_path, position))))
    assert "seen" in err and position["hand"][0] in err


@pytest.mark.parametrize("command", ["analyze", "suggest", "export", "tree", "validate", "replay", "moves"])
def test_an_illegal_move_in_a_log_names_the_file(
    tmp_path: Path, log_obj: dict[str, Any], command: str
) -> None:
    # item 18: errors met while re-playing a log omitted the file name in analyze, export, suggest, tree
    obj = orjson.loads(orjson.dumps(log_obj))
    move = obj["rounds"][0]["deals"][0]["moves"][0]
    move["action"], move["take"] = "capture", ["KS"]  # K♠ is not on the table
    path = _write(tmp_path, obj)
    out = {"export": ["--out", str(tmp_path / "r.html")], "tree": ["--out", str(tmp_path / "t.graphml")]}
    err = one_error_line(cli(command, str(path), *out.get(command, [])))
    assert err.startswith(f"error: {path}: round 1, deal 1, move 1") and "illegal move" in err


def _split_by_brute_force(values: list[int], value: int) -> bool:
    if not values:
        return True
    first, rest = values[0], values[1:]
    need = value - first
    if need < 0:
        return False
    if need == 0:
        return _split_by_brute_force(rest, value)
    for bits in range(1, 1 << len(rest)):
        chosen = [v for i, v in enumerate(rest) if bits >> i & 1]
        left = [v for i, v in enumerate(rest) if not bits >> i & 1]
        if sum(chosen) == need and _split_by_brute_force(left, value):
            return True
    return False


def test_build_splits_match_brute_force_and_big_builds_are_quick() -> None:
    # item 9: a big build that cannot be split took 100 s and more (every subset was tried)
    import random

    from casino_coach.engine.movegen import split_ok

    pv = RuleSet.from_preset("royal").pair_value
    rng = random.Random(5)
    for _ in range(1500):
        cards = rng.sample(range(52), rng.randint(1, 9))
        value = rng.randint(1, 14)
        mask = sum(1 << c for c in cards)
        assert split_ok(mask, value, pv) == _split_by_brute_force([pv[c] for c in cards], value)
    # 21 cards worth 224 = 16 x 14 that cannot be made into sets of 14 (a king needs an ace, and
    # there is none): answered at once
    cards = [c for c in range(52) if pv[c] >= 9] + [next(c for c in range(52) if pv[c] == 4)]
    assert len(cards) == 21 and sum(pv[c] for c in cards) == 16 * 14
    assert not split_ok(sum(1 << c for c in cards), 14, pv)


def test_a_table_too_big_to_search_is_refused_at_once() -> None:
    # item 10: 39 loose cards (every club, diamond and heart) searched for over 120 s
    table = " ".join(f"{r}{s}" for s in "CDH" for r in "A23456789TJQK")
    args = [
        "suggest",
        "--hand",
        "KS",
        "--table",
        table,
        "--stock",
        "8",
        "--hand-sizes",
        "1,1",
        "--samples",
        "4",
    ]
    err = one_error_line(cli(*args))
    assert "39 loose cards" in err and "at most 12" in err


def test_a_huge_name_is_cut_on_the_terminal(tmp_path: Path, log_obj: dict[str, Any]) -> None:
    # item 11: replay of a log with 100,000-character names took over 300 s to lay out
    path = _write(tmp_path, {**log_obj, "players": ["A" * 100_000, "Ben", "Cy", "Di"]})
    result = cli("replay", str(path))
    assert result.exit_code == 0
    assert "A" * 39 + "…" in result.stdout and "A" * 41 not in result.stdout


def test_export_takes_its_format_from_the_file_name(tmp_path: Path) -> None:
    # issue 10: 'export --out y.md' wrote HTML into y.md
    for name, start in (("r.md", "# Game analysis"), ("r.json", "{"), ("r.html", "<!DOCTYPE html>")):
        assert cli("export", str(SMALL_LOG), "--out", str(tmp_path / name), *FAST_ARGS).exit_code == 0
        assert (tmp_path / name).read_text().startswith(start)
    err = one_error_line(cli("export", str(SMALL_LOG), "--out", str(tmp_path / "r.txt"), *FAST_ARGS))
    assert "--format" in err and not (tmp_path / "r.txt").exists()


def test_a_game_claimed_by_another_run_is_left_to_it(tmp_path: Path) -> None:
    # item 17: two analyze-all on one store both did all the work
    import socket

    from casino_coach.services.batch import BatchSettings, prepare, run_batch
    from casino_coach.services.store import Store

    settings = BatchSettings(samples=2, depth=1, world=False)
    job = prepare(SMALL_LOG)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    with Store(tmp_path / "r.db") as st:
        # a live run (pid 1 is always there) holds the game: this run leaves it
        assert st.claim([job.hash], settings.key(), f"{socket.gethostname()}:1") == {job.hash}
        report = run_batch([SMALL_LOG], st, settings)
        assert report.analysed == [] and report.busy == [str(SMALL_LOG)] and st.count() == 0
        # a run that died (kill -9) holds it: its claim is taken over, and the game analysed
        st.release(f"{socket.gethostname()}:1")
        st.claim([job.hash], settings.key(), f"{socket.gethostname()}:{dead.stdout.strip()}")
        report = run_batch([SMALL_LOG], st, settings)
        assert report.analysed == [str(SMALL_LOG)] and st.count() == 1
        assert st.claim([job.hash], settings.key(), "other:2") == {job.hash}  # released when done


def test_the_engine_refuses_to_search_a_position_too_big_and_goes_on() -> None:
    # item 10, through the engine: a made-up table of 37 loose cards would block it. The position is
    # taken (a real game can reach such a table too); searching it is refused, as analyze refuses it
    position = dict(orjson.loads((SMALL_LOG.parent / "royal-2p-position.json").read_bytes()))
    held = set(position["hand"])
    every = [f"{r}{s}" for s in "CDH" for r in "A23456789TJQK"]
    position["table"] = {"loose": [c for c in every if c not in held]}
    position.pop("captured", None)
    position.update(seen=[], stock=0, hand_sizes=[len(held), 2])
    s = EngineSession()
    answer = s.handle(orjson.dumps({"type": "position", "id": 1, "position": position}))
    assert answer is not None and answer["type"] == "state"
    for kind in ("go", "analyze"):
        answer = s.handle(orjson.dumps({"type": kind, "id": 2, "samples": 4}))
        assert answer is not None and answer["type"] == "error"
        assert answer["error"] == f"{kind}: 37 loose cards on the table: the search handles at most 12"
    assert s.handle(b'{"type": "hello", "id": 3}')["type"] != "error"  # type: ignore[index]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_file_that_never_ends_is_refused_at_the_size_limit() -> None:
    # every reader read a file whole: /dev/zero (or a huge file) filled the memory
    for command in ("validate", "suggest", "analyze"):
        err = one_error_line(cli(command, "/dev/zero"))
        assert err == "error: /dev/zero: longer than 32 MB: not a casino_coach document"


def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    # item 18: "error: a" and "c.json: ..." came on two lines
    bad = tmp_path / "a\nc.json"
    bad.write_text('{"format": "casino-replay"}')
    err = one_error_line(cli("validate", str(bad)))
    assert err.startswith("error: ") and "a\\nc.json: version" in err
    good = tmp_path / "a\nb.json"
    good.write_bytes(SMALL_LOG.read_bytes())
    result = cli("validate", str(good))
    assert result.exit_code == 0 and len(result.stdout.strip().splitlines()) == 1


def test_a_binary_file_says_it_is_not_text(tmp_path: Path) -> None:
    # Regression: "bad JSON at line 1, column 1: str is not valid UTF-8: surrogates not allowed".
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    err = one_error_line(cli("validate", str(path)))
    what = "not UTF-8 text (a binary file, or another encoding?)"
    assert err == f"error: {path}: bad JSON at line 1, column 1: {what}"


@pytest.mark.parametrize("text", ["x" * 3000, "8C x " + "Q" * 3000, "8C b9 " + "3H " * 1000, "8C x"])
def test_a_move_in_notation_is_quoted_short_in_its_error(text: str) -> None:
    # The engine's and suggest's typed moves: a 3,000-character move was echoed whole (the fuzz test
    # found it); the notation quotes what it cannot read as every other message does (``quoted``).
    with pytest.raises(NotationError) as e:
        parse_move(text)
    assert len(str(e.value)) < 300 and "\n" not in str(e.value)


# --- issue 43, the second campaign ---------------------------------------------------------------


def _store_files(path: Path) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(path.parent.glob(path.name + "*"))]


def test_a_foreign_file_with_a_meta_table_is_refused_byte_identical(tmp_path: Path) -> None:
    # class 4: "not a results store", said after 5 tables, 2 indexes and WAL mode were added to it
    import sqlite3
    from contextlib import closing

    store = tmp_path / "other.db"
    with closing(sqlite3.connect(store)) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('schema', '1')")  # even a schema row: no games table
        db.execute("CREATE TABLE notes (text TEXT)")
        db.commit()
    before = _store_files(store)
    for args in (["stats", "--store", str(store)], ["analyze-all", str(SMALL_LOG), "--store", str(store)]):
        err = one_error_line(cli(*args))
        assert err == f"error: {store}: not a results store (an SQLite file of another program)"
        assert _store_files(store) == before


def _damaged_store(tmp_path: Path, where: str) -> Path:
    store = tmp_path / "r.db"
    assert cli("analyze-all", str(SMALL_LOG), "--store", str(store), *FAST_ARGS).exit_code == 0
    data = store.read_bytes()
    if where == "schema":  # a flipped byte in the schema's text
        at = data.index(b"CREATE TABLE games") + 3
        data = data[:at] + bytes([data[at] ^ 0xC0 | 0x80]) + data[at + 1 :]
    else:  # every page but the first (the schema) zeroed
        data = data[:4096] + bytes(len(data) - 4096)
    store.write_bytes(data)
    return store


@pytest.mark.parametrize("where", ["schema", "page"])
def test_a_damaged_store_is_one_line(tmp_path: Path, where: str) -> None:
    # class 5: a traceback (UnicodeDecodeError in Store.__init__; DatabaseError from Store.release in
    # run_batch's finally)
    store = _damaged_store(tmp_path, where)
    other = tmp_path / "other.json"
    obj = orjson.loads(SMALL_LOG.read_bytes())
    other.write_bytes(orjson.dumps({**obj, "players": ["Zed", *obj["players"][1:]]}))
    for args in (
        ["stats", "--store", str(store)],
        ["stats", "--store", str(store), "--player", "Ana"],
        ["analyze-all", str(other), "--store", str(store), *FAST_ARGS],
    ):
        err = one_error_line(cli(*args))
        assert err.startswith(f"error: {store}: ") and ("damaged" in err or "malformed" in err), err


def test_a_full_disk_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # class 10: "not a results store (cannot rollback - no transaction is active)" hid the full disk
    import sqlite3

    store = tmp_path / "r.db"
    assert cli("analyze-all", str(SMALL_LOG), "--store", str(store), *FAST_ARGS).exit_code == 0
    connect = sqlite3.connect

    def full(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)  # the file may not grow by a page: the disk is full
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        return db

    monkeypatch.setattr(sqlite3, "connect", full)
    other = tmp_path / "other.json"
    obj = orjson.loads(SMALL_LOG.read_bytes())
    other.write_bytes(orjson.dumps({**obj, "players": ["Zed", *obj["players"][1:]]}))
    err = one_error_line(cli("analyze-all", str(other), "--store", str(store), *FAST_ARGS))
    assert err == (
        f"error: {store}: cannot write to the results store: database or disk is full "
        "(what it held before is intact)"
    )
    monkeypatch.undo()
    result = cli("stats", "--store", str(store), "--json")
    assert result.exit_code == 0 and len(orjson.loads(result.stdout)["players"]) == 4


BIG = 2**63 - 1


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "--json"],
        ["analyze", "--json", *FAST_ARGS],
        ["export", "-f", "json", "--out", "OUT/r.json", *FAST_ARGS],
        ["export", "-f", "html", "--out", "OUT/r.html", *FAST_ARGS],
    ],
)
@pytest.mark.parametrize("weight", [10**7, 10**8, BIG])
def test_a_weight_past_its_bound_is_one_line(
    tmp_path: Path, log_obj: dict[str, Any], args: list[str], weight: int
) -> None:
    # classes 6 and 7: points_cards = 2^63-1 was read, and orjson failed on "Integer exceeds 64-bit
    # range"; 10^7 and 10^8 made the review page's chart 16 MB in 33 s, or 1 GB and killed
    obj = {**log_obj, "rules": {**log_obj["rules"], "points_cards": weight}}
    path = _write(tmp_path, orjson.dumps(obj))
    argv = [args[0], str(path), *(a.replace("OUT", str(tmp_path)) for a in args[1:])]
    err = one_error_line(cli(*argv))
    assert err == (
        f"error: {path}: rules: rule option 'points_cards' must be at most 100 (rules.md §2.6), got {weight}"
    )
    assert not list(tmp_path.glob("r.*"))


def test_selfplay_to_a_target_past_its_bound_is_one_line(tmp_path: Path) -> None:
    # class 8: selfplay -r target=1000000000 played for ever, its memory growing
    out = tmp_path / "games"
    err = one_error_line(cli("selfplay", "-r", "target=1000000000", "--out", str(out)))
    assert err == "error: rule option 'target' must be at most 1,000 (rules.md §2.6), got 1000000000"
    assert not out.exists()
    err = one_error_line(cli("selfplay", "--seed", str(BIG), "--out", str(out)), status=2)
    assert "--seed" in err and str(BIG) in err and not out.exists()
    result = cli("selfplay", "-r", "target=1000", "--out", str(out))  # the largest target ends
    assert result.exit_code == 0 and "won by" in result.stdout


# Names, file names and lines of text from the input that reach the terminal (issue 43, classes 1-3):
# escape sequences (CSI, OSC), bidi overrides and isolates, a newline, and a name of 200,000
# characters. No output may hold one raw, nor more than a name's width of the long name.
LONG = "Cy" + "C" * 200_000
NASTY = ["\x1b]0;PWNED\x07Ana\u202e", "\x1b[31mBen\x1b[0m\nZed", LONG, "\u2066Di\u2069\u200f"]
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _shown_safely(result: Any) -> None:
    out = result.stdout + result.stderr
    assert "Traceback" not in out, out[-2000:]
    raw = RAW.search(out)
    assert raw is None, f"raw {raw.group()!r} in: {out[max(0, raw.start() - 80) : raw.end() + 80]!r}"
    assert "C" * 41 not in out, "the long name shown uncut"


@pytest.fixture
def nasty_log(tmp_path: Path, log_obj: dict[str, Any]) -> Path:
    path = tmp_path / "\x1b[2Jgame\n\u202eevil.json"  # a file name of the same kind
    text = {"event": "\x1b]0;x\x07Cup\u202e" + LONG, "created_by": "\x1b[2Jbot", "date": "\x1b[31m2026"}
    path.write_bytes(orjson.dumps({**log_obj, "players": NASTY, **text}))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["validate"],
        ["replay"],
        ["moves", "--at", "3"],
        ["analyze", *FAST_ARGS],
        ["suggest", "--at", "6", "--samples", "8"],
        ["suggest", "--at", "0", "--samples", "8"],
        ["suggest", "--at", "3", "--samples", "8"],
        ["tree", "--at", "3", "--samples", "4", "--out", "OUT/t.graphml"],
    ],
)
def test_names_and_file_names_from_a_log_reach_no_terminal_raw(
    nasty_log: Path, tmp_path: Path, args: list[str]
) -> None:
    # class 2: suggest's explanation lines printed the names raw and uncut (other commands escaped them)
    result = cli(args[0], str(nasty_log), *(a.replace("OUT", str(tmp_path)) for a in args[1:]))
    assert result.exit_code == 0, result.output[-2000:]
    _shown_safely(result)


def test_names_and_file_names_reach_no_terminal_raw_in_analyze_all_and_stats(
    nasty_log: Path, tmp_path: Path
) -> None:
    # class 1: analyze-all and stats printed file names and --store names raw (an escape sequence
    # reached the terminal, a newline split the error line), and stats --by game the stored names
    store = tmp_path / "\x1b]0;x\x07r\nesults\u202e.db"
    bad = tmp_path / "\x1b[2Jbroken\n.json"
    bad.write_text("{not json")
    result = cli("analyze-all", str(nasty_log), str(bad), "--store", str(store), *FAST_ARGS)
    assert result.exit_code == 1
    _shown_safely(result)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    for args in (
        [],
        ["--player", NASTY[0]],
        ["--player", LONG, "--by", "game"],
        ["--player", "Di\u2069", "--by", "game"],
        ["--player", "nobody"],
    ):
        result = cli("stats", "--store", str(store), *args)
        _shown_safely(result)
        assert result.exit_code in (0, 1)
    err = one_error_line(cli("stats", "--store", str(tmp_path / "\x1b[2Jnone\n.db")))
    assert "\x1b" not in err


def test_names_and_typed_lines_reach_no_terminal_raw_in_play(tmp_path: Path) -> None:
    # class 3: play showed a --name, the names of a --resume'd log and the lines of --moves raw, in
    # the header, the score panel and the echo
    out = tmp_path / "\x1b[2Jg\n.json"
    moves = tmp_path / "moves.txt"
    moves.write_text("\x1b[31m8C x 3H\u202e\n" + "1\n" * 6 + "\x1b]0;PWNED\x07\nquit\n", encoding="utf-8")
    result = cli("play", "--seed", "3", "--name", NASTY[0] + LONG, "--out", str(out), "--moves", str(moves))
    assert result.exit_code == 0, result.output[-2000:]
    _shown_safely(result)
    assert orjson.loads(out.read_bytes())["players"][0] == NASTY[0] + LONG  # the log keeps it
    obj = orjson.loads(out.read_bytes())
    out.write_bytes(orjson.dumps({**obj, "players": [obj["players"][0], NASTY[1]]}))
    moves.write_text("1\n" * 8 + "quit\n", encoding="utf-8")
    result = cli("play", "--resume", str(out), "--moves", str(moves))
    assert result.exit_code == 0, result.output[-2000:]
    _shown_safely(result)
