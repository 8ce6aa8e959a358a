"""Buttons and modals of refining threads, drafts, lists and App Home.

As everywhere, each listener acks first and leaves the work to ``in_background``; a modal is
opened from the background within the trigger's 3 seconds (no service call before it).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App

from suggestbot.contentapi.checks import check_thread_name
from suggestbot.flows import (
    drafts,
    histories,
    home,
    linking,
    lists,
    refine,
    refine_again,
    rename,
    threads,
    turns,
)
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.slackapp.listeners.commands import open_connect_modal
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.thread_modals import build_instruction_modal, build_refine_modal
from suggestbot.ui.messages import t
from suggestbot.ui.payloads import dump_metadata, load_metadata, selected_label, view_values

log = logging.getLogger(__name__)

_CHOOSE = re.compile(rf"^{re.escape(ids.ACTION_CHOOSE_VARIANT)}\.\d+$")


def _value(body: dict[str, Any]) -> str:
    return str(body["actions"][0].get("value") or "")


def _user(body: dict[str, Any]) -> tuple[str, str]:
    user = body["user"]
    return str(user.get("team_id") or (body.get("team") or {}).get("id") or ""), str(user["id"])


def _where(body: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(channel, thread root ts, message ts) of the message a button sits in."""
    container = body.get("container") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    message = body.get("message") or {}
    message_ts = container.get("message_ts") or message.get("ts")
    thread_ts = container.get("thread_ts") or message.get("thread_ts") or message_ts
    return channel, thread_ts, message_ts


def register(app: App, deps: Deps) -> None:
    def on(
        action: str | re.Pattern[str],
        work: Callable[[Deps, dict[str, Any]], None],
        *,
        replay: bool = False,
    ) -> None:
        if replay:  # starts work: recorded before the ack, carried out after a crash
            interactions.on_action(action, work)

        @app.action(action)
        def listener(ack: Ack, body: dict[str, Any]) -> None:
            ack()
            in_background(
                deps,
                work,
                deps,
                body,
                user_id=body["user"]["id"],
                channel_id=_where(body)[0],
                response_url=body.get("response_url"),
            )

    on(ids.ACTION_REFINE_OPEN, _open_refine)
    on(_CHOOSE, _choose, replay=True)
    on(ids.ACTION_RENAME_OPEN, _open_rename)
    on(ids.ACTION_REFRESH_TURN, _refresh_turn, replay=True)
    on(ids.ACTION_SHOW_INSTRUCTION, _show_instruction)
    on(ids.ACTION_REFINE_HEAD, _refine_head, replay=True)
    on(ids.ACTION_RESEND_WITHOUT_IMAGE, _without_image, replay=True)
    on(ids.ACTION_LIST_MORE, _more)
    on(ids.ACTION_THREAD_HISTORY, _thread_history)
    on(ids.ACTION_RUN_HISTORY, _run_history)
    on(ids.ACTION_HOME_DISCONNECT, _home_disconnect, replay=True)
    on(ids.ACTION_HOME_REFRESH, _home_refresh)
    # Submissions are recorded before the ack (middleware) and carried out after a crash.
    interactions.on_view(ids.VIEW_REFINE, _replay_refine)
    interactions.on_view(ids.VIEW_RENAME, _replay_rename)
    interactions.on_view(ids.VIEW_DRAFT, _replay_draft)

    @app.view(ids.VIEW_REFINE)
    def refine_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        team_id, user_id = _user(body)
        values = view_values(view)
        instruction = str(values.get(ids.INPUT_INSTRUCTION) or "").strip()
        if not instruction:
            lang = deps.lang_of(user_id)
            ack(response_action="errors", errors={ids.INPUT_INSTRUCTION: t("refine.empty", lang)})
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
        team_id, user_id = _user(body)
        name = str(view_values(view).get(ids.INPUT_THREAD_NAME) or "")
        if check_thread_name(name):
            # The language (a Slack call) only to word the error: nothing slow before the
            # ack of a valid name.
            problem = rename.name_problem(name, deps.lang_of(user_id)) or ""
            ack(response_action="errors", errors={ids.INPUT_THREAD_NAME: problem})
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

    @app.view(ids.VIEW_DRAFT)
    def draft_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        _, user_id = _user(body)
        values = view_values(view)
        subject = str(values.get(ids.INPUT_DRAFT_SUBJECT) or "")
        text = str(values.get(ids.INPUT_DRAFT_BODY) or "")
        if not (subject.strip() and text.strip()):
            lang = deps.lang_of(user_id)  # only to word the error
            errors = {}
            if not subject.strip():
                errors[ids.INPUT_DRAFT_SUBJECT] = t("draft.empty_subject", lang)
            if not text.strip():
                errors[ids.INPUT_DRAFT_BODY] = t("draft.empty_body", lang)
            ack(response_action="errors", errors=errors)
            return
        ack()
        metadata = load_metadata(view.get("private_metadata"))
        in_background(
            deps,
            _replay_draft,
            deps,
            body,
            user_id=user_id,
            channel_id=metadata.get("channel"),
        )


