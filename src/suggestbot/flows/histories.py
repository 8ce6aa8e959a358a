"""History modals opened from the lists and Home: a thread's turns, a run's lineage or set.

Read with the user's own token. A thread of ready-made content has no creator and is listed to
everyone, so it is shown only to someone who refined it through the app, and then without
anyone else's instructions.
"""

from __future__ import annotations

import logging
from itertools import islice
from typing import Any

from suggestbot.contentapi import (
    ContentApiError,
    ContentClient,
    EmailPayload,
    GenerationRun,
    NotFound,
    Thread,
)
from suggestbot.flows import yours
from suggestbot.flows.deps import Deps
from suggestbot.flows.lists import run_text, user_client
from suggestbot.ui.blocks.lists import excerpt, slack_date
from suggestbot.ui.blocks.text import escape_mrkdwn
from suggestbot.ui.blocks.thread_modals import build_history_modal
from suggestbot.ui.blocks.turns import quote
from suggestbot.ui.messages import t

log = logging.getLogger(__name__)

# How many of the user's newest runs are read to tell their turns of a shared thread apart.
OWN_RUNS_READ = 500


class _NotLinked(Exception):
    """Histories are read as the user; without a link there is nothing to read as."""


class _NotYours(Exception):
    """Another person's refinement of ready-made content: listed to everyone, shown to none."""


def thread_history_entries(
    thread: Thread, lang: str, *, own: frozenset[str] | None = None
) -> list[str]:
    """A thread's turns, oldest first, each with the instruction that produced it.

    ``own``: in a thread others may refine too (ready-made content), the suggestions this user's
    runs produced; another person's instruction is not shown.
    """
    entries = []
    for turn in sorted(thread.turns or [], key=lambda turn: turn.version):
        when = slack_date(int(turn.generated_at.timestamp()))
        if turn.instruction is None:
            entries.append(t("history.turn_first", lang, n=turn.version, when=when))
        elif own is not None and turn.suggestion_id not in own:
            entries.append(t("history.turn_other", lang, n=turn.version, when=when))
        else:
            entries.append(
                t("history.turn", lang, n=turn.version, when=when) + "\n" + quote(turn.instruction)
            )
    return entries


def own_results(client: ContentClient) -> frozenset[str]:
    """Suggestions the user's own refinements produced (a signed-in user lists only their runs)."""
    return frozenset(
        run.suggestion_id
        for run in islice(client.iter_runs(limit=100), OWN_RUNS_READ)
        if run.suggestion_id
    )


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
        own: frozenset[str] | None = None
        if thread.root_origin not in yours.OWNED_ORIGINS:
            if thread_id not in yours.refined_threads(deps, team_id=team_id, user_id=user_id):
                raise _NotYours
            own = own_results(client)
        name = escape_mrkdwn(thread.name) if thread.name else t("lists.unnamed", lang)
        intro = t("history.thread_intro", lang, name=name, turns=thread.turn_count)
        entries = thread_history_entries(thread, lang, own=own)
    except _NotLinked:
        pass
    except (NotFound, _NotYours):
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
