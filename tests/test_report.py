"""Reports: the JSON contract, Markdown, and a self-contained HTML page."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.console import Console
from typer.testing import CliRunner

from casino_coach.cli import app
from casino_coach.coach import analysis
from casino_coach.coach.analysis import (
    AlternativeMove,
    AnalysisOptions,
    DealLuck,
    GameAnalysis,
    MoveAnalysis,
    PositionView,
    analyze,
    summarize,
)
from casino_coach.coach.assessment import Settings, WorldCost
from casino_coach.coach.classes import GAME_THRESHOLDS, MoveClass
from casino_coach.coach.explain import Explanation
from casino_coach.coach.verdict import GameVerdict, analysis_limits
from casino_coach.coach.winning import WinChances
from casino_coach.engine.notation import parse_hand, parse_move, parse_table
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.codec import move_to_json
from casino_coach.formats.log import read_log
from casino_coach.formats.replay import replay_log
from casino_coach.render.analysis import move_panel
from casino_coach.report.document import (
    ReportFormat,
    chart_svg,
    from_obj,
    move_obj,
    normal_obj,
    normalized,
    render,
    to_html,
    to_json,
    to_markdown,
    to_obj,
)
from casino_coach.report.words import (
    UNCERTAIN_WORDS,
    chance_words,
    game_class_words,
    game_verdict_words,
    loss_words,
    near_target_values_words,
    win_words,
)
from casino_coach.search import Limits, root_moves
from casino_coach.search.chances import solved_chance, table_for

RULES = RuleSet.from_preset("royal")
REPLAYS = Path(__file__).parents[1] / "replays"
PLAYERS = ('Ana <&> "A"', "Ben")


def _analysis() -> GameAnalysis:
    loose, builds = parse_table("3H 5S [2C 3C =5 @1]")
    miss = MoveAnalysis(
        ply=0,
        round=0,
        deal=0,
        move_index=0,
        seat=0,
        side=0,
        played=parse_move("4D"),
        rated=True,
        loose=loose,
        builds=builds,
        hand=parse_hand("8C 4D"),
        best=parse_move("8C x 3H 5S"),
        played_value=-1.0,
        best_value=1.5,
        loss=2.5,
        stderr=0.1,
        cls=MoveClass.BLUNDER,
        exact=True,
        legal=3,
        explanations=(
            Explanation("missed_sweep", "Missed sweep: 8♣ takes 3♥ 5♠", 1.5),
            Explanation("other", "The rest <is> small items", 1.0),
        ),
        alternatives=(
            AlternativeMove(parse_move("8C x 3H 5S"), 1.5, 0.0, MoveClass.BEST),
            AlternativeMove(parse_move("4D"), -1.0, 2.5, MoveClass.BLUNDER),
        ),
        world=WorldCost(parse_move("8C x 3H 5S"), 1.0, -2.0, 3.0, MoveClass.BLUNDER),
    )
    forced = MoveAnalysis(
        ply=1,
        round=0,
        deal=0,
        move_index=1,
        seat=1,
        side=1,
        played=parse_move("KS"),
        rated=True,
        loose=loose | parse_hand("4D"),
        builds=builds,
        hand=parse_hand("KS"),
        best=parse_move("KS"),
        played_value=0.5,
        best_value=0.5,
        loss=0.0,
        cls=MoveClass.BEST,
        forced=True,
        legal=1,
        alternatives=(AlternativeMove(parse_move("KS"), 0.5, 0.0, MoveClass.BEST),),
    )
    good = MoveAnalysis(
        ply=2,
        round=0,
        deal=1,
        move_index=0,
        seat=0,
        side=0,
        played=parse_move("9H"),
        rated=True,
        loose=0,
        builds=(),
        hand=parse_hand("9H TD"),
        best=parse_move("TD"),
        played_value=0.9,
        best_value=1.0,
        loss=0.1,
        cls=MoveClass.GOOD,
        legal=2,
        explanations=(Explanation("other", "The rest (+0.10 points): small items", 0.1),),
        verdict=Explanation("unlucky", "Right on what you knew, unlucky", 0.0),
    )
    shown = MoveAnalysis(
        ply=3,
        round=0,
        deal=1,
        move_index=1,
        seat=1,
        side=1,
        played=parse_move("2S"),
        rated=False,
        loose=parse_hand("9H"),
        builds=(),
        hand=None,
    )
    moves = (miss, forced, good, shown)
    points = ((7.0, 4.0),)
    return GameAnalysis(
        RULES,
        PLAYERS,
        None,
        2,
        AnalysisOptions(limits=Limits(samples=4, min_samples=2)),
        moves,
        summarize(moves, PLAYERS, 2, points),
        points,
        1.25,
    )


def test_json_has_the_contract_fields() -> None:
    a = _analysis()
    obj = orjson.loads(render(a, ReportFormat.JSON))
    assert obj["format"] == "casino-analysis" and obj["players"] == list(PLAYERS)
    m = obj["moves"][0]
    for key in ("ply", "seat", "played", "best", "loss", "class", "explanations", "exact"):
        assert key in m
    assert (
        m["played"] == {"seat": 0, "card": "4D", "action": "trail", "take": []} or m["played"]["card"] == "4D"
    )
    assert m["best"]["action"] == "capture" and sorted(m["best"]["take"]) == ["3H", "5S"]
    assert m["class"] == "blunder" and m["loss"] == 2.5 and m["exact"] is True
    assert m["explanations"][0] == {
        "kind": "missed_sweep",
        "text": "Missed sweep: 8♣ takes 3♥ 5♠",
        "points": 1.5,
    }
    assert m["world"]["class"] == "blunder" and m["world"]["loss"] == 3.0
    assert m["table"]["builds"][0]["value"] == 5
    assert obj["moves"][1]["forced"] is True
    assert obj["moves"][3]["rated"] is False and obj["moves"][3]["class"] is None
    assert obj["moves"][3]["hand"] is None
    assert [s["seat"] for s in obj["summary"]] == [0, 1]
    ana = obj["summary"][0]
    assert ana["moves"] == 2 and ana["unforced"] == 2 and ana["classes"]["blunder"] == 1
    assert ana["loss_total"] == pytest.approx(2.6) and ana["result"] == 3.0
    assert obj["summary"][1]["unforced"] == 0 and obj["summary"][1]["accuracy"] is None


def test_summary_luck_uses_the_first_decision_of_each_deal() -> None:
    a = _analysis()
    # Ana's deal 1 starts at 1.5 (from nothing); deal 2 at 1.0 after Ben's 0.5 (= -0.5 for Ana).
    # Ben's first decision is in deal 1 too: measured from the start of the round (0.5), not from
    # Ana's move. Deal 1's lucks, 1.5 and 0.5, are taken from their mean, 1.0, so that they cancel;
    # Ben has no decision in deal 2, so Ana's 1.5 there stands.
    assert a.summaries[0].luck == (DealLuck(0, 0, 0.5), DealLuck(0, 1, 1.5))
    assert a.summaries[1].luck == (DealLuck(0, 0, -0.5),)


def test_markdown_lists_worst_moves_and_the_game() -> None:
    md = to_markdown(_analysis())
    assert md.startswith("# Game analysis")
    assert "## Worst moves" in md and "## Move by move" in md
    worst = md.split("## Worst moves")[1].split("## Move by move")[0]
    assert "4♦ trails" in worst and "*blunder*" in worst and "8♣ captures 3♥ 5♠" in worst
    assert "Missed sweep: 8♣ takes 3♥ 5♠ (1.50)" in md
    assert "*forced*" in md and "Right on what you knew, unlucky" in md
    assert '| Ana \\<\\&\\> "A" | 2 | 2 |' in md  # names escaped for Markdown (issue 11, item 16)


def page_data(page: str) -> dict[str, Any]:
    """The review page's embedded data (the JSON the page's script draws from)."""
    found = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = orjson.loads(found.group(1))
    return data


def test_html_is_self_contained_and_escaped() -> None:
    page = to_html(_analysis())
    assert page.startswith("<!DOCTYPE html>")
    # No network resource: no address, no external script, style sheet, font or image.
    for banned in ("http://", "https://", "<link", "@import", "url(", "src=", "<img", "<iframe"):
        assert banned not in page
    # Two script elements, both inline: the page's data and the script that draws it.
    assert page.count("<script") == 2 and '<script type="application/json" id="review-data">' in page
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "Ana &lt;&amp;&gt; &#34;A&#34;" in page and "<&>" not in page
    # In the data every <, > and & is a \u escape; read back, the texts are as written.
    assert "<is>" not in page and "The rest \\u003cis\\u003e small items" in page
    data = page_data(page)
    assert data["players"][0] == 'Ana <&> "A"'
    assert data["plies"][0]["why"][1] == ["The rest <is> small items", 1.0]
    # The move list: one entry per ply, anchored by its 0-based ply, the number --at takes (issue 10);
    # the worst moves link to theirs.
    assert [int(x) for x in re.findall(r'id="ply(\d+)"', page)] == [0, 1, 2, 3]
    assert '<a href="#ply0" class="jump c-blunder">ply 0</a>' in page
    assert 'class="cls blunder"' in page and 'class="mv c-forced"' in page
    assert '<i class="mk">??</i>' in page and '<i class="mk">□</i>' in page  # class marks
    assert '<svg class="chart" width="100%"' in page and 'class="ln s0"' in page
    # Red suits in red: in the move list, and the card faces the script draws from the data.
    assert '<span class="r">4♦</span>' in page and ".card.red{color:#c0262d}" in page
    assert data["plies"][0]["hands"][0] == ["4♦", "8♣"] and data["plies"][0]["played"]["card"] == "4♦"


def test_a_player_name_cannot_end_the_page_data() -> None:
    # A name written to break out of the script element stays a name (issue 11, item 16).
    a = _analysis()
    names = ("</script><script>alert(1)</script>", "<!--Ben")
    page = to_html(dataclasses.replace(a, players=names))
    assert page.count("<script") == 2 and page.count("</script>") == 2 and "<!--" not in page
    assert page_data(page)["players"] == list(names)
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_page_shows_each_ply_with_the_best_move_beside_the_played_one() -> None:
    data = page_data(to_html(_analysis()))
    plies = data["plies"]
    assert [p["ply"] for p in plies] == [0, 1, 2, 3]
    miss = plies[0]
    assert miss["played"]["text"] == "4♦ trails" and miss["best"]["text"] == "8♣ captures 3♥ 5♠"
    assert miss["loss"] == 2.5 and miss["basis"] == "exact" and miss["label"] == "blunder"
    assert miss["table"]["loose"] == ["3♥", "5♠"]
    assert miss["table"]["builds"] == [{"cards": ["2♣", "3♣"], "value": 5, "owner": 1, "multiple": False}]
    assert plies[2]["label"] == "good" and plies[2]["best"]["text"] == "10♦ trails"
    assert plies[2]["loss"] == 0.1
    # A move that lost nothing names no best move; an unrated one says why.
    assert "best" not in plies[1] and plies[1]["note"] == "The only legal move."
    assert plies[3]["label"] == "not rated" and plies[3]["note"].startswith("Not rated")


def test_forced_means_one_legal_move() -> None:
    # Issue 10: "forced" stood on moves with several choices (every one worth the same).
    a = _analysis()
    equal = dataclasses.replace(a.moves[1], legal=3)
    page = to_html(dataclasses.replace(a, moves=(a.moves[0], equal, *a.moves[2:])))
    ply = page_data(page)["plies"][1]
    assert ply["label"] == "all equal"
    assert ply["note"] == "Every one of the 3 legal moves is worth the same here."
    assert 'class="mv c-forced"' not in page and 'class="mv c-equal"' in page
    assert "*all equal*" in to_markdown(dataclasses.replace(a, moves=(a.moves[0], equal, *a.moves[2:])))


def test_chart_has_one_point_per_rated_move() -> None:
    svg = chart_svg(_analysis())
    assert svg.count("<circle") == 3 and svg.count('data-ply="') == 3
    # Two sides: one series seen from the first player (Ben's 0.5 is -0.5 for Ana).
    assert "expected -0.50" in svg and "expected -1.00" in svg
    # Responsive: the full width, with x in percent; a square at the end of the played-out round.
    assert '<svg class="chart" width="100%"' in svg and 'cx="' in svg and '%"' in svg
    assert svg.count('class="end s0"') == 1 and "+3.00 after the round" in svg


def test_the_chart_spans_the_game() -> None:
    # Issue 10: the chart restarted every round. The second round's values stand on the game score
    # after the first (7 - 4 = +3 for Ana), and each side has a legend.
    a = _analysis()
    later = tuple(dataclasses.replace(m, round=1, ply=m.ply + 4) for m in a.moves)
    b = dataclasses.replace(a, moves=(*a.moves, *later))
    svg = chart_svg(b)
    ana = "Ana &lt;&amp;&gt; &#34;A&#34;"
    assert f"ply 4, {ana}: 4♦ trails (blunder, exact); {ana} expected +2.00" in svg
    assert svg.count('class="band') == 2
    page = to_html(b)
    assert "expected lead over Ben</li>" in page


def _scored(rules: RuleSet) -> GameAnalysis:
    """The test analysis with its round scored from piles: Ana took 30 cards with 10♦ and three aces
    and swept twice, Ben the rest with 2♠."""
    from casino_coach.engine.scoring import score_round
    from casino_coach.engine.state import RoundState

    ana = parse_hand("TD AS AC AH 3D 4D 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    ana |= parse_hand("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")
    ben = ((1 << 52) - 1) & ~ana
    end = RoundState((0, 0), 0, (), (ana, ben), (2, 0), 0, 0, 0, False, 1, 2)
    rs = score_round(rules, end)
    a = dataclasses.replace(_analysis(), rules=rules, round_points=(tuple(map(float, rs.points)),))
    return dataclasses.replace(a, round_scores=(rs,), totals=rs.points, winner=None)


def test_each_round_is_broken_down_by_scoring_item() -> None:
    # Issue 10: the report had no round score breakdown and no final result.
    royal = to_html(_scored(RuleSet.from_preset("royal")))
    rounds = royal.split('id="rounds"')[1]
    for item in ("Most cards", "Most spades", "Big Casino 10♦", "Little Casino 2♠", "Aces", "Sweeps"):
        assert f'<th scope="row">{item}</th>' in rounds, item
    assert '<td class="won">3 <span class="cnt">(30)</span></td>' in rounds  # most cards, with the count
    assert '<span class="cnt">(A♠ A♣ A♥)</span>' in rounds
    assert "Round points" in rounds and "Game score" in rounds
    # Sweeps score only under rules that count them: not in classic.
    classic = to_html(_scored(RuleSet.from_preset("classic"))).split('id="rounds"')[1]
    assert "Most cards" in classic and "Sweeps" not in classic
    assert "No winner yet after 1 round (the game goes to 21)" in classic
    won = dataclasses.replace(_scored(RULES), winner=0)
    assert "Ana &lt;&amp;&gt; &#34;A&#34; wins the game after 1 round" in to_html(won)
    # The JSON has the same breakdown as replay --json.
    obj = to_obj(_scored(RULES))
    assert obj["rounds"][0]["breakdown"][0]["card_count"] == 30 and obj["rounds"][0]["sweeps"] == [2, 0]


def test_every_format_renders() -> None:
    a = _analysis()
    for fmt in ReportFormat:
        data = render(a, fmt)
        assert data and data.decode()
    assert re.search(r"Round 1 \(points 7, 4\)", to_markdown(a))
    assert to_obj(a)["rounds"] == [{"points": [7.0, 4.0]}]


def test_only_missed_moves_show_a_loss_and_a_best_move() -> None:
    a = _analysis()
    assert [m.missed for m in a.moves] == [True, False, True, False]
    assert [m.ply for m in a.worst()] == [0, 2]
    md = to_markdown(a).split("## Move by move")[1]
    forced = next(line for line in md.splitlines() if "*forced*" in line)
    assert "lost" not in forced and "best:" not in forced


def test_both_costs_side_by_side() -> None:
    a = _analysis()
    assert "on the cards actually held: lost 3.00 of margin (blunder)" in to_markdown(a)
    world = page_data(to_html(a))["plies"][0]["world"]
    assert world == {
        "text": "On the cards actually held: lost 3.00 of margin (blunder); best there 8♣ captures 3♥ 5♠",
        "css": "blunder",
    }


def test_the_real_cards_are_shown_only_when_they_say_something() -> None:
    # Issue 10: a green "0.00 on the cards actually held" stood on nearly every move.
    a = _analysis()
    same = dataclasses.replace(
        a.moves[0], world=WorldCost(parse_move("8C x 3H 5S"), 1.0, -1.4, 2.4, MoveClass.BLUNDER)
    )
    b = dataclasses.replace(a, moves=(same, *a.moves[1:]))
    assert "world" not in page_data(to_html(b))["plies"][0]
    assert "on the cards actually held" not in to_markdown(b)


def test_luck_per_deal_is_listed() -> None:
    a = _analysis()
    assert '- Ana \\<\\&\\> "A": round 1: +0.50 +1.50' in to_markdown(a)
    assert "Ben: round 1: -0.50" in to_html(a)


def test_a_loss_of_nothing_on_the_real_cards_names_no_better_move() -> None:
    # Regression: "lost 0.00 · best there 7♥ trails".
    m = _analysis().moves[0]
    tied = dataclasses.replace(m, world=WorldCost(parse_move("8C x 3H 5S"), 1.0, 1.0, 0.0, MoveClass.BEST))
    console = Console(width=100, record=True)
    console.print(move_panel(tied, PLAYERS))
    text = console.export_text()
    assert "lost 0.00" in text and "best there" not in text
    console.print(move_panel(m, PLAYERS))
    assert "best there" in console.export_text()


def test_the_loss_says_what_it_rests_on() -> None:
    m = _analysis().moves[0]
    assert loss_words(m) == "lost 2.50 of margin (exact)"
    sampled = dataclasses.replace(m, exact=False, loss_low=1.9, loss_high=3.1, samples=40)
    assert loss_words(sampled) == "lost 2.50 of margin (1.90 to 3.10 over 40 worlds)"
    uncertain = dataclasses.replace(sampled, uncertain=True, shallow=True)
    assert "shallower" in loss_words(uncertain) and "at most one above the low end's" in loss_words(uncertain)
    enumerated = dataclasses.replace(m, exact=False, loss_low=2.5, loss_high=2.5, samples=9, enumerated=True)
    assert loss_words(enumerated) == "lost 2.50 of margin (over all 9 kinds of deal the player could face)"
    # Issue 41: every world searched, yet before the last deal the value rests on the estimate of the
    # rest of the round: the words say so, not only a zero-width interval.
    view = PositionView(
        hands=(0, 0), hand_sizes=(2, 2), captured=(0, 0), sweeps=(0, 0), stock=16, scores=(0, 0)
    )
    earlier = dataclasses.replace(enumerated, view=view)
    assert loss_words(earlier) == (
        "lost 2.50 of margin (over all 9 kinds of deal the player could face, the rest of the round "
        "estimated at the end of the deal)"
    )
    last = dataclasses.replace(enumerated, view=view._replace(stock=0))
    assert loss_words(last) == "lost 2.50 of margin (over all 9 kinds of deal the player could face)"
    # With two players before the last deal the estimate's margin widens it (verdict.cut_margin): the
    # interval is shown, and it is no sampling error.
    widened = dataclasses.replace(earlier, loss_low=2.16, loss_high=2.84)
    assert loss_words(widened) == (
        "lost 2.50 of margin (2.16 to 2.84, over all 9 kinds of deal the player could face, the rest "
        "of the round estimated at the end of the deal)"
    )


def test_an_enumeration_is_read_back_as_one_and_inferred_in_an_analysis_saved_before_the_field() -> None:
    a = _analysis()
    widened = dataclasses.replace(
        a.moves[0], exact=False, loss_low=2.16, loss_high=2.84, samples=9, enumerated=True
    )
    sampled = dataclasses.replace(widened, enumerated=False, samples=40)
    for m in (widened, sampled):
        assert from_obj(to_obj(dataclasses.replace(a, moves=(m,)))).moves[0].enumerated is m.enumerated
    # Before the field, an enumerated loss was the one with an interval of no width.
    old = to_obj(dataclasses.replace(a, moves=(dataclasses.replace(widened, loss_low=2.5, loss_high=2.5),)))
    del old["moves"][0]["enumerated"]
    assert from_obj(old).moves[0].enumerated
    sampled_old = to_obj(dataclasses.replace(a, moves=(sampled,)))
    del sampled_old["moves"][0]["enumerated"]
    assert not from_obj(sampled_old).moves[0].enumerated


def test_the_html_shows_the_interval_of_a_sampled_loss() -> None:
    a = _analysis()
    sampled = dataclasses.replace(
        a.moves[0], exact=False, loss_low=1.9, loss_high=3.1, samples=40, uncertain=True
    )
    page = to_html(dataclasses.replace(a, moves=(sampled, *a.moves[1:])))
    basis = page_data(page)["plies"][0]["basis"]
    assert (
        basis
        == "1.90 to 3.10 over 40 worlds; the interval spans more than one class: the estimate's class is "
        "given, at most one above the low end's"
    )


def test_game_chances_in_every_format() -> None:
    # Issue 18: a move's chance to win the game, before the round and after it (coach.winning).
    a = _analysis()
    miss = a.moves[0]
    assert miss.best is not None
    win = WinChances((0.5, 0.5), ((miss.best, (0.62, 0.38)), (miss.played, (0.31, 0.69))))
    moves = (dataclasses.replace(miss, win=win), *a.moves[1:])
    b = dataclasses.replace(a, moves=moves)
    obj = to_obj(b)
    assert obj["moves"][0]["win_chance"] == {
        "round_start": [0.5, 0.5],
        "best": [0.62, 0.38],
        "played": [0.31, 0.69],
        "lost": 0.31,
    }
    assert obj["moves"][1]["win_chance"] is None
    words = (
        "chance to win the game: 50% before the round, 31% after it with the move played (62% with the "
        "best move)"
    )
    assert words in to_markdown(b)
    page = to_html(b)
    assert 'id="win-chart"' in page and "Chance to win the game" in page
    assert 'id="win-chart"' not in to_html(a)  # no chances, no chart


def test_the_words_say_when_the_game_and_the_round_disagree() -> None:
    a = _analysis()
    miss = a.moves[0]  # a blunder of 2.5 round points, searched exactly
    assert miss.best is not None and miss.exact and miss.view is None
    # The move played keeps more chance of winning the game than the round's best, by 5% at the low
    # end of the interval: right for the game.
    win = WinChances((0.5, 0.5), ((miss.best, (0.60, 0.40)), (miss.played, (0.65, 0.35))))
    ahead = GameVerdict(miss.played, 0.0, 0.0, 0.0, MoveClass.BEST, False, ahead=0.05)
    m = dataclasses.replace(miss, win=win, game=ahead)
    text = game_verdict_words(m)
    assert text == (
        "Right for the game, wrong for the round: 4♦ trails leaves you 65% to win the game, 8♣ captures "
        "3♥ 5♠ 60%; the 2.50 of margin it gives up this round matters less"
    )
    obj = move_obj(m, PLAYERS)
    assert obj["game_verdict"] == text
    assert obj["game_class"] == {
        "class": "best",
        "lost": 0.0,
        "lost_interval": [0.0, 0.0],
        "uncertain": False,
        "best": move_to_json(miss.played, miss.seat),
        # what the words rest on, so that a saved analysis renders them (export --from)
        "ahead": 0.05,
        "differs": True,
    }
    assert text in to_markdown(dataclasses.replace(a, moves=(m,)))
    # Ahead by less than the inaccuracy edge for the game with confidence, or with no verdict for the
    # game (it is not close): the words say nothing, whatever the chances.
    assert game_verdict_words(dataclasses.replace(m, game=dataclasses.replace(ahead, ahead=0.01))) is None
    assert game_verdict_words(dataclasses.replace(m, game=None)) is None
    assert move_obj(dataclasses.replace(m, game=None), PLAYERS)["game_class"] is None
    # The move played was best for the round, and another of the best moves is better for the game by
    # a blunder's worth (a mistake's at the low end): right for the round, wrong for the game.
    other = parse_move("8C x 3H 5S")
    best = dataclasses.replace(miss, best=miss.played, loss=0.0, cls=MoveClass.BEST)
    win = WinChances((0.5, 0.5), ((miss.played, (0.30, 0.70)), (other, (0.45, 0.55))))
    wrong = GameVerdict(other, 0.15, 0.08, 0.22, MoveClass.BLUNDER, True)
    assert GAME_THRESHOLDS.classify_interval(0.15, 0.08) == MoveClass.BLUNDER
    b = dataclasses.replace(best, win=win, game=wrong)
    assert game_verdict_words(b) == (
        "Right for the round, wrong for the game: 8♣ captures 3♥ 5♠ would leave you 45% to win the game, "
        "the move played 30%"
    )
    words = (
        "for the game: a blunder, 15.0% of the chance to win given up (8.0% to 22.0%; "
        f"{UNCERTAIN_WORDS}) against 8♣ captures 3♥ 5♠"
    )
    good = dataclasses.replace(wrong, cls=MoveClass.GOOD, lost=0.019, low=0.0003, high=0.03)
    assert game_class_words(good) == (
        f"for the game: good, 1.9% of the chance to win given up (<0.1% to 3.0%; {UNCERTAIN_WORDS}) against "
        "8♣ captures 3♥ 5♠"
    )
    assert game_class_words(b.game) == words
    # The chance after the move best for the game is shown where it is neither the move played nor
    # the round's best (the Dominican game, ply 104, read "93% after it with the move played (93% with
    # the best move); for the game: good, 6.5% ... given up ... against 10♣ captures 10♦").
    assert win_words(b) == (
        "chance to win the game: 50% before the round, 30% after it with the move played (45% with 8♣ "
        "captures 3♥ 5♠); " + words
    )
    # Good for the game: no disagreement to tell.
    assert (
        game_verdict_words(dataclasses.replace(b, game=dataclasses.replace(wrong, cls=MoveClass.GOOD)))
        is None
    )
    assert game_verdict_words(best) is None  # no chances, no words
    # A blunder for the round that gives up nothing of the game: it does not matter there.
    won = WinChances((0.9, 0.1), ((miss.best, (1.0, 0.0)), (miss.played, (1.0, 0.0))))
    level = GameVerdict(miss.best, 0.0, 0.0, 0.0, MoveClass.BEST, False)
    assert miss.cls == MoveClass.BLUNDER
    assert game_verdict_words(dataclasses.replace(miss, win=won, game=level)) == (
        "No matter for the game: 4♦ trails leaves you 100% to win the game, as 8♣ captures 3♥ 5♠ does; "
        "the 2.50 of margin it gives up this round does not change that"
    )
    # Not for a slip the game class does see, nor for a mere inaccuracy for the round.
    slip = dataclasses.replace(level, cls=MoveClass.GOOD, lost=0.01, high=0.01)
    assert game_verdict_words(dataclasses.replace(miss, win=won, game=slip)) is None
    small = dataclasses.replace(miss, win=won, game=level, cls=MoveClass.INACCURACY, loss=0.3)
    assert game_verdict_words(small) is None


def test_the_document_is_the_normalized_analysis_s_without_reading_it_back() -> None:
    # normal_obj writes what to_obj(normalized(a)) writes, only without reading every move back: the
    # words on the game's verdict, which rest on values the document rounds, are said from the move
    # as read back.
    a = _analysis()
    miss = a.moves[0]
    assert miss.best is not None
    win = WinChances((0.5, 0.5), ((miss.best, (0.600004, 0.399996)), (miss.played, (0.65003, 0.34997))))
    ahead = GameVerdict(miss.played, 0.0, 0.0, 0.0, MoveClass.BEST, False, ahead=0.049996)
    close = dataclasses.replace(miss, win=win, game=ahead, loss=2.50004, played_value=-1.23456)
    for b in (a, _scored(RULES), dataclasses.replace(a, moves=(close, *a.moves[1:]))):
        assert normal_obj(b) == to_obj(normalized(b))
        assert render(b, ReportFormat.JSON) == to_json(normalized(b))
    assert normal_obj(dataclasses.replace(a, moves=(close,)))["moves"][0]["game_verdict"] is not None


def test_a_decided_game_reads_as_certain() -> None:
    # A sum of the table's chances can miss 1 in its last bits: a won game is "100%", not ">99%" (the
    # Dominican game, ply 157, read ">99%" where 10♦ had won it).
    assert chance_words(0.9999999999999997) == "100%" and chance_words(3e-17) == "0%"
    assert chance_words(0.996) == ">99%" and chance_words(0.004) == "<1%" and chance_words(0.48) == "48%"


def test_an_exact_last_deal_is_judged_with_both_sides_playing_for_the_game() -> None:
    # The bundled Dominican game, ply 88: Ben 2-10 down, in the last deal (searched exactly), plays the
    # best move for the round. While the chances followed the lines in which both sides play for the
    # round, 7♣ taking 2♦ 5♠ was said to keep more chance of the game ("16%, the move played 9%": a
    # mistake for the game). With Ana playing the rest of the deal to win the game too, the move
    # played is the best for the game and nothing is said against it.
    log = read_log(REPLAYS / "dominican-2p-full.json")
    ply = replay_log(log).plies[88]
    m = analysis._rate(log.rules, ply, Settings(analysis_limits()), tuple(log.players))
    assert m.exact and m.cls == MoveClass.BEST and m.view is not None and m.view.scores[m.side] == 2
    assert game_verdict_words(m) is None
    g = m.game
    assert g is not None and g.cls == MoveClass.BEST and g.lost == 0 and not g.uncertain
    assert m.win is not None
    played = m.win.of(m.played)
    assert played is not None and played[m.side] == pytest.approx(0.1571, abs=1e-4)
    table = table_for(log.rules, 2)
    assert table is not None and ply.observation is not None
    seven = next(mv for mv in root_moves(log.rules, ply.observation) if mv.describe() == "7♣ captures 2♦ 5♠")
    assert solved_chance(table, ply.observation, ply.scores, seven) < played[m.side]
    assert move_obj(m, tuple(log.players))["game_class"]["class"] == "best"


@pytest.mark.parametrize(("log_name", "ply"), [("royal-2p-full.json", 88), ("dominican-2p-full.json", 73)])
def test_suggest_at_a_ply_says_what_analyze_says_for_the_game(log_name: str, ply: int) -> None:
    # "No matter for the game: ..." (royal, ply 88) and "Right for the round, wrong for the game: ..."
    # (Dominican, ply 73) were in analyze's report only; suggest --at said nothing of them (QA).

    log = read_log(REPLAYS / log_name)
    m = analysis._rate(log.rules, replay_log(log).plies[ply], Settings(analysis_limits()), tuple(log.players))
    words = game_verdict_words(m)
    assert words is not None
    out = CliRunner().invoke(app, ["suggest", str(REPLAYS / log_name), "--at", str(ply), "--json"])
    assert out.exit_code == 0 and orjson.loads(out.stdout)["played"]["game_verdict"] == words
    text = CliRunner().invoke(
        app, ["suggest", str(REPLAYS / log_name), "--at", str(ply)], env={"COLUMNS": "400"}
    )
    assert f"  - {words}" in text.stdout


def test_the_near_21_note_names_each_side_under_the_rule() -> None:
    dominican = RuleSet.from_preset("dominican")
    both = near_target_values_words(dominican, (18, 19), ["Ana", "Ben & Dee"])
    assert both is not None
    assert "Ana at 18 can win the game this round only by most cards, and its other items" in both
    assert "Ben & Dee at 19 can win the game this round only by Big Casino 10♦, and their other" in both
    capped = near_target_values_words(
        dominican.replace(near_target_mode="cap_at_20"), (20, 3), ["Ana", "Ben"]
    )
    assert capped is not None and "its other items count only up to 20, and its sweeps not at all" in capped
    assert near_target_values_words(dominican, (17, 3), ["Ana", "Ben"]) is None
    assert near_target_values_words(RuleSet.from_preset("royal"), (20, 19), ["Ana", "Ben"]) is None
    assert near_target_values_words(dominican, None, ["Ana", "Ben"]) is None


def test_markdown_says_what_a_near_21_rounds_points_count() -> None:
    # The bundled Dominican game starts its third and fourth rounds at 19-5 and 19-8.
    log = read_log(REPLAYS / "dominican-2p-full.json")
    fast = Limits(samples=2, min_samples=2, depth=1)
    md = to_markdown(analyze(log, AnalysisOptions(limits=fast, world=False)))
    rounds = md.split("## Move by move")[1].split("### Round ")[1:]
    notes = ["Near 21 (rules.md 1.14): " in r.split("#### Deal 1")[0] for r in rounds]
    assert notes == [False, False, True, True]
    assert "Ana at 19 can win the game this round only by Big Casino 10♦" in rounds[2]


def test_the_charts_grid_has_a_few_lines_however_wide_the_scores() -> None:
    # issue 43, class 7: the grid's step stopped at 100 points, and a game of 10**7 points drew a
    # 16 MB page in 33 s (10**8: 1 GB, killed)
    from casino_coach.report.review import _step

    for span in (0.0, 1.0, 3.0, 3.5, 7.0, 25.0, 130.0, 999.0, 1e7, 1e8, 9.3e18, 1e300):
        step = _step(span)
        assert step >= 0.5 and span / step <= 6, (span, step)
    assert [_step(s) for s in (2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 250.0)] == [
        0.5,
        1.0,
        2.0,
        5.0,
        10.0,
        20.0,
        50.0,
    ]
