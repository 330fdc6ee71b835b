"""validate, replay, moves and selfplay through the CLI: outputs, the sample logs, and every error path
(one line on stderr, exit status 1, no traceback, nothing written)."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import one_error_line, one_usage_line
from typer.testing import CliRunner

from casino_coach.cli import app
from casino_coach.engine.movegen import legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.codec import move_to_json
from casino_coach.formats.game import Game
from casino_coach.formats.log import GameLog, log_to_obj, read_log
from casino_coach.formats.position import Position, read_any
from casino_coach.formats.replay import end_observation, legal_in, replay_log

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
SAMPLES = sorted(REPLAYS.glob("*.json"))
runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})


def write(tmp_path: Path, obj: Any, name: str = "log.json") -> Path:
    p = tmp_path / name
    p.write_bytes(obj if isinstance(obj, bytes) else orjson.dumps(obj))
    return p


@pytest.fixture(scope="module")
def game_obj() -> dict[str, Any]:
    game = Game(RuleSet.from_preset("royal"), ["Ana", "Ben"], seed=4)
    while not game.over:
        game.play(game.legal()[len(game.legal()) // 2])
    return log_to_obj(game.to_log())


# --- the sample logs -------------------------------------------------------------------------------


def test_samples_cover_presets_players_and_kinds() -> None:
    logs = [read_any(p.read_bytes()) for p in SAMPLES]
    games = [d for d in logs if isinstance(d, GameLog)]
    assert 10 <= len(SAMPLES) <= 40
    assert {(g.rules.preset, g.nplayers) for g in games} == {
        (p, n) for p in ("classic", "royal", "dominican") for n in (2, 3, 4)
    }
    reps = [replay_log(g) for g in games]
    assert any(r.winner is not None and g.viewer is None for g, r in zip(games, reps, strict=True))
    assert any(r.winner is not None and g.viewer is not None for g, r in zip(games, reps, strict=True))
    assert any(r.winner is None and g.viewer is None for g, r in zip(games, reps, strict=True))
    assert any(r.winner is None and g.viewer is not None for g, r in zip(games, reps, strict=True))
    assert any(isinstance(d, Position) for d in logs)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_every_sample_validates_and_replays_to_its_result(path: Path) -> None:
    result = cli("validate", str(path))
    assert result.exit_code == 0 and result.stdout.startswith(f"OK: {path}")
    doc = read_any(path.read_bytes())
    if isinstance(doc, Position):
        return
    rep = replay_log(doc)
    for rnd, rlog in zip(rep.rounds, doc.rounds, strict=True):
        if rnd.score is not None:  # a played-out round records its result, and it re-plays to it
            assert rlog.result == rnd.score.points
    summary = orjson.loads(cli("replay", str(path), "--json").stdout)
    results = [r.result for r in doc.rounds if r.result is not None]
    assert summary["totals"] == [sum(r[side] for r in results) for side in range(doc.nsides)]
    assert summary["winner"] == rep.winner
    assert [r["points"] for r in summary["rounds"]] == [
        list(r.result or ()) for r in doc.rounds if r.result is not None
    ]
    if rep.winner is not None:
        assert max(rep.match.scores) >= doc.rules.target - 3  # Dominican wins at 18-20 by an item


# --- outputs ---------------------------------------------------------------------------------------


def test_replay_shows_moves_sweeps_and_scores(tmp_path: Path, game_obj: dict[str, Any]) -> None:
    path = write(tmp_path, game_obj)
    out = cli("replay", str(path)).stdout
    assert "Round 1: Ana (seat 0) deals" in out or "Round 1: Ben (seat 1) deals" in out
    assert "captures" in out and "trails" in out and "Round 1 score" in out
    assert "most cards" in out and "game score" in out and "Winner:" in out
    rep = replay_log(read_log(path.read_bytes()))
    if rep.sweeps:
        assert "SWEEP" in out


def test_moves_at_n_and_for_every_ply(tmp_path: Path, game_obj: dict[str, Any]) -> None:
    path = write(tmp_path, game_obj)
    rep = replay_log(read_log(path.read_bytes()))
    ply = rep.plies[7]
    assert ply.state is not None
    one = orjson.loads(cli("moves", str(path), "--at", "7", "--json").stdout)
    assert one == {
        "ply": 7,
        "seat": ply.seat,
        "legal": [move_to_json(m) for m in legal_moves(RuleSet.from_preset("royal"), ply.state)],
    }
    assert all(set(m) <= {"card", "action", "take", "value"} for m in one["legal"])
    assert all(m["take"] == sorted(m["take"]) for m in one["legal"])
    assert all(("value" in m) == (m["action"] == "build") for m in one["legal"])
    every = orjson.loads(cli("moves", str(path), "--json").stdout)
    assert [e["ply"] for e in every] == list(range(len(rep.plies)))
    assert every[7] == one
    text = cli("moves", str(path), "--at", "7").stdout
    name = ["Ana", "Ben"][ply.seat]
    where = f"round {ply.round + 1}, deal {ply.deal + 1}, move {ply.move_index + 1}"
    assert text.startswith(f"ply 7 ({where}): {name} (seat {ply.seat}) to move: {len(one['legal'])} legal")
    assert "played" in text


def test_moves_shows_the_hand_and_table_in_columns_of_one_width() -> None:
    # issue 10: 'moves --at N' showed no player name, table or hand; column widths jumped
    from casino_coach.render import cards_text, table_text

    path = REPLAYS / "royal-2p-full.json"
    rep = replay_log(read_log(path.read_bytes()))
    ply = rep.plies[12]
    assert ply.state is not None
    lines = cli("moves", str(path), "--at", "12").stdout.splitlines()
    assert lines[0].startswith("ply 12 (round 1, deal 2, move 5): Ben (seat 1) to move")
    assert lines[1] == "  hand:  " + cards_text(ply.state.hands[1]).plain
    assert lines[2] == "  table: " + table_text(ply.state.loose, ply.state.builds, ["Ana", "Ben"]).plain
    every = cli("moves", str(path)).stdout.splitlines()
    played = {line.index("played") for line in every if line.rstrip().endswith(" played")}
    assert len(played) == 1, played  # the 'played' mark, after the move column, never moves
    moves = {m.end() for m in map(re.compile(r"\s*\d+\s+(?=\S)").match, every) if m}
    assert len(moves) == 1, moves  # nor does the move column


def test_moves_on_viewer_logs_and_positions() -> None:
    viewer = REPLAYS / "royal-2p-progress-viewer.json"
    log = read_log(viewer.read_bytes())
    rep = replay_log(log)
    every = orjson.loads(cli("moves", str(viewer), "--json").stdout)
    assert {e["seat"] for e in every} == {log.viewer}
    assert [e["ply"] for e in every] == [p.index for p in rep.plies if p.seat == log.viewer]
    theirs = next(p.index for p in rep.plies if p.seat != log.viewer)
    err = one_error_line(cli("moves", str(viewer), "--at", str(theirs)))
    assert err.startswith(f"error: {viewer}: ") and f"(ply {theirs})" in err and "not in the log" in err
    end = orjson.loads(cli("moves", str(viewer), "--at", str(len(rep.plies)), "--json").stdout)
    obs = end_observation(rep)
    assert end["seat"] == obs.to_move == log.viewer
    assert end["legal"] == [move_to_json(m) for m in legal_in(log.rules, obs)]
    position = REPLAYS / "royal-2p-position.json"
    pos = read_any(position.read_bytes())
    assert isinstance(pos, Position)
    assert orjson.loads(cli("moves", str(position), "--json").stdout) == end | {"ply": 0}
    assert "unknown" in cli("moves", str(viewer)).stdout


def test_selfplay_writes_complete_seeded_logs(tmp_path: Path) -> None:
    out = tmp_path / "games"
    result = cli(
        "selfplay",
        "--bots",
        "greedy,counter",
        "--preset",
        "royal",
        "--players",
        "2",
        "--games",
        "2",
        "--seed",
        "7",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.json"))
    assert len(files) == 2
    for k, f in enumerate(files):
        log = read_log(f.read_bytes())
        assert log.seed == 7000 + k and log.created_by and "selfplay" in log.created_by
        assert log.players == ["greedy", "counter"]
        rep = replay_log(log)
        assert rep.winner is not None and rep.complete
        assert str(f) in result.stdout
    again = tmp_path / "again"
    cli(
        "selfplay",
        "--bots",
        "greedy,counter",
        "--preset",
        "royal",
        "--games",
        "2",
        "--seed",
        "7",
        "--out",
        str(again),
    )
    assert [f.read_bytes() for f in files] == [f.read_bytes() for f in sorted(again.glob("*.json"))]


def test_selfplay_refuses_bots_it_would_not_seat(tmp_path: Path) -> None:
    # Regression (QA): five bots for two players ran, and named the files after all five; an empty
    # name between commas was dropped without a word.
    out = str(tmp_path / "x")
    line = one_usage_line(cli("selfplay", "--bots", "greedy,counter,random", "--out", out))
    assert line == "error: --bots names 3 bots for 2 players: at most one a seat"
    line = one_usage_line(cli("selfplay", "--bots", "greedy,,counter", "--out", out))
    assert line == "error: --bots greedy,,counter: an empty name between commas"
    assert not (tmp_path / "x").exists()


# --- every error class: one line, exit 1 -----------------------------------------------------------


def mutate(obj: dict[str, Any], fn: Any) -> dict[str, Any]:
    o = copy.deepcopy(obj)
    fn(o)
    return o


def _first_moves(o: dict[str, Any]) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = o["rounds"][0]["deals"][0]["moves"]
    return moves


def _capture_own_card(o: dict[str, Any]) -> None:
    """The first move captures a card from the mover's own hand: not on the table."""
    first = _first_moves(o)[0]
    hand = o["rounds"][0]["deals"][0]["hands"][first["seat"]]
    other = next(c for c in hand if c != first["card"])
    first.update(action="capture", take=[other])
    first.pop("value", None)


