"""Two replicas run the digest wave of the same minute on one store: every digest is posted
once, each workspace's digests by one of them (in order, its content read once), and both take
part, even when one's share is already the other's; one that dies mid-wave leaves its unposted
digests to the next minute's wave of the other, which looks in the channel before posting what
the dead one may have sent."""

from __future__ import annotations

import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "flows"))

from test_digest_wave import (
    MONDAY_9AM,
    ReadyMadeContent,
    RecordingSlack,
    _digest,
)

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.pacing import ChannelPacer
from suggestbot.flows.digests.report import WaveReport
from suggestbot.flows.digests.wave import WaveClock, run_wave
from suggestbot.flows.digests.workspaces import WorkspaceClaims, unit_key
from suggestbot.store import Store
from suggestbot.store.records import Records

CHANNELS = 40
PER_CHANNEL = 2
WORKSPACES = 8  # channel n is in workspace n % 8
# A post takes a little time, as over the network (the whole wave otherwise ends in the time
# the other replica takes to start).
POST_S = 0.005


class SharedSlack(RecordingSlack):
    """One Slack seen by both replicas; posts are recorded under a lock, with who posted."""

    def __init__(self, *, first_waits_for_second: bool = False) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.by: dict[str, str] = {}  # ts -> replica
        # Replica 0 posts nothing before replica 1 has posted (10 s at most): on a loaded
        # machine replica 0 could otherwise post the whole wave before replica 1 began.
        self._first_waits = first_waits_for_second
        self._second_posted = threading.Event()

    def chat_postMessage(self, **kwargs: Any) -> dict[str, Any]:
        who = threading.current_thread().name.split("/")[0]
        if self._first_waits and who == "replica0":
            self._second_posted.wait(10)
        time.sleep(POST_S)
        with self.lock:
            answer = super().chat_postMessage(**kwargs)
            self.by[answer["ts"]] = who
        if who == "replica1":
            self._second_posted.set()
        return answer


def _replica(
    records: Records, slack: SharedSlack, content: ReadyMadeContent, *, beats: bool = True
) -> Deps:
    """A replica's flows, with its heartbeat (as its timers keep it): the wave counts the live
    replicas to take its share of the workspaces."""
    parts: dict[str, Any] = {"vault": None, "timers": None}
    deps = Deps(records=records, content=content, slack=slack, clock=time.time, **parts)
    if not beats:
        return deps
    now = time.time()
    records.replicas.schedule(deps.owner, due_at=now)
    records.replicas.claim_keys([deps.owner], owner=deps.owner, now=now, lease_s=600.0)
    return deps


