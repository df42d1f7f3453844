"""Per-chat state in SQLite: each chat's Session, and the keyboards of its recent replies.

One file under the data dir, WAL mode, FULL sync: a turn's state is committed before its reply is sent, so a
`kill -9` right after an answer loses nothing. Chats are keyed by their Telegram chat id and never see each other's
rows. A file that is not a database (garbage, a damaged header) is moved aside (`<name>.corrupt-<timestamp>`) and a
fresh one started; a database that cannot be written (read-only file or folder, locked by another process, a full
disk) is left untouched and reported as a StoreError that says the cause and the fix: discarding chats because of a
permission is not a repair. The schema is versioned (`PRAGMA user_version`) and migrated step by step on opening.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.session import Session

log = logging.getLogger(__name__)

DEFAULT_FILENAME = "telegram.sqlite3"
KEYBOARDS_KEPT = 50  # per chat: buttons of older replies answer "this button has expired"

# Each step takes the schema from version i to i + 1 (`PRAGMA user_version`); a store written by an older version is
# brought up to date on opening, one step at a time, each in its own transaction.
MIGRATIONS = (
    # 1: a chat's session, and the keyboards of its recent replies (with the state each reply was given in)
    """
    CREATE TABLE IF NOT EXISTS sessions (
        chat_id INTEGER PRIMARY KEY,
        data    TEXT    NOT NULL,
        updated REAL    NOT NULL
    );
    CREATE TABLE IF NOT EXISTS keyboards (
        chat_id INTEGER NOT NULL,
        key     INTEGER NOT NULL,
        data    TEXT    NOT NULL,
        PRIMARY KEY (chat_id, key)
    );
    """,
    # 2: the outbox — each reply is written here in the same transaction as the session change it goes with, then
    # sent; what could not be sent yet stays until it is (or its time runs out). And the updates answered, so a
    # re-posted update_id is not answered twice.
    """
    CREATE TABLE IF NOT EXISTS outbox (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id     INTEGER NOT NULL,
        payload     TEXT    NOT NULL,
        created     REAL    NOT NULL,
        next_try    REAL    NOT NULL,
        attempts    INTEGER NOT NULL DEFAULT 0,
        sent_pieces INTEGER NOT NULL DEFAULT 0,
        last_error  TEXT
    );
    CREATE INDEX IF NOT EXISTS outbox_by_chat ON outbox (chat_id, id);
    CREATE TABLE IF NOT EXISTS updates (
        update_id INTEGER PRIMARY KEY,
        seen      REAL    NOT NULL
    );
    """,
    # 3: an update is claimed (by one run of the bot, before its turn) and then answered (with its reply queued): a
    # second delivery of it is skipped from the claim on; a claim left by a run that died before the reply reached
    # the outbox is taken over by the next run, which answers it
    """
    ALTER TABLE updates ADD COLUMN state TEXT NOT NULL DEFAULT 'answered';
    ALTER TABLE updates ADD COLUMN run TEXT NOT NULL DEFAULT ''
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
UPDATES_KEPT_SECONDS = 2 * 86400  # Telegram keeps an unconfirmed update for 24 hours: remember answered ones longer

# sqlite's own error names: the database is fine but cannot be written now (left alone, reported), or it is no
# database at all (moved aside)
_CANNOT_WRITE = ("SQLITE_READONLY", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN",
                 "SQLITE_PERM", "SQLITE_AUTH")
_NOT_A_DATABASE = ("SQLITE_NOTADB", "SQLITE_CORRUPT")


@dataclass(frozen=True)
class OutboxItem:
    """A reply waiting to be sent: its HTML pieces, buttons and where it answers (`payload`), how far it got."""

    id: int
    chat_id: int
    payload: dict
    created: float
    attempts: int
    sent_pieces: int
    next_try: float


class StoreError(RuntimeError):
    """The data dir or the database cannot be used (a message for a person, not a traceback)."""


