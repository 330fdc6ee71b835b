"""Expectiminimax over worlds: exact last deals, determinism, shrinking error, the API contract."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import random

import pytest
from conftest import before_last_deal, position
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from casino_coach.engine.cards import iter_cards
from casino_coach.engine.movegen import BUILD, Move, apply, legal_moves
from casino_coach.engine.notation import move_text, parse_hand, parse_move
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState, deal, new_round, shuffle_round
from casino_coach.errors import SearchError, TooBigToSearchError
from casino_coach.search import Limits, evaluate, evaluate_world
from casino_coach.search.expectimax import (
    SearchRequest,
    _close,
    _decision,
    _Ladder,
    _race,
    _Replies,
    _result,
    _tuple_repr,
    dealing,
    decision_seed,
)
from casino_coach.search.inference import Evidence
from casino_coach.search.native import make_solver
from casino_coach.search.result import SearchResult, paired_stats

CLASSIC = RuleSet.from_preset("classic")
ROYAL = RuleSet.from_preset("royal")


def reach(rules: RuleSet, nplayers: int, seed: int, deals_left: int, plies: int) -> RoundState:
    """Random play into the deal with ``deals_left`` deals after it, then ``plies`` more moves."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, 2 if nplayers == 4 else nplayers, rng.randrange(nplayers), sh.table, sh.deals[0])
    nxt = 1
    while s.deals_left() > deals_left or s.needs_deal:
        if s.needs_deal:
            s = deal(s, sh.deals[nxt])
            nxt += 1
            continue
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))
    for _ in range(plies):
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))
    return s


@settings(max_examples=8, deadline=None)
@given(rules=st.sampled_from([CLASSIC, ROYAL]), seed=st.integers(0, 2**32), plies=st.integers(0, 5))
def test_last_deal_of_two_players_is_exact(rules: RuleSet, seed: int, plies: int) -> None:
    s = reach(rules, 2, seed, 0, plies)
    try:
        r = evaluate(rules, observe(s, s.to_move))
        w = evaluate_world(rules, s)
    except TooBigToSearchError:  # random play can pile up a table too big to search
        reject()
    if r.shallow or w.shallow:
        # a crowded Royal table can pass the node budget even in the last deal: then it says so
        assert not r.exact and not w.exact
        reject()
    assert r.exact and w.exact and r.samples == 1
    assert {mv.move: mv.ev for mv in r.moves} == pytest.approx({mv.move: mv.ev for mv in w.moves})
    assert all(mv.stderr == 0 for mv in r.moves)
    assert [mv.ev for mv in r.moves] == sorted((mv.ev for mv in r.moves), reverse=True)
    assert {mv.move for mv in r.moves} == set(legal_moves(rules, s))


def test_same_seed_same_answer() -> None:
    s = reach(ROYAL, 2, 11, 4, 1)
    obs = observe(s, s.to_move)
    a = evaluate(ROYAL, obs, Limits(samples=12, seed=5))
    b = evaluate(ROYAL, obs, Limits(samples=12, seed=5))
    # repr: a world not searched is NaN, and NaN != NaN unless it is the very same float object
    assert repr(a.moves) == repr(b.moves) and a.samples == b.samples and a.nodes == b.nodes
    assert not a.exact


def test_stderr_shrinks_with_samples() -> None:
    s = reach(CLASSIC, 2, 3, 3, 2)
    obs = observe(s, s.to_move)
    never_stop = {"separation": 1e9, "exact_worlds": 0}
    few = evaluate(CLASSIC, obs, Limits(samples=6, min_samples=6, **never_stop))
    many = evaluate(CLASSIC, obs, Limits(samples=60, min_samples=60, **never_stop))
    assert few.samples == 6 and many.samples == 60
    se_few = sum(mv.stderr for mv in few.moves)
    se_many = sum(mv.stderr for mv in many.moves)
    assert se_many < se_few
    assert all(math.isfinite(mv.ev) and math.isfinite(mv.stderr) for mv in many.moves)


