"""``casino-coach drill`` through the command line: answers from scripted input, the score, quitting
and the end of input, the error paths, and (when tmux is installed) a real terminal at 80 columns."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_tmux_check
from typer.testing import CliRunner

from casino_coach.cli import app

ROOT = Path(__file__).resolve().parent.parent
FULL = str(ROOT / "replays" / "classic-2p-full.json")
PROGRESS = str(ROOT / "replays" / "classic-2p-progress.json")
FAST = ["--samples", "8", "--jobs", "1"]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "80"})


def _flat(text: str) -> str:
    return " ".join(text.split())  # long lines and paths wrap at 80 columns


def test_a_drill_judges_each_answer_and_ends_with_the_score(runner: CliRunner) -> None:
    # The one blunder of the game in progress: the move played is judged as analyze judged it, and the
    # score counts it.
    analysed = runner.invoke(app, ["analyze", PROGRESS, *FAST, "--no-moves"])
    assert analysed.exit_code == 0, analysed.output
    res = runner.invoke(app, ["drill", PROGRESS, *FAST], input="moves\n8H x 8C\n")
    assert res.exit_code == 0, res.output
    text = _flat(res.output)
    assert "Drill: 1 position from " in text and "Position 1 of 1: ply 26" in text
    assert "your move> moves" in text and "Legal moves:" in text
    loss = re.search(r"8♥ captures 8♣ \(the move played in the game\): blunder, lost (\d+\.\d\d)", text)
    assert loss is not None, text
    assert re.search(rf"ply 26, round 1, deal 4, Ben: blunder, lost {loss.group(1)}", _flat(analysed.output))
    # The best move, and the headline analyze gives the move (the same assessment, the same words).
    data = runner.invoke(app, ["analyze", PROGRESS, *FAST, "--json"])
    (headline,) = [m["headline"] for m in json.loads(data.stdout)["moves"] if m["ply"] == 26]
    assert "Best: " in text and headline in text
    assert text.endswith(f"Score: 0 of 1 found; {loss.group(1)} of margin lost in all.")
    assert max(len(line) for line in res.output.splitlines()) <= 80
    assert "\x1b[" not in res.output


def test_the_best_move_is_right_and_quit_stops_with_the_score_so_far(runner: CliRunner) -> None:
    # In the full game the first miss is Ben's 8♦ trail in the last deal (exact): A♠ builds 8 with
    # 7♦ is the best, and skip shows the next position's best.
    res = runner.invoke(app, ["drill", FULL, *FAST, "-p", "Ben"], input="AS b8\nskip\nquit\n")
    assert res.exit_code == 0, res.output
    text = _flat(res.output)
    assert "Drill: 6 positions from " in text and "by Ben" in text
    assert "Right: A♠ builds 8 with 7♦, the best move" in text
    assert "Skipped. Best: " in text
    assert text.endswith("Score: 1 of 2 found (1 skipped); 0.00 of margin lost in all (4 positions left).")
    # Issue 42: the figures are margins, said once a drill though two positions are shown.
    assert text.count("Values are margins: your points this round minus those of Ana (seat 0), so a") == 1
    assert "Position 2 of 6" in text and re.search(r"\(an? \w+, lost \d+\.\d\d of margin\)", text)


def test_the_end_of_input_stops_cleanly_with_the_score(runner: CliRunner) -> None:
    res = runner.invoke(app, ["drill", FULL, *FAST, "--only", "blunder"], input="zz\n")
    assert res.exit_code == 0, res.output
    text = _flat(res.output)
    assert "the blunders by every player rated" in text
    assert "Cannot read 'zz'" in text
    assert text.endswith("Input ended. Score: 0 of 0 found; 0.00 of margin lost in all (3 positions left).")


def test_a_player_without_a_miss_is_told_so_with_status_0(runner: CliRunner) -> None:
    res = runner.invoke(app, ["drill", FULL, *FAST, "--player", "Ana"])
    assert res.exit_code == 0, res.output
    assert _flat(res.output) == f"No mistake or blunder by 'Ana' in {FULL}: nothing to drill."


def test_skill_drills_the_misses_of_one_skill_only(runner: CliRunner) -> None:
    # Ben's six misses of the full game: four where the best move built (A♠ builds 8, A♥ builds 10),
    # one capture, one loss in the aces; none where the best move trailed another card.
    res = runner.invoke(app, ["drill", FULL, *FAST, "-p", "Ben", "--skill", "building"], input="quit\n")
    assert res.exit_code == 0, res.output
    text = _flat(res.output)
    assert "Drill: 4 positions from " in text and "the mistakes and blunders in building by Ben" in text
    assert "Position 1 of 4: ply 42" in text
    none = runner.invoke(app, ["drill", FULL, *FAST, "-p", "Ben", "--skill", "Trailing"])
    assert none.exit_code == 0, none.output
    assert _flat(none.output) == (
        f"No mistake or blunder in choosing what to trail (trailing) by 'Ben' in {FULL}: nothing to drill."
    )


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["drill", "missing.json"], 1, "error: missing.json: no such file"),
        (["drill", FULL, "-p", "Zed"], 1, "player 'Zed' is not in this game"),
        (["drill", str(ROOT / "replays" / "classic-2p-viewer.json"), "-p", "Ben"], 1, "viewer log"),
        (["drill", str(ROOT / "replays" / "royal-2p-position.json")], 1, 'unknown format "casino-position"'),
        (["drill", FULL, "--only", "good"], 2, "Invalid value for '--only'"),
        (["drill", FULL, "--skill", "bulding"], 2, "--skill: unknown skill 'bulding': choose one of "),
        (["drill", FULL, "--samples", "0"], 2, "--samples must be from 1 to 100,000, got 0"),
        (["drill"], 2, "Missing argument"),
    ],
)
def test_bad_input_is_one_line_without_a_traceback(args: list[str], status: int, message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from casino_coach.cli import main; main(sys.argv[1:])", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={"COLUMNS": "400", "NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == status, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_a_real_terminal_at_80_columns() -> None:
    # scripts/tmux_drill_check.py runs its own tmux server (as tmux_play_check.py does) and exits
    # with 77 only when tmux cannot start here; the test is skipped then with tmux's reason.
    shown = run_tmux_check("tmux_drill_check.py")
    assert "after a right answer" in shown  # the screens are printed for a person to look at


def test_several_logs_give_their_positions_in_turn_each_naming_its_file(runner: CliRunner) -> None:
    res = runner.invoke(app, ["drill", PROGRESS, FULL, *FAST, "-p", "Ben"], input="skip\nskip\n")
    assert res.exit_code == 0, res.output
    text = _flat(res.output)
    assert "Drill: 7 positions from " in text
    assert f"Position 1 of 7: ply 26 (round 1, deal 4) of {PROGRESS}" in text
    assert f"Position 2 of 7: ply 42 (round 1, deal 6) of {FULL}" in text
    assert text.endswith(
        "Input ended. Score: 0 of 2 found (2 skipped); 0.00 of margin lost in all (5 positions left)."
    )
