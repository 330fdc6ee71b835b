"""Observations: what a seat can know, and tracking a viewer's view move by move."""

from __future__ import annotations

import random

import pytest
from conftest import position
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.notation import parse_hand, parse_move
from casino_coach.engine.observation import observe, observe_deal, observe_move, observed_legal
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import deal, new_round, shuffle_round
from casino_coach.errors import IllegalMoveError

ROYAL = RuleSet.from_preset("royal")


def test_observe_hides_other_hands_and_stock() -> None:
    s = position(ROYAL, ["8C 2H", "3S 4S"], "5D", stock=1 << 51)
    obs = observe(s, 0)
    assert obs.hand == s.hands[0]
    assert obs.unseen == s.hands[1] | s.stock
    assert obs.known[1] == 0 and obs.hand_sizes == (2, 2) and obs.stock_count == 1


def test_opponent_move_judged_on_some_consistent_hand() -> None:
    # The 8♠ is in the stock: seat 0 cannot tell it from seat 1's hand.
    s = position(ROYAL, ["8C 2H", "3S 4S"], "5D", stock=parse_hand("8S"))
    obs = observe(s, 0)._replace(to_move=1)
    assert observed_legal(ROYAL, obs, parse_move("3S b8 5D")) == ""  # might hold an 8
    assert "seen elsewhere" in observed_legal(ROYAL, obs, parse_move("8C"))
    with pytest.raises(IllegalMoveError):
        observe_move(ROYAL, obs, parse_move("3S x 5D"))


@settings(max_examples=20, deadline=None)
@given(
    preset=st.sampled_from(["classic", "royal", "dominican"]),
    n=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
    viewer=st.integers(0, 3),
)
def test_viewer_tracking_matches_full_state(preset: str, n: int, seed: int, viewer: int) -> None:
    rules = RuleSet.from_preset(preset)
    viewer %= n
    rng = random.Random(seed)
    sh = shuffle_round(rng, n)
    s = new_round(n, 2 if n == 4 else n, 0, sh.table, sh.deals[0])
    obs = observe(s, viewer)
    i = 1
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[i])
            obs = observe_deal(obs, s.hands[viewer])
            i += 1
        assert obs == observe(s, viewer)
        m = rng.choice(legal_moves(rules, s))
        s = apply(rules, s, m)
        obs = observe_move(rules, obs, m)
    assert obs == observe(s, viewer)
