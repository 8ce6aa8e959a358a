"""The app's view of its keys against the store: counting, and the /healthz figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from suggestbot.secret_keys import KeyHealth, check_at_start
from suggestbot.store import MemoryStore, TokenVault, generate_key, open_store
from suggestbot.store.rotation import rotate


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_health_counts_again_after_its_ttl_and_sees_a_rotation_finish() -> None:
    old, new = generate_key(), generate_key()
    store = MemoryStore()
    for user in ("U1", "U2"):
        token_enc = TokenVault([old]).encrypt(f"token-of-{user}")
        store.put(
            "users",
            f"T1:{user}",
            {"team_id": "T1", "user_id": user, "linked_at": 1.0, "token_enc": token_enc},
        )
    vault, clock = TokenVault([new, old]), Clock()
    health = KeyHealth(store=store, vault=vault, ttl_s=60.0, clock=clock)
    health.record(check_at_start(store=store, vault=vault))
    assert health.status() == {"unreadable": 0, "older_key": 2}

    rotate(store=store, vault=vault, tables=["users"])
    clock.now += 59.0
    assert health.status()["older_key"] == 2  # the count is reused within its ttl...
    clock.now += 1.0
    assert health.status() == {"unreadable": 0, "older_key": 0}  # ...then taken again


def test_users_whose_token_no_key_decrypts_are_expired_once() -> None:
    store = MemoryStore()
    lost = TokenVault([generate_key()]).encrypt("token-nobody-can-read")
    store.put(
        "users", "T1:U1", {"team_id": "T1", "user_id": "U1", "linked_at": 1.0, "token_enc": lost}
    )
    vault = TokenVault([generate_key()])
    found = check_at_start(store=store, vault=vault, clock=lambda: 50.0)
    assert found.unreadable == 1
    user = store.get("users", "T1:U1")
    assert user is not None
    assert (user["state"], user["expired_reason"], user["expired_at"]) == (
        "expired",
        "unreadable",
        50.0,
    )
    check_at_start(store=store, vault=vault, clock=lambda: 99.0)  # a later start
    assert (store.get("users", "T1:U1") or {})["expired_at"] == 50.0


def test_rotate_keys_reports_unreadable_records_and_changes_nothing_of_them(
    tmp_path: Path,
) -> None:
    lost = TokenVault([generate_key()]).encrypt("token-under-a-lost-key")
    record = {"team_id": "T1", "user_id": "U1", "linked_at": 1.0, "token_enc": lost}
    with open_store(tmp_path) as store:
        store.put("users", "T1:U1", record)
    env = {
        **os.environ,
        "SUGGESTBOT_SECRET_KEYS": generate_key(),  # not the key it was written with
        "SUGGESTBOT_DATA_DIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "rotate-keys"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "1 record(s) (users) cannot be decrypted" in done.stderr
    assert "token-under-a-lost-key" not in done.stdout + done.stderr
    with open_store(tmp_path) as store:
        assert store.get("users", "T1:U1") == record  # the app decides, with its own keys
