"""The native core's worlds behind the reference's functions.

``worlds.py`` is the reference: readable, and cited by the rules. The native core deals the same
worlds (``src/search/worlds.rs``): the same counts, the same worlds in the same order with the same
probabilities, and from a generator in the same state the same random worlds, drawn by a port of
CPython's Mersenne Twister (``src/engine/rng.rs``). Each function here runs the core where
``casino_coach.core`` chose it and the reference otherwise; the search calls these rather than either.
The core's errors are the reference's ``SearchError``, with its message, and so is a fault inside the
core (a bug, one line); an observation the core cannot take (more than 16 builds, counts past the
pack) goes to the reference.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Final

from casino_coach.core import NATIVE, native_rules
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import SearchError
from casino_coach.search import worlds
from casino_coach.search.worlds import Canon, World

_new = tuple.__new__
# count_classes stops at limit + 1 classes, so a limit past what any deal has answers the same.
_MAX_LIMIT: Final = 2**62


def _worlds(ts: list[Any]) -> list[World]:
    return [_new(World, t) for t in ts]


def count_classes(obs: Observation, limit: int) -> int:
    """``worlds.count_classes``."""
    if NATIVE is not None:
        try:
            return int(NATIVE.count_classes(obs, max(min(limit, _MAX_LIMIT), -1)))
        except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
            raise SearchError(str(e)) from None
        except ValueError:
            pass
    return worlds.count_classes(obs, limit)


def enumerate_worlds(rules: RuleSet, obs: Observation) -> list[World]:
    """``worlds.enumerate_worlds``."""
    if NATIVE is not None:
        try:
            return _worlds(NATIVE.enumerate_worlds(native_rules(rules), obs))
        except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
            raise SearchError(str(e)) from None
        except ValueError:
            pass
    return worlds.enumerate_worlds(rules, obs)


def world_classes(rules: RuleSet, obs: Observation) -> list[World]:
    """``worlds.world_classes``."""
    if NATIVE is not None:
        try:
            return _worlds(NATIVE.world_classes(native_rules(rules), obs))
        except (NATIVE.WorldsError, NATIVE.CoreFault) as e:
            raise SearchError(str(e)) from None
        except ValueError:
            pass
    return worlds.world_classes(rules, obs)


def balanced_passes(
    rules: RuleSet, obs: Observation, rng: random.Random, canonical: bool = False
) -> Iterator[tuple[World, int]]:
    """``worlds.balanced_passes``, each world replaced by its class's canonical world with
    ``canonical`` (``Canon.world``). In the core, the draws come from a copy of ``rng``'s state, and
    ``rng`` is left where the reference would leave it once the stream is closed (consumed as far as
    it was: each world is drawn when asked for, as the reference's generator draws it)."""
    stream = None
    if NATIVE is not None:
        try:
            stream = NATIVE.BalancedPasses(
                native_rules(rules), obs, NATIVE.Random.from_state(rng.getstate()), canonical
            )
        except NATIVE.CoreFault as e:
            raise SearchError(str(e)) from None
        except ValueError:
            stream = None
    if stream is None:
        yield from _reference_passes(rules, obs, rng, canonical)
        return
    try:
        while True:
            try:
                w, group = next(stream)
            except (NATIVE.WorldsError, NATIVE.CoreFault) as e:  # type: ignore[union-attr]
                raise SearchError(str(e)) from None
            yield _new(World, w), group
    finally:
        version, internal, _ = stream.getstate()
        rng.setstate((version, internal, rng.getstate()[2]))  # gauss_next: the core does not draw it


def _reference_passes(
    rules: RuleSet, obs: Observation, rng: random.Random, canonical: bool
) -> Iterator[tuple[World, int]]:
    canon = Canon.of(obs) if canonical else None
    for w, group in worlds.balanced_passes(rules, obs, rng):
        yield (canon.world(w) if canon is not None else w), group
