"""Play ``casino-coach play`` in a real terminal (a tmux pane of 80 columns) and check the screen.

Keys are sent with ``tmux send-keys`` and the pane is read with ``tmux capture-pane``: the table panel
must fit the 80 columns, ``hint`` (typed with tab completion) must answer in two steps, a move by
number must be played, ``undo`` must work in practice mode, a typo must get a suggestion, and Ctrl-C
must save the log. The screens
are printed so a person can look at them. Exit status 0 when every check passes.

    python scripts/tmux_play_check.py [--out PATH] [--quiet]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTH, HEIGHT = 80, 45


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def screen(name: str, history: bool = False) -> str:
    """The visible pane, or everything printed since the start (``history``)."""
    return tmux("capture-pane", "-p", "-t", name, *(("-S", "-") if history else ()))


def wait_for(name: str, text: str, timeout: float = 30.0, after: int = 0) -> str:
    """Wait until ``text`` has been printed more than ``after`` times; return the visible screen."""
    deadline = time.monotonic() + timeout
    shown = ""
    while time.monotonic() < deadline:
        shown = screen(name, history=True)
        if shown.count(text) > after:
            return screen(name)
        time.sleep(0.2)
    raise AssertionError(f"{text!r} did not appear within {timeout}s; the screen:\n{shown}")


PROMPT = "your move>"


def send(name: str, *keys: str) -> None:
    """Type ``keys`` at the prompt, then wait for the next prompt (so typing never runs ahead)."""
    prompts = screen(name, history=True).count(PROMPT)
    tmux("send-keys", "-t", name, *keys)
    if keys[-1] == "Enter":
        wait_for(name, PROMPT, after=prompts)


def check(out: Path, quiet: bool) -> None:
    name = f"casino-play-check-{os.getpid()}"
    cmd = (
        f"cd {tempfile.gettempdir()} && exec env LANG=C.UTF-8 LC_ALL=C.UTF-8 {sys.executable} -c "
        f"'from casino_coach.cli import main; main()' play --seed 7 --practice --samples 4 "
        f"--out {out}"
    )
    tmux("-u", "new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT), cmd)
    try:
        first = wait_for(name, PROMPT)
        lines = first.splitlines()
        top = next(line for line in lines if line.startswith("╭"))
        assert len(top) == WIDTH and top.endswith("╮"), f"the table panel is not 80 columns: {top!r}"
        assert any(line.startswith("│ Table") for line in lines), "no table row"
        assert any(line.startswith("Your hand") for line in lines), "no hand"
        assert all(len(line) <= WIDTH for line in lines)

        send(name, "hi", "Tab", "Enter")  # tab completion of the command
        wait_for(name, "Hint: play your ")
        send(name, "hint", "Enter")
        hinted = wait_for(name, "— move ")

        send(name, "1", "Enter")
        played = wait_for(name, "◇ You ")
        send(name, "undo", "Enter")
        undone = wait_for(name, "Took back ")

        send(name, "hnit", "Enter")
        typo = wait_for(name, "did you mean 'hint'?")

        send(name, "C-c")  # Ctrl-C quits and saves, like quit
        last = wait_for(name, "Game saved to")
        assert "Interrupted." in last
        assert out.exists(), f"no log at {out}"
        if not quiet:
            for title, shown in (
                ("first screen", first),
                ("after hint, hint", hinted),
                ("after playing move 1", played),
                ("after undo", undone),
                ("after a typo", typo),
                ("after Ctrl-C", last),
            ):
                print(f"===== {title} " + "=" * (WIDTH - 7 - len(title)))
                print(shown.rstrip())
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="where the game log goes")
    parser.add_argument("--quiet", action="store_true", help="do not print the screens")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed (apt-get install -y tmux)", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp()) / "tmux-game.json"
    try:
        check(out.resolve(), args.quiet)
    except AssertionError as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    print(f"ok: the game screen works at {WIDTH} columns; log at {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
