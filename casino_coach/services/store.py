"""The results store: analyses of many games in one SQLite file (standard library ``sqlite3``).

One row per analysed game in ``games``: the content hash of the game (SHA-256 of its canonical
casino-replay JSON, so the same game in another file or another layout is the same game), the analysis
settings it was made with (a canonical JSON key), its rules, players and date, and the whole
casino-analysis JSON document. Beside it, one row per move (``moves``: ply, seat, player, class, loss,
the move played and the best one, and the skill of play a missed move shows: ``coach.skills``), one
per explanation of a move's cost (``explanations``: kind and
points), and one per player (``players``: the per-seat summary). A (hash, settings) pair is stored at
most once: re-running a batch skips what is already there.

Every game is written in one transaction, so a run stopped at any moment leaves only whole games
behind and the next run resumes where it stopped. ``player_stats`` reads a player's record back:
games, decisions, class counts, error rate, accuracy and the most frequent kinds of mistake, per
period (game, day, month or year) and in total.

Definitions (over *decisions*: the player's rated moves that were not forced): the **error rate** is
(mistakes + blunders) / decisions; **accuracy** is the mean accuracy of those moves (the analysis's
per-move formula), i.e. each game's accuracy weighted by its decisions; the **kinds of mistake** count
the explanations of every inaccuracy, mistake and blunder by kind, with the points they account for,
where the kind cost the move points (a category in favour of the move played is no kind of mistake;
the rest of a loss that no scoring category explains, "other", or "continuation" in older
analyses, is not a kind: its points are given apart, as unexplained).
The **weakest skills** are, per kind of game (preset and number of players), the skills
(``coach.skills``) of the player's moves not classed best (good ones too: a loss the search tells
from its noise) by the points they lost per game, most first.
When one game was analysed with several settings, the statistics use its latest analysis.

Schema 2 added the moves' ``skill`` column. A store of schema 1 is still read: opened to be written,
it is brought to schema 2 in one transaction (the skills computed from the analyses it keeps); read
only (``stats``), its skills are computed from those analyses as they are read.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import os
import socket
import sqlite3
import tempfile
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import orjson

from casino_coach.coach.explain import Explanation
from casino_coach.coach.skills import Skill, skill_of
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build
from casino_coach.errors import NAME_WIDTH, SHOWN_WIDTH, CoachError, StoreError, printable, quoted
from casino_coach.formats.codec import move_from_json, read_cards

SCHEMA_VERSION = 2
READABLE_VERSIONS = ("1", "2")  # schema 1 lacks the moves' skill (``Store._migrate``)
CLASS_NAMES = ("best", "good", "inaccuracy", "mistake", "blunder")
ERROR_CLASSES = ("mistake", "blunder")  # what the error rate counts
MISS_CLASSES = ("inaccuracy", "mistake", "blunder")  # whose explanations are kinds of mistake
# Whose losses the skills count: every move not classed best, that is, whose loss the search tells
# from its noise (a "good" move may lose most of a point when its interval is wide).
SKILL_CLASSES = ("good", *MISS_CLASSES)
# The part of a loss no scoring category explains: not a kind of mistake. "other" is explain.py's;
# "continuation" was the same catch-all in analyses made before the explanations were by category
# (a store may still hold them), and it would otherwise top every player's list.
NOT_KINDS = ("other", "continuation")
PERIODS = ("game", "day", "month", "year")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL,            -- SHA-256 of the canonical casino-replay JSON
    settings TEXT NOT NULL,        -- canonical JSON of the analysis settings
    source TEXT,                   -- the file it was read from
    rules TEXT NOT NULL,           -- JSON, as in a log
    players TEXT NOT NULL,         -- JSON list of names, in seat order
    viewer INTEGER,
    played TEXT,                   -- the log's own date, when it has one
    analysed_at TEXT NOT NULL,     -- UTC, ISO 8601
    seconds REAL NOT NULL,
    nmoves INTEGER NOT NULL,
    analysis TEXT NOT NULL,        -- the casino-analysis JSON document
    UNIQUE (hash, settings)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    round INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    rated INTEGER NOT NULL,
    forced INTEGER NOT NULL,
    class TEXT,
    loss REAL,
    exact INTEGER NOT NULL,
    played TEXT NOT NULL,          -- move object (replay-format.md)
    best TEXT,                     -- move object
    skill TEXT,                    -- coach.skills.Skill of a missed move (schema 2), else NULL
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS explanations (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    points REAL NOT NULL,
    PRIMARY KEY (game_id, ply, idx)
);
CREATE TABLE IF NOT EXISTS players (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    side INTEGER NOT NULL,
    moves INTEGER NOT NULL,        -- rated moves
    decisions INTEGER NOT NULL,    -- rated moves that were not forced
    best INTEGER NOT NULL,
    good INTEGER NOT NULL,
    inaccuracy INTEGER NOT NULL,
    mistake INTEGER NOT NULL,
    blunder INTEGER NOT NULL,
    loss_total REAL NOT NULL,
    accuracy REAL,
    result REAL,
    luck_total REAL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS players_by_name ON players (player COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS moves_by_player ON moves (player COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS claims (  -- games a running batch is analysing (Store.claim)
    hash TEXT NOT NULL,
    settings TEXT NOT NULL,
    owner TEXT NOT NULL,           -- host:pid of the run
    at REAL NOT NULL,              -- time.time() of the claim
    PRIMARY KEY (hash, settings)
);
"""


