"""Request paths and the per-minute status renewal read only what they show: never a whole table.

The flows run on a memory store that fails any read of a whole table and lets through only
the indexed reads of the Store contract (``items_where``, ``items_matching``), which PostgreSQL
answers from an index (tests/store/test_store_postgres.py shows the plans). Each test also
checks that what the user sees is exactly their own records, as before.
"""

from __future__ import annotations

import time

import pytest
from flows_helpers import ALICE, BRUNO, CHANNEL, SEGMENT, TEAM, USE_CASE, World, world

from no_whole_tables import NoWholeTables
from suggestbot.flows.common import requests, yours
from suggestbot.flows.digests import subscriptions
from suggestbot.flows.home import tab as home
from suggestbot.flows.inspiration import polling as inspiration_watches
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.flows.lists import listing as flows_lists
from suggestbot.flows.workspace import revocation
from suggestbot.store.conversation import ListState
from suggestbot.store.offers import Watch
from suggestbot.store.records import Digest, HeldInput, LinkedUser, Request, user_key
from suggestbot.store.thread_bindings import ThreadBinding

OTHER_TEAM = "T2"


@pytest.fixture
def store() -> NoWholeTables:
    return NoWholeTables()


@pytest.fixture
def w(store: NoWholeTables) -> World:
    return world(store=store)


def _request(
    w: World,
    text: str,
    *,
    user: str = ALICE,
    team: str = TEAM,
    kind: str = "brief",
    state: str = "done",
    at: float,
    thread: str | None = None,
) -> Request:
    req = Request(
        team_id=team,
        user_id=user,
        channel_id=CHANNEL,
        kind=kind,  # type: ignore[arg-type]
        state=state,  # type: ignore[arg-type]
        body={"steering_text": text},
        labels={"thread": thread} if thread else {},
        created_at=at,
    )
    w.deps.records.requests.put(req.id, req)
    return req


def _digest(
    w: World, *, channel: str, by: str = ALICE, team: str = TEAM, at: float, paused: bool = False
) -> Digest:
    digest = Digest(
        team_id=team,
        channel_id=channel,
        created_by=by,
        segment_id=SEGMENT,
        use_case_id=USE_CASE,
        segment_name=f"segment in {channel}",
        use_case_name="Use",
        time="09:00",
        tz="UTC",
        weekdays=[0, 1, 2, 3, 4],
        paused=paused,
        created_at=at,
    )
    w.deps.records.digests.put(digest.id, digest)
    return digest


def _watch(w: World, *, due: float, team: str = TEAM) -> Watch:
    watch = Watch(
        team_id=team,
        user_id=ALICE,
        channel_id=CHANNEL,
        segment_id=SEGMENT,
        use_case_id=USE_CASE,
        segment_name="Segment",
        use_case_name="Use",
        locale="en",
        started_at=w.clock(),
        next_poll_at=due,
    )
    w.deps.records.watches.put(watch.id, watch)
    return watch


def test_app_home_reads_only_the_users_own_results_and_digests(
    w: World, store: NoWholeTables
) -> None:
    for n in range(7):
        _request(w, f"mine {n}", at=100.0 + n)
    _request(w, "still running", state="submitted", at=200.0)
    _request(w, "a refinement", kind="refinement", at=201.0)
    _request(w, "Bruno's", user=BRUNO, at=202.0)
    _request(w, "other workspace", team=OTHER_TEAM, at=203.0)
    _digest(w, channel="C-late", at=20.0)
    _digest(w, channel="C-early", at=10.0)
    _digest(w, channel="C-bruno", by=BRUNO, at=5.0)
    _digest(w, channel="C-other", team=OTHER_TEAM, at=1.0)
    store.guarding = True

    data = home.home_data(w.deps, team_id=TEAM, user_id=ALICE, lang="en")
    home.publish(w.deps, team_id=TEAM, user_id=ALICE)

    assert [r.text for r in data.results] == ["mine 6", "mine 5", "mine 4", "mine 3", "mine 2"]
    assert len(data.digests) == 2
    assert "C-early" in data.digests[0] and "C-late" in data.digests[1]
    assert w.slack.homes  # and the Home was published from the same reads


def test_the_users_refined_threads_are_read_by_index(w: World, store: NoWholeTables) -> None:
    for n, thread in enumerate(["C1:1.0", "C1:2.0", "C1:1.0"]):
        _request(w, f"refine {n}", kind="refinement", state="done", at=10.0 + n, thread=thread)
        binding = ThreadBinding(
            team_id=TEAM,
            channel=CHANNEL,
            thread_ts=thread.split(":")[1],
            origin="brief",
            suggestions=[],
            service_thread_id=f"th-{thread}",
        )
        w.deps.records.thread_bindings.put(thread, binding)
    _request(w, "not sent yet", kind="refinement", state="new", at=50.0, thread="C1:9.0")
    _request(w, "Bruno's", user=BRUNO, kind="refinement", at=60.0, thread="C1:2.0")
    store.guarding = True

    threads = yours.refined_threads(w.deps, team_id=TEAM, user_id=ALICE)

    assert threads == ["th-C1:1.0", "th-C1:2.0"]


