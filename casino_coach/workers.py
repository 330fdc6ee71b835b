"""The one way casino_coach starts worker processes (``analyze --jobs``, batch analysis, the arena).

Workers are forked from the parent where it runs one thread only (no lock of another thread can be
copied mid-use; they start at once), else started by a fork server where the platform has one, else
spawned: a parent that holds threads (a progress display, a Dask client) is never forked. The
server preloads the package, so a worker starts without importing it again.

Workers, and the fork server, ignore SIGINT: Ctrl-C goes to the whole process group, and only the
parent should answer it (it says "interrupted" once and ends the pool), instead of every worker
printing a traceback.

A worker that dies in the middle of a task (killed, out of memory) breaks the pool: every task still
waiting then fails with ``WorkerError``, one line that says so, instead of the wait that never ends
which ``multiprocessing.Pool`` gives (it loses the task and waits for it forever).

Workers die with their parent. While a pool is open, SIGTERM (what a supervisor sends) and SIGHUP (a
closed terminal) raise ``Terminated`` in the parent, which leaves the pool's ``with`` block and so ends
the workers, as Ctrl-C does; the CLI then says so in one line and exits 128 + the signal. A parent
that dies without a word (kill -9, out of memory) takes its workers along too: each worker asks the
kernel for SIGKILL when its parent dies (Linux's ``prctl(PR_SET_PDEATHSIG)``), and where it cannot,
or where its parent is a fork server, it watches the parent from a thread. Before, the workers of a
parent killed by SIGTERM lived on under init, searching for nobody.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from types import FrameType, TracebackType
from typing import Any, TypeVar

from casino_coach.errors import Terminated, WorkerError

PRELOAD = ["casino_coach.coach.analysis", "casino_coach.bots.arena", "casino_coach.services.batch"]

T = TypeVar("T")
R = TypeVar("R")

BROKEN = "a worker process ended in the middle of its work (killed, or out of memory?)"


def _start_server() -> None:
    """Start the fork server with SIGINT blocked, as CPython starts its resource tracker. Started by
    the first task instead, it could take a Ctrl-C while it still sets itself up (importing the
    package) and print a traceback of its own beside the parent's one line; the server inherits the
    blocked signal and ignores it once set up, and so do its workers. Blocked, not ignored, in the
    parent: a Ctrl-C while the server starts (a second and more on a loaded machine) waits until it
    has started, where an ignored one was lost and the analysis ran on to its end."""
    if threading.current_thread() is not threading.main_thread():
        multiprocessing.forkserver.ensure_running()
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _one_thread() -> bool:
    """Whether this process runs one thread only, every thread of the system counted (a library's
    too, which ``threading`` does not see): then forking it copies no lock that another thread holds,
    and the workers start at once (a fork server takes 0.2-0.3 s to start and import the package, a
    tenth of a two-second analysis). Where this cannot be known, no."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_EVERY = 0.5  # seconds between a watching worker's looks at its parent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: is that process still there?
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _death_signal() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies; whether it was done (Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int, ppid: int) -> None:
    """Kill this worker as soon as ``parent`` (the process that made the pool) is gone, or this
    process was handed to another parent (init, a subreaper): the fallback of ``_death_signal``."""
    while os.getppid() == ppid and _alive(parent):
        time.sleep(WATCH_EVERY)
    os.kill(os.getpid(), signal.SIGKILL)


def die_with(parent: int) -> None:
    """Make this worker die with ``parent``, the process that made its pool: the kernel's death
    signal where there is one, else (and where the worker's own parent is a fork server, not
    ``parent``) a thread watching for the parent. A parent already gone: die now."""
    ppid = os.getppid()
    signalled = _death_signal()
    if os.getppid() != ppid or not _alive(parent):
        os._exit(1)  # the parent died before the death signal was asked for
    if not signalled or ppid != parent:
        threading.Thread(target=_watch, args=(parent, ppid), name="watch-parent", daemon=True).start()


