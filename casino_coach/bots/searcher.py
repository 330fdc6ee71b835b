"""The ``searcher`` bot: play the move the hidden-information search values most.

``SearcherPolicy(**options)`` takes ``goal`` (below) and the fields of ``Limits`` as options
(``samples``, ``min_samples``, ``time``, ``exact_worlds``, ``depth``, ``separation``, ``margin``,
``nodes``, ``leaf``, ``reply_worlds``, ``reply_depth``); the seed of each search is drawn from the
``rng`` the game passes in, so a bot's play is reproducible from the game's seed and two decisions
never reuse the same worlds. It implements the ``Policy`` protocol of ``bots/policies.py``: it decides
from the seat's ``Observation`` only, and the game score when the game tells it one.

``goal`` is what it plays for (rules.md 1.14). ``goal="game"`` (the default): where the
game score is known, the rules have a game table (``search.chances``) and the game is close (some side
can reach the target in this round: ``chances.game_is_close``), it plays for the chance to win the
game. Before the last deal the search values every line by the game's weights
(``chances.game_weights``: what each scoring category is worth to each side for the game), both
sides playing for the game; in the last deal of two players, where the cards lie one way, the deal
is solved for the game (``chances.solved_chance``) and the move with the highest expected round
margin gives way to one that leaves more chance of winning (``chances.choose_for_game``). Anywhere
else, and always with ``goal="round"``, the move with the highest expected round margin.

``searcher_v1(**options)`` is the frozen baseline every change to the searcher is measured against:
the searcher with the limits it had before the learned leaf (``V1_LIMITS``) and always
the handmade leaf and the omniscient replies, whatever the defaults become; its effort (``samples``,
``nodes`` ...) may be set, its leaf, its replies and its goal (the round's margin) may not.

A decision too big to search (``TooBigToSearchError``: a table of more loose cards or legal moves than the
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
from casino_coach.engine.scoring import Points
from casino_coach.engine.values import immediate_gain
from casino_coach.errors import SearchError, TooBigToSearchError
from casino_coach.search.chances import choose_for_game, exact_deal, for_the_game, game_search_weights
from casino_coach.search.expectimax import SearchRequest, best_move, evaluate
from casino_coach.search.inference import Evidence, next_evidence
from casino_coach.search.leaf import HANDMADE
from casino_coach.search.result import Limits

_FIELDS = tuple(f.name for f in dataclasses.fields(Limits) if f.name != "seed")

# What the searcher plays for: the chance to win the game where it can be told, or the round's margin.
GOALS: Final = ("game", "round")


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
    classes=False,
)


class SearcherPolicy:
    """Chooses the legal move with the highest expected value (``search.evaluate``), or in a close
    game with ``goal="game"`` the highest chance to win the game; ``base`` gives the limits that
    ``options`` do not."""

    def __init__(
        self, name: str = "searcher", base: Limits | None = None, goal: str = "game", **options: Any
    ) -> None:
        self.name = name
        unknown = sorted(set(options) - set(_FIELDS))
        if unknown:
            raise SearchError(
                f"bot {name!r}: unknown option {unknown[0]!r}; options: goal, {', '.join(_FIELDS)}"
            )
        if goal not in GOALS:
            raise SearchError(f"bot {name!r}: goal must be one of {', '.join(GOALS)}, got {goal!r}")
        self.goal = goal
        try:
            self.limits = dataclasses.replace(base, **options) if base is not None else Limits(**options)
        except TypeError as e:
            raise SearchError(f"bot {name!r}: {e}") from None
        # Per seat: the previous decision (view, move played, evidence then), to read the other
        # seat's play since (two players).
        self._previous: dict[int, tuple[Observation, Move, tuple[Evidence, ...]]] = {}
        # What playing for the game did, for the strength script: close decisions with a choice,
        # those searched with the game's weights (before the last deal, where the round could still
        # move the chance), and those of an exact last deal (``chances.exact_deal``) where a move
        # other than the round's best was played.
        self.game_decisions = 0
        self.searched_for_game = 0
        self.played_for_game = 0

    def choose(
        self,
        rules: RuleSet,
        obs: Observation,
        legal: Sequence[Move],
        rng: random.Random,
        scores: Sequence[Points] | None = None,
    ) -> Move:
        previous = self._previous.get(obs.seat)
        evidence = next_evidence(rules, *previous, obs) if previous else ()
        for_game = self.goal == "game" and for_the_game(rules, obs, scores)
        try:
            if len(legal) == 1:
                move = legal[0]
            else:
                move = self._search(rules, obs, legal, rng, evidence, scores if for_game else None)
        except TooBigToSearchError:  # the move worth most at once, as the greedy bot plays
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
        scores: Sequence[Points] | None = None,
    ) -> Move:
        """The best legal move by the round's margin, or with ``scores`` (a close game) by the chance
        to win the game from them: the game's weights before the last deal, the deal solved for the
        game in it."""
        limits = self.limits.with_seed(rng.getrandbits(32))
        allowed = set(legal)
        if scores is None:
            return best_move(rules, obs, limits, SearchRequest(evidence=tuple(evidence)), allowed)
        if exact_deal(obs):
            self.game_decisions += 1
            result = evaluate(rules, obs, limits, SearchRequest(evidence=tuple(evidence), detail=True))
            chosen = choose_for_game(rules, obs, scores, result)
            if chosen is not None and chosen.move.move in allowed:
                self.played_for_game += 1
                return chosen.move.move
        else:
            self.game_decisions += 1
            weights = game_search_weights(rules, obs, scores)
            self.searched_for_game += weights is not None
            result = evaluate(
                rules, obs, limits, SearchRequest(evidence=tuple(evidence), category_weights=weights)
            )
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
    if "goal" in options:
        raise SearchError("bot 'searcher-v1': it plays for the round's margin, always (the frozen baseline)")
    if "classes" in options:
        raise SearchError("bot 'searcher-v1': it searches every world on its own (the frozen baseline)")
    return SearcherPolicy("searcher-v1", V1_LIMITS, goal="round", **options)
