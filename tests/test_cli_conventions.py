"""Click and Typer conventions (issue 10): -h, a bare command, usage errors with status 2."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import one_error_line, one_usage_line
from typer.testing import CliRunner

from casino_coach.cli import app, main


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out = capsys.readouterr()
    code = exit_info.value.code
    return int(code) if isinstance(code, int) else 0, out.out, out.err


def test_a_bare_command_and_h_print_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    for args in ([], ["-h"], ["--help"]):
        code, out, err = _run(args, capsys)
        assert code == 0 and out.startswith("Usage: casino-coach") and err == ""
    code, out, _ = _run(["analyze", "-h"], capsys)
    assert code == 0 and "Usage: casino-coach analyze" in out


def test_a_usage_error_is_one_line_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["analyze", "--nope", "x.json"], capsys)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("error: casino-coach analyze: No such option: --nope")
    assert line.endswith("(see 'casino-coach analyze --help')")


def test_rules_shows_values_as_they_are_typed(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 10: the options were shown as Python reprs (True, ('cards', 'spades', ...))
    code, out, _ = _run(["rules", "royal", "-r", "sweeps=false"], capsys)
    assert code == 0 and "false" in out and "true" in out and "cards, spades" in " ".join(out.split())
    assert "True" not in out and "False" not in out and "('" not in out


# A citation of the rules in a message: "(rules.md 1.6.1)", "(rules.md 1.7: table_only_builds)".
_CITATION = re.compile(r"rules\.md §?(\d+(?:\.\d+)*)")


def test_every_section_the_messages_cite_is_shipped_and_shown(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 42: the messages cite "(rules.md 1.6.1)", and an installed package shipped no rules.md.
    # It ships it now (the repository's docs/rules.md), and `rules --section` prints what is cited.
    root = Path(__file__).resolve().parents[1]
    shipped = root / "casino_coach" / "rules.md"
    assert shipped.read_bytes() == (root / "docs" / "rules.md").read_bytes()
    cited = set(
        _CITATION.findall((root / "casino_coach" / "engine" / "reasons.py").read_text(encoding="utf-8"))
    )
    assert {"1.6.1", "1.7.3", "1.8.2"} <= cited
    for number in sorted(cited):
        code, out, err = _run(["rules", "--section", number], capsys)
        assert code == 0 and out.strip(), (number, err)
        heading, *body = out.strip().splitlines()
        shown = heading.lstrip("#").split()[0].rstrip(".")
        # A numbered item of a section ("1.8.2": item 2 of 1.8) shows its section.
        assert shown in (number, number.rpartition(".")[0]) and body, number
    code, out, _ = _run(["rules", "--section", "1.6.1"], capsys)
    assert "#### 1.6.2" not in out and "General rule" in out
    code, out, _ = _run(["rules", "--section", "1.6"], capsys)
    assert "#### 1.6.4" in out and "### 1.7" not in out


def test_an_unknown_rules_section_is_a_usage_error() -> None:
    line = one_usage_line(runner.invoke(app, ["rules", "--section", "9.9"]))
    assert "'9.9'" in line and "no such section" in line


def _commands() -> list[str]:
    import typer.main

    from casino_coach.cli import app

    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return sorted(group.commands)


# Typer's own placeholders (issue 10): "{LOG}...", "LOG <list[Path]>", "<int>", "<int range>", "<path>".
_TYPER_PLACEHOLDER = re.compile(r"\{[A-Za-z_]+\}|<(?:list\[|int|float|str|path|bool|text)[^>]*>|range>")


@pytest.mark.parametrize("command", _commands())
def test_help_shows_click_placeholders(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run([command, "--help"], capsys)
    assert code == 0
    usage = out.splitlines()[0]
    assert usage.startswith(f"Usage: casino-coach {command}") and "{" not in usage, usage
    assert not _TYPER_PLACEHOLDER.findall(out), _TYPER_PLACEHOLDER.findall(out)


def test_arguments_read_as_in_click(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(["analyze", "--help"], capsys)
    assert out.startswith("Usage: casino-coach analyze [OPTIONS] LOG...")
    _, out, _ = _run(["analyze-all", "--help"], capsys)
    assert "[OPTIONS] INPUT..." in out.splitlines()[0]
    _, out, _ = _run(["suggest", "--help"], capsys)
    assert "[OPTIONS] [FILE]" in out.splitlines()[0] and "--at N " in out
    code, _, err = _run(["validate"], capsys)
    assert code == 2
    code, _, err = _run(["export", "--out", "x.html"], capsys)
    assert code == 2 and err == "error: give a LOG or --from ANALYSIS\n"  # a log, or a saved analysis


def test_each_short_flag_has_one_meaning() -> None:
    # issue 10: -o was --out in export and tree, --option in play, suggest, selfplay and rules.
    import typer.main

    from casino_coach.cli import app

    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    meaning: dict[str, set[str]] = {}
    for command in group.commands.values():
        for param in command.params:
            opts = [o for o in getattr(param, "opts", []) if o.startswith("-")]
            longs = [o for o in opts if o.startswith("--")]
            for short in (o for o in opts if not o.startswith("--")):
                meaning.setdefault(short, set()).update(longs)
    assert {k: v for k, v in meaning.items() if len(v) != 1} == {}
    assert meaning["-o"] == {"--out"} and meaning["-r"] == {"--option"}


def test_one_jobs_default_said_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    import typer.main

    from casino_coach.cli import app
    from casino_coach.cli.options import DEFAULT_JOBS

    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    jobs = {
        name: next(p for p in cmd.params if p.name == "jobs")
        for name, cmd in group.commands.items()
        if any(p.name == "jobs" for p in cmd.params)
    }
    assert set(jobs) == {"analyze", "export", "analyze-all", "drill"}
    assert {p.default for p in jobs.values()} == {DEFAULT_JOBS}
    for name in jobs:
        _, out, _ = _run([name, "--help"], capsys)
        assert "Default: the number of CPUs, at most 8." in " ".join(out.split())


ROOT = Path(__file__).resolve().parents[1]
SHORT_LOG = ROOT / "replays" / "classic-2p-progress.json"  # stops mid-deal: suggest and tree start there
FAST = ["--samples", "2", "--depth", "1"]
CLI = [sys.executable, "-c", "from casino_coach.cli import main; main()"]
runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})


def test_out_into_a_missing_folder_is_one_error(tmp_path: Path) -> None:
    # issue 10: '--out' into a missing folder silently made it (a mistyped folder swallowed the file)
    missing = tmp_path / "no-such-folder"
    for args in (
        ["export", str(SHORT_LOG), "--out", str(missing / "r.html"), *FAST],
        ["tree", str(SHORT_LOG), "--out", str(missing / "t.graphml"), "--samples", "2"],
        ["selfplay", "--out", str(missing / "games")],
    ):
        err = one_error_line(cli(*args))
        assert f"the folder {missing} does not exist" in err, err
    assert not missing.exists()
    # selfplay's --out is a folder of logs: it is made when only it is missing
    result = cli("selfplay", "--out", str(tmp_path / "games"))
    assert result.exit_code == 0 and len(list((tmp_path / "games").glob("*.json"))) == 1
    # a store's folder too
    err = one_error_line(cli("analyze-all", str(SHORT_LOG), "--store", str(missing / "r.db"), *FAST))
    assert f"the folder {missing} does not exist" in err


def test_tree_writes_to_standard_output(tmp_path: Path) -> None:
    # issue 10: tree could not write to stdout
    result = cli("tree", str(SHORT_LOG), "--samples", "2")
    assert result.exit_code == 0 and result.stdout.startswith("digraph search {"), result.output
    assert "wrote the tree (dot)" in result.stderr
    result = cli("tree", str(SHORT_LOG), "--samples", "2", "-o", "-", "-f", "json")
    assert result.exit_code == 0 and orjson.loads(result.stdout)["nodes"]
    result = cli("tree", str(SHORT_LOG), "--samples", "2", "-o", str(tmp_path / "t.txt"), "-f", "graphml")
    assert result.exit_code == 0 and (tmp_path / "t.txt").read_text().startswith("<graphml")


def test_by_and_top_without_player_are_usage_errors(tmp_path: Path) -> None:
    # issue 10: 'stats --by game' without --player was silently ignored
    from casino_coach.cli.batch import Period
    from casino_coach.services.store import PERIODS, Store

    assert tuple(Period) == PERIODS
    Store(tmp_path / "r.db").close()
    for flag, value in (("--by", "game"), ("--top", "3")):
        proc = subprocess.run(
            [*CLI, "stats", "--store", str(tmp_path / "r.db"), flag, value],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2 and proc.stdout == "", proc
        (line,) = proc.stderr.splitlines()
        assert f"{flag}: it " in line and "give --player NAME too" in line


# Values every kind of option is given below: plain ones (taken by cli.coercion without Pydantic) and
# ones only Typer's adapter reads or refuses (its value or its error message must come out).
_VALUES = [
    *("0", "1", "5", "-3", "007", "-0", "64", "65", "100000", "100001", "9223372036854775807"),
    *("9223372036854775808", "9" * 30, "+5", " 5", "5 ", "5.0", "1_000", "0.25", ".5", "5.", "-0.0"),
    *("1e3", "inf", "nan", "0x10", "x", "", "-", "a b", "café.json", "x\udcff.json", "~/games"),
    *("html", "HTML", "md", "json", "dot", "graphml", "month", "game", "nope"),
]


def _outcome(runtime: Any, param: Any, ctx: Any, value: Any) -> tuple[str, str]:
    import typer

    try:
        out = runtime.coerce(value, param=param, ctx=ctx)
    except typer.BadParameter as e:
        return "error", e.format_message()
    return type(out).__name__, repr(out)  # (a repr: nan is not nan's equal)


def test_options_take_the_values_typers_adapter_gives() -> None:
    """cli.coercion takes plain values without importing Pydantic: for every option and argument
    of every command, on defaults and many typed values, the value or the error is Typer's own."""
    import typer.main
    from typer._click import Context
    from typer._coercion import build_runtime_param

    from casino_coach.cli.coercion import QUICK

    assert QUICK, "Typer's coercion layer moved: cli.coercion coerces nothing now (slower start-up)"
    group = typer.main.get_command(app)
    checked = 0
    for command in [group, *group.commands.values()]:  # type: ignore[attr-defined]
        ctx = Context(command, info_name=command.name)
        for param in command.params:
            quick, own = param.get_runtime_param(), build_runtime_param(param.type_descriptor)
            assert type(quick).__name__ == "_Quick", (command.name, param.name)
            multi = param.multiple or param.nargs == -1
            values = [(v,) if multi else v for v in _VALUES] + [param.default]
            values += [("5", v) for v in _VALUES] if multi else []
            for value in values:
                assert _outcome(quick, param, ctx, value) == _outcome(own, param, ctx, value), (
                    command.name,
                    param.name,
                    value,
                )
                checked += 1
    assert checked > 5000


