"""``casino-coach play`` driven by scripted input: a whole game, the saved log, bad input, the options,
and (when tmux is installed) a real terminal at 80 columns."""

from __future__ import annotations

import datetime
import re
import shlex
from pathlib import Path

import pytest
from conftest import run_tmux_check
from typer.testing import CliRunner

from casino_coach.cli import app, main
from casino_coach.cli.play import default_out
from casino_coach.formats.log import read_log
from casino_coach.formats.replay import replay_log

ROOT = Path(__file__).resolve().parent.parent
FAST = ["--samples", "3"]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "80"})


def test_a_whole_game_from_scripted_input_saves_a_log_that_replays(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    res = runner.invoke(
        app, ["play", "--seed", "5", "--out", str(out), "--opponent", "greedy"], input="1\n" * 600
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())  # long paths wrap at 80 columns, inside a path too:
    assert "Game over" in text and "".join(f"Game saved to {out}".split()) in "".join(text.split())
    rp = replay_log(read_log(out))
    assert rp.complete and rp.winner is not None
    final = re.findall(r"Game score \(to 21\): You (\d+), Greedy (\d+)", res.output)[-1]
    assert [int(x) for x in final] == rp.match.scores
    assert "\x1b[" not in res.output  # NO_COLOR / TERM=dumb: no escape codes
    assert max(len(line) for line in res.output.splitlines()) <= 80
    # The default name "You" takes the second person: "You deal", never "You deals".
    assert "Round 2: You deal." in text and "You deals" not in text and "You takes" not in text
    checked = runner.invoke(app, ["validate", str(out)])
    assert checked.exit_code == 0 and checked.output.startswith("OK:"), checked.output


def test_each_saved_round_says_how_to_review_it(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After every round (and at the end) the log is saved, and the lines after "Game saved to" are
    # the commands that review it, as typed: they run and read that log.
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(
        app, ["play", "--seed", "5", "--out", "my game.json", "--opponent", "greedy"], input="1\n" * 600
    )
    assert res.exit_code == 0, res.output
    rounds = res.output.count("Round over")
    assert rounds >= 2
    lines = res.output.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("Review the game")]
    assert len(heads) == rounds  # one per saved round, the last one at the end of the game
    assert all(
        lines[i] == "Review the game so far, or write it as a page to step through:" for i in heads[:-1]
    )
    assert lines[heads[-1] :] == [
        "Review the game, or write it as a page to step through:",
        "casino-coach analyze 'my game.json'",
        "casino-coach export 'my game.json' -o 'my game.html'",
    ]
    quick = ["--samples", "1", "--depth", "1", "--no-world", "--jobs", "1"]
    for line in lines[heads[-1] + 1 :]:
        done = runner.invoke(app, [*shlex.split(line)[1:], *quick])  # the command as printed
        assert done.exit_code == 0, done.output
    assert Path("my game.html").read_text().startswith("<!DOCTYPE html>")
    # Quitting before any move saves a log with nothing to review: no review line.
    quit_early = runner.invoke(app, ["play", "--seed", "5", "--out", "empty.json"], input="quit\n")
    assert quit_early.exit_code == 0 and "Game saved to empty.json" in quit_early.output
    assert "Review" not in quit_early.output


def test_moves_from_a_file_with_comments_and_typed_notation(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    first = runner.invoke(app, ["play", "--seed", "2", "--out", str(out), "--moves", "/dev/null"])
    assert first.exit_code == 0, first.output
    assert "Input ended." in first.output
    # Play the first legal move by its notation, then quit: the saved log holds that move.
    line = re.search(r"^ *1 (\S+(?: \S+)*?)(?: {2,}|$)", first.output, re.MULTILINE)
    assert line is not None
    script = tmp_path / "moves.txt"
    script.write_text(f"# my game\n\n{line.group(1)}\nquit\n", encoding="utf-8")
    res = runner.invoke(app, ["play", "--seed", "2", "--out", str(out), "--moves", str(script)])
    assert res.exit_code == 0, res.output
    assert f"your move> {line.group(1)}" in res.output and "You left the game." in res.output
    log = read_log(out)
    you = [m for r in log.rounds for d in r.deals for seat, m in d.moves if seat == 0]
    assert len(you) == 1
    assert not replay_log(log).complete
    # A game stopped early is a game in progress that ``analyze`` reads.
    analysed = runner.invoke(app, ["analyze", str(out), "--samples", "2", "--json"])
    assert analysed.exit_code == 0, analysed.output
    assert '"played"' in analysed.stdout


def test_a_scripted_card_is_a_trail_even_where_trailing_is_illegal(runner: CliRunner, tmp_path: Path) -> None:
    # Regression: in a script "9D" means the trail (README); where the player owns a build and may
    # not trail, it played 9♦'s capture of that build instead of refusing.
    out = tmp_path / "g.json"
    res = runner.invoke(app, ["play", "--seed", "7", "--out", str(out)], input="3H b\n9D\nquit\n")
    assert res.exit_code == 0, res.output
    words = " ".join(res.output.split())
    assert "9D is not legal: you own a build, so you may not trail" in words
    you = [m for r in read_log(out).rounds for d in r.deals for seat, m in d.moves if seat == 0]
    assert len(you) == 1  # the build only: the refused trail played nothing


def test_bad_input_gets_suggestions_not_a_crash(runner: CliRunner, tmp_path: Path) -> None:
    res = runner.invoke(
        app,
        ["play", "--seed", "4", "--out", str(tmp_path / "g.json")],
        input="hnit\n9Z\n77\nwhy 8C x\nundo\nquit\n",
    )
    assert res.exit_code == 0, res.output
    assert "did you mean 'hint'?" in res.output
    assert "'9Z' is not a card" in res.output or "Cannot read '9Z'" in res.output
    assert "No move 77" in res.output
    assert "undo works in practice mode only" in res.output
    assert "Traceback" not in res.output


def test_hint_and_why_through_the_cli(runner: CliRunner, tmp_path: Path) -> None:
    from casino_coach.engine.movegen import CAPTURE, Move
    from casino_coach.engine.notation import move_text
    from casino_coach.engine.reasons import illegal_reason
    from casino_coach.engine.rules import RuleSet
    from casino_coach.services.play_session import PlaySession

    rules = RuleSet.from_preset("classic")
    s = PlaySession(rules, seed=4)
    s.run_bots()
    hand, state = s.state.hands[0], s.state
    card = next(c for c in range(52) if hand >> c & 1)
    target = next(
        t for t in range(52) if state.loose >> t & 1 and rules.pair_value[t] != rules.pair_value[card]
    )
    bad = Move(card, CAPTURE, 1 << target)
    res = runner.invoke(
        app,
        ["play", "--seed", "4", "--out", str(tmp_path / "g.json"), *FAST],
        input=f"hint\nhint\nwhy {move_text(bad)}\n{move_text(bad)}\nwhy\nquit\n",
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "Hint: play your " in text and "— move " in text
    reason = " ".join(illegal_reason(rules, state, bad).split())
    assert text.count(f"{move_text(bad)} is not legal: {reason}") == 2  # why <move>, then a bare why


def test_tutor_prompt_through_the_cli(runner: CliRunner, tmp_path: Path) -> None:
    # Find a move the tutor stops with the library, then play it through the CLI.
    from casino_coach.coach.verdict import analysis_limits
    from casino_coach.engine.rules import RuleSet
    from casino_coach.services.play_session import PlaySession

    # The CLI's --samples 12 gives these limits: the tutor judges as analyze would with 12 worlds.
    s = PlaySession(RuleSet.from_preset("classic"), seed=2, tutor="inaccuracy", limits=analysis_limits(12))
    s.run_bots()
    stopped = [i + 1 for i, m in enumerate(s.legal()) if s.tutor_check(m) is not None]
    if not stopped:
        pytest.fail("seed 2 has no inaccuracy at the first decision; pick another seed")
    n = stopped[0]
    res = runner.invoke(
        app,
        [
            "play",
            "--seed",
            "2",
            "--tutor",
            "inaccuracy",
            "--samples",
            "12",
            "--out",
            str(tmp_path / "g.json"),
        ],
        input=f"{n}\nr\n{n}\np\nquit\n",
    )
    assert res.exit_code == 0, res.output
    assert res.output.count("Tutor") >= 2 and "r to rethink, p to play it anyway" in res.output
    assert "r rethink / p play anyway / h hint> r" in res.output
    assert "taken back: choose again" in res.output
    # Issue 42: the tutor's loss is margin, and what a margin is is said once though it warns twice.
    flat = " ".join(res.output.replace("│", " ").split())
    assert "of margin against the best move" in flat and "point" not in flat.split("Tutor:")[1][:40]
    assert flat.count("Values are margins: your points this round minus") == 1
    log = read_log(tmp_path / "g.json")
    you = [m for r in log.rounds for d in r.deals for seat, m in d.moves if seat == 0]
    assert you == [s.legal()[n - 1]]


def test_tutor_flag_takes_an_optional_level(runner: CliRunner, tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["play", "--seed", "1", "--tutor", "--out", str(tmp_path / "a.json")], input="quit\n"
    )
    assert res.exit_code == 0, res.output
    assert "tutor: stops a mistake or worse" in " ".join(res.output.split())
    res = runner.invoke(
        app, ["play", "--tutor", "blunder", "--seed", "1", "--out", str(tmp_path / "b.json")], input="quit\n"
    )
    assert "tutor: stops a blunder or worse" in " ".join(res.output.split())
    res = runner.invoke(
        app, ["play", "--seed", "1", "--out", str(tmp_path / "c.json"), "--tutor"], input="quit\n"
    )
    assert "tutor: stops a mistake or worse" in " ".join(res.output.split())
    res = runner.invoke(
        app,
        ["play", "--seed", "1", "--out", str(tmp_path / "d.json"), "--tutor", "inaccuracy"],
        input="quit\n",
    )
    assert "tutor: stops an inaccuracy or worse" in " ".join(res.output.split())


@pytest.mark.parametrize(
    "args",
    [
        ["--tutor", "sometimes"],
        ["--opponent", "nobody"],
        ["--players", "5"],
        ["--preset", "poker"],
        ["--seat", "3"],
        ["--moves", "/nonexistent/moves.txt"],
        ["--samples", "0"],
        ["--colour"],
    ],
)
def test_bad_options_are_one_line_errors(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--seed", "1", "--out", str(tmp_path / "x.json"), *args])
    # a usage error is 2, as in Click: an unknown option, a number out of its range, an unknown level
    # (an unknown bot or preset, a seat or a number of players out of range: QA)
    usage = args[0] in ("--colour", "--samples", "--tutor", "--opponent", "--players", "--preset", "--seat")
    assert exit_info.value.code == (2 if usage else 1)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), lines
    assert not (tmp_path / "x.json").exists()


def test_a_log_into_a_missing_folder_is_refused_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--seed", "1", "-o", str(tmp_path / "nowhere" / "x.json"), "--moves", "/dev/null"])
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "does not exist" in lines[0], lines
    assert captured.out == "" and not (tmp_path / "nowhere").exists()  # no table was shown


def test_default_log_name_has_the_date_and_seed_and_never_overwrites(tmp_path: Path) -> None:
    day = datetime.date(2026, 11, 29)
    first = default_out(7, day, tmp_path)
    assert first.name == "casino-2026-11-29-seed7.json"
    first.write_text("{}")
    assert default_out(7, day, tmp_path).name == "casino-2026-11-29-seed7-2.json"


def test_a_real_terminal_at_80_columns(tmp_path: Path) -> None:
    # scripts/tmux_play_check.py runs its own tmux server and names its session exactly, so that no
    # other tmux session (another run of the check, in another worktree) can take its keys; it exits
    # with 77 only when tmux cannot start here, and the test is skipped then with tmux's reason.
    out = tmp_path / "tmux.json"
    shown = run_tmux_check("tmux_play_check.py", "--out", str(out))
    assert replay_log(read_log(out)).log.rounds
    assert "Backspace, Ctrl-U" in shown  # the screens are printed for a person to look at


def _panel_text(session: object) -> str:
    import io

    from rich.console import Console

    from casino_coach.render.play import table_panel

    console = Console(width=80, record=True, no_color=True, file=io.StringIO())
    console.print(table_panel(session))  # type: ignore[arg-type]
    return console.export_text()


@pytest.mark.parametrize("preset", ["classic", "royal"])
def test_the_scoreboard_shows_aces_and_casinos_held_and_sweeps_only_where_they_score(preset: str) -> None:
    from casino_coach.engine.notation import parse_hand
    from casino_coach.engine.rules import RuleSet
    from casino_coach.services.play_session import PlaySession

    s = PlaySession(RuleSet.from_preset(preset), seed=3)
    s.game.state = s.state._replace(
        captured=(parse_hand("AS AH TD 5C"), parse_hand("2S AC 9H")), sweeps=(2, 0)
    )
    text = _panel_text(s)
    you = next(line for line in text.splitlines() if line.startswith("│ You"))
    bot = next(line for line in text.splitlines() if line.startswith("│ Counter"))
    assert "4 cards · 1♠ · aces A♥ A♠ · casino 10♦" in you
    assert "3 cards · 1♠ · ace A♣ · casino 2♠" in bot
    if preset == "classic":  # sweeps are tracked but do not score (rules.md 1.10)
        assert "sweep" not in text
    else:
        assert you.rstrip(" │").endswith("2 sweeps") and bot.rstrip(" │").endswith("0 sweeps")
    assert max(len(line) for line in text.splitlines()) <= 80


def test_at_a_terminal_the_prompt_is_given_to_input_not_printed_before_it() -> None:
    # readline redraws only the prompt it was given (after Backspace or Ctrl-U); one printed before
    # input() is wiped from the line. The tmux check shows it on a real terminal.
    import io

    from rich.console import Console

    from casino_coach.cli.play import PROMPT, LineSource

    asked: list[str] = []
    printed = io.StringIO()
    source = LineSource(
        Console(file=printed), io.StringIO(), interactive=True, ask=lambda p: asked.append(p) or "hint"
    )
    assert source.read(PROMPT) == "hint"
    assert asked == [PROMPT] and printed.getvalue() == ""


# --- play --resume ------------------------------------------------------------------------------------


def _started(runner: CliRunner, path: Path, moves: int = 5) -> None:
    """A game of seed 5 against greedy, stopped after ``moves`` of the person's moves."""
    res = runner.invoke(
        app,
        ["play", "--seed", "5", "--opponent", "greedy", "--out", str(path)],
        input="1\n" * moves + "quit\n",
    )
    assert res.exit_code == 0, res.output


def test_a_resumed_game_goes_on_as_if_it_had_never_stopped(runner: CliRunner, tmp_path: Path) -> None:
    whole, resumed = tmp_path / "whole.json", tmp_path / "resumed.json"
    res = runner.invoke(
        app, ["play", "--seed", "5", "--opponent", "greedy", "--out", str(whole)], input="1\n" * 600
    )
    assert res.exit_code == 0 and "Game over" in res.output, res.output
    _started(runner, resumed, moves=30)  # into the second round: a round was scored and saved
    saved = read_log(resumed)
    assert not replay_log(saved).match.over
    res = runner.invoke(app, ["play", "--resume", str(resumed)], input="1\n" * 600)
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert f"Resumed after {saved.nmoves} moves: round 2." in text and "Game over" in text
    # The same deals and the same bot replies (both follow from the seed): the same log, byte for byte.
    assert resumed.read_bytes() == whole.read_bytes()
    # A finished game is refused.
    with pytest.raises(SystemExit) as done:
        main(["play", "--resume", str(resumed)])
    assert done.value.code == 1


def test_resume_saves_to_out_when_given_and_needs_no_play_record(runner: CliRunner, tmp_path: Path) -> None:
    import orjson

    log = tmp_path / "g.json"
    _started(runner, log)
    obj = orjson.loads(log.read_bytes())
    assert obj["play"] == {"opponent": "greedy", "seat": 0}
    del obj["play"]  # an older play log: the seat and the bots are read from the names
    log.write_bytes(orjson.dumps(obj))
    res = runner.invoke(
        app, ["play", "--resume", str(log), "--out", str(tmp_path / "on.json")], input="1\nquit\n"
    )
    assert res.exit_code == 0, res.output
    on = read_log(tmp_path / "on.json")
    assert sum(len(d.moves) for r in on.rounds for d in r.deals) == 12  # 5 + 1 moves each
    assert log.read_bytes() == orjson.dumps(obj)  # the log resumed from is left as it was


def _changed(tmp_path: Path, log: Path, change: str) -> Path:
    import orjson

    obj = orjson.loads(log.read_bytes())
    if change == "no seed":
        del obj["seed"]
    elif change == "other seed":
        obj["seed"] = 6
    elif change == "viewer":
        obj["viewer"] = 0
        for r in obj["rounds"]:
            for d in r["deals"]:
                d["hands"][1] = None
    elif change == "bad play record":
        obj["play"] = {"seat": 7, "opponent": "greedy"}
    elif change == "unknown names":
        del obj["play"]
        obj["players"] = ["Ana", "Ben"]
    out = tmp_path / f"{change.replace(' ', '-')}.json"
    out.write_bytes(orjson.dumps(obj))
    return out


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("no seed", "cannot be resumed: the log has no seed"),
        ("other seed", "cannot be resumed: its deals are not the ones its seed 6 deals"),
        ("viewer", "cannot be resumed: a viewer log"),
        ("bad play record", "play: expected"),
        ("unknown names", "cannot tell which seat is yours"),
    ],
)
def test_a_log_that_cannot_be_resumed_is_one_line_and_status_1(
    runner: CliRunner, tmp_path: Path, change: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "g.json"
    _started(runner, log)
    bad = _changed(tmp_path, log, change)
    before = bad.read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--resume", str(bad)])
    assert exit_info.value.code == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: ") and says in lines[0], lines
    assert bad.read_bytes() == before  # nothing written


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--seed", "3"], 2, "drop --seed"),
        (["--preset", "royal", "-r", "sweeps=true"], 2, "drop --preset, --option"),
        (["--seat", "1"], 1, "the game was played with --seat 0, not 1"),
        (["--opponent", "counter"], 1, "the game was played with --opponent greedy, not counter"),
    ],
)
def test_resume_refuses_options_that_contradict_the_log(
    runner: CliRunner,
    tmp_path: Path,
    args: list[str],
    code: int,
    says: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = tmp_path / "g.json"
    _started(runner, log)
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--resume", str(log), *args])
    assert exit_info.value.code == code
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], lines


