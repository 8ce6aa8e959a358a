"""The "add digest" modal's submission: checked at once (field errors), created after the ack."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows import digests
from suggestbot.flows.common import access, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.digests.schedule import is_valid_zone, parse_hhmm
from suggestbot.flows.inspiration.showing import Pair
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.payloads import digest_form, load_metadata, selected_label

log = logging.getLogger(__name__)


def form_errors(form: dict[str, Any], lang: str) -> dict[str, str]:
    """The form's mistakes by block id (none: the digest can be created)."""
    try:
        parse_hhmm(form["time"])
        bad_time = False
    except ValueError:
        bad_time = True
    return field_errors.digest_form(
        lang=lang,
        bad_time=bad_time,
        bad_tz=None if is_valid_zone(form["tz"]) else form["tz"],
        no_weekdays=not form["weekdays"],
        no_segment=not form["segment_id"],
        no_use_case=not form["use_case_id"],
    )


def register(app: App, deps: Deps) -> None:
    # Recorded before the ack (middleware) and carried out after a crash.
    interactions.on_view(ids.VIEW_DIGEST_ADD, _replay_create)

    @app.view(ids.VIEW_DIGEST_ADD)
    def digest_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        form = digest_form(view)
        if form_errors(form, "en"):
            # The language (a Slack call) only to word the errors.
            ack(response_action="errors", errors=form_errors(form, deps.lang_of(user_id)))
            interactions.finish_current(deps)  # nothing to carry out
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
    form = digest_form(body["view"])
    if not form_errors(form, "en"):
        channel_id = load_metadata(body["view"].get("private_metadata")).get("channel")
        _create(deps, body, form, channel_id or body["user"]["id"])


def _create(deps: Deps, body: dict[str, Any], form: dict[str, Any], channel_id: str) -> None:
    user_id, team_id = body["user"]["id"], body["user"]["team_id"]
    if not access.member_of(deps, access.Person(team_id, user_id), channel_id):
        # The modal was opened in this channel: a person who is not in it did not open it.
        log.warning("a digest for a channel its submitter is not in was not created")
        return
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
    telling.tell(
        deps,
        user_id=user_id,
        channel_id=channel_id,
        message=build_notice(
            lang=lang, text=digests.describe_added(digest, lang=lang, now=deps.clock())
        ),
    )
