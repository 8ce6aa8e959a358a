"""The App Home tab (``app_home_opened`` → ``views.publish``).

Runs and threads are read with the user's own token (what they may see); their digests come
from the store's ``digests`` table, read as plain JSON so that a missing or still empty table,
or fields added later, change nothing here.
"""

from __future__ import annotations

import logging
from typing import Any

from suggestbot.contentapi import ContentApiError, RunStatus
from suggestbot.slackapp.blocks.digests import paused_note
from suggestbot.slackapp.blocks.home import (
    HOME_BLOCKS_MAX,
    RUNS_SHOWN,
    THREADS_SHOWN,
    HomeData,
    build_home,
)
from suggestbot.slackapp.blocks.text import escape_mrkdwn
from suggestbot.slackapp.flows import linking
from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.flows.lists import run_item, service_user_id, thread_item, user_client
from suggestbot.slackapp.messages import t

log = logging.getLogger(__name__)

DIGESTS_TABLE = "digests"
# Runs in progress are found among the user's newest runs (the listing has no status filter).
RUNS_LOOKED_AT = 50
_IN_PROGRESS = frozenset({RunStatus.QUEUED.value, RunStatus.RUNNING.value})
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def digest_line(record: dict[str, Any], lang: str) -> str:
    """One digest as a line: channel, what, when (tolerant of missing fields)."""
    channel = record.get("channel_id") or record.get("channel")
    segment = record.get("segment_name") or record.get("segment_id") or "?"
    use_case = record.get("use_case_name") or record.get("use_case_id") or "?"
    days = record.get("weekdays") or []
    names = [
        t(f"home.weekday.{_WEEKDAYS[d]}", lang)
        for d in days
        if isinstance(d, int) and 0 <= d < len(_WEEKDAYS)
    ]
    line = t(
        "home.digest_line",
        lang,
        channel=f"<#{channel}>" if channel else "?",
        segment=escape_mrkdwn(str(segment)),
        use_case=escape_mrkdwn(str(use_case)),
        time=escape_mrkdwn(str(record.get("time") or "?")),
        tz=escape_mrkdwn(str(record.get("tz") or "")),
        days=", ".join(names) or "—",
    )
    if record.get("paused"):
        reason = record.get("paused_reason")
        line += " " + paused_note(
            str(reason) if reason else None, lang=lang, channel=str(channel or "?")
        )
    return line


def digests_of(deps: Deps, *, team_id: str, user_id: str, lang: str) -> list[str]:
    """The digests this user set up, oldest first."""
    mine: list[dict[str, Any]] = []
    try:
        rows = deps.records.store.items(DIGESTS_TABLE)
    except Exception:  # a table another part of the app has not created yet
        log.warning("could not read the digests table")
        return []
    for _, record in rows:
        owner = record.get("created_by") or record.get("user_id")
        team = record.get("team_id")
        if owner == user_id and (team is None or team == team_id):
            mine.append(record)
    mine.sort(key=lambda r: float(r.get("created_at") or 0))
    return [digest_line(r, lang) for r in mine]


def home_data(deps: Deps, *, team_id: str, user_id: str, lang: str) -> HomeData:
    link = linking.link_of(deps, team_id=team_id, user_id=user_id)
    digests = digests_of(deps, team_id=team_id, user_id=user_id, lang=lang)
    if link is None or link.state != "linked":
        return HomeData(
            link_state="expired" if link is not None else "unlinked",
            digests=digests,
        )
    client = user_client(deps, team_id=team_id, user_id=user_id)
    assert client is not None
    try:
        runs = client.list_runs_page(limit=RUNS_LOOKED_AT).items
        creator = service_user_id(deps, client, team_id=team_id, user_id=user_id)
        threads_page = client.list_threads_page(created_by=creator, limit=THREADS_SHOWN)
    except ContentApiError as exc:
        log.warning("App Home of %s: the service did not answer (%s)", user_id, exc)
        return HomeData(
            link_state="linked",
            linked_since=int(link.linked_at),
            digests=digests,
            service_unavailable=True,
        )
    active = [run_item(r) for r in runs if r.status.value in _IN_PROGRESS]
    return HomeData(
        link_state="linked",
        linked_since=int(link.linked_at),
        runs=active[:RUNS_SHOWN],
        extra_runs=max(len(active) - RUNS_SHOWN, 0),
        threads=[thread_item(th) for th in threads_page.items],
        more_threads=threads_page.next_cursor is not None,
        digests=digests,
    )


def publish(deps: Deps, *, team_id: str, user_id: str) -> None:
    """Build and publish the user's Home."""
    lang = deps.lang_of(user_id)
    view = build_home(lang=lang, data=home_data(deps, team_id=team_id, user_id=user_id, lang=lang))
    if deps.home_extras is not None:
        extras = deps.home_extras(team_id, user_id, lang)
        view["blocks"] = (view["blocks"] + extras)[:HOME_BLOCKS_MAX]
    deps.slack.views_publish(user_id=user_id, view=view)