# ---------------------------------------------------------------------------------------------------
# Writing


# ---------------------------------------------------------------------------------------------------
# Rows: what the store keeps of a casino-analysis document (replay-format.md), read field by field.
# Each ``from_json`` reads every field it keeps by name, so that a field renamed in the document is an
# error here rather than a column of zeros.


@dataclass(frozen=True)
class GameRow:
    """A game's row of ``games`` (less its key, source, date and the document itself)."""

    rules: str  # JSON
    players: str  # JSON list of names
    viewer: int | None
    seconds: float
    nmoves: int

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> GameRow:
        return cls(
            rules=_dumps(doc["rules"]),
            players=_dumps([str(p) for p in doc["players"]]),
            viewer=_optional(int, doc["viewer"]),
            seconds=float(doc["seconds"]),
            nmoves=len(doc["moves"]),
        )


@dataclass(frozen=True)
class MoveRow:
    """A move's row of ``moves``."""

    ply: int
    round: int
    deal: int
    seat: int
    player: str
    rated: bool
    forced: bool
    cls: str | None  # the class: best ... blunder, or None for a move not judged
    loss: float | None
    exact: bool
    played: str  # JSON of the move
    best: str | None  # JSON of the best move, where one is known
    skill: str | None  # the skill of play a missed move shows (``move_skill``)

    @classmethod
    def from_json(cls, m: Mapping[str, Any], players: Sequence[str], rules: RuleSet) -> MoveRow:
        return cls(
            ply=int(m["ply"]),
            round=int(m["round"]),
            deal=int(m["deal"]),
            seat=int(m["seat"]),
            player=players[int(m["seat"])],
            rated=bool(m["rated"]),
            forced=bool(m["forced"]),
            cls=_optional(str, m["class"]),
            loss=_optional(float, m["loss"]),
            exact=bool(m["exact"]),
            played=_dumps(m["played"]),
            best=_optional(_dumps, m["best"]),
            skill=move_skill(m, rules, len(players)),
        )


@dataclass(frozen=True)
class ExplanationRow:
    """One explanation of a move's cost, a row of ``explanations``."""

    ply: int
    idx: int
    kind: str
    points: float

    @classmethod
    def from_json(cls, ply: int, idx: int, e: Mapping[str, Any]) -> ExplanationRow:
        return cls(ply=ply, idx=idx, kind=str(e["kind"]), points=float(e["points"]))


@dataclass(frozen=True)
class PlayerRow:
    """A seat's summary, a row of ``players``."""

    seat: int
    player: str
    side: int
    moves: int
    decisions: int  # the moves that were rated and not forced ("unforced" in the document)
    classes: tuple[int, ...]  # per class of CLASS_NAMES
    loss_total: float
    accuracy: float | None
    result: float | None
    luck_total: float | None

    @classmethod
    def from_json(cls, s: Mapping[str, Any], players: Sequence[str]) -> PlayerRow:
        classes = s["classes"]
        return cls(
            seat=int(s["seat"]),
            player=players[int(s["seat"])],
            side=int(s["side"]),
            moves=int(s["moves"]),
            decisions=int(s["unforced"]),
            classes=tuple(int(classes[c]) for c in CLASS_NAMES),
            loss_total=float(s["loss_total"]),
            accuracy=_optional(float, s["accuracy"]),
            result=_optional(float, s["result"]),
            luck_total=_optional(float, s["luck_total"]),
        )


@dataclass(frozen=True)
class GameRows:
    """Every row one analysed game adds to the store."""

    game: GameRow
    moves: tuple[MoveRow, ...]
    explanations: tuple[ExplanationRow, ...]
    players: tuple[PlayerRow, ...]

    @classmethod
    def from_analysis(cls, doc: Mapping[str, Any]) -> GameRows:
        """The rows of a casino-analysis document; KeyError names a missing field, and TypeError,
        ValueError or IndexError a field of the wrong kind."""
        players = [str(p) for p in doc["players"]]
        moves = list(doc["moves"])
        rules = RuleSet.from_dict(doc["rules"])
        return cls(
            game=GameRow.from_json(doc),
            moves=tuple(MoveRow.from_json(m, players, rules) for m in moves),
            explanations=tuple(
                ExplanationRow.from_json(int(m["ply"]), i, e)
                for m in moves
                for i, e in enumerate(m["explanations"])
            ),
            players=tuple(PlayerRow.from_json(s, players) for s in doc["summary"]),
        )


def move_skill(m: Mapping[str, Any], rules: RuleSet, nplayers: int) -> str | None:
    """The skill (``coach.skills.skill_of``) of one move of a casino-analysis document: of a rated,
    unforced move that was not the best; None for any other."""
    if not m["rated"] or m["forced"] or m["best"] is None:
        return None
    table = m["table"]
    builds = tuple(
        Build(read_cards(b["cards"], "build"), int(b["value"]), int(b["owner"]), bool(b["multiple"]))
        for b in table["builds"]
    )
    explanations = [Explanation(str(e["kind"]), "", float(e["points"])) for e in m["explanations"]]
    skill = skill_of(
        rules,
        nplayers,
        int(m["seat"]),
        read_cards(table["loose"], "table"),
        builds,
        move_from_json(m["played"], "played")[1],
        move_from_json(m["best"], "best")[1],
        explanations,
    )
    return None if skill is None else skill.value


T = TypeVar("T")


