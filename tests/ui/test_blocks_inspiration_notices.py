"""``/suggest inspire`` as worded by ui, in English and German: the picker's question, the
notes under an answer, where a shared variant went, and the notices of its buttons."""

from __future__ import annotations

import pytest

from suggestbot.ui.blocks.inspiration import Labels, build_pair_picker, build_shared_messages
from suggestbot.ui.blocks.inspiration_notices import (
    build_bad_option,
    build_cannot_post,
    build_content_unavailable,
    build_generation_notice,
    build_offer_gone,
    build_shared_notice,
    build_watch_expired,
    generation_note,
    ready_note,
    skipped_note,
)
from suggestbot.ui.blocks.results import Message, Variant

LABELS = Labels(segment="Weekend <Hikers>", use_case="Spring & Launch")
NAMES = "*Weekend &lt;Hikers&gt;* · *Spring &amp; Launch*"
OPTIONS = [("s1", "Weekend Hikers"), ("s2", "Weekend Runners")]


def _intro(message: Message) -> str:
    return str(message.blocks[0]["text"]["text"])


def _chosen(message: Message) -> str | None:
    for block in message.blocks:
        if block.get("block_id") == "chosen":
            return str(block["elements"][0]["text"])
    return None


@pytest.mark.parametrize(
    ("lang", "unknown", "ambiguous", "which_use_case", "chosen_segment"),
    [
        ("en", "No segment or use case matches `xyz`", "`week` matches several segments.",
         "Which use case?", "Segment: *Weekend &lt;Hikers&gt;*"),
        ("de", "Kein Segment und kein Anwendungsfall passt zu `xyz`",
         "`week` passt zu mehreren Segmenten.", "Welcher Anwendungsfall?",
         "Segment: *Weekend &lt;Hikers&gt;*"),
    ],
)  # fmt: skip
def test_the_picker_asks_for_the_missing_side_and_names_the_chosen_one(
    lang: str, unknown: str, ambiguous: str, which_use_case: str, chosen_segment: str
) -> None:
    picker = build_pair_picker(
        lang=lang,
        asking="segment",
        typed="week",
        unknown="xyz",
        chosen=None,
        options=OPTIONS,
        values=["a", "b"],
    )
    first, second = _intro(picker).split("\n")
    assert first.startswith(unknown) and second.startswith(ambiguous)
    assert _chosen(picker) is None
    picker = build_pair_picker(
        lang=lang,
        asking="use_case",
        typed="",
        unknown=None,
        chosen="Weekend <Hikers>",
        options=OPTIONS,
        values=["a", "b"],
    )
    assert _intro(picker) == which_use_case and picker.text == which_use_case
    assert _chosen(picker) == chosen_segment


def test_a_picker_for_the_segment_names_the_chosen_use_case() -> None:
    picker = build_pair_picker(
        lang="de",
        asking="segment",
        typed="",
        unknown=None,
        chosen="Spring",
        options=OPTIONS,
        values=["a", "b"],
    )
    assert _intro(picker) == "Für welches Segment möchtest du fertige Inhalte sehen?"
    assert _chosen(picker) == "Anwendungsfall: *Spring*"


@pytest.mark.parametrize(
    ("lang", "generating", "not_set_up", "unavailable", "ready", "skipped"),
    [
        ("en", "is being generated", "does not know *Weekend &lt;Hikers&gt;*",
         "could not be reached", "is ready", "2 suggestions of a kind"),
        ("de", "werden generiert", "kennt *Weekend &lt;Hikers&gt;* nicht", "nicht erreichbar",
         "sind da", "2 Vorschläge einer hier noch unbekannten Art"),
    ],
)  # fmt: skip
def test_notes_under_an_answer_say_what_asking_for_a_new_set_came_to(
    lang: str, generating: str, not_set_up: str, unavailable: str, ready: str, skipped: str
) -> None:
    note = generation_note(lang=lang, start="generating", labels=LABELS)
    assert note.startswith(":hourglass_flowing_sand:") and generating in note and NAMES in note
    assert not_set_up in generation_note(lang=lang, start="not_set_up", labels=LABELS)
    assert unavailable in generation_note(lang=lang, start="unavailable", labels=LABELS)
    notice = build_generation_notice(lang=lang, start="generating", labels=LABELS)
    assert notice.text == note and notice.blocks[0]["text"]["text"] == note
    assert ready in ready_note(lang=lang, labels=LABELS) and NAMES in ready_note(
        lang=lang, labels=LABELS
    )
    assert skipped_note(lang=lang, count=2).startswith(skipped)


