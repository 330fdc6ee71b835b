"""suggest and tree through the CLI: the JSON contract, exact last deals, typed positions, errors."""

from __future__ import annotations

import contextlib
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import networkx as nx
import orjson
import pytest
from conftest import one_error_line, one_usage_line
from typer.testing import CliRunner

from casino_coach.cli import app
from casino_coach.engine.movegen import legal_moves
from casino_coach.engine.notation import move_text
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.codec import move_from_json, move_to_json
from casino_coach.formats.game import Game
from casino_coach.formats.log import log_to_json

runner = CliRunner()
REPLAYS = Path(__file__).resolve().parent.parent / "replays"
ROYAL = RuleSet.from_preset("royal")


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})


def game_in_last_deal(plies_into_it: int, viewer: int | None = None) -> tuple[Game, bytes, int]:
    """A royal game stopped ``plies_into_it`` moves into the last deal of its first round."""
    game = Game(ROYAL, ["Ana", "Ben"], seed=7, max_rounds=1)
    played = 0
    while not (game.state.stock == 0 and sum(h.bit_count() for h in game.state.hands) == 8 - plies_into_it):
        moves = game.legal()
        game.play(moves[played % len(moves)])
        played += 1
    return game, log_to_json(game.to_log(viewer)), played


def test_suggest_json_contract_for_a_log(tmp_path: Path) -> None:
    game, data, played = game_in_last_deal(2)
    path = tmp_path / "game.json"
    path.write_bytes(data)
    result = cli("suggest", str(path), "--json")
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout)
    # replay-format.md's fields in its order, and casino_coach's own win_chance after them (issue 18:
    # a log carries the game score, and the preset has a game table), then the moves equal to the
    # best, and the decision's headline (issue 42).
    assert list(out) == [
        *("ply", "seat", "exact", "worlds", "moves", "win_chance", "equal_to_best"),
        *("value_unit", "margin_scale"),  # added after the older fields (replay-format.md)
        "headline",
    ]
    assert out["value_unit"] == "margin" and out["margin_scale"] == 2.0
    assert list(out["win_chance"]) == ["scores", "dealer", "round_start", "best_for_game"]
    assert out["win_chance"]["scores"] == [0, 0] and sum(out["win_chance"]["round_start"]) == 1.0
    assert out["win_chance"]["best_for_game"] is None  # at 0-0 the game is not close
    assert out["ply"] == played and out["seat"] == game.to_move
    assert out["exact"] is True  # 2 players, last deal: every card is known to a counter
    legal = legal_moves(ROYAL, game.state)
    assert len(out["moves"]) == len(legal)
    evs = [m["ev"] for m in out["moves"]]
    assert evs == sorted(evs, reverse=True)
    for m in out["moves"]:
        keys = (
            ["card", "action", "take", "value", "ev", "stderr", "win_chance"]
            if m["action"] == "build"
            else ["card", "action", "take", "ev", "stderr", "win_chance"]
        )
        assert list(m) == keys
        assert len(m["win_chance"]) == 2 and abs(sum(m["win_chance"]) - 1) < 1e-3
        assert m["take"] == sorted(m["take"])
        assert m["stderr"] == 0 and math.isfinite(m["ev"])
    top = orjson.loads(cli("suggest", str(path), "--json", "--top", "2").stdout)
    assert top["moves"] == out["moves"][:2]


def test_suggest_at_an_earlier_move_and_viewer_logs(tmp_path: Path) -> None:
    game, _, played = game_in_last_deal(0)
    path = tmp_path / "viewer.json"
    path.write_bytes(log_to_json(game.to_log(viewer=game.to_move)))
    out = orjson.loads(cli("suggest", str(path), "--json", "--samples", "4").stdout)
    assert out["ply"] == played and out["seat"] == game.to_move and out["exact"] is True
    # The first move of the game, seen by its mover in a full log: sampled, not exact.
    full = tmp_path / "full.json"
    full.write_bytes(log_to_json(game.to_log()))
    first = orjson.loads(cli("suggest", str(full), "--at", "0", "--json", "--samples", "4").stdout)
    assert first["ply"] == 0 and first["exact"] is False
    assert all(m["stderr"] >= 0 for m in first["moves"])


def test_suggest_typed_position_text() -> None:
    result = cli(
        "suggest",
        "--preset",
        "royal",
        "--hand",
        "8S 9C",
        "--table",
        "AC 2D [6S 3H =9 @1]",
        "--hand-sizes",
        "2,2",
        "--seen",
        "KD 5C",
        "--samples",
        "6",
    )
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "9♣ captures 3♥ 6♠" in text  # the 9 takes seat 1's build of 9
    assert "The next best" in text  # the sentences on why
    assert "nodes/s" in text