def _optional(kind: Callable[[Any], T], value: Any) -> T | None:
    return None if value is None else kind(value)


def _flat(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row with its tuples spread into columns (``PlayerRow.classes``)."""
    return tuple(x for v in row for x in (v if isinstance(v, tuple) else (v,)))


def _why(e: Exception) -> str:
    return f"missing {e}" if isinstance(e, KeyError) else f"{type(e).__name__}: {e}"


P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class GameKey:
    """What identifies one stored analysis: the game's content hash and the settings' key."""

    hash: str
    settings: str


# How long a write waits for another program's transaction on the store to end, in seconds.
LOCK_WAIT = 30.0

# The tables of a store: an SQLite file is a store when it has them, and ``meta`` holds the version.
TABLES = ("meta", "games", "moves", "explanations", "players", "claims")


def _store_error(path: Path, e: sqlite3.Error | UnicodeDecodeError, *, opening: bool = False) -> StoreError:
    """SQLite's error on the store at ``path`` in the user's words, on one line: read-only, locked,
    full, damaged, a folder SQLite cannot write its journal in, or (``opening``) not a store at all."""
    if isinstance(e, UnicodeDecodeError):  # a flipped byte in a name or in the schema's text
        return StoreError(f"{_named(path)}: the results store is damaged (a text in it is not UTF-8)")
    text = " ".join(str(e).split())
    if "readonly" in text or "read-only" in text:
        return StoreError(f"{_named(path)}: cannot write to the results store: it is read-only")
    if "locked" in text or "busy" in text:
        return StoreError(
            f"{_named(path)}: the results store is locked by another program (waited {LOCK_WAIT:g} s); "
            "try again when it is done"
        )
    if "full" in text:  # SQLITE_FULL: "database or disk is full"
        return StoreError(
            f"{_named(path)}: cannot write to the results store: {text} (what it held before is intact)"
        )
    if "malformed" in text or "corrupt" in text:
        return StoreError(f"{_named(path)}: the results store is damaged ({text})")
    if "unable to open" in text and path.is_file() and not _writable_folder(path.parent):
        return StoreError(
            f"{_named(path)}: cannot open the results store: its folder is not writable "
            "(SQLite keeps its journal files beside the store)"
        )
    if opening or "not a database" in text:
        return StoreError(f"{_named(path)}: not a results store ({text})")
    return StoreError(f"{_named(path)}: cannot use the results store ({text})")


def _named(path: Path) -> str:
    """The store's file name as a message shows it (``errors.printable``)."""
    return printable(str(path))


def _writable_folder(folder: Path) -> bool:
    """Whether a file can be made in ``folder`` (tried: permission bits say nothing to root)."""
    try:
        with tempfile.TemporaryFile(dir=folder or Path(".")):
            return True
    except OSError:
        return False


def _sqlite(fn: Callable[P, R]) -> Callable[P, R]:
    """A use of the store (a method of ``Store``): every error of SQLite (read-only, locked, full,
    damaged) and a text that is not UTF-8 become one StoreError naming the store and what happened."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (sqlite3.Error, UnicodeDecodeError) as e:
            store = args[0]
            assert isinstance(store, Store)
            raise _store_error(store.path, e) from None

    return wrapper


def _schema_version(path: Path, db: sqlite3.Connection) -> str | None:
    """The schema version of the store ``db`` (read only), None for an SQLite file without tables
    (a store still being made, by this run or another); StoreError for another program's file."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return None
    if not {*TABLES} - {"claims"} <= tables:  # claims came later, in schema 1 still
        raise StoreError(f"{_named(path)}: not a results store (an SQLite file of another program)")
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:  # a table named meta, of another shape
        row = None
    if row is None or not isinstance(row[0], str):
        raise StoreError(f"{_named(path)}: not a results store (an SQLite file of another program)")
    if row[0] not in READABLE_VERSIONS:
        raise StoreError(
            f"{_named(path)}: results store of schema {printable(row[0], SHOWN_WIDTH)}, "
            f"this program reads schema {' and '.join(READABLE_VERSIONS)}"
        )
    return row[0]


def _migrate_1(db: sqlite3.Connection) -> None:
    """Bring a store of schema 1 to schema 2, inside the caller's transaction: the moves' skill
    column, filled from the analyses the store keeps (``document_skills``)."""
    db.execute("ALTER TABLE moves ADD COLUMN skill TEXT")
    for gid, doc in db.execute("SELECT id, analysis FROM games").fetchall():
        skills = document_skills(doc)
        db.executemany(
            "UPDATE moves SET skill = ? WHERE game_id = ? AND ply = ?",
            [(skill, gid, ply) for ply, skill in skills.items()],
        )
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))


def document_skills(text: str) -> dict[int, str]:
    """Per ply, the skill of each missed move of a stored casino-analysis document (``move_skill``);
    empty for a document it cannot read (a store of schema 1 then shows no skills for that game)."""
    try:
        doc = orjson.loads(text)
        rules = RuleSet.from_dict(doc["rules"])
        n = len(doc["players"])
        found = ((int(m["ply"]), move_skill(m, rules, n)) for m in doc["moves"])
        return {ply: skill for ply, skill in found if skill is not None}
    except (orjson.JSONDecodeError, KeyError, TypeError, IndexError, ValueError):
        return {}


def _read_only(path: Path) -> sqlite3.Connection:
    """A connection to ``path`` that cannot write (SQLite's ``mode=ro``; the file must exist)."""
    uri = f"{path.absolute().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=LOCK_WAIT, isolation_level=None)