ERRORS: list[tuple[str, Any, str]] = [
    ("bad JSON", b'{"format": "casino-replay",', "bad JSON at line 1"),
    ("unknown format", {"format": "casino-log", "version": 1}, 'format: unknown format "casino-log"'),
    (
        "unknown version",
        {"format": "casino-replay", "version": 9},
        "version: unknown casino-replay version 9",
    ),
    (
        "unknown card",
        lambda o: o["rounds"][0]["deals"][1]["hands"][0].__setitem__(2, "1X"),
        "round 1, deal 2, seat 0 hand: unknown card '1X'",
    ),
    (
        "card twice",
        lambda o: o["rounds"][0]["deals"][0]["table"].__setitem__(1, o["rounds"][0]["deals"][0]["table"][0]),
        "round 1, deal 1, table: card",
    ),
    (
        "wrong number of cards",
        lambda o: o["rounds"][0]["deals"][0]["hands"][1].pop(),
        "round 1, deal 1, seat 1 hand: expected 4 cards, got 3",
    ),
    (
        "wrong seat",
        lambda o: _first_moves(o)[1].__setitem__("seat", _first_moves(o)[0]["seat"]),
        "round 1, deal 1, move 2 (ply 1), seat",
    ),
    ("illegal move", _capture_own_card, "round 1, deal 1, move 1 (ply 0), seat"),
    (
        "result mismatch",
        lambda o: o["rounds"][0]["result"].__setitem__("points", [0, 0]),
        "round 1, result: the log declares points [0, 0], but the round scores",
    ),
    (
        "unknown rule option",
        lambda o: o["rules"].__setitem__("jokers", True),
        "rules: unknown rule option 'jokers'",
    ),
]