@pytest.mark.parametrize("content", [None, b"{not json", b'{"format": "casino-position", "version": 1}'])
def test_resume_of_a_missing_or_unreadable_file_is_one_line(
    tmp_path: Path, content: bytes | None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "--resume", str(path)])
    assert exit_info.value.code == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}"), lines


def test_the_move_list_never_cuts_a_move_over_two_lines() -> None:
    # Regression: "11 2C b9 2D 4D 5H 7H" with its "7S" on the next line: typed as it read, another
    # (illegal) move.
    from rich.console import Console

    from casino_coach.engine.movegen import BUILD, TRAIL, Move
    from casino_coach.engine.notation import parse_hand, typed_text
    from casino_coach.render.play import moves_columns

    long = Move(parse_hand("2C").bit_length() - 1, BUILD, parse_hand("2D 4D 5H 7H 7S"), 9)
    short = Move(parse_hand("6S").bit_length() - 1, TRAIL, 0, 0)
    numbered = [(i + 1, long if i % 3 == 1 else short) for i in range(12)]
    console = Console(width=80, record=True, color_system=None)
    console.print(moves_columns(numbered))
    lines = console.export_text().splitlines()
    assert sum(typed_text(long, symbols=True) in line for line in lines) == 4, lines


def test_the_move_list_writes_cards_as_the_board_does(runner: CliRunner, tmp_path: Path) -> None:
    # Issue 42: play listed "7S b10 3D TS" beside a board in 7♠. The list writes the board's cards,
    # and what it shows, typed (or pasted), is the move it lists.
    from casino_coach.engine.notation import complete_move, typed_text
    from casino_coach.engine.rules import RuleSet
    from casino_coach.services.play_session import PlaySession

    out = str(tmp_path / "g.json")
    res = runner.invoke(app, ["play", "--seed", "3", "--out", out], input="moves\nquit\n")
    assert res.exit_code == 0, res.output
    listed = res.output.split("Your hand", 1)[1].split("your move>", 1)[0].splitlines()[1:]
    assert listed and all(re.search(r"\b(?:10|[2-9AJQK])[♣♦♥♠]", line) for line in listed), listed
    assert not re.search(r"\b[2-9TJQKA][CDHS]\b", "\n".join(listed)), listed
    legal = "\n".join(res.output.split("Legal moves:", 1)[1].splitlines()[1:4])
    assert "♠" in legal or "♥" in legal or "♦" in legal or "♣" in legal
    assert not re.search(r"\b[2-9TJQKA][CDHS]\b", legal), legal
    for preset in ("classic", "royal", "dominican"):
        s = PlaySession(RuleSet.from_preset(preset), seed=4)
        s.run_bots()
        for m in s.legal():
            assert complete_move(s.rules, s.state, typed_text(m, symbols=True)) == m


def test_options_out_of_range_are_usage_errors(runner: CliRunner, tmp_path: Path) -> None:
    # Regression (QA): play --players 5, --seat 3, --opponent foo and --preset foo exited 1, where
    # selfplay's out-of-range numbers (and the README's usage errors) exit 2.
    from conftest import one_usage_line

    out = str(tmp_path / "g.json")
    cases = [
        (["--seat", "3"], "error: --seat must be from 0 to 1 with 2 players, got 3"),
        (["--opponent", "foo"], "error: --opponent: unknown bot 'foo': choose one of random, greedy"),
        (
            ["--preset", "foo"],
            "error: --preset: unknown preset 'foo': choose one of classic, royal, dominican",
        ),
    ]
    for args, want in cases:
        assert one_usage_line(runner.invoke(app, ["play", *args, "--out", out])).startswith(want)
    assert runner.invoke(app, ["play", "--players", "5", "--out", out]).exit_code == 2
    assert not (tmp_path / "g.json").exists()
    # The check takes a bot's name as the bots do, case aside.
    assert runner.invoke(app, ["play", "--opponent", "Counter", "--out", out], input="quit\n").exit_code == 0
