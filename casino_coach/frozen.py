"""The base of every frozen dataclass in a compiled module (``modules`` in pyproject.toml).

mypyc compiles a dataclass into a native class, and unpickles a native class by assigning its fields
one by one, which a frozen dataclass refuses (``FrozenInstanceError``): rule sets, limits and results
could not cross to the worker processes. ``Frozen`` pickles an instance as a call of its class with
its ``__init__`` fields, the same in the pure and the compiled build.
"""

from __future__ import annotations

import dataclasses
from typing import Any


class Frozen:
    """Mixed into a frozen dataclass; fields outside ``__init__`` are derived again on unpickling
    (by ``__post_init__``)."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        return type(self), tuple(getattr(self, f.name) for f in fields if f.init)
