"""Explanations: statements over the worlds the mover could face, by scoring category, that add up to
the loss and never name a hidden card as held; and the false sentences of the old explanations, each
as a regression test."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest
from conftest import position
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from test_search_worlds import random_state

from casino_coach.coach.analysis import rate_move
from casino_coach.coach.classes import MoveClass, Thresholds
from casino_coach.coach.explain import KINDS, _Words
from casino_coach.coach.verdict import analysis_limits, judge, verdict_of
from casino_coach.engine.cards import ACES_MASK, BIG_CASINO, LITTLE_CASINO, card_symbol, iter_cards
from casino_coach.engine.movegen import BUILD, CAPTURE, legal_moves
from casino_coach.engine.notation import parse_hand, parse_move
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.formats.log import read_log
from casino_coach.formats.replay import replay_log
from casino_coach.search import worlds

CLASSIC = RuleSet.from_preset("classic")
ROYAL = RuleSet.from_preset("royal")
NAMES = ("Ana", "Ben", "Cy", "Dee")
LIMITS = analysis_limits(8)
CARD = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]")
SYMBOLS = {card_symbol(c): c for c in range(52)}
REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def _with_stock(s: RoundState, cards: str) -> RoundState:
    """``s`` with ``cards`` still to be dealt (every other card not in a hand or on the table has
    been played and captured before, by nobody recorded)."""
    return s._replace(stock=parse_hand(cards))


SWEEPS = re.compile(
    r"Sweeps: .*? sweeps? (in \d+% of the deals you could face|in every deal you could face|"
    r"in none of the deals you could face) after [^,]*, (in \d+%|in every one|in none) after [^;]*; .*? "
    r"in (\d+)% after "
    r"[^,]*, (\d+)% after"
)


def _share_pct(text: str) -> int:
    """A share as the explanations write it, in percent."""
    if "every deal" in text:
        return 100
    if "every one" in text:
        return 100
    if "none" in text:
        return 0
    number = re.search(r"\d+", text)
    assert number is not None
    return int(number.group())


def _check_sentences(obs: Observation, texts: list[str]) -> None:
    assert len(texts) == len(set(texts)), "the same sentence twice in one box"
    for t in texts:
        assert "You takes" not in t and "you takes" not in t
        assert "can take" not in t  # no claim of a capture that is not one legal move
        # Regression: "counter sweeps in none of the deals you could face after yours, in 0% after 3♦
        # trails; you sweep in 6% after the best": a sentence led by what happens in no deal.
        assert not re.search(r"sweeps? in none of the deals you could face after [^;]*, in none after", t), t
        # Regression: "in every deal you could face after the best, in 100% after yours": the second
        # share in the words of the first.
        words_then_pct = r"(every deal|none of the deals) you could face after [^;,]*, in (100|0)% after"
        assert not re.search(words_then_pct, t), t
        # Regression: "counter sweeps in none of the deals you could face after yours, in 9% after A♥
        # builds 13 with 4♥ 8♥; you sweep in 8% after the best, 28% after yours": a sweeps sentence is
        # led by the side whose sweeps the move changes most.
        sweeps = SWEEPS.search(t)
        if sweeps:
            a, b, c, d = (_share_pct(g) for g in sweeps.groups())
            assert abs(a - b) >= abs(c - d) - 1, t
        # Regression: "counter takes it in 0% after yours, 0% after the best": a clause that says nothing.
        assert not re.search(r"in 0% after (yours|the best), 0% after", t), t
        for sym in CARD.findall(t):
            c = SYMBOLS[sym]
            if obs.unseen >> c & 1:
                # A hidden card is only ever named as a scoring item still to be won, never as held.
                assert (1 << c) & (ACES_MASK | 1 << BIG_CASINO | 1 << LITTLE_CASINO), t
                assert f"{sym} (not seen yet)" in t, t


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    preset=st.sampled_from(["classic", "royal"]),
    nplayers=st.sampled_from([2, 3, 4]),
)
@example(seed=362879, preset="classic", nplayers=4)  # rare must-hold (test_search_worlds)
def test_explanations_add_up_and_name_no_hidden_card_as_held(seed: int, preset: str, nplayers: int) -> None:
    rules = RuleSet.from_preset(preset)
    s = random_state(rules, nplayers, seed, random.Random(seed).randrange(0, 8 * nplayers))
    if s.is_over:
        return
    obs = observe(s, s.to_move)
    move = random.Random(seed).choice(legal_moves(rules, s))
    m = rate_move(rules, obs, move, LIMITS, names=NAMES[:nplayers])
    assume(m.not_judged is None)  # random play can pile up a table too big to search
    if m.explanations:
        assert sum(e.points for e in m.explanations) == pytest.approx(round(m.loss or 0, 2), abs=0.011)
    _check_sentences(obs, [e.text for e in m.explanations])
    assert all(e.kind in KINDS for e in m.explanations)
    for e in m.explanations:  # a sentence says the points it is given (they add up to the loss)
        lead = re.match(r"[^:]*: (-?\d+\.\d\d) points", e.text)
        assert lead is None or float(lead.group(1)) == e.points, (e.text, e.points)
    taken = move.take | 1 << move.card if move.action == CAPTURE else 0
    for e in m.explanations:
        cash = re.match(r"(?:Big Casino|Little Casino|The ace) ((?:10|[2-9AJQK])[♣♦♥♠])", e.text)
        if cash and taken >> SYMBOLS[cash.group(1)] & 1:
            # A card the move played takes at once is taken after it in every world.
            assert re.search(r"(100%|in every one) after yours", e.text), e.text
    assert m.loss_low <= (m.loss or 0) <= m.loss_high
    th = Thresholds()
    if m.cls is not MoveClass.BEST:
        assert m.loss_low > th.best or (m.loss or 0) >= th.inaccuracy
    if m.cls is MoveClass.MISTAKE:  # a harsh verdict rests on its interval, to one class
        assert m.loss_low >= th.inaccuracy and (m.loss or 0) >= th.mistake
    if m.cls is MoveClass.BLUNDER:
        assert m.loss_low >= th.mistake and (m.loss or 0) >= th.blunder


def test_a_cash_card_the_move_played_takes_is_said_to_be_taken() -> None:
    # Regression: "you take A♠ 2♠ 7♣ 10♦ instead of nothing" when the move played took 10♦.
    s = position(CLASSIC, ["AS TD", "QD"], "3H 5D 5H 6S 7H 8S 9S JC QH KS")
    used = s.table | s.hands[0] | s.hands[1]
    s = s._replace(stock=sum(1 << c for c in [c for c in range(52) if not used >> c & 1][:32]))
    m = rate_move(CLASSIC, observe(s, 0), parse_move("TD x 3H 7H"), LIMITS, names=NAMES[:2])
    big = next(e for e in m.explanations if e.kind == "big_casino")
    assert "in every one after yours (10♦ captures 3♥ 7♥)" in big.text
    assert big.points < 0  # taking it now is the part of the move in its favour


def test_a_build_owner_always_holds_its_card() -> None:
    # Regression: "Ana can take A♥ 10♦ with a jack (39%)" about a build whose owner must hold the card.
    # Ben owns a build of 10: in every world the search draws, Ben holds a 10.
    s = _with_stock(
        position(CLASSIC, ["9C 4D 3H", "TH 5S 6C"], "KD [6D 4S =10 @1]"), "TC TD TS 9D 8C 8D 7C 7D"
    )
    obs = observe(s, 0)
    tens = sum(1 << c for c in iter_cards(obs.unseen) if 10 in CLASSIC.capture_values[c])
    rng = random.Random(1)
    for world in (worlds.sample_world(CLASSIC, obs, rng) for _ in range(200)):
        assert world.hands[1] & tens
    for move in legal_moves(CLASSIC, s):
        m = rate_move(CLASSIC, obs, move, LIMITS, names=NAMES[:2])
        for e in m.explanations:
            assert "Ben holds a 10" not in e.text  # only the mover's builds are in question


def test_a_negligible_loss_is_best() -> None:
    # Regression: "lost 0.00 · best there 7♥ trails".
    th = Thresholds()
    assert th.classify_interval(0.004, 0.004) is MoveClass.BEST
    assert th.classify(0.004) is MoveClass.BEST


def test_an_exact_loss_on_a_class_edge_has_the_class_of_the_edge() -> None:
    # Regression: an exact loss of 1.00 (0.9999999999999996 as the floats summed it) was a mistake,
    # "not pinned to one class", where the edge says blunder.
    th = Thresholds()
    near = 1.0 - 4e-16
    assert th.classify_interval(near, near) is MoveClass.BLUNDER
    assert th.band(near) == th.band(1.0) == 3
    assert th.classify_interval(0.5 - 1e-15, 0.5 - 1e-15) is MoveClass.MISTAKE
    assert th.classify_interval(0.999, 0.999) is MoveClass.MISTAKE


def test_with_three_players_a_majority_says_who_leads() -> None:
    # Regression: "you are on average 2.0 cards behind the others after 8♥ trails, 2.0 cards behind
    # the others after yours (1.00)": with three players the point is whether one of the others leads
    # or they are level, which the mean lead does not show.
    log = read_log(REPLAYS / "royal-3p-full.json")
    ply = replay_log(log).plies[42]
    assert ply.observation is not None
    m = rate_move(ROYAL, ply.observation, ply.move, LIMITS, names=log.players)
    cards = next(e for e in m.explanations if e.kind == "cards")
    # The best move's share first, then the move played's, in every sentence.
    assert "the lead in cards is shared in 67% of the deals you could face after 8♥ trails" in cards.text
    assert "in every one after yours (7♥ captures 7♦)" in cards.text
    assert "behind the others" not in cards.text
    _check_sentences(ply.observation, [e.text for e in m.explanations])


def test_a_build_comes_home_only_where_the_lines_reach_the_next_turn() -> None:
    # Regression: with four players at 4 plies (the default until the analysis searched 5) the lines
    # stop before the builder's next turn, and "the build of 12 comes home to you in none of the
    # deals" was said of every build.
    log = read_log(REPLAYS / "royal-4p-individual.json")
    rep = replay_log(log)
    for ply in (4, 5):
        obs = rep.plies[ply].observation
        assert obs is not None
        # At the 2- and 3-player node budget: the worlds drawn depend on the limits, and these two
        # moves lose an inaccuracy's worth in its worlds.
        limits = dataclasses.replace(analysis_limits(40, depth=4), nodes_four=None)
        m = rate_move(log.rules, obs, rep.plies[ply].move, limits, names=log.players)
        texts = [e.text for e in m.explanations]
        assert texts and not any("comes home" in t for t in texts), texts
        # Short of the end of the round, a majority is told by the piles each side holds, the
        # numbers the estimate comes from ("Ana leads in cards in 100% after yours, in 100% after
        # the best" gave the same figures for both moves).
        for t in texts:
            if t.startswith("Most cards"):
                assert "the piles hold on average" in t and "leads in cards" not in t, t
        _check_sentences(obs, texts)


def test_a_lead_in_cards_counts_the_piles_taken_before() -> None:
    # Regression: "by the end of the round you are on average 2.0 cards ahead of Ben" counted only the
    # cards taken after the move, not the piles before it. Ana has taken 24 cards, Ben 22.
    s = position(CLASSIC, ["9C 4D", "9S 5S"], "KD 9H")
    rest = [c for c in range(52) if not (s.hands[0] | s.hands[1] | s.table) >> c & 1]
    s = s._replace(captured=(sum(1 << c for c in rest[:24]), sum(1 << c for c in rest[24:])))
    m = rate_move(CLASSIC, observe(s, 0), parse_move("4D t"), LIMITS, names=NAMES[:2])
    cards = next(e for e in m.explanations if e.kind == "cards")
    # After 9♣ takes 9♥ (26 to 22), Ben trails 5♠ and takes it with 4♦ by 9♠, and K♦ as the last
    # capturer: level at 26 each.
    assert "level with Ben after 9♣ captures 9♥, 4.0 cards behind Ben after yours (4♦ trails)" in cards.text


def test_verbs_agree_with_their_subject() -> None:
    # Regression: "You takes".
    obs2 = observe(position(CLASSIC, ["9C", "TH"], "KD"), 0)
    w = _Words(obs2, NAMES[:2], "yours")
    assert (w.take(w.you), w.take(w.they), w.sweep(w.they)) == ("you take", "Ben takes", "Ben sweeps")
    s4 = position(CLASSIC, ["9C", "TH", "2C", "3C"], "KD")
    w4 = _Words(observe(s4, 0), NAMES, "yours")
    assert (w4.you, w4.take(w4.you), w4.take(w4.they)) == ("your side", "your side takes", "Ben and Dee take")
    # Regression: "counter or counter takes it" (self-play of one bot in two seats).
    s3 = position(CLASSIC, ["9C", "TH", "2C"], "KD")
    w3 = _Words(observe(s3, 2), ["counter", "counter", "greedy"], "yours")
    assert w3.take(w3.they) == "counter (seat 0) or counter (seat 1) takes"
    # Regression (QA): a player named "You" (play's default) beside the mover, whom the sentences
    # call "you": "You or Greedy 2 takes it ... you take it in 69%".
    wy = _Words(observe(s3, 1), ["You", "Greedy 1", "Greedy 2"], "yours")
    assert (wy.take(wy.they), wy.take(wy.you)) == ("You (seat 0) or Greedy 2 takes", "you take")


def test_a_build_taken_is_a_share_of_the_worlds() -> None:
    # "In 31% of the deals you could face, Ben holds a 10 and takes your build of 10": a build that
    # can be taken in some worlds only gets the share of those worlds.
    s = _with_stock(position(CLASSIC, ["3H 9C 5D", "KS QH JD"], "6S 2C"), "9D 9H 9S 8C 8D 7C 7D 4C")
    obs = observe(s, 0)
    move = parse_move("3H b9 6S")
    res = judge(CLASSIC, obs, analysis_limits(60), Thresholds(), move)
    v = verdict_of(CLASSIC, obs, res, move, Thresholds(), names=NAMES[:2])
    text = " ".join(e.text for e in v.explanations)
    found = re.search(r"In (\d+)% of the deals you could face, Ben holds a 9 and takes your build", text)
    assert found, text
    build = move.take | 1 << move.card
    taken = sum(
        w
        for w, o in zip(res.weights, res.value_of(move).outcomes, strict=True)
        if o is not None and (o.gained[1] & build) == build
    ) / sum(res.weights)
    assert 0 < taken < 1 and int(found.group(1)) / 100 == pytest.approx(taken, abs=0.006)
    assert move.action == BUILD


def test_a_build_taken_by_one_of_a_side_says_one_of_them_holds_the_card() -> None:
    # Regression: "greedy (seat 0) and greedy (seat 2) hold a queen and take your build of 12": one
    # card takes a build, so one of them holds it, not both.
    s = _with_stock(
        position(CLASSIC, ["3H 9C 5D", "KS QH JD", "2D 4H 7S", "KH QC JC"], "6S 2C 5S"),
        "9D 9H 9S 8C 7C 7D 4C 4D 4S 5C 5H 6D 6H 3C",
    )
    obs = observe(s, 0)
    move = parse_move("3H b9 6S")
    res = judge(CLASSIC, obs, analysis_limits(60), Thresholds(), move)
    v = verdict_of(CLASSIC, obs, res, move, Thresholds(), names=NAMES)
    text = " ".join(e.text for e in v.explanations)
    said = r"of the deals you could face, Ben or Dee holds a 9 and takes your build of 9"
    assert re.search(said, text), text
    assert "Ben and Dee hold" not in text


def test_points_the_lines_do_not_account_for_are_said_to_be_the_estimate(tmp_path: Path) -> None:
    # Regression (QA): "Big Casino 10♦: 0.76 points. Over the next 4 plays greedy 1 and greedy 2 take
    # it in none of the deals you could face after yours, in 3% after 10♦ trails": captures that favour
    # neither move, beside points that favour one. The points are the estimate where the lines stop.
    from typer.testing import CliRunner

    from casino_coach.cli import app

    args = ["selfplay", "--bots", "counter,greedy", "--preset", "dominican", "--players", "4"]
    res = CliRunner().invoke(app, [*args, "--seed", "103", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    (path,) = tmp_path.glob("*.json")
    log = read_log(path)
    rep = replay_log(log)
    obs = rep.plies[131].observation
    assert obs is not None
    # At 4 plies (at 5, the default since, the lines settle this card differently).
    limits = analysis_limits(depth=4)
    m = rate_move(log.rules, obs, rep.plies[131].move, limits, names=log.players)
    (big,) = [e.text for e in m.explanations if e.text.startswith("Big Casino")]
    assert big.startswith("Big Casino 10♦: 2 points, a swing of 0."), big
    assert re.search(r"in \d+% of the deals you could face after 10♦ trails", big), big
    assert "its points are the search's estimate of who takes it later in the round" in big, big
