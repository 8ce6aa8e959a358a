"""``/suggest threads`` and ``/suggest runs``: the user's recent threads and runs, and histories.

Everything is read with the user's own token, so each person sees what the service lets them
see. Pages follow the service's cursor: the "More" button keeps it (or, when it is too long for
a button, a reference to it in the store) and the next page replaces the message pressed.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from suggestbot.contentapi import (
    ContentApiError,
    ContentClient,
    EmailPayload,
    GenerationRun,
    NotFound,
    Thread,
    UserTokenRejected,
)
from suggestbot.slackapp.blocks.lists import (
    RunItem,
    ThreadItem,
    build_run_list,
    build_thread_list,
    excerpt,
    slack_date,
)
from suggestbot.slackapp.blocks.notices import build_notice
from suggestbot.slackapp.blocks.results import Message
from suggestbot.slackapp.blocks.text import escape_mrkdwn
from suggestbot.slackapp.blocks.thread_modals import build_history_modal
from suggestbot.slackapp.blocks.turns import quote
from suggestbot.slackapp.flows import slackio
from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.flows.records import user_key
from suggestbot.slackapp.flows.refine import respond
from suggestbot.slackapp.messages import t

log = logging.getLogger(__name__)

PAGE_SIZE = 10
SERVICE_USERS_TABLE = "service_users"
CURSORS_TABLE = "list_cursors"
# A button's value holds 2,000 characters; a longer cursor is kept in the store instead.
CURSOR_IN_BUTTON_MAX = 1800
THREADS, RUNS = "threads", "runs"


def user_client(deps: Deps, *, team_id: str, user_id: str) -> ContentClient | None:
    """A client acting as the linked user, or None when they are not (or no longer) linked."""
    user = deps.records.users.get(user_key(team_id, user_id))
    if user is None or user.state != "linked":
        return None
    return deps.content.as_user(deps.vault.decrypt(user.token_enc))


def service_user_id(deps: Deps, client: ContentClient, *, team_id: str, user_id: str) -> str | None:
    """The user's id in the service (for the ``created_by`` filter), learnt from one of their
    runs and kept; None until they have created a run."""
    key = user_key(team_id, user_id)
    known = deps.records.store.get(SERVICE_USERS_TABLE, key)
    if known and known.get("id"):
        return str(known["id"])
    try:
        page = client.list_runs_page(limit=1)
    except ContentApiError:
        return None
    if not page.items:
        return None
    found = page.items[0].created_by
    deps.records.store.put(SERVICE_USERS_TABLE, key, {"id": found})
    return found


def thread_item(thread: Thread) -> ThreadItem:
    return ThreadItem(
        id=thread.id,
        name=thread.name,
        root_origin=thread.root_origin,
        turn_count=thread.turn_count,
        updated_at=int(thread.updated_at.timestamp()),
    )


def run_text(run: GenerationRun) -> str:
    request: Any = run.request
    return str(getattr(request, "steering_text", None) or getattr(request, "instruction", ""))


def run_item(run: GenerationRun) -> RunItem:
    return RunItem(
        id=run.id,
        type=run.type.value,
        status=run.status.value,
        created_at=int(run.created_at.timestamp()),
        text=run_text(run),
        history=bool(run.suggestion_id or run.suggestion_set_id),
    )


def _more_value(deps: Deps, kind: str, cursor: str | None) -> str | None:
    if not cursor:
        return None
    if len(cursor) <= CURSOR_IN_BUTTON_MAX:
        return f"{kind}|{cursor}"
    ref = uuid.uuid4().hex
    deps.records.store.put(CURSORS_TABLE, ref, {"cursor": cursor})
    return f"{kind}|ref:{ref}"


def parse_more(deps: Deps, value: str) -> tuple[str, str] | None:
    """``(kind, cursor)`` from a More button's value."""
    kind, _, cursor = value.partition("|")
    if kind not in (THREADS, RUNS) or not cursor:
        return None
    if cursor.startswith("ref:"):
        kept = deps.records.store.get(CURSORS_TABLE, cursor.removeprefix("ref:"))
        return (kind, str(kept["cursor"])) if kept else None
    return kind, cursor