def _into_wal(db: sqlite3.Connection) -> None:
    """Put the store in WAL mode. SQLite answers "database is locked" at once, without waiting, when
    another run is changing the journal mode at the same moment (making the store, or closing it:
    ``Store.close``), so the change is tried again here for up to LOCK_WAIT seconds."""
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class Store:
    """A results store in one SQLite file. Use as a context manager.

    A file that exists is read before anything is written to it: its schema is checked through a
    read-only connection, and a file that is not already a store (another program's database, even
    one with a table named ``meta``) is refused untouched. A missing (or empty) file is made a store,
    unless ``readonly``: then the store is only read (``stats``), through a connection that cannot
    write."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        db: sqlite3.Connection | None = None
        try:
            if readonly or (self.path.is_file() and self.path.stat().st_size > 0):
                db = _read_only(self.path)
                version = _schema_version(self.path, db)
                if readonly:
                    if version is None:
                        raise StoreError(
                            f"{_named(self.path)}: not a results store (an SQLite file without tables)"
                        )
                    self._db = db
                    self.version = int(version)
                    return
                db.close()
                db = None
            if self.path.parent != Path(""):
                self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=LOCK_WAIT, isolation_level=None)
            db.execute("PRAGMA foreign_keys = ON")
            _into_wal(db)
            # In one transaction, checked again inside it: two runs that make one new store at once
            # (the other may have made it since the read above) make it once.
            db.execute("BEGIN IMMEDIATE")
            try:
                version = _schema_version(self.path, db)
                for statement in _SCHEMA.split(";"):  # IF NOT EXISTS: an older store has no claims yet
                    if statement.strip():
                        db.execute(statement)
                if version is None:
                    db.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                elif version == "1":
                    _migrate_1(db)
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise
            self._db = db
            self.version = SCHEMA_VERSION
        except BaseException as e:
            if db is not None:
                db.close()
            if isinstance(e, sqlite3.Error | UnicodeDecodeError):
                raise _store_error(self.path, e, opening=True) from None
            raise

    # --- claims: two runs on one store never analyse the same game ----------------------------------

    @_sqlite
    def claim(self, hashes: Sequence[str], settings: str, owner: str) -> set[str]:
        """Claim the games ``hashes`` for ``owner`` (``host:pid``); return those it now holds. A claim
        of a process that is gone (on this host), or older than CLAIM_HOURS, is taken over."""
        now = time.time()
        got: set[str] = set()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for h in hashes:
                row = self._db.execute(
                    "SELECT owner, at FROM claims WHERE hash = ? AND settings = ?", (h, settings)
                ).fetchone()
                if row is not None and row[0] != owner and not _stale(row[0], row[1], now):
                    continue
                self._db.execute(
                    "INSERT OR REPLACE INTO claims (hash, settings, owner, at) VALUES (?, ?, ?, ?)",
                    (h, settings, owner, now),
                )
                got.add(h)
            self._db.execute("COMMIT")
        except BaseException:
            _rollback(self._db)
            raise
        return got

    @_sqlite
    def release(self, owner: str, hashes: Sequence[str] | None = None) -> None:
        """Drop ``owner``'s claims (all of them, or those of ``hashes``)."""
        if hashes is None:
            self._db.execute("DELETE FROM claims WHERE owner = ?", (owner,))
        else:
            self._db.executemany(
                "DELETE FROM claims WHERE owner = ? AND hash = ?", [(owner, h) for h in hashes]
            )

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the store. A writer that is the last to close it leaves it in SQLite's rollback
        journal mode, as one file: a reader (``stats``, a read-only connection) then makes no
        journal files beside it, which it must for a store in WAL mode. While another run still
        has it open, the store stays in WAL mode (the change is refused at once, not waited for)."""
        if not self.readonly:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA busy_timeout = 0")
                self._db.execute("PRAGMA journal_mode = DELETE")
        self._db.close()

    # --- queries -----------------------------------------------------------------------------------

    @_sqlite
    def has(self, key: GameKey) -> bool:
        """Whether this game was already analysed with these settings."""
        row = self._db.execute(
            "SELECT 1 FROM games WHERE hash = ? AND settings = ?", (key.hash, key.settings)
        ).fetchone()
        return row is not None

    @_sqlite
    def done(self, settings: str) -> set[str]:
        """Hashes of every game analysed with ``settings``."""
        return {r[0] for r in self._db.execute("SELECT hash FROM games WHERE settings = ?", (settings,))}

    @_sqlite
    def count(self) -> int:
        """Number of stored analyses."""
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    @_sqlite
    def analysis(self, key: GameKey) -> dict[str, Any] | None:
        """The stored casino-analysis document of one game, or None."""
        row = self._db.execute(
            "SELECT analysis FROM games WHERE hash = ? AND settings = ?", (key.hash, key.settings)
        ).fetchone()
        return None if row is None else dict(orjson.loads(row[0]))

    # --- writing -----------------------------------------------------------------------------------

    @_sqlite
    def add(
        self,
        key: GameKey,
        analysis: Mapping[str, Any],
        *,
        source: str | None = None,
        played: str | None = None,
        analysed_at: datetime | None = None,
    ) -> bool:
        """Store one game's analysis (a casino-analysis JSON object) in one transaction. Returns False
        (and changes nothing) when the same game was already stored with the same settings. The
        document is read into typed rows first (``GameRows``): a field missing from it is an error,
        never a zero stored in its place."""
        try:
            rows = GameRows.from_analysis(analysis)
        except (KeyError, TypeError, IndexError, ValueError) as e:
            raise StoreError(
                f"{printable(source or key.hash)}: not a casino-analysis document ({_why(e)})"
            ) from None
        when = (analysed_at or datetime.now(UTC)).isoformat(timespec="seconds")
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if self.has(key):
                _rollback(db)
                return False
            game = rows.game
            cur = db.execute(
                "INSERT INTO games (hash, settings, source, rules, players, viewer, played, analysed_at,"
                " seconds, nmoves, analysis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key.hash,
                    key.settings,
                    source,
                    game.rules,
                    game.players,
                    game.viewer,
                    played,
                    when,
                    game.seconds,
                    game.nmoves,
                    _dumps(analysis),
                ),
            )
            gid = cur.lastrowid
            db.executemany(
                "INSERT INTO moves (game_id, ply, round, deal, seat, player, rated, forced, class, loss,"
                " exact, played, best, skill) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(gid, *dataclasses.astuple(m)) for m in rows.moves],
            )
            db.executemany(
                "INSERT INTO explanations (game_id, ply, idx, kind, points) VALUES (?, ?, ?, ?, ?)",
                [(gid, *dataclasses.astuple(e)) for e in rows.explanations],
            )
            db.executemany(
                "INSERT INTO players (game_id, seat, player, side, moves, decisions, best, good,"
                " inaccuracy, mistake, blunder, loss_total, accuracy, result, luck_total)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(gid, *_flat(dataclasses.astuple(r))) for r in rows.players],
            )
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise
        return True

    # --- reading for statistics ----------------------------------------------------------------------

    @_sqlite
    def players(self) -> list[str]:
        """Every player name in the store (as first written), sorted case-insensitively."""
        rows = self._db.execute("SELECT player FROM players GROUP BY player COLLATE NOCASE")
        return sorted((r[0] for r in rows), key=str.casefold)

    def _latest(self) -> str:
        # One analysis per game: the latest (highest id) of each hash.
        return "SELECT MAX(id) FROM games GROUP BY hash"

    @_sqlite
    def player_games(self, player: str) -> list[GameLine]:
        """The player's games (latest analysis of each), oldest first, with the per-game numbers."""
        sql = f"""
            SELECT g.id, g.hash, g.source, COALESCE(g.played, g.analysed_at), p.decisions, p.moves,
                   p.best, p.good, p.inaccuracy, p.mistake, p.blunder, p.loss_total, p.accuracy,
                   p.result, p.side, g.rules, g.players
            FROM players p JOIN games g ON g.id = p.game_id
            WHERE p.player = ? COLLATE NOCASE AND g.id IN ({self._latest()})
            ORDER BY COALESCE(g.played, g.analysed_at), g.id"""
        rows = self._db.execute(sql, (player,)).fetchall()
        opponents = self._opponents({r[0]: r[14] for r in rows})
        return [
            GameLine(
                game_id=r[0],
                hash=r[1],
                source=r[2],
                date=r[3],
                decisions=r[4],
                moves=r[5],
                classes=dict(zip(CLASS_NAMES, r[6:11], strict=True)),
                loss_total=r[11],
                accuracy=r[12],
                result=r[13],
                opponents=opponents.get(r[0], ()),
                preset=_preset_of(r[15]),
                nplayers=len(orjson.loads(r[16])),
            )
            for r in rows
        ]

    def _opponents(self, sides: Mapping[int, int]) -> dict[int, tuple[str, ...]]:
        """Per game id, the players of the other sides (in seat order), ``sides`` giving the side of
        the player whose games these are."""
        out: dict[int, list[str]] = {}
        ids = list(sides)
        for start in range(0, len(ids), 500):  # SQLite bounds the number of parameters
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            sql = (
                f"SELECT game_id, player, side FROM players WHERE game_id IN ({marks}) ORDER BY game_id, seat"
            )
            for gid, name, side in self._db.execute(sql, chunk):
                if side != sides[gid]:
                    out.setdefault(gid, []).append(name)
        return {gid: tuple(names) for gid, names in out.items()}

    @_sqlite
    def mistake_kinds(self, player: str, games: Collection[int] | None = None) -> list[KindCount]:
        """Kinds of the player's inaccuracies, mistakes and blunders: how many moves each kind
        explains and the points it accounts for, most frequent first (the catch-alls, NOT_KINDS,
        left out, and a category where it was in favour of the move played); ``games``: only in
        these games (their ids), None: in all."""
        return [k for k in self._explained(player, games) if k.kind not in NOT_KINDS]

    @_sqlite
    def unexplained(self, player: str, games: Collection[int] | None = None) -> float:
        """The points of the player's inaccuracies, mistakes and blunders that no kind explains."""
        return round(sum(k.points for k in self._explained(player, games) if k.kind in NOT_KINDS), 3)

    @_sqlite
    def _explained(self, player: str, games: Collection[int] | None) -> list[KindCount]:
        marks = ", ".join("?" for _ in MISS_CLASSES)
        sql = f"""
            SELECT e.kind, e.game_id, COUNT(DISTINCT e.ply), SUM(e.points)
            FROM explanations e JOIN moves m ON m.game_id = e.game_id AND m.ply = e.ply
            WHERE m.player = ? COLLATE NOCASE AND m.rated AND NOT m.forced AND m.class IN ({marks})
              AND e.game_id IN ({self._latest()})
              AND (e.points > 0 OR e.kind IN ({", ".join("?" for _ in NOT_KINDS)}))"""
        sql += " GROUP BY e.kind, e.game_id ORDER BY e.game_id"
        counts: dict[str, tuple[int, float]] = {}
        for kind, game_id, moves, points in self._db.execute(sql, (player, *MISS_CLASSES, *NOT_KINDS)):
            if games is None or game_id in games:
                n, total = counts.get(kind, (0, 0.0))
                counts[kind] = (n + moves, total + points)
        out = [KindCount(k, n, round(pts, 3)) for k, (n, pts) in counts.items()]
        out.sort(key=lambda k: (-k.moves, -k.points, k.kind))
        return out

    @_sqlite
    def skill_losses(self, player: str) -> list[tuple[int, str, int, float]]:
        """(game id, skill, moves, points lost) of the player's moves not classed best (SKILL_CLASSES),
        per game (latest analyses) and skill. A store of schema 1 has no skill column: the skills come
        from its analyses (``document_skills``)."""
        marks = ", ".join("?" for _ in SKILL_CLASSES)
        where = f"""player = ? COLLATE NOCASE AND rated AND NOT forced AND class IN ({marks})
              AND game_id IN ({self._latest()})"""
        if self.version >= 2:
            sql = f"""SELECT game_id, skill, COUNT(*), SUM(loss) FROM moves
                WHERE {where} AND skill IS NOT NULL GROUP BY game_id, skill ORDER BY game_id, skill"""
            return [(g, k, n, p) for g, k, n, p in self._db.execute(sql, (player, *SKILL_CLASSES))]
        sums: dict[tuple[int, str], tuple[int, float]] = {}
        docs: dict[int, dict[int, str]] = {}
        sql = f"SELECT game_id, ply, loss FROM moves WHERE {where} ORDER BY game_id, ply"
        for gid, ply, loss in self._db.execute(sql, (player, *SKILL_CLASSES)).fetchall():
            if gid not in docs:
                text = self._db.execute("SELECT analysis FROM games WHERE id = ?", (gid,)).fetchone()[0]
                docs[gid] = document_skills(text)
            skill = docs[gid].get(ply)
            if skill is not None:
                n, total = sums.get((gid, skill), (0, 0.0))
                sums[gid, skill] = (n + 1, total + (loss or 0.0))
        return [(g, k, n, p) for (g, k), (n, p) in sorted(sums.items())]

    @_sqlite
    def iter_games(self) -> list[tuple[str, str, str | None]]:
        """(hash, settings, source) of every stored analysis, in the order stored."""
        return list(self._db.execute("SELECT hash, settings, source FROM games ORDER BY id"))


