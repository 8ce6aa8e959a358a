"""What ``/suggest draft`` says: why a draft was not saved, the line above a saved draft, and
the note in a direct message when the channel would not take the draft's post."""

from __future__ import annotations

from typing import Literal

from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.messages import t

DraftProblem = Literal["expired", "not_found", "failed"]
"""A token the service refused, a segment or use case it does not know, any other refusal."""

_PROBLEMS: dict[DraftProblem, str] = {
    "expired": "connect.expired",
    "not_found": "error.not_found",
    "failed": "draft.failed",
}


def build_draft_problem(*, lang: str, problem: DraftProblem, code: str = "") -> Message:
    """The draft was not saved; ``code`` is the service's error code for the support team."""
    return build_notice(lang=lang, text=t(_PROBLEMS[problem], lang, code=code))


def draft_context(*, lang: str, segment: str, use_case: str) -> str:
    """The context line of a draft's root: its segment, its use case, and that it is a draft."""
    return t("draft.context", lang, segment=segment, use_case=use_case)


def build_draft_elsewhere(*, lang: str, channel_id: str) -> Message:
    """Posted in a direct message before the draft, when the bot is not in ``channel_id``."""
    return Message(text=t("draft.dm_fallback", lang, channel=channel_id), blocks=[])
