"""The message that stands for a run request while it moves: a brief's root in the channel, a
refinement's status reply in its thread.

The flows decide *where* a request is (:class:`RequestStatus`); the sentence for it is worded
here alone, by :func:`status_line`, for briefs and refinements alike.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from slack_sdk.models.blocks import ContextBlock
from slack_sdk.models.blocks.basic_components import MarkdownTextObject

from suggestbot.store.records import ComposerChoices, Failure
from suggestbot.ui import failures
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.composer import build_choice_blocks
from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Button, Message, build_root_message
from suggestbot.ui.blocks.text import escape_mrkdwn
from suggestbot.ui.blocks.turns import build_refinement_status
from suggestbot.ui.messages import t, tn


class Phase(StrEnum):
    """Where a request is, as its author sees it."""

    SENDING = "sending"  # recorded, on its way to the service
    DELAYED = "delayed"  # the service was busy: sent again automatically later
    WAITING_USER = "waiting_user"  # waits until its author connects their account
    QUEUED = "queued"
    REQUEUED = "requeued"  # an attempt stalled; the service tries again
    RUNNING = "running"
    POSTING = "posting"  # the run succeeded; its results are being posted
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class RequestStatus:
    """A request's state as a value: what the flows decided, with nothing worded yet.

    Attributes:
        kind: a brief (its root in the channel) or a refinement (its reply in a thread).
        author: the Slack user who asked.
        attempt: the service's attempt count (QUEUED, REQUEUED, RUNNING, POSTING).
        send_after: epoch seconds of the automatic resend (DELAYED).
        variants: how many variants were posted (DONE).
        failure: what went wrong (FAILED; None reads as an internal error, with no buttons).
    """

    kind: Literal["brief", "refinement"]
    phase: Phase
    author: str
    attempt: int = 0
    send_after: float | None = None
    variants: int = 0
    failure: Failure | None = None


def status_line(*, lang: str, status: RequestStatus) -> str:
    """The one sentence saying where a request is, in ``lang``."""
    brief = status.kind == "brief"
    prefix = "root" if brief else "turn"
    user, attempt, phase = status.author, status.attempt, status.phase
    if phase is Phase.SENDING:
        return t(f"{prefix}.sending", lang, user=user)
    if phase is Phase.DELAYED:
        date = slack_date(status.send_after or time.time(), lang, time_only=True)
        return t(f"{prefix}.delayed", lang, user=user, when=date)
    if phase is Phase.WAITING_USER:
        return t(f"{prefix}.waiting_for_user", lang, user=user)
    if phase is Phase.QUEUED:
        return t(f"{prefix}.queued", lang, user=user)
    if phase is Phase.REQUEUED:
        return t(f"{prefix}.requeued", lang, user=user, attempt=attempt)
    if phase is Phase.RUNNING and brief and attempt > 1:
        return t("root.running_again", lang, user=user, attempt=attempt)
    if phase in (Phase.RUNNING, Phase.POSTING):
        return t(f"{prefix}.running", lang, user=user, attempt=max(attempt, 1))
    if phase is Phase.DONE:
        if brief:
            return tn("root.ready", lang, user=user, count=status.variants)
        return t("turn.done", lang, user=user)
    failure = status.failure or Failure(code=failures.INTERNAL)
    return t(f"{prefix}.failed", lang, user=user, reason=_reason(failure, lang, brief=brief))


def _reason(failure: Failure, lang: str, *, brief: bool) -> str:
    if not brief and failure.code == failures.NOT_FOUND:
        # A refinement's parent the user may not see: the service answers 404 for it.
        return t("refine.not_visible_reason", lang)
    return failures.reason(failure.code, lang, detail=failure.detail, is_brief=brief)


def _failure_parts(
    status: RequestStatus, *, lang: str, request_id: str
) -> tuple[list[Button], str | None]:
    """The buttons that can help after a failure, and its small print (nothing otherwise)."""
    if status.phase is not Phase.FAILED or status.failure is None:
        return [], None
    code = status.failure.code
    buttons = failures.buttons(code, request_id=request_id, is_brief=status.kind == "brief")
    return list(buttons), failures.fine_print(code, lang)


@dataclass(frozen=True)
class BriefShown:
    """What a brief's root shows besides its status.

    Attributes:
        segment, use_case: the names it was sent with (None when not known: no context line).
        reused: sent with the author's remembered choices, without the modal.
        source_link: the permalink of the message it was made from (the message shortcut).
        choices: written in the Messages tab: the choices to offer again (with
            ``segment_id`` and ``use_case_id``, the ones it was sent with).
    """

    text: str
    variants: int
    segment: str | None = None
    use_case: str | None = None
    reused: bool = False
    source_link: str | None = None
    choices: ComposerChoices | None = None
    segment_id: str = ""
    use_case_id: str = ""


def build_brief_root(
    *, lang: str, status: RequestStatus, request_id: str, brief: BriefShown
) -> Message:
    """A brief's root message in the channel, as it stands now."""
    buttons, fine_print = _failure_parts(status, lang=lang, request_id=request_id)
    segment, use_case = brief.segment or "?", brief.use_case or "?"
    context = reused = None
    if brief.segment is not None or brief.use_case is not None:
        context = tn("root.context", lang, segment=segment, use_case=use_case, count=brief.variants)
    if brief.reused:
        sentence = tn(
            "brief.using_defaults",
            lang,
            user=status.author,
            segment=escape_mrkdwn(segment),
            use_case=escape_mrkdwn(use_case),
            count=brief.variants,
        )
        reused = (sentence, Button("brief.change", ids.ACTION_CHANGE_DEFAULTS, request_id))
    root = build_root_message(
        lang=lang,
        status=status_line(lang=lang, status=status),
        brief=brief.text,
        context=context,
        buttons=buttons,
        fine_print=fine_print,
        reused=reused,
    )
    extra: list[dict[str, Any]] = []
    if brief.source_link:
        line = t("shortcut.from_message", lang, link=brief.source_link)
        source = ContextBlock(block_id="source", elements=[MarkdownTextObject(text=line)])
        extra.append(source.to_dict())
    if brief.choices is not None:
        extra += build_choice_blocks(
            lang=lang,
            request_id=request_id,
            choices=brief.choices,
            segment_id=brief.segment_id,
            use_case_id=brief.use_case_id,
            variants=brief.variants,
        )
    return Message(text=root.text, blocks=root.blocks + extra) if extra else root


