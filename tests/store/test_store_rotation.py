"""Moving stored secrets to the newest key, record by record."""

from __future__ import annotations

from pathlib import Path

from suggestbot.store import SqliteStore, TokenVault, generate_key
from suggestbot.store.rotation import KeyUse, census, key_use, rotate


def test_rotation_moves_every_secret_field_and_keeps_the_rest(tmp_path: Path) -> None:
    old, new = generate_key(), generate_key()
    before = TokenVault([old])
    with SqliteStore(tmp_path / "s.sqlite") as store:
        store.put("users", "T1:U1", {"token_enc": before.encrypt("tok-one-1234"), "state": "x"})
        store.put(
            "slack_bots",
            "T:T1",
            {"bot_token_enc": before.encrypt("bot-token-1"), "bot_refresh_token_enc": None},
        )
        store.put("users", "T1:U2", {"note": "no secret here"})
        both = TokenVault([new, old])
        assert census(store=store, vault=both, tables=["users", "slack_bots"]).older == 2

        seen: list[KeyUse] = []
        result = rotate(
            store=store,
            vault=both,
            tables=["users", "slack_bots"],
            progress=lambda table, key, use: seen.append(use),
        )
        assert (result.rotated, result.unreadable) == (2, 0)
        assert seen == [KeyUse.OLDER, KeyUse.NONE, KeyUse.OLDER]
        alone = TokenVault([new])
        user = store.get("users", "T1:U1")
        assert user is not None and user["state"] == "x"
        assert alone.decrypt(user["token_enc"]) == "tok-one-1234"
        bot = store.get("slack_bots", "T:T1")
        assert bot is not None and alone.decrypt(bot["bot_token_enc"]) == "bot-token-1"
        # Run again (after an interruption, say): nothing is left to move.
        assert rotate(store=store, vault=both, tables=["users", "slack_bots"]).rotated == 0


def test_a_secret_no_key_fits_is_left_alone_and_counted(tmp_path: Path) -> None:
    lost, new = TokenVault([generate_key()]), generate_key()
    with SqliteStore(tmp_path / "s.sqlite") as store:
        ciphertext = lost.encrypt("tok-lost-1234")
        store.put("users", "T1:U1", {"token_enc": ciphertext})
        result = rotate(store=store, vault=TokenVault([new]), tables=["users"])
        assert (result.rotated, result.unreadable) == (0, 1)
        assert result.unreadable_records == [("users", "T1:U1")]
        assert store.get("users", "T1:U1") == {"token_enc": ciphertext}


def test_key_use_names_the_worst_field() -> None:
    old, new = generate_key(), generate_key()
    vault = TokenVault([new, old])
    current, older = TokenVault([new]).encrypt("a-secret-1"), TokenVault([old]).encrypt("b-secret")
    unreadable = TokenVault([generate_key()]).encrypt("c-secret")
    assert key_use({"a_enc": current}, vault) is KeyUse.CURRENT
    assert key_use({"a_enc": current, "b_enc": older}, vault) is KeyUse.OLDER
    assert key_use({"a_enc": older, "b_enc": unreadable}, vault) is KeyUse.UNREADABLE
    assert key_use({"a_enc": None, "name": "x"}, vault) is KeyUse.NONE


def test_rotate_keys_also_moves_interactions_kept_for_after_a_crash(tmp_path: Path) -> None:
    from suggestbot.secret_keys import ROTATED_TABLES
    from suggestbot.store import DeliveryLog

    old, new = generate_key(), generate_key()
    with SqliteStore(tmp_path / "s.sqlite") as store:
        deliveries = DeliveryLog(store)
        sealed = TokenVault([old]).seal('{"kind": "event:message", "body": {}}')
        assert deliveries.first_time("event:Ev1", pending=sealed)
        assert deliveries.first_time("event:Ev2")  # nothing kept: nothing to move

        result = rotate(store=store, vault=TokenVault([new, old]), tables=ROTATED_TABLES)

        assert (result.rotated, result.unreadable) == (1, 0)
        [(key, moved)] = deliveries.unfinished()
        assert key == "event:Ev1"
        assert TokenVault([new]).unseal(moved) == '{"kind": "event:message", "body": {}}'
