"""A brief recorded before the ack is recorded whole, with its held send, or not at all: the
listener tells the user "nothing was recorded, send it again" when the store fails, so a
brief left behind would be sent by recovery and then, sent again, posted twice."""

from __future__ import annotations

import pytest
from flows_helpers import record_brief, world

from suggestbot.store import MemoryStore, StoreUnavailable
from suggestbot.store.codec import Record


def test_a_brief_whose_send_could_not_be_held_is_not_recorded_either() -> None:
    w = world()

    def store_gone(request_id: str) -> None:
        raise StoreUnavailable("PostgreSQL cannot be reached")

    w.timers.hold_send = store_gone  # type: ignore[method-assign]

    with pytest.raises(StoreUnavailable):
        record_brief(w)

    assert list(w.deps.records.requests.values()) == []


class RequestsRefused(MemoryStore):
    """The store goes away for the brief's own write."""

    def put(self, table: str, key: str, value: Record) -> None:
        if table == "requests":
            raise StoreUnavailable("PostgreSQL cannot be reached")
        super().put(table, key, value)


def test_a_brief_that_could_not_be_written_lets_its_held_send_go() -> None:
    w = world(store=RequestsRefused())

    with pytest.raises(StoreUnavailable):
        record_brief(w)

    assert w.timers.held == []  # not renewed for ever, nor sent: there is nothing to send
    assert list(w.deps.records.requests.values()) == []
