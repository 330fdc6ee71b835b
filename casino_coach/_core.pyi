# The native core (src/, Rust), loaded by casino_coach/core.py. Each function mirrors the Python
# reference named in its doc comment in src/python.rs.

from typing import Any

__version__: str
MAX_BUILDS: int

class Rules:
    def __init__(self, ruleset: Any) -> None: ...
    def tables(self) -> tuple[int, list[int], list[int], list[int], bool]: ...

def state_round_trip(state: tuple[Any, ...]) -> tuple[Any, ...]: ...

# The move generator (src/engine/movegen.rs, mirroring casino_coach/engine/movegen.py) and random play,
# for the differential tests, scripts/movegen_compare.py and the engine benchmark. Moves are
# (card, action, take, value) tuples; states are RoundState tuples (builds as plain tuples).
MAX_LISTED_LOOSE: int

def legal_moves(
    rules: Rules, state: tuple[Any, ...], cards: int | None = None
) -> list[tuple[int, int, int, int]]: ...
def apply(rules: Rules, state: tuple[Any, ...], move: tuple[int, int, int, int]) -> tuple[Any, ...]: ...
def successors(
    rules: Rules, state: tuple[Any, ...]
) -> list[tuple[tuple[int, int, int, int], tuple[Any, ...]]]: ...
def random_rounds(
    rules: Rules, nplayers: int, nsides: int, rounds: int, seed: int
) -> tuple[int, int, int]: ...
def count_legal_moves(rules: Rules, states: list[tuple[Any, ...]], passes: int) -> int: ...

# The leaf evaluator (src/search/leaf.rs, bindings in src/python_leaf.rs): casino_coach.search.leaf's
# Evaluator, final_points and majority_odds, value for value.
class Evaluator:
    def __init__(
        self,
        rules: Rules,
        nsides: int,
        root_side: int,
        leaf: str = "handmade",
        final_value: None = None,
        category_weights: dict[str, tuple[float, ...]] | None = None,
        learned_weights: dict[int, tuple[tuple[float, ...], ...]] | None = None,
    ) -> None: ...
    def final(self, state: tuple[Any, ...]) -> float: ...
    def leaf(self, state: tuple[Any, ...]) -> float: ...
    def parts(self, state: tuple[Any, ...]) -> dict[str, float]: ...

def final_points(rules: Rules, state: tuple[Any, ...]) -> list[float]: ...
def majority_odds(counts: tuple[int, ...], remaining: int) -> tuple[list[float], float]: ...
