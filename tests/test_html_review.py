"""The review page's data and markup (issue 42, a strong player's review): the move list in the order
of play, the keys to the mistakes, the position after the move and after the best move, the anchors
on the board, and the chart of one chosen side. The page in a real browser is
``test_html_chromium.py``."""

from __future__ import annotations

import dataclasses
import re

import pytest
from test_analysis import FAST, _log, make_log
from test_report import _analysis, page_data

from casino_coach.coach.analysis import AnalysisOptions, GameAnalysis, analyze
from casino_coach.report.document import to_html


def _ben_first() -> GameAnalysis:
    """The test analysis with the seats swapped: Ben (seat 1) makes ply 0, as when Ana deals."""
    a = _analysis()
    moves = tuple(dataclasses.replace(m, seat=1 - m.seat, side=1 - m.side) for m in a.moves)
    return dataclasses.replace(a, moves=moves)


def _move_list(page: str) -> str:
    return page.split('id="moves"')[1].split("</table>")[0]


def test_the_move_list_is_in_the_order_of_play() -> None:
    # Issue 42: Ana's column came first though Ben moved first, so ply 0 sat top right.
    for a, first in ((_analysis(), "Ana &lt;&amp;&gt; &#34;A&#34;"), (_ben_first(), "Ben")):
        ml = _move_list(to_html(a))
        plies = [int(x) for x in re.findall(r'data-ply="(\d+)"', ml)]
        assert plies == [0, 1, 2, 3]
        # The round's first mover heads the first column, and ply 0 is the first cell of the first row.
        names = re.search(r'<tr class="ph">(.*?)</tr>', ml)
        assert names is not None and re.findall(r'title="([^"]*)"', names.group(1))[0] == first
        first_row = ml.split('<tr class="dh">')[1].split("</tr>", 1)[1].split("</tr>")[0]
        assert first_row.startswith("\n<tr><td><a") and 'data-ply="0"' in first_row.split("</td>")[0]


def test_the_page_has_the_position_after_the_move_and_after_the_best() -> None:
    # Issue 42: no view of the position after the move. The engine's apply makes it at export time.
    ply = page_data(to_html(_analysis()))["plies"][0]  # 4♦ trails; best 8♣ captures 3♥ 5♠
    build = [{"cards": ["2♣", "3♣"], "value": 5, "owner": 1, "multiple": False}]
    assert ply["after"] == {"table": {"loose": ["3♥", "4♦", "5♠"], "builds": build}, "hand": ["8♣"]}
    assert ply["afterBest"] == {"table": {"loose": [], "builds": build}, "hand": ["4♦"]}
    # A move that was the best has no second position.
    forced = page_data(to_html(_analysis()))["plies"][1]
    assert "afterBest" not in forced and forced["after"]["hand"] == []


@pytest.fixture(scope="module")
def game() -> GameAnalysis:
    return analyze(_log(make_log(6)), AnalysisOptions(limits=FAST))


def test_each_position_after_is_the_next_position_before(game: GameAnalysis) -> None:
    plies = page_data(to_html(game))["plies"]
    for p, q, m in zip(plies, plies[1:], game.moves[1:], strict=False):
        assert p["after"]["table"] == q["table"]
        assert m.view is not None
        taken = {s: set(cards) for s, cards in p["after"]["took"]}
        side = p["side"]
        assert p["after"]["pile"]["n"] == m.view.captured[side].bit_count()
        assert (p["played"]["action"] == "capture") == bool(taken)
        if taken:
            assert taken[side] == {p["played"]["card"], *p["played"]["take"]}
        assert not p["after"]["end"]
    # The last move ends the round: the table empty, the rest to the last capturer, 52 cards taken.
    last = plies[-1]["after"]
    assert last["end"] and last["table"] == {"loose": [], "builds": []} and last["hand"] == []
    total = sum(game.moves[-1].view.captured[s].bit_count() for s in range(2))  # type: ignore[union-attr]
    assert total + sum(len(c) for _, c in last["took"]) == 52
    # The best move's position differs from the played one's where the page names a better move.
    best = [p for p in plies if "afterBest" in p]
    assert best and all(p["afterBest"] != p["after"] for p in best)
