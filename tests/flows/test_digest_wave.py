"""The digest wave, fast: an in-memory store, a recording Slack client and a fake clock.

Each test says what a channel sees: the set posted once per local day, the short line when
nothing is new, nothing from a paused digest, a late note when the app catches up the same day,
nothing for a day already gone, and one post only after a wave died between posting and
recording. No server is started; the whole file runs in well under a second.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import SuggestionSet
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.pacing import ChannelPacer
from suggestbot.flows.digests import set_paused
from suggestbot.flows.digests.wave import prune, run_wave
from suggestbot.flows.digests.workspaces import forget_old
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.store import MemoryStore
from suggestbot.store.records import WEEKDAYS, Digest, Records
from suggestbot.ui.messages import t

SEGMENT, USE_CASE = "seg_hikers", "uc_launch"
# Monday 7 January 2030, 09:00 in Berlin (CET, UTC+1).
MONDAY_9AM = datetime(2030, 1, 7, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)


class Clock:
    """The wall clock the flows read; the pacer's sleeps move it on instead of waiting."""

    def __init__(self, at: datetime) -> None:
        self.now = at.timestamp()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def at(self, instant: datetime) -> datetime:
        self.now = instant.timestamp()
        return instant


class RecordingSlack:
    """Answers the Web API methods the digest flows use, as Slack does, and records each post."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.ephemerals: list[dict[str, Any]] = []
        self.refusing: dict[str, str] = {}  # channel -> the error Slack answers there
        self._ts = itertools.count(1)

    def chat_postMessage(self, **kwargs: Any) -> dict[str, Any]:
        channel = kwargs["channel"]
        if channel in self.refusing:
            error = self.refusing[channel]
            raise SlackApiError(f"chat.postMessage: {error}", {"ok": False, "error": error})
        ts = f"{1_900_000_000 + next(self._ts)}.000100"
        self.posts.append({**kwargs, "ts": ts})
        return {"ok": True, "channel": channel, "ts": ts}

    def chat_postEphemeral(self, **kwargs: Any) -> dict[str, Any]:
        self.ephemerals.append(kwargs)
        return {"ok": True, "message_ts": "0.1"}

    def conversations_history(self, *, channel: str, **_: Any) -> dict[str, Any]:
        mine = [p for p in reversed(self.posts) if p["channel"] == channel]
        messages = [{"ts": p["ts"], "metadata": p.get("metadata")} for p in mine]
        return {"ok": True, "messages": messages, "response_metadata": {"next_cursor": ""}}

    def conversations_open(self, *, users: str) -> dict[str, Any]:
        return {"ok": True, "channel": {"id": f"D{users}"}}

    def users_info(self, *, user: str, **_: Any) -> dict[str, Any]:
        return {"ok": True, "user": {"id": user, "locale": "en-US"}}

    def views_publish(self, **_: Any) -> dict[str, Any]:
        return {"ok": True}

    def seen_in(self, channel: str) -> list[str]:
        """Every text a person reads in ``channel``'s messages, one string per message."""
        return [_text(p["blocks"]) for p in self.posts if p["channel"] == channel]


class ReadyMadeContent:
    """The service's ready-made content: the newest set of a (segment, use case), or none."""

    def __init__(self) -> None:
        self.newest: SuggestionSet | None = None
        self.reads = 0

    def publish(self, version: int, subject: str) -> None:
        self.newest = SuggestionSet.model_validate(
            {
                "id": f"set_{version}",
                "segment_id": SEGMENT,
                "use_case_id": USE_CASE,
                "locale": "en",
                "version": version,
                "created_at": "2030-01-01T00:00:00Z",
                "origin": "inspiration",
                "suggestions": [
                    {
                        "id": f"sug_{version}",
                        "kind": "email",
                        "variant_no": 1,
                        "payload": {"subject": subject, "body": "Trails are open again."},
                    }
                ],
            }
        )

    def get_inspiration(self, *, segment_id: str, use_case_id: str, **_: Any) -> list[Any]:
        self.reads += 1
        wanted = (segment_id, use_case_id) == (SEGMENT, USE_CASE)
        return [self.newest] if wanted and self.newest is not None else []

    def list_suggestion_sets_page(self, *, limit: int) -> Any:
        return SimpleNamespace(items=[self.newest] if self.newest else [])


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(_text(v) for k, v in value.items() if k in ("text", "elements", "fields"))
    if isinstance(value, list):
        return " ".join(_text(v) for v in value)
    return value if isinstance(value, str) else ""


