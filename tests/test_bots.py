"""Bots: each chooses a legal move from its own observation; greedy and counter on known positions."""

from __future__ import annotations

import dataclasses
import pickle
import random

import pytest
from conftest import position

from casino_coach.bots.policies import (
    BOT_NAMES,
    CounterPolicy,
    GreedyPolicy,
    Policy,
    RandomPolicy,
    make_policy,
)
from casino_coach.bots.searcher import V1_LIMITS, SearcherPolicy
from casino_coach.engine.cards import BIG_CASINO, parse_card
from casino_coach.engine.movegen import CAPTURE, TRAIL, legal_moves
from casino_coach.engine.notation import move_text, parse_move
from casino_coach.engine.observation import observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.values import card_values, immediate_gain
from casino_coach.errors import CoachError
from casino_coach.formats.game import Game
from casino_coach.search import Limits

ROYAL = RuleSet.from_preset("royal")
CLASSIC = RuleSet.from_preset("classic")


def choose(policy: Policy, rules: RuleSet, hands: list[str], table: str, stock: int = 0) -> str:
    state = position(rules, hands, table, stock=stock)
    obs = observe(state, 0)
    return move_text(policy.choose(rules, obs, legal_moves(rules, state), random.Random(0)))


@pytest.mark.parametrize("name", ["random", "greedy", "counter"])
def test_every_bot_plays_legal_moves_through_a_game(name: str) -> None:
    for preset, n in (("classic", 2), ("dominican", 3), ("royal", 4)):
        rules = RuleSet.from_preset(preset)
        game = Game(rules, n, seed=8, max_rounds=1)
        policy = make_policy(name)
        rng = random.Random(1)
        while not game.over:
            legal = game.legal()
            move = policy.choose(rules, game.observation(), legal, rng)
            assert move in legal
            game.play(move)


def test_bots_see_only_their_observation() -> None:
    # Two worlds that differ only in the opponent's hand look the same to seat 0: same choice.
    a = position(ROYAL, ["8C 2H 9S", "3S 4S 5S"], "5D 3H AC")
    b = position(ROYAL, ["8C 2H 9S", "KD QD JD"], "5D 3H AC")
    for policy in (GreedyPolicy(), CounterPolicy()):
        ma = policy.choose(ROYAL, observe(a, 0), legal_moves(ROYAL, a), random.Random(0))
        mb = policy.choose(ROYAL, observe(b, 0), legal_moves(ROYAL, b), random.Random(0))
        assert ma == mb


def test_greedy_takes_the_most_valuable_capture() -> None:
    # The 10♣ can take 10♦ (Big Casino, 2 points), the 7♥ both sevens (three cards): 10♦ is worth more.
    assert choose(GreedyPolicy(), CLASSIC, ["TC 7H", "2C"], "TD 7C 7D") == "TC x TD"
    # Nothing to capture: trail the least valuable card, never the ace.
    assert choose(GreedyPolicy(), CLASSIC, ["AH 7C", "2C"], "KD QD") == "7C"


def test_immediate_gain_counts_sweeps_only_when_scored() -> None:
    s = position(ROYAL, ["8C 2H", "3S"], "8D", stock=1 << 51)
    m = parse_move("8C x 8D")
    values = card_values(ROYAL)
    taken = values[m.take.bit_length() - 1]
    assert immediate_gain(ROYAL, observe(s, 0), m) == pytest.approx(values[m.card] + taken + 1)
    assert immediate_gain(CLASSIC, observe(s, 0), parse_move("8C x 8D")) < 1
    assert values[BIG_CASINO] > 2


def test_counter_avoids_leaving_a_sweep() -> None:
    # Royal, sweeps score. Table: 9♦. Counter holds 9♣ and K♠: capturing the 9 sweeps (gain), and
    # trailing the king would leave two cards for any unseen 9 or K or 4+... to take.
    assert choose(CounterPolicy(), ROYAL, ["9C KS", "2H 3H"], "9D", stock=0) == "9C x 9D"