def test_suggest_says_where_every_kind_of_deal_was_searched_and_what_the_values_rest_on() -> None:
    # The deal before the last: 2 or 3 cards in the mover's hand, 1 or 2 in the other's, 8 in the
    # stock, every other card seen, so the unseen cards fall into a few kinds of deal, all searched. No
    # sampling error ("all", not "0.00"), but not exact either: with 3 cards left the search goes on
    # to the end of the round, with 5 it stops at the end of the deal on an estimate.
    unseen = "2C 3D 4H 5S 6C 7D 8H TC QS"
    for hand, sizes, rest in (
        ("9C JC", "2,1", "each to the end of the round"),
        ("9C JC 4C", "3,2", "the rest of the round estimated where the search stopped"),
    ):
        out = f"{unseen} 5C" if sizes == "3,2" else unseen
        known = set(f"{hand} AH KD {out}".split())
        seen = " ".join(c for c in (r + u for r in "A23456789TJQK" for u in "CDHS") if c not in known)
        args = ["--hand", hand, "--table", "AH KD", "--hand-sizes", sizes, "--stock", "8", "--seen", seen]
        result = cli("suggest", *args)
        assert result.exit_code == 0, result.output
        table, _, rest_of_it = result.stdout.partition("Best:")
        assert re.search(r"\d\.\d\d\s+all\b", table) and "0.00" not in table
        text = " ".join(rest_of_it.split())
        assert f"kinds of deal the player could face searched, with no sampling error; {rest}" in text
        assert "exact" not in text


def test_suggest_typed_position_json_has_null_ply() -> None:
    result = cli(
        "suggest",
        "--hand",
        "8S",
        "--table",
        "8D 3C",
        "--hand-sizes",
        "1,1",
        "--json",
        "--seen",
        " ".join(["2C 2D 2H 2S 3D 3H 3S 4C 4D 4H 4S"]),
    )
    out = orjson.loads(result.stdout)
    assert out["ply"] is None and out["seat"] == 0
    assert out["moves"][0]["action"] == "capture" and out["moves"][0]["take"] == ["8D"]


def test_suggest_errors_are_one_line(tmp_path: Path) -> None:
    assert "unknown card" in one_error_line(cli("suggest", "--hand", "8X", "--table", "8D"))
    assert "not both" in one_usage_line(cli("suggest", "x.json", "--hand", "8S"))
    assert "FILE" in one_usage_line(cli("suggest"))
    _, data, played = game_in_last_deal(2)
    path = tmp_path / "game.json"
    path.write_bytes(data)
    # the file first, as every error about a log (it named only --at)
    assert one_error_line(cli("suggest", str(path), "--at", "9999")).startswith(f"error: {path}: --at 9999: ")
    assert f"from 0 to {played}" in one_error_line(cli("suggest", str(path), "--at", "-1"))
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"format": "casino-replay"')
    one_error_line(cli("suggest", str(bad)))
    one_error_line(cli("suggest", str(tmp_path / "missing.json")))
    assert "unseen cards" in one_error_line(
        cli("suggest", "--hand", "8S 9S", "--table", "8D", "--hand-sizes", "2,2", "--stock", "48")
    )


