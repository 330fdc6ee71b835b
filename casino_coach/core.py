"""Which implementation runs the hot path: the native core or the Python reference.

The native core (``casino_coach._core``, Rust, built by maturin from ``src/``) is the fast path; the
Python modules of ``engine/`` and ``search/`` are the readable reference, where every rule is cited,
and the tests hold the two equal. ``CASINO_COACH_CORE`` chooses: ``native`` (the default) or
``python``. It is read once, at import, so that one process never mixes the two. Without the
variable, a package whose native core was not built runs the reference and says so in
``casino-coach --version``; with ``CASINO_COACH_CORE=native`` it is an error instead, raised by
``check`` (the command line calls it first), not at import, so that it reaches the user as one line.
"""

from __future__ import annotations

import os
from functools import cache
from types import ModuleType
from typing import Any, Final

from casino_coach.errors import CoachError

CORE_ENV: Final = "CASINO_COACH_CORE"
CHOICES: Final = ("native", "python")


def _load() -> tuple[ModuleType | None, str, str]:
    """The native module (None for the reference), a note on why the reference runs, and what is
    wrong with the setting ('' when nothing is)."""
    choice = os.environ.get(CORE_ENV, "").strip().lower()
    if choice not in ("", *CHOICES):
        shown = choice[:40].encode("unicode_escape").decode("ascii")
        return None, "", f"{CORE_ENV} must be one of {', '.join(CHOICES)}, got '{shown}'"
    if choice == "python":
        return None, f"{CORE_ENV}=python", ""
    try:
        from casino_coach import _core
    except ImportError:
        if choice == "native":
            problem = (
                f"{CORE_ENV}=native, but the native core casino_coach._core is not built: reinstall "
                "with a Rust toolchain (pip install .)"
            )
            return None, "", problem
        return None, "the native core is not built", ""
    return _core, "", ""


NATIVE, _WHY, _PROBLEM = _load()


def check() -> None:
    """CoachError when ``CASINO_COACH_CORE`` is set to something this package cannot run."""
    if _PROBLEM:
        raise CoachError(_PROBLEM)


def describe() -> str:
    """What runs the hot path, for ``casino-coach --version``: ``native core`` or ``Python
    reference`` with the reason."""
    return "native core" if NATIVE is not None else f"Python reference: {_WHY}"


@cache
def native_rules(ruleset: Any) -> Any:
    """The native core's copy of a ``RuleSet`` (``_core.Rules``), made once per rule set."""
    if NATIVE is None:
        raise CoachError("the native core is not in use")
    return NATIVE.Rules(ruleset)
