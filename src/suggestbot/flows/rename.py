"""Renaming the service thread behind a Slack thread, with the acting user's own token.

The name is checked here first (the service's three codes, as field errors while the user can
still fix it); the service checks again, trims and collapses spaces, and the name it stored is
what the user is shown afterwards.
"""

from __future__ import annotations

import logging

from suggestbot.contentapi import (
    ContentApiError,
    NotFound,
    ThreadNameEmpty,
    ThreadNameNotPlainText,
    ThreadNameTooLong,
    UserTokenRejected,
    check_thread_name,
)
from suggestbot.flows import refine, threads
from suggestbot.flows.deps import Deps
from suggestbot.store.records import LinkedUser, user_key
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Button
from suggestbot.ui.blocks.text import escape_mrkdwn
from suggestbot.ui.blocks.thread_modals import build_rename_modal
from suggestbot.ui.messages import t
from suggestbot.ui.payloads import dump_metadata

log = logging.getLogger(__name__)

_NAME_ERRORS = (ThreadNameEmpty, ThreadNameTooLong, ThreadNameNotPlainText)


def name_problem(name: str, lang: str) -> str | None:
    """The field error for a name the service would refuse (checked before sending)."""
    code = check_thread_name(name)
    return None if code is None else t(f"rename.{code}", lang)


def rename_metadata(*, channel: str, thread_ts: str) -> str:
    return dump_metadata({"channel": channel, "thread_ts": thread_ts})


def open_modal(deps: Deps, *, trigger_id: str, user_id: str, channel: str, thread_ts: str) -> bool:
    """Open the rename modal (at once: a trigger lives 3 seconds). False if not our thread."""
    binding = threads.get(deps, channel=channel, thread_ts=thread_ts)
    if binding is None:
        return False
    lang = deps.lang_of(user_id)
    deps.slack.views_open(
        trigger_id=trigger_id,
        view=build_rename_modal(
            lang=lang,
            private_metadata=rename_metadata(channel=channel, thread_ts=thread_ts),
            initial=binding.thread_name,
        ),
    )
    return True


def _tell(
    deps: Deps,
    *,
    user_id: str,
    channel: str,
    thread_ts: str,
    text: str,
    retry_key: str | None = None,
) -> None:
    """The outcome, to the user in the thread; ``retry_key`` adds "Rename thread" again."""
    lang = deps.lang_of(user_id)
    buttons = [Button("thread.rename", ids.ACTION_RENAME_OPEN, retry_key)] if retry_key else []
    refine.tell(
        deps,
        user_id=user_id,
        channel=channel,
        thread_ts=thread_ts,
        message=build_notice(lang=lang, text=text, buttons=buttons),
    )


def finish(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel: str,
    thread_ts: str,
    name: str,
) -> None:
    """Send the rename and tell the user the outcome in the thread: the name the service
    stored, or what to fix (with the button to try again).

    The modal is closed on submit rather than updated from here: an update sent from the
    background can reach Slack before the submission's own answer and be overwritten by it.
    """
    lang = deps.lang_of(user_id)
    binding = threads.get(deps, channel=channel, thread_ts=thread_ts)
    if binding is None:
        return
    where = {"user_id": user_id, "channel": channel, "thread_ts": thread_ts}
    user = deps.records.users.get(user_key(team_id, user_id))
    if user is None or user.state != "linked":
        _tell(deps, **where, text=t("rename.connect", lang))
        return
    binding = threads.remember_thread(deps, binding)
    if binding.service_thread_id is None:
        _tell(deps, **where, text=t("rename.no_thread_yet", lang))
        return
    client = deps.content.as_user(deps.vault.decrypt(user.token_enc))
    try:
        thread = client.rename_thread(thread_id=binding.service_thread_id, name=name)
    except _NAME_ERRORS as exc:
        problem = t(f"rename.{exc.code}", lang)
        text = t("rename.refused", lang, name=escape_mrkdwn(name), problem=problem)
        _tell(deps, **where, text=text, retry_key=binding.key)
        return
    except NotFound:
        _tell(deps, **where, text=t("rename.not_visible", lang))
        return
    except UserTokenRejected:
        _expire(deps, user)
        _tell(deps, **where, text=t("connect.expired", lang))
        return
    except ContentApiError as exc:
        log.warning("renaming thread %s failed: %s", binding.service_thread_id, exc)
        _tell(deps, **where, text=t("rename.failed", lang), retry_key=binding.key)
        return
    binding = threads.renamed(deps, binding, thread=thread)
    log.info("thread %s renamed by %s", thread.id, user_id)
    _tell(deps, **where, text=t("rename.done", lang, name=escape_mrkdwn(thread.name or "")))
    threads.refresh_root(deps, binding)


def _expire(deps: Deps, user: LinkedUser) -> None:
    def expire(u: LinkedUser) -> LinkedUser:
        return u.model_copy(update={"state": "expired", "expired_at": deps.clock()})

    deps.records.users.update(user_key(user.team_id, user.user_id), expire)