def _rollback(db: sqlite3.Connection) -> None:
    """End the transaction in progress, if SQLite has not ended it already: a failed COMMIT (a full
    disk) rolls back by itself, and a ROLLBACK then would replace its error ("database or disk is
    full") by its own ("cannot rollback - no transaction is active")."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


CLAIM_HOURS = 24.0


def claim_owner() -> str:
    """This process, as a claim names it."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _stale(owner: str, at: float, now: float) -> bool:
    host, _, pid = owner.rpartition(":")
    if now - at > CLAIM_HOURS * 3600:
        return True
    if host != socket.gethostname() or not pid.isdecimal():
        return False
    try:
        os.kill(int(pid), 0)  # signal 0: is that process still there?
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def remove_store(path: str | Path) -> None:
    """Delete a store file and SQLite's journal files beside it (a store a failed run created)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def remove_if_empty(path: str | Path) -> bool:
    """Delete a store that a stopped or failed run created, unless it already holds a game or
    another live run holds claims in it: a run stopped at any moment keeps every game it finished,
    and a second run that found every game claimed by the first does not delete the store the first
    is writing. Returns whether it was deleted."""
    now = time.time()
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=LOCK_WAIT)) as db:
            stored = int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
            claims = db.execute("SELECT owner, at FROM claims").fetchall()
            stored += sum(1 for owner, at in claims if not _stale(owner, at, now))
    except sqlite3.DatabaseError:  # stopped before the tables were made
        stored = 0
    if stored:
        return False
    remove_store(path)
    return True


def normal_date(text: str | None) -> str | None:
    """A log's ``date`` as ISO 8601 (``2026-11-29`` or with a time), or None when it is not one."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.strip()).isoformat()
    except ValueError:
        return None


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode()


