"""``suggestbot db upgrade`` and ``suggestbot db migrate-from-sqlite PATH``, as an operator runs
them: configured by the environment, answering in plain words."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from suggestbot.cli import main
from suggestbot.store import SqliteStore, TokenVault, generate_key
from suggestbot.store.postgres import PostgresStore
from suggestbot.store.sqlite import DB_FILENAME

KEYS = generate_key()


@pytest.fixture(autouse=True)
def _logging_put_back() -> Iterator[None]:
    """The commands configure logging for their process; here that process is the test run,
    so the root logger is put back afterwards (its handler would write to a closed capture)."""
    root, alembic = logging.getLogger(), logging.getLogger("alembic")
    handlers, level, alembic_level = list(root.handlers), root.level, alembic.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)
    alembic.setLevel(alembic_level)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A single-process install's state: several tables, a sealed token among them."""
    vault = TokenVault.from_setting(KEYS)
    data = tmp_path / "data"
    data.mkdir()
    with SqliteStore(data / DB_FILENAME) as store:
        store.put(
            "users",
            "T1:U1",
            {"team_id": "T1", "user_id": "U1", "state": "linked", "token_enc": vault.seal("tok")},
        )
        store.put_many("requests", {f"r{n}": {"team_id": "T1", "state": "done"} for n in range(7)})
        store.put("digests", "d1", {"team_id": "T1", "channel_id": "C1", "time": "08:00"})
        store.put("thread_bindings", "C1:1.0", {"thread_id": "th_1"})
    return data


def _run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, url: str, *argv: str
) -> tuple[int, str, str]:
    monkeypatch.setenv("SUGGESTBOT_DATABASE_URL", url)
    code = main(["db", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_upgrade_creates_the_schema_once(
    empty_postgres_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = _run(capsys, monkeypatch, empty_postgres_url, "upgrade")
    assert code == 0
    assert out.strip() == "upgraded the schema from revision (none) to 0005"
    code, out, _ = _run(capsys, monkeypatch, empty_postgres_url, "upgrade")
    assert (code, out.strip()) == (0, "the schema is up to date (revision 0005)")
    PostgresStore(empty_postgres_url).close()  # the schema check now passes


def test_without_a_database_url_the_command_says_what_to_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SUGGESTBOT_DATABASE_URL", raising=False)
    monkeypatch.chdir(Path(__file__).parent)  # no .env here
    assert main(["db", "upgrade"]) == 2
    assert "set SUGGESTBOT_DATABASE_URL=postgresql://" in capsys.readouterr().err


def test_migrate_copies_every_table_sealed_and_a_second_run_changes_nothing(
    postgres_url: str,
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = _run(capsys, monkeypatch, postgres_url, "migrate-from-sqlite", str(data_dir))
    assert (code, err) == (0, "")
    lines = [" ".join(line.split()) for line in out.strip().splitlines()]
    assert lines[:-1] == [
        "digests 1 record(s): 1 copied, 0 already there",
        "requests 7 record(s): 7 copied, 0 already there",
        "thread_bindings 1 record(s): 1 copied, 0 already there",
        "users 1 record(s): 1 copied, 0 already there",
    ]
    assert lines[-1] == f"4 table(s) from {data_dir / DB_FILENAME}: 10 record(s) copied"

    with SqliteStore(data_dir / DB_FILENAME) as source, PostgresStore(postgres_url) as target:
        for table in ("users", "requests", "digests", "thread_bindings"):
            assert target.items(table) == source.items(table)
        user = target.get("users", "T1:U1")
        # Still sealed, and the same key opens it.
        assert user is not None and "tok" not in user["token_enc"]
        assert TokenVault.from_setting(KEYS).unseal(user["token_enc"]) == "tok"
        # Changed in PostgreSQL after the copy: a second run must not put the old one back.
        target.put("digests", "d1", {"team_id": "T1", "channel_id": "C1", "time": "09:00"})

    code, out, _ = _run(
        capsys, monkeypatch, postgres_url, "migrate-from-sqlite", str(data_dir / DB_FILENAME)
    )
    assert code == 0
    assert "requests 7 record(s): 0 copied, 7 already there" in " ".join(out.split())
    assert out.strip().endswith(": 0 record(s) copied")
    with PostgresStore(postgres_url) as target:
        assert target.get("digests", "d1") == {"team_id": "T1", "channel_id": "C1", "time": "09:00"}


def test_migrate_refuses_a_database_whose_schema_is_behind(
    empty_postgres_url: str,
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = _run(
        capsys, monkeypatch, empty_postgres_url, "migrate-from-sqlite", str(data_dir)
    )
    assert code == 2 and out == ""
    assert "run `suggestbot db upgrade`" in err


def test_migrate_of_a_missing_file_says_so(
    postgres_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = _run(capsys, monkeypatch, postgres_url, "migrate-from-sqlite", str(tmp_path))
    assert code == 2
    assert f"no SQLite state file at {tmp_path / DB_FILENAME}" in err
    assert "postgresql://" not in err


def test_rotate_keys_follows_the_database_url(
    postgres_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    new_key = generate_key()
    with PostgresStore(postgres_url) as store:
        store.put(
            "users",
            "T1:U1",
            {"team_id": "T1", "user_id": "U1", "linked_at": 1.0, "token_enc": _sealed("tok")},
        )
    monkeypatch.setenv("SUGGESTBOT_SECRET_KEYS", f"{new_key},{KEYS}")
    monkeypatch.setenv("SUGGESTBOT_DATABASE_URL", postgres_url)
    assert main(["rotate-keys"]) == 0
    assert "re-encrypted 1 record(s) under the first key" in capsys.readouterr().out
    with PostgresStore(postgres_url) as store:
        user = store.get("users", "T1:U1") or {}
    assert TokenVault.from_setting(new_key).unseal(user["token_enc"]) == "tok"


def _sealed(secret: str) -> str:
    return TokenVault.from_setting(KEYS).seal(secret)
