"""Cursor paging, newest first.

A cursor records the position of the last item returned (its sort key), not a snapshot, as the
contract says; it is opaque to clients (base64 of a small JSON object) and names its listing so
a cursor from one listing is refused by another.
"""

from __future__ import annotations

import base64
import binascii
import json
from bisect import bisect_left
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from suggestbot.sandbox.errors import ApiError, validation_failed

T = TypeVar("T")
SortKey = tuple[datetime, str]


def _encode(listing: str, key: SortKey) -> str:
    raw = json.dumps({"l": listing, "t": key[0].isoformat(), "i": key[1]}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode(listing: str, cursor: str) -> SortKey:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        if data["l"] != listing:
            raise ValueError("cursor of another listing")
        return datetime.fromisoformat(data["t"]), str(data["i"])
    except (ValueError, KeyError, TypeError, UnicodeError, binascii.Error) as exc:
        raise _bad_cursor() from exc


def _bad_cursor() -> ApiError:
    return validation_failed(
        [{"loc": ["query", "cursor"], "msg": "Invalid cursor", "type": "cursor_invalid"}]
    )


def page(
    items: Sequence[T],
    *,
    key: Callable[[T], SortKey],
    listing: str,
    cursor: str | None,
    limit: int,
    short_pages: int = 0,
    overlap: int = 0,
) -> tuple[list[T], str | None]:
    """One page of ``items`` (any order) sorted newest first, and the next cursor or None.

    With ``overlap`` the next page repeats that many items of this one (never all of them, so
    paging always moves on).
    """
    by_key = {key(item): item for item in items}
    keys, cursor = page_of_keys(
        sorted(by_key),
        listing=listing,
        cursor=cursor,
        limit=limit,
        short_pages=short_pages,
        overlap=overlap,
    )
    return [by_key[k] for k in keys], cursor


def page_of_keys(
    keys: Sequence[SortKey],
    *,
    listing: str,
    cursor: str | None,
    limit: int,
    short_pages: int = 0,
    overlap: int = 0,
) -> tuple[list[SortKey], str | None]:
    """One page, newest first, of ``keys`` kept in ascending order (oldest first), found by
    bisection: a listing that keeps its order costs one page, not a sort of every item."""
    end = len(keys) if cursor is None else bisect_left(keys, _decode(listing, cursor))
    size = min(limit, short_pages) if short_pages else limit
    chunk = list(reversed(keys[max(0, end - size) : end]))
    more = end > size
    if chunk and (more or short_pages):
        back = min(overlap, len(chunk) - 1)
        return chunk, _encode(listing, chunk[-1 - back])
    return chunk, None
