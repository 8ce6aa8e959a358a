"""Named pure predicates for thread replies: which ``message`` events are a person replying in a
thread, and what a reply's ``N:`` prefix chooses.

Only a person's own new reply counts. Slack also sends ``message`` events for edits
(``message_changed``), deletions (``message_deleted``), joins, bot posts (``bot_id``) and
the app's own messages; none of them may start a refinement. A reply with files attached
(``file_share``) counts by its text; the files themselves are not something the service takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# A reply that is also sent to the channel is still a person's reply in the thread, and so is
# one with files attached.
FILE_SHARE = "file_share"
_HUMAN_SUBTYPES = frozenset({"thread_broadcast", FILE_SHARE})
# "2: shorter" and "2 : shorter" choose variant 2; "10:30 works" does not (a time, not a choice).
_CHOICE = re.compile(r"^\s*(\d{1,2})\s*:(?!\d)\s*(.*)\Z", re.DOTALL)


@dataclass(frozen=True)
class ThreadReply:
    """A person's reply in a thread, as the refinement flow needs it."""

    team_id: str
    user_id: str
    channel: str
    thread_ts: str
    ts: str
    text: str
    # Files attached to the reply (``file_share``): the text may be empty then.
    with_files: bool = False


def unescape_slack(text: str) -> str:
    """Slack sends ``&``, ``<`` and ``>`` escaped in message text; the service wants them plain."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def thread_reply(
    event: dict[str, Any], *, bot_user_id: str | None, team_id: str | None = None
) -> ThreadReply | None:
    """The reply in ``event`` if it is a person's new message inside a thread, else None.

    Args:
        event: the ``event`` object of an Events API callback.
        bot_user_id: this app's bot user; its messages, and threads another user started
            (``parent_user_id``), are not ours to answer.
        team_id: the workspace, when the event itself does not name it.
    """
    if event.get("type") != "message":
        return None
    subtype = event.get("subtype")
    if subtype is not None and subtype not in _HUMAN_SUBTYPES:
        return None
    if event.get("bot_id") or event.get("bot_profile"):
        return None
    user = event.get("user")
    if not isinstance(user, str) or not user or user == bot_user_id:
        return None
    ts, thread_ts = event.get("ts"), event.get("thread_ts")
    if not isinstance(thread_ts, str) or not isinstance(ts, str) or thread_ts == ts:
        return None
    parent = event.get("parent_user_id")
    if isinstance(parent, str) and bot_user_id and parent != bot_user_id:
        return None
    text = unescape_slack(str(event.get("text") or ""))
    with_files = subtype == FILE_SHARE or bool(event.get("files"))
    if not text.strip() and not with_files:
        return None
    channel = event.get("channel")
    if not isinstance(channel, str):
        return None
    team = str(event.get("team") or team_id or "")
    return ThreadReply(
        team_id=team,
        user_id=user,
        channel=channel,
        thread_ts=thread_ts,
        ts=ts,
        text=text,
        with_files=with_files,
    )


def parse_variant_choice(text: str, *, count: int) -> tuple[int | None, str]:
    """Split ``"N: instruction"`` into the variant number and the instruction.

    Args:
        text: the reply as typed.
        count: how many variants the thread offers; a number outside ``1..count`` is not a
            choice, and the whole text stays the instruction.

    Returns:
        ``(N, rest)`` for a valid choice, else ``(None, text)``; both texts stripped.
    """
    match = _CHOICE.match(text)
    if match:
        number = int(match.group(1))
        if 1 <= number <= count:
            return number, match.group(2).strip()
    return None, text.strip()


# ---------------------------------------------------------------- the composer (Messages tab)

# A brief may open with its choices, as the suggested prompts write them: "Hikers · Spring
# launch: a short post about …" sends to segment "Hikers" and use case "Spring launch".
CHOICE_SEPARATOR = " · "
CHOICE_END = ":"


@dataclass(frozen=True)
class ComposerMessage:
    """A person's brief written to the app in its Messages tab."""

    team_id: str
    user_id: str
    channel: str  # the person's conversation with the app
    ts: str
    text: str


def composer_message(
    event: dict[str, Any], *, bot_user_id: str | None, team_id: str | None = None
) -> ComposerMessage | None:
    """The brief in ``event`` if it is a person's new top-level message to the app in its
    Messages tab (a ``message.im``), else None. Replies in threads there refine, as anywhere
    (see :func:`thread_reply`); edits, deletions and the app's own posts count for nothing."""
    if event.get("type") != "message" or event.get("channel_type") != "im":
        return None
    if event.get("subtype") is not None or event.get("bot_id") or event.get("bot_profile"):
        return None
    user, ts, channel = event.get("user"), event.get("ts"), event.get("channel")
    if not isinstance(user, str) or not user or user == bot_user_id:
        return None
    if not isinstance(ts, str) or not isinstance(channel, str):
        return None
    thread_ts = event.get("thread_ts")
    if thread_ts is not None and thread_ts != ts:
        return None
    text = unescape_slack(str(event.get("text") or "")).strip()
    if not text:
        return None
    team = str(event.get("team") or team_id or "")
    return ComposerMessage(team_id=team, user_id=user, channel=channel, ts=ts, text=text)


def choice_header(*, segment: str, use_case: str) -> str:
    """How a brief names its segment and use case up front (see :func:`split_choice_header`)."""
    return f"{segment}{CHOICE_SEPARATOR}{use_case}{CHOICE_END} "


def split_choice_header(
    text: str,
    *,
    segments: list[tuple[str, str]],
    use_cases: list[tuple[str, str]],
) -> tuple[str | None, str | None, str]:
    """The segment id, use case id and the brief itself from ``"Segment · Use case: brief"``.

    Names are matched without regard to case against the ``(id, name)`` pairs; when the head
    does not name a known segment and use case, nothing is chosen and the whole text is the
    brief (a colon in an ordinary sentence changes nothing).
    """
    head, colon, rest = text.partition(CHOICE_END)
    parts = head.split(CHOICE_SEPARATOR.strip())
    if not colon or len(parts) != 2 or not rest.strip():
        return None, None, text.strip()
    by_segment = {name.strip().casefold(): sid for sid, name in segments}
    by_use_case = {name.strip().casefold(): uid for uid, name in use_cases}
    segment = by_segment.get(parts[0].strip().casefold())
    use_case = by_use_case.get(parts[1].strip().casefold())
    if segment is None or use_case is None:
        return None, None, text.strip()
    return segment, use_case, rest.strip()
