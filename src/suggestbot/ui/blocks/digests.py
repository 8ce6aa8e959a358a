"""Digest subscriptions: the "add" modal and the list with each digest's health."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    CheckboxesElement,
    ContextBlock,
    InputBlock,
    PlainTextInputElement,
    RadioButtonsElement,
    SectionBlock,
    TimePickerElement,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject
from slack_sdk.models.views import View

from suggestbot.store.records import WEEKDAYS, Digest
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.results import MESSAGE_BLOCKS_MAX, Message
from suggestbot.ui.blocks.selects import catalogue_inputs, option
from suggestbot.ui.blocks.text import escape_mrkdwn, view_text
from suggestbot.ui.messages import t

DEFAULT_TIME = "09:00"
QUIET = "quiet"
SHORT_LINE = "line"
WORKDAYS = (0, 1, 2, 3, 4)  # chosen in a new digest's modal, and shown as "Mon–Fri"
# Each digest takes a section and an actions block in the list.
_LIST_ROOM = (MESSAGE_BLOCKS_MAX - 2) // 2


def weekday_names(days: Sequence[int], lang: str) -> str:
    """``[0, 1, 2, 3, 4]`` → "Mon–Fri"; other sets as a list; every day → "every day"."""
    chosen = sorted(set(days))
    if chosen == list(WEEKDAYS):
        return t("digest.every_day", lang)
    if chosen == list(WORKDAYS):
        return f"{t('digest.weekday.0', lang)}–{t('digest.weekday.4', lang)}"
    return ", ".join(t(f"digest.weekday.{d}", lang) for d in chosen)


def digest_fields(digest: Digest, *, lang: str) -> dict[str, str]:
    """What every sentence about a digest names: its id, what, where and when."""
    return {
        "id": digest.id,
        "segment": escape_mrkdwn(digest.segment_name),
        "use_case": escape_mrkdwn(digest.use_case_name),
        "time": digest.time,
        "tz": digest.tz,
        "days": weekday_names(digest.weekdays, lang),
        "channel": digest.channel_id,
    }


def build_digest_modal(
    *,
    lang: str,
    segments: Sequence[tuple[str, str]],
    use_cases: Sequence[tuple[str, str]],
    tz: str,
    private_metadata: str,
) -> dict[str, Any]:
    """Segment, use case, time, time zone (the user's own by default), weekdays, and what to
    post when nothing is new."""
    day_options = [option(str(d), t(f"digest.weekday.{d}", lang)) for d in WEEKDAYS]
    quiet_options = [
        option(SHORT_LINE, t("digest.when_unchanged_line", lang)),
        option(QUIET, t("digest.when_unchanged_nothing", lang)),
    ]
    if not segments or not use_cases:
        return View(
            type="modal",
            callback_id=ids.VIEW_DIGEST_ADD,
            title=view_text("digest.modal_title", lang),
            close=view_text("digest.cancel", lang),
            blocks=[SectionBlock(text=PlainTextObject(text=t("brief.no_segments", lang)))],
        ).to_dict()
    blocks: list[Block] = [
        *catalogue_inputs(
            lang=lang,
            segments=segments,
            use_cases=use_cases,
            block_ids=(ids.INPUT_DIGEST_SEGMENT, ids.INPUT_DIGEST_USE_CASE),
        ),
        InputBlock(
            block_id=ids.INPUT_DIGEST_TIME,
            label=t("digest.time", lang),
            element=TimePickerElement(action_id=ids.INPUT_DIGEST_TIME, initial_time=DEFAULT_TIME),
        ),
        InputBlock(
            block_id=ids.INPUT_DIGEST_TZ,
            label=t("digest.tz", lang),
            hint=t("digest.tz_hint", lang),
            element=PlainTextInputElement(
                action_id=ids.INPUT_DIGEST_TZ, initial_value=tz, max_length=64
            ),
        ),
        InputBlock(
            block_id=ids.INPUT_DIGEST_WEEKDAYS,
            label=t("digest.weekdays", lang),
            element=CheckboxesElement(
                action_id=ids.INPUT_DIGEST_WEEKDAYS,
                options=day_options,
                initial_options=[day_options[d] for d in WORKDAYS],
            ),
        ),
        InputBlock(
            block_id=ids.INPUT_DIGEST_QUIET,
            label=t("digest.when_unchanged", lang),
            element=RadioButtonsElement(
                action_id=ids.INPUT_DIGEST_QUIET,
                options=quiet_options,
                initial_option=quiet_options[0],
            ),
        ),
    ]
    return View(
        type="modal",
        callback_id=ids.VIEW_DIGEST_ADD,
        title=view_text("digest.modal_title", lang),
        submit=view_text("digest.submit", lang),
        close=view_text("digest.cancel", lang),
        private_metadata=private_metadata,
        blocks=blocks,
    ).to_dict()


_PROBLEMS = frozenset(
    {
        "not_in_channel",
        "is_archived",
        "channel_not_found",
        "restricted_action",
        "service_unavailable",
        "content_locale_mismatch",
        "token_revoked",
        "app_uninstalled",
    }
)


def problem(error: str, *, lang: str, channel: str) -> str:
    """What went wrong with a digest, in plain words with what to do: never Slack's raw code
    (the one place that words a digest's problem, for the digest list and App Home)."""
    key = error if error in _PROBLEMS else "other"
    return t(f"digest.problem.{key}", lang, channel=channel)


def paused_note(reason: str | None, *, lang: str, channel: str) -> str:
    """ "(paused)", with why and what to do when the digest paused itself."""
    if not reason:
        return t("home.digest_paused", lang)
    return t("home.digest_paused_because", lang, reason=problem(reason, lang=lang, channel=channel))


_HOME_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def home_line(digest: Digest, *, lang: str) -> str:
    """One digest as a line on App Home: channel, what, when, and why it paused."""
    names = [
        t(f"home.weekday.{_HOME_WEEKDAYS[d]}", lang)
        for d in digest.weekdays
        if 0 <= d < len(_HOME_WEEKDAYS)
    ]
    line = t(
        "home.digest_line",
        lang,
        channel=f"<#{digest.channel_id}>",
        segment=escape_mrkdwn(digest.segment_name),
        use_case=escape_mrkdwn(digest.use_case_name),
        time=escape_mrkdwn(digest.time),
        tz=escape_mrkdwn(digest.tz),
        days=", ".join(names) or "—",
    )
    if digest.paused:
        line += " " + paused_note(digest.paused_reason, lang=lang, channel=digest.channel_id)
    return line


def describe(digest: Digest, *, lang: str, next_fire: datetime | None) -> str:
    """One digest in a few lines: what, when, where, state, last delivery and last error.

    ``next_fire`` is when an active digest posts next (None: never, with no weekday chosen).
    """
    what = t("digest.line", lang, **digest_fields(digest, lang=lang))
    channel = digest.channel_id
    if digest.paused:
        reason = digest.paused_reason
        state = (
            t(
                "digest.state_paused_because",
                lang,
                reason=problem(reason, lang=lang, channel=channel),
            )
            if reason
            else t("digest.state_paused", lang)
        )
    else:
        when = slack_date(next_fire.timestamp(), lang) if next_fire else "—"
        state = t("digest.state_active", lang, next=when)
    delivered = (
        slack_date(digest.last_delivery_at, lang)
        if digest.last_delivery_at
        else t("digest.never", lang)
    )
    if digest.last_error:
        at = slack_date(digest.last_error_at, lang) if digest.last_error_at else ""
        if digest.paused and digest.paused_reason == digest.last_error:
            error = t("digest.last_error_same", lang, at=at)
        else:
            said = problem(digest.last_error, lang=lang, channel=channel)
            error = t("digest.last_error", lang, error=said, at=at)
    else:
        error = t("digest.no_error", lang)
    health = t("digest.last_delivery", lang, at=delivered) + " · " + error
    return f"{what}\n{state}\n{health}"


def build_digest_list(
    *,
    lang: str,
    digests: Sequence[Digest],
    next_fires: Mapping[str, datetime | None],
    channel_id: str,
    changeable: Collection[str] | None = None,
) -> Message:
    """The digests with their health and buttons to pause or resume, preview and remove.

    ``next_fires`` holds, by digest id, when each active digest posts next; ``channel_id`` is
    where they were asked for (its digests come first, then the asker's own elsewhere);
    ``changeable`` the ids the asker may pause, resume and remove (None: all), the others
    only get [Preview].
    """
    title = t("digest.list_title", lang, channel=channel_id)
    blocks: list[Block] = [SectionBlock(block_id="title", text=MarkdownTextObject(text=title))]
    if not digests:
        blocks.append(
            ContextBlock(
                block_id="none", elements=[MarkdownTextObject(text=t("digest.none", lang))]
            )
        )
    for digest in digests[:_LIST_ROOM]:
        blocks.append(
            SectionBlock(
                block_id=f"d-{digest.id}",
                text=MarkdownTextObject(
                    text=describe(digest, lang=lang, next_fire=next_fires.get(digest.id))
                ),
            )
        )
        toggle = (
            ButtonElement(
                text=t("digest.resume_button", lang),
                action_id=ids.ACTION_DIGEST_RESUME,
                value=digest.id,
                style="primary",
            )
            if digest.paused
            else ButtonElement(
                text=t("digest.pause_button", lang),
                action_id=ids.ACTION_DIGEST_PAUSE,
                value=digest.id,
            )
        )
        preview = ButtonElement(
            text=t("digest.preview_button", lang),
            action_id=ids.ACTION_DIGEST_PREVIEW,
            value=digest.id,
        )
        remove = ButtonElement(
            text=t("digest.remove_button", lang),
            action_id=ids.ACTION_DIGEST_REMOVE,
            value=digest.id,
            style="danger",
        )
        mine = changeable is None or digest.id in changeable
        elements = [toggle, preview, remove] if mine else [preview]
        blocks.append(ActionsBlock(block_id=f"a-{digest.id}", elements=elements))
    if len(digests) > _LIST_ROOM:
        more = t("digest.more", lang, count=len(digests) - _LIST_ROOM)
        blocks.append(ContextBlock(block_id="more", elements=[MarkdownTextObject(text=more)]))
    return Message(text=title, blocks=[b.to_dict() for b in blocks])
