"""TokenVault: encryption of stored tokens, key rotation, operator-facing errors."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from suggestbot.logs import redact
from suggestbot.store import (
    MissingSecretKey,
    SqliteStore,
    TokenVault,
    VaultError,
    generate_key,
)


def user_token() -> str:
    return f"sbx_ut_{secrets.token_urlsafe(24)}"


def test_encrypt_then_decrypt_returns_the_token() -> None:
    vault = TokenVault([generate_key()])
    token = user_token()
    ciphertext = vault.encrypt(token)
    assert token not in ciphertext
    assert vault.decrypt(ciphertext) == token
    assert vault.encrypt(token) != ciphertext  # random IV: equal tokens do not look equal


def test_generated_key_is_a_usable_fernet_key() -> None:
    key = generate_key()
    assert isinstance(key, str)
    assert Fernet(key).decrypt(Fernet(key).encrypt(b"x")) == b"x"
    assert generate_key() != key


def test_old_key_listed_second_still_decrypts() -> None:
    old, new = generate_key(), generate_key()
    token = user_token()
    stored = TokenVault([old]).encrypt(token)
    rotated_vault = TokenVault([new, old])
    assert rotated_vault.decrypt(stored) == token
    # New writes use the new key only.
    assert TokenVault([new]).decrypt(rotated_vault.encrypt(token)) == token


def test_rotate_reencrypts_under_the_newest_key() -> None:
    old, new = generate_key(), generate_key()
    token = user_token()
    stored = TokenVault([old]).encrypt(token)
    rotated = TokenVault([new, old]).rotate(stored)
    assert TokenVault([new]).decrypt(rotated) == token
    with pytest.raises(VaultError):
        TokenVault([old]).decrypt(rotated)


def test_removed_key_gives_vault_error_without_the_secret() -> None:
    old, new = generate_key(), generate_key()
    token = user_token()
    stored = TokenVault([old]).encrypt(token)
    vault = TokenVault([new])
    for operation in (vault.decrypt, vault.rotate):
        with pytest.raises(VaultError, match="SUGGESTBOT_SECRET_KEYS") as caught:
            operation(stored)
        message = str(caught.value)
        assert token not in message and stored not in message and old not in message
        assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_damaged_ciphertext_gives_vault_error() -> None:
    vault = TokenVault([generate_key()])
    for damaged in ["", "not a token", "é-not-ascii", vault.encrypt("abcdefgh")[:-4]]:
        with pytest.raises(VaultError):
            vault.decrypt(damaged)


@pytest.mark.parametrize("setting", [None, "", "  ", " , ,"])
def test_missing_key_tells_the_operator_what_to_do(setting: str | None) -> None:
    with pytest.raises(MissingSecretKey) as caught:
        TokenVault.from_setting(setting)
    message = str(caught.value)
    assert "set SUGGESTBOT_SECRET_KEYS to one or more Fernet keys" in message
    assert "Fernet.generate_key().decode()" in message


def test_from_setting_parses_comma_separated_keys_newest_first() -> None:
    old, new = generate_key(), generate_key()
    token = user_token()
    stored_old = TokenVault([old]).encrypt(token)
    vault = TokenVault.from_setting(f" {new} ,{old},")
    assert vault.decrypt(stored_old) == token
    assert TokenVault([new]).decrypt(vault.encrypt(token)) == token


def test_malformed_key_is_rejected_without_echoing_it() -> None:
    bad = "not-a-fernet-key-but-long-enough"
    with pytest.raises(VaultError, match="key #2") as caught:
        TokenVault.from_setting(f"{generate_key()},{bad}")
    assert bad not in str(caught.value)
    assert not isinstance(caught.value, MissingSecretKey)


def test_repr_never_shows_keys() -> None:
    key = generate_key()
    vault = TokenVault([key, generate_key()])
    assert key not in repr(vault)
    assert repr(vault) == "TokenVault(keys=2)"


def test_keys_and_tokens_seen_by_the_vault_are_redacted_from_logs() -> None:
    key = generate_key()
    vault = TokenVault([key])
    token = f"personal-{secrets.token_hex(12)}"  # a shape no pattern knows
    vault.decrypt(vault.encrypt(token))
    assert redact(f"leaked {token} and {key}") == "leaked [redacted] and [redacted]"


def test_database_file_holds_no_plaintext_token(tmp_path: Path) -> None:
    vault = TokenVault([generate_key()])
    token = user_token()
    db = tmp_path / "s.sqlite"
    with SqliteStore(db) as store:
        store.put("users", "U1", {"token": vault.encrypt(token), "team": "T1"})
    raw = db.read_bytes()
    assert b"T1" in raw  # the record is there ...
    assert token.encode() not in raw  # ... but the token only encrypted
    with SqliteStore(db) as store:
        record = store.get("users", "U1")
    assert record is not None
    assert vault.decrypt(record["token"]) == token
