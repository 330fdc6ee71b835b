"""Batch analysis: many game logs (files, folders, globs) analysed into a results store.

``find_logs`` expands the inputs; ``prepare`` reads each log and computes its content hash (SHA-256 of
the canonical casino-replay JSON, so formatting and key order do not matter); ``run_batch`` skips the
games the store already holds with the same ``BatchSettings``, analyses the others one game per task,
and writes each result to the store as soon as it arrives, one transaction per game: an interrupted run
loses nothing, and running it again resumes.

Tasks run in this process (``jobs=1``), in local processes (``jobs=N``), or on a Dask distributed
cluster (``cluster="tcp://host:port"``, the optional ``cluster`` extra). Workers receive the log's bytes
and the settings, and return the casino-analysis JSON document (``report.to_obj``); only the submitting
process touches the store, so workers need neither the files nor the store.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import hashlib
import importlib
import queue
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from casino_coach.coach.analysis import AnalysisOptions, analyze, seat_of
from casino_coach.coach.classes import Thresholds
from casino_coach.coach.verdict import analysis_limits
from casino_coach.errors import BatchError, CoachError, NotALogError, StoreError, WorkerError, shown
from casino_coach.formats import jsonio
from casino_coach.formats.log import log_to_json, read_log
from casino_coach.report.document import to_obj
from casino_coach.services.store import GameKey, Store, claim_owner, normal_date
from casino_coach.workers import result_of, worker_pool

SETTINGS_VERSION = 7  # bump when the meaning of stored analyses changes (2: verdicts by interval, 3: errors
# over balanced passes, 4: means corrected by control variates, 5: worlds by class, 6: verdicts settle at
# 1.25 times the interval, 7: a loss on a class edge takes the edge's class, leads in cards count the
# piles taken before)


# Formats that may sit beside logs in an archive folder; files of these formats are not game logs.
OTHER_FORMATS = ("casino-position", "casino-analysis")


# ---------------------------------------------------------------------------------------------------
# Settings


@dataclass(frozen=True)
class BatchSettings:
    """How every game of a batch is analysed: the options of ``casino-coach analyze``, with the same
    defaults (``analysis.analysis_limits``), one process per game.

    ``player`` rates only that player's moves (games without the player are skipped); ``depth`` is the
    search depth per sampled world (None: the analysis's default for the game's number of players).
    """

    samples: int | None = None  # None: the analysis's worlds for each game's number of players
    seed: int = 0
    depth: int | None = None
    world: bool = True
    player: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)

    def __post_init__(self) -> None:
        if self.samples is not None and self.samples < 1:
            raise BatchError(f"samples must be at least 1, got {self.samples}")
        if self.depth is not None and self.depth < 1:
            raise BatchError(f"depth must be at least 1, got {self.depth}")

    def to_json(self) -> dict[str, Any]:
        return {
            "version": SETTINGS_VERSION,
            "samples": self.samples,
            "seed": self.seed,
            "depth": self.depth,
            "world": self.world,
            "player": self.player.casefold() if self.player is not None else None,
            "thresholds": dataclasses.asdict(self.thresholds),
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> BatchSettings:
        return cls(
            samples=obj["samples"],
            seed=obj["seed"],
            depth=obj["depth"],
            world=obj["world"],
            player=obj["player"],
            thresholds=Thresholds(**obj["thresholds"]),
        )

    def key(self) -> str:
        """The canonical JSON that identifies these settings in the store."""
        return orjson.dumps(self.to_json(), option=orjson.OPT_SORT_KEYS).decode()

    def options(self, seats: frozenset[int] | None = None) -> AnalysisOptions:
        """The analysis options (rating only ``seats``, None: all)."""
        limits = analysis_limits(self.samples, self.seed, self.depth)
        return AnalysisOptions(
            limits=limits, thresholds=self.thresholds, seats=seats, world=self.world, jobs=1
        )


# ---------------------------------------------------------------------------------------------------
# Inputs


def check_cluster_address(address: str) -> None:
    """BatchError unless ``address`` reads as a Dask scheduler's address, [tcp://]HOST:PORT."""
    rest = address.removeprefix("tcp://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or "/" in rest or not port.isdecimal() or not 0 < int(port) < 65536:
        raise BatchError(f"--cluster: {shown(address)} is not a scheduler address like tcp://HOST:8786")


def find_logs(inputs: Sequence[str | Path]) -> list[Path]:
    """Every log named by ``inputs``: files as they are, folders searched for ``*.json`` (recursively),
    anything else as a glob pattern (``**`` allowed). Sorted, each file once; BatchError when an
    input names nothing (an empty folder too)."""
    found: dict[Path, None] = {}
    for item in inputs:
        p = Path(item)
        if p.is_file():
            found[p] = None
        elif p.is_dir():
            logs = [f for f in sorted(p.rglob("*.json")) if f.is_file()]
            if not logs:
                raise BatchError(
                    f"{item}: a folder with no game logs in it (no *.json file, subfolders included)"
                )
            for f in logs:
                found[f] = None
        else:
            matches = sorted(Path(m) for m in glob.glob(str(item), recursive=True))
            files = [m for m in matches if m.is_file()]
            for m in matches:
                if m.is_dir():
                    files += sorted(f for f in m.rglob("*.json") if f.is_file())
            if not files:
                raise BatchError(f"{item}: no such file, folder or matching log")
            for f in files:
                found[f] = None
    if not found:
        raise BatchError("no game logs given")
    return sorted(found)


def named_logs(inputs: Sequence[str | Path]) -> list[Path]:
    """The logs ``inputs`` name, for reports one after another (``analyze a.json b.json``): in the
    order given, a folder's or a pattern's logs in sorted order (as ``find_logs`` finds them), each
    file once. A position or an analysis met in a folder or by a pattern is left out, as a batch leaves
    it out; a file named outright is kept, so that reading it says what it is. BatchError when an
    input names no log."""
    out: dict[Path, None] = {}
    for item in inputs:
        found = find_logs([item])
        if not Path(item).is_file():
            found = [f for f in found if not _other_format(f)]
            if not found:
                raise BatchError(f"{item}: no game log in it, only positions or analyses")
        out |= dict.fromkeys(found)
    return list(out)


def _other_format(path: Path) -> bool:
    """Whether ``path`` holds a casino_coach file that is not a log (a position, an analysis)."""
    try:
        obj = orjson.loads(jsonio.read_bytes(path))
    except (CoachError, OSError, orjson.JSONDecodeError):
        return False  # reading it as a log says what is wrong
    return isinstance(obj, dict) and obj.get("format") in OTHER_FORMATS


@dataclass(frozen=True)
class GameJob:
    """One log to analyse: where it is, its content hash and date. The log's bytes are read again
    when its task is submitted, so a batch over a large archive never holds every log in memory."""

    source: str
    hash: str
    played: str | None


def _canonical(path: str | Path) -> tuple[bytes, str | None]:
    """A log's canonical casino-replay JSON and its date (LogError when malformed, NotALogError for a
    position or an analysis)."""
    raw = jsonio.read_bytes(path)
    try:
        fmt = orjson.loads(raw).get("format")
    except (orjson.JSONDecodeError, AttributeError):
        fmt = None  # read_log says what is wrong
    if fmt in OTHER_FORMATS:
        raise NotALogError(f"a {fmt} file, not a game log")
    log = read_log(raw)
    return log_to_json(log), normal_date(log.date)


def prepare(path: str | Path) -> GameJob:
    """Read a log, check its structure, and compute its content hash (SHA-256 of the canonical JSON)."""
    data, played = _canonical(path)
    return GameJob(str(path), hashlib.sha256(data).hexdigest(), played)


def log_bytes(job: GameJob) -> bytes:
    """The canonical bytes of a job's log, checked against its hash (BatchError if the file changed
    since the run began)."""
    data, _ = _canonical(job.source)
    if hashlib.sha256(data).hexdigest() != job.hash:
        raise BatchError("the file changed during the run; run again to analyse it")
    return data


def analyse_log(data: bytes, settings_json: dict[str, Any]) -> dict[str, Any] | None:
    """Analyse one log (its JSON bytes) with the settings; the casino-analysis document, or None when
    the settings' player is not in the game. This is the task a worker runs."""
    settings = BatchSettings.from_json(settings_json)
    log = read_log(data)
    seats = None
    if settings.player is not None:
        try:
            seats = frozenset({seat_of(log, settings.player)})
        except CoachError:
            return None
    return to_obj(analyze(log, settings.options(seats)))


# ---------------------------------------------------------------------------------------------------
# Running


@dataclass
class BatchReport:
    """What a batch run did: games analysed, already in the store, without the player, and failed."""

    found: int = 0
    analysed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # already stored with these settings
    duplicates: list[str] = field(default_factory=list)  # the same game as an earlier file
    without_player: list[str] = field(default_factory=list)
    not_logs: list[str] = field(default_factory=list)  # positions and analyses met in folders
    failed: list[tuple[str, str]] = field(default_factory=list)  # (source, one-line reason)
    busy: list[str] = field(default_factory=list)  # being analysed by another run on the same store
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "found": self.found,
            "analysed": len(self.analysed),
            "skipped": len(self.skipped),
            "duplicates": len(self.duplicates),
            "without_player": len(self.without_player),
            "not_logs": len(self.not_logs),
            "busy": len(self.busy),
            "failed": [{"file": f, "error": e} for f, e in self.failed],
            "seconds": round(self.seconds, 2),
            "games_per_minute": round(self.games_per_minute, 2),
        }

    @property
    def games_per_minute(self) -> float:
        return 60.0 * len(self.analysed) / self.seconds if self.seconds > 0 else 0.0


