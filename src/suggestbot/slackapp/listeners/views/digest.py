"""The "add digest" modal's submission: checked at once (field errors), created after the ack."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows import digests, slackio
from suggestbot.flows.deps import Deps
from suggestbot.flows.digests.schedule import is_valid_zone, parse_hhmm
from suggestbot.flows.inspiration import Pair
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.digests import QUIET
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.messages import t
from suggestbot.ui.payloads import load_metadata, selected_label


def _state(view: dict[str, Any], block_id: str) -> dict[str, Any]:
    for action in (view.get("state") or {}).get("values", {}).get(block_id, {}).values():
        return dict(action)
    return {}


def read_form(view: dict[str, Any]) -> dict[str, Any]:
    """The modal's values: ids of the choices, ``time`` as typed, weekday numbers."""
    segment = _state(view, ids.INPUT_DIGEST_SEGMENT).get("selected_option") or {}
    use_case = _state(view, ids.INPUT_DIGEST_USE_CASE).get("selected_option") or {}
    quiet = _state(view, ids.INPUT_DIGEST_QUIET).get("selected_option") or {}
    days = _state(view, ids.INPUT_DIGEST_WEEKDAYS).get("selected_options") or []
    return {
        "segment_id": segment.get("value"),
        "use_case_id": use_case.get("value"),
        "time": str(_state(view, ids.INPUT_DIGEST_TIME).get("selected_time") or ""),
        "tz": str(_state(view, ids.INPUT_DIGEST_TZ).get("value") or "").strip(),
        "weekdays": sorted({int(o["value"]) for o in days if str(o.get("value")).isdigit()}),
        "quiet": quiet.get("value") == QUIET,
    }


def form_errors(form: dict[str, Any], lang: str) -> dict[str, str]:
    errors: dict[str, str] = {}
    try:
        parse_hhmm(form["time"])
    except ValueError:
        errors[ids.INPUT_DIGEST_TIME] = t("digest.bad_time", lang)
    if not is_valid_zone(form["tz"]):
        errors[ids.INPUT_DIGEST_TZ] = t("digest.bad_tz", lang, tz=form["tz"])
    if not form["weekdays"]:
        errors[ids.INPUT_DIGEST_WEEKDAYS] = t("digest.no_weekdays", lang)
    if not form["segment_id"]:
        errors[ids.INPUT_DIGEST_SEGMENT] = t("digest.choose", lang)
    if not form["use_case_id"]:
        errors[ids.INPUT_DIGEST_USE_CASE] = t("digest.choose", lang)
    return errors


def register(app: App, deps: Deps) -> None:
    # Recorded before the ack (middleware) and carried out after a crash.
    interactions.on_view(ids.VIEW_DIGEST_ADD, _replay_create)

    @app.view(ids.VIEW_DIGEST_ADD)
    def digest_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        form = read_form(view)
        if form_errors(form, "en"):
            # The language (a Slack call) only to word the errors.
            ack(response_action="errors", errors=form_errors(form, deps.lang_of(user_id)))
            return
        ack()
        channel_id = load_metadata(view.get("private_metadata")).get("channel") or user_id
        in_background(
            deps,
            _create,
            deps,
            body,
            form,
            channel_id,
            user_id=user_id,
            channel_id=channel_id,
        )


def _replay_create(deps: Deps, body: dict[str, Any]) -> None:
    form = read_form(body["view"])
    if not form_errors(form, "en"):
        channel_id = load_metadata(body["view"].get("private_metadata")).get("channel")
        _create(deps, body, form, channel_id or body["user"]["id"])


def _create(deps: Deps, body: dict[str, Any], form: dict[str, Any], channel_id: str) -> None:
    user_id, team_id = body["user"]["id"], body["user"]["team_id"]
    lang = deps.lang_of(user_id)
    view = body["view"]
    pair = Pair(
        form["segment_id"],
        selected_label(view, ids.INPUT_DIGEST_SEGMENT) or form["segment_id"],
        form["use_case_id"],
        selected_label(view, ids.INPUT_DIGEST_USE_CASE) or form["use_case_id"],
    )
    digest = digests.create(
        deps,
        team_id=team_id,
        channel_id=channel_id,
        user_id=user_id,
        pair=pair,
        time=parse_hhmm(form["time"]).strftime("%H:%M"),
        tz=form["tz"],
        weekdays=form["weekdays"],
        quiet_when_unchanged=form["quiet"],
        lang=lang,
    )
    slackio.notify(
        deps,
        user_id=user_id,
        channel_id=channel_id,
        message=build_notice(
            lang=lang, text=digests.describe_added(digest, lang=lang, now=deps.clock())
        ),
    )
