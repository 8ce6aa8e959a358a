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
    NotFound,
    Thread,
)
from suggestbot.flows.common import yours
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.lists.listing import run_text, user_client
from suggestbot.ui.blocks.histories import (
    LineageStep,
    SetVariant,
    TurnEntry,
    history_problem,
    lineage_entries,
    lineage_intro,
    set_entries,
    set_intro,
    thread_entries,
    thread_intro,
)
from suggestbot.ui.blocks.thread_modals import build_history_modal

log = logging.getLogger(__name__)

# How many of the user's newest runs are read to tell their turns of a shared thread apart.
OWN_RUNS_READ = 500


class _NotLinked(Exception):
    """Histories are read as the user; without a link there is nothing to read as."""


class _NotYours(Exception):
    """Another person's refinement of ready-made content: listed to everyone, shown to none."""


def thread_turns(thread: Thread, *, own: frozenset[str] | None = None) -> list[TurnEntry]:
    """A thread's turns as the modal shows them.

    ``own``: in a thread others may refine too (ready-made content), the suggestions this user's
    runs produced; another person's instruction is not shown.
    """
    return [
        TurnEntry(
            version=turn.version,
            at=int(turn.generated_at.timestamp()),
            instruction=turn.instruction,
            by_other=own is not None and turn.suggestion_id not in own,
        )
        for turn in thread.turns or []
    ]


def own_results(client: ContentClient) -> frozenset[str]:
    """Suggestions the user's own refinements produced (a signed-in user lists only their runs)."""
    return frozenset(
        run.suggestion_id
        for run in islice(client.iter_runs(limit=100), OWN_RUNS_READ)
        if run.suggestion_id
    )


def lineage_steps(suggestion: Any) -> list[LineageStep]:
    """A refined suggestion's earlier steps, original first."""
    return [
        LineageStep(
            at=int(summary.created_at.timestamp()),
            instruction=summary.instruction,
            variant=summary.variant_no,
        )
        for summary in reversed(suggestion.lineage or [])
    ]


def set_variants(variants: Any) -> list[SetVariant]:
    """A brief's variants as the modal lists them (an email's subject before its body)."""
    shown = []
    for suggestion in variants:
        payload = suggestion.payload
        if isinstance(payload, EmailPayload):
            text = f"{payload.subject} — {payload.body}"
        else:
            text = payload.body
        shown.append(
            SetVariant(number=suggestion.variant_no, kind=suggestion.kind.value, text=text)
        )
    return shown


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
    intro = history_problem(lang=lang, problem="connect")
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
        intro = thread_intro(lang=lang, name=thread.name, turns=thread.turn_count)
        entries = thread_entries(lang=lang, turns=thread_turns(thread, own=own))
    except _NotLinked:
        pass
    except (NotFound, _NotYours):
        intro = history_problem(lang=lang, problem="not_visible")
    except ContentApiError as exc:
        log.warning("reading thread %s failed: %s", thread_id, exc)
        intro = history_problem(lang=lang, problem="unavailable")
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
    intro = history_problem(lang=lang, problem="connect")
    entries: list[str] = []
    try:
        if client is None:
            raise _NotLinked
        run = client.get_run(run_id=run_id)
        if run.suggestion_id:
            suggestion = client.get_suggestion(id=run.suggestion_id, lineage=True)
            earlier = lineage_steps(suggestion)
            intro = lineage_intro(lang=lang, steps=len(earlier) + 1)
            entries = lineage_entries(
                lang=lang,
                earlier=earlier,
                at=int(run.created_at.timestamp()),
                instruction=run_text(run),
            )
        elif run.suggestion_set_id:
            found = client.get_suggestion_set(id=run.suggestion_set_id)
            intro = set_intro(lang=lang, count=len(found.suggestions), instruction=run_text(run))
            entries = set_entries(lang=lang, variants=set_variants(found.suggestions))
        else:
            intro = history_problem(lang=lang, problem="no_result")
    except _NotLinked:
        pass
    except NotFound:
        intro = history_problem(lang=lang, problem="not_visible")
    except ContentApiError as exc:
        log.warning("reading run %s failed: %s", run_id, exc)
        intro = history_problem(lang=lang, problem="unavailable")
    deps.slack.views_update(
        view_id=view_id,
        view=build_history_modal(
            lang=lang, title_key="history.run_title", intro=intro, entries=entries
        ),
    )
