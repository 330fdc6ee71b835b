"""The skill of a missed move (coach/skills.py): one hand-made position per skill, and the order in
which the rules are tried."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from test_game_positions import _seat_0_to_move

from casino_coach.coach.explain import Explanation
from casino_coach.coach.skills import SKILL_NAMES, Skill, parse_skill, skill_of
from casino_coach.engine.movegen import Move
from casino_coach.engine.notation import complete_move
from casino_coach.engine.observation import as_state, own_moves
from casino_coach.formats.position import Position, position_from_obj


def _position(
    hand: Sequence[str],
    loose: Sequence[str],
    builds: Sequence[dict[str, Any]] = (),
    preset: str = "classic",
) -> Position:
    """Two players, seat 0 to move with ``hand``, the last deal."""
    obj = _seat_0_to_move(preset, hand, loose, (0, 0))
    obj["table"]["builds"] = list(builds)
    return position_from_obj(obj)


def _move(pos: Position, typed: str) -> Move:
    obs = pos.observation
    return complete_move(pos.rules, as_state(obs, obs.known, False), typed, own_moves(pos.rules, obs))


def _skill(pos: Position, played: str, best: str, explanations: Sequence[Explanation] = ()) -> Skill | None:
    obs = pos.observation
    return skill_of(
        pos.rules,
        pos.players,
        obs.to_move,
        obs.loose,
        obs.builds,
        _move(pos, played),
        _move(pos, best),
        explanations,
    )


def test_capturing_the_opponents_build_is_answering_builds() -> None:
    pos = _position(["7C", "4D"], ["3H"], [{"cards": ["5S", "2D"], "value": 7, "owner": 1}])
    assert _skill(pos, "4D t", "7C x") == Skill.ANSWERING_BUILDS


def test_raising_or_cashing_your_own_build_is_protecting_builds() -> None:
    pos = _position(["8C", "5D", "3S"], ["5H"], [{"cards": ["6H", "2C"], "value": 8, "owner": 0}])
    assert _skill(pos, "5D x", "8C x") == Skill.PROTECTING_BUILDS
    assert _skill(pos, "5D x", "3S b8 5H") == Skill.PROTECTING_BUILDS
    # Cashing it is keeping it too: that move played, another capture best is no miss of the build.
    assert _skill(pos, "8C x", "5D x") == Skill.PAIRS_AND_SUMS


def test_a_table_one_card_takes_whole_is_leaving_no_sweep_where_sweeps_score() -> None:
    royal = _position(["5C", "4D"], ["4H"], preset="royal")
    # 5♣ trailed beside 4♥ leaves 9 for a 9 to sweep; 4♦ takes 4♥ and leaves nothing.
    assert _skill(royal, "5C t", "4D x") == Skill.LEAVING_NO_SWEEP
    classic = _position(["5C", "4D"], ["4H"])  # classic scores no sweeps
    assert _skill(classic, "5C t", "4D x") == Skill.PAIRS_AND_SUMS


def test_a_loss_that_lies_in_aces_and_casinos_is_aces_and_casinos() -> None:
    pos = _position(["AC", "9D"], ["AH", "5S"])
    charged = [Explanation("ace", "", 0.8), Explanation("cards", "", 0.3), Explanation("spades", "", -0.2)]
    assert _skill(pos, "9D t", "AC x", charged) == Skill.ACES_AND_CASINOS
    mostly_cards = [Explanation("ace", "", 0.3), Explanation("cards", "", 0.8)]
    assert _skill(pos, "9D t", "AC x", mostly_cards) == Skill.PAIRS_AND_SUMS


def test_another_trail_best_is_choosing_what_to_trail() -> None:
    pos = _position(["3C", "9D"], ["KH", "QS"])
    assert _skill(pos, "9D t", "3C t") == Skill.TRAILING


def test_a_build_best_is_building() -> None:
    pos = _position(["3C", "8D", "5H"], ["5S"])
    assert _skill(pos, "5H x", "3C b8") == Skill.BUILDING


def test_a_capture_best_is_taking_pairs_and_sums() -> None:
    pos = _position(["8C", "2D"], ["3H", "5S"])
    assert _skill(pos, "2D t", "8C x") == Skill.PAIRS_AND_SUMS


def test_the_best_move_played_has_no_skill() -> None:
    pos = _position(["8C", "2D"], ["3H", "5S"])
    assert _skill(pos, "8C x", "8C x") is None


def test_parse_skill_names_every_skill_on_a_bad_name() -> None:
    assert parse_skill("Building") == Skill.BUILDING
    with pytest.raises(ValueError, match="unknown skill 'bulding'") as e:
        parse_skill("bulding")
    assert all(name in str(e.value) for name in SKILL_NAMES)
