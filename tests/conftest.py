"""Shared helpers: build a position from compact notation; the Hypothesis profile of the suite; and a
check after every test that it left no process running."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import random
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from casino_coach.engine.movegen import ACTION_NAMES, Move, apply, legal_moves
from casino_coach.engine.notation import move_text, parse_hand, parse_table
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import HAND_SIZE, RoundState, deal, new_round, shuffle_round
from casino_coach.errors import CoachError

# No per-example deadline: the machines that run the suite are shared, and a loaded one made a
# 200 ms deadline fail examples that take milliseconds when the machine is quiet.
settings.register_profile("shared-machine", deadline=None)
settings.load_profile("shared-machine")


def position(
    rules: RuleSet,
    hands: list[str],
    table: str = "",
    to_move: int = 0,
    nsides: int | None = None,
    stock: int = 0,
) -> RoundState:
    """A round state with the given hands (one string per seat) and table notation."""
    n = len(hands)
    loose, builds = parse_table(table, pair_value=rules.pair_value, default_owner=1)
    return RoundState(
        hands=tuple(parse_hand(h) for h in hands),
        loose=loose,
        builds=builds,
        captured=(0,) * (nsides or (2 if n == 4 else n)),
        sweeps=(0,) * (nsides or (2 if n == 4 else n)),
        to_move=to_move,
        last_capturer=-1,
        stock=stock,
        more=stock != 0,
        dealer=(to_move - 1) % n,
        nsides=nsides or (2 if n == 4 else n),
    )


def near_deal_end(rules: RuleSet, nplayers: int, seed: int, left: int, last: bool) -> RoundState:
    """Random play until ``left`` cards remain in the hands, in the last deal or the first."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, nplayers)
    s = new_round(nplayers, 2 if nplayers == 4 else nplayers, rng.randrange(nplayers), sh.table, sh.deals[0])
    nxt = 1
    while True:
        if s.needs_deal:
            s = deal(s, sh.deals[nxt])
            nxt += 1
        in_hands = sum(h.bit_count() for h in s.hands)
        if in_hands <= left and (s.stock == 0) == last:
            return s
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))


def before_last_deal(rules: RuleSet, seed: int, left: int) -> RoundState:
    """Random 2-player play until at most ``left`` cards (at least 1) remain in the hands of the deal
    before the last: the stock holds the last deal."""
    rng = random.Random(seed)
    sh = shuffle_round(rng, 2)
    s = new_round(2, 2, rng.randrange(2), sh.table, sh.deals[0])
    nxt = 1
    while True:
        if s.needs_deal:
            s = deal(s, sh.deals[nxt])
            nxt += 1
        if s.stock.bit_count() == 2 * HAND_SIZE and sum(h.bit_count() for h in s.hands) <= left:
            return s
        s = apply(rules, s, rng.choice(legal_moves(rules, s)))


def moves_text(rules: RuleSet, state: RoundState, card: str | None = None) -> set[str]:
    """The legal moves as canonical notation strings (optionally only those of one card)."""
    out = set()
    for m in legal_moves(rules, state):
        t = move_text(m)
        if card is None or t.split()[0] == card:
            out.add(t)
    return out


def describe(m: Move) -> str:
    return f"{ACTION_NAMES[m.action]} {move_text(m)}"


def one_error_line(result: Any, status: int = 1) -> str:
    """A CLI result that failed as bad input must: exit 1 (``status``), one stderr line, no traceback."""
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    err = result.stderr.strip()
    assert "\n" not in err and err.startswith("error: ")
    assert result.stdout == ""
    return err


def one_usage_line(result: Any) -> str:
    """A CLI result that failed as a usage error (an option out of its range, options that exclude
    each other): as ``one_error_line``, with exit status 2, as the parser's own usage errors give."""
    return one_error_line(result, status=2)


# An analysis far longer than the few seconds a test that interrupts it waits, whichever core runs it:
# about 25 s on the native core on 2 cores (a 4-player log, 5,000 worlds a move, 12 plies deep). The
# native core made the 2-player log at 400 worlds, 12 plies deep, a one-second run, which ended
# before the interrupt came.
LONG_ANALYSIS = [
    str(Path(__file__).resolve().parents[1] / "replays" / "royal-4p-full.json"),
    "--jobs",
    "2",
    "--samples",
    "5000",
    "--depth",
    "12",
]


def run_tmux_check(script: str, *args: str) -> str:
    """Run ``scripts/<script>`` (a check at a real terminal, under a tmux server of its own) and give
    what it printed; skipped where tmux cannot start here (status 77), with tmux's reason."""
    import subprocess

    path = Path(__file__).resolve().parent.parent / "scripts" / script
    proc = subprocess.run(
        [sys.executable, str(path), *args], capture_output=True, text=True, check=False, timeout=120
    )
    if proc.returncode == 77:
        pytest.skip(proc.stdout.strip() or "tmux cannot start")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def sigint_as_a_terminal_gives() -> None:
    """``preexec_fn`` of a command a test interrupts: SIGINT as a terminal gives it, whatever the
    tests inherited. A shell starts a background job (a CI run with '&') with SIGINT ignored, the
    command inherits that, and Python then never raises KeyboardInterrupt: the test waited out its
    timeout instead of seeing the command stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def pytest_report_header() -> str:
    import casino_coach

    return f"casino_coach from {Path(casino_coach.__file__).parent}, hot path: {casino_coach.build()}"


def pytest_sessionstart() -> None:
    """``CASINO_COACH_CORE=native`` (or ``python``): refuse to run on anything else, so that CI's
    native run cannot silently test the reference instead (.ci/run)."""
    from casino_coach import core

    try:
        core.check()
    except CoachError as e:
        raise pytest.UsageError(str(e)) from None


# --- no test leaves a process behind (issue 43) -----------------------------------------------------
#
# The suite's process is made a "child subreaper" (Linux): a process orphaned by a test's processes (a
# worker whose parent was killed) comes to it, not to init, where it would live on unseen. After each
# test, every child that the test left running fails it, by name, and is killed. multiprocessing's own
# helpers (the fork server and the resource tracker) live as long as the suite and are let be.

PR_SET_CHILD_SUBREAPER = 36
LEFT_WAIT = 10.0  # seconds a test's processes get to end after it (a worker sees its parent gone)


def _subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


SUBREAPER = _subreaper()


def _children() -> set[int]:
    found: set[int] = set()
    for path in Path("/proc/self/task").glob("*/children"):
        with contextlib.suppress(OSError, ValueError):
            found.update(int(x) for x in path.read_text().split())
    return found


def _state(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


def _command(pid: int) -> str:
    try:
        return (
            (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return "?"


def _is_helper(pid: int) -> bool:
    command = _command(pid)
    return "forkserver" in command or "resource_tracker" in command


@pytest.fixture(autouse=True)
def no_process_left_behind() -> Iterator[None]:
    """Fail the test that leaves a process running (its own child, or an orphan of one)."""
    if not Path("/proc/self/task").is_dir():
        yield
        return
    before = _children()
    yield
    deadline = time.monotonic() + LEFT_WAIT
    while True:
        new = _children() - before
        for pid in new:
            if _state(pid) == "Z":  # ended: reap it (an orphan handed to this process has no one else)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        left = [pid for pid in new if _state(pid) not in ("Z", "X") and not _is_helper(pid)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if left:
        commands = [f"{pid}: {_command(pid)[:200]}" for pid in left]
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in left:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        pytest.fail(f"the test left {len(left)} process(es) running: " + "; ".join(commands))
