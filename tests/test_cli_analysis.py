"""``casino-coach analyze`` and ``export``: output, options, and one-line errors on bad input."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from test_analysis import make_log
from test_report import page_data
from typer.testing import CliRunner

from casino_coach.cli import app

FAST = ["--samples", "3", "--seed", "1"]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "160", "NO_COLOR": "1"})


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    path.write_bytes(orjson.dumps(make_log(21, deals=1)))
    return path


def test_analyze_json(runner: CliRunner, game: Path) -> None:
    res = runner.invoke(app, ["analyze", str(game), "--json", *FAST])
    assert res.exit_code == 0, res.output
    obj = orjson.loads(res.stdout)
    assert len(obj["moves"]) == 8
    m = obj["moves"][0]
    assert {"ply", "seat", "played", "best", "loss", "class", "explanations", "exact"} <= set(m)
    assert m["played"]["card"] and m["class"] in ("best", "good", "inaccuracy", "mistake", "blunder")
    assert [s["player"] for s in obj["summary"]] == ["Ana", "Ben"]
    assert obj["settings"]["samples"] == 3


def test_analyze_terminal(runner: CliRunner, game: Path) -> None:
    res = runner.invoke(app, ["analyze", str(game), *FAST, "--player", "Ben", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "Game analysis: Ana vs Ben" in out and "Summary" in out and "The whole game" in out
    assert "not rated" in out  # Ana's moves are shown, not rated
    # Issue 42: the header spoke of "3-3 sampled worlds per move"; it says what a player can follow.
    words = " ".join(out.split())
    assert "sampled worlds" not in words and "each move judged over 3 to 3 deals of the hidden cards" in words


def test_the_reports_settings_line_speaks_of_deals_not_worlds(
    runner: CliRunner, game: Path, tmp_path: Path
) -> None:
    # Issue 42: the Markdown and HTML settings line said "16 to 320 sampled worlds per move ... classes
    # of worlds alike".
    out = tmp_path / "game.md"
    res = runner.invoke(app, ["export", str(game), *FAST, "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(out.read_text(encoding="utf-8").split())
    assert "each move judged over 3 to 3 deals of the hidden cards" in text
    assert "sampled worlds" not in text and "classes of worlds" not in text
    assert "each deal is searched as if every player saw every hand" in text


def test_export_formats(runner: CliRunner, game: Path, tmp_path: Path) -> None:
    for fmt, marker in (
        ("html", b"<!DOCTYPE html>"),
        ("md", b"# Game analysis"),
        ("json", b'"format": "casino-analysis"'),
    ):
        out = tmp_path / f"report.{fmt}"
        res = runner.invoke(app, ["export", str(game), "--format", fmt, "--out", str(out), *FAST])
        assert res.exit_code == 0, res.output
        assert marker in out.read_bytes()


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (["--player", "Zoe"], "player 'Zoe' is not in this game", 1),
        # out of their ranges: usage errors, status 2 as for --seed -1
        (["--jobs", "0"], "--jobs must be from 1 to 64, got 0", 2),
        # hung: a process per move was started
        (["--jobs", str(10**23)], f"--jobs must be from 1 to 64, got {10**23}", 2),
        (["--samples", str(10**23)], f"--samples must be from 1 to 100,000, got {10**23}", 2),
        (["--depth", str(10**23)], f"--depth must be from 1 to 1,000 plies, got {10**23}", 2),
        (["--mistake", "0.1"], "class thresholds must grow", 2),
    ],
)
def test_bad_options_fail_in_one_line(
    runner: CliRunner, game: Path, tmp_path: Path, args: list[str], message: str, status: int
) -> None:
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["export", str(game), "--out", str(out), *FAST, *args])
    assert res.exit_code == status
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert "Traceback" not in res.output and not out.exists()


def test_a_negative_worst_is_refused(runner: CliRunner, game: Path) -> None:
    # --worst -1 listed every missed move but one
    res = runner.invoke(app, ["analyze", str(game), *FAST, "--worst", "-1"])
    assert res.exit_code == 2 and res.stderr.strip() == "error: --worst must be 0 or more, got -1"


# --- export --from: a saved analysis rendered without a search ---------------------------------------

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
QUICK = ["--samples", "4", "--depth", "2", "--jobs", "1"]


@pytest.mark.parametrize("log", ["classic-2p-full.json", "royal-3p-viewer.json"])
def test_export_from_a_saved_analysis_is_the_export_of_the_log(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log: str
) -> None:
    path = str(REPLAYS / log)
    saved = runner.invoke(app, ["analyze", path, "--json", *QUICK])
    assert saved.exit_code == 0, saved.output
    (tmp_path / "analysis.json").write_text(saved.stdout)
    direct = {}
    for ext in ("html", "md", "json"):
        out = tmp_path / f"log.{ext}"
        res = runner.invoke(app, ["export", path, "--out", str(out), *QUICK])
        assert res.exit_code == 0, res.output
        direct[ext] = out.read_bytes()

    def no_search(*_: object, **__: object) -> None:
        raise AssertionError("export --from searched")

    import casino_coach.coach.analysis as analysis
    import casino_coach.coach.assessment as assessment

    monkeypatch.setattr(analysis, "analyze", no_search)
    monkeypatch.setattr(assessment, "assess", no_search)
    for ext in ("html", "md", "json"):
        out = tmp_path / f"saved.{ext}"
        res = runner.invoke(app, ["export", "--from", str(tmp_path / "analysis.json"), "--out", str(out)])
        assert res.exit_code == 0, res.output
        assert res.stderr.startswith(f"wrote {out} ({ext}, ")
        if ext == "json":  # the same document but for the time the search took
            again, before = orjson.loads(out.read_bytes()), orjson.loads(direct[ext])
            assert again.pop("seconds") >= 0 and before.pop("seconds") >= 0
            assert again == before
            assert {k: v for k, v in orjson.loads(saved.stdout).items() if k != "seconds"} == again
        else:
            assert out.read_bytes() == direct[ext], ext


def test_export_from_refuses_what_is_not_an_analysis(runner: CliRunner, game: Path, tmp_path: Path) -> None:
    saved = runner.invoke(app, ["analyze", str(game), "--json", *FAST])
    doc = orjson.loads(saved.stdout)
    out = tmp_path / "r.html"
    bad = tmp_path / "bad.json"

    def refused(data: bytes, *args: str, status: int = 1) -> str:
        bad.write_bytes(data)
        res = runner.invoke(app, ["export", "--from", str(bad), "--out", str(out), *args])
        assert res.exit_code == status, res.output
        assert "Traceback" not in res.output and res.stdout == ""
        assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error: ")
        assert not out.exists()  # nothing written, not even half
        return res.stderr.strip()

    assert refused(game.read_bytes()) == (
        f'error: {bad}: format: "casino-replay", not an analysis (expected casino-analysis): give the '
        "log itself, without --from"
    )
    assert refused(b"{not json").startswith(f"error: {bad}: bad JSON")
    assert "a JSON array of 2 items, not one analysis" in refused(orjson.dumps([doc, doc]))
    assert refused(orjson.dumps({**doc, "version": 7})).endswith(
        "unknown casino-analysis version 7, this reader knows 1"
    )
    broken = {**doc, "moves": [dict(m) for m in doc["moves"]]}
    del broken["moves"][2]["loss"]
    assert refused(orjson.dumps(broken)) == f'error: {bad}: moves[2]: the field "loss" is missing'
    broken["moves"][2]["loss"] = "much"
    assert refused(orjson.dumps(broken)) == (
        f'error: {bad}: moves[2]: a field of the wrong kind: expected a number, got "much"'
    )
    missing = tmp_path / "missing.json"
    res = runner.invoke(app, ["export", "--from", str(missing), "--out", str(out)])
    assert res.exit_code == 1 and res.stderr.startswith(f"error: {missing}: ") and not out.exists()
    # A log and --from, neither, or an option of the search with --from: usage errors.
    bad.write_bytes(saved.stdout.encode())
    for args, says in (
        ([str(game), "--from", str(bad)], "give a LOG to analyse or --from ANALYSIS, not both"),
        ([], "give a LOG or --from ANALYSIS"),
        (["--from", str(bad), "--samples", "9"], "--samples shapes a search"),
        (["--from", str(bad), "--no-world"], "--world/--no-world shapes a search"),
    ):
        res = runner.invoke(app, ["export", *args, "--out", str(out)])
        assert res.exit_code == 2 and says in res.stderr and not out.exists(), res.output


REPLAYS = Path(__file__).resolve().parents[1] / "replays"


def _words(text: str) -> str:
    """The words of a terminal report, its panels' borders and line breaks taken out."""
    return " ".join(re.sub(r"[│╭╮╰╯─┃┏┓┗┛━┡┩╇┳┻╋┠┨]", " ", text).split())


