"""The examples of the README and of docs/ run: every ``casino-coach`` command of their bash blocks,
block by block in a fresh folder holding a copy of ``replays/``, exits as the text says (0 unless a
comment says "exit status N") and leaves no file it does not name; the engine session that
docs/engine-protocol.md shows, replayed through ``casino-coach engine``, gets the answers it shows.

A command is run as written, with settings that make it quick appended (``--samples 1 --depth 1``,
fewer self-play games): the later option wins, so the command's own options are all parsed and
checked. A command the test cannot run (it needs a Dask scheduler on another machine) is listed in
SKIPPED with the reason, and the list must match the documents.
"""

from __future__ import annotations

import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from casino_coach.cli import main

ROOT = Path(__file__).resolve().parents[1]
# The documents whose examples run: the README first, then every page of docs/.
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ENGINE_PAGE = ROOT / "docs" / "engine-protocol.md"

# What the test appends to a command to keep it fast, by subcommand.
QUICK = {
    "analyze": ["--samples", "1", "--depth", "1", "--no-world", "--jobs", "1"],
    "export": ["--samples", "1", "--depth", "1", "--no-world", "--jobs", "1"],
    "analyze-all": ["--samples", "1", "--depth", "1", "--no-world", "--jobs", "1"],
    "suggest": ["--samples", "2"],
    "tree": ["--samples", "2"],
    "selfplay": ["--games", "2"],
    "drill": ["--samples", "1", "--depth", "1", "--jobs", "1"],
}
# Commands of the documents that need more than this machine, and why.
SKIPPED = {"--cluster": "needs a Dask scheduler (and workers) on other machines"}
# What a command may be given on standard input: play reads its moves there.
STDIN = {"play": "quit\n"}


class Command:
    """One ``casino-coach`` command of a bash block: its arguments, its trailing comment, what
    ``echo TEXT |`` before it gives it on standard input, and the ``NAME=VALUE`` environment
    variables written before it."""

    def __init__(
        self,
        args: list[str],
        comment: str,
        stdin: str = "",
        env: dict[str, str] | None = None,
        stdout_to: str | None = None,
    ) -> None:
        self.args = args
        self.comment = comment
        self.stdin = stdin
        self.env = env or {}
        self.stdout_to = stdout_to  # ``> FILE``: the file its standard output goes to

    @property
    def name(self) -> str:
        """The subcommand (or the root's option, ``--version``)."""
        return self.args[0] if self.args else ""

    @property
    def status(self) -> int:
        m = re.search(r"exit status (\d+)", self.comment)
        return int(m.group(1)) if m else 0

    def __repr__(self) -> str:
        return shlex.join(["casino-coach", *self.args])


def bash_blocks(text: str) -> list[list[Command]]:
    """The ``casino-coach`` commands of each bash block (continuation lines joined, ``&&`` split)."""
    blocks = []
    for body in re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M):
        commands = []
        for line in re.sub(r"\\\n\s*", " ", body).splitlines():
            code, _, comment = _split_comment(line)
            for part in code.split("&&"):
                *before, last = part.split("|")
                words, echoed = shlex.split(last), shlex.split(before[-1]) if before else []
                stdin = " ".join(echoed[1:]) + "\n" if echoed[:1] == ["echo"] else ""
                stdout_to = None
                if ">" in words:  # ``casino-coach ... > FILE``
                    stdout_to = words[words.index(">") + 1]
                    words = words[: words.index(">")]
                env = {}
                while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
                    name, _, value = words.pop(0).partition("=")
                    env[name] = value
                if words[:1] == ["casino-coach"]:
                    commands.append(Command(words[1:], comment, stdin, env, stdout_to))
        blocks.append(commands)
    return blocks


