"""Hidden-information search: expectiminimax over the hands a player cannot see.

``evaluate(rules, obs, limits)`` values every legal move of the seat to move from its observation alone
(own hand, table, every card seen, how many cards each other seat and the stock hold): worlds consistent
with the observation are sampled (or enumerated when few), each is solved by alpha-beta to the end of
the deal (exactly to the end of the round in the last deal), and each move gets its expected value and
standard error in points: the mover's side's round points minus the mean of the other sides', for the
whole round. ``evaluate_world`` does the same with every card known. See ``expectimax.py``,
``worlds.py``, ``solver.py`` and ``leaf.py``; the sampling race itself (``race.py``) is written against
the small game protocol of ``protocol.py``, and the tests run it on a toy game too.
"""

from casino_coach.errors import SearchError
from casino_coach.search.expectimax import (
    SearchRequest,
    decision_seed,
    enumerates,
    evaluate,
    evaluate_world,
    root_moves,
)
from casino_coach.search.result import Limits, MoveValue, Outcome, SearchResult
from casino_coach.search.tree import SearchTree, TreeNode
from casino_coach.search.worlds import World, count_worlds, enumerate_worlds, sample_world, world_state

__all__ = [
    "Limits",
    "MoveValue",
    "Outcome",
    "SearchError",
    "SearchRequest",
    "SearchResult",
    "SearchTree",
    "TreeNode",
    "World",
    "count_worlds",
    "decision_seed",
    "enumerate_worlds",
    "enumerates",
    "evaluate",
    "evaluate_world",
    "root_moves",
    "sample_world",
    "world_state",
]
