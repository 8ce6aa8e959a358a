"""Digests end to end: the modal, waves on a fake clock, fan-out, crashes, rate limits, health.

Waves are driven with ``run_wave(deps, now=...)``: ``now`` is a fake instant, everything else
(the sandbox, the Slack emulator, the store) is real and on loopback. Digests made directly in
the store are created "at" a fake instant, so the app's own once-a-minute wave on the real clock
never finds them due.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import pytest
from inspiration_helpers import images, posts_with_role, text_of, wait_ephemeral

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for
from suggestbot.flows import digests
from suggestbot.flows.common import threads, usage
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.digests.content import GroupContent
from suggestbot.flows.digests.report import WaveReport
from suggestbot.flows.digests.schedule import from_epoch, next_fire
from suggestbot.flows.digests.wave import WAVE_WORKERS, run_wave
from suggestbot.flows.inspiration.showing import Asker, read_newest
from suggestbot.store.records import WEEKDAYS, Digest, shared_post_key

WEEKEND = "0190c0de-5eed-7000-8000-00000000a101"
SPRING = "0190c0de-5eed-7000-8000-00000000a201"
LOYALTY = "0190c0de-5eed-7000-8000-00000000a202"
NAMES = {WEEKEND: "Weekend Hikers", SPRING: "Spring Launch", LOYALTY: "Loyalty Reward"}
# Monday 7 January 2030, 09:00 in Berlin (CET, UTC+1).
MONDAY_9AM = datetime(2030, 1, 7, 8, 0, tzinfo=UTC)


def deps_of(stage: Stage) -> Deps:
    assert stage.runtime is not None
    return stage.runtime.deps


def add_digest(
    stage: Stage,
    channel: str,
    *,
    use_case: str = SPRING,
    created: datetime = MONDAY_9AM - timedelta(days=1),
    time_of_day: str = "09:00",
    tz: str = "Europe/Berlin",
    weekdays: Sequence[int] = WEEKDAYS,
    quiet: bool = False,
    user: str = ALICE,
) -> Digest:
    digest = Digest(
        team_id=stage.emu.team_id,
        channel_id=channel,
        created_by=user,
        segment_id=WEEKEND,
        use_case_id=use_case,
        segment_name=NAMES[WEEKEND],
        use_case_name=NAMES[use_case],
        time=time_of_day,
        tz=tz,
        weekdays=list(weekdays),
        quiet_when_unchanged=quiet,
        lang="de" if user == BRUNO else "en",
        created_at=created.timestamp(),
        active_since=created.timestamp(),
    )
    deps_of(stage).records.digests.put(digest.id, digest)
    return digest


def new_channels(stage: Stage, count: int, prefix: str = "team") -> list[str]:
    made = []
    for n in range(count):
        channel = stage.emu.add_channel(f"{prefix}-{n}", members=[ALICE, BRUNO])
        stage.emu.invite_bot(channel)
        made.append(channel)
    return made


def digest_posts(stage: Stage, channel: str) -> list[dict]:
    return posts_with_role(stage, channel, "digest")


def reload(stage: Stage, digest: Digest) -> Digest:
    found = deps_of(stage).records.digests.get(digest.id)
    assert found is not None
    return found


def test_add_through_the_modal_then_one_post_per_local_day(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "digest add")
    view = wait_for(
        lambda: (
            (stage.emu.current_view(ALICE) or {}).get("callback_id") == "digest_add"
            and stage.emu.current_view(ALICE)
        ),
        what="the digest modal",
    )
    tz_input = next(b for b in view["blocks"] if b["block_id"] == "digest_tz")
    assert tz_input["element"]["initial_value"] == "Europe/Berlin"  # Alice's Slack tz
    form = {
        "Segment": "Weekend Hikers",
        "Use case": "Spring Launch",
        "Time": "09:00",
        "Time zone": "Mars/Base",
        "Weekdays": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
    }
    refused = stage.slack.submit_view(ALICE, form)
    assert "not a time zone" in refused.errors["Time zone"]
    answer = stage.slack.submit_view(ALICE, {**form, "Time zone": "Europe/Berlin"})
    assert answer.errors == {}
    wait_ephemeral(stage, ALICE, "added: *Weekend Hikers* · *Spring Launch*")
    deps = deps_of(stage)
    [digest] = list(deps.records.digests.values())
    assert (digest.time, digest.tz, digest.weekdays) == ("09:00", "Europe/Berlin", list(WEEKDAYS))
    assert digest.created_by == ALICE and digest.channel_id == stage.channel

    fire = next_fire(digests.schedule_of(digest), after=from_epoch(digest.active_since))
    assert fire is not None
    assert run_wave(deps, now=fire - timedelta(minutes=1)).due == 0
    first = run_wave(deps, now=fire)
    assert (first.due, first.reads, first.posted) == (1, 1, 1)
    [post] = digest_posts(stage, stage.channel)
    shown = text_of(post)
    assert "== Inspiration: Weekend Hikers · Spring Launch ==" in shown
    assert "version 1" in shown and "Variant 3 of 3" in shown and "Posted late" not in shown
    assert images(post)[0]["image_url"].startswith(stage.sandbox_url)
    # Bound for refinement by reply, every variant offered.
    binding = threads.get(deps, channel=stage.channel, thread_ts=post["ts"])
    assert binding is not None and len(binding.suggestions) == 3
    assert deps.records.shared_posts.get(shared_post_key(stage.channel, post["ts"])) is not None

    # The same local day again: nothing more.
    assert run_wave(deps, now=fire + timedelta(minutes=30)).due == 0
    assert len(digest_posts(stage, stage.channel)) == 1

    # Next day, nothing new: one short line. Then a new version: the digest again.
    second = run_wave(deps, now=fire + timedelta(days=1))
    assert second.lines == 1
    line = digest_posts(stage, stage.channel)[-1]
    assert "No new inspiration for *Weekend Hikers* · *Spring Launch* today" in text_of(line)
    tenant = stage.sandbox.demo.tenant_id  # type: ignore[union-attr]
    stage.sandbox.run_precompute(tenant, WEEKEND, SPRING)
    assert run_wave(deps, now=fire + timedelta(days=2)).posted == 1
    assert "version 2" in text_of(digest_posts(stage, stage.channel)[-1])
    assert reload(stage, digest).last_version == 2

    stage.slack.slash_command(ALICE, stage.channel, "digest list")
    listing = text_of(wait_ephemeral(stage, ALICE, "Digests in"))
    assert f"`{digest.id}`" in listing and "Last delivery: <!date^" in listing
    assert "no errors" in listing
    assert stage.emu.warnings == []


def test_quiet_digest_posts_nothing_when_unchanged(stage: Stage) -> None:
    deps = deps_of(stage)
    quiet = add_digest(stage, stage.channel, quiet=True)
    assert run_wave(deps, now=MONDAY_9AM).posted == 1
    report = run_wave(deps, now=MONDAY_9AM + timedelta(days=1))
    assert (report.due, report.quiet) == (1, 1)
    assert len(digest_posts(stage, stage.channel)) == 1
    assert reload(stage, quiet).last_posted_local_date == "2030-01-08"


def test_fifty_channels_sharing_two_pairs_read_twice_and_post_once_each(stage: Stage) -> None:
    deps = deps_of(stage)
    channels = new_channels(stage, 50)
    for n, channel in enumerate(channels):
        add_digest(stage, channel, use_case=SPRING if n % 2 else LOYALTY)
    stage.sandbox.counters.reset()
    calls_before = len(stage.emu.calls())

    report = run_wave(deps, now=MONDAY_9AM)

    assert (report.due, report.reads, report.posted, report.failed) == (50, 2, 50, 0)
    service = stage.sandbox.counters.snapshot()
    assert service.get("GET /v1/inspiration") == 2
    # The read carried the image URLs: no separate minting, nothing else asked of the service
    # (the image downloads are Slack's, one per post, and every one loaded).
    downloads = service.get("GET /images/{image_file}", 0)
    assert downloads == 50 and stage.broken_images() == []
    assert sum(service.values()) - service.get("POST /auth/token", 0) - downloads == 2
    slack = Counter(c.method for c in stage.emu.calls()[calls_before:])
    assert slack == Counter({"chat.postMessage": 50})
    for channel in channels:
        [post] = digest_posts(stage, channel)
        assert images(post)  # both use cases' sets hold a social post
    print(f"\n50-channel wave: service calls {service}, Slack calls {dict(slack)}")


def dies_at(point: str, *, hit: int) -> Callable[[str], None]:
    """A crash point that "kills the app" at the ``hit``-th pass through ``point``: from then on
    every crash point raises, in every lane, as nothing runs in a dead process."""
    lock = threading.Lock()
    hits: list[str] = []
    dead = threading.Event()

    def crash(name: str) -> None:
        with lock:
            if name == point:
                hits.append(name)
                if len(hits) >= hit:
                    dead.set()
        if dead.is_set():
            raise SystemExit(f"killed at {name}")

    return crash


def handled(stage: Stage, made: Sequence[Digest]) -> int:
    """How many of the digests are recorded as delivered today."""
    return sum(1 for d in made if reload(stage, d).last_posted_local_date == "2030-01-07")


def assert_every_digest_thread_is_bound(stage: Stage, channels: Sequence[str]) -> None:
    deps = deps_of(stage)
    for channel in channels:
        for post in digest_posts(stage, channel):
            assert threads.get(deps, channel=channel, thread_ts=post["ts"]) is not None
            assert deps.records.shared_posts.get(shared_post_key(channel, post["ts"]))


@pytest.mark.parametrize("point", ["digest_posted", "digest_claimed"])
def test_a_crash_mid_wave_then_restart_posts_each_channel_once(stage: Stage, point: str) -> None:
    channels = new_channels(stage, 8)
    made = [add_digest(stage, channel) for channel in channels]
    deps_of(stage).crash_point = dies_at(point, hit=4)
    with pytest.raises(SystemExit):
        run_wave(deps_of(stage), now=MONDAY_9AM)
    posted_before = sum(len(digest_posts(stage, c)) for c in channels)
    if point == "digest_claimed":
        assert posted_before == 3  # claimed three times; the fourth claim's post never left
    else:
        # The fourth post, and the posts other lanes had under way when the app died.
        assert 4 <= posted_before <= 4 + WAVE_WORKERS - 1

    stage.restart_app(graceful=False)
    recorded_before = handled(stage, made)  # rounds some lanes finished and recorded
    report = run_wave(deps_of(stage), now=MONDAY_9AM + timedelta(minutes=1))

    assert report.due == 8 - recorded_before
    # Posted but not recorded: found in the channel's history, not posted again.
    assert report.recovered == posted_before - recorded_before
    assert report.posted == 8 - posted_before
    assert [len(digest_posts(stage, c)) for c in channels] == [1] * 8
    # Recovered posts are recorded too: replies in every digest's thread refine.
    assert_every_digest_thread_is_bound(stage, channels)
    # And a further wave the same day changes nothing.
    assert run_wave(deps_of(stage), now=MONDAY_9AM + timedelta(minutes=2)).due == 0


def test_a_crash_after_a_round_is_claimed_posts_each_digest_exactly_once(stage: Stage) -> None:
    channels = new_channels(stage, 6)
    made = [add_digest(stage, c, use_case=uc) for c in channels for uc in (SPRING, LOYALTY)]
    # Dies right after the first round's claims were written, before any post.
    deps_of(stage).crash_point = dies_at("digest_claimed", hit=1)
    with pytest.raises(SystemExit):
        run_wave(deps_of(stage), now=MONDAY_9AM)
    assert sum(len(digest_posts(stage, c)) for c in channels) == 0
    deliveries = deps_of(stage).records.digest_deliveries
    claimed = [key for key, record in deliveries.items() if record.state == "claimed"]
    assert claimed  # claims without marks: the next wave must look before posting

    stage.restart_app(graceful=False)
    report = run_wave(deps_of(stage), now=MONDAY_9AM + timedelta(minutes=1))

    assert (report.due, report.posted, report.recovered, report.failed) == (12, 12, 0, 0)
    for channel in channels:
        posts = digest_posts(stage, channel)
        assert sorted(NAMES[SPRING] in text_of(p) for p in posts) == [False, True]
    assert handled(stage, made) == 12
    assert_every_digest_thread_is_bound(stage, channels)


def test_a_delivery_marked_but_not_yet_on_its_digest_is_not_posted_again(stage: Stage) -> None:
    deps = deps_of(stage)
    digest = add_digest(stage, stage.channel)
    assert run_wave(deps, now=MONDAY_9AM).posted == 1
    # As if the wave had died after writing its marks, before updating the digest itself.
    deps.records.digests.put(digest.id, digest)

    report = run_wave(deps, now=MONDAY_9AM + timedelta(minutes=1))

    assert (report.due, report.already, report.posted) == (1, 1, 0)
    assert len(digest_posts(stage, stage.channel)) == 1
    assert reload(stage, digest).last_posted_local_date == "2030-01-07"


def test_lanes_post_to_several_channels_at_once_each_channel_once_a_second(
    stage: Stage,
) -> None:
    deps = deps_of(stage)
    stage.emu.faults.enforce_post_rate(1.0)
    channels = new_channels(stage, 6)
    for channel in channels:
        for use_case in (SPRING, LOYALTY, SPRING):
            add_digest(stage, channel, use_case=use_case)
    # The first two digests about to be posted wait for each other: only lanes posting at the
    # same time get past this (one thread posting digest after digest would break the barrier).
    meet = threading.Barrier(2, timeout=20)
    lock = threading.Lock()
    passed: list[str] = []

    def wait_for_another_lane(name: str) -> None:
        with lock:
            first_two = name == "digest_claimed" and len(passed) < 2
            if first_two:
                passed.append(threading.current_thread().name)
        if first_two:
            meet.wait()

    deps.crash_point = wait_for_another_lane
    report = run_wave(deps, now=MONDAY_9AM)

    assert (report.posted, report.failed) == (18, 0)
    assert len(set(passed)) == 2  # two different threads met
    rates = stage.emu.faults.max_post_rates()
    assert max(rates[c] for c in channels) == 1  # never two posts in one second in one channel
    assert [c for c in stage.emu.calls("chat.postMessage") if c.status == 429] == []
    assert [len(digest_posts(stage, c)) for c in channels] == [3] * 6


def test_a_digest_thread_is_bound_before_its_channel_gets_the_next_digest(stage: Stage) -> None:
    deps = deps_of(stage)
    channels = new_channels(stage, 6)
    for channel in channels:
        for use_case in (SPRING, LOYALTY, SPRING):
            add_digest(stage, channel, use_case=use_case)
    unbound: list[str] = []

    def check_earlier_posts(name: str) -> None:
        # Before any post: in every channel, each digest but the newest (a second old at least)
        # already takes replies.
        if name != "digest_claimed":
            return
        for channel in channels:
            for post in digest_posts(stage, channel)[:-1]:
                if threads.get(deps, channel=channel, thread_ts=post["ts"]) is None:
                    unbound.append(f"{channel}:{post['ts']}")

    deps.crash_point = check_earlier_posts
    assert run_wave(deps, now=MONDAY_9AM).posted == 18
    assert unbound == []


def test_a_wave_commits_per_round_not_per_digest(
    stage: Stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    deps = deps_of(stage)
    channels = new_channels(stage, 16)
    for channel in channels:
        add_digest(stage, channel, use_case=SPRING)
        add_digest(stage, channel, use_case=LOYALTY)
    store = deps.records.store
    commits: list[str] = []
    for write in ("_raw_put", "_raw_delete", "_raw_write_many"):
        original = getattr(store, write)

        def counted(*args: object, _original: Callable[..., object] = original) -> object:
            commits.append(str(args[0]))
            return _original(*args)

        monkeypatch.setattr(store, write, counted)

    report = run_wave(deps, now=MONDAY_9AM)

    assert report.posted == 32
    # Written one by one this was 5 commits (fsyncs) per digest: claim, mark, digest,
    # shared post, binding. Now each is one commit per lane and round, and the workspace's
    # usage (digests sent) one commit per wave.
    assert len(commits) <= 5 * WAVE_WORKERS * 2 + 2 + 1, Counter(commits)
    assert Counter(commits)["usage_days"] == 1
    assert_every_digest_thread_is_bound(stage, channels)
    assert usage.panel(deps, team_id=stage.emu.team_id).digests_7 == 32


def test_rate_limits_are_respected_and_nothing_is_lost(stage: Stage) -> None:
    deps = deps_of(stage)
    stage.emu.faults.enforce_post_rate(1.0)
    channels = new_channels(stage, 5)
    for channel in channels:
        # Two digests per channel at the same minute: two posts to one channel.
        add_digest(stage, channel, use_case=SPRING)
        add_digest(stage, channel, use_case=LOYALTY)
    stage.emu.faults.rate_limit("chat.postMessage", retry_after=1, times=2)

    report = run_wave(deps, now=MONDAY_9AM)

    assert (report.posted, report.failed) == (10, 0)
    rates = stage.emu.faults.max_post_rates()
    assert max(rates[c] for c in channels) == 1
    refused = [c for c in stage.emu.calls("chat.postMessage") if c.status == 429]
    assert len(refused) == 2  # only the injected ones: pacing never ran into the limit
    for channel in channels:
        posts = digest_posts(stage, channel)
        assert sorted(NAMES[SPRING] in text_of(p) for p in posts) == [False, True]


def test_a_missed_digest_is_posted_late_the_same_day_only(stage: Stage) -> None:
    deps = deps_of(stage)
    late = add_digest(stage, stage.channel)
    # The app was down from before 09:00 until 11:30 (Berlin).
    report = run_wave(deps, now=MONDAY_9AM + timedelta(hours=2, minutes=30))
    assert (report.posted, report.late) == (1, 1)
    assert "Posted late: this digest was due at 09:00 (Europe/Berlin)" in text_of(
        digest_posts(stage, stage.channel)[-1]
    )
    # Down all of Tuesday: on Wednesday at 01:00 Tuesday's digest is not posted.
    assert run_wave(deps, now=MONDAY_9AM + timedelta(days=1, hours=16)).due == 0
    assert len(digest_posts(stage, stage.channel)) == 1
    assert reload(stage, late).last_posted_local_date == "2030-01-07"


def test_wave_follows_the_wall_clock_across_the_spring_change(stage: Stage) -> None:
    deps = deps_of(stage)
    # Berlin springs forward on Sunday 31 March 2030: 09:00 is 08:00 UTC before, 07:00 after.
    add_digest(stage, stage.channel, created=datetime(2030, 3, 29, tzinfo=UTC))
    assert run_wave(deps, now=datetime(2030, 3, 30, 7, 59, tzinfo=UTC)).due == 0
    assert run_wave(deps, now=datetime(2030, 3, 30, 8, 0, tzinfo=UTC)).posted == 1
    assert run_wave(deps, now=datetime(2030, 3, 31, 6, 59, tzinfo=UTC)).due == 0
    assert run_wave(deps, now=datetime(2030, 3, 31, 7, 0, tzinfo=UTC)).lines == 1
    assert len(digest_posts(stage, stage.channel)) == 2


def test_a_channel_that_no_longer_takes_posts_pauses_its_digest_and_tells_by_dm(
    stage: Stage,
) -> None:
    deps = deps_of(stage)
    removed, archived = new_channels(stage, 2, prefix="gone")
    kept = add_digest(stage, removed)
    dead = add_digest(stage, archived, user=BRUNO)
    stage.emu.remove_bot(removed)
    with stage.emu.ws.lock:
        stage.emu.ws.channel(archived).is_archived = True

    report = run_wave(deps, now=MONDAY_9AM)

    assert (report.paused, report.posted) == (2, 0)
    first, second = reload(stage, kept), reload(stage, dead)
    assert first.paused and first.paused_reason == "not_in_channel"
    assert first.last_error == "not_in_channel" and first.last_error_at is not None
    assert second.paused and second.paused_reason == "is_archived"
    alice_dm = stage.emu.transcript(stage.emu.dm_channel(ALICE))
    assert "is paused: I was removed from the channel" in alice_dm and f"<#{removed}>" in alice_dm
    bruno_dm = stage.emu.transcript(stage.emu.dm_channel(BRUNO))
    assert "ist pausiert: Der Kanal wurde archiviert" in bruno_dm

    # Paused digests are skipped: no more attempts, no more DMs.
    assert run_wave(deps, now=MONDAY_9AM + timedelta(days=1)).due == 0
    assert stage.emu.transcript(stage.emu.dm_channel(ALICE)).count("is paused") == 1

    stage.slack.slash_command(ALICE, stage.channel, "digest list")
    listing = text_of(wait_ephemeral(stage, ALICE, "Digests in"))
    assert (
        f"Paused: I was removed from <#{removed}> — invite me with `/invite @suggestbot`, "
        "then press *Resume*." in listing
    )
    assert "Last problem" in listing and "Last delivery: never" in listing
    assert "not_in_channel" not in listing and "is_archived" not in listing

    # Invited back and resumed: posts again from the next day on (today's time has passed).
    stage.emu.invite_bot(removed)
    deps.clock = lambda: MONDAY_9AM.timestamp() + 3600  # resumed at 10:00
    stage.slack.slash_command(ALICE, stage.channel, f"digest resume {kept.id}")
    wait_ephemeral(stage, ALICE, "is active again")
    deps.clock = time.time
    assert run_wave(deps, now=MONDAY_9AM + timedelta(hours=2)).due == 0
    assert run_wave(deps, now=MONDAY_9AM + timedelta(days=1)).posted == 1


def test_pause_resume_preview_and_remove_by_command(stage: Stage) -> None:
    deps = deps_of(stage)
    digest = add_digest(stage, stage.channel)
    stage.slack.slash_command(ALICE, stage.channel, "digest preview")
    preview = wait_ephemeral(stage, ALICE, "Inspiration: Weekend Hikers · Spring Launch")
    assert images(preview) and reload(stage, digest).last_posted_local_date is None
    assert digest_posts(stage, stage.channel) == []

    stage.slack.slash_command(ALICE, stage.channel, "digest pause")
    wait_ephemeral(stage, ALICE, "is paused")
    assert run_wave(deps, now=MONDAY_9AM).due == 0
    stage.slack.slash_command(ALICE, stage.channel, f"digest resume {digest.id[:4]}")
    wait_ephemeral(stage, ALICE, "is active again")
    assert not reload(stage, digest).paused

    stage.slack.slash_command(ALICE, stage.channel, "digest list")
    listing = wait_ephemeral(stage, ALICE, "Digests in")
    stage.slack.press_button(listing, "Remove", user_id=ALICE)
    wait_ephemeral(stage, ALICE, "is removed")
    assert deps.records.digests.get(digest.id) is None
    stage.slack.slash_command(ALICE, stage.channel, "digest frobnicate")
    wait_ephemeral(stage, ALICE, "I don't know `/suggest digest frobnicate`")


def test_a_digest_id_from_another_workspace_changes_nothing(stage: Stage) -> None:
    deps = deps_of(stage)
    digest = add_digest(stage, stage.channel)
    # one install serves many workspaces; ids travel in button values
    stranger = Asker(team_id="T0ELSEWHERE", user_id=ALICE, channel_id=stage.channel)

    digests.set_paused(deps, stranger, digest.id, paused=True)
    digests.remove(deps, stranger, digest.id)

    assert stage.emu.ephemeral_transcript(ALICE).count("No single digest matches") == 2
    kept = reload(stage, digest)
    assert kept is not None and not kept.paused


def test_digest_add_in_a_channel_without_the_bot_says_to_invite_it(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.quiet_channel, "digest add")
    wait_ephemeral(stage, ALICE, "Invite me with `/invite @suggestbot` first")
    assert stage.emu.current_view(ALICE) is None


def test_a_digest_is_written_in_the_workspaces_language_not_its_creators(stage: Stage) -> None:
    add_digest(stage, stage.channel, user=BRUNO)  # Bruno reads German; the channel, English
    report: WaveReport = run_wave(deps_of(stage), now=MONDAY_9AM)
    assert report.posted == 1
    shown = text_of(digest_posts(stage, stage.channel)[0])
    assert "Newest ready-made content, version 1" in shown and "Variant 1 of 3" in shown
    stage.set_channel_language("de")  # an admin picked German on Home
    add_digest(stage, stage.channel, user=ALICE)
    again = run_wave(deps_of(stage), now=MONDAY_9AM + timedelta(days=7))
    assert (again.posted, again.lines) == (1, 1)  # Alice's new set; Bruno's "nothing new" line
    german = [text_of(m) for m in digest_posts(stage, stage.channel)[-2:]]
    assert any("Neueste fertige Inhalte" in t and "Variante 1 von 3" in t for t in german)
    assert not any("Newest" in t or "version" in t for t in german)


def test_urls_near_expiry_are_minted_again_in_one_batch(stage: Stage) -> None:
    deps = deps_of(stage)
    digest = add_digest(stage, stage.channel)
    found = read_newest(deps, digests.pair_of(digest))
    content = GroupContent(found)
    report = WaveReport()
    first = dict(content.urls)
    assert first and content.urls_for_post(deps, report) == first
    shown = content.set_message(deps, digest, late_note=None, report=report)
    assert {image["image_url"] for image in images({"blocks": shown.blocks})} == set(first.values())
    assert stage.sandbox.counters.get("POST /v1/assets/urls") == 0
    deps.clock = lambda: time.time() + 13 * 60  # the wave has been running for 13 minutes
    try:
        # The message built for the earlier channels is built again with the new URLs.
        shown_later = content.set_message(deps, digest, late_note=None, report=report)
        fresh = content.urls
    finally:
        deps.clock = time.time
    assert stage.sandbox.counters.get("POST /v1/assets/urls") == 1 and report.mints == 1
    assert fresh.keys() == first.keys() and fresh != first
    assert {image["image_url"] for image in images({"blocks": shown_later.blocks})} == set(
        fresh.values()
    )


def test_a_wrong_content_locale_shows_in_the_digest_health(stage: Stage) -> None:
    deps = deps_of(stage)
    deps.content_locale = "de"  # the demo tenant's content is English
    digest = add_digest(stage, stage.channel)
    report = run_wave(deps, now=MONDAY_9AM)
    assert report.lines == 1
    assert "No ready-made content for *Weekend Hikers* · *Spring Launch* yet" in text_of(
        digest_posts(stage, stage.channel)[0]
    )
    assert reload(stage, digest).last_error == "content_locale_mismatch"


def test_replying_n_in_a_digest_thread_refines_variant_n(stage: Stage) -> None:
    deps = deps_of(stage)
    stage.connect(ALICE)
    add_digest(stage, stage.channel)
    assert run_wave(deps, now=MONDAY_9AM).posted == 1
    [post] = digest_posts(stage, stage.channel)
    stage.slack.post_user_message(ALICE, stage.channel, "2: warmer tone", thread_ts=post["ts"])
    wait_for(
        lambda: len(stage.emu.messages(stage.channel, thread_ts=post["ts"])) > 2,
        what="the refinement of variant 2 in the digest's thread",
    )
    binding = threads.get(deps, channel=stage.channel, thread_ts=post["ts"])
    assert binding is not None and binding.chosen_variant == 2
