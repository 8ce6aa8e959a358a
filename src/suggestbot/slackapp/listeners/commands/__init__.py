"""``/suggest``: one slash command, routed by its first word."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App

from suggestbot.contentapi import SteeredGenerationRequest
from suggestbot.contentapi.checks import check_brief
from suggestbot.flows import brief, home, linking, slackio
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.slackapp.listeners.commands import digest, inspire, refining
from suggestbot.store.records import HeldInput, user_key
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.modals import (
    MODAL_INPUT_MAX,
    build_brief_modal,
    build_connect_modal,
)
from suggestbot.ui.blocks.notices import build_help, build_notice, build_returned_text
from suggestbot.ui.blocks.results import Button
from suggestbot.ui.messages import t
from suggestbot.ui.payloads import dump_metadata, parse_command

log = logging.getLogger(__name__)

COMMAND = "/suggest"


def register(app: App, deps: Deps) -> None:
    @app.command(COMMAND)
    def suggest(ack: Ack, body: dict[str, Any]) -> None:
        # A brief that can go straight to a run is recorded before the ack: Slack never resends
        # a command it had an answer for, so a crash right after the ack must not lose it.
        recorded = record_quick_brief(deps, body)
        ack()
        if recorded is not None:
            in_background(
                deps,
                _launch,
                deps,
                recorded,
                body.get("response_url"),
                user_id=body["user_id"],
                channel_id=body.get("channel_id"),
                response_url=body.get("response_url"),
            )
            return
        in_background(
            deps,
            handle,
            deps,
            body,
            user_id=body["user_id"],
            channel_id=body.get("channel_id"),
            response_url=body.get("response_url"),
        )


def handle(deps: Deps, body: dict[str, Any]) -> None:
    sub, rest = parse_command(body.get("text"))
    handler = _SUBCOMMANDS.get(sub)
    if handler is None:
        lang = deps.lang_of(body["user_id"])
        _reply(deps, body, build_help(lang=lang, intro=t("help.unknown_subcommand", lang, sub=sub)))
        return
    handler(deps, body, rest)


def _reply(deps: Deps, body: dict[str, Any], message: Any) -> None:
    slackio.notify(
        deps,
        user_id=body["user_id"],
        channel_id=body["channel_id"],
        message=message,
        response_url=body.get("response_url"),
    )


def _help(deps: Deps, body: dict[str, Any], rest: str) -> None:
    _reply(deps, body, build_help(lang=deps.lang_of(body["user_id"])))


def _connect(deps: Deps, body: dict[str, Any], rest: str) -> None:
    open_connect_modal(
        deps,
        trigger_id=body["trigger_id"],
        user_id=body["user_id"],
        channel_id=body.get("channel_id"),
        response_url=body.get("response_url"),
    )


def open_connect_modal(
    deps: Deps,
    *,
    trigger_id: str,
    user_id: str,
    held_id: str = "",
    channel_id: str | None = None,
    response_url: str | None = None,
) -> None:
    """The connect modal. Where the user was (channel, response_url) travels with it, so the
    outcome can be told to them there once the token has been checked."""
    lang = deps.lang_of(user_id)
    context = {"held": held_id, "channel": channel_id, "response_url": response_url}
    metadata = dump_metadata({k: v for k, v in context.items() if v})
    deps.slack.views_open(
        trigger_id=trigger_id, view=build_connect_modal(lang=lang, private_metadata=metadata)
    )


def _disconnect(deps: Deps, body: dict[str, Any], rest: str) -> None:
    lang = deps.lang_of(body["user_id"])
    removed = linking.unlink(deps, team_id=body["team_id"], user_id=body["user_id"])
    text = t("disconnect.done" if removed else "disconnect.none", lang)
    _reply(deps, body, build_notice(lang=lang, text=text))
    if removed:
        home.refresh(deps, team_id=body["team_id"], user_id=body["user_id"])


def _status(deps: Deps, body: dict[str, Any], rest: str) -> None:
    lang = deps.lang_of(body["user_id"])
    link = linking.link_of(deps, team_id=body["team_id"], user_id=body["user_id"])
    if link is None:
        lines = [t("status.unlinked", lang)]
    elif link.state == "expired" and link.expired_reason == "unreadable":
        lines = [t("status.unreadable", lang)]
    elif link.state == "expired":
        lines = [t("status.expired", lang, since=_date(link.expired_at or link.linked_at))]
    else:
        lines = [t("status.linked", lang, since=_date(link.linked_at))]
    mode = t("status.mode_embedded" if deps.embedded else "status.mode_service", lang)
    try:
        deps.catalog()
        lines.append(t("status.workspace_ok", lang, mode=mode))
    except Exception:
        lines.append(t("status.workspace_down", lang))
    _reply(deps, body, build_notice(lang=lang, text="\n".join(lines)))


def _date(epoch: float) -> str:
    return f"<!date^{int(epoch)}^{{date_short_pretty}} {{time}}|{int(epoch)}>"


def _brief(deps: Deps, body: dict[str, Any], rest: str) -> None:
    team_id, user_id, channel_id = body["team_id"], body["user_id"], body["channel_id"]
    lang = deps.lang_of(user_id)
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        held = HeldInput(team_id=team_id, user_id=user_id, channel_id=channel_id, text=rest)
        deps.records.held.put(held.id, held)
        prompt = build_notice(
            lang=lang,
            text=t("connect.needed", lang),
            buttons=[
                Button("connect.button", ids.ACTION_CONNECT, f"held:{held.id}", "primary"),
                Button("button.resend", ids.ACTION_RESEND, held.id),
            ],
        )
        _reply(deps, body, prompt)
        return
    problem = check_brief(rest) if rest else None
    if problem and len(rest) > MODAL_INPUT_MAX:
        # Too long for the modal to hold for editing: say why, and give the text back whole.
        _reply(
            deps, body, build_returned_text(lang=lang, problem=brief_problem(rest, lang), text=rest)
        )
        return
    # Decided as before the ack (the catalogue as last known); only an app that never loaded
    # one loads it now, so a linked user's remembered choices are used from the first brief.
    quick = None
    if rest and problem is None:
        quick = _quick_request(deps, team_id, user_id, rest, load=True)
    if quick is not None:
        run_request, labels = quick
        brief.start(
            deps,
            team_id=team_id,
            user_id=user_id,
            channel_id=channel_id,
            run_request=run_request,
            labels=labels,
            response_url=body.get("response_url"),
        )
        return
    open_brief_modal(
        deps,
        trigger_id=body["trigger_id"],
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        text=rest,
        response_url=body.get("response_url"),
    )


def record_quick_brief(deps: Deps, body: dict[str, Any]) -> str | None:
    """Record ``/suggest brief <text>`` from a linked user with remembered choices (the one
    command that goes straight to a run); the request id, or None for anything else."""
    sub, rest = parse_command(body.get("text"))
    team_id, user_id, channel_id = body.get("team_id"), body.get("user_id"), body.get("channel_id")
    if sub != "brief" or not (rest and team_id and user_id and channel_id):
        return None
    if check_brief(rest) or not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        return None
    quick = _quick_request(deps, team_id, user_id, rest)
    if quick is None:
        return None
    run_request, labels = quick
    req = brief.record(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        run_request=run_request,
        labels=labels,
    )
    return req.id


def _quick_request(
    deps: Deps, team_id: str, user_id: str, text: str, *, load: bool = False
) -> tuple[SteeredGenerationRequest, dict[str, str]] | None:
    """The run request and labels of a brief sent with the user's remembered choices, or None
    when there are none to use. ``load``: ask the service for the catalogue if none is known
    (never before an ack)."""
    defaults = _remembered_defaults(deps, team_id=team_id, user_id=user_id, load=load)
    if defaults is None:
        return None
    segment_id, use_case_id, variants, labels = defaults
    labels = {**labels, brief.REUSED_LABEL: "yes"}
    run_request = brief.steered_request(
        segment_id=segment_id, use_case_id=use_case_id, text=text, variants=variants
    )
    return run_request, labels


def _launch(deps: Deps, request_id: str, response_url: str | None) -> None:
    brief.launch(deps, request_id, response_url=response_url)


def _remembered_defaults(
    deps: Deps, *, team_id: str, user_id: str, load: bool = False
) -> tuple[str, str, int, dict[str, str]] | None:
    """The user's last segment, use case and variant count, if all still exist in the
    catalogue as last known (kept in the store: the answer does not change with a restart)."""
    prefs = deps.records.preferences.get(user_key(team_id, user_id))
    catalog = deps.known_catalog() if prefs else None
    if prefs and catalog is None and load:
        catalog = deps.catalog()
    if not (prefs and prefs.segment_id and prefs.use_case_id and catalog):
        return None
    segments, use_cases = dict(catalog.segments), dict(catalog.use_cases)
    if prefs.segment_id not in segments or prefs.use_case_id not in use_cases:
        return None
    labels = {"segment": segments[prefs.segment_id], "use_case": use_cases[prefs.use_case_id]}
    return prefs.segment_id, prefs.use_case_id, prefs.variants, labels


def brief_problem(text: str, lang: str) -> str:
    """The sentence for a brief the service would refuse (see ``check_brief``)."""
    code = check_brief(text) or "input_rejected"
    return t(f"brief.{code}", lang, count=len(text))


def open_brief_modal(
    deps: Deps,
    *,
    trigger_id: str,
    team_id: str,
    user_id: str,
    channel_id: str,
    text: str = "",
    request_id: str | None = None,
    segment_id: str | None = None,
    use_case_id: str | None = None,
    variants: int | None = None,
    response_url: str | None = None,
) -> None:
    """Open the brief modal at once (a trigger lives 3 seconds): from the cached catalogue when
    there is one, else as a "loading" view that is filled in when the catalogue arrives."""
    lang = deps.lang_of(user_id)
    prefs = deps.records.preferences.get(user_key(team_id, user_id))
    metadata: dict[str, Any] = {"channel": channel_id}
    if request_id:
        metadata["request"] = request_id
    if response_url:
        # Lets the app reach the user in a channel it is not a member of (valid 30 minutes).
        metadata["response_url"] = response_url
    long_chars = None
    if len(text) > MODAL_INPUT_MAX:
        # Slack's input cannot hold it: keep the whole brief aside and send it as typed.
        held = HeldInput(team_id=team_id, user_id=user_id, channel_id=channel_id, text=text)
        deps.records.held.put(held.id, held)
        metadata["held"] = held.id
        long_chars = len(text)

    def build(catalog: Any) -> dict[str, Any]:
        return build_brief_modal(
            lang=lang,
            segments=catalog.segments,
            use_cases=catalog.use_cases,
            initial_text=text,
            initial_segment=segment_id or (prefs.segment_id if prefs else None),
            initial_use_case=use_case_id or (prefs.use_case_id if prefs else None),
            initial_variants=variants or (prefs.variants if prefs else 1),
            private_metadata=json.dumps(metadata),
            long_brief_chars=long_chars,
        )

    catalog = deps.cached_catalog()
    if catalog is not None:
        deps.slack.views_open(trigger_id=trigger_id, view=build(catalog))
        return
    loading = build_brief_modal(lang=lang, segments=[], use_cases=[])
    loading["blocks"][0]["text"]["text"] = t("brief.loading", lang)
    opened: Any = deps.slack.views_open(trigger_id=trigger_id, view=loading)
    view = opened["view"]
    deps.slack.views_update(view_id=view["id"], hash=view.get("hash"), view=build(deps.catalog()))


_SUBCOMMANDS: dict[str, Callable[[Deps, dict[str, Any], str], None]] = {
    "help": _help,
    "connect": _connect,
    "disconnect": _disconnect,
    "status": _status,
    "brief": _brief,
    "inspire": inspire.handle,
    "digest": digest.handle,
    # refining threads: drafts and the user's lists
    "draft": refining.draft,
    "threads": refining.threads,
    "runs": refining.runs,
}
