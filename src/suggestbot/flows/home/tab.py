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
from suggestbot.flows.common import slackio, usage, workspace_language, yours
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.flows.lists.listing import THREADS, collect, run_item, start_cursor, user_client
from suggestbot.slack import Dropped, Priority, priority
from suggestbot.store.marks import HomeSeen
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
        return slackio.permalink(deps, channel=channel, ts=ts)
    except SlackApiError as exc:
        log.info("no permalink for a result of %s (%s)", channel, exc.response.get("error"))
    except Dropped:
        pass  # Slack's budget is short: the Home shows the result without its link this time
    return None


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


# A Home opened within this long is republished when what it shows changes; one not opened
# for longer is rebuilt when it is next opened (app_home_opened), which costs nothing now.
HOME_OPEN_S = 30 * 60
# Hashes of the last Home published per person, kept for this many people at most.
HASHES_KEPT = 20_000


def _seen_key(team_id: str, user_id: str) -> str:
    return f"{team_id}:{user_id}"


def publish(deps: Deps, *, team_id: str, user_id: str) -> None:
    """Build and publish the user's Home, now: they opened it or asked for it."""
    try:
        deps.records.home_seen.put(_seen_key(team_id, user_id), HomeSeen(at=deps.clock()))
    except Exception as exc:  # the Home still shows; only later refreshes may be skipped
        log.warning("could not record that %s opened the Home (%s)", user_id, exc)
    with priority(Priority.URGENT):
        _publish(deps, team_id=team_id, user_id=user_id, guarded=False)


def _publish(deps: Deps, *, team_id: str, user_id: str, guarded: bool) -> None:
    """Build and publish; ``guarded``: with the hash of the last publish, so that it never
    overwrites a newer Home another replica published meanwhile."""
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
    hashes = deps.outbound.home_hashes if deps.outbound is not None else None
    known = hashes.get((team_id, user_id)) if hashes is not None and guarded else None
    try:
        guard = {"hash": known} if known else {}
        answer: Any = deps.slack.views_publish(user_id=user_id, view=view, **guard)
    except SlackApiError as exc:
        if exc.response.get("error") != "hash_conflict":
            raise
        log.info("Home of %s: a newer one was published meanwhile; left as it is", user_id)
        if hashes is not None:
            hashes.pop((team_id, user_id), None)
        return
    new_hash = (answer.get("view") or {}).get("hash")
    if hashes is not None and new_hash:
        hashes.pop((team_id, user_id), None)
        hashes[(team_id, user_id)] = str(new_hash)
        while len(hashes) > HASHES_KEPT:
            hashes.pop(next(iter(hashes)))


def refresh(deps: Deps, *, team_id: str, user_id: str) -> None:
    """Publish the user's Home again after a change it shows, if they opened it lately: at
    most once per person every few seconds (the last state wins), as decoration. Best effort:
    the change itself has happened and was told; a Home that could not be refreshed is
    rebuilt when opened."""
    try:
        seen = deps.records.home_seen.get(_seen_key(team_id, user_id))
    except Exception:
        seen = None
    if seen is None or deps.clock() - seen.at > HOME_OPEN_S:
        return

    def send() -> None:
        try:
            with priority(Priority.DECORATION):
                _publish(deps, team_id=team_id, user_id=user_id, guarded=True)
        except Dropped:
            raise
        except Exception as exc:  # never let a Home refresh undo the caller's work
            log.warning("Home of %s not refreshed (%s)", user_id, type(exc).__name__)

    if deps.outbound is None:
        send()  # no gate here: nothing is dropped
    else:
        deps.outbound.homes.later((team_id, user_id), send)
