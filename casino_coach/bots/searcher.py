"""The ``searcher`` bot: play the move the hidden-information search values most.

``SearcherPolicy(**options)`` takes the fields of ``Limits`` as options (``samples``, ``min_samples``,
``time``, ``exact_worlds``, ``depth``, ``separation``, ``margin``, ``nodes``, ``leaf``, ``reply_worlds``,
``reply_depth``); the seed of
each search is drawn from the ``rng`` the game passes in, so a bot's play is reproducible from the
game's seed and two decisions never reuse the same worlds. It implements the ``Policy`` protocol of
``bots/policies.py``: it decides from the seat's ``Observation`` only.

``searcher_v1(**options)`` is the frozen baseline every change to the searcher is measured against
(issue 12): the searcher with the limits it had before the learned leaf (``V1_LIMITS``) and always
the handmade leaf and the omniscient replies, whatever the defaults become; its effort (``samples``,
``nodes`` ...) may be set, its leaf and replies may not.

A decision too big to search (``TooBigToSearch``: a table of more loose cards or legal moves than the
search takes on) gets the move worth most at once.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any, Final

from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.values import immediate_gain
from casino_coach.errors import SearchError, TooBigToSearch
from casino_coach.search.expectimax import evaluate
from casino_coach.search.inference import Evidence, next_evidence
from casino_coach.search.leaf import HANDMADE
from casino_coach.search.result import Limits

_FIELDS = tuple(f.name for f in dataclasses.fields(Limits) if f.name != "seed")


# searcher-v1's limits, as ``Limits()`` was when the learned leaf came (written out, so that a later
# change of the defaults does not change the baseline).
V1_LIMITS: Final = Limits(
    samples=40,
    min_samples=8,
    time=None,
    exact_worlds=40,
    depth=None,
    separation=2.0,
    margin=0.2,
    nodes=100_000,
    leaf=HANDMADE,
    reply_worlds=0,
    reply_depth=3,
)


class SearcherPolicy:
    """Chooses the legal move with the highest expected value (``search.evaluate``); ``base`` gives
    the limits that ``options`` do not."""

    def __init__(self, name: str = "searcher", base: Limits | None = None, **options: Any) -> None:
        self.name = name
        unknown = sorted(set(options) - set(_FIELDS))
        if unknown:
            raise SearchError(f"bot {name!r}: unknown option {unknown[0]!r}; options: {', '.join(_FIELDS)}")
        try:
            self.limits = dataclasses.replace(base, **options) if base is not None else Limits(**options)
        except TypeError as e:
            raise SearchError(f"bot {name!r}: {e}") from None

        # Per seat: the previous decision (view, move played, evidence then), to read the other
        # seat's play since (two players).
        self._previous: dict[int, tuple[Observation, Move, tuple[Evidence, ...]]] = {}

    def choose(self, rules: RuleSet, obs: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        previous = self._previous.get(obs.seat)
        evidence = next_evidence(rules, *previous, obs) if previous else ()
        try:
            move = legal[0] if len(legal) == 1 else self._search(rules, obs, legal, rng, evidence)
        except TooBigToSearch:  # the move worth most at once, as the greedy bot plays
            move = max(legal, key=lambda m: immediate_gain(rules, obs, m))
        self._previous[obs.seat] = (obs, move, evidence)
        return move

    def _search(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        evidence: tuple[Evidence, ...],
    ) -> Move:
        limits = dataclasses.replace(self.limits, seed=rng.getrandbits(32))
        result = evaluate(rules, obs, limits, evidence=evidence)
        allowed = set(legal)
        for mv in result.moves:
            if mv.move in allowed:
                return mv.move
        raise SearchError("the search found none of the legal moves it was given")


def searcher_v1(**options: Any) -> SearcherPolicy:
    """The frozen baseline searcher: ``V1_LIMITS`` with ``options`` for its effort, the handmade leaf
    and the omniscient replies of perfect-information Monte Carlo."""
    if "leaf" in options:
        raise SearchError("bot 'searcher-v1': its leaf is the handmade one, always (the frozen baseline)")
    if "reply_worlds" in options or "reply_depth" in options:
        raise SearchError("bot 'searcher-v1': its replies are the omniscient ones (the frozen baseline)")
    return SearcherPolicy("searcher-v1", V1_LIMITS, **options)
