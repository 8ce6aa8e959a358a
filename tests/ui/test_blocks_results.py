"""The variant and root builders: what a person sees, within Slack's limits."""

from __future__ import annotations

from suggestbot.ui.blocks.results import (
    Button,
    Variant,
    build_root_message,
    build_variant_messages,
)
from suggestbot.ui.blocks.text import (
    MESSAGE_TEXT_BUDGET,
    block_text_length,
    escape_markdown,
    escape_mrkdwn,
    split_text,
    unescape_markdown,
)


def _email(body: str, **kw: object) -> Variant:
    fields: dict = {
        "suggestion_id": "s1",
        "number": 1,
        "total": 2,
        "kind": "email",
        "subject": "Spring <sale> & more",
        "body": body,
    }
    fields.update(kw)
    return Variant(**fields)


def test_email_variant_shows_title_subject_and_plain_body() -> None:
    [message] = build_variant_messages(lang="en", variant=_email("Hello *friends*\nSee you"))
    blocks = message.blocks
    assert blocks[0]["type"] == "header"
    assert blocks[0]["text"]["text"] == "Variant 1 of 2 · Email"
    assert "Spring &lt;sale&gt; &amp; more" in blocks[1]["text"]["text"]
    # the service's plain text stays plain: a markdown block, with *friends* escaped so that
    # it shows as typed (and no block_id: Slack keeps none on a markdown block)
    assert blocks[2] == {"type": "markdown", "text": "Hello \\*friends\\*\nSee you"}
    assert unescape_markdown(blocks[2]["text"]) == "Hello *friends*\nSee you"
    assert message.text.startswith("Variant 1 of 2 · Email: Spring")


def test_german_titles() -> None:
    [message] = build_variant_messages(lang="de", variant=_email("Hallo"))
    assert message.blocks[0]["text"]["text"] == "Variante 1 von 2 · E-Mail"


def test_social_variant_has_image_with_alt_text_and_refresh_button() -> None:
    variant = Variant(
        suggestion_id="s2",
        number=2,
        total=2,
        kind="social_single_image",
        body="Out now",
        image_url="http://127.0.0.1:9/img.png?sig=x",
        alt_text="A red tent on a hill",
        buttons=[Button("variant.refresh", "variant.refresh_preview", "r:2")],
    )
    [message] = build_variant_messages(lang="en", variant=variant)
    image = next(b for b in message.blocks if b["type"] == "image")
    assert image["alt_text"] == "A red tent on a hill"
    actions = next(b for b in message.blocks if b["type"] == "actions")
    assert actions["elements"][0]["text"]["text"] == "Refresh preview"


def test_social_variant_without_url_explains_how_to_get_a_preview() -> None:
    variant = Variant(
        suggestion_id="s2", number=1, total=1, kind="social_single_image", body="x", alt_text="a"
    )
    [message] = build_variant_messages(lang="en", variant=variant)
    assert not any(b["type"] == "image" for b in message.blocks)
    assert any("Refresh preview" in str(b) for b in message.blocks)


def test_long_body_splits_into_sections_and_messages_within_limits() -> None:
    body = "\n\n".join(f"Paragraph {i} " + "word " * 500 for i in range(80))
    messages = build_variant_messages(lang="en", variant=_email(body))
    assert len(messages) >= 2
    for message in messages:
        assert len(message.blocks) <= 50
        assert block_text_length(message.blocks) <= MESSAGE_TEXT_BUDGET
        assert sum(len(b["text"]) for b in message.blocks if b["type"] == "markdown") <= 12_000
    shown = "".join(
        unescape_markdown(b["text"]) for m in messages for b in m.blocks if b["type"] == "markdown"
    )
    assert shown.replace("\n", "").replace(" ", "") == body.replace("\n", "").replace(" ", "")


def test_split_text_prefers_paragraphs_and_cuts_unbroken_runs() -> None:
    assert split_text("a" * 7000, limit=3000) == ["a" * 3000, "a" * 3000, "a" * 1000]
    text = "first para\n\n" + "b" * 20
    assert split_text(text, limit=15) == ["first para", "b" * 15, "b" * 5]
    assert split_text("") == [""]


def test_escape_mrkdwn() -> None:
    assert escape_mrkdwn("<@U1> & <!channel>") == "&lt;@U1&gt; &amp; &lt;!channel&gt;"


def test_root_message_quotes_brief_escaped_and_shows_buttons() -> None:
    message = build_root_message(
        lang="en",
        status="queued",
        brief="Launch <!channel> now\nsecond line",
        context="Hikers · Spring",
        buttons=[Button("button.retry", "request.retry", "abc", "primary")],
    )
    quote = message.blocks[1]["text"]["text"]
    assert quote == "> Launch &lt;!channel&gt; now\n> second line"
    assert message.blocks[-1]["elements"][0]["text"]["text"] == "Retry"


def test_markdown_escapes_what_markdown_would_read_and_nothing_is_lost() -> None:
    typed = "# Sale\n- tents\n1. first\n*bold* _it_ `code` [a](b) <b> | ~x~ \\ 3.5 - ok"
    escaped = escape_markdown(typed)
    assert escaped.startswith("\\# Sale\n\\- tents\n1\\. first\n\\*bold\\*")
    assert "3.5 - ok" in escaped  # nothing escaped that markdown leaves alone
    assert unescape_markdown(escaped) == typed


def test_variant_and_turn_end_with_feedback_buttons_carrying_what_was_rated() -> None:
    [message] = build_variant_messages(lang="de", variant=_email("Hallo", feedback="req1:2"))
    last = message.blocks[-1]
    assert last["type"] == "context_actions"
    buttons = last["elements"][0]
    assert buttons["type"] == "feedback_buttons"
    assert buttons["positive_button"]["value"] == "up:req1:2"
    assert buttons["negative_button"]["value"] == "down:req1:2"
    assert buttons["positive_button"]["text"]["text"] == "Guter Vorschlag"
    [plain] = build_variant_messages(lang="en", variant=_email("Hello"))
    assert not any(b["type"] == "context_actions" for b in plain.blocks)


def test_a_long_variant_keeps_its_feedback_on_its_last_message() -> None:
    body = "\n\n".join("word " * 500 for _ in range(10))
    messages = build_variant_messages(lang="en", variant=_email(body, feedback="r:1"))
    assert len(messages) >= 2
    assert messages[-1].blocks[-1]["type"] == "context_actions"
    assert not any(b["type"] == "context_actions" for m in messages[:-1] for b in m.blocks)