Progress = Callable[[str, str, int, int], None]  # (event, source, done, total)
Finish = Callable[[GameJob, dict[str, Any] | None, str | None], None]


def run_batch(
    inputs: Sequence[str | Path],
    store: Store,
    settings: BatchSettings = BatchSettings(),
    *,
    jobs: int = 1,
    cluster: str | None = None,
    progress: Progress | None = None,
    limit: int | None = None,
    connect_timeout: float = 10.0,
) -> BatchReport:
    """Analyse every log of ``inputs`` not yet in ``store`` with ``settings`` (module docstring).

    ``limit`` stops after that many games are analysed (the rest wait for the next run);
    ``connect_timeout`` is how long to wait for the cluster's scheduler, in seconds.
    ``progress(event, source, done, total)`` is called with event ``analysed``, ``failed`` or
    ``skipped``.
    """
    if jobs < 1:
        raise BatchError(f"jobs must be at least 1, got {jobs}")
    t0 = time.perf_counter()
    report = BatchReport()
    key = settings.key()
    todo = _jobs(find_logs(inputs), store.done(key), report)
    if limit is not None:
        todo = todo[: max(limit, 0)]
    # Claimed first, so that two runs on one store do not both analyse a game (Store.claim).
    owner = claim_owner()
    held = store.claim([j.hash for j in todo], key, owner)
    report.busy = [j.source for j in todo if j.hash not in held]
    todo = [j for j in todo if j.hash in held]
    total = len(todo)
    count = 0

    def finish(job: GameJob, result: dict[str, Any] | None, error: str | None) -> None:
        nonlocal count
        count += 1
        if error is not None:
            report.failed.append((job.source, error))
            event = "failed"
        elif result is None:
            report.without_player.append(job.source)
            event = "skipped"
        else:
            store.add(GameKey(job.hash, key), result, source=job.source, played=job.played)
            report.analysed.append(job.source)
            event = "analysed"
        if progress:
            progress(event, job.source, count, total)

    if progress:
        progress("start", "", 0, total)
    settings_json = settings.to_json()
    try:
        if cluster is not None:
            _run_dask(cluster, todo, settings_json, finish, connect_timeout)
        elif jobs == 1 or total <= 1:
            _run_here(todo, settings_json, finish)
        else:
            _run_local(jobs, todo, settings_json, finish)
    except BaseException:
        # The error that stopped the run is the one to tell; claims left behind by a store that
        # cannot be written any more are taken over by the next run (their process is gone).
        with contextlib.suppress(StoreError):
            store.release(owner)
        raise
    else:
        store.release(owner)
    finally:
        report.seconds = time.perf_counter() - t0
    return report