def _split_comment(line: str) -> tuple[str, str, str]:
    """``code  # comment``: the first ``#`` outside quotes that starts a word."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i], "#", line[i + 1 :].strip()
    return line, "", ""


def _blocks() -> list[tuple[str, list[Command]]]:
    """Every bash block with a ``casino-coach`` command, named by its document."""
    found = []
    for path in DOCUMENTS:
        blocks = bash_blocks(path.read_text(encoding="utf-8"))
        found += [(path.relative_to(ROOT).as_posix(), b) for b in blocks if b]
    return found


NAMED_BLOCKS = _blocks()
BLOCKS = [block for _, block in NAMED_BLOCKS]


def test_the_readme_commands_are_found() -> None:
    readme = [block for name, block in NAMED_BLOCKS if name == "README.md"]
    assert {c.name for block in readme for c in block} >= {"analyze", "suggest", "play", "validate"}
    names = {c.name for block in BLOCKS for c in block}
    # Every command of the CLI has an example (engine's session is also replayed below).
    assert names >= {"analyze", "export", "validate", "replay", "moves", "selfplay", "suggest", "tree"}
    assert names >= {"play", "stats", "analyze-all", "engine", "rules", "--version"}
    skipped = [c for block in BLOCKS for c in block if any(flag in c.args for flag in SKIPPED)]
    assert len(skipped) == len(SKIPPED), skipped


def _run(command: Command, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    stdin = command.stdin or STDIN.get(command.name, "")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    with monkeypatch.context() as scoped, pytest.raises(SystemExit) as exit_info:
        for name, value in command.env.items():  # for this command only, as in the shell
            scoped.setenv(name, value)
        # export --from searches nothing: the search's options are refused there
        quick = [] if "--from" in command.args else QUICK.get(command.name, [])
        main([*command.args, *quick])
    code = exit_info.value.code
    return (int(code) if isinstance(code, int) else 0), *capsys.readouterr()


def _files(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*")}


@pytest.mark.parametrize(
    "block", range(len(BLOCKS)), ids=[f"{i}-{doc}-{b[0].name}" for i, (doc, b) in enumerate(NAMED_BLOCKS)]
)
def test_every_command_of_a_block_runs(
    block: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "replays", tmp_path / "replays")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    before = _files(tmp_path)
    commands = [c for c in BLOCKS[block] if not any(flag in c.args for flag in SKIPPED)]
    if not commands:
        pytest.skip(
            ", ".join(
                reason for flag, reason in SKIPPED.items() if any(flag in c.args for c in BLOCKS[block])
            )
        )
    named: set[str] = set()
    for command in commands:
        named |= {a.rstrip("/") for a in command.args}
        code, out, err = _run(command, capsys, monkeypatch)
        if command.stdout_to is not None:
            (tmp_path / command.stdout_to).write_text(out, encoding="utf-8")
            named.add(command.stdout_to)
        assert code == command.status, (command, out, err)
        assert "Traceback" not in out + err, command
        _check_comment(command, out)
    # Nothing left behind but the files the commands name (and play's log, named by its date).
    made = {p for p in _files(tmp_path) - before if len(p.parts) == 1}
    unnamed = {
        p for p in made if p.name not in named and not re.fullmatch(r"casino-[\d-]+-seed\d+\.json", p.name)
    }
    assert not unnamed, unnamed
    assert _files(tmp_path / "replays") == _files(ROOT / "replays")  # the bundled logs untouched


def _check_comment(command: Command, out: str) -> None:
    """A comment that shows the output's start (``OK: ...``) or its JSON keys must be right."""
    comment = command.comment
    if comment.startswith("OK:"):
        assert out.startswith("OK: "), (command, out)
    if comment.startswith("{"):
        obj = orjson.loads(out.splitlines()[0] if command.name == "engine" else out)
        for key, value in re.findall(r'"(\w+)": ([^,\]}\[]+)(?=[,}])', comment):
            assert key in obj, (command, key)
            if value.strip() != "...":
                assert obj[key] == orjson.loads(value), (command, key)
        assert set(re.findall(r'"(\w+)":', comment)) <= set(obj), (command, comment)
    if command.args[0] == "--version":
        # The build (mypyc: compiled or pure) or, with the native core, what runs the hot path.
        build = r"compiled|pure|native core|Python reference: [^\n]+"
        assert re.fullmatch(rf"casino-coach \d+\.\d+\.\d+ \(({build})\)\n", out), out


# ---------------------------------------------------------------------------------------------------
# The engine session


def engine_transcript(text: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The lines the controller wrote (``> ``) and the answers the engine gave (``< ``), from the
    text block that starts with a ``hello`` request."""
    block = next(b for b in re.findall(r"^```text\n(.*?)^```", text, re.S | re.M) if b.startswith("> {"))
    sent = [line[2:] for line in block.splitlines() if line.startswith("> ")]
    answers = [orjson.loads(line[2:]) for line in block.splitlines() if line.startswith("< ")]
    return sent, answers


# Fields of an answer that legitimately differ from run to run: how long the search took.
VARYING = {"seconds"}


def test_the_engine_session_gets_the_answers_shown() -> None:
    sent, shown = engine_transcript(ENGINE_PAGE.read_text(encoding="utf-8"))
    assert len(sent) == len(shown) > 10
    proc = subprocess.run(
        [sys.executable, "-c", "from casino_coach.cli import main; main()", "engine"],
        input="\n".join(sent) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    got = [orjson.loads(line) for line in proc.stdout.splitlines()]
    assert len(got) == len(shown)
    for request, want, answer in zip(sent, shown, got, strict=True):
        assert {k: v for k, v in answer.items() if k not in VARYING} == {
            k: v for k, v in want.items() if k not in VARYING
        }, request
        assert set(answer) == set(want), request