# ---------------------------------------------------------------------------------------------------
# Statistics


@dataclass(frozen=True)
class GameLine:
    """One player's numbers in one stored game."""

    game_id: int
    hash: str
    source: str | None
    date: str
    decisions: int
    moves: int
    classes: dict[str, int]
    loss_total: float
    accuracy: float | None
    result: float | None
    opponents: tuple[str, ...] = ()  # the players of the other sides, in seat order
    preset: str = ""  # the rules' preset (classic, royal, dominican)
    nplayers: int = 0  # how many played

    @property
    def kind(self) -> tuple[str, int]:
        """What kind of game it was: the preset and the number of players."""
        return self.preset, self.nplayers

    @property
    def file(self) -> str | None:
        """The name of the file the game was read from (without its folder), if the store knows it."""
        return Path(self.source).name if self.source else None


@dataclass(frozen=True)
class KindCount:
    """How often one kind of explanation appears in a player's missed moves, and its points."""

    kind: str
    moves: int
    points: float


@dataclass(frozen=True)
class SkillLoss:
    """What one skill (``coach.skills``) cost a player over some games: the moves not classed best
    it names, the points they lost, and those points per game."""

    skill: str
    moves: int
    points: float
    per_game: float

    @property
    def words(self) -> str:
        """The skill as a player says it ("choosing what to trail"); an unknown one as written."""
        try:
            return Skill(self.skill).words
        except ValueError:
            return self.skill

    def to_json(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "words": self.words,
            "moves": self.moves,
            "points": round(self.points, 3),
            "per_game": round(self.per_game, 3),
        }


