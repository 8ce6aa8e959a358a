"""What a person is told about their digests, in English and German."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from suggestbot.store.records import Digest
from suggestbot.ui.blocks.digest_notices import (
    added_text,
    build_digest_not_found,
    build_digest_removed,
    build_digest_toggled,
    build_digest_usage,
    build_invite_first,
    build_paused_dm,
)
from suggestbot.ui.blocks.results import Message

DIGEST = Digest(
    id="d1e2f3a4",
    team_id="T1",
    channel_id="C1",
    created_by="U1",
    segment_id="s",
    use_case_id="u",
    segment_name="Weekend <Hikers>",
    use_case_name="Spring Launch",
    time="09:00",
    tz="Europe/Berlin",
    weekdays=[0, 1, 2, 3, 4],
)


def _shown(message: Message) -> str:
    """The notice's one section, which must say what the fallback text says."""
    assert [b["type"] for b in message.blocks] == ["section"]
    assert message.blocks[0]["text"]["text"] == message.text
    return message.text


@pytest.mark.parametrize(
    ("lang", "added", "days"), [("en", "added", "Mon–Fri"), ("de", "angelegt", "Mo–Fr")]
)
def test_a_new_digest_says_what_where_when_and_next(lang: str, added: str, days: str) -> None:
    upcoming = datetime(2030, 1, 8, 8, tzinfo=UTC)
    text = added_text(lang=lang, digest=DIGEST, next_fire=upcoming)
    assert f"Digest `d1e2f3a4` {added}" in text
    assert "*Weekend &lt;Hikers&gt;* · *Spring Launch*" in text
    assert "<#C1>" in text and "09:00 (Europe/Berlin)" in text and days in text
    assert f"<!date^{int(upcoming.timestamp())}^" in text
    assert added_text(lang=lang, digest=DIGEST, next_fire=None).endswith("—.")


@pytest.mark.parametrize(
    ("lang", "none", "paused", "resumed", "removed"),
    [
        ("en", "No single digest matches `abc`.", "is paused", "is active again", "is removed"),
        ("de", "Kein eindeutiger Digest passt zu `abc`.", "pausiert", "wieder aktiv", "entfernt"),
    ],
)
def test_changes_by_hand_are_confirmed_with_the_digests_id(
    lang: str, none: str, paused: str, resumed: str, removed: str
) -> None:
    assert _shown(build_digest_not_found(lang=lang, ref="abc")) == none
    text = _shown(build_digest_toggled(lang=lang, digest=DIGEST, paused=True))
    assert paused in text and "`/suggest digest resume d1e2f3a4`" in text
    text = _shown(build_digest_toggled(lang=lang, digest=DIGEST, paused=False))
    assert resumed in text and "`d1e2f3a4`" in text and "<#C1>" in text
    text = _shown(build_digest_removed(lang=lang, digest=DIGEST))
    assert removed in text and "*Weekend &lt;Hikers&gt;*" in text


@pytest.mark.parametrize(
    ("lang", "usage", "invite"),
    [
        ("en", "I don't know `/suggest digest weekly`", "I'm not a member of <#C9>"),
        ("de", "`/suggest digest weekly` kenne ich nicht", "Ich bin nicht Mitglied von <#C9>"),
    ],
)
def test_a_wrong_word_or_channel_is_explained(lang: str, usage: str, invite: str) -> None:
    assert _shown(build_digest_usage(lang=lang, sub="weekly")).startswith(usage)
    text = _shown(build_invite_first(lang=lang, channel_id="C9"))
    assert text.startswith(invite) and "`/invite @suggestbot`" in text


@pytest.mark.parametrize(
    ("lang", "archived", "other"),
    [
        ("en", "the channel was archived", "Slack refused the post"),
        ("de", "Der Kanal wurde archiviert", "Slack hat den Post abgelehnt"),
    ],
)
def test_a_self_paused_digest_tells_its_creator_why_in_plain_words(
    lang: str, archived: str, other: str
) -> None:
    text = _shown(build_paused_dm(lang=lang, digest=DIGEST, error="is_archived"))
    assert archived in text and "`/suggest digest resume d1e2f3a4`" in text
    text = _shown(build_paused_dm(lang=lang, digest=DIGEST, error="ratelimited"))
    assert other in text and "ratelimited" not in text
