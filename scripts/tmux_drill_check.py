"""Drill ``casino-coach drill`` in a real terminal (a tmux pane of 80 columns) and check the screen.

The position must fit the 80 columns, tab completion must complete a move, a right answer must be
said right and the next position shown, a typo must get a suggestion, and Ctrl-C must stop with the
score so far and status 130. The screens are printed so a person can look at them. The tmux helpers
(a server of its own, keys sent and the pane read) are ``tmux_play_check``'s.

    python scripts/tmux_drill_check.py [--quiet]

Exit status 0 when every check passes, 1 when one fails, and 77 (printing why) when tmux cannot start
here: the test suite skips then, and only then.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tmux_play_check as t  # a sibling script, found through the path above

LOG = Path(__file__).resolve().parent.parent / "replays" / "classic-2p-full.json"


def check(quiet: bool) -> None:
    name = f"casino-drill-check-{os.getpid()}"
    cmd = (
        f"trap : INT; cd {tempfile.gettempdir()} && env LANG=C.UTF-8 LC_ALL=C.UTF-8 {sys.executable} -c "
        f"'from casino_coach.cli import main; main()' drill {shlex.quote(str(LOG))} "
        "--player Ben --samples 8 --jobs 1; "
        f"echo '{t.EXITED}'$?']'"
    )
    try:
        t.tmux(
            *("-f", "/dev/null", "-u", "start-server", ";", "set-option", "-g", "remain-on-exit", "on"),
            *(";", "new-session", "-d", "-s", name, "-x", str(t.WIDTH), "-y", str(t.HEIGHT), cmd),
        )
    except (OSError, subprocess.CalledProcessError) as e:
        why = getattr(e, "stderr", None) or str(e)
        raise t.TmuxCannotStart(f"tmux cannot start a session here: {why.strip()}") from None
    try:
        first = t.wait_for(name, t.PROMPT)
        lines = first.splitlines()
        assert any(line.startswith("Position 1 of 6: ply 42") for line in lines), "no position header"
        assert any(line.startswith("Hand   A♠ 8♦ 9♥") for line in lines), "no hand"
        assert all(len(line) <= t.WIDTH for line in lines)

        # Tab completes the only build of the A♠, and the answer is the best move.
        t.send(name, "AS b", "Tab")
        t.line_becomes(name, f"{t.PROMPT} AS b8 7D")
        t.send(name, "Enter")
        right = t.wait_for(name, "Right: A♠ builds 8 with 7♦")
        assert "Position 2 of 6" in right, "the next position is not shown"

        t.send(name, "skp", "Enter")
        typo = t.wait_for(name, "did you mean 'skip'?")

        t.send(name, "C-c")  # Ctrl-C stops like quit, with the score so far
        last = t.wait_for(name, "Score: ")
        assert "Interrupted." in last
        assert "Score: 1 of 1 found; 0.00 of margin lost in all (5 positions left)." in last, last
        t.wait_for(name, t.EXITED)
        status = t.exit_status(name)
        assert status == 130, f"exit status {status} after Ctrl-C, not 130"
        if not quiet:
            for title, shown in (
                ("first screen", first),
                ("after a right answer", right),
                ("after a typo", typo),
                ("after Ctrl-C", last),
            ):
                print(f"===== {title} " + "=" * (t.WIDTH - 7 - len(title)))
                print(shown.rstrip())
    finally:
        subprocess.run(["tmux", "-L", t.SOCKET, "kill-server"], capture_output=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="do not print the screens")
    args = parser.parse_args()
    return t.run_check(lambda: check(args.quiet), f"ok: the drill works at {t.WIDTH} columns")


if __name__ == "__main__":
    sys.exit(main())
