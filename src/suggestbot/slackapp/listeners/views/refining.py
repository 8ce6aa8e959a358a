"""Submissions of a refining thread's modals: Refine… (an instruction) and Rename thread."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.contentapi.checks import check_thread_name
from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.refine import replies as refine
from suggestbot.flows.rename import thread_name as rename
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import acting_user, load_metadata, view_values


def register(app: App, deps: Deps) -> None:
    # Recorded before the ack (middleware) and carried out after a crash.
    interactions.on_view(ids.VIEW_REFINE, _replay_refine)
    interactions.on_view(ids.VIEW_RENAME, _replay_rename)

    @app.view(ids.VIEW_REFINE)
    def refine_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        team_id, user_id = acting_user(body)
        values = view_values(view)
        instruction = str(values.get(ids.INPUT_INSTRUCTION) or "").strip()
        if not instruction:
            errors = field_errors.refine_empty(lang=deps.lang_of(user_id))
            ack(response_action="errors", errors=errors)
            interactions.finish_current(deps)  # nothing to carry out
            return
        ack()
        metadata = load_metadata(view.get("private_metadata"))
        in_background(
            deps,
            _submit_refine,
            deps,
            team_id,
            user_id,
            metadata,
            instruction,
            values.get(ids.INPUT_IMAGE_MODE) == refine.IMAGE_REGENERATE,
            user_id=user_id,
            channel_id=metadata.get("channel"),
        )

    @app.view(ids.VIEW_RENAME)
    def rename_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        team_id, user_id = acting_user(body)
        name = str(view_values(view).get(ids.INPUT_THREAD_NAME) or "")
        code = check_thread_name(name)
        if code:
            # The language (a Slack call) only to word the error: nothing slow before the
            # ack of a valid name.
            errors = field_errors.thread_name(code=code, lang=deps.lang_of(user_id))
            ack(response_action="errors", errors=errors)
            interactions.finish_current(deps)  # nothing to carry out
            return
        ack()
        metadata = load_metadata(view.get("private_metadata"))
        in_background(
            deps,
            _finish_rename,
            deps,
            team_id,
            user_id,
            metadata,
            name,
            user_id=user_id,
            channel_id=metadata.get("channel"),
        )


def _replay_refine(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    values = view_values(body["view"])
    instruction = str(values.get(ids.INPUT_INSTRUCTION) or "").strip()
    if instruction:
        metadata = load_metadata(body["view"].get("private_metadata"))
        regenerate = values.get(ids.INPUT_IMAGE_MODE) == refine.IMAGE_REGENERATE
        _submit_refine(deps, team_id, user_id, metadata, instruction, regenerate)


def _replay_rename(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    name = str(view_values(body["view"]).get(ids.INPUT_THREAD_NAME) or "")
    if not check_thread_name(name):
        metadata = load_metadata(body["view"].get("private_metadata"))
        _finish_rename(deps, team_id, user_id, metadata, name)


def _submit_refine(
    deps: Deps,
    team_id: str,
    user_id: str,
    metadata: dict[str, Any],
    instruction: str,
    regenerate_image: bool,
) -> None:
    channel, thread_ts = str(metadata.get("channel") or ""), str(metadata.get("thread_ts") or "")
    person = access.Person(team_id, user_id)
    if not access.may_use_thread(deps, person, channel=channel, thread_ts=thread_ts):
        return
    refine.submit_modal(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel=channel,
        thread_ts=thread_ts,
        variant=int(metadata.get("variant") or 0),
        instruction=instruction,
        regenerate_image=regenerate_image,
    )


def _finish_rename(
    deps: Deps, team_id: str, user_id: str, metadata: dict[str, Any], name: str
) -> None:
    channel, thread_ts = str(metadata.get("channel") or ""), str(metadata.get("thread_ts") or "")
    person = access.Person(team_id, user_id)
    if not access.may_use_thread(deps, person, channel=channel, thread_ts=thread_ts):
        return
    rename.finish(
        deps, team_id=team_id, user_id=user_id, channel=channel, thread_ts=thread_ts, name=name
    )
