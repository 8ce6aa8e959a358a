"""Renaming the service thread behind a Slack thread, with the acting user's own token.

The name is checked first when the modal is submitted (the service's three codes, as field
errors while the user can still fix it); the service checks again, trims and collapses
spaces, and the name it stored is what the user is shown afterwards.
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
)
from suggestbot.flows.common import telling, threads
from suggestbot.flows.common.deps import Deps
from suggestbot.store.records import LinkedUser, user_key
from suggestbot.ui.blocks.rename import build_rename_problem, build_rename_refused, build_renamed
from suggestbot.ui.blocks.thread_modals import build_rename_modal
from suggestbot.ui.payloads import dump_metadata

log = logging.getLogger(__name__)

# The service's refusals of a name, by the code the ui words them with.
_NAME_ERRORS: dict[type[ContentApiError], str] = {
    ThreadNameEmpty: "thread_name_empty",
    ThreadNameTooLong: "thread_name_too_long",
    ThreadNameNotPlainText: "thread_name_not_plain_text",
}


def rename_metadata(*, channel: str, thread_ts: str) -> str:
    """The rename modal's ``private_metadata``: the Slack thread it renames."""
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
    where = {"user_id": user_id, "channel_id": channel, "thread_ts": thread_ts}
    user = deps.records.users.get(user_key(team_id, user_id))
    if user is None or user.state != "linked":
        telling.tell(deps, **where, message=build_rename_problem(lang=lang, problem="connect"))
        return
    binding = threads.remember_thread(deps, binding)
    if binding.service_thread_id is None:
        telling.tell(
            deps, **where, message=build_rename_problem(lang=lang, problem="no_thread_yet")
        )
        return
    client = deps.content.as_user(deps.vault.decrypt(user.token_enc))
    try:
        thread = client.rename_thread(thread_id=binding.service_thread_id, name=name)
    except (ThreadNameEmpty, ThreadNameTooLong, ThreadNameNotPlainText) as exc:
        code = _NAME_ERRORS[type(exc)]
        refused = build_rename_refused(lang=lang, name=name, code=code, retry_key=binding.key)
        telling.tell(deps, **where, message=refused)
        return
    except NotFound:
        telling.tell(deps, **where, message=build_rename_problem(lang=lang, problem="not_visible"))
        return
    except UserTokenRejected:
        _expire(deps, user)
        telling.tell(deps, **where, message=build_rename_problem(lang=lang, problem="expired"))
        return
    except ContentApiError as exc:
        log.warning("renaming thread %s failed: %s", binding.service_thread_id, exc)
        failed = build_rename_problem(lang=lang, problem="failed", retry_key=binding.key)
        telling.tell(deps, **where, message=failed)
        return
    binding = threads.renamed(deps, binding, thread=thread)
    log.info("thread %s renamed by %s", thread.id, user_id)
    telling.tell(deps, **where, message=build_renamed(lang=lang, name=thread.name or ""))
    threads.refresh_root(deps, binding)


def _expire(deps: Deps, user: LinkedUser) -> None:
    def expire(u: LinkedUser) -> LinkedUser:
        return u.model_copy(update={"state": "expired", "expired_at": deps.clock()})

    deps.records.users.update(user_key(user.team_id, user.user_id), expire)
