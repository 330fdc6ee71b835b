"""The worker pool: results in order or as they finish, a dead worker is an error (not a hang), and an
interruption ends the workers at once."""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import LONG_ANALYSIS

from casino_coach.errors import WorkerError
from casino_coach.workers import worker_pool


def test_map_keeps_the_order_and_unordered_gives_every_result() -> None:
    with worker_pool(2) as pool:
        assert pool.map(math.factorial, range(8)) == [math.factorial(n) for n in range(8)]
        assert sorted(pool.unordered(math.isqrt, [81, 4, 49, 1])) == [1, 2, 7, 9]


def test_a_worker_that_dies_mid_task_is_an_error_not_a_hang() -> None:
    # multiprocessing.Pool lost such a task and waited for it forever
    t0 = time.monotonic()
    with pytest.raises(WorkerError, match="ended in the middle of its work"), worker_pool(2) as pool:
        list(pool.unordered(os._exit, [3]))
    with pytest.raises(WorkerError), worker_pool(2) as pool:
        pool.map(os._exit, [3, 3])
    assert time.monotonic() - t0 < 60


def test_leaving_by_an_exception_ends_the_workers_at_once() -> None:
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt), worker_pool(2) as pool:
        pool.submit(time.sleep, 60)
        pool.submit(time.sleep, 60)
        time.sleep(0.5)  # both workers busy
        raise KeyboardInterrupt
    assert time.monotonic() - t0 < 30  # not the 60 s the tasks would take


def test_a_ctrl_c_while_the_fork_server_starts_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression: SIGINT was ignored in the parent while the fork server started, so a Ctrl-C then
    # (a second and more on a loaded machine) was lost and the analysis ran on to its end, status 0.
    import multiprocessing.forkserver
    import signal
    import threading

    from casino_coach import workers

    real = multiprocessing.forkserver.ensure_running

    def interrupted_while_starting() -> None:
        # To this thread, which has SIGINT blocked here: sent to the process, the signal could be
        # taken by a thread another test left running, and its KeyboardInterrupt raised at a later
        # point of this test (once, in signal.signal below), interrupting the whole run.
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        real()

    monkeypatch.setattr(multiprocessing.forkserver, "ensure_running", interrupted_while_starting)
    # Python's own handler, whatever this process inherited: a shell starts a background job (a CI
    # run with '&') with SIGINT ignored, and then no Ctrl-C raises anything.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            workers._start_server()
    finally:
        signal.signal(signal.SIGINT, old)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # unblocked again


def _parent(_: int) -> int:
    return os.getppid()


def test_a_parent_of_one_thread_forks_and_one_of_more_uses_the_fork_server() -> None:
    # Forking copies the locks other threads hold: a parent with a second thread (a progress display,
    # a Dask client) starts its workers from the fork server, where a parent of one thread forks
    # them at once (the server's start was a tenth of a two-second analysis).
    import threading

    from casino_coach import workers

    # in a fresh process: this one may hold threads other tests left
    here = str(Path(__file__).parent)
    code = (
        f"import os, sys; sys.path.insert(0, {here!r})\n"
        "from test_workers import _parent\n"
        "from casino_coach.workers import _one_thread, worker_pool\n"
        "assert _one_thread()\n"
        "with worker_pool(2) as pool:\n"
        "    assert set(pool.map(_parent, range(4))) == {os.getpid()}, 'not forked from the parent'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not workers._one_thread()
        with worker_pool(2) as pool:
            assert sorted(pool.unordered(math.isqrt, [81, 4])) == [2, 9]
            assert os.getpid() not in set(pool.map(_parent, range(4)))  # from the fork server
    finally:
        stop.set()
        other.join()


# Workers die with their parent: the parent exited 143 on SIGTERM and its workers
# lived on under init, searching for nobody.

_POOL_SCRIPT = """
import os, sys, time
from casino_coach.workers import worker_pool
with worker_pool(2) as pool:
    futures = [pool.submit(time.sleep, 120) for _ in range(2)]
    time.sleep(0.5)
    print(" ".join(str(p.pid) for p in pool._executor._processes.values()), flush=True)
    futures[0].result()
"""


def _gone(pids: list[int], within: float = 10.0) -> bool:
    """Whether every process of ``pids`` has ended (a zombie counts as ended) within ``within`` s."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state not in ("Z", "X"):
                alive.append(pid)
        if not alive:
            return True
        time.sleep(0.1)
    return False


def _signals_as_a_terminal_gives() -> None:
    """``preexec_fn``: SIGHUP and SIGTERM as a terminal gives them, whatever the tests inherited (a run
    under ``nohup`` ignores SIGHUP, and the pool rightly leaves an ignored signal ignored)."""
    import signal

    for sig in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_the_workers_die_with_their_parent(how: str) -> None:
    import signal

    proc = subprocess.Popen(
        [sys.executable, "-c", _POOL_SCRIPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_signals_as_a_terminal_gives,
    )
    try:
        assert proc.stdout is not None
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert len(workers) == 2, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(getattr(signal, how))
        proc.wait(timeout=30)
        assert _gone(workers), f"workers {workers} outlived their parent ({how})"
        if how != "SIGKILL":  # the pool's workers were ended on the way out, by the handler
            assert proc.returncode != 0
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigterm_to_an_analysis_is_one_line_and_leaves_no_worker() -> None:
    import signal

    command = ["analyze", *LONG_ANALYSIS]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from casino_coach.cli import main; main()", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    children: list[int] = []
    while len(children) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
        children = _children(proc.pid)
    assert len(children) >= 2, "the workers did not start"
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err.decode() == "error: terminated (SIGTERM)\n", err
    assert _gone(children)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for path in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            out += [int(x) for x in path.read_text().split()]
    return out
