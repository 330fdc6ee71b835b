"""The search budget of a verdict: how many worlds, how deep and how many nodes each decision is
searched with by default (``verdict.analysis_limits`` makes them the search's limits).

Plain numbers, apart from the search they limit: the command line shows the default number of
worlds (``--samples``) in its help without importing the search.
"""

from __future__ import annotations

from typing import Final

# Plies searched per sampled world before the leaf estimate, with any number of players: a 2-player
# deal (8 plies) to its end, and 3 and 4 players as deep (issue 41). At 5 plies, the depth before
# the native core, an outside audit against the same moves searched 8 deep found 4-player losses about
# 0.5 points too high (4 of 10 mistakes and blunders milder at 8); on the bundled 3- and 4-player logs
# 8 plies changed the class of 10-22% of the unforced moves (performance.md, "Search depth").
ANALYSIS_DEPTH: Final = 8
# With at most this many cards left in the hands, a decision is searched to the end of the deal whatever
# the depth: with 3 players the whole last deal (four cards each), with 4 players from 4-3-3-3. In
# the last deal that is the end of the round, where the leaf's estimate misled most: 8 plies with ten
# cards left called a 3-player move best where searched to the end it lost 5.55 points. Raised from 9
# to 13 against experiments/verdict_stability.py's heavy reference (performance.md, "Verdict
# stability"): 3 players' classes agree 94.3% (92.0% at 9), the reference inside the interval 96.0%
# (90.8%), 4 players 83.2% and 89.7% (81.3%, 85.8%), for 2-3 times the 3-player time. At 16 (every
# 4-player deal whole) one 4-player game took 6.8 times as long; the last deal alone whole
# (``verdict.decision_limits``) takes 1.5 times as long, for 85.2% and 95.5%.
DEAL_END_CARDS = 13
# With two players, in the deal before the round's last, a decision with at most this many cards left in
# the hands is searched on to the end of the round with no leaf estimate: at the end of the deal the
# last deal is dealt every way the stock can be (70) and solved, every card known in it
# (``expectimax.goes_to_round_end``). Where the mover plays the last card of its hand the values are
# exact: the other player replies knowing every card but the stock's. With four cards left one such
# decision spent the whole node budget (1.6 million nodes, 0.6 s) on 22 of its 23 kinds of deal, and 9
# s on the Python reference; from three it takes 0.1-0.2 s (performance.md, "The deal before the
# last, on to the end of the round").
ROUND_END_CARDS = 3


# The estimate of the rest of the round where a 2-player search stops at the end of a deal
# (``Limits.leaf``): the learned deal-end value (scripts/fit_leaf.py; its fifth deal's end fitted to
# the exact value of the last deal, ``--exact-last``), not the handmade card odds. Against the same
# decisions searched on a deal deeper (experiments/leaf_error.py: 276 decisions with at most 4 cards
# left in the hands; in the fifth deal the deeper search is exact) the 95th percentile of a loss's
# error is 0.70 points (0.96 handmade), and in the fifth deal the best move is the same in 91% of the
# decisions (78%). With three or more sides no weights are fitted and the handmade odds run.
VERDICT_LEAF = "learned"

