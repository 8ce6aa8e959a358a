"""The HTML transcript renders the AI-app blocks: a carousel's cards side by side with their
images embedded, feedback buttons, markdown, and the status line under a working thread."""

from __future__ import annotations

import re
from typing import Any

from suggestbot.demo.html import Scene, markdown_to_html, render_html

PNG = b"\x89PNG\r\n\x1a\nfake"


def _card(n: int) -> dict[str, Any]:
    return {
        "type": "card",
        "block_id": f"card-{n}",
        "hero_image": {
            "type": "image",
            "image_url": f"https://img.test/v{n}.png?sig=secret",
            "alt_text": f"Variant {n} image",
        },
        "title": {"type": "mrkdwn", "text": f"*Variant {n}*"},
        "subtitle": {"type": "mrkdwn", "text": "Email · Runners"},
        "body": {"type": "mrkdwn", "text": f"Body of variant {n}"},
        "actions": [
            {"type": "button", "text": {"type": "plain_text", "text": "Refine"}},
            {"type": "button", "text": {"type": "plain_text", "text": "Copy text"}},
        ],
    }


ROOT: dict[str, Any] = {
    "ts": "1700000000.000100",
    "bot_id": "B1",
    "text": "2 variants",
    "blocks": [
        {"type": "carousel", "elements": [_card(1), _card(2)]},
        {
            "type": "context_actions",
            "elements": [
                {
                    "type": "feedback_buttons",
                    "action_id": "fb",
                    "positive_button": {"text": {"type": "plain_text", "text": "👍"}, "value": "u"},
                    "negative_button": {"text": {"type": "plain_text", "text": "👎"}, "value": "d"},
                }
            ],
        },
    ],
}
REPLY: dict[str, Any] = {
    "ts": "1700000000.000200",
    "bot_id": "B1",
    "text": "Variant 1",
    "blocks": [{"type": "markdown", "text": "## Subject\n**Run** into _spring_\n- one\n- two"}],
}


def test_cards_feedback_markdown_and_the_status_line_are_rendered() -> None:
    fetched: list[str] = []

    def fetch(url: str) -> bytes:
        fetched.append(url)
        return PNG

    page = render_html(
        title="t",
        scenes=[
            Scene(
                title="Gallery",
                messages=[ROOT],
                replies={ROOT["ts"]: [REPLY]},
                statuses={ROOT["ts"]: "is refining variant 2…"},
            )
        ],
        names={},
        fetch=fetch,
    )
    carousel = re.search(r'<div class="carousel">(.*?)</div><div><span class="btn icon">', page)
    assert carousel is not None
    cards = re.findall(r'<div class="card">', carousel.group(1))
    assert len(cards) == 2
    assert carousel.group(1).index("Variant 1") < carousel.group(1).index("Variant 2")
    assert carousel.group(1).count("data:image/png;base64,") == 2
    assert "sig=secret" not in page and len(fetched) == 2
    assert carousel.group(1).count('<span class="btn ">Copy text</span>') == 2
    assert '<span class="btn icon">👍</span><span class="btn icon">👎</span>' in page
    assert "<h2>Subject</h2><b>Run</b> into <i>spring</i><br><ul><li>one</li><li>two</li></ul>" in (
        page
    )
    thread = page[page.index("<div class='thread'>") :]
    assert thread.index("Subject") < thread.index(
        "<div class='status'>suggestbot is refining variant 2…</div>"
    )


def test_markdown_is_escaped_before_it_is_formatted() -> None:
    assert markdown_to_html("<script>**x**</script>") == (
        '<div class="md">&lt;script&gt;<b>x</b>&lt;/script&gt;<br></div>'
    )


def test_markdown_bold_strikethrough_and_links() -> None:
    assert markdown_to_html("__new__ ~~old~~ [shop](https://shop.test)") == (
        '<div class="md"><b>new</b> <s>old</s> <a href="https://shop.test">shop</a><br></div>'
    )
    assert "href" not in markdown_to_html("[click](javascript:alert(1))")


def test_the_composer_renders_its_prompts_choices_and_the_link_to_a_source_message() -> None:
    root = {
        "ts": "1700000001.000100",
        "bot_id": "B1",
        "text": "queued",
        "blocks": [
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": "From <https://emu.test/archives/C1/p17?x=1&amp;y=2|a message>",
                    }
                ],
            },
            {
                "type": "actions",
                "block_id": "composer_choices:r1",
                "elements": [
                    {
                        "type": "static_select",
                        "action_id": "composer.segment",
                        "placeholder": {"type": "plain_text", "text": "Segment"},
                        "initial_option": {
                            "text": {"type": "plain_text", "text": "Trail Runners"},
                            "value": "s2",
                        },
                        "options": [],
                    }
                ],
            },
        ],
    }
    page = render_html(
        title="t",
        scenes=[
            Scene(
                title="composer",
                messages=[root],
                statuses={root["ts"]: "is queued at the service…"},
                prompts=["Spring Launch for Weekend Hikers", "Loyalty <Reward>"],
            )
        ],
        names={},
        fetch=lambda url: None,
    )
    assert '<a href="https://emu.test/archives/C1/p17?x=1&amp;y=2">a message</a>' in page
    assert '<span class="select">Trail Runners ▾</span>' in page
    assert "<span class='prompt'>Loyalty &lt;Reward&gt;</span>" in page
    assert "suggestbot is queued at the service…" in page
