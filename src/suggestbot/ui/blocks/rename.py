"""What renaming a thread says in the thread: the new name, or why not and what to do, with
"Rename thread" again where trying again can help."""

from __future__ import annotations

from typing import Literal

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Button, Message
from suggestbot.ui.blocks.text import escape_mrkdwn, quote
from suggestbot.ui.messages import t

RenameProblem = Literal["connect", "no_thread_yet", "not_visible", "expired", "failed"]
"""No linked account, no service thread yet, a thread the person may not see, a token the
service refused, any other failure."""

_PROBLEMS: dict[RenameProblem, str] = {
    "connect": "rename.connect",
    "no_thread_yet": "rename.no_thread_yet",
    "not_visible": "rename.not_visible",
    "expired": "connect.expired",
    "failed": "rename.failed",
}


def _again(retry_key: str | None) -> list[Button]:
    return [Button("thread.rename", ids.ACTION_RENAME_OPEN, retry_key)] if retry_key else []


def build_rename_problem(
    *, lang: str, problem: RenameProblem, retry_key: str | None = None
) -> Message:
    """The thread was not renamed; ``retry_key`` (the thread's binding) offers the modal again."""
    return build_notice(lang=lang, text=t(_PROBLEMS[problem], lang), buttons=_again(retry_key))


def build_rename_refused(*, lang: str, name: str, code: str, retry_key: str) -> Message:
    """The service refused the name itself (``code``: ``thread_name_empty``,
    ``thread_name_too_long`` or ``thread_name_not_plain_text``): the name, why, and the modal
    again."""
    problem = t(f"rename.{code}", lang)
    text = t("rename.refused", lang, name=quote(name), problem=problem)
    return build_notice(lang=lang, text=text, buttons=_again(retry_key))


def build_renamed(*, lang: str, name: str) -> Message:
    """The name the service stored (it trims and collapses spaces)."""
    return build_notice(lang=lang, text=t("rename.done", lang, name=escape_mrkdwn(name)))