@pytest.mark.parametrize(("what", "change", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_validate_errors(
    tmp_path: Path, game_obj: dict[str, Any], what: str, change: Any, message: str
) -> None:
    doc = change if not callable(change) else mutate(game_obj, change)
    path = write(tmp_path, doc)
    for command in ("validate", "replay", "moves"):
        err = one_error_line(cli(command, str(path)))
        assert err.startswith(f"error: {path}: {message}"), err
        if what == "illegal move":
            assert "illegal move" in err and "is not on the table" in err


def test_cli_usage_and_file_errors(tmp_path: Path) -> None:
    err = one_error_line(cli("validate", str(tmp_path / "missing.json")))
    assert "missing.json" in err
    sample = str(REPLAYS / "royal-2p-full.json")
    assert "--at 100000" in one_error_line(cli("moves", sample, "--at", "100000"))
    assert "unknown bot 'deep'" in one_error_line(
        cli("selfplay", "--bots", "greedy,deep", "--out", str(tmp_path / "x"))
    )
    assert not (tmp_path / "x").exists()
    assert "unknown preset" in one_error_line(
        cli("selfplay", "--preset", "poker", "--out", str(tmp_path / "y"))
    )
    assert "no moves to replay" in one_error_line(cli("replay", str(REPLAYS / "royal-2p-position.json")))


def test_real_script_exit_status_one_line_no_traceback(tmp_path: Path) -> None:
    bad = write(
        tmp_path,
        {
            "format": "casino-replay",
            "version": 1,
            "players": ["a", "b"],
            "rounds": [{"dealer": 0, "deals": [{"table": ["AS", "2S", "3S", "ZZ"], "hands": [None, None]}]}],
        },
    )
    exe = Path(sys.executable).parent / "casino-coach"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c", "from casino_coach.cli import main; main()"]
    proc = subprocess.run([*cmd, "validate", str(bad)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {bad}: round 1, deal 1, table: unknown card 'ZZ'")
    ok = subprocess.run(
        [*cmd, "validate", str(REPLAYS / "classic-2p-full.json")], capture_output=True, text=True, check=False
    )
    assert ok.returncode == 0 and ok.stdout.startswith("OK: ")


def test_replay_says_where_the_cards_left_at_the_end_of_a_round_go() -> None:
    # Regression: "47 Ana (seat 0): 4♦ trails (empty table)": a trail cannot empty the table; the rest
    # went to the last capturer and nothing said so.
    res = runner.invoke(app, ["replay", str(REPLAYS / "classic-2p-full.json")], env={"COLUMNS": "160"})
    assert res.exit_code == 0
    words = " ".join(res.stdout.split())
    assert "4♦ trails (empty) the rest, A♠ 4♦ 7♦ 8♦, to Ana, the last to capture" in words


def test_replay_says_why_a_winner_won_where_the_totals_do_not() -> None:
    # Regression: "Winner: Ana (19 - 9)" after a round that gave Ana 0 of her 8 points: at 19 a
    # Dominican side wins by Big Casino alone, and nothing said so.
    res = runner.invoke(app, ["replay", str(REPLAYS / "dominican-2p-full.json")], env={"COLUMNS": "160"})
    words = " ".join(res.stdout.split())
    assert "Winner: Ana (19 - 9), by the near-21 rule: at 19 only Big Casino 10♦ could win" in words
    # and every round a side began at 19: its items are in the table, its round points 0
    note = "Ana began the count at 19: only Big Casino 10♦ could win the game; the other items score nothing"
    assert words.count(note) == 2


def test_near_target_notes_follow_the_rules() -> None:
    from casino_coach.engine.rules import RuleSet
    from casino_coach.report.words import near_target_notes

    dominican = RuleSet.from_preset("dominican")
    assert near_target_notes(dominican, (17, 18), ("Ana", "Ben")) == [
        "Ben began the count at 18: only most cards could win the game; the other items score nothing "
        "for that side this round (the near-21 rule)"
    ]
    capped = dominican.replace(near_target_mode="cap_at_20")
    assert near_target_notes(capped, (20, 0), ("Ana", "Ben"))[0].endswith(
        "the other items count up to 20 (the near-21 rule)"
    )
    assert near_target_notes(RuleSet.from_preset("royal"), (19, 20), ("Ana", "Ben")) == []


def test_a_rule_option_without_a_value_is_a_usage_error() -> None:
    res = runner.invoke(app, ["rules", "classic", "-r", "sweeps"])
    assert res.exit_code == 2 and "expected NAME=VALUE" in res.stderr


def test_where_a_full_log_stops_its_moves_are_the_states(tmp_path: Path) -> None:
    # Regression: where a log with every hand stops, 'moves' listed the mover's own view's moves,
    # without building for the partner (seat 2 holds 7♠), which the same position lists mid-log.
    hands = ("3C 5D 8S 9H", "2D 6C 8D TC", "7S 6H 2C AH", "AD 5S 9C KH")
    log = {
        "format": "casino-replay",
        "version": 1,
        "rules": {"preset": "classic", "build_for_partner": "announced"},
        "players": ["A", "B", "C", "D"],
        "viewer": None,
        "rounds": [
            {
                "dealer": 3,
                "deals": [
                    {
                        "table": ["4H", "KS", "QD", "JC"],
                        "hands": [h.split() for h in hands],
                        "moves": [],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "g.json"
    path.write_bytes(orjson.dumps(log))
    res = runner.invoke(app, ["moves", str(path), "--at", "0"])
    assert res.exit_code == 0, res.output
    assert "3♣ builds 7 with 4♥" in res.stdout


def test_comma_separated_words_are_a_list_option() -> None:
    # Regression: 'rules' shows count_out_order as "spades, cards, ..."; typed back so, it was refused.
    order = "spades,cards,aces,big_casino,little_casino,sweeps"
    res = runner.invoke(app, ["rules", "royal", "-r", f"count_out_order={order}", "--json"])
    assert res.exit_code == 0, res.output
    assert orjson.loads(res.stdout)["count_out_order"] == order.split(",")


def test_replay_keeps_its_columns_from_deal_to_deal() -> None:
    # issue 10: the widths of the move table jumped from deal to deal
    lines = cli("replay", str(REPLAYS / "classic-2p-full.json")).stdout.splitlines()
    heads = [line.index("table after") for line in lines if line.startswith("ply  move")]
    assert len(heads) > 3 and len(set(heads)) == 1, heads
