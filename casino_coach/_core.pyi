# The native core (src/, Rust), loaded by casino_coach/core.py. Each function mirrors the Python
# reference named in its doc comment in src/python.rs.

from typing import Any

__version__: str
MAX_BUILDS: int

class Rules:
    def __init__(self, ruleset: Any) -> None: ...
    def tables(self) -> tuple[int, list[int], list[int], list[int], bool]: ...

def state_round_trip(state: tuple[Any, ...]) -> tuple[Any, ...]: ...
