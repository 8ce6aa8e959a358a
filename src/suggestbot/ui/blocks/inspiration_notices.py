"""Short notices of ``/suggest inspire`` and its buttons (a bad option, an answer that expired,
the service out of reach, a channel the app cannot post in, where a shared variant went) and
the notes under an answer (variants left out, a new set asked for or ready).

The flows pass what happened; the words are here.
"""

from __future__ import annotations

from typing import Literal

from suggestbot.ui.blocks.inspiration import Labels
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.blocks.text import escape_mrkdwn, quote
from suggestbot.ui.messages import t, tn


def build_content_unavailable(*, lang: str) -> Message:
    """Ready-made content could not be read: the service is out of reach."""
    return build_notice(lang=lang, text=t("inspire.unavailable", lang))


def build_offer_gone(*, lang: str) -> Message:
    """A button of an inspire answer that is no longer kept."""
    return build_notice(lang=lang, text=t("inspire.offer_gone", lang))


def build_bad_option(*, lang: str, option: str) -> Message:
    """``/suggest inspire`` with an option it does not know (or a malformed one)."""
    return build_notice(lang=lang, text=t("inspire.bad_option", lang, option=quote(option)))


def build_cannot_post(*, lang: str, channel_id: str) -> Message:
    """A variant could not be shared: the app is not in the answer's channel."""
    return build_notice(lang=lang, text=t("inspire.cannot_post", lang, channel=channel_id))


def skipped_note(*, lang: str, count: int) -> str:
    """Under an answer whose set had variants the service left out."""
    return tn("variant.skipped", lang, count=count)


GenerationStart = Literal["generating", "not_set_up", "unavailable"]
"""Asking for a new set: it is being made (and watched for), the service does not know the
segment, or the service is away."""


def generation_note(*, lang: str, start: GenerationStart, labels: Labels) -> str:
    """What asking for a new set came to (a note under an answer, or a notice of its own)."""
    if start == "not_set_up":
        return t("inspire.not_set_up", lang, segment=escape_mrkdwn(labels.segment))
    if start == "unavailable":
        return t("inspire.unavailable", lang)
    return t("inspire.generating", lang, **_names(labels))


def build_generation_notice(*, lang: str, start: GenerationStart, labels: Labels) -> Message:
    """The answer to "Generate now"."""
    return build_notice(lang=lang, text=generation_note(lang=lang, start=start, labels=labels))


def ready_note(*, lang: str, labels: Labels) -> str:
    """Above a set that was asked for and has appeared."""
    return t("inspire.ready", lang, **_names(labels))


def build_watch_expired(*, lang: str, labels: Labels) -> Message:
    """The set asked for did not appear in time; the app stopped watching for it."""
    return build_notice(lang=lang, text=t("inspire.watch_expired", lang, **_names(labels)))


SharedWhere = Literal["shared", "already_shared", "refine_there"]
"""A variant was shared now, had been shared before, or was shared to be refined there."""

_SHARED_KEYS: dict[SharedWhere, str] = {
    "shared": "inspire.shared",
    "already_shared": "inspire.already_shared",
    "refine_there": "inspire.refine_there",
}


def build_shared_notice(
    *, lang: str, where: SharedWhere, channel_id: str, permalink: str | None
) -> Message:
    """Where the shared variant is, with a link to it when Slack gave one."""
    text = t(_SHARED_KEYS[where], lang, channel=channel_id)
    if permalink:
        text = f"{text} <{permalink}|{t('inspire.open', lang)}>"
    return build_notice(lang=lang, text=text)


def _names(labels: Labels) -> dict[str, str]:
    return {"segment": escape_mrkdwn(labels.segment), "use_case": escape_mrkdwn(labels.use_case)}