def test_small_world_sets_are_enumerated() -> None:
    # Second-to-last deal, late: few consistent worlds, each weighted exactly (stderr 0), but values
    # rest on the leaf estimate, so the result is not exact.
    s = reach(CLASSIC, 2, 8, 1, 4)
    obs = observe(s, s.to_move)
    r = evaluate(CLASSIC, obs, Limits(exact_worlds=100))
    # The other seat's 2 cards among 10 unseen: C(10, 2) = 45 worlds, in 37 classes (``world_classes``:
    # which of two twins it holds makes no difference), each searched once and weighted by its worlds.
    assert r.samples == r.population == 37
    assert not r.exact and all(mv.stderr == 0 for mv in r.moves)
    every = evaluate(CLASSIC, obs, Limits(exact_worlds=100, classes=False))
    assert every.samples == 45
    assert {mv.move: round(mv.ev, 9) for mv in every.moves} == {mv.move: round(mv.ev, 9) for mv in r.moves}


def test_worlds_without_replacement_stop_early_or_end_on_the_enumerations_values() -> None:
    # The same decision's 45 worlds taken without replacement (``Limits.shuffled``: at most twice the
    # 23 or more worlds the search may draw) rather than enumerated by class.
    s = reach(CLASSIC, 2, 8, 1, 4)
    obs = observe(s, s.to_move)
    enumerated = evaluate(CLASSIC, obs, Limits(exact_worlds=100))
    limits = Limits(exact_worlds=0, shuffled=True, samples=100, min_samples=100)
    assert dealing(obs, limits) == "class-shuffled"
    assert dealing(obs, dataclasses.replace(limits, samples=22)) == "class-passes"
    every = evaluate(CLASSIC, obs, limits)
    # Each world once and no more: the enumeration's values, with no sampling error left.
    assert every.samples == every.population == 45
    assert all(mv.stderr == 0 for mv in every.moves)
    assert {mv.move: round(mv.ev, 9) for mv in every.moves} == {
        mv.move: round(mv.ev, 9) for mv in enumerated.moves
    }
    # Stopped at 23 of the 45: the standard error of 23 draws, times the finite-population correction.
    part = evaluate(CLASSIC, obs, dataclasses.replace(limits, samples=23, min_samples=23))
    assert part.samples == 23 and part.population == 45
    assert len(set(part.groups)) == 23  # each world its own group: none is drawn twice
    for mv in part.moves:
        _, se, n = paired_stats(mv.values, part.weights)
        assert n == 23 and mv.stderr == pytest.approx(se * math.sqrt(22 / 44), rel=1e-9)


def test_only_the_seat_to_move_is_advised() -> None:
    s = reach(CLASSIC, 2, 1, 5, 0)
    with pytest.raises(SearchError, match="turn"):
        evaluate(CLASSIC, observe(s, 1 - s.to_move))
    with pytest.raises(SearchError):
        Limits(samples=0)
    r = evaluate(CLASSIC, observe(s, s.to_move), Limits(samples=4, min_samples=2))
    with pytest.raises(SearchError):
        r.value_of(r.moves[0].move._replace(card=(r.moves[0].move.card + 1) % 52, action=0))


def test_a_world_past_the_node_budget_falls_back_to_a_shallower_search() -> None:
    s = reach(ROYAL, 2, 21, 0, 0)  # the first decision of the last deal: 8 cards to play
    obs = observe(s, s.to_move)
    full = evaluate(ROYAL, obs, Limits(nodes=None))
    tight = evaluate(ROYAL, obs, Limits(nodes=40))
    assert full.exact and not tight.exact
    assert {mv.move for mv in tight.moves} == {mv.move for mv in full.moves}
    assert all(math.isfinite(mv.ev) for mv in tight.moves)
    assert not evaluate_world(ROYAL, s, Limits(nodes=40)).exact
    assert evaluate_world(ROYAL, s, Limits(nodes=None)).exact


def test_the_node_budget_searches_shallower_rather_than_on_fewer_worlds() -> None:
    # A full first-deal search of 16 worlds does not fit in 3,000 nodes: the decision is searched
    # again shallower, on at least min_samples worlds, and says so.
    sh = shuffle_round(random.Random(4), 2)
    obs = observe(new_round(2, 2, 1, sh.table, sh.deals[0]), 0)
    full = evaluate(CLASSIC, obs, Limits(samples=16, min_samples=16, nodes=None))
    assert not full.shallow and full.samples == 16 and full.nodes > 3000
    cut = evaluate(CLASSIC, obs, Limits(samples=16, min_samples=16, nodes=3000))
    assert cut.shallow and cut.samples == 16 and cut.depth is not None and cut.depth < 8