class SessionStore:
    """`get(chat_id) -> Session`, `put(chat_id, session, keyboard=None) -> keyboard key`. Thread-safe."""

    def __init__(self, path: Path | str, timeout: float = 10.0):
        self.path = Path(path)
        self.timeout = timeout  # seconds to wait for another process's lock before reporting it
        self.run = uuid.uuid4().hex  # this run's name on the updates it claims
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the data directory {self.path.parent}: {e.strerror or e}") from None
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise StoreError(_cannot_write(self.path, "the file is read-only"))
        try:
            self._conn = self._open()
        except sqlite3.DatabaseError as e:
            if not self.path.exists():
                raise StoreError(f"cannot open {self.path}: {e}") from None
            if not _is_not_a_database(e):
                raise StoreError(_cannot_write(self.path, str(e))) from None
            aside = self._move_aside()
            log.warning("session store %s is corrupt (%s); moved it to %s and started a fresh one",
                        self.path, e, aside.name)
            try:
                self._conn = self._open()
            except sqlite3.Error as e2:
                raise StoreError(f"cannot open {self.path}: {e2}") from None
        except sqlite3.Error as e:  # OperationalError: unwritable dir, disk full, …
            raise StoreError(_cannot_write(self.path, str(e))) from None

    # --- opening ---------------------------------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, timeout=self.timeout, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            ok = conn.execute("PRAGMA quick_check").fetchone()
            if not ok or ok[0] != "ok":
                err = sqlite3.DatabaseError(f"quick_check: {ok[0] if ok else 'no answer'}")
                err.sqlite_errorname = "SQLITE_CORRUPT"
                raise err
            _migrate(conn)
            # a probe write: an unwritable file or directory fails here, at start, not at the first answer
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        return conn

    def _move_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        self.path.rename(aside)
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.rename(aside.with_name(aside.name + suffix))
        return aside

    # --- sessions --------------------------------------------------------------------------------------------------
    def get(self, chat_id: int) -> Session:
        with self._lock:
            row = self._conn.execute("SELECT data FROM sessions WHERE chat_id = ?", (int(chat_id),)).fetchone()
        if row is None:
            return Session()
        try:
            return Session.from_dict(json.loads(row[0]))
        except Exception as e:  # a row written by an older version that no longer fits: start the chat over
            log.warning("stored session of chat %s cannot be read (%s); starting it fresh", chat_id, e)
            return Session()

    def put(self, chat_id: int, session: Session, keyboard: dict | None = None,
            outbox: Callable[[int | None], dict] | None = None, update_id: int | None = None) -> int | None:
        """Store the chat's session — and, if given, the keyboard of the reply, the reply itself in the outbox
        (`outbox(key)` builds it once the keyboard's key is known) and the update it answers — in one transaction:
        the question is handled exactly when its reply is queued.

        Returns the keyboard's key, which the reply's buttons carry in their callback data."""
        data = json.dumps(session.to_dict(), ensure_ascii=False)
        chat_id = int(chat_id)
        now = time.time()
        with self._lock:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                c.execute("INSERT INTO sessions (chat_id, data, updated) VALUES (?, ?, ?) "
                          "ON CONFLICT(chat_id) DO UPDATE SET data = excluded.data, updated = excluded.updated",
                          (chat_id, data, now))
                key = None
                if keyboard is not None:
                    row = c.execute("SELECT MAX(key) FROM keyboards WHERE chat_id = ?", (chat_id,)).fetchone()
                    key = (row[0] or 0) + 1
                    c.execute("INSERT INTO keyboards (chat_id, key, data) VALUES (?, ?, ?)",
                              (chat_id, key, json.dumps(keyboard, ensure_ascii=False)))
                    c.execute("DELETE FROM keyboards WHERE chat_id = ? AND key <= ?", (chat_id, key - KEYBOARDS_KEPT))
                if outbox is not None:
                    c.execute("INSERT INTO outbox (chat_id, payload, created, next_try) VALUES (?, ?, ?, ?)",
                              (chat_id, json.dumps(outbox(key), ensure_ascii=False), now, now))
                if update_id is not None:
                    self._mark_seen(c, update_id, now)
                c.execute("COMMIT")
            except BaseException:
                _rollback(c)
                raise
        return key

    # --- the outbox ------------------------------------------------------------------------------------------------
    def outbox(self, chat_id: int) -> list[OutboxItem]:
        """The chat's unsent replies, oldest first."""
        with self._lock:
            rows = self._conn.execute("SELECT id, chat_id, payload, created, attempts, sent_pieces, next_try "
                                      "FROM outbox WHERE chat_id = ? ORDER BY id", (int(chat_id),)).fetchall()
        return [OutboxItem(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], r[6]) for r in rows]

    def chats_due(self, now: float | None = None) -> list[int]:
        """Chats with a reply whose next try is due (all unsent replies, right after a restart)."""
        with self._lock:
            rows = self._conn.execute("SELECT DISTINCT chat_id FROM outbox WHERE next_try <= ? ORDER BY chat_id",
                                      (now if now is not None else time.time(),)).fetchall()
        return [r[0] for r in rows]

    def pending(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]

    def sent_piece(self, item_id: int, pieces: int) -> None:
        self._write("UPDATE outbox SET sent_pieces = ? WHERE id = ?", (pieces, item_id))

    def retry_later(self, item_id: int, when: float, error: str) -> None:
        self._write("UPDATE outbox SET attempts = attempts + 1, next_try = ?, last_error = ? WHERE id = ?",
                    (when, error[:500], item_id))

    def remove(self, item_id: int) -> None:
        """Delivered, or given up on (the caller logs which)."""
        self._write("DELETE FROM outbox WHERE id = ?", (item_id,))

    # --- updates claimed and answered -------------------------------------------------------------------------------
    def claim(self, update_id: int) -> bool:
        """Take an update to answer, in one step (one transaction): True for exactly one caller; False when it was
        answered already or this run is answering it. An update claimed by an earlier run, which died before the
        reply was in the outbox, is taken over: True, and it is answered."""
        update_id, now = int(update_id), time.time()
        with self._lock:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                taken = c.execute("INSERT OR IGNORE INTO updates (update_id, seen, state, run) "
                                  "VALUES (?, ?, 'claimed', ?)", (update_id, now, self.run)).rowcount == 1
                if not taken:
                    taken = c.execute("UPDATE updates SET run = ?, seen = ? WHERE update_id = ? AND state = 'claimed' "
                                      "AND run != ?", (self.run, now, update_id, self.run)).rowcount == 1
                c.execute("COMMIT")
            except BaseException:
                _rollback(c)
                raise
        return taken

    def seen(self, update_id: int) -> bool:
        """The update was answered (its reply queued, or the handler done with it)."""
        with self._lock:
            return self._conn.execute("SELECT 1 FROM updates WHERE update_id = ? AND state = 'answered'",
                                      (int(update_id),)).fetchone() is not None

    def mark_seen(self, update_id: int) -> None:
        with self._lock:
            self._mark_seen(self._conn, update_id, time.time())

    def _mark_seen(self, c: sqlite3.Connection, update_id: int, now: float) -> None:
        c.execute("INSERT INTO updates (update_id, seen, state, run) VALUES (?, ?, 'answered', ?) "
                  "ON CONFLICT(update_id) DO UPDATE SET state = 'answered', seen = excluded.seen",
                  (int(update_id), now, self.run))
        if int(update_id) % 100 == 0:
            c.execute("DELETE FROM updates WHERE seen < ?", (now - UPDATES_KEPT_SECONDS,))

    def _write(self, sql: str, args: tuple) -> None:
        with self._lock:
            self._conn.execute(sql, args)

    def keyboard(self, chat_id: int, key: int) -> dict | None:
        """What a reply's buttons stand for (suggestion texts, GPUs to chart), or None when it has expired."""
        with self._lock:
            row = self._conn.execute("SELECT data FROM keyboards WHERE chat_id = ? AND key = ?",
                                     (int(chat_id), int(key))).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except ValueError:
            return None

    def latest_chart(self, chat_id: int) -> dict | None:
        """The keyboard of the chat's latest reply that has cards to chart, or None."""
        with self._lock:
            rows = self._conn.execute("SELECT data FROM keyboards WHERE chat_id = ? ORDER BY key DESC",
                                      (int(chat_id),)).fetchall()
        for (data,) in rows:
            try:
                kb = json.loads(data)
            except ValueError:
                continue
            if kb.get("c"):
                return kb
        return None

    def chats(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass


def _migrate(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(f"the session store was written by a newer gpu-advisor (schema {version}, this one knows "
                         f"{SCHEMA_VERSION}); upgrade gpu-advisor or point GPU_ADVISOR_DATA_DIR elsewhere")
    for i in range(version, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in (x.strip() for x in MIGRATIONS[i].split(";")):
                if statement:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {i + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        log.info("session store schema migrated to version %d", i + 1)


def _rollback(c: sqlite3.Connection) -> None:
    try:
        c.execute("ROLLBACK")
    except sqlite3.Error:  # the failed statement already ended it: the first error is the one to see
        pass


def _is_not_a_database(e: sqlite3.Error) -> bool:
    name = getattr(e, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(_NOT_A_DATABASE)
    text = str(e).lower()
    return "not a database" in text or "malformed" in text or "quick_check" in text


def _cannot_write(path: Path, cause: str) -> str:
    return (f"the session store {path} cannot be written ({cause}); it was left as it is. Make it writable by the "
            "user the bot runs as (or stop the other process using it, or free disk space), or set "
            "GPU_ADVISOR_DATA_DIR to another directory")


def open_store(data_dir: Path | str, filename: str = DEFAULT_FILENAME) -> SessionStore:
    """The store under the data dir; raises StoreError with a clear message when the dir cannot be written."""
    check_data_dir(data_dir)
    return SessionStore(Path(data_dir) / filename)


def check_data_dir(data_dir: Path | str) -> None:
    """The data dir exists (created if need be) and can be written; else a StoreError that names it."""
    data_dir = Path(data_dir)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"the data directory {data_dir} cannot be created: {e.strerror or e}") from None
    if not data_dir.is_dir():
        raise StoreError(f"the data directory {data_dir} is not a directory")
    probe = data_dir / f".write-test-{threading.get_ident()}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise StoreError(f"the data directory {data_dir} is not writable: {e.strerror or e}") from None
