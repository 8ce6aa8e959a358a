"""``/suggest digest add|list|remove|pause|resume|preview [id]``: a channel's daily digests."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.flows import digests
from suggestbot.flows.common import slackio
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.slackapp.listeners import askers
from suggestbot.ui.blocks.digest_notices import build_digest_usage, build_invite_first
from suggestbot.ui.blocks.digests import build_digest_modal
from suggestbot.ui.payloads import dump_metadata

log = logging.getLogger(__name__)

DEFAULT_TZ = "UTC"


def digest(deps: Deps, body: dict[str, Any], rest: str) -> None:
    """Route ``/suggest digest <word> [id]`` (no word: the list)."""
    sub, _, arg = rest.strip().partition(" ")
    action = _ACTIONS.get(sub.lower() or "list")
    asker = askers.from_command(body)
    if action is None:
        digests.tell(deps, asker, build_digest_usage(lang=deps.lang_of(asker.user_id), sub=sub))
        return
    action(deps, body, asker, arg.strip())


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


def _add(deps: Deps, body: dict[str, Any], asker: Asker, arg: str) -> None:
    if not _bot_can_post(deps, asker.channel_id):
        lang = deps.lang_of(asker.user_id)
        digests.tell(deps, asker, build_invite_first(lang=lang, channel_id=asker.channel_id))
        return
    lang = deps.lang_of(asker.user_id)
    catalog = deps.cached_catalog() or deps.catalog()
    view = build_digest_modal(
        lang=lang,
        segments=catalog.segments,
        use_cases=catalog.use_cases,
        tz=_user_tz(deps, asker.user_id),
        private_metadata=dump_metadata({"channel": asker.channel_id}),
    )
    deps.slack.views_open(trigger_id=body["trigger_id"], view=view)


def _list(deps: Deps, body: dict[str, Any], asker: Asker, arg: str) -> None:
    digests.list_for(deps, asker)


def _one(
    work: Callable[[Deps, Asker, str], None], *, change: bool = True
) -> Callable[[Deps, dict[str, Any], Asker, str], None]:
    """A subcommand acting on one digest: named by id (or its start), or the channel's only one;
    otherwise the list is shown to choose from."""

    def run(deps: Deps, body: dict[str, Any], asker: Asker, arg: str) -> None:
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


_ACTIONS: dict[str, Callable[[Deps, dict[str, Any], Asker, str], None]] = {
    "add": _add,
    "list": _list,
    "remove": _one(digests.remove),
    "pause": _one(_pause),
    "resume": _one(_resume),
    "preview": _one(digests.preview, change=False),
}