@pytest.mark.parametrize("seed", [1, 4])
def test_a_verdict_short_of_worlds_goes_on_at_its_depth_to_twice_the_budget(seed: int) -> None:
    # 16 worlds searched in full take between one budget and two: a bot's search stops at the
    # budget and is searched again shallower, a verdict goes on at its depth to its 16 worlds.
    sh = shuffle_round(random.Random(seed), 2)
    obs = observe(new_round(2, 2, 1, sh.table, sh.deals[0]), 0)
    base = Limits(samples=16, min_samples=16)
    ask = SearchRequest(focus=evaluate(CLASSIC, obs, base).moves[0].move, bands=(0.1, 0.2, 0.5, 1.0))
    full = evaluate(CLASSIC, obs, base, ask)
    tight = dataclasses.replace(base, nodes=math.ceil(full.nodes * 0.6))
    verdict, bot = evaluate(CLASSIC, obs, tight, ask), evaluate(CLASSIC, obs, tight)
    assert not full.shallow and not verdict.shallow and verdict.samples == 16
    assert verdict.depth == full.depth and verdict.nodes > tight.nodes
    assert bot.shallow and bot.depth is not None


def _raced_from(obs: Observation, limits: Limits, ask: SearchRequest, attempt: int) -> SearchResult:
    """``evaluate``, its decision's depths tried from the ``attempt``-th on (the same worlds)."""
    d = _decision(CLASSIC, obs, limits, ask, 0.0)
    d.horizons, d.through = d.horizons[attempt:], False
    try:
        return _result(d, _race(d), 0.0)
    finally:
        _close(d)


@pytest.mark.parametrize("seed", [1, 3, 4])
def test_a_verdict_searched_again_shallower_does_not_depend_on_what_the_deeper_search_spent(
    seed: int,
) -> None:
    # Too few worlds fit at the first depths: the shallower search that ends the decision has the
    # node cap again, so its values are those of a search that starts there (the same worlds).
    # Given only what the deeper attempts left of it, its last worlds went 1 ply deep.
    sh = shuffle_round(random.Random(seed), 2)
    obs = observe(new_round(2, 2, 1, sh.table, sh.deals[0]), 0)
    limits = Limits(samples=16, min_samples=16, nodes=3000)
    ask = SearchRequest(focus=evaluate(CLASSIC, obs, limits).moves[0].move, bands=(0.1, 0.2, 0.5, 1.0))
    full = _raced_from(obs, limits, ask, 0)
    later = [
        _raced_from(obs, limits, ask, a)
        for a in range(1, len(_decision(CLASSIC, obs, limits, ask, 0.0).horizons))
    ]
    same_depth = next(r for r in later if r.depth == full.depth)
    assert full.shallow and full.samples == 16
    assert {mv.move: round(mv.ev, 9) for mv in full.moves} == {
        mv.move: round(mv.ev, 9) for mv in same_depth.moves
    }


# --- replies chosen on the replier's own information (Limits.reply_worlds) -----------------------


def _reply_position(ours: str) -> RoundState:
    """Seat 1 to reply with 7H or 9H (it can only trail: nothing on the table pairs or builds with
    them), seat 0 holding ``ours``; 7D and 7C are captured already, three 9s are in the stock. From
    seat 1's view seat 0 holds a 9 three times as often as a 7."""
    s = position(CLASSIC, [ours, "7H 9H"], "KH", to_move=1, stock=parse_hand("9S 9D 9C 2H 3H 4H 5H 6H"))
    return s._replace(captured=(parse_hand("7D 7C"), 0))