def _deliver(
    deps: Deps,
    *,
    user_id: str,
    channel_id: str,
    message: Message,
    response_url: str | None,
    replace: bool,
) -> None:
    if replace and respond(response_url, message, replace=True):
        return
    slackio.notify(
        deps,
        user_id=user_id,
        channel_id=channel_id,
        message=message,
        response_url=None if replace else response_url,
    )


def page_message(
    deps: Deps, client: ContentClient, *, kind: str, team_id: str, user_id: str, cursor: str | None
) -> Message:
    """One page of the user's threads or runs, newest first."""
    lang = deps.lang_of(user_id)
    if kind == THREADS:
        creator = service_user_id(deps, client, team_id=team_id, user_id=user_id)
        threads_page = client.list_threads_page(cursor=cursor, created_by=creator, limit=PAGE_SIZE)
        return build_thread_list(
            lang=lang,
            items=[thread_item(th) for th in threads_page.items],
            more_value=_more_value(deps, THREADS, threads_page.next_cursor),
        )
    runs_page = client.list_runs_page(cursor=cursor, limit=PAGE_SIZE)
    return build_run_list(
        lang=lang,
        items=[run_item(r) for r in runs_page.items],
        more_value=_more_value(deps, RUNS, runs_page.next_cursor),
    )


def show(
    deps: Deps,
    *,
    kind: str,
    team_id: str,
    user_id: str,
    channel_id: str,
    response_url: str | None,
    cursor: str | None = None,
    replace: bool = False,
) -> None:
    """Show a page of the user's threads or runs to them (the next page replaces the last)."""
    lang = deps.lang_of(user_id)
    client = user_client(deps, team_id=team_id, user_id=user_id)
    if client is None:
        message = build_notice(lang=lang, text=t("lists.connect", lang))
    else:
        try:
            message = page_message(
                deps, client, kind=kind, team_id=team_id, user_id=user_id, cursor=cursor
            )
        except UserTokenRejected:
            message = build_notice(lang=lang, text=t("connect.expired", lang))
        except ContentApiError as exc:
            log.warning("listing %s for %s failed: %s", kind, user_id, exc)
            message = build_notice(lang=lang, text=t("lists.unavailable", lang))
    _deliver(
        deps,
        user_id=user_id,
        channel_id=channel_id,
        message=message,
        response_url=response_url,
        replace=replace,
    )


# ---------------------------------------------------------------- histories


class _NotLinked(Exception):
    """Histories are read as the user; without a link there is nothing to read as."""


def thread_history_entries(thread: Thread, lang: str) -> list[str]:
    """A thread's turns, oldest first, each with the instruction that produced it."""
    entries = []
    for turn in sorted(thread.turns or [], key=lambda turn: turn.version):
        when = slack_date(int(turn.generated_at.timestamp()))
        if turn.instruction is None:
            entries.append(t("history.turn_first", lang, n=turn.version, when=when))
        else:
            entries.append(
                t("history.turn", lang, n=turn.version, when=when) + "\n" + quote(turn.instruction)
            )
    return entries


def lineage_entries(suggestion: Any, run: GenerationRun, lang: str) -> list[str]:
    """A refined suggestion's history, original first, ending with the run's own instruction."""
    earlier = list(reversed(suggestion.lineage or []))
    entries = []
    for step, summary in enumerate(earlier, start=1):
        when = slack_date(int(summary.created_at.timestamp()))
        if summary.instruction is None:
            entries.append(
                t(
                    "history.original",
                    lang,
                    n=step,
                    when=when,
                    variant=summary.variant_no,
                )
            )
        else:
            entries.append(
                t("history.step", lang, n=step, when=when) + "\n" + quote(summary.instruction)
            )
    when = slack_date(int(run.created_at.timestamp()))
    entries.append(
        t("history.now", lang, n=len(earlier) + 1, when=when) + "\n" + quote(run_text(run))
    )
    return entries


