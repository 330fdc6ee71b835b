"""casino_coach: a coach for the card game Casino (classic, Royal and Dominican).

The library works without the CLI: cards and masks (``cards``), rule sets (``rules``), round states
(``state``), legal moves (``movegen``), scoring (``scoring``) and the compact notation (``notation``).
"""

from casino_coach.cards import card_name, parse_card
from casino_coach.movegen import Move, apply, legal_moves, play
from casino_coach.rules import RuleSet
from casino_coach.state import RoundState

__version__ = "0.1.0"


def build() -> str:
    """``compiled`` when the hot modules run as mypyc extensions (a wheel built where a C compiler was
    found, hatch_build.py), ``pure`` when they are the Python sources (an editable install, or a
    machine without a compiler)."""
    from casino_coach import movegen

    return "pure" if movegen.__file__.endswith(".py") else "compiled"


__all__ = [
    "Move",
    "RoundState",
    "RuleSet",
    "__version__",
    "apply",
    "build",
    "card_name",
    "legal_moves",
    "parse_card",
    "play",
]