# How many worlds a verdict may rest on: at least VERDICT_MIN_WORLDS, and more, up to VERDICT_WORLDS
# with two players and VERDICT_WORLDS_MANY with three or four, while the loss of the move played still
# straddles a class edge, *best*'s included (``judge``), and while the node budget lasts (or, where
# too few worlds fit at the analysis depth, the decision is searched shallower). Most decisions settle
# long before the cap; the moves it is for lose about as much as a class edge. Against
# experiments/verdict_stability.py's eight 2-player games (performance.md, "Verdicts that settle"),
# with *best*'s edge settled as well: 1,280 worlds kept 95.8% of the classes under five seeds (with
# half a point's spread, ``result.RARE_WORLDS_SPREAD``), and with a point's 5,120 97.3%, 10,240 99.2%
# and 20,480 99.6%, for 0.3, 0.5, 0.6 and 0.7 s a game; a bundled Dominican game
# of three rounds takes 1.8, 3.9, 4.9 and 6.0 s. With three or four players a world costs several
# times as much and the node budget binds first: 1,280 worlds against 320 kept 94.3% of the 3-player
# classes (91.4%) and 81.9% of the 4-player ones (78.7%), for 2.6 s and 4.6 s a game (2.1 and 3.1).
# With the shallower retry given the node cap again (``expectimax.NODE_CAP``), the nine 3- and 4-player
# games kept 92.1% of their classes at 2,560, 93.9% at 5,120 and 92.7% at 10,240 (90.9% at 1,280
# before), most of the gain in moves that lose about as much as a class edge; 3 players took 2.8 s a
# game at each, 4 players 4.5, 4.9 and 4.7 s (performance.md, "The node cap again").
VERDICT_WORLDS = 10240
VERDICT_WORLDS_MANY = 5120
VERDICT_MIN_WORLDS = 16
VERDICT_NODES = 1_600_000
# With four players, a verdict's node budget (``Limits.nodes_four``). A 4-player world costs the most,
# and the decisions that run out of budget there rest on 16-60 worlds (a last deal searched whole,
# or the first deal from 13 cards on). With the tables kept and the move cache prefetched
# (performance.md, "The tables in memory"), 1.5 times the nodes fits the time 1.6 million took
# before: against experiments/verdict_stability.py's heavy reference, the four 4-player games agree
# 148/155 (95.5%) at 2.4 and 3.2 million, 147 at 2.0 and 146 (94.2%) at 1.6, for a median 5.0 s
# a game with --jobs 2 (3.9 s at 1.6 million, 8.4 at 3.2); the classes kept under five seeds move
# within two moves of 142/155 either way. Three players gain nothing from it: at 2.4 million
# their classes agree 172/174 (169) but keep 166/175 under the seeds (168), for 3.5 s a game (2.5).
VERDICT_NODES_FOUR = 2_400_000
# The error of the depth cut and the leaf, by number of players: added to both ends of a loss's
# interval where the search stopped short of the end of the round (``verdict.judge``), since the
# standard error covers only the sampling. Calibrated with experiments/calibrate_intervals.py against
# experiments/verdict_stability.py's heavy reference (ten times the worlds, 4 plies deeper): with two
# and three players it lies inside the interval without a margin (97.7% and 98.9% of the moves); with
# four in 91.6%, mostly by 0.02-0.08 points, and 96.1% with 0.07 (performance.md, "Verdicts that
# settle").
CUT_MARGINS: Final = {2: 0.0, 3: 0.0, 4: 0.07}
# With two players, in the deal before the round's last, a search that stops at the end of the deal
# rests on the leaf's estimate of the whole last deal, and a deeper search there is exact: against the
# same decisions searched on to the end of the round (experiments/verdict_stability.py
# --reference-round-end 8: ten times the worlds, the deal before the last on to the end of the round
# from 8 cards), the intervals of the eight 2-player games held the exact loss in 72% of those moves
# under five seeds (50-80% with 4-7 cards left), where 4 plies deeper than the leaf said 98%. This
# margin, the smallest that holds it in 95% (experiments/calibrate_intervals.py), is added to both
# ends of their intervals instead of CUT_MARGINS[2] (performance.md, "The leaf before the last deal").
LAST_LEAF_MARGIN: Final = 0.34

# Enumerate the consistent worlds when they fall into at most this many classes (worlds that differ
# only by where unseen twins lie are one class, ``search.worlds.world_classes``): with two players that
# covers most decisions where the other player holds two cards (100-400 classes), and every one where
# it holds one; then the values carry no sampling error (though they are not exact:
# ``expectimax._result``). Measured with experiments/verdict_stability.py: 50 classes (as many raw
# worlds before) 89.2% of the classes the same under 5 seeds, 200 classes 92.2% in less time (99 s
# against 108 s for the twelve games), 400 92.0% and 1,000 92.4% in 154 s and 188 s.
VERDICT_EXACT_WORLDS = 200
# Where there are more classes than that but at most twice as many worlds as a verdict may draw, it
# takes them without replacement (``Limits.shuffled``, ``expectimax.shuffles``): draws repeat worlds
# there (up to 10,240 draws over a decision of 2,925 worlds), and their mean still moves from seed to
# seed where every world searched once is the enumeration's value, whatever the seed.
VERDICT_SHUFFLED = True