def test_values_are_margins_in_every_format(runner: CliRunner, tmp_path: Path) -> None:
    # Issue 42: ply 137 of the viewer log said "lost 10.00 ... Most cards: 6.00 points ... Little
    # Casino 2♠: 2.00 points", and the page "expected −3.00 round points for Ana": values are margins
    # (the mover's points minus the opponent's), so a category's worth is named in Casino points and
    # its effect as a swing in the margin, and the scale is said once per report.
    log = str(REPLAYS / "classic-2p-viewer.json")
    args = [log, "--samples", "3", "--seed", "1", "--jobs", "1", "--player", "Ana"]
    scale = (
        "Values are margins: the mover's points this round minus the opponent's, so a point that goes "
        "to the opponent instead counts 2."
    )
    res = runner.invoke(app, ["analyze", *args, "--worst", "1", "--no-moves", "--detail"])
    assert res.exit_code == 0, res.output
    terminal = _words(res.output)
    md_path = tmp_path / "a.md"
    assert runner.invoke(app, ["export", *args, "--out", str(md_path)]).exit_code == 0
    markdown = " ".join(md_path.read_text(encoding="utf-8").split())
    for text in (terminal, markdown):
        assert "Most cards: 6.00 points" not in text and "2.00 points" not in text
        assert "Most cards: 3 points, a swing of 6.00 in the margin." in text
        assert "Little Casino 2♠ (not seen yet): 1 point, a swing of 2.00 in the margin." in text
        assert "Most spades: 1 point, a swing of 2.00 in the margin." in text
        assert text.count(scale) == 1 and text.count("Values are margins") == 1
    assert "ply 137, round 3, deal 6, Ana: blunder, lost 10.00 of margin" in terminal
    assert "*blunder*, lost 10.00 of margin (exact)" in markdown
    assert re.search(r"margin lost\s+[\d.]+", terminal)
    # The page: no "round points" for a value (nobody scores below 0 in a round), the scale once.
    html_path = tmp_path / "a.html"
    assert runner.invoke(app, ["export", *args, "--out", str(html_path)]).exit_code == 0
    page = html_path.read_text(encoding="utf-8")
    assert "round points for" not in page and "expected round points" not in page
    assert page.count("Values are margins") == 1 and "expected margin" in page
    data = page_data(page)
    ply = next(p for p in data["plies"] if p["ply"] == 137)
    assert ply["value"] == -3.0 and data["margins"] == [
        "Ana's points minus Ben's",
        "Ben's points minus Ana's",
    ]
    # The JSON keeps its fields and their meaning, and says what they are.
    out = orjson.loads(runner.invoke(app, ["analyze", *args, "--json"]).stdout)
    assert out["value_unit"] == "margin" and out["margin_scale"] == 2.0
    m = next(m for m in out["moves"] if m["ply"] == 137)
    assert m["loss"] == 10.0 and m["played_value"] == -3.0
    assert [(e["kind"], e["points"]) for e in m["explanations"]] == [
        ("cards", 6.0),
        ("little_casino", 2.0),
        ("spades", 2.0),
    ]


