"""Play ``casino-coach play`` in a real terminal (a tmux pane of 80 columns) and check the screen.

Keys are sent with ``tmux send-keys`` and the pane is read with ``tmux capture-pane``: the table panel
must fit the 80 columns, the prompt must stay on its line while the line is edited (Backspace, Ctrl-U),
``hint`` (typed with tab completion) must answer in two steps, a move by number must be played,
``undo`` must work in practice mode, a typo must get a suggestion, and Ctrl-C must save the log. The
screens are printed so a person can look at them.

The check runs its own tmux server (a socket of its own, ``-L``), so that it neither sees nor
disturbs any other tmux session, another run of this check included, and addresses its session by
its exact name (``=NAME``: tmux otherwise takes a unique prefix of a session's name).

    python scripts/tmux_play_check.py [--out PATH] [--quiet]

Exit status 0 when every check passes, 1 when one fails, and 77 (printing why) when tmux cannot start
here (not installed, or its server does not start): the test suite skips then, and only then.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

WIDTH, HEIGHT = 80, 45
CANNOT_START = 77  # tmux is missing or will not start: the caller skips, with the reason printed
SOCKET = f"casino-play-check-{os.getpid()}"  # this run's own tmux server


class TmuxCannotStart(Exception):
    """tmux is not installed, or its server does not start."""


def tmux(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}  # started inside tmux: still our own server
    return subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=True, env=env
    ).stdout


def screen(name: str, history: bool = False) -> str:
    """The visible pane, or everything printed since the start (``history``)."""
    return tmux("capture-pane", "-p", "-t", f"={name}:", *(("-S", "-") if history else ()))


def last_line(name: str) -> str:
    """The last line of the pane with something on it (where the cursor's line is being edited)."""
    lines = [line for line in screen(name).splitlines() if line.strip()]
    return lines[-1].rstrip() if lines else ""


def line_becomes(name: str, expected: str, timeout: float = 10.0) -> None:
    """Wait until the line being edited reads ``expected``."""
    deadline = time.monotonic() + timeout
    shown = last_line(name)
    while time.monotonic() < deadline:
        shown = last_line(name)
        if shown == expected:
            return
        time.sleep(0.1)
    raise AssertionError(f"the line being edited reads {shown!r}, not {expected!r}")


EXITED = "[exit status "  # what the pane's shell prints when the program ends


def exit_status(name: str) -> int | None:
    """The program's exit status once it has ended, else None. The pane's shell prints it (tmux's
    own #{pane_dead_status} is sometimes left empty when the pane's output ends before the process
    is reaped)."""
    shown = screen(name, history=True)
    at = shown.rfind(EXITED)
    return int(shown[at + len(EXITED) :].split("]")[0]) if at >= 0 else None


def wait_for(name: str, text: str, timeout: float = 30.0, after: int = 0) -> str:
    """Wait until ``text`` has been printed more than ``after`` times; return the visible screen."""
    deadline = time.monotonic() + timeout
    shown = ""
    while time.monotonic() < deadline:
        shown = screen(name, history=True)
        if shown.count(text) > after:
            return screen(name)
        status = exit_status(name)
        if status is not None and screen(name, history=True).count(text) <= after:
            raise AssertionError(f"the program ended (status {status}) before {text!r}; the screen:\n{shown}")
        time.sleep(0.2)
    raise AssertionError(f"{text!r} did not appear within {timeout}s; the screen:\n{shown}")


PROMPT = "your move>"


def send(name: str, *keys: str) -> None:
    """Type ``keys`` at the prompt, then wait for the next prompt (so typing never runs ahead)."""
    prompts = screen(name, history=True).count(PROMPT)
    tmux("send-keys", "-t", f"={name}:", *keys)
    if keys[-1] == "Enter":
        wait_for(name, PROMPT, after=prompts)


def check(out: Path, quiet: bool) -> None:
    name = f"casino-play-check-{os.getpid()}"
    # The shell stays to print the exit status: it catches SIGINT (a trap, which the program does not
    # inherit, unlike an ignored signal), so that Ctrl-C reaches the program alone.
    cmd = (
        f"trap : INT; cd {tempfile.gettempdir()} && env LANG=C.UTF-8 LC_ALL=C.UTF-8 {sys.executable} -c "
        f"'from casino_coach.cli import main; main()' play --seed 7 --practice --samples 4 "
        f"--out {out}; echo '{EXITED}'$?']'"
    )
    try:
        # No user configuration (-f /dev/null); the pane stays when the program ends, so that its
        # last screen and exit status can be read however soon it ends.
        tmux(
            *("-f", "/dev/null", "-u", "start-server", ";", "set-option", "-g", "remain-on-exit", "on"),
            *(";", "new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT), cmd),
        )
    except (OSError, subprocess.CalledProcessError) as e:
        why = getattr(e, "stderr", None) or str(e)
        raise TmuxCannotStart(f"tmux cannot start a session here: {why.strip()}") from None
    try:
        first = wait_for(name, PROMPT)
        lines = first.splitlines()
        top = next(line for line in lines if line.startswith("╭"))
        assert len(top) == WIDTH and top.endswith("╮"), f"the table panel is not 80 columns: {top!r}"
        assert any(line.startswith("│ Table") for line in lines), "no table row"
        assert any(line.startswith("Your hand") for line in lines), "no hand"
        assert all(len(line) <= WIDTH for line in lines)

        # Line editing keeps the prompt: readline redraws the line after Backspace and Ctrl-U, and
        # a prompt printed before input() instead of given to it was wiped.
        send(name, "hinx")
        line_becomes(name, f"{PROMPT} hinx")
        send(name, "BSpace")
        line_becomes(name, f"{PROMPT} hin")
        send(name, "C-u")
        line_becomes(name, PROMPT)
        edited = screen(name)

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
        wait_for(name, EXITED)
        assert exit_status(name) == 130, f"exit status {exit_status(name)} after Ctrl-C, not 130"
        assert out.exists(), f"no log at {out}"
        if not quiet:
            for title, shown in (
                ("first screen", first),
                ("after typing hinx, Backspace, Ctrl-U", edited),
                ("after hint, hint", hinted),
                ("after playing move 1", played),
                ("after undo", undone),
                ("after a typo", typo),
                ("after Ctrl-C", last),
            ):
                print(f"===== {title} " + "=" * (WIDTH - 7 - len(title)))
                print(shown.rstrip())
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True, check=False)


def run_check(check: Callable[[], None], ok: str) -> int:
    """Run a tmux check: its exit status (0, 1 on a failed check, ``CANNOT_START`` when tmux is
    missing or will not start), with one line saying why."""
    if shutil.which("tmux") is None:
        print("tmux cannot start: it is not installed (apt-get install -y tmux)")
        return CANNOT_START
    try:
        check()
    except TmuxCannotStart as e:
        print(e)
        return CANNOT_START
    except AssertionError as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"FAILED: {' '.join(e.cmd)}: {(e.stderr or '').strip()}", file=sys.stderr)
        return 1
    print(ok)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="where the game log goes")
    parser.add_argument("--quiet", action="store_true", help="do not print the screens")
    args = parser.parse_args()
    out = (args.out or Path(tempfile.mkdtemp()) / "tmux-game.json").resolve()
    return run_check(
        lambda: check(out, args.quiet), f"ok: the game screen works at {WIDTH} columns; log at {out}"
    )


if __name__ == "__main__":
    sys.exit(main())