def test_counter_prefers_a_safe_trail() -> None:
    # Nothing to capture. Trailing the 10♦ exposes Big Casino to every unseen ten; the 3♣ is cheap.
    move = choose(CounterPolicy(), CLASSIC, ["TD 3C", "2H 5H"], "KS QS")
    assert move == "3C"
    assert parse_move(move).action == TRAIL


def test_counter_takes_what_greedy_takes_when_it_is_clearly_best() -> None:
    m = parse_move(choose(CounterPolicy(), ROYAL, ["TC 3H", "2C 4C"], "TD 5S"))
    assert m.action == CAPTURE and m.take >> parse_card("TD") & 1


def test_make_policy_names() -> None:
    assert make_policy("Random").name == "random"
    assert isinstance(make_policy("counter", risk_weight=0.5), CounterPolicy)
    assert isinstance(make_policy("random"), RandomPolicy)
    with pytest.raises(CoachError, match="unknown bot 'alphago': choose one of random, greedy"):
        make_policy("alphago")
    with pytest.raises(CoachError, match="counter"):
        make_policy("counter", nonsense=1)
    assert set(BOT_NAMES) >= {"random", "greedy", "counter", "searcher", "searcher-v1"}


def test_searcher_v1_is_the_frozen_baseline() -> None:
    # Today's searcher as it was when the learned leaf came: its limits written out, the handmade leaf
    # whatever the defaults become; its effort may be set, its leaf may not.
    v1 = make_policy("searcher-v1")
    assert isinstance(v1, SearcherPolicy) and v1.name == "searcher-v1"
    assert v1.limits == V1_LIMITS == Limits(leaf="handmade", classes=False)
    assert (V1_LIMITS.samples, V1_LIMITS.min_samples, V1_LIMITS.nodes, V1_LIMITS.depth) == (
        40,
        8,
        100_000,
        None,
    )
    light = make_policy("searcher-v1", samples=6, nodes=5_000)
    assert isinstance(light, SearcherPolicy)
    assert light.limits == Limits(samples=6, nodes=5_000, leaf="handmade", classes=False)
    with pytest.raises(CoachError, match=r"searcher-v1.*handmade"):
        make_policy("searcher-v1", leaf="learned")
    with pytest.raises(CoachError, match=r"searcher-v1.*omniscient"):
        make_policy("searcher-v1", reply_worlds=4)
    assert (V1_LIMITS.reply_worlds, V1_LIMITS.reply_depth) == (0, 3)
    with pytest.raises(CoachError, match=r"searcher-v1.*every world on its own"):
        make_policy("searcher-v1", classes=True)
    with pytest.raises(CoachError, match=r"searcher-v1.*unknown option 'speed'"):
        make_policy("searcher-v1", speed=3)


@pytest.mark.parametrize(
    ("name", "options"),
    [("searcher", {}), ("searcher-v1", {}), ("searcher", {"reply_worlds": 2, "reply_depth": 1})],
)
def test_the_searchers_play_legal_moves(name: str, options: dict[str, int]) -> None:
    for preset, n in (("classic", 2), ("royal", 3), ("classic", 4)):
        rules = RuleSet.from_preset(preset)
        game = Game(rules, n, seed=3, max_rounds=1)
        policy = make_policy(name, samples=2, min_samples=1, nodes=600, **options)
        rng = random.Random(1)
        plies = 0
        while not game.over and plies < 14 * n:  # the first deals: enough to reach two deal ends
            legal = game.legal()
            move = policy.choose(rules, game.observation(), legal, rng)
            assert move in legal
            game.play(move)
            plies += 1


def test_limits_with_another_seed_are_the_limits_made_with_it() -> None:
    """``Limits.with_seed`` (the searcher's limits of each decision) copies the fields, unchecked, and
    gives limits equal to those made with the seed in every way a search or a log reads them."""
    base = Limits(samples=4, min_samples=2, nodes=3000, seed=7)
    for seed in (0, 1, 2**32 - 1):
        got = base.with_seed(seed)
        want = dataclasses.replace(base, seed=seed)
        assert type(got) is Limits and got == want and hash(got) == hash(want) and repr(got) == repr(want)
        assert pickle.loads(pickle.dumps(got)) == want
    assert base.seed == 7
