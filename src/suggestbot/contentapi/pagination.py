"""Cursor paging as the contract defines it.

``meta.next_cursor`` being null is the only end signal: a page shorter than ``limit`` (even an
empty one) is not the end. The cursor records a position, not a snapshot, so an item written while
paging can show up twice; items are de-duplicated by ``id``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from suggestbot.contentapi.checks import MAX_PAGE_LIMIT

logger = logging.getLogger(__name__)


class HasId(Protocol):
    """Anything listed by the service: it has a string ``id``."""

    @property
    def id(self) -> str:
        """The item's id, by which pages are de-duplicated."""


T = TypeVar("T", bound=HasId)


def check_limit(limit: int | None) -> None:
    """Reject a page size the service would refuse (it does not clamp), before sending.

    Raises:
        ValueError: ``limit`` below 1 or above 100.
    """
    if limit is not None and not 1 <= limit <= MAX_PAGE_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE_LIMIT}, got {limit}")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing. Keep ``next_cursor`` to ask for the following page."""

    items: list[T]
    next_cursor: str | None

    @property
    def has_more(self) -> bool:
        """The service gave a cursor for a next page."""
        return self.next_cursor is not None


class CursorPaginator(Generic[T]):
    """Iterates a listing across pages, yielding each ``id`` once.

    Nothing is fetched until iteration starts; each iteration starts again from the first page.
    """

    def __init__(self, fetch_page: Callable[[str | None], Page[T]]) -> None:
        self._fetch_page = fetch_page

    def pages(self) -> Iterator[Page[T]]:
        """Pages as the service returns them, until ``next_cursor`` is null."""
        cursor: str | None = None
        used: set[str] = set()
        while True:
            page = self._fetch_page(cursor)
            yield page
            if page.next_cursor is None:
                return
            if page.next_cursor in used:
                # A cursor that does not move would repeat the same page forever.
                logger.warning("Listing returned a cursor it had already returned; stopping")
                return
            used.add(page.next_cursor)
            cursor = page.next_cursor

    def __iter__(self) -> Iterator[T]:
        seen: set[str] = set()
        for page in self.pages():
            for item in page.items:
                if item.id not in seen:
                    seen.add(item.id)
                    yield item
