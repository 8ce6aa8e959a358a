"""A damaged, truncated, empty or missing state file is noticed at start; backups are
consistent copies of a live store."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from suggestbot.store import SqliteStore, StoreDamaged, backup, generate_key
from suggestbot.store.integrity import marker_path


def filled(path: Path, *, rows: int = 400) -> Path:
    """A state file of many pages, closed."""
    with SqliteStore(path) as store:
        store.put_many("requests", {f"r{n:04d}": {"text": "x" * 200, "n": n} for n in range(rows)})
    return path


def test_garbage_in_the_middle_refuses_to_open_and_says_what_to_do(tmp_path: Path) -> None:
    path = filled(tmp_path / "suggestbot.sqlite")
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek(size // 2)
        f.write(os.urandom(4096))
    with pytest.raises(StoreDamaged) as caught:
        SqliteStore(path)
    message = str(caught.value)
    assert "damaged" in message and "suggestbot backup" in message
    assert "move the damaged file aside" in message


def test_a_truncated_file_refuses_to_open(tmp_path: Path) -> None:
    path = filled(tmp_path / "suggestbot.sqlite")
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 3)
    with pytest.raises(StoreDamaged, match="restore it from a backup"):
        SqliteStore(path)


# Writes part of a big transaction into the file (a one-page cache spills it) and dies by
# SIGKILL before committing: the store's write-ahead log is left holding uncommitted pages, as
# after a real crash.
_DIE_MID_TRANSACTION = textwrap.dedent(
    """
    import os, signal, sqlite3, sys
    conn = sqlite3.connect(sys.argv[1])
    conn.execute("PRAGMA cache_size=1")
    conn.execute("BEGIN")
    for n in range(2000):
        conn.execute(
            'REPLACE INTO "requests" (key, value) VALUES (?, ?)', (f"r{n:04d}", '{"n": -1}')
        )
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_a_crash_mid_transaction_is_not_called_damage(tmp_path: Path) -> None:
    path = filled(tmp_path / "suggestbot.sqlite")
    died = subprocess.run([sys.executable, "-c", _DIE_MID_TRANSACTION, str(path)], check=False)
    assert died.returncode == -signal.SIGKILL
    assert path.with_name(path.name + "-wal").stat().st_size > 0  # uncommitted pages left
    with SqliteStore(path) as store:  # rolled back, not refused
        records = store.items("requests")
    assert len(records) == 400 and all(r["n"] >= 0 for _, r in records)


@pytest.mark.parametrize("how", ["empty", "missing"])
def test_state_gone_where_it_existed_is_a_loud_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    path = filled(tmp_path / "suggestbot.sqlite")
    assert marker_path(path).exists()
    if how == "empty":
        path.write_bytes(b"")
    else:
        path.unlink()
    with caplog.at_level(logging.WARNING, logger="suggestbot.store"), SqliteStore(path) as store:
        assert store.items("requests") == []
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    text = warnings[0].getMessage()
    assert ("empty (0 bytes)" if how == "empty" else "missing") in text
    assert "held state before" in text and "restore the file from a backup" in text


def test_a_first_start_is_quiet(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), SqliteStore(tmp_path / "s.sqlite") as store:
        store.put("users", "U1", {})
    with caplog.at_level(logging.WARNING), SqliteStore(tmp_path / "s.sqlite") as store:
        assert store.get("users", "U1") == {}
    assert caplog.records == []


def test_backup_of_a_live_store_is_one_consistent_state(tmp_path: Path) -> None:
    # A writer keeps adding numbered batches while the backup runs: the copy must hold whole
    # batches 0..k and nothing else, i.e. one state the live store really was in.
    path = tmp_path / "suggestbot.sqlite"
    stop = threading.Event()
    with SqliteStore(path) as store:
        store.put("batches", "0000", {"n": 0})

        def write() -> None:
            n = 1
            while not stop.is_set():
                store.put_many("batches", {f"{n:04d}": {"n": n}})
                store.put_many("items", {f"{n:04d}-{i}": {"n": n} for i in range(5)})
                n += 1

        writer = threading.Thread(target=write)
        writer.start()
        try:
            copies = [backup(source=path, target=tmp_path / f"copy{i}.sqlite") for i in range(3)]
        finally:
            stop.set()
            writer.join()
        live = {table: store.items(table) for table in ("batches", "items")}
    for copy in copies:
        assert oct(copy.stat().st_mode & 0o777) == oct(0o600)
        with SqliteStore(copy) as restored:
            batches = [record["n"] for _, record in restored.items("batches")]
            assert batches == list(range(len(batches)))
            items = restored.items("items")
            # Batch k's five items are written right after its record (batch 0 has none): the
            # copy may have caught the newest batch without its items, never half of them.
            newest = len(batches) - 1
            assert len(items) in (5 * max(newest - 1, 0), 5 * newest)
            for table, rows in live.items():
                assert restored.items(table) == rows[: len(restored.items(table))]


def test_serve_refuses_a_damaged_state_file(tmp_path: Path) -> None:
    path = filled(tmp_path / "suggestbot.sqlite")
    with open(path, "r+b") as f:
        f.seek(path.stat().st_size // 2)
        f.write(b"\x00garbage" * 512)
    env = {
        **os.environ,
        "SUGGESTBOT_DATA_DIR": str(tmp_path),
        "SUGGESTBOT_SECRET_KEYS": generate_key(),
        "SLACK_BOT_TOKEN": "xoxb-1-2-abc",
        "SLACK_SIGNING_SECRET": "not-used-here",
        "CONTENT_API_URL": "http://127.0.0.1:9",
        "CONTENT_CLIENT_ID": "id",
        "CONTENT_CLIENT_SECRET": "secret",
    }
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "serve", "--port", "0"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "cannot start" in done.stderr and "is damaged" in done.stderr
    assert "suggestbot backup" in done.stderr and "Traceback" not in done.stderr


def test_backup_command_refuses_when_there_is_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "SUGGESTBOT_DATA_DIR": str(tmp_path / "none")}
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "backup", str(tmp_path / "b.sqlite")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "no state to back up" in done.stderr
    assert not (tmp_path / "b.sqlite").exists()