def test_tree_writes_graphml_and_refuses_unknown_formats(tmp_path: Path) -> None:
    _, data, _ = game_in_last_deal(1)
    path = tmp_path / "game.json"
    path.write_bytes(data)
    out = tmp_path / "tree.graphml"
    result = cli("tree", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    g = nx.read_graphml(out)
    assert g.number_of_nodes() > 1 and nx.is_tree(g)
    gif = tmp_path / "tree.gif"
    assert "unknown graph format" in one_error_line(cli("tree", str(path), "--out", str(gif)))
    assert not gif.exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_tree_draws_svg_and_png_with_graphviz(tmp_path: Path) -> None:
    log = str(REPLAYS / "classic-2p-full.json")
    svg, png = tmp_path / "tree.svg", tmp_path / "drawn"
    result = cli("tree", log, "--at", "12", "--max-depth", "2", "--samples", "8", "--out", str(svg))
    assert result.exit_code == 0, result.output
    assert "(svg)" in result.stderr
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and "</svg>" in text
    assert text.count('class="node"') > 1  # the decision and its moves, laid out
    result = cli("tree", log, "--at", "12", "--max-depth", "2", "--samples", "8", "-f", "png", "-o", str(png))
    assert result.exit_code == 0, result.output
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_tree_without_graphviz_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import casino_coach.report.graph as graph

    def no_search(*_: object, **__: object) -> None:
        raise AssertionError("searched although the picture could not be drawn")

    monkeypatch.setattr(graph.shutil, "which", lambda _name: None)
    # DOT itself needs no Graphviz.
    result = cli("tree", str(REPLAYS / "classic-2p-progress.json"), "--max-depth", "2", "--samples", "4")
    assert result.exit_code == 0 and result.stdout.startswith("digraph")
    # A picture does: one line saying how to install it, before any search, nothing written.
    monkeypatch.setattr("casino_coach.services.decision.suggest", no_search)
    svg = tmp_path / "tree.svg"
    err = one_error_line(cli("tree", str(REPLAYS / "classic-2p-full.json"), "--out", str(svg)))
    assert "Graphviz's dot" in err and "install Graphviz" in err and "apt-get install graphviz" in err
    assert not svg.exists()


def test_tree_picture_needs_an_out_file() -> None:
    err = one_usage_line(cli("tree", str(REPLAYS / "classic-2p-full.json"), "--format", "png"))
    assert "--format png draws a picture: give --out FILE" in err


def test_tree_values_its_moves_as_suggest_does(tmp_path: Path) -> None:
    # One judgement per decision: at a log's ply the tree's legal moves carry suggest's values (the
    # same search, with the move played in focus), not the plain means of the lines through them.
    out = tmp_path / "tree.json"
    log = str(REPLAYS / "classic-2p-full.json")
    assert cli("tree", log, "--at", "12", "--samples", "16", "--out", str(out)).exit_code == 0
    tree = orjson.loads(out.read_bytes())
    top = {n["move"]: n["value"] for n in tree["nodes"] if n["depth"] == 1}
    result = cli("suggest", log, "--at", "12", "--samples", "16", "--json")
    assert result.exit_code == 0, result.output
    moves = orjson.loads(result.stdout)["moves"]
    assert len(top) == len(moves)
    for m in moves:
        _, move = move_from_json({k: v for k, v in m.items() if k not in ("ev", "stderr")})
        assert top[move_text(move)] == pytest.approx(m["ev"], abs=1e-4)


def test_help_has_examples() -> None:
    root = REPLAYS.parent
    for cmd in ("suggest", "tree"):
        result = cli(cmd, "--help")
        assert result.exit_code == 0 and "Example: casino-coach " + cmd in result.stdout
        # The examples run from a checkout: every log or position they read is a bundled file.
        for line in result.stdout.splitlines():
            if "Example: casino-coach" in line:
                words = line.split("Example: casino-coach", 1)[1].split()
                inputs = [w for w in words[1:] if w.endswith(".json") and not w.startswith("-")]
                assert all((root / w).is_file() for w in inputs), line


def test_suggest_json_moves_read_back_with_table_only_builds() -> None:
    # One move-to-JSON writer: a table-only build's trail keeps its "value" (issue 9).
    result = cli(
        "suggest",
        "-r",
        "table_only_builds=true",
        "--hand",
        "8S 4H",
        "--table",
        "3C 5D",
        "--hand-sizes",
        "2,2",
        "--json",
    )
    moves = orjson.loads(result.stdout)["moves"]
    assert any(m["action"] == "trail" and m["take"] for m in moves)
    for m in moves:
        _, move = move_from_json({k: v for k, v in m.items() if k not in ("ev", "stderr")})
        assert move_to_json(move) == {k: v for k, v in m.items() if k not in ("ev", "stderr")}


def test_suggest_names_the_mover_and_writes_the_line_in_words(tmp_path: Path) -> None:
    # issue 10: name the player to move; the best line in words with who plays each card
    game, data, played = game_in_last_deal(2)
    path = tmp_path / "game.json"
    path.write_bytes(data)
    result = cli("suggest", str(path))
    assert result.exit_code == 0, result.output
    mover, other = game.to_move, 1 - game.to_move
    names = ["Ana", "Ben"]
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{names[mover]} (seat {mover}) to move (ply {played}): hand ")
    start = lines.index("Best line (every card is known to the player to move):")
    line = [" ".join(row.split()) for row in lines[start + 1 : start + 7]]
    assert line[0].startswith(f"ply {played} {names[mover]} (seat {mover}) ")
    assert line[1].startswith(f"ply {played + 1} {names[other]} (seat {other}) ")
    assert all(any(w in row for w in ("captures", "trails", "builds")) for row in line)
    said = " ".join(result.stdout.split())
    assert (
        f"Values are margins: the expected points of {names[mover]} (seat {mover}) this round minus "
        f"those of {names[other]} (seat {other}), so a point that goes to {names[other]} (seat {other}) "
        "instead counts 2" in said
    )
    assert said.count("Values are margins") == 1  # the scale is said once


def test_no_line_where_the_mover_cannot_tell_who_holds_the_cards_out() -> None:
    # Regression: in the last deal of a 3-player round the two other hands can hold the cards still
    # out in several ways: the line showed one of them ("Ben A♠ trails", "Ana K♣ captures A♠ Q♠"; Ben
    # held the K♣). Nor are the values exact (issue 41): they hold if the others play together
    # against the mover, and the output says so.
    result = cli("suggest", str(REPLAYS / "royal-3p-full.json"), "--at", "42")
    assert result.exit_code == 0, result.output
    words = " ".join(result.stdout.split())
    assert "Best line" not in words
    assert (
        "No line of play: the player to move knows the cards still out but not who holds which (6 ways)"
        in words
    )
    assert "blunder, lost 1.00 of margin (over all 3 worlds)" in words  # a loss of one point is a blunder
    assert "(exact)" not in words and "exact:" not in words
    assert "the other players as if they played together against the mover" in words


def test_suggest_judges_a_move_as_analyze_does_at_other_settings(tmp_path: Path) -> None:
    # Regression: suggest had no --depth and no class thresholds, so a verdict of 'analyze --depth 4
    # --mistake 0.4' could not be checked move by move.
    log = REPLAYS / "classic-2p-progress.json"
    settings = ("--seed", "7", "--depth", "4", "--samples", "40", "--mistake", "0.4")
    analysis = orjson.loads(
        cli("analyze", str(log), "--json", "--jobs", "1", "--player", "Ana", *settings).stdout
    )
    rated = [m for m in analysis["moves"] if m.get("class") not in (None, "forced")]
    rated = sorted(rated, key=lambda m: -m["loss"])[:3]  # the largest losses: the verdicts that say most
    assert rated and rated[0]["loss"] > 0.2
    for m in rated:
        got = orjson.loads(cli("suggest", str(log), "--at", str(m["ply"]), "--json", *settings).stdout)
        played = got["played"]
        assert played["class"] == m["class"]
        assert played["loss"] == pytest.approx(m["loss"], abs=0.0006)
        assert played["loss_interval"] == pytest.approx(m["loss_interval"], abs=0.0006)


def test_a_typed_position_says_what_its_values_count(tmp_path: Path) -> None:
    # issue 10: on a typed position, say what the value is relative to (cards not listed are unseen)
    result = cli(
        *("suggest", "--hand", "8S 9C", "--table", "AC 2D [6S 3H =9 @1]", "--hand-sizes", "2,2"),
        *("--seen", "KD 5C", "--captured", "AS 2S 3S", "--captured", "QH KH", "--samples", "16"),
    )
    assert result.exit_code == 0, result.output
    words = " ".join(result.stdout.split())
    assert words.startswith("you (seat 0) to move: hand 8♠ 9♣")
    assert "Values are margins: your expected points this round minus those of seat 1" in words
    assert "(captured so far: you (seat 0) 3, seat 1 2)" in words
    # 52 - 2 in the hand - 4 on the table - 2 seen - 5 captured = 39 unseen: 2 in seat 1's hand
    assert "The 39 cards listed nowhere" in words and "2 in the other hands and 0 in the stock" in words
    assert "the other 37 count as captured earlier by no one known" in words
    assert "No line of play" in words


def test_suggest_help_shows_how_to_type_a_position() -> None:
    words = " ".join(cli("suggest", "--help").stdout.split())
    for needle in (
        "--captured CARDS",
        "once per side",
        "--seen CARDS",
        "[CARDS =VALUE @SEAT]",
        "@SEAT: its owner",
    ):
        assert needle in words, needle
    assert "T J Q K; 10 for T" in words and "unseen" in words


def test_a_finished_log_has_no_position_to_suggest_and_the_error_names_it() -> None:
    full = Path(__file__).resolve().parents[1] / "replays" / "classic-2p-full.json"
    err = one_error_line(cli("suggest", str(full)))
    assert err.startswith(f"error: {full}: the log stops between rounds: the game is over"), err


def test_suggest_says_what_the_round_points_count_near_21() -> None:
    # Regression (QA): at 20-15 in Dominican the side at 20 wins only by Little Casino and scores
    # nothing else, yet "Most cards: 2.16 points ... The ace A♥: 1.20" read as points it would score.
    args = ["suggest", "--preset", "dominican", "--hand", "2S 8C", "--table", "2H AH 7D"]
    args += ["--hand-sizes", "2,2", "--samples", "16"]
    words = " ".join(cli(*args, "--scores", "20,15").stdout.split())
    assert (
        "Near 21 (rules.md 1.14): you (seat 0) at 20 can win the game this round only by Little Casino "
        "2♠, and your other items, sweeps too, score nothing. The round's points here count every item "
        "as a round from 0-0 does; the chance to win the game counts only what scores."
    ) in words
    assert "Near 21" not in cli(*args, "--scores", "17,15").stdout


def test_a_typed_position_takes_the_game_score() -> None:
    # A typed position had no way to give the game score, so no chances to win the game (QA).
    args = ["suggest", "--hand", "TH AD", "--table", "4S 5D JD QD", "--preset", "dominican"]
    args += ["--hand-sizes", "2,1", "--last-capture", "1", "--json"]
    out = orjson.loads(cli(*args, "--scores", "14,19").stdout)
    assert out["win_chance"]["scores"] == [14, 19] and all("win_chance" in m for m in out["moves"])
    assert "win_chance" not in orjson.loads(cli(*args).stdout)
    assert "the game is already won" in one_error_line(cli(*args, "--scores", "21,19"))
    assert "--scores: give one score" in one_error_line(cli(*args, "--scores", "14"))
    assert "dealer: seat 1 cannot have dealt" in one_error_line(cli(*args, "--dealer", "1"))
    usage = one_usage_line(cli("suggest", "replays/royal-2p-position.json", "--scores", "1,2"))
    assert "--scores and --dealer are for a typed position" in usage


def test_equal_moves_are_named_as_equal() -> None:
    # Issue 42: at ply 42 of classic-2p-full three moves are worth -3.00 exactly, and at ply 0 five
    # moves lie within 0.02 of each other (each within the noise of the best); suggest taught the
    # first of them as best. Now they share the first rank, the sentence names them as equal, and the
    # explanation is of the next move that is not.
    log = str(REPLAYS / "classic-2p-full.json")
    words = " ".join(cli("suggest", log, "--at", "42").stdout.split())
    assert (
        "Best, equal: A♠ builds 8 with 7♦, A♠ trails or 9♥ trails. The next best, 8♦ trails, loses 4.00"
        in words
    )
    out = orjson.loads(cli("suggest", log, "--at", "42", "--json").stdout)
    assert [move_from_json(m)[1].describe() for m in out["equal_to_best"]] == ["A♠ trails", "9♥ trails"]
    table = cli("suggest", log, "--at", "42").stdout.splitlines()
    ranks = [line.split()[0] for line in table if re.match(r"\d+  ", line)]
    assert ranks == ["1", "1", "1", "4"]
    early = " ".join(cli("suggest", log, "--at", "0").stdout.split())
    assert "Best, equal within the noise: 5♦ trails, 3♠ builds two 10s with 7♣ 10♠" in early
    first = orjson.loads(cli("suggest", log, "--at", "0", "--json").stdout)
    assert len(first["equal_to_best"]) >= 2
    # A decision with one clear best move has none, and says "Best:".
    assert orjson.loads(cli("suggest", log, "--at", "1", "--json").stdout)["equal_to_best"] == []
    assert "Best: " in cli("suggest", log, "--at", "1").stdout


def test_no_module_path_in_what_suggest_says_of_the_game() -> None:
    # Issue 42: the footnote of the game column named a module, "casino_coach.coach.winning".
    words = " ".join(cli("suggest", str(REPLAYS / "classic-2p-full.json"), "--at", "0").stdout.split())
    assert "casino_coach" not in words
    assert "the chances after a round come from rounds of self-play" in words


def test_tree_on_a_terminal_writes_its_first_levels() -> None:
    # Issue 42: tree printed the whole tree (3,547 lines of DOT) to a terminal. Without --max-depth a
    # terminal gets the moves and their first replies, and the line under it says how to get more;
    # a pipe still gets the whole tree.
    import os
    import pty

    log = str(REPLAYS / "classic-2p-progress.json")
    command = [sys.executable, "-c", "from casino_coach.cli import main; main()", "tree", log]
    master, slave = pty.openpty()
    proc = subprocess.Popen(command, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    shown = b""
    with contextlib.suppress(OSError):  # the terminal's end reads EIO once the command has exited
        while chunk := os.read(master, 1 << 16):
            shown += chunk
    os.close(master)
    assert proc.stderr is not None
    said = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, said
    assert "wrote the first 2 levels of the tree (--max-depth D for more, --out FILE for all of it)" in said
    piped = subprocess.run(command, capture_output=True, check=True, timeout=120)
    assert b"wrote the tree (dot)" in piped.stderr
    assert shown.strip().endswith(b"}") and shown.count(b"\n") < piped.stdout.count(b"\n")
