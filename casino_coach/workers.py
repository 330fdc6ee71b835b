"""The one way casino_coach starts worker processes (``analyze --jobs``, batch analysis, the arena).

Workers are started by a fork server where the platform has one, else spawned: never forked from the
parent directly, which may hold threads (a progress display, a Dask client) whose locks a fork would
copy mid-use. The server preloads the package, so a worker starts without importing it again.

Workers ignore SIGINT: Ctrl-C goes to the whole process group, and only the parent should answer it
(it says "interrupted" once and ends the pool), instead of every worker printing a traceback.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import signal
from collections.abc import Callable
from typing import Any

PRELOAD = ["casino_coach.coach.analysis", "casino_coach.bots.arena", "casino_coach.services.batch"]


def _start(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def worker_pool(
    jobs: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
) -> multiprocessing.pool.Pool:
    """A pool of ``jobs`` worker processes (use it in a ``with`` block, or close and join it)."""
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        ctx.set_forkserver_preload(PRELOAD)
    return ctx.Pool(jobs, initializer=_start, initargs=(initializer, initargs))