@pytest.fixture
def clock() -> Clock:
    return Clock(MONDAY_9AM - DAY)


@pytest.fixture
def slack() -> RecordingSlack:
    return RecordingSlack()


@pytest.fixture
def content() -> ReadyMadeContent:
    found = ReadyMadeContent()
    found.publish(1, "Spring on the trail")
    return found


@pytest.fixture
def deps(clock: Clock, slack: RecordingSlack, content: ReadyMadeContent) -> Deps:
    parts: dict[str, Any] = {"vault": None, "timers": None}
    return Deps(records=Records(MemoryStore()), content=content, slack=slack, clock=clock, **parts)


def _digest(
    deps: Deps, channel: str, *, quiet: bool = False, paused: bool = False, team: str = "T1"
) -> Digest:
    """A digest at 09:00 Berlin every day, set up the day before (so today's time counts)."""
    digest = Digest(
        team_id=team,
        channel_id=channel,
        created_by="U_ALICE",
        segment_id=SEGMENT,
        use_case_id=USE_CASE,
        segment_name="Weekend Hikers",
        use_case_name="Spring Launch",
        time="09:00",
        tz="Europe/Berlin",
        weekdays=list(WEEKDAYS),
        quiet_when_unchanged=quiet,
        paused=paused,
        created_at=deps.clock(),
        active_since=deps.clock(),
    )
    deps.records.digests.put(digest.id, digest)
    return digest


def _wave(deps: Deps, clock: Clock, at: datetime) -> Any:
    pacer = ChannelPacer(clock=clock, sleep=clock.sleep)
    return run_wave(deps, now=clock.at(at), pacer=pacer)


def test_the_set_is_posted_once_per_local_day(
    deps: Deps, clock: Clock, slack: RecordingSlack
) -> None:
    _digest(deps, "C_SALES")
    _digest(deps, "C_MARKETING")

    assert _wave(deps, clock, MONDAY_9AM - timedelta(minutes=1)).due == 0
    first = _wave(deps, clock, MONDAY_9AM)
    again = _wave(deps, clock, MONDAY_9AM + timedelta(minutes=1))
    evening = _wave(deps, clock, MONDAY_9AM + timedelta(hours=12))

    assert (first.due, first.posted, first.reads) == (2, 2, 1)  # one read for both channels
    assert again.due == evening.due == 0
    for channel in ("C_SALES", "C_MARKETING"):
        [seen] = slack.seen_in(channel)
        assert "Weekend Hikers" in seen and "Spring on the trail" in seen
        assert "Posted late" not in seen


def test_nothing_new_the_next_day_is_said_in_a_short_line_or_not_at_all(
    deps: Deps, clock: Clock, slack: RecordingSlack, content: ReadyMadeContent
) -> None:
    _digest(deps, "C_LINE")
    _digest(deps, "C_QUIET", quiet=True)
    _wave(deps, clock, MONDAY_9AM)

    tuesday = _wave(deps, clock, MONDAY_9AM + DAY)
    assert (tuesday.lines, tuesday.quiet) == (1, 1)
    unchanged = t(
        "digest.unchanged", "en", segment="Weekend Hikers", use_case="Spring Launch", version=1
    )
    assert slack.seen_in("C_LINE")[1] == _text([{"text": {"text": unchanged}}])
    assert len(slack.seen_in("C_QUIET")) == 1

    content.publish(2, "Summer hikes")
    wednesday = _wave(deps, clock, MONDAY_9AM + 2 * DAY)
    assert wednesday.posted == 2
    assert "Summer hikes" in slack.seen_in("C_LINE")[2]
    assert "Summer hikes" in slack.seen_in("C_QUIET")[1]


def test_a_paused_digest_posts_nothing_and_resuming_waits_for_the_next_day(
    deps: Deps, clock: Clock, slack: RecordingSlack
) -> None:
    digest = _digest(deps, "C_SALES", paused=True)
    assert _wave(deps, clock, MONDAY_9AM).due == 0
    assert slack.seen_in("C_SALES") == []

    clock.at(MONDAY_9AM + timedelta(hours=1))
    asker = Asker(team_id="T1", user_id="U_ALICE", channel_id="C_SALES")
    set_paused(deps, asker, digest.id, paused=False)
    [told] = slack.ephemerals
    assert told["user"] == "U_ALICE"
    assert t("digest.resumed", "en", id=digest.id, channel="C_SALES") in _text(told["blocks"])
    assert _wave(deps, clock, MONDAY_9AM + timedelta(hours=1, minutes=1)).due == 0
    assert _wave(deps, clock, MONDAY_9AM + DAY).posted == 1
    assert len([p for p in slack.posts if p["channel"] == "C_SALES"]) == 1