def test_a_three_player_margin_counts_a_point_one_and_a_half(runner: CliRunner) -> None:
    log = str(REPLAYS / "classic-3p-full.json")
    args = [log, "--samples", "2", "--depth", "1", "--jobs", "1"]
    res = runner.invoke(app, ["analyze", *args, "--worst", "1", "--no-moves"])
    assert res.exit_code == 0, res.output
    assert (
        "Values are margins: the mover's points this round minus the mean of the others', so a point "
        "that goes to another player instead counts 1.5." in _words(res.output)
    )
    assert orjson.loads(runner.invoke(app, ["analyze", *args, "--json"]).stdout)["margin_scale"] == 1.5


def test_the_settings_name_the_leaf_the_values_rest_on(runner: CliRunner) -> None:
    # Two sides of a preset are valued at a deal's end by the learned leaf, three by the handmade one
    # (no weights are fitted for them); an analysis saved before the settings named it reads as the
    # handmade one, which made it.
    from casino_coach.report.document import _options_from

    replays = Path(__file__).resolve().parents[1] / "replays"
    quick = ["--json", "--samples", "2", "--depth", "2", "--jobs", "1"]
    two = runner.invoke(app, ["analyze", str(replays / "classic-2p-progress.json"), *quick])
    three = runner.invoke(app, ["analyze", str(replays / "classic-3p-progress-viewer.json"), *quick])
    assert two.exit_code == 0 and three.exit_code == 0, two.output + three.output
    settings = orjson.loads(two.stdout)["settings"]
    assert settings["leaf"] == "learned" and orjson.loads(three.stdout)["settings"]["leaf"] == "handmade"
    assert _options_from(settings).limits.leaf == "learned"
    older = {k: v for k, v in settings.items() if k != "leaf"}
    assert _options_from(older).limits.leaf == "handmade"
    # So too whether few worlds were taken without replacement: an analysis saved before drew them.
    assert settings["shuffled"] is True and _options_from(settings).limits.shuffled
    assert not _options_from({k: v for k, v in settings.items() if k != "shuffled"}).limits.shuffled
