"""The live game loop: dealing, scoring, logging, and agreement with the replayer."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.engine.cards import FULL_DECK
from casino_coach.engine.movegen import TRAIL, Move
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import deals_per_round, shuffle_round
from casino_coach.errors import CoachError, IllegalMoveError
from casino_coach.formats.game import Game
from casino_coach.formats.log import log_to_json, read_log
from casino_coach.formats.replay import replay_log


def random_game(preset: str, n: int, seed: int, **opts: object) -> Game:
    game = Game(RuleSet.from_preset(preset, **opts), n, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        game.play(rng.choice(game.legal()))
    return game


@settings(max_examples=12, deadline=None)
@given(
    preset=st.sampled_from(["classic", "royal", "dominican"]),
    n=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**31),
)
def test_game_runs_to_a_winner_and_its_log_replays(preset: str, n: int, seed: int) -> None:
    game = random_game(preset, n, seed)
    assert game.winner is not None and game.over and game.legal() == []
    assert max(game.scores) >= game.rules.target or preset == "dominican"
    log = game.to_log()
    assert all(r.result is not None for r in log.rounds)
    assert all(len(r.deals) == deals_per_round(n) for r in log.rounds)
    rep = replay_log(read_log(log_to_json(log)))
    assert rep.winner == game.winner and rep.match.scores == game.scores
    assert [p.move for p in rep.plies] == [m for _, m in game.history]
    # Dealers rotate one seat each round (rules.md 1.3.1).
    dealers = [r.dealer for r in log.rounds]
    assert all(b == (a + 1) % n for a, b in itertools.pairwise(dealers))


def test_same_seed_same_deals_and_dealer() -> None:
    a = Game(RuleSet.from_preset("royal"), ["A", "B"], seed=11)
    b = Game(RuleSet.from_preset("royal"), ["A", "B"], seed=11)
    c = Game(RuleSet.from_preset("royal"), ["A", "B"], seed=12)
    assert a.state == b.state
    assert a.state != c.state


def test_explicit_shuffles_and_every_card_accounted() -> None:
    rng = random.Random(3)
    shuffles = [shuffle_round(rng, 2) for _ in range(2)]
    game = Game(RuleSet.from_preset("classic"), 2, shuffles=shuffles, dealer=1, max_rounds=2)
    assert game.state.loose == shuffles[0].table and game.state.hands == shuffles[0].deals[0]
    assert game.to_move == 0  # the seat after the dealer plays first
    while not game.over:
        assert game.state.accounted() == FULL_DECK
        game.play(game.legal()[-1])
    assert len(game.match.rounds) == 2 and game.winner is None
    log = game.to_log()
    assert [r.deals[0].table for r in log.rounds] == [s.table for s in shuffles]
    assert [r.dealer for r in log.rounds] == [1, 0]


def test_shuffles_running_out_is_an_error() -> None:
    rng = random.Random(3)
    game = Game(RuleSet.from_preset("classic"), 2, shuffles=[shuffle_round(rng, 2)])
    with pytest.raises(CoachError, match="ran out"):
        while not game.over:
            game.play(rng.choice(game.legal()))


def test_illegal_move_rejected_with_reason_and_not_recorded() -> None:
    game = Game(RuleSet.from_preset("classic"), 2, seed=1)
    hand = game.state.hands[game.to_move]
    stranger = (FULL_DECK & ~hand & -(FULL_DECK & ~hand)).bit_length() - 1
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        game.play(Move(stranger, TRAIL))
    assert game.history == []


def test_game_in_progress_log_and_viewer_log() -> None:
    game = Game(RuleSet.from_preset("dominican"), ["A", "B", "C"], seed=5)
    for _ in range(17):  # one deal of 12 moves and 5 into the next
        game.play(game.legal()[0])
    log = game.to_log()
    assert len(log.rounds) == 1 and log.rounds[0].result is None
    assert [len(d.moves) for d in log.rounds[0].deals] == [12, 5]
    rep = replay_log(log)
    assert rep.state == game.state and not rep.complete
    view = game.to_log(viewer=2)
    assert all(h is None for d in view.rounds[0].deals for s, h in enumerate(d.hands) if s != 2)
    vrep = replay_log(read_log(log_to_json(view)))
    assert vrep.state is None and vrep.viewer_observation == game.observation(2)


def test_bad_player_count() -> None:
    with pytest.raises(CoachError):
        Game(RuleSet.from_preset("classic"), ["solo"])
