"""What only the SQLite backend promises: durability, JSON on disk, one file."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from sqlitedict import SqliteDict

from suggestbot.store import SqliteStore, open_store

# The child writes, then dies by SIGKILL without closing or committing anything itself.
_WRITE_THEN_DIE = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from suggestbot.store import SqliteStore

    store = SqliteStore(Path(sys.argv[1]))
    store.put("runs", "r1", {"state": "succeeded", "variants": [1, 2, 3]})
    store.put_if_absent("intents", "post:r1", {"posted": False})
    store.update("runs", "r2", lambda old: {"state": "queued"})
    store.put("runs", "gone", {"x": 1})
    store.delete("runs", "gone")
    store.put_many("runs", {"m1": {"n": 1}, "m2": {"n": 2}})
    store.put_many_if_absent("intents", {"post:r1": {"posted": True}, "post:r2": {"posted": False}})
    store.update_many("runs", {"m1": lambda old: None, "m3": lambda old: {"n": 3}})
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_writes_survive_sigkill_right_after(tmp_path: Path) -> None:
    db = tmp_path / "suggestbot.sqlite"
    child = subprocess.run(
        [sys.executable, "-c", _WRITE_THEN_DIE, str(db)], capture_output=True, timeout=60
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    with SqliteStore(db) as store:
        assert store.get("runs", "r1") == {"state": "succeeded", "variants": [1, 2, 3]}
        assert store.get("intents", "post:r1") == {"posted": False}
        assert store.get("runs", "r2") == {"state": "queued"}
        assert store.get("runs", "gone") is None
        assert store.get("runs", "m1") is None
        assert (store.get("runs", "m2"), store.get("runs", "m3")) == ({"n": 2}, {"n": 3})
        assert store.get("intents", "post:r2") == {"posted": False}


def test_data_persists_across_reopen(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    with SqliteStore(db) as store:
        store.put("users", "U1", {"linked": True})
    with SqliteStore(db) as store:
        assert store.items("users") == [("U1", {"linked": True})]


def test_file_holds_json_text_not_pickle(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    record = {"name": "Zoë", "n": [1, 2]}
    with SqliteStore(db) as store:
        store.put("users", "U1", record)
    with sqlite3.connect(db) as conn:
        rows = conn.execute('SELECT key, value, typeof(value) FROM "users"').fetchall()
    conn.close()
    assert len(rows) == 1
    key, value, kind = rows[0]
    assert (key, kind) == ("U1", "text")
    assert json.loads(value) == record


def test_one_sqlite_table_per_named_table(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    with SqliteStore(db) as store:
        store.put("users", "a", {})
        store.put("watched_runs", "b", {})
        store.get("thread_bindings", "c")
    with sqlite3.connect(db) as conn:
        names = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
    conn.close()
    assert names == {"users", "watched_runs", "thread_bindings"}
    # One database file (no WAL or journal left behind), and the marker that it held state.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite", "s.sqlite.had-state"]


def test_open_store_creates_private_data_dir_and_file(tmp_path: Path) -> None:
    data_dir = tmp_path / "data" / "nested"
    with open_store(data_dir) as store:
        store.put("users", "U1", {"a": 1})
        assert store.path == data_dir / "suggestbot.sqlite"
    mode = stat.S_IMODE(os.stat(data_dir / "suggestbot.sqlite").st_mode)
    assert mode & 0o077 == 0, oct(mode)


def test_a_file_that_is_not_a_database_fails_at_open(tmp_path: Path) -> None:
    bogus = tmp_path / "s.sqlite"
    bogus.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(sqlite3.DatabaseError):
        SqliteStore(bogus)


def test_a_batch_is_one_commit_however_many_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commits: list[str] = []
    real_commit = SqliteDict.commit

    def counted(self: SqliteDict, blocking: bool = True) -> None:
        commits.append(self.tablename)
        real_commit(self, blocking)

    with SqliteStore(tmp_path / "s.sqlite") as store:
        store.put("runs", "old", {"n": 0})
        store.get("intents", "i0")  # opening a table commits once too
        monkeypatch.setattr(SqliteDict, "commit", counted)
        store.put_many("runs", {f"r{n}": {"n": n} for n in range(100)})
        assert store.put_many_if_absent("intents", {f"i{n}": {} for n in range(100)})
        store.update_many("runs", {f"r{n}": lambda old: None for n in range(50)})
        assert store.put_many_if_absent("intents", {"i1": {}}) == []  # nothing to write
        assert commits == ["runs", "intents", "runs"]
        assert len(store.items("runs")) == 51


def test_updates_from_two_handles_on_one_file_lose_nothing(tmp_path: Path) -> None:
    # Two handles are what the app and a `suggestbot rotate-keys` beside it are: each one's
    # lock covers only its own threads, so the file itself must serialise read-modify-write.
    path = tmp_path / "s.sqlite"
    with SqliteStore(path) as first, SqliteStore(path) as second:
        first.put("users", "U1", {"count": 0})

        def bump(store: SqliteStore) -> None:
            for _ in range(40):
                store.update("users", "U1", lambda old: {"count": (old or {})["count"] + 1})

        workers = [threading.Thread(target=bump, args=(store,)) for store in (first, second) * 2]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert first.get("users", "U1") == {"count": 160}
