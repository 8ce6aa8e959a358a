"""Feedback: the thumbs under a variant or turn, the optional "what was wrong?" modal after a
thumbs-down, and a gallery card's "Copy text".

A press is counted after its ack; a new thumbs-down then asks why, in a modal that may be
skipped (only while the press's trigger is fresh: a press carried out after a restart counts
without asking).
"""

from __future__ import annotations

from suggestbot.flows.brief import results
from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.feedback import votes as feedback
from suggestbot.slackapp.edge.answer import answer, person
from suggestbot.slackapp.edge.declaration import Action, Input, Press, Submission, View
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.feedback import build_reason_modal, parse_press
from suggestbot.ui.blocks.gallery import build_copy_gone


def _pressed(deps: Deps, press: Press) -> None:
    parsed_press = parse_press(press.value)
    if parsed_press is None:
        return
    positive, what = parsed_press
    parsed = feedback.parse_value(what)
    if parsed is None or access.request(deps, person(press), parsed[0]) is None:
        return  # a variant the person cannot see is not theirs to vote on
    cast = feedback.vote(
        deps, team_id=press.team_id, user_id=press.user_id, value=what, positive=positive
    )
    if cast is None or positive or not cast[1] or not press.trigger_id:
        return
    view = build_reason_modal(lang=deps.lang_of(press.user_id), value=what)
    deps.slack.views_open(trigger_id=press.trigger_id, view=view)


def _copy_text(deps: Deps, press: Press) -> None:
    lang = deps.lang_of(press.user_id)
    parsed = feedback.parse_value(press.value)
    readable = parsed and access.request(deps, person(press), parsed[0]) is not None
    messages = (
        results.copy_text(deps, request_id=parsed[0], variant_no=parsed[1], lang=lang)
        if parsed and readable
        else None
    )
    for message in messages or [build_copy_gone(lang=lang)]:
        answer(deps, press, message)


def _reason(deps: Deps, given: Submission) -> None:
    reason = str(given.values.get(ids.INPUT_FEEDBACK_REASON) or "")
    feedback.explain(
        deps,
        team_id=given.team_id,
        user_id=given.user_id,
        value=str((given.body.get("view") or {}).get("private_metadata") or ""),
        reason=reason,
    )


INPUTS: list[Input] = [
    Input("feedback", Action(ids.ACTION_FEEDBACK), run=_pressed),
    Input("copy_text", Action(ids.ACTION_COPY_TEXT), run=_copy_text, read_only=True),
    Input("feedback_reason", View(ids.VIEW_FEEDBACK_REASON), run=_reason),
]