def test_a_reply_is_chosen_on_what_the_replier_sees() -> None:
    # Knowing seat 0's hand (7S), perfect-information search trails the 9 that it cannot take; not
    # knowing it, seat 1 trails the 7, the card seat 0 is less likely to pair.
    truth = _reply_position("7S")
    omniscient = evaluate_world(CLASSIC, truth, Limits(depth=2))
    assert move_text(omniscient.moves[0].move) == "9H"
    replies = _Replies(
        CLASSIC, 0, 2, worlds=12, depth=1, in_hands=3, leaf="handmade", rng=random.Random(1)
    )  # every world of 9
    chosen = replies.choose(truth)
    assert chosen is not None and move_text(chosen) == "7H"
    # Another hand of seat 0 with the same cards unseen by seat 1 gets the same reply, from the
    # same view (chosen once): seat 1's reply cannot depend on seat 0's hidden cards.
    other = _reply_position("9S")._replace(stock=parse_hand("7S 9D 9C 2H 3H 4H 5H 6H"))
    assert observe(other, 1) == observe(truth, 1)
    assert replies.choose(other) == chosen and len(replies.chosen) == 1
    # In the world, a move of seat 0 is then valued after that reply: seat 0 takes the 7.
    before = truth._replace(hands=(truth.hands[0] | parse_hand("KS"), truth.hands[1]), to_move=0)
    ladder = _Ladder(
        CLASSIC,
        0,
        2,
        0,
        4,
        budget=None,
        leaf="handmade",
        replies=_Replies(
            CLASSIC, 0, 2, worlds=12, depth=1, in_hands=4, leaf="handmade", rng=random.Random(1)
        ),
    )
    (rv,) = ladder.root_values(before, [parse_move("KS x KH")])
    assert rv.reply is not None and move_text(rv.reply) == "7H"
    assert [move_text(m) for m in rv.line[:3]] == ["KS x KH", "7H", "7S x 7H"]


def test_no_reply_is_chosen_without_a_choice_or_in_the_last_deal() -> None:
    replies = _Replies(CLASSIC, 0, 2, worlds=8, depth=1, in_hands=3, leaf="handmade", rng=random.Random(1))
    last = _reply_position("7S")._replace(stock=0, more=False)
    assert replies.choose(last) is None  # a counting player knows every card there
    one = _reply_position("7S")
    one = one._replace(hands=(one.hands[0], parse_hand("9H")))
    assert replies.choose(one) is None


def test_the_replies_option_off_changes_nothing() -> None:
    # The default is the omniscient reply, left out of the decision's seed: every analysis and
    # searcher-v1 stay as they were.
    s = reach(CLASSIC, 2, 11, 3, 1)
    obs = observe(s, s.to_move)
    assert decision_seed(CLASSIC, obs, Limits()) == decision_seed(CLASSIC, obs, Limits(reply_worlds=0))
    assert decision_seed(CLASSIC, obs, Limits()) != decision_seed(CLASSIC, obs, Limits(reply_worlds=4))
    light = Limits(samples=6, min_samples=2, nodes=20_000)
    plain = evaluate(CLASSIC, obs, light)
    replied = evaluate(CLASSIC, obs, dataclasses.replace(light, reply_worlds=4, reply_depth=1))
    assert {m.move for m in plain.moves} == {m.move for m in replied.moves}
    assert replied.nodes > 0
    with pytest.raises(SearchError, match="reply_worlds"):
        Limits(reply_worlds=-1)
    with pytest.raises(SearchError, match="reply_depth"):
        Limits(reply_depth=0)


LATER = ("leaf", "reply_worlds", "reply_depth")


def test_the_decision_seed_hashes_the_repr_of_the_whole_decision() -> None:
    # The key is written in parts (the rules' part once per rule set): it must stay the repr of the
    # tuple it always was, or every analysis's worlds change.
    for preset in ("classic", "royal"):
        rules = RuleSet.from_preset(preset)
        s = reach(rules, 2, 5, 2, 1)
        obs = observe(s, s.to_move)
        before = observe(s, 1 - s.to_move)._replace(to_move=1 - s.to_move)
        evidence = ((), (Evidence(before, legal_moves(rules, s)[0]),))
        for limits, ev in ((Limits(), evidence[0]), (Limits(samples=4, leaf="learned"), evidence[1])):
            fields = [
                f.name
                for f in dataclasses.fields(limits)
                if f.name not in ("classes", "leaf", "samples_many", "nodes_four", "shuffled")
                and (f.name not in LATER or getattr(limits, f.name) != f.default)
            ]
            settings_ = tuple(getattr(limits, name) for name in fields)
            played = tuple((tuple(e.before), tuple(e.move)) for e in ev)
            key = repr((sorted(rules.to_dict().items()), tuple(obs), settings_, played))
            want = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")
            assert decision_seed(rules, obs, limits, ev) == want