def weakest_skills(
    losses: Sequence[tuple[int, str, int, float]], games: Collection[int]
) -> tuple[SkillLoss, ...]:
    """The skills of ``losses`` (``Store.skill_losses``) over the games ``games`` (their ids), by
    points lost per game, most first."""
    sums: dict[str, tuple[int, float]] = {}
    for gid, skill, n, points in losses:
        if gid in games:
            m, total = sums.get(skill, (0, 0.0))
            sums[skill] = (m + n, total + points)
    out = [SkillLoss(k, n, p, p / len(games)) for k, (n, p) in sums.items() if games]
    out.sort(key=lambda s: (-s.per_game, s.skill))
    return tuple(out)


@dataclass(frozen=True)
class KindSkills:
    """A player's weakest skills in one kind of game: the preset, the number of players, the games
    counted and the skills (``weakest_skills``)."""

    preset: str
    nplayers: int
    games: int
    skills: tuple[SkillLoss, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "player_count": self.nplayers,
            "games": self.games,
            "skills": [s.to_json() for s in self.skills],
        }


def skills_by_kind(store: Store, player: str, lines: Sequence[GameLine]) -> tuple[KindSkills, ...]:
    """The player's weakest skills per kind of game (preset, number of players) of ``lines``."""
    losses = store.skill_losses(player)
    kinds: dict[tuple[str, int], set[int]] = {}
    for g in lines:
        kinds.setdefault(g.kind, set()).add(g.game_id)
    return tuple(
        KindSkills(p, n, len(ids), weakest_skills(losses, ids)) for (p, n), ids in sorted(kinds.items())
    )


@dataclass(frozen=True)
class Record:
    """A player's numbers over some games (one period, or all of them)."""

    label: str
    games: int
    decisions: int
    classes: dict[str, int]
    loss_total: float
    accuracy: float | None
    game: GameLine | None = None  # the game, when the record is one game's (stats --by game)
    kind: tuple[str, int] | None = None  # the preset and number of players, when a row is one kind's
    skills: tuple[SkillLoss, ...] = ()  # the weakest skills, when a row is one kind's

    @property
    def errors(self) -> int:
        return sum(self.classes.get(c, 0) for c in ERROR_CLASSES)

    @property
    def error_rate(self) -> float | None:
        return self.errors / self.decisions if self.decisions else None

    @property
    def loss_per_decision(self) -> float | None:
        return self.loss_total / self.decisions if self.decisions else None

    def to_json(self) -> dict[str, Any]:
        game = self.game
        about: dict[str, Any] = (
            {}
            if game is None
            else {"source": game.source, "opponents": list(game.opponents), "hash": game.hash}
        )
        if self.kind is not None:
            about = {**about, "preset": self.kind[0], "player_count": self.kind[1]}
        skills = {"skills": [s.to_json() for s in self.skills]} if self.kind is not None else {}
        return {
            "period": self.label,
            **about,
            "games": self.games,
            "decisions": self.decisions,
            "classes": dict(self.classes),
            "errors": self.errors,
            "error_rate": _r(self.error_rate, 4),
            "accuracy": _r(self.accuracy, 1),
            "loss_total": _r(self.loss_total, 3),
            "loss_per_decision": _r(self.loss_per_decision, 3),
            **skills,
        }


@dataclass(frozen=True)
class PlayerStats:
    """A player's record over time: per period, in total, and the most frequent kinds of mistake."""

    player: str
    by: str
    periods: tuple[Record, ...]
    total: Record
    kinds: tuple[KindCount, ...]
    games: tuple[GameLine, ...] = field(default=(), repr=False)
    unexplained: float = 0.0  # points of the missed moves that no kind explains
    only: GameKinds = field(default_factory=lambda: GameKinds())  # the filters the record was made with
    skills: tuple[KindSkills, ...] = ()  # the weakest skills per kind of game

    @property
    def kinds_of_game(self) -> list[tuple[str, int, int]]:
        """The kinds of game on record, (preset, players, games), most games first."""
        counts = collections.Counter(g.kind for g in self.games)
        return [(p, n, c) for (p, n), c in sorted(counts.items(), key=lambda kc: (-kc[1], kc[0]))]

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "by": self.by,
            "total": self.total.to_json(),
            "periods": [p.to_json() for p in self.periods],
            "mistake_kinds": [{"kind": k.kind, "moves": k.moves, "points": k.points} for k in self.kinds],
            "unexplained_points": self.unexplained,
            "preset": self.only.preset,
            "player_count": self.only.nplayers,
            "kinds_of_game": [{"preset": p, "player_count": n, "games": c} for p, n, c in self.kinds_of_game],
            "skills": [k.to_json() for k in self.skills],
        }