def test_the_command_line_starts_without_the_library() -> None:
    """Start-up: the command line imports a command's modules when it runs, and coerces its options
    without Pydantic; the help and --version import none of the analysis, search, Rich or workers."""
    heavy = ["pydantic", "rich", "multiprocessing", "casino_coach.search", "casino_coach.coach.analysis"]
    heavy += ["casino_coach.engine.movegen", "casino_coach.services.store", "jinja2", "networkx"]
    code = (
        "import sys\nfrom casino_coach.cli import main\n"
        "def run(*args):\n    try:\n        main(list(args))\n    except SystemExit:\n        pass\n"
        "for args in (['--help'], ['--version'], ['analyze', '--help'], ['rules', '--json']):\n"
        "    run(*args)\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
        "run('analyze', 'no-such-log.json', '--json', '--samples', '4', '--inaccuracy', '0.3', '-j', '1')\n"
        "print('pydantic' in sys.modules, 'casino_coach.search' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-2:] == ["['casino_coach.engine.movegen']", "False True"]  # rules: rule sets


def test_progress_knows_a_stream_that_is_no_terminal_without_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    # analyze --json into a pipe shows no progress bar, and no longer imports Rich to find that out:
    # where _may_be_terminal says no, Rich's Console says no too.
    from rich.console import Console

    from casino_coach.cli.app import _may_be_terminal

    for name in ("TTY_COMPATIBLE", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    stream = io.StringIO()
    assert not _may_be_terminal(stream) and not Console(file=stream).is_terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert _may_be_terminal(stream) and Console(file=stream).is_terminal


def test_the_collector_is_back_after_an_analysis_and_found_nothing_frozen() -> None:
    # analyze of one log pauses the cycle collector while it runs (collection_paused), and leaves it
    # running, with nothing kept out of its reach, where it ran before.
    import gc

    from casino_coach.cli.app import collection_paused

    assert gc.isenabled()
    frozen = gc.get_freeze_count()  # main() freezes what is left as the process ends
    with collection_paused():
        assert not gc.isenabled()
        made = [[i] for i in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() == 0 and made
    if frozen:  # collection_paused thawed what an earlier main() had frozen: as it was
        gc.freeze()
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()  # paused before: left so
    finally:
        gc.enable()
