"""A channel's daily digests: ``/suggest digest add|list|remove|pause|resume|preview [id]``, the
"add digest" modal, and the buttons [Pause], [Resume], [Preview], [Remove]."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.flows import digests
from suggestbot.flows.common import access, slackio, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.digests.schedule import is_valid_zone, parse_hhmm
from suggestbot.flows.inspiration.showing import Asker, Pair
from suggestbot.slackapp.edge.answer import asker, needs_trigger, with_asker
from suggestbot.slackapp.edge.declaration import (
    Action,
    Command,
    CommandGiven,
    Input,
    Refusal,
    Submission,
    View,
)
from suggestbot.slackapp.inputs.help import COMMAND
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.digest_notices import build_digest_usage, build_invite_first
from suggestbot.ui.blocks.digests import build_digest_modal
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.payloads import digest_form, dump_metadata, selected_label

log = logging.getLogger(__name__)

DEFAULT_TZ = "UTC"


# --- /suggest digest ------------------------------------------------------------------------


def _digest(deps: Deps, given: CommandGiven) -> None:
    """Route ``/suggest digest <word> [id]`` (no word: the list)."""
    sub, _, arg = given.text.strip().partition(" ")
    action = _ACTIONS.get(sub.lower() or "list")
    who = asker(given)
    if action is None:
        digests.tell(deps, who, build_digest_usage(lang=deps.lang_of(who.user_id), sub=sub))
        return
    action(deps, given, who, arg.strip())


def _bot_can_post(deps: Deps, channel_id: str) -> bool:
    """Whether the bot is in the channel (a digest there would pause at once otherwise)."""
    try:
        info: Any = deps.slack.conversations_info(channel=channel_id)
    except SlackApiError as exc:
        if slackio.slack_error(exc) in slackio.UNREACHABLE_CHANNEL:
            return False
        raise
    channel = info["channel"]
    if channel.get("is_im"):
        return True
    return bool(channel.get("is_member")) and not channel.get("is_archived")


def _user_tz(deps: Deps, user_id: str) -> str:
    """The user's Slack time zone (``users.info`` ``tz``), the modal's default."""
    try:
        info: Any = deps.slack.users_info(user=user_id)
    except SlackApiError:
        log.warning("users.info failed for %s; the digest modal starts with UTC", user_id)
        return DEFAULT_TZ
    return str(info["user"].get("tz") or DEFAULT_TZ)


def _add(deps: Deps, given: CommandGiven, asker: Asker, arg: str) -> None:
    lang = deps.lang_of(asker.user_id)
    if not _bot_can_post(deps, asker.channel_id):
        digests.tell(deps, asker, build_invite_first(lang=lang, channel_id=asker.channel_id))
        return
    trigger_id = needs_trigger(deps, given)
    if trigger_id is None:
        return
    catalog = deps.cached_catalog() or deps.catalog()
    view = build_digest_modal(
        lang=lang,
        segments=catalog.segments,
        use_cases=catalog.use_cases,
        tz=_user_tz(deps, asker.user_id),
        private_metadata=dump_metadata({"channel": asker.channel_id}),
    )
    deps.slack.views_open(trigger_id=trigger_id, view=view)


def _list(deps: Deps, given: CommandGiven, asker: Asker, arg: str) -> None:
    digests.list_for(deps, asker)


def _one(
    work: Callable[[Deps, Asker, str], None], *, change: bool = True
) -> Callable[[Deps, CommandGiven, Asker, str], None]:
    """A subcommand acting on one digest: named by id (or its start), or the channel's only one;
    otherwise the list is shown to choose from."""

    def run(deps: Deps, given: CommandGiven, asker: Asker, arg: str) -> None:
        digest = digests.find(deps, asker, arg, change=change)
        if digest is None:
            if arg:
                digests.tell_not_found(deps, asker, arg)
            digests.list_for(deps, asker)
            return
        work(deps, asker, digest.id)

    return run


def _pause(deps: Deps, asker: Asker, digest_id: str) -> None:
    digests.set_paused(deps, asker, digest_id, paused=True)


def _resume(deps: Deps, asker: Asker, digest_id: str) -> None:
    digests.set_paused(deps, asker, digest_id, paused=False)


_ACTIONS: dict[str, Callable[[Deps, CommandGiven, Asker, str], None]] = {
    "add": _add,
    "list": _list,
    "remove": _one(digests.remove),
    "pause": _one(_pause),
    "resume": _one(_resume),
    "preview": _one(digests.preview, change=False),
}


# --- the "add digest" modal -----------------------------------------------------------------


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


def _form(given: Submission) -> dict[str, Any]:
    return digest_form(given.body.get("view") or {})


def _check(given: Submission) -> Refusal | None:
    form = _form(given)
    if not form_errors(form, "en"):
        return None
    return Refusal(errors=lambda lang: form_errors(form, lang))


def _create(deps: Deps, given: Submission) -> None:
    form = _form(given)
    user_id, team_id = given.user_id, given.team_id
    channel_id = given.channel_id or user_id
    if not access.member_of(deps, access.Person(team_id, user_id), channel_id):
        # The modal was opened in this channel: a person who is not in it did not open it.
        log.warning("a digest for a channel its submitter is not in was not created")
        return
    lang = deps.lang_of(user_id)
    view = given.body.get("view") or {}
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


INPUTS: list[Input] = [
    Input("digest", Command(COMMAND, "digest"), run=_digest),
    Input("digest_submitted", View(ids.VIEW_DIGEST_ADD), run=_create, check=_check),
    Input("digest_preview", Action(ids.ACTION_DIGEST_PREVIEW), run=with_asker(digests.preview)),
    Input("digest_pause", Action(ids.ACTION_DIGEST_PAUSE), run=with_asker(_pause)),
    Input("digest_resume", Action(ids.ACTION_DIGEST_RESUME), run=with_asker(_resume)),
    Input("digest_remove", Action(ids.ACTION_DIGEST_REMOVE), run=with_asker(digests.remove)),
]