def _start(initializer: Callable[..., None] | None, initargs: tuple[Any, ...], parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in ENDING_SIGNALS:  # a forked worker inherits the parent's handlers (Terminated)
        signal.signal(signum, signal.SIG_DFL)
    die_with(parent)
    if initializer is not None:
        initializer(*initargs)


class WorkerPool:
    """``jobs`` worker processes. Use it in a ``with`` block: leaving it normally waits for the work
    submitted; leaving it by an exception (Ctrl-C among them) ends the workers at once."""

    def __init__(
        self, jobs: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
    ) -> None:
        methods = multiprocessing.get_all_start_methods()
        fork = "fork" in methods and _one_thread()
        ctx = multiprocessing.get_context(
            "fork" if fork else "forkserver" if "forkserver" in methods else "spawn"
        )
        if not fork and "forkserver" in methods:
            ctx.set_forkserver_preload(PRELOAD)
            _start_server()
        self._handlers = self._catch_ending_signals()
        self._executor = ProcessPoolExecutor(
            jobs, mp_context=ctx, initializer=_start, initargs=(initializer, initargs, os.getpid())
        )
        if fork:
            # The workers are forked at once (as ProcessPoolExecutor forks them, before its own
            # thread starts), with SIGINT blocked until they ignore it themselves, so that a Ctrl-C
            # then prints no worker's traceback; the parent's Ctrl-C waits for the unblocking.
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                self._executor.submit(int)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)

    @staticmethod
    def _catch_ending_signals() -> dict[int, Any]:
        """Make SIGTERM and SIGHUP raise ``Terminated`` in this process (the main thread only can
        take signals); the handlers they had, to put back when the pool is closed."""
        if threading.current_thread() is not threading.main_thread():
            return {}
        owner = os.getpid()

        def ending(signum: int, frame: FrameType | None) -> None:
            if os.getpid() == owner:  # not in a worker forked before it reset its handlers
                raise Terminated(signum)
            os._exit(128 + signum)

        old: dict[int, Any] = {}
        for signum in ENDING_SIGNALS:
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue  # started with it ignored (nohup): keep it so
            old[signum] = signal.signal(signum, ending)
        return old

    def _restore_signals(self) -> None:
        for signum, handler in self._handlers.items():
            signal.signal(signum, handler)
        self._handlers = {}

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        """Run ``fn(*args)`` in a worker. WorkerError when the pool is already broken."""
        try:
            return self._executor.submit(fn, *args)
        except BrokenProcessPool:
            raise WorkerError(BROKEN) from None

    def map(self, fn: Callable[[T], R], items: Iterable[T], chunksize: int = 1) -> list[R]:
        """``fn`` of every item, in order."""
        try:
            return list(self._executor.map(fn, items, chunksize=chunksize))
        except BrokenProcessPool:
            raise WorkerError(BROKEN) from None

    def unordered(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn`` of every item, each as soon as it is done."""
        pending = {self.submit(fn, item) for item in items}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield result_of(fut)

    def terminate(self) -> None:
        """End the workers now, whatever they are doing; work not started is dropped."""
        # Python 3.14 has ProcessPoolExecutor.terminate_workers; before it, the processes are reached
        # through the executor's table of them.
        terminate = getattr(self._executor, "terminate_workers", None)
        if terminate is not None:
            terminate()
            return
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        # Taken before shutdown, which forgets the executor's manager thread.
        manager = getattr(self._executor, "_executor_manager_thread", None)
        self._executor.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            if p.is_alive():
                p.kill()
        for p in processes:
            p.join()
        # Wait for the executor's manager thread to see the pool gone and close its wake-up pipe: else
        # the interpreter's exit may write to that pipe as it closes ("Exception ignored ... Bad file
        # descriptor", a traceback after the one line of Ctrl-C or of a killed worker, seen under load).
        if manager is not None:
            manager.join(timeout=10)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if kind is None:
                self._executor.shutdown(wait=True)
            else:
                self.terminate()
        finally:
            self._restore_signals()


def result_of(fut: Future[R]) -> R:
    """The result of a worker's task, or its exception; WorkerError when its worker died."""
    try:
        return fut.result()
    except BrokenProcessPool:
        raise WorkerError(BROKEN) from None


def worker_pool(
    jobs: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
) -> WorkerPool:
    """A pool of ``jobs`` worker processes (``WorkerPool``), each running ``initializer(*initargs)``
    first."""
    return WorkerPool(jobs, initializer, initargs)
