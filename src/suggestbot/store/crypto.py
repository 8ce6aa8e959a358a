"""Encryption of the secrets the store keeps (user tokens, per-installation credentials).

Tokens are encrypted with Fernet (AES-128-CBC + HMAC-SHA256) under keys from
``SUGGESTBOT_SECRET_KEYS``, so a copied database file gives nothing away. ``MultiFernet`` makes
rotation possible without downtime: put a new key first, keep the old one second until
:meth:`TokenVault.rotate` has re-encrypted what was stored, then drop it.

Every plaintext and every key that passes through here is registered with the log redactor, so
it cannot reach a log line even if some caller formats it by mistake.
"""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from suggestbot.logs import register_secret

_ENV = "SUGGESTBOT_SECRET_KEYS"
_GENERATE_HINT = (
    "generate one with: python -c 'from cryptography.fernet import Fernet; "
    "print(Fernet.generate_key().decode())'"
)


class VaultError(Exception):
    """A secret could not be encrypted or decrypted, or a key is unusable.

    Messages never contain a token, a ciphertext or a key.
    """


class MissingSecretKey(VaultError):
    """No key is configured; the app must not start without one."""


def generate_key() -> str:
    """Return a new random Fernet key as text, ready for ``SUGGESTBOT_SECRET_KEYS``."""
    return Fernet.generate_key().decode("ascii")


class TokenVault:
    """Encrypts and decrypts short secrets with a list of Fernet keys, newest first.

    Args:
        keys: Fernet keys; the first encrypts, every one of them can decrypt.
    """

    def __init__(self, keys: Sequence[str]) -> None:
        if isinstance(keys, str):
            raise TypeError("keys must be a sequence of keys, not one string")
        if not keys:
            raise MissingSecretKey(f"set {_ENV} to one or more Fernet keys, {_GENERATE_HINT}")
        fernets = []
        for position, key in enumerate(keys, start=1):
            try:
                fernets.append(Fernet(key))
            except (ValueError, TypeError):
                # `from None`: the underlying decoding error must not carry the key along.
                raise VaultError(
                    f"key #{position} of {_ENV} is not a Fernet key (32 url-safe base64-encoded "
                    f"bytes); {_GENERATE_HINT}"
                ) from None
            register_secret(key)
        self._fernets = fernets
        self._fernet = MultiFernet(fernets)
        self._key_count = len(fernets)

    @classmethod
    def from_setting(cls, value: str | None) -> TokenVault:
        """Build a vault from the comma-separated ``SUGGESTBOT_SECRET_KEYS`` value.

        Raises:
            MissingSecretKey: the setting is unset or holds no key.
            VaultError: one of the keys is malformed.
        """
        keys = [part.strip() for part in (value or "").split(",") if part.strip()]
        return cls(keys)

    def __repr__(self) -> str:
        return f"TokenVault(keys={self._key_count})"

    def encrypt(self, plaintext: str) -> str:
        """Encrypt ``plaintext`` under the newest key; the result is ASCII text."""
        register_secret(plaintext)
        return self._fernet.encrypt(plaintext.encode("utf-8")).decode("ascii")

    def decrypt(self, ciphertext: str) -> str:
        """Decrypt with whichever configured key fits.

        Raises:
            VaultError: no configured key fits, or the ciphertext is damaged.
        """
        try:
            plaintext = self._fernet.decrypt(ciphertext.encode("utf-8")).decode("utf-8")
        except (InvalidToken, UnicodeDecodeError):
            raise VaultError(self._undecryptable()) from None
        register_secret(plaintext)
        return plaintext

    def seal(self, plaintext: str) -> str:
        """Encrypt a whole record that may hold secrets among other data (a Slack delivery
        kept until its work is done). Unlike :meth:`encrypt`, the text is not registered for
        log redaction: it is no secret itself, and registering every record would grow the
        redaction pattern without end."""
        return self._fernet.encrypt(plaintext.encode("utf-8")).decode("ascii")

    def unseal(self, ciphertext: str) -> str:
        """Decrypt what :meth:`seal` made.

        Raises:
            VaultError: no configured key fits, or the ciphertext is damaged.
        """
        try:
            return self._fernet.decrypt(ciphertext.encode("utf-8")).decode("utf-8")
        except (InvalidToken, UnicodeDecodeError):
            raise VaultError(self._undecryptable()) from None

    def rotate(self, ciphertext: str) -> str:
        """Re-encrypt ``ciphertext`` under the newest key (it may have used an older one).

        Raises:
            VaultError: no configured key fits, or the ciphertext is damaged.
        """
        try:
            return self._fernet.rotate(ciphertext.encode("utf-8")).decode("ascii")
        except InvalidToken:
            raise VaultError(self._undecryptable()) from None

    def key_position(self, ciphertext: str) -> int | None:
        """Which configured key decrypts ``ciphertext``: 0 the newest, 1 the next…, None none.

        Fernet tokens do not name their key, so each is tried in turn; this is for counting
        and rotating records, not for every read.
        """
        token = ciphertext.encode("utf-8")
        for position, fernet in enumerate(self._fernets):
            try:
                fernet.decrypt(token)
            except InvalidToken:
                continue
            return position
        return None

    @staticmethod
    def _undecryptable() -> str:
        return (
            f"a stored secret cannot be decrypted with the keys in {_ENV}: it was encrypted "
            "with a key that is no longer listed, or it is damaged"
        )