def _jobs(paths: Sequence[Path], done: set[str], report: BatchReport) -> list[GameJob]:
    """The games of ``paths`` to analyse: each log read once; a file that is no log, a log that
    fails to read, a game already ``done`` and a second copy of a game are put in ``report``."""
    todo: list[GameJob] = []
    seen: set[str] = set()
    report.found = len(paths)
    for p in paths:
        try:
            job = prepare(p)
        except NotALogError:
            report.not_logs.append(str(p))
            continue
        except (CoachError, OSError) as e:
            report.failed.append((str(p), _reason(e)))
            continue
        if job.hash in done:
            report.skipped.append(job.source)
        elif job.hash in seen:
            report.duplicates.append(job.source)
        else:
            seen.add(job.hash)
            todo.append(job)
    return todo


def _run_here(todo: list[GameJob], settings_json: dict[str, Any], finish: Finish) -> None:
    """Analyse the games one after another in this process."""
    for job in todo:
        try:
            result = analyse_log(log_bytes(job), settings_json)
        except (CoachError, OSError) as e:
            finish(job, None, _reason(e))
            continue
        finish(job, result, None)


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e) if isinstance(e, CoachError) else f"{type(e).__name__}: {e}"


class _Feeder:
    """Hands out the next job with its bytes; a log that cannot be read any more fails at once."""

    def __init__(self, todo: list[GameJob], finish: Finish) -> None:
        self._jobs = iter(todo)
        self._finish = finish

    def next(self) -> tuple[GameJob, bytes] | None:
        for job in self._jobs:
            try:
                return job, log_bytes(job)
            except (CoachError, OSError) as e:
                self._finish(job, None, _reason(e))
        return None