def set_entries(variants: Any, lang: str) -> list[str]:
    entries = []
    for suggestion in variants:
        payload = suggestion.payload
        kind = t(f"variant.kind.{suggestion.kind.value}", lang)
        if isinstance(payload, EmailPayload):
            text = f"{payload.subject} — {payload.body}"
        else:
            text = payload.body
        entries.append(
            t("history.variant", lang, n=suggestion.variant_no, kind=kind)
            + "\n"
            + escape_mrkdwn(excerpt(text, 300))
        )
    return entries


def _open_loading(deps: Deps, *, trigger_id: str, lang: str, title_key: str) -> str:
    loading = build_history_modal(
        lang=lang, title_key=title_key, intro="", entries=[], loading=True
    )
    opened: Any = deps.slack.views_open(trigger_id=trigger_id, view=loading)
    return str(opened["view"]["id"])


def open_thread_history(
    deps: Deps, *, trigger_id: str, team_id: str, user_id: str, thread_id: str
) -> None:
    """A modal with the thread's turns, oldest first (``GET /v1/threads/{id}``)."""
    lang = deps.lang_of(user_id)
    view_id = _open_loading(
        deps, trigger_id=trigger_id, lang=lang, title_key="history.thread_title"
    )
    client = user_client(deps, team_id=team_id, user_id=user_id)
    intro = t("lists.connect", lang)
    entries: list[str] = []
    try:
        if client is None:
            raise _NotLinked
        thread = client.get_thread(thread_id=thread_id)
        name = escape_mrkdwn(thread.name) if thread.name else t("lists.unnamed", lang)
        intro = t("history.thread_intro", lang, name=name, turns=thread.turn_count)
        entries = thread_history_entries(thread, lang)
    except _NotLinked:
        pass
    except NotFound:
        intro = t("history.not_visible", lang)
    except ContentApiError as exc:
        log.warning("reading thread %s failed: %s", thread_id, exc)
        intro = t("lists.unavailable", lang)
    deps.slack.views_update(
        view_id=view_id,
        view=build_history_modal(
            lang=lang, title_key="history.thread_title", intro=intro, entries=entries
        ),
    )


def open_run_history(
    deps: Deps, *, trigger_id: str, team_id: str, user_id: str, run_id: str
) -> None:
    """A modal with a run's result history: the lineage of a refinement (``expand=lineage``),
    or the variants of a brief's set."""
    lang = deps.lang_of(user_id)
    view_id = _open_loading(deps, trigger_id=trigger_id, lang=lang, title_key="history.run_title")
    client = user_client(deps, team_id=team_id, user_id=user_id)
    intro = t("lists.connect", lang)
    entries: list[str] = []
    try:
        if client is None:
            raise _NotLinked
        run = client.get_run(run_id=run_id)
        if run.suggestion_id:
            suggestion = client.get_suggestion(id=run.suggestion_id, lineage=True)
            intro = t("history.lineage_intro", lang, steps=len(suggestion.lineage or []) + 1)
            entries = lineage_entries(suggestion, run, lang)
        elif run.suggestion_set_id:
            found = client.get_suggestion_set(id=run.suggestion_set_id)
            intro = (
                t("history.set_intro", lang, count=len(found.suggestions))
                + "\n"
                + quote(run_text(run))
            )
            entries = set_entries(found.suggestions, lang)
        else:
            intro = t("history.no_result", lang)
    except _NotLinked:
        pass
    except NotFound:
        intro = t("history.not_visible", lang)
    except ContentApiError as exc:
        log.warning("reading run %s failed: %s", run_id, exc)
        intro = t("lists.unavailable", lang)
    deps.slack.views_update(
        view_id=view_id,
        view=build_history_modal(
            lang=lang, title_key="history.run_title", intro=intro, entries=entries
        ),
    )