@pytest.mark.parametrize(
    ("lang", "shared", "already", "there", "open_"),
    [
        ("en", "Shared to <#C1>.", "already shared to <#C1>", "is in <#C1> now", "Open"),
        ("de", "In <#C1> geteilt.", "bereits in <#C1> geteilt", "ist jetzt in <#C1>", "Öffnen"),
    ],
)
def test_where_a_shared_variant_went_links_to_it_when_slack_gave_a_link(
    lang: str, shared: str, already: str, there: str, open_: str
) -> None:
    link = "https://example.slack.com/archives/C1/p1"
    message = build_shared_notice(lang=lang, where="shared", channel_id="C1", permalink=link)
    assert shared in message.text and message.text.endswith(f" <{link}|{open_}>")
    message = build_shared_notice(
        lang=lang, where="already_shared", channel_id="C1", permalink=None
    )
    assert already in message.text and "<https" not in message.text
    message = build_shared_notice(lang=lang, where="refine_there", channel_id="C1", permalink=None)
    assert there in message.text


@pytest.mark.parametrize(
    ("lang", "bad", "gone", "cannot", "expired", "unavailable"),
    [
        ("en", "I don't know the option `--vers`", "This answer has expired",
         "I can't post in <#C1>", "has not appeared after a long wait", "could not be reached"),
        ("de", "Die Option `--vers` kenne ich nicht", "Diese Antwort ist abgelaufen",
         "Ich kann in <#C1> nicht posten", "nach langer Wartezeit nicht erschienen",
         "nicht erreichbar"),
    ],
)  # fmt: skip
def test_the_notices_of_the_command_and_its_buttons(
    lang: str, bad: str, gone: str, cannot: str, expired: str, unavailable: str
) -> None:
    assert build_bad_option(lang=lang, option="--vers").text.startswith(bad)
    assert build_offer_gone(lang=lang).text.startswith(gone)
    assert build_cannot_post(lang=lang, channel_id="C1").text.startswith(cannot)
    text = build_watch_expired(lang=lang, labels=LABELS).text
    assert expired in text and NAMES in text
    assert unavailable in build_content_unavailable(lang=lang).text


@pytest.mark.parametrize(
    ("lang", "intro", "hint"),
    [
        ("en", "Shared by <@U7> from ready-made content: Weekend &lt;Hikers&gt; · Spring "
         "&amp; Launch, version 4", "Reply in this thread to refine it."),
        ("de", "Geteilt von <@U7> aus fertigen Inhalten: Weekend &lt;Hikers&gt; · Spring "
         "&amp; Launch", "Antworte in diesem Thread, um den Vorschlag zu verfeinern."),
    ],
)  # fmt: skip
def test_a_shared_root_says_who_shared_it_from_where_and_how_to_refine(
    lang: str, intro: str, hint: str
) -> None:
    variant = Variant(
        suggestion_id="s1", number=1, total=3, kind="email", body="Join us", subject="Trail days"
    )
    (root,) = build_shared_messages(
        lang=lang, variant=variant, shared_by="U7", labels=LABELS, version=4
    )
    first, last = root.blocks[0], root.blocks[-1]
    assert first["block_id"] == "shared-intro" and first["elements"][0]["text"].startswith(intro)
    assert last["block_id"] == "shared-hint" and last["elements"][0]["text"] == hint
