"""OAuth states are signed with SLACK_STATE_SECRET, expire, and work once."""

from __future__ import annotations

import pytest

from suggestbot.installations.state import SignedStateStore
from suggestbot.store import MemoryStore
from suggestbot.store.records import Records


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


def _states(store: MemoryStore, clock: Clock, secret: str = "state-secret") -> SignedStateStore:
    return SignedStateStore(store, secret=secret, expiration_seconds=600, clock=clock)


def test_an_issued_state_is_consumed_exactly_once(store: MemoryStore, clock: Clock) -> None:
    states = _states(store, clock)
    state = states.issue()
    assert states.consume(state) is True
    assert states.consume(state) is False


def test_a_state_outlives_a_restart_of_the_app(store: MemoryStore, clock: Clock) -> None:
    state = _states(store, clock).issue()
    assert _states(store, clock).consume(state) is True


def test_forged_altered_and_foreign_states_are_refused(store: MemoryStore, clock: Clock) -> None:
    states = _states(store, clock)
    state = states.issue()
    nonce, expires, signature = state.split(".")
    assert states.consume(f"{nonce}.{int(expires) + 3600}.{signature}") is False
    assert states.consume(f"{nonce}.{expires}.{'0' * len(signature)}") is False
    assert _states(store, clock, secret="another-app").consume(state) is False
    for garbage in ("", "x", "a.b.c", "a..c", "a.1"):
        assert states.consume(garbage) is False
    # None of the refusals used the genuine state up.
    assert states.consume(state) is True


def test_a_state_of_this_app_that_was_never_issued_is_refused(
    store: MemoryStore, clock: Clock
) -> None:
    states = _states(store, clock)
    state = states.issue()
    Records(store).oauth_states.delete(state.split(".")[0])
    assert states.consume(state) is False


def test_states_expire(store: MemoryStore, clock: Clock) -> None:
    states = _states(store, clock)
    state = states.issue()
    clock.now += 601
    assert states.consume(state) is False


def test_expired_states_are_forgotten_when_new_ones_are_issued(
    store: MemoryStore, clock: Clock
) -> None:
    states = _states(store, clock)
    for _ in range(3):
        states.issue()
    clock.now += 601
    states.issue()
    assert len(list(Records(store).oauth_states.items())) == 1


def test_a_state_secret_is_required(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="SLACK_STATE_SECRET"):
        SignedStateStore(store, secret="")
