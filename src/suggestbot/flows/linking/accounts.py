"""Linking a Slack user to their own account of the service, with a token kept encrypted."""

from __future__ import annotations

import contextvars
import enum
import logging
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from suggestbot.contentapi import (
    ContentApiError,
    ServerError,
    Timeout,
    TransportError,
    Unauthorized,
    UserTokenRejected,
)
from suggestbot.flows.common import yours
from suggestbot.flows.common.deps import Deps
from suggestbot.logs import register_secret
from suggestbot.store.records import LinkedUser, user_key
from suggestbot.ui.blocks.modals import build_connect_modal
from suggestbot.ui.payloads import dump_metadata

log = logging.getLogger(__name__)


class LinkResult(enum.Enum):
    LINKED = "linked"
    EMPTY = "empty"
    REJECTED = "rejected"
    UNREACHABLE = "unreachable"


def verify_and_link(deps: Deps, *, team_id: str, user_id: str, token: str) -> LinkResult:
    """Check ``token`` with a cheap read as that user; keep it (encrypted) only if it works."""
    token = token.strip()
    if not token:
        return LinkResult.EMPTY
    register_secret(token)
    client = deps.content.as_user(token)
    try:
        client.list_use_cases()
    except (UserTokenRejected, Unauthorized):
        log.info("user %s offered a token the service rejected", user_id)
        return LinkResult.REJECTED
    except (ServerError, TransportError, Timeout):
        return LinkResult.UNREACHABLE
    except ContentApiError as exc:
        log.warning("verifying a token for %s: unexpected answer %s", user_id, exc)
        return LinkResult.REJECTED
    deps.records.users.put(
        user_key(team_id, user_id),
        LinkedUser(
            team_id=team_id,
            user_id=user_id,
            token_enc=deps.vault.encrypt(token),
            linked_at=time.time(),
        ),
    )
    log.info("user %s linked their account", user_id)
    # Whose account this is, learnt now rather than from a first run made through the app.
    yours.learn_service_user(deps, client, team_id=team_id, user_id=user_id)
    return LinkResult.LINKED


def verify_soon(deps: Deps, *, team_id: str, user_id: str, token: str) -> Future[LinkResult]:
    """:func:`verify_and_link` started on its own thread, so a caller can wait for it only as
    long as it may (a modal submission must be acknowledged within 3 seconds)."""
    checking: Future[LinkResult] = Future()

    def run() -> None:
        try:
            checking.set_result(
                verify_and_link(deps, team_id=team_id, user_id=user_id, token=token)
            )
        except BaseException as exc:
            checking.set_exception(exc)

    # In a copy of the caller's context, as the listener's own threads are: the check belongs
    # to the request that waits for it, so it must not yield to that request (it would wait
    # out the priority gate's bound before every call to the service).
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name="verify-token", daemon=True).start()
    return checking


def result_within(checking: Future[LinkResult], *, seconds: float) -> LinkResult | None:
    """The check's result if it ends within ``seconds``, else None (it goes on)."""
    try:
        return checking.result(timeout=seconds)
    except FutureTimeout:
        return None


def unlink(deps: Deps, *, team_id: str, user_id: str) -> bool:
    """Forget a person's link and token; False when they had none."""
    return deps.records.users.delete(user_key(team_id, user_id))


def link_of(deps: Deps, *, team_id: str, user_id: str) -> LinkedUser | None:
    """A person's link (state and sealed token), or None."""
    return deps.records.users.get(user_key(team_id, user_id))


def is_linked(deps: Deps, *, team_id: str, user_id: str) -> bool:
    """Whether the user has a working link. With the built-in sandbox (no service configured)
    a Slack user is linked to a sandbox user on first use, so the app can be tried at once."""
    return working_link(deps, team_id=team_id, user_id=user_id) is not None


def working_link(deps: Deps, *, team_id: str, user_id: str) -> LinkedUser | None:
    """The user's link when it works (linked on first use with the built-in sandbox, as
    :func:`is_linked` says), else None: one read of the link where it works already."""
    user = link_of(deps, team_id=team_id, user_id=user_id)
    if user is not None and user.state == "linked":
        return user
    if deps.auto_link is None:
        return None
    token = deps.auto_link(team_id, user_id)
    linked = verify_and_link(deps, team_id=team_id, user_id=user_id, token=token)
    return link_of(deps, team_id=team_id, user_id=user_id) if linked is LinkResult.LINKED else None


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
    outcome can be told to them there once the token has been checked; ``held_id`` names what
    they typed before they had an account, to resend once linked."""
    lang = deps.lang_of(user_id)
    context = {"held": held_id, "channel": channel_id, "response_url": response_url}
    metadata = dump_metadata({k: v for k, v in context.items() if v})
    deps.slack.views_open(
        trigger_id=trigger_id, view=build_connect_modal(lang=lang, private_metadata=metadata)
    )
