"""What a person is told about their digest subscriptions: added, paused, resumed, removed, not
found, and the direct message when a digest pauses itself because its channel refused a post.

The flows pass the digest and what happened; the words are here.
"""

from __future__ import annotations

from datetime import datetime

from suggestbot.store.records import Digest
from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.digests import digest_fields
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.blocks.text import escape_mrkdwn, quote
from suggestbot.ui.messages import t

# Slack errors whose reason has its own sentence (others get a general one).
_REASONS = frozenset({"not_in_channel", "is_archived", "channel_not_found", "restricted_action"})


def added_text(*, lang: str, digest: Digest, next_fire: datetime | None) -> str:
    """The confirmation of a new digest: what, where, when, and when it posts first."""
    return t(
        "digest.added",
        lang,
        **digest_fields(digest, lang=lang),
        next=slack_date(next_fire.timestamp(), lang) if next_fire else "—",
    )


def build_digest_not_found(*, lang: str, ref: str) -> Message:
    """``ref`` (an id, the start of one, or nothing) names no single digest of the workspace."""
    return build_notice(lang=lang, text=t("digest.not_found", lang, ref=quote(ref)))


def build_digest_toggled(*, lang: str, digest: Digest, paused: bool) -> Message:
    """A digest was paused or resumed by hand."""
    key = "digest.paused" if paused else "digest.resumed"
    return build_notice(lang=lang, text=t(key, lang, id=digest.id, channel=digest.channel_id))


def build_digest_removed(*, lang: str, digest: Digest) -> Message:
    return build_notice(
        lang=lang,
        text=t(
            "digest.removed",
            lang,
            id=digest.id,
            segment=escape_mrkdwn(digest.segment_name),
            use_case=escape_mrkdwn(digest.use_case_name),
            channel=digest.channel_id,
        ),
    )


def build_digest_usage(*, lang: str, sub: str) -> Message:
    """``/suggest digest <sub>`` with a word it does not know."""
    return build_notice(lang=lang, text=t("digest.usage", lang, sub=quote(sub)))


def build_invite_first(*, lang: str, channel_id: str) -> Message:
    """A digest was asked for in a channel the app is not a member of."""
    return build_notice(lang=lang, text=t("digest.invite_first", lang, channel=channel_id))


def reason_text(*, lang: str, error: str) -> str:
    """Why a channel refused a digest's post, in plain words (never Slack's code)."""
    key = error if error in _REASONS else "other"
    return t(f"digest.reason.{key}", lang)


def build_paused_dm(*, lang: str, digest: Digest, error: str) -> Message:
    """To the digest's creator: it paused itself because its channel refused a post."""
    text = t(
        "digest.paused_dm",
        lang,
        id=digest.id,
        segment=escape_mrkdwn(digest.segment_name),
        use_case=escape_mrkdwn(digest.use_case_name),
        channel=digest.channel_id,
        reason=reason_text(lang=lang, error=error),
    )
    return build_notice(lang=lang, text=text)
