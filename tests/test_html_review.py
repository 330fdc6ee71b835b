"""The review page's data and markup (issue 42, a strong player's review): the move list in the order
of play, the keys to the mistakes, the position after the move and after the best move, the anchors
on the board, and the chart of one chosen side. The page in a real browser is
``test_html_chromium.py``."""

from __future__ import annotations

import dataclasses
import re

from test_report import _analysis, page_data

from casino_coach.coach.analysis import GameAnalysis
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
