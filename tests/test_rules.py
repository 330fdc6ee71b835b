from __future__ import annotations

import pytest

from casino_coach.engine.rules import OPTION_NAMES, RuleSet
from casino_coach.errors import RulesError


def test_presets_defaults() -> None:
    c, r, d = (RuleSet.from_preset(p) for p in ("classic", "royal", "dominican"))
    assert (c.face_cards, r.face_cards, d.face_cards) == ("pair_only", "numeric", "numeric")
    assert (c.sweeps, r.sweeps, d.sweeps) == (False, True, True)
    assert (c.sweep_cancellation, r.sweep_cancellation, d.sweep_cancellation) == (False, False, True)
    assert (c.count_out, r.count_out, d.count_out) == (False, True, True)
    assert d.trail_restriction == "equal_loose" and not d.raise_own_build
    assert d.partner_build_interaction == "none" and d.near_target_rules == "dominican"
    assert (c.max_build, r.max_build) == (10, 14)
    assert r.capture_values[0] == (1, 14) and c.capture_values[0] == (1,)


def test_options_override_and_round_trip() -> None:
    r = RuleSet.from_dict(
        {
            "preset": "classic",
            "sweeps": True,
            "count_out_order": ["big_casino", "little_casino", "cards", "spades", "aces", "sweeps"],
        }
    )
    assert r.sweeps
    assert RuleSet.from_dict(r.to_dict()) == r
    assert r.to_dict()["preset"] == "classic"
    assert RuleSet.from_dict({"preset": "royal"}).to_dict() == {"preset": "royal"}


@pytest.mark.parametrize(
    ("data", "msg"),
    [
        ({"preset": "klondike"}, "unknown preset"),
        ({"preset": "classic", "jokers": True}, "unknown rule option 'jokers'"),
        ({"preset": "classic", "sweeps": "yes"}, "must be true or false"),
        ({"preset": "classic", "trail_restriction": "never"}, "must be one of"),
        ({"preset": "classic", "target": -3}, "whole number"),
        ({"preset": "classic", "count_out_order": ["cards"]}, "count_out_order"),
        # a number beside the names: sorted() cannot compare them (issue 16, item 2)
        ({"preset": "royal", "count_out_order": [1, "cards"]}, "count_out_order"),
        ({"preset": "royal", "count_out_order": [[1], "cards"]}, "count_out_order"),
        ({"preset": "classic", "ace_value": "one_or_fourteen"}, "numeric courts"),
        ({"preset": "classic", "false_build": "penalty"}, "not supported"),
        ({"preset": "classic", "claim_during_play": True}, "not supported"),
        ({"preset": "royal", "court_builds": True}, "court_builds"),
        # selfplay ran such a game forever
        (
            {"preset": "classic", **dict.fromkeys(("points_cards", "points_spades", "points_big"), 0)}
            | dict.fromkeys(("points_little", "points_ace"), 0),
            "no item scores a point",
        ),
    ],
)
def test_bad_options(data: dict[str, object], msg: str) -> None:
    with pytest.raises(RulesError, match=msg):
        RuleSet.from_dict(data)
    options = {k: v for k, v in data.items() if k != "preset"}
    if data.get("preset") in RuleSet.preset_names() and "jokers" not in options:
        with pytest.raises(RulesError, match=msg):  # a copy is checked like any other
            RuleSet.from_preset(str(data["preset"])).replace(**options)


def test_every_option_is_named() -> None:
    for name in (
        "partnerships",
        "court_pairing_count",
        "trail_restriction",
        "equal_loose_capture",
        "build_as_card_in_sums",
        "raise_own_build",
        "partner_build_interaction",
        "table_cards_in_raise",
        "allow_duplicate_value_builds",
        "merge_builds",
        "owner_may_trail",
        "sweeps",
        "sweep_cancellation",
        "near_target_20",
        "near_target_mode",
        "majority_tie",
        "count_out",
        "target",
    ):
        assert name in OPTION_NAMES


def test_every_option_says_what_it_settles_as_the_rules_reference_words_it() -> None:
    # Issue 10: casino-coach rules listed names and values only; each option now says what it settles,
    # with the id of its question in rules.md section 2 (or the section of the rules it belongs to).
    import re
    from pathlib import Path

    from casino_coach.engine.rules import OPTION_NAMES, OPTION_QUESTIONS

    assert set(OPTION_QUESTIONS) == set(OPTION_NAMES)
    docs = (Path(__file__).parents[1] / "docs" / "rules.md").read_text()
    questions = {}
    for line in docs.splitlines():
        if re.match(r"\| [A-Z]\d+ \|", line):
            ident, question = (c.strip() for c in line.strip("|").split(" | ")[:2])
            questions[ident] = question.replace("*", "")
    for name, text in OPTION_QUESTIONS.items():
        ident, _, words = text.partition(" ")
        if ident in questions:
            assert questions[ident].startswith(words), name
            row = next(line for line in docs.splitlines() if line.startswith(f"| {ident} |"))
            assert f"`{name}" in row or ("points_{" in row and name.startswith("points_")), name
        else:  # a rule of section 1 without a disagreement
            assert re.search(rf"^### {re.escape(ident)} ", docs, re.M) and f"`{name}`" in docs, name


def test_the_rules_command_shows_what_each_option_settles() -> None:
    from typer.testing import CliRunner

    from casino_coach.cli import app

    result = CliRunner().invoke(app, ["rules", "royal"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "D1 Four players: partnerships or not" in result.output
    assert "S12 Count-out order" in result.output


def test_a_typed_option_too_large_for_a_number_says_so() -> None:
    # Regression (QA): -r target=99999999999999999999999 was "must be a whole number >= 1, got 1e+23".
    from casino_coach.formats.codec import parse_options

    with pytest.raises(RulesError, match=r"^option 'target': 99999999999999999999999 is too large a number$"):
        parse_options(["target=99999999999999999999999"])
    assert parse_options(["target=25", "points_ace=1.5", "sweeps=true"]) == {
        "target": 25,
        "points_ace": 1.5,
        "sweeps": True,
    }