@dataclass(frozen=True)
class GameKinds:
    """Which games a record counts: of one preset, of one number of players (None: any)."""

    preset: str | None = None
    nplayers: int | None = None

    def keep(self, line: GameLine) -> bool:
        return (self.preset is None or line.preset == self.preset) and (
            self.nplayers is None or line.nplayers == self.nplayers
        )

    def words(self) -> str:
        """The filter in words: "royal, 4 players"; empty for none."""
        parts = [self.preset] if self.preset else []
        if self.nplayers is not None:
            parts.append(f"{self.nplayers} players")
        return ", ".join(parts)


def _preset_of(rules: str) -> str:
    """The preset of a stored rule set (its JSON, as in a log)."""
    obj = orjson.loads(rules)
    preset = obj.get("preset", "classic") if isinstance(obj, dict) else None
    if not isinstance(preset, str):
        raise ValueError(f"rules without a preset: {rules[:60]}")
    return preset


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


def _period(line: GameLine, by: str) -> str:
    if by == "game":  # the day, and the file the game came from (its hash when the store has none)
        return f"{line.date[:10]} {line.file or line.hash[:12]}"
    return line.date[: {"day": 10, "month": 7, "year": 4}[by]]


def record_of(label: str, lines: Sequence[GameLine]) -> Record:
    """The record of some games: sums, accuracy weighted by decisions."""
    decisions = sum(g.decisions for g in lines)
    classes = {c: sum(g.classes.get(c, 0) for g in lines) for c in CLASS_NAMES}
    weighted = [(g.accuracy, g.decisions) for g in lines if g.accuracy is not None and g.decisions]
    n = sum(d for _, d in weighted)
    accuracy = sum(a * d for a, d in weighted) / n if n else None
    return Record(label, len(lines), decisions, classes, sum(g.loss_total for g in lines), accuracy)


def _damaged(fn: Callable[P, R]) -> Callable[P, R]:
    """A read of the store's records: a record of the wrong type (a text where a count belongs, a
    table changed by another program) is a StoreError naming the store, not a crash."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except CoachError:
            raise
        except (TypeError, ValueError, ArithmeticError) as e:
            store = next((a for a in args if isinstance(a, Store)), None)
            where = f"{_named(store.path)}: " if store is not None else ""
            raise StoreError(
                f"{where}a damaged record in the results store ({type(e).__name__}: {e})"
            ) from None

    return wrapper


@_damaged
def player_stats(
    store: Store, player: str, by: str = "month", top: int = 5, only: GameKinds | None = None
) -> PlayerStats:
    """A player's record (case-insensitive name) over the store's games, grouped ``by`` period;
    ``only``: over the games of that preset and number of players only."""
    if by not in PERIODS:
        raise StoreError(f"unknown period {quoted(by)}: choose one of {', '.join(PERIODS)}")
    only = only or GameKinds()
    every = [g for g in store.player_games(player) if g.moves]
    lines = [g for g in every if only.keep(g)]
    if every and not lines:
        played = ", ".join(sorted({f"{p} with {n} players" for p, n in (g.kind for g in every)}))
        raise StoreError(
            f"no analysed game of player {quoted(player)} of {only.words()} in {_named(store.path)} "
            f"(the player's games: {played})"
        )
    if not lines:
        # The players with rated moves: the others of a viewer's log have none to give a record of.
        known = [p for p in store.players() if any(g.moves for g in store.player_games(p))]
        if known:
            hint = f" (players: {', '.join(printable(k, NAME_WIDTH) for k in known)})"
        else:
            hint = " (no player has a rated move in it)" if store.count() else " (the store is empty)"
        raise StoreError(f"no analysed game of player {quoted(player)} in {_named(store.path)}{hint}")
    groups: dict[str | int, list[GameLine]] = {}
    for g in lines:  # by game: one row per game, even two of a day from files of one name
        groups.setdefault(g.game_id if by == "game" else _period(g, by), []).append(g)
    periods = tuple(
        dataclasses.replace(record_of(_period(gs[0], by), gs), game=gs[0] if by == "game" else None)
        for gs in groups.values()
    )
    ids = None if only == GameKinds() else {g.game_id for g in lines}
    kinds = tuple(store.mistake_kinds(player, ids)[:top])
    name = next((p for p in store.players() if p.casefold() == player.casefold()), player)
    total = record_of("total", lines)
    unexplained = store.unexplained(player, ids)
    skills = skills_by_kind(store, player, lines)
    return PlayerStats(name, by, periods, total, kinds, tuple(lines), unexplained, only, skills)


@_damaged
def all_players(store: Store, only: GameKinds | None = None) -> list[Record]:
    """One total record per player and kind of game (preset and number of players) in the store,
    with the player's weakest skills in it, labelled with the player's name, the kinds in order;
    ``only``: those of one preset, one number of players. A player's royal 4-player games and
    Dominican 3-player games are two rows."""
    only = only or GameKinds()
    out = []
    for name in store.players():
        by_kind: dict[tuple[str, int], list[GameLine]] = {}
        for g in store.player_games(name):
            if g.moves and only.keep(g):
                by_kind.setdefault(g.kind, []).append(g)
        losses = store.skill_losses(name) if by_kind else []
        for kind in sorted(by_kind):
            skills = weakest_skills(losses, {g.game_id for g in by_kind[kind]})
            out.append(dataclasses.replace(record_of(name, by_kind[kind]), kind=kind, skills=skills))
    return out
