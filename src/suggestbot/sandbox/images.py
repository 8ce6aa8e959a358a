"""Real PNG images drawn locally, and the signed short-lived URLs that serve them.

Each image is a grid of colour blocks with a band and a frame, all derived from a digest of the
image id, so two suggestions never look alike. Only the standard library is used (zlib and
struct write the PNG).

A signed URL carries ``expires`` (Unix milliseconds) and ``sig``, an HMAC over the reference and the
expiry under a key that lives only in memory: restarting the sandbox invalidates old URLs, but
never the references, which do not expire.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
import zlib
from datetime import datetime, timedelta
from functools import lru_cache
from urllib.parse import urlencode

URL_VALIDITY = timedelta(minutes=15)
WIDTH, HEIGHT = 480, 270
_COLS, _ROWS = 8, 4


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _palette(digest: bytes) -> list[bytes]:
    colours = []
    for i in range(0, 30, 3):
        r, g, b = digest[i], digest[i + 1], digest[i + 2]
        colours.append(bytes((r, g, b)))
    return colours


@lru_cache(maxsize=256)
def render_png(image_id: str) -> bytes:
    """The PNG for ``image_id``; deterministic, so it can be drawn again after a restart."""
    digest = (
        hashlib.sha256(image_id.encode()).digest()
        + hashlib.sha256(b"2" + image_id.encode()).digest()
    )
    palette = _palette(digest)
    cell_w, cell_h = WIDTH // _COLS, HEIGHT // _ROWS
    frame = palette[9]
    band_top = HEIGHT // 3 + digest[40] % (HEIGHT // 3)
    band = palette[8]
    rows = []
    for row in range(_ROWS):
        cells = [palette[digest[32 + (row * _COLS + col) % 32] % 8] for col in range(_COLS)]
        line = frame * 6 + b"".join(c * cell_w for c in cells)[: (WIDTH - 12) * 3] + frame * 6
        rows.append(line)
    raw = bytearray()
    for y in range(HEIGHT):
        if y < 6 or y >= HEIGHT - 6:
            line = frame * WIDTH
        elif band_top <= y < band_top + 18:
            line = frame * 6 + band * (WIDTH - 12) + frame * 6
        else:
            line = rows[min(y // cell_h, _ROWS - 1)]
        raw += b"\x00" + line
    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(raw), 6))
        + _chunk(b"IEND", b"")
    )


def image_handle(ref: str) -> str:
    """The key of the image behind ``ref`` and its name in signed URLs (hex, path-safe)."""
    return hashlib.sha256(ref.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class UrlSigner:
    """Mints and checks signed image URLs (HMAC-SHA256 over reference and expiry)."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def __repr__(self) -> str:
        return "UrlSigner()"

    def _signature(self, ref: str, expires: int) -> str:
        message = f"{ref}\n{expires}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def mint(self, *, base_url: str, ref: str, now: datetime) -> tuple[str, datetime]:
        """A URL for ``ref`` and the moment it stops working (15 minutes from ``now``).

        Every caller (expanded reads, ``POST /v1/assets/urls``) mints here, so the path always
        names the image by its handle: a reference holds ``/`` and ``=`` and cannot be a path."""
        image_id = image_handle(ref)
        expires_at = now + URL_VALIDITY
        expires_at = expires_at.replace(microsecond=expires_at.microsecond // 1000 * 1000)
        expires = round(expires_at.timestamp() * 1000)
        query = urlencode({"expires": expires, "sig": self._signature(ref, expires)})
        return f"{base_url.rstrip('/')}/images/{image_id}.png?{query}", expires_at

    def check(self, *, ref: str, expires: str, sig: str, now: datetime) -> bool:
        """True if the signature matches and the URL has not expired."""
        if not expires.isdigit():
            return False
        expected = self._signature(ref, int(expires))
        if not hmac.compare_digest(expected, sig):
            return False
        return now.timestamp() * 1000 < int(expires)