def test_a_digest_missed_earlier_today_is_caught_up_and_says_it_is_late(
    deps: Deps, clock: Clock, slack: RecordingSlack
) -> None:
    _digest(deps, "C_SALES")
    report = _wave(deps, clock, MONDAY_9AM + timedelta(hours=3))  # the app was down at 09:00

    assert (report.posted, report.late) == (1, 1)
    [seen] = slack.seen_in("C_SALES")
    assert t("digest.late", "en", time="09:00", tz="Europe/Berlin") in seen


def test_a_day_missed_entirely_is_not_posted_later(
    deps: Deps, clock: Clock, slack: RecordingSlack
) -> None:
    _digest(deps, "C_SALES")
    _wave(deps, clock, MONDAY_9AM)
    # The app was down all Tuesday; on Wednesday before 09:00 Tuesday's digest is not due.
    assert _wave(deps, clock, MONDAY_9AM + 2 * DAY - timedelta(hours=1)).due == 0
    assert _wave(deps, clock, MONDAY_9AM + 2 * DAY).lines == 1
    assert len(slack.seen_in("C_SALES")) == 2


def test_a_channel_that_removed_the_app_pauses_its_digest_and_its_creator_is_told(
    deps: Deps, clock: Clock, slack: RecordingSlack
) -> None:
    digest = _digest(deps, "C_GONE")
    slack.refusing["C_GONE"] = "not_in_channel"

    assert _wave(deps, clock, MONDAY_9AM).paused == 1
    stored = deps.records.digests.get(digest.id)
    assert stored is not None and stored.paused and stored.paused_reason == "not_in_channel"
    [dm] = slack.seen_in("DU_ALICE")
    assert t("digest.reason.not_in_channel", "en") in dm and "not_in_channel" not in dm
    assert _wave(deps, clock, MONDAY_9AM + DAY).due == 0


def test_a_post_left_unrecorded_by_a_dead_wave_is_found_and_not_posted_again(
    deps: Deps, clock: Clock, slack: RecordingSlack
) -> None:
    digest = _digest(deps, "C_SALES")

    def dies_after_posting(point: str) -> None:
        if point == "digest_posted":
            raise SystemExit("killed")

    deps.crash_point = dies_after_posting
    with pytest.raises(SystemExit):
        _wave(deps, clock, MONDAY_9AM)
    deps.crash_point = lambda point: None

    report = _wave(deps, clock, MONDAY_9AM + timedelta(minutes=1))
    assert (report.recovered, report.posted) == (1, 0)
    assert len(slack.seen_in("C_SALES")) == 1
    stored = deps.records.digests.get(digest.id)
    assert stored is not None and stored.last_posted_local_date == "2030-01-07"
    # The thread under the post is bound, so replies there refine what it shows.
    assert deps.records.thread_lineages.get(f"C_SALES:{slack.posts[0]['ts']}") is not None


def test_old_delivery_claims_are_forgotten(deps: Deps, clock: Clock) -> None:
    _digest(deps, "C_SALES")
    _wave(deps, clock, MONDAY_9AM)
    assert prune(deps, now=MONDAY_9AM + 3 * DAY) == 0
    assert prune(deps, now=MONDAY_9AM + 9 * DAY) == 1
    assert list(deps.records.digest_deliveries.items()) == []


def test_which_replica_took_a_workspace_is_forgotten_an_hour_after_its_wave(
    deps: Deps, clock: Clock
) -> None:
    _digest(deps, "C_SALES", team="T1")
    _digest(deps, "C_OPS", team="T2")
    _wave(deps, clock, MONDAY_9AM)
    units = deps.records.digest_workspaces
    # Claimed by this replica for the wave: no one else takes them while it lives.
    assert (
        units.claim_keys(
            [f"{MONDAY_9AM.isoformat()}|T1", f"{MONDAY_9AM.isoformat()}|T2"],
            owner="another",
            now=MONDAY_9AM.timestamp(),
            lease_s=60.0,
        )
        == []
    )
    assert forget_old(deps, now=MONDAY_9AM.timestamp() + 1800) == 0
    assert forget_old(deps, now=MONDAY_9AM.timestamp() + 3700) == 2
    assert units.holders(now=MONDAY_9AM.timestamp()) == 0
