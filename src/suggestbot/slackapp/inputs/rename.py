"""Renaming a refining thread: [Rename thread] and its modal."""

from __future__ import annotations

from suggestbot.contentapi.checks import check_thread_name
from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.rename import thread_name as rename
from suggestbot.slackapp.edge.answer import person
from suggestbot.slackapp.edge.declaration import Action, Input, Press, Refusal, Submission, View
from suggestbot.slackapp.inputs.refine import connect_first, usable_thread
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids


def _open(deps: Deps, press: Press) -> None:
    assert press.trigger_id is not None
    channel, _, thread_ts = press.value.partition(":")  # the binding's key
    if not (channel and thread_ts):
        return
    if not access.may_use_thread(deps, person(press), channel=channel, thread_ts=thread_ts):
        return
    if connect_first(deps, press, channel=channel):
        return
    rename.open_modal(
        deps,
        trigger_id=press.trigger_id,
        user_id=press.user_id,
        channel=channel,
        thread_ts=thread_ts,
    )


def _name(given: Submission) -> str:
    return str(given.values.get(ids.INPUT_THREAD_NAME) or "")


def _check(given: Submission) -> Refusal | None:
    code = check_thread_name(_name(given))
    if not code:
        return None
    return Refusal(errors=lambda lang: field_errors.thread_name(code=code, lang=lang))


def _renamed(deps: Deps, given: Submission) -> None:
    thread = usable_thread(deps, given)
    if thread is None:
        return
    channel, thread_ts = thread
    rename.finish(
        deps,
        team_id=given.team_id,
        user_id=given.user_id,
        channel=channel,
        thread_ts=thread_ts,
        name=_name(given),
    )


INPUTS: list[Input] = [
    Input("rename_open", Action(ids.ACTION_RENAME_OPEN), run=_open, opens_modal=True),
    Input("rename_submitted", View(ids.VIEW_RENAME), run=_renamed, check=_check),
]