@pytest.mark.parametrize("nplayers", [2, 3, 4])
def test_the_seed_writes_each_view_as_its_repr(nplayers: int) -> None:
    """``decision_seed`` writes each observation and move by ``_tuple_repr`` (the core's where it
    runs): ``repr(tuple(...))`` to the character, builds and 1-tuples (one side) included, and
    an item of another kind (a bool for an int, an int past 64 bits, a plain tuple for a build)
    written by its own repr."""
    rules = RuleSet.from_preset("classic")
    rng = random.Random(nplayers)
    views = []
    for _ in range(6):
        sh = shuffle_round(rng, nplayers)
        s = new_round(nplayers, nplayers, rng.randrange(nplayers), sh.table, sh.deals[0])
        for _ in range(3 * nplayers):
            views += [observe(s, seat) for seat in range(nplayers)]
            moves = legal_moves(rules, s)
            s = apply(rules, s, max(moves, key=lambda m: (m.action == BUILD, rng.random())))
            views += [tuple(m) for m in moves[:2]]
    assert any(v.builds for v in views if isinstance(v, tuple) and hasattr(v, "builds"))
    odd = views[0]._replace(sweeps=(True,), set_aside=1 << 70, builds=((1, 2, 3, False),))
    for v in [*views, odd, (), (5,), (-1, None, "x", 2.5)]:
        assert _tuple_repr(v) == repr(tuple(v))


@pytest.mark.parametrize("seed", [3, 8])
def test_the_last_card_before_the_last_deal_is_searched_to_the_round_end_and_exact(seed: int) -> None:
    # With two players, a depth that reaches the end of the round from the deal before the last goes
    # on through the last deal, dealt every way the stock can be. Where the mover plays the last card
    # of its hand the values are exact: the mean, over every hand the other player may hold, of the
    # root move's value with that player's best reply, the last deal dealt every way (the solver's
    # next_deal, held to brute force in test_search_solver.py).
    rules = RuleSet.from_preset(("classic", "royal", "dominican")[seed % 3])
    s = before_last_deal(rules, seed, 2)
    seat, other = s.to_move, 1 - s.to_move
    if s.hands[seat].bit_count() != 1:
        s = apply(rules, s, legal_moves(rules, s)[0])
        seat, other = s.to_move, 1 - s.to_move
    obs = observe(s, seat)
    in_hands = sum(obs.hand_sizes)
    deep = Limits(samples=100, min_samples=100, exact_worlds=100, nodes=None, depth=in_hands + 8)
    got = evaluate(rules, obs, deep)
    assert got.exact and got.round_end and got.depth is None
    unseen = s.stock | s.hands[other]
    k = s.hands[other].bit_count()
    solver = make_solver(rules, seat % 2, 2, next_deal=True)
    total: dict[Move, float] = {}
    hands = [sum(1 << c for c in cs) for cs in itertools.combinations(iter_cards(unseen), k)]
    for h in hands:
        held = list(s.hands)
        held[other] = h
        for rv in solver.root_values(s._replace(hands=tuple(held), stock=unseen & ~h)):
            total[rv.move] = total.get(rv.move, 0.0) + rv.value / len(hands)
    assert {mv.move: mv.ev for mv in got.moves} == pytest.approx(total, abs=1e-9)
    # A search that stops at the end of the deal rests on the leaf's estimate: neither.
    shallow = evaluate(rules, obs, dataclasses.replace(deep, depth=in_hands))
    assert not shallow.exact and not shallow.round_end


def test_two_cards_before_the_last_deal_go_to_the_round_end_but_are_not_exact() -> None:
    # The other player then replies without knowing the mover's last card, which each world shows
    # it: the values are searched to the end of the round, not the game's.
    s = before_last_deal(CLASSIC, 5, 3)
    assert s.hands[s.to_move].bit_count() == 2
    obs = observe(s, s.to_move)
    deep = Limits(samples=2, min_samples=2, exact_worlds=0, nodes=None, depth=sum(obs.hand_sizes) + 8)
    got = evaluate(CLASSIC, obs, deep)
    assert got.round_end and not got.exact
