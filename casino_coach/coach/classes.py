"""How good a move was: its class (best, good, inaccuracy, mistake, blunder) and the loss thresholds
between the classes (``Thresholds``), for the round and, once the game is close, for the game
(``GAME_THRESHOLDS``).

Plain data, apart from the verdict that uses it (``coach.verdict``): the command line shows the
thresholds' defaults in its help without importing the search.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from casino_coach.errors import CoachError


class MoveClass(StrEnum):
    """How good a move was, from its loss in expected points."""

    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


CLASSES: tuple[MoveClass, ...] = tuple(MoveClass)
# What a drill gives back (``drill``, the review page's Drill): the mistakes and blunders.
DRILLED: tuple[MoveClass, ...] = (MoveClass.MISTAKE, MoveClass.BLUNDER)


@dataclass(frozen=True)
class Thresholds:
    """Loss thresholds in expected round points (calibrated by experiments/calibrate_classes.py).

    A move is *best* when it is the search's best move or within ``best`` of it; *good* below
    ``inaccuracy``; an *inaccuracy* below ``mistake``; a *mistake* below ``blunder``; a *blunder* from
    ``blunder`` up. A loss no larger than ``noise`` standard errors is at most an inaccuracy.

    ``best`` is a tenth of a point: moves closer than that to the best move are as good as it. Nearer
    to 0 the edge would be a coin flip between *best* and *good*: a move that loses a steady 0.06
    points is called one or the other by where its interval stops, while a search of some thousands
    of worlds cannot tell 0.06 from 0 (experiments/verdict_stability.py: at 0.01, half the moves that
    changed class under other seeds went between *best* and *good*).
    """

    inaccuracy: float = 0.2
    mistake: float = 0.5
    blunder: float = 1.0
    best: float = 0.1
    noise: float = 2.0

    def __post_init__(self) -> None:
        if not 0 <= self.best <= self.inaccuracy <= self.mistake <= self.blunder:
            raise CoachError(
                f"class thresholds must grow: best {self.best} <= inaccuracy {self.inaccuracy} <= "
                f"mistake {self.mistake} <= blunder {self.blunder}"
            )
        if self.noise < 0 or not all(math.isfinite(x) for x in dataclasses.astuple(self)):
            raise CoachError("class thresholds must be finite and the noise factor at least 0")

    @property
    def bands(self) -> tuple[float, float, float]:
        """The class edges above *good*, in points: where the loss's interval must not straddle."""
        return (self.inaccuracy, self.mistake, self.blunder)

    @property
    def edges(self) -> tuple[float, float, float, float]:
        """Every class edge, *best*'s too: a verdict's sampling goes on while the loss's interval
        straddles one (``verdict.judge``), so that *best* and *good* are told apart as surely as the
        classes above."""
        return (self.best, *self.bands)

    def classify(self, loss: float, stderr: float = 0.0, is_best: bool = False) -> MoveClass:
        """The class of a move that lost ``loss`` points, measured with standard error ``stderr``
        (``classify_interval`` on ``noise`` standard errors either side)."""
        if is_best:
            return MoveClass.BEST
        return self.classify_interval(loss, loss - self.noise * stderr)

    def band(self, loss: float) -> int:
        """How many class edges above *good* (``bands``) the loss reaches, at ``EDGE_DECIMALS``."""
        x = round(loss, EDGE_DECIMALS)
        return sum(1 for edge in self.bands if x >= edge)

    def classify_interval(self, loss: float, low: float) -> MoveClass:
        """The class of a move whose loss is ``loss`` and at least ``low`` with confidence. *Best* is a
        move the search cannot tell from the best move by more than ``best`` points (and whose loss is
        below the *inaccuracy* edge). Any other move takes the class of the estimate, but at most one
        class harsher than that of the interval's low end: a clear loss is not hidden by a wide
        interval (a 0.9 loss over a few worlds reaching down to 0.15 is an inaccuracy, not *good*),
        and an uncertain one is not called two classes harsher than the evidence allows."""
        loss = round(loss, EDGE_DECIMALS)
        low = max(0.0, min(round(low, EDGE_DECIMALS), loss))
        if loss <= self.best or (low <= self.best and loss < self.inaccuracy):
            return MoveClass.BEST
        return _ABOVE_BEST[min(self.band(loss), self.band(low) + 1)]


# Losses are sums of floats: an exact loss of one point can come out as 0.9999999999999996, a mistake
# where the edge says blunder. A loss is set against the edges rounded to this many decimals.
EDGE_DECIMALS: Final = 9
_ABOVE_BEST: Final = (MoveClass.GOOD, MoveClass.INACCURACY, MoveClass.MISTAKE, MoveClass.BLUNDER)


# The classes of the chance of winning the game a move gave up, once the game is close, in
# fractions of a game, by the same rules as the round's classes (``Thresholds``), calibrated from
# self-play at close game scores (experiments/calibrate_classes.py --game: 245 royal positions from 8
# counter games to 21, two searches each at the analysis's limits). The noise is small, 95% of the
# chances lost by the first search's best move for the game in the second search under 0.06% (max
# 1.3%), so the rules' floors set the edges: inaccuracy 2%, mistake 5%, blunder 10% of a game.
# ``best``: a move that gives up less than a tenth of a percent is as good as the best for the game.
GAME_THRESHOLDS: Final = Thresholds(inaccuracy=0.02, mistake=0.05, blunder=0.10, best=0.001)