def build_refinement_reply(
    *, lang: str, status: RequestStatus, request_id: str, instruction: str
) -> Message:
    """A refinement's status reply in its thread, until its result replaces it."""
    buttons, fine_print = _failure_parts(status, lang=lang, request_id=request_id)
    return build_refinement_status(
        lang=lang,
        status=status_line(lang=lang, status=status),
        instruction=instruction,
        buttons=buttons,
        fine_print=fine_print,
        request_id=request_id,
    )


# Why a recorded request waits for its author's account.
ConnectReason = Literal["not_linked", "rejected", "unreadable"]
_CONNECT_TEXT = {
    "not_linked": "connect.needed",
    "rejected": "connect.expired_kept",
    "unreadable": "connect.unreadable_kept",
}


def build_connect_prompt(*, lang: str, reason: ConnectReason, request_id: str) -> Message:
    """Why the request waits, with [Connect account] and [Resend] (which sends it again in
    place): for the author's eyes only, never on the public root, where anyone could press."""
    return build_notice(
        lang=lang,
        text=t(_CONNECT_TEXT[reason], lang),
        buttons=[
            Button("connect.button", ids.ACTION_CONNECT, request_id, "primary"),
            Button("button.resend", ids.ACTION_RETRY, request_id),
        ],
    )


def build_dm_intro(*, lang: str, channel: str) -> Message:
    """Said first in the direct message that holds a root the channel would not take."""
    return Message(text=t("slack.dm_fallback", lang, channel=channel), blocks=[])


def build_not_in_channel(*, lang: str, channel: str) -> Message:
    """Tells the author why their brief went to a direct message."""
    return Message(text=t("slack.not_in_channel", lang, channel=channel), blocks=[])