def _run_at_once(
    replicas: list[Deps], now: Any, *, head_start_s: float = 0.0
) -> list[WaveReport | BaseException]:
    """Each replica's wave in a thread of its own, started together (or the first
    ``head_start_s`` ahead of the others, so that it surely claims work)."""
    results: list[WaveReport | BaseException] = [WaveReport() for _ in replicas]
    start = threading.Barrier(len(replicas))

    def run(index: int) -> None:
        threading.current_thread().name = f"replica{index}"
        start.wait()
        if index:
            time.sleep(head_start_s)
        try:
            # Posts a channel a hundredth of a second apart (the real second, scaled down).
            # Each replica's minute job fires a moment after the minute, not at the same instant.
            fired = now + timedelta(seconds=0.25 * index)
            results[index] = run_wave(
                replicas[index], now=fired, pacer=ChannelPacer(spacing_s=0.01)
            )
        except BaseException as exc:  # a replica that "dies"
            results[index] = exc

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(replicas))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def _lane_names_follow_replicas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lanes are named after the replica that runs them, to tell who posted."""
    from suggestbot.flows.digests import wave

    real = wave.ThreadPoolExecutor

    def named(*args: Any, **kwargs: Any) -> Any:
        kwargs["thread_name_prefix"] = f"{threading.current_thread().name}/lane"
        return real(*args, **kwargs)

    monkeypatch.setattr(wave, "ThreadPoolExecutor", named)


def _setup(store: Store) -> tuple[Records, list[str]]:
    records = Records(store)
    seed = _replica(records, SharedSlack(), ReadyMadeContent(), beats=False)
    channels = [f"C{n:02}" for n in range(CHANNELS)]
    for n, channel in enumerate(channels):
        for _ in range(PER_CHANNEL):
            _digest(seed, channel, team=_workspace(n))
    return records, channels


def _workspace(channel_no: int) -> str:
    return f"T{channel_no % WORKSPACES}"


def test_two_replicas_running_one_minute_post_every_digest_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lane_names_follow_replicas(monkeypatch)
    records, channels = _setup(store)
    slack, content = SharedSlack(first_waits_for_second=True), ReadyMadeContent()
    content.publish(1, "Spring on the trail")
    replicas = [_replica(records, slack, content) for _ in range(2)]

    reports = _run_at_once(replicas, MONDAY_9AM)

    assert all(isinstance(r, WaveReport) for r in reports), reports
    posted_by: dict[str, set[str]] = {}
    for n, channel in enumerate(channels):
        posts = [p for p in slack.posts if p["channel"] == channel]
        assert len(posts) == PER_CHANNEL  # each digest once
        posted_by.setdefault(_workspace(n), set()).update(slack.by[p["ts"]] for p in posts)
    assert all(len(by) == 1 for by in posted_by.values()), posted_by  # one replica a workspace
    done = [r for r in reports if isinstance(r, WaveReport)]
    assert sum(r.posted for r in done) == CHANNELS * PER_CHANNEL
    assert len(set(slack.by.values())) == 2, "both replicas posted"
    # Each workspace's content was read once, by the replica that posted it.
    assert sum(r.reads for r in done) == WORKSPACES
    # Nothing is due any more, on either replica.
    later = MONDAY_9AM + timedelta(minutes=1)
    assert [run_wave(r, now=later).due for r in replicas] == [0, 0]


def test_a_replica_whose_share_another_holds_posts_the_workspaces_nobody_holds(
    store: Store,
) -> None:
    records, channels = _setup(store)
    slack, content = SharedSlack(), ReadyMadeContent()
    content.publish(1, "Spring on the trail")
    holder, other = (_replica(records, slack, content) for _ in range(2))
    teams = sorted({_workspace(n) for n in range(CHANNELS)})
    clock = WaveClock(MONDAY_9AM)
    # The holder's wave has claimed exactly the workspaces the other replica takes first.
    share = WorkspaceClaims(
        other, wave=clock.wave, due_at=clock.minute, teams=teams, clock=time.time
    ).first()
    queue = records.digest_workspaces
    for team in share:
        queue.release(unit_key(clock.wave, team), owner=other.owner, due_at=clock.minute)
    keys = [unit_key(clock.wave, team) for team in share]
    assert len(queue.claim_keys(keys, owner=holder.owner, now=time.time(), lease_s=600.0)) == 4

    report = run_wave(other, now=MONDAY_9AM, pacer=ChannelPacer(spacing_s=0.01))

    # It went on with the workspaces nobody held, and left the holder's alone.
    posted = {p["channel"] for p in slack.posts}
    free = {channel for n, channel in enumerate(channels) if _workspace(n) not in share}
    assert posted == free and report.posted == len(free) * PER_CHANNEL


def test_a_replica_dying_mid_wave_leaves_the_rest_to_the_next_wave_of_the_other(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lane_names_follow_replicas(monkeypatch)
    records, channels = _setup(store)
    slack, content = SharedSlack(), ReadyMadeContent()
    content.publish(1, "Spring on the trail")
    dying, living = (_replica(records, slack, content) for _ in range(2))
    posts_seen = [0]
    lock = threading.Lock()

    def dies_after_some_posts(point: str) -> None:
        if point == "digest_posted":
            with lock:
                posts_seen[0] += 1
                if posts_seen[0] >= 3:
                    raise SystemExit("killed")

    dying.crash_point = dies_after_some_posts
    # The dying one starts first: started together, the other one sometimes claimed the whole
    # workspace before it, and it had nothing to die in the middle of.
    reports = _run_at_once([dying, living], MONDAY_9AM, head_start_s=0.3)
    assert isinstance(reports[0], SystemExit)
    assert isinstance(reports[1], WaveReport)
    left = CHANNELS * PER_CHANNEL - len(slack.posts)
    assert left > 0  # the dead one held digests it never posted (or never recorded)

    # The same minute again (a second tick): the dead one's claims are still leased, so what
    # it held is left alone (only what nobody claimed may go out), and nothing goes out twice.
    run_wave(living, now=MONDAY_9AM)
    for channel in channels:
        assert len([p for p in slack.posts if p["channel"] == channel]) <= PER_CHANNEL
    assert len(slack.posts) < CHANNELS * PER_CHANNEL, "the dead one's claims were left alone"
    # The next minute's wave takes them over, finds the posts the dead one left unrecorded.
    report = run_wave(living, now=MONDAY_9AM + timedelta(minutes=1))
    for channel in channels:
        assert len([p for p in slack.posts if p["channel"] == channel]) == PER_CHANNEL
    assert report.posted + report.recovered + report.already >= left
    assert run_wave(living, now=MONDAY_9AM + timedelta(minutes=2)).due == 0