def _window(workers: int) -> int:
    """Tasks kept in flight: enough to keep every worker busy, few enough to bound memory."""
    return 2 * workers + 2


def _run_local(jobs: int, todo: list[GameJob], settings_json: dict[str, Any], finish: Finish) -> None:
    """Local worker processes. Results come back through a queue in the order they finish; on an
    interruption (Ctrl-C) the workers are terminated at once instead of finishing their games. A
    worker that dies mid-game ends the batch with WorkerError (the games finished stay stored)."""
    feeder = _Feeder(todo, finish)
    results: queue.Queue[tuple[GameJob, Future[dict[str, Any] | None]]] = queue.Queue()
    with worker_pool(min(jobs, len(todo))) as pool:

        def submit() -> bool:
            item = feeder.next()
            if item is None:
                return False
            job, data = item
            fut = pool.submit(analyse_log, data, settings_json)
            fut.add_done_callback(lambda f: results.put((job, f)))
            return True

        inflight = sum(submit() for _ in range(_window(jobs)))
        while inflight:
            job, fut = results.get()
            inflight -= 1
            try:
                result = result_of(fut)
            except WorkerError:
                raise
            except Exception as e:  # a worker's failure fails its game, not the batch
                finish(job, None, _reason(e))
            else:
                finish(job, result, None)
            inflight += submit()


def _deliver(job: GameJob, fut: Any, finish: Finish) -> None:
    try:
        result = fut.result()
    except CoachError as e:
        finish(job, None, _reason(e))
        return
    except Exception as e:  # a worker's unexpected failure fails its game, not the batch
        finish(job, None, _reason(e))
        return
    finish(job, result, None)


def _run_dask(
    address: str, todo: list[GameJob], settings_json: dict[str, Any], finish: Finish, timeout: float
) -> None:
    # Imported by name so that the type checker and installs without the extra need not know it.
    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise BatchError("--cluster needs Dask distributed: pip install 'casino-coach[cluster]'") from None
    try:
        client = distributed.Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as e:
        raise BatchError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    feeder = _Feeder(todo, finish)
    pending: dict[Any, GameJob] = {}
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    try:
        flow = distributed.as_completed()

        def submit() -> None:
            item = feeder.next()
            if item is not None:
                fut = client.submit(analyse_log, item[1], settings_json, pure=False)
                pending[fut] = item[0]
                flow.add(fut)

        try:
            for _ in range(_window(workers)):
                submit()
            for fut in flow:
                _deliver(pending.pop(fut), fut, finish)
                submit()
        except BaseException:
            client.cancel(list(pending))
            raise
    finally:
        client.close()
