"""The app's view of its keys against the store: counting, and the /healthz figures."""

from __future__ import annotations

from suggestbot.secret_keys import KeyHealth, check_at_start
from suggestbot.store import MemoryStore, TokenVault, generate_key
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
