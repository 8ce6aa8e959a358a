"""The App Home tab (``app_home_opened`` → ``views.publish``), and publishing it again.

Recent results are the user's finished briefs from the app's own records (a brief's service
thread may not exist before its first refinement), each linking to its Slack thread. Runs and
threads are read with the user's own token, and only the user's own are shown
(``flows.common.yours``). Digests come from the store's ``digests`` table, read as plain JSON so
that a missing or still empty table, or fields added later, change nothing here.

An open Home tab is not reread by Slack, so :func:`refresh` publishes it again whenever what it
shows changes: linking, unlinking, a run's outcome, a digest's change.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import ContentApiError, RunStatus
from suggestbot.flows.common import usage, workspace_language, yours
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.flows.lists.listing import THREADS, collect, run_item, start_cursor, user_client
from suggestbot.ui.blocks.digests import home_line
from suggestbot.ui.blocks.home import (
    HOME_BLOCKS_MAX,
    RESULTS_SHOWN,
    RUNS_SHOWN,
    THREADS_SHOWN,
    HomeData,
    ResultItem,
    build_home,
)
from suggestbot.ui.blocks.lists import ThreadItem

log = logging.getLogger(__name__)

# Runs in progress are found among the user's newest runs (the listing has no status filter).
RUNS_LOOKED_AT = 50
_IN_PROGRESS = frozenset({RunStatus.QUEUED.value, RunStatus.RUNNING.value})
_FINISHED = frozenset({"done", "failed"})


def digests_of(deps: Deps, *, team_id: str, user_id: str, lang: str) -> list[str]:
    """The digests this user set up, oldest first."""
    mine = deps.records.digests.matching(team_id=team_id, created_by=user_id)
    mine.sort(key=lambda digest: digest.created_at)
    return [home_line(digest, lang=lang) for digest in mine]


def _permalink(deps: Deps, channel: str, ts: str) -> str | None:
    try:
        answer: Any = deps.slack.chat_getPermalink(channel=channel, message_ts=ts)
    except SlackApiError as exc:
        log.info("no permalink for a result of %s (%s)", channel, exc.response.get("error"))
        return None
    link = answer.get("permalink")
    return str(link) if link else None


def recent_results(deps: Deps, *, team_id: str, user_id: str) -> list[ResultItem]:
    """The user's newest finished briefs, newest first, each with a link to its thread."""
    finished = deps.records.requests.matching(
        team_id=team_id,
        user_id=user_id,
        kind="brief",
        state=_FINISHED,
        newest_by="created_at",
        limit=RESULTS_SHOWN,
    )
    results = []
    for req in finished:
        channel = req.post_channel_id or req.channel_id
        results.append(
            ResultItem(
                text=req.steering_text,
                failed=req.state == "failed",
                variants=len(req.variants),
                created_at=int(req.created_at),
                link=_permalink(deps, channel, req.root_ts) if req.root_ts else None,
            )
        )
    return results


def home_data(deps: Deps, *, team_id: str, user_id: str, lang: str) -> HomeData:
    """Everything Home shows a person: their link state, recent results, digests and, when
    linked, their threads and runs (read with their own token).
    """
    link = linking.link_of(deps, team_id=team_id, user_id=user_id)
    digests = digests_of(deps, team_id=team_id, user_id=user_id, lang=lang)
    results = recent_results(deps, team_id=team_id, user_id=user_id)
    if link is None or link.state != "linked":
        return HomeData(
            link_state="expired" if link is not None else "unlinked",
            results=results,
            digests=digests,
        )
    client = user_client(deps, team_id=team_id, user_id=user_id)
    assert client is not None
    try:
        creator = yours.learn_service_user(deps, client, team_id=team_id, user_id=user_id)
        runs = client.list_runs_page(created_by=creator, limit=RUNS_LOOKED_AT).items
        found, after = collect(
            deps,
            client,
            kind=THREADS,
            team_id=team_id,
            user_id=user_id,
            cursor=start_cursor(deps, client, kind=THREADS, team_id=team_id, user_id=user_id),
            first=True,
            seen=set(),
            want=THREADS_SHOWN,
        )
    except ContentApiError as exc:
        log.warning("App Home of %s: the service did not answer (%s)", user_id, exc)
        return HomeData(
            link_state="linked",
            linked_since=int(link.linked_at),
            results=results,
            digests=digests,
            service_unavailable=True,
        )
    active = [run_item(r) for r in runs if r.status.value in _IN_PROGRESS]
    return HomeData(
        link_state="linked",
        linked_since=int(link.linked_at),
        results=results,
        runs=active[:RUNS_SHOWN],
        extra_runs=max(len(active) - RUNS_SHOWN, 0),
        threads=[item for item in found if isinstance(item, ThreadItem)],
        more_threads=not after.ended,
        digests=digests,
    )


def publish(deps: Deps, *, team_id: str, user_id: str) -> None:
    """Build and publish the user's Home."""
    lang = deps.lang_of(user_id)
    data = home_data(deps, team_id=team_id, user_id=user_id, lang=lang)
    data = replace(
        data, usage=usage.panel(deps, team_id=team_id), content_locale=deps.content_locale
    )
    view = build_home(lang=lang, data=data)
    extras = workspace_language.home_section(deps, team_id=team_id, user_id=user_id, lang=lang)
    if deps.home_extras is not None:
        extras = deps.home_extras(team_id, user_id, lang) + extras
    view["blocks"] = (view["blocks"] + extras)[:HOME_BLOCKS_MAX]
    deps.slack.views_publish(user_id=user_id, view=view)


def refresh(deps: Deps, *, team_id: str, user_id: str) -> None:
    """Publish the user's Home again after a change it shows. Best effort: the change itself
    has happened and was told; a Home that could not be refreshed is rebuilt when opened."""
    try:
        publish(deps, team_id=team_id, user_id=user_id)
    except Exception as exc:  # never let a Home refresh undo the caller's work
        log.warning("Home of %s not refreshed (%s)", user_id, type(exc).__name__)
