"""casino_coach: a coach for the card game Casino (classic, Royal and Dominican).

The package is built in layers, each importing only the ones before it (``tests/test_layers.py``):

* ``errors``, ``frozen``: the exceptions and the base of frozen values;
* ``engine/``: cards and masks, rule sets, round states, legal moves, scoring, observations, notation,
  what cards are worth;
* ``formats/``: the log and position formats, re-playing a log, a live game, atomic files;
* ``search/``: sampled worlds, the solver, the leaf estimate, expectimax over worlds, inference;
* ``bots/``: the policies and the arena;
* ``coach/``: the analysis of a game and the explanations;
* ``report/``: JSON, Markdown and HTML reports, search-tree graphs;
* ``services/``: the play session, the engine session, batch analysis and the results store;
* ``render/``, ``cli/``: the terminal and the ``casino-coach`` command, a thin layer over the rest.

The names below are the library's front door: ``card_name``, ``parse_card``, ``Move``, ``legal_moves``,
``apply``, ``play``, ``RuleSet``, ``RoundState``, ``read_log``, ``replay_log``, ``evaluate``, ``assess``
(one decision judged: ``coach.assessment``) and ``analyze``. Each is imported on first use, so that
``import casino_coach`` stays light: every submodule imports the package first, the command line's
``--help`` and ``--version`` too, and they need none of these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from casino_coach.coach.analysis import analyze
    from casino_coach.coach.assessment import assess
    from casino_coach.engine.cards import card_name, parse_card
    from casino_coach.engine.movegen import Move, apply, legal_moves
    from casino_coach.engine.reasons import play
    from casino_coach.engine.rules import RuleSet
    from casino_coach.engine.state import RoundState
    from casino_coach.formats.log import read_log
    from casino_coach.formats.replay import replay_log
    from casino_coach.search import evaluate

__version__ = "0.1.0"

_LAZY = {
    "card_name": "casino_coach.engine.cards",
    "parse_card": "casino_coach.engine.cards",
    "Move": "casino_coach.engine.movegen",
    "apply": "casino_coach.engine.movegen",
    "legal_moves": "casino_coach.engine.movegen",
    "play": "casino_coach.engine.reasons",
    "RuleSet": "casino_coach.engine.rules",
    "RoundState": "casino_coach.engine.state",
    "read_log": "casino_coach.formats.log",
    "replay_log": "casino_coach.formats.replay",
    "evaluate": "casino_coach.search",
    "analyze": "casino_coach.coach.analysis",
    "assess": "casino_coach.coach.assessment",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'casino_coach' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next use finds it without coming here
    return value


def build() -> str:
    """What runs the hot path: ``native core`` (``casino_coach._core``, Rust) or ``Python reference``
    with the reason (``CASINO_COACH_CORE=python``, or a package built without its core)."""
    from casino_coach.core import describe

    return describe()


__all__ = [
    "Move",
    "RoundState",
    "RuleSet",
    "__version__",
    "analyze",
    "apply",
    "assess",
    "build",
    "card_name",
    "evaluate",
    "legal_moves",
    "parse_card",
    "play",
    "read_log",
    "replay_log",
]
