"""The draft modal's submission: an email the person wrote, saved as a refinable suggestion."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.drafts import saving as drafts
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import acting_user, load_metadata, selected_label, view_values


def register(app: App, deps: Deps) -> None:
    # Recorded before the ack (middleware) and carried out after a crash.
    interactions.on_view(ids.VIEW_DRAFT, _save)

    @app.view(ids.VIEW_DRAFT)
    def draft_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        _, user_id = acting_user(body)
        values = view_values(view)
        subject = str(values.get(ids.INPUT_DRAFT_SUBJECT) or "")
        text = str(values.get(ids.INPUT_DRAFT_BODY) or "")
        if not (subject.strip() and text.strip()):
            errors = field_errors.draft_missing(
                subject=not subject.strip(),
                body=not text.strip(),
                lang=deps.lang_of(user_id),  # only to word the error
            )
            ack(response_action="errors", errors=errors)
            interactions.finish_current(deps)  # nothing to carry out
            return
        ack()
        metadata = load_metadata(view.get("private_metadata"))
        in_background(deps, _save, deps, body, user_id=user_id, channel_id=metadata.get("channel"))


def _save(deps: Deps, body: dict[str, Any]) -> None:
    """Save a submitted draft (after the ack, and again after a crash)."""
    team_id, user_id = acting_user(body)
    view = body["view"]
    values = view_values(view)
    subject = str(values.get(ids.INPUT_DRAFT_SUBJECT) or "")
    text = str(values.get(ids.INPUT_DRAFT_BODY) or "")
    if not (subject.strip() and text.strip()):
        return
    metadata = load_metadata(view.get("private_metadata"))
    segment_id, use_case_id = str(values[ids.INPUT_SEGMENT]), str(values[ids.INPUT_USE_CASE])
    drafts.save(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=access.where_to_post(
            deps, access.Person(team_id, user_id), str(metadata.get("channel") or "")
        ),
        segment_id=segment_id,
        use_case_id=use_case_id,
        subject=subject,
        body=text,
        labels={
            "segment": selected_label(view, ids.INPUT_SEGMENT) or segment_id,
            "use_case": selected_label(view, ids.INPUT_USE_CASE) or use_case_id,
        },
    )
