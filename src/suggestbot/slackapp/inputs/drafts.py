"""A draft: ``/suggest draft`` opens the modal for an email the person wrote; its submission is
saved as a refinable suggestion."""

from __future__ import annotations

from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.drafts import saving as drafts
from suggestbot.slackapp.edge.declaration import (
    Command,
    CommandGiven,
    Input,
    Refusal,
    Submission,
    View,
)
from suggestbot.slackapp.inputs.help import COMMAND
from suggestbot.slackapp.inputs.linking import connect_first
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import selected_label


def _open(deps: Deps, given: CommandGiven) -> None:
    if connect_first(deps, given):
        return
    assert given.trigger_id is not None
    drafts.open_modal(
        deps,
        trigger_id=given.trigger_id,
        team_id=given.team_id,
        user_id=given.user_id,
        channel_id=given.channel_id,
    )


def _subject_and_body(given: Submission) -> tuple[str, str]:
    values = given.values
    return str(values.get(ids.INPUT_DRAFT_SUBJECT) or ""), str(
        values.get(ids.INPUT_DRAFT_BODY) or ""
    )


def _check(given: Submission) -> Refusal | None:
    subject, text = _subject_and_body(given)
    if subject.strip() and text.strip():
        return None
    return Refusal(
        errors=lambda lang: field_errors.draft_missing(
            subject=not subject.strip(), body=not text.strip(), lang=lang
        )
    )


def _save(deps: Deps, given: Submission) -> None:
    """Save a submitted draft (after the ack, and again after a crash)."""
    subject, text = _subject_and_body(given)
    view = given.body.get("view") or {}
    segment_id = str(given.values[ids.INPUT_SEGMENT])
    use_case_id = str(given.values[ids.INPUT_USE_CASE])
    drafts.save(
        deps,
        team_id=given.team_id,
        user_id=given.user_id,
        channel_id=access.where_to_post(
            deps, access.Person(given.team_id, given.user_id), str(given.channel_id or "")
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


INPUTS: list[Input] = [
    Input("draft", Command(COMMAND, "draft"), run=_open, opens_modal=True),
    Input("draft_submitted", View(ids.VIEW_DRAFT), run=_save, check=_check),
]