def test_digest_listings_read_the_channels_and_the_users_digests_by_index(
    w: World, store: NoWholeTables
) -> None:
    here_old = _digest(w, channel=CHANNEL, by=BRUNO, at=1.0)
    here_new = _digest(w, channel=CHANNEL, at=2.0)
    mine_elsewhere = _digest(w, channel="C-mine", at=3.0)
    _digest(w, channel="C-bruno", by=BRUNO, at=4.0)
    _digest(w, channel=CHANNEL, team=OTHER_TEAM, at=5.0)
    store.guarding = True

    shown = subscriptions.visible(w.deps, team_id=TEAM, channel_id=CHANNEL, user_id=ALICE)
    asker = Asker(team_id=TEAM, user_id=ALICE, channel_id="C-mine")
    found = subscriptions.find(w.deps, asker, mine_elsewhere.id[:5])
    only_here = subscriptions.find(w.deps, asker, "")
    subscriptions.list_for(w.deps, asker)

    assert [d.id for d in shown] == [here_old.id, here_new.id, mine_elsewhere.id]
    assert found is not None and found.id == mine_elsewhere.id
    assert only_here is not None and only_here.id == mine_elsewhere.id


def test_a_revoked_workspace_is_stopped_and_forgotten_by_index(
    w: World, store: NoWholeTables
) -> None:
    active = _request(w, "in flight", state="submitted", at=1.0)
    _request(w, "finished", state="done", at=2.0)
    elsewhere = _request(w, "other workspace", team=OTHER_TEAM, state="submitted", at=3.0)
    running = _digest(w, channel=CHANNEL, at=1.0)
    _digest(w, channel="C-paused", at=2.0, paused=True)
    other_digest = _digest(w, channel=CHANNEL, team=OTHER_TEAM, at=3.0)
    w.link(ALICE)
    w.link(BRUNO)
    other_user = LinkedUser(team_id=OTHER_TEAM, user_id=ALICE, token_enc="sealed", linked_at=1.0)
    w.deps.records.users.put(user_key(OTHER_TEAM, ALICE), other_user)
    held = HeldInput(team_id=TEAM, user_id=ALICE, channel_id=CHANNEL, text="kept for later")
    other_held = HeldInput(team_id=OTHER_TEAM, user_id=ALICE, channel_id=CHANNEL, text="mine")
    w.deps.records.held.put_many({held.id: held, other_held.id: other_held})
    watch, other_watch = _watch(w, due=1.0), _watch(w, due=1.0, team=OTHER_TEAM)
    store.guarding = True

    stopped = revocation.stop_work(w.deps, team_id=TEAM, reason="app_uninstalled")
    forgotten = revocation.forget_people(w.deps, team_id=TEAM)

    assert (stopped.requests, stopped.digests, stopped.watches, forgotten) == (1, 1, 1, 2)
    assert w.timers.cancelled == [active.id]
    records = w.deps.records
    stored = records.requests.get(active.id)
    assert stored is not None and stored.state == "failed"
    untouched = records.requests.get(elsewhere.id)
    assert untouched is not None and untouched.state == "submitted"
    paused = records.digests.get(running.id)
    assert paused is not None and paused.paused and paused.paused_reason == "app_uninstalled"
    other = records.digests.get(other_digest.id)
    assert other is not None and not other.paused
    assert records.users.get(user_key(TEAM, ALICE)) is None
    assert records.users.get(user_key(OTHER_TEAM, ALICE)) is not None
    assert records.held.get(held.id) is None
    assert records.held.get(other_held.id) is not None
    assert records.watches.get(watch.id) is None
    assert records.watches.get(other_watch.id) is not None


def test_status_renewal_reads_only_the_active_requests(w: World, store: NoWholeTables) -> None:
    root = w.slack.chat_postMessage(channel=CHANNEL, text="working", blocks=[])["ts"]
    working = _request(w, "working", state="submitted", at=1.0)
    w.deps.records.requests.update(
        working.id, lambda r: r.model_copy(update={"post_channel_id": CHANNEL, "root_ts": root})
    )
    for n in range(3):
        _request(w, f"done {n}", state="done", at=2.0 + n)
    store.guarding = True

    assert requests.renew_statuses(w.deps).lines == 1
    [(channel, ts, _, _)] = w.slack.statuses
    assert (channel, ts) == (CHANNEL, root)


def test_the_watch_job_reads_only_the_due_watches(w: World, store: NoWholeTables) -> None:
    now = w.clock()
    due = _watch(w, due=now - 1)
    later = _watch(w, due=now + 60)
    store.guarding = True

    inspiration_watches.poll_watches(w.deps, now=now)

    polled = w.deps.records.watches.get(due.id)
    assert polled is not None and polled.next_poll_at > now  # looked at, due again later
    assert w.deps.records.watches.get(later.id) == later  # not due: untouched


def test_a_list_starting_forgets_only_the_old_lists_by_index(
    w: World, store: NoWholeTables
) -> None:
    lists = w.deps.records.lists
    now = time.time()
    old = ListState(kind="threads", team_id=TEAM, user_id=ALICE, created_at=now - 3 * 86400)
    recent = ListState(kind="threads", team_id=TEAM, user_id=BRUNO, created_at=now - 3600)
    lists.put_many({"old": old, "recent": recent})
    store.guarding = True

    flows_lists._forget_old_lists(w.deps)  # what starting a list does first

    assert lists.get("old") is None
    assert lists.get("recent") == recent


def test_the_guard_fails_a_whole_table_read(store: NoWholeTables) -> None:
    store.guarding = True
    with pytest.raises(AssertionError, match="whole table 'requests'"):
        store.items("requests")