def _replay_refine(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    values = view_values(body["view"])
    instruction = str(values.get(ids.INPUT_INSTRUCTION) or "").strip()
    if instruction:
        metadata = load_metadata(body["view"].get("private_metadata"))
        regenerate = values.get(ids.INPUT_IMAGE_MODE) == refine.IMAGE_REGENERATE
        _submit_refine(deps, team_id, user_id, metadata, instruction, regenerate)


def _replay_rename(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    name = str(view_values(body["view"]).get(ids.INPUT_THREAD_NAME) or "")
    if not check_thread_name(name):
        metadata = load_metadata(body["view"].get("private_metadata"))
        _finish_rename(deps, team_id, user_id, metadata, name)


def _replay_draft(deps: Deps, body: dict[str, Any]) -> None:
    """Save a submitted draft (after the ack, and again after a crash)."""
    team_id, user_id = _user(body)
    view = body["view"]
    values = view_values(view)
    subject = str(values.get(ids.INPUT_DRAFT_SUBJECT) or "")
    text = str(values.get(ids.INPUT_DRAFT_BODY) or "")
    if not (subject.strip() and text.strip()):
        return
    metadata = load_metadata(view.get("private_metadata"))
    labels = {
        "segment": selected_label(view, ids.INPUT_SEGMENT) or str(values[ids.INPUT_SEGMENT]),
        "use_case": selected_label(view, ids.INPUT_USE_CASE) or str(values[ids.INPUT_USE_CASE]),
    }
    _save_draft(
        deps,
        team_id,
        user_id,
        str(metadata.get("channel") or user_id),
        str(values[ids.INPUT_SEGMENT]),
        str(values[ids.INPUT_USE_CASE]),
        subject,
        text,
        labels,
    )


# ---------------------------------------------------------------- buttons in threads


def _open_refine(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    channel, thread_ts, _ = _where(body)
    if not (channel and thread_ts):
        return
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        open_connect_modal(
            deps,
            trigger_id=body["trigger_id"],
            user_id=user_id,
            channel_id=channel,
            response_url=body.get("response_url"),
        )
        return
    lang = deps.lang_of(user_id)
    try:
        binding = threads.binding_of(deps, channel=channel, thread_ts=thread_ts)
    except threads.NotReady:
        binding = None
    if binding is None:
        return
    variant, _kind, has_image, is_head = refine.refine_target(
        binding, pressed_suggestion=_value(body)
    )
    note = None
    if variant and len(binding.suggestions) > 1:
        note = t("refine.note_variant", lang, n=variant)
    elif not is_head:
        note = t("refine.note_newest", lang, n=binding.turn_count)
    metadata = dump_metadata({"channel": channel, "thread_ts": thread_ts, "variant": variant})
    deps.slack.views_open(
        trigger_id=body["trigger_id"],
        view=build_refine_modal(
            lang=lang, private_metadata=metadata, with_image=has_image, note=note
        ),
    )


def _submit_refine(
    deps: Deps,
    team_id: str,
    user_id: str,
    metadata: dict[str, Any],
    instruction: str,
    regenerate_image: bool,
) -> None:
    channel, thread_ts = metadata.get("channel"), metadata.get("thread_ts")
    if not (channel and thread_ts):
        return
    refine.submit_modal(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel=str(channel),
        thread_ts=str(thread_ts),
        variant=int(metadata.get("variant") or 0),
        instruction=instruction,
        regenerate_image=regenerate_image,
    )


def _choose(deps: Deps, body: dict[str, Any]) -> None:
    _, user_id = _user(body)
    refine.on_choice(
        deps, value=_value(body), user_id=user_id, response_url=body.get("response_url")
    )


def _open_rename(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    channel, _, thread_ts = _value(body).partition(":")  # the binding's key
    if not (channel and thread_ts):
        return
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        open_connect_modal(
            deps,
            trigger_id=body["trigger_id"],
            user_id=user_id,
            channel_id=channel,
            response_url=body.get("response_url"),
        )
        return
    rename.open_modal(
        deps, trigger_id=body["trigger_id"], user_id=user_id, channel=channel, thread_ts=thread_ts
    )


def _finish_rename(
    deps: Deps, team_id: str, user_id: str, metadata: dict[str, Any], name: str
) -> None:
    rename.finish(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel=str(metadata.get("channel") or ""),
        thread_ts=str(metadata.get("thread_ts") or ""),
        name=name,
    )


def _refresh_turn(deps: Deps, body: dict[str, Any]) -> None:
    channel, _, message_ts = _where(body)
    if channel and message_ts:
        turns.refresh_turn_preview(deps, request_id=_value(body), channel=channel, ts=message_ts)


def _show_instruction(deps: Deps, body: dict[str, Any]) -> None:
    """Open the whole instruction of a refinement whose thread quotes only its beginning."""
    req = deps.records.requests.get(_value(body))
    if req is None:
        return
    lang = deps.lang_of(body["user"]["id"])
    instruction = str(req.body.get("instruction") or "")
    view = build_instruction_modal(lang=lang, instruction=instruction)
    deps.slack.views_open(trigger_id=body["trigger_id"], view=view)


def _refine_head(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    refine_again.refine_head(deps, request_id=_value(body), team_id=team_id, acting_user=user_id)


def _without_image(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    refine_again.resend_without_image(
        deps, request_id=_value(body), team_id=team_id, acting_user=user_id
    )


# ---------------------------------------------------------------- drafts, lists, home


def _save_draft(
    deps: Deps,
    team_id: str,
    user_id: str,
    channel_id: str,
    segment_id: str,
    use_case_id: str,
    subject: str,
    text: str,
    labels: dict[str, str],
) -> None:
    drafts.save(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        segment_id=segment_id,
        use_case_id=use_case_id,
        subject=subject,
        body=text,
        labels=labels,
    )


def _more(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    lists.more(
        deps,
        value=_value(body),
        team_id=team_id,
        user_id=user_id,
        channel_id=_where(body)[0] or user_id,
        response_url=body.get("response_url"),
    )


def _thread_history(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    histories.open_thread_history(
        deps,
        trigger_id=body["trigger_id"],
        team_id=team_id,
        user_id=user_id,
        thread_id=_value(body),
    )


def _run_history(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    histories.open_run_history(
        deps, trigger_id=body["trigger_id"], team_id=team_id, user_id=user_id, run_id=_value(body)
    )


def _home_disconnect(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    linking.unlink(deps, team_id=team_id, user_id=user_id)
    home.publish(deps, team_id=team_id, user_id=user_id)


def _home_refresh(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = _user(body)
    home.publish(deps, team_id=team_id, user_id=user_id)
