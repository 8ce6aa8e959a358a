"""Cards, carousels, context actions with feedback buttons, and markdown blocks: every limit at
its boundary (n accepted, n+1 refused with Slack's error and pointer), and what Slack keeps."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import (
    ButtonElement,
    CardBlock,
    CarouselBlock,
    ContextActionsBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
    ImageElement,
    MarkdownBlock,
    MarkdownTextObject,
    PlainTextObject,
)
from slackemu_helpers import EmuSetup, FakeClock, button, modal, section

from suggestbot.slackemu import SlackEmulator

Blocks = list[dict[str, Any]]


@pytest.fixture(scope="module")
def shared() -> Iterator[EmuSetup]:
    """One workspace for the many boundary checks, which only add messages and views."""
    clock = FakeClock()
    # Hundreds of posts on a clock that never moves: these checks need unlimited calls.
    with SlackEmulator(clock=clock, rationing=False) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        general = emu.add_channel("general", members=[alice])
        emu.invite_bot(general)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        yield EmuSetup(emu, client, alice, alice, general, general, general, clock)


def _mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text}


def _card(**fields: Any) -> dict[str, Any]:
    return {"type": "card", **fields}


def _feedback(**overrides: Any) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "feedback_buttons",
        "action_id": "feedback",
        "positive_button": {"text": {"type": "plain_text", "text": "👍"}, "value": "up"},
        "negative_button": {"text": {"type": "plain_text", "text": "👎"}, "value": "down"},
    }
    element.update(overrides)
    return element


def _thumb(text: str = "👍", value: str = "up", **extra: Any) -> dict[str, Any]:
    return {"text": {"type": "plain_text", "text": text}, "value": value, **extra}


LIMITS: dict[str, tuple[int, Callable[[int], Blocks], str]] = {
    # name: (n allowed, blocks with n, json-pointer Slack names when n+1)
    "card title": (150, lambda n: [_card(title=_mrkdwn("t" * n))], "/blocks/0/title/text]"),
    "card subtitle": (
        150,
        lambda n: [_card(title=_mrkdwn("t"), subtitle=_mrkdwn("s" * n))],
        "/blocks/0/subtitle/text]",
    ),
    "card body": (200, lambda n: [_card(body=_mrkdwn("b" * n))], "/blocks/0/body/text]"),
    "card buttons": (
        3,
        lambda n: [_card(actions=[button(f"B{i}", f"b{i}") for i in range(n)])],
        "/blocks/0/actions]",
    ),
    "cards per carousel": (
        10,
        lambda n: [
            {"type": "carousel", "elements": [_card(title=_mrkdwn(f"c{i}")) for i in range(n)]}
        ],
        "/blocks/0/elements]",
    ),
    "card title inside a carousel": (
        150,
        lambda n: [{"type": "carousel", "elements": [_card(title=_mrkdwn("t" * n))]}],
        "/blocks/0/elements/0/title/text]",
    ),
    "context actions elements": (
        5,
        lambda n: [
            {
                "type": "context_actions",
                "elements": [_feedback(action_id=f"f{i}") for i in range(n)],
            }
        ],
        "/blocks/0/elements]",
    ),
    "feedback button text": (
        75,
        lambda n: [
            {"type": "context_actions", "elements": [_feedback(positive_button=_thumb("y" * n))]}
        ],
        "/blocks/0/elements/0/positive_button/text/text]",
    ),
    "feedback button value": (
        2000,
        lambda n: [
            {
                "type": "context_actions",
                "elements": [_feedback(negative_button=_thumb("👎", "v" * n))],
            }
        ],
        "/blocks/0/elements/0/negative_button/value]",
    ),
    "feedback accessibility label": (
        75,
        lambda n: [
            {
                "type": "context_actions",
                "elements": [_feedback(positive_button=_thumb(accessibility_label="a" * n))],
            }
        ],
        "/blocks/0/elements/0/positive_button/accessibility_label]",
    ),
    "markdown characters per message": (
        12_000,
        lambda n: [
            {"type": "markdown", "text": "m" * (n // 2)},
            {"type": "markdown", "text": "n" * (n - n // 2)},
        ],
        "/blocks]",
    ),
}


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_limit_passes_at_n_and_fails_at_n_plus_one(shared: EmuSetup, name: str) -> None:
    limit, make, pointer = LIMITS[name]
    posted = shared.client.chat_postMessage(channel=shared.general, text="t", blocks=make(limit))
    assert posted["ok"], name
    with pytest.raises(SlackApiError) as refused:
        shared.client.chat_postMessage(channel=shared.general, text="t", blocks=make(limit + 1))
    assert refused.value.response["error"] == "invalid_blocks"
    messages = refused.value.response["response_metadata"]["messages"]
    assert any(m.endswith(f"[json-pointer:{pointer}") for m in messages), messages


def test_a_gallery_built_with_slack_sdk_models_is_accepted_as_sent(shared: EmuSetup) -> None:
    card = CardBlock(
        block_id="variant-1",
        hero_image=ImageElement(image_url="https://img.test/v1.png", alt_text="Runner at dawn"),
        title=MarkdownTextObject(text="*Variant 1*"),
        subtitle=MarkdownTextObject(text="Email · Runners"),
        body=MarkdownTextObject(text="b" * 200),
        actions=[
            ButtonElement(text="Refine", action_id="refine", value="v1"),
            ButtonElement(text="Copy text", action_id="copy", value="v1"),
        ],
    )
    blocks = [
        CarouselBlock(elements=[card]).to_dict(),
        MarkdownBlock(text="**Subject:** Run into spring").to_dict(),
        ContextActionsBlock(
            elements=[
                FeedbackButtonsElement(
                    action_id="feedback",
                    positive_button=FeedbackButtonObject(
                        text=PlainTextObject(text="👍"), value="up"
                    ),
                    negative_button=FeedbackButtonObject(
                        text=PlainTextObject(text="👎"), value="down"
                    ),
                )
            ]
        ).to_dict(),
    ]
    posted = shared.client.chat_postMessage(
        channel=shared.general, text="3 variants", blocks=blocks
    )
    stored = posted["message"]["blocks"]
    assert stored[0]["elements"][0]["block_id"] == "variant-1"
    assert [a["action_id"] for a in stored[0]["elements"][0]["actions"]] == ["refine", "copy"]
    assert stored[2]["elements"][0]["positive_button"]["value"] == "up"


def test_slack_fills_in_ids_for_cards_and_their_buttons_and_for_feedback_buttons(
    shared: EmuSetup,
) -> None:
    refine = {"type": "button", "text": {"type": "plain_text", "text": "Refine"}}
    feedback = _feedback()
    del feedback["action_id"]
    blocks = [
        {"type": "carousel", "elements": [_card(title=_mrkdwn("A"), actions=[refine])]},
        {"type": "context_actions", "elements": [feedback]},
    ]
    stored = shared.client.chat_postMessage(channel=shared.general, text="t", blocks=blocks)[
        "message"
    ]["blocks"]
    card = stored[0]["elements"][0]
    assert card["block_id"] and card["actions"][0]["action_id"]
    assert stored[1]["block_id"] and stored[1]["elements"][0]["action_id"]


def test_markdown_blocks_keep_no_block_id(shared: EmuSetup) -> None:
    blocks = [{"type": "markdown", "block_id": "body", "text": "**bold**"}, section("after")]
    posted = shared.client.chat_postMessage(channel=shared.general, text="t", blocks=blocks)
    stored = posted["message"]["blocks"]
    assert "block_id" not in stored[0]
    assert stored[1]["block_id"]
    history = shared.emu.messages(shared.general)[-1]["blocks"]
    assert "block_id" not in history[0]


@pytest.mark.parametrize(
    ("block", "why", "pointer"),
    [
        (_card(subtitle=_mrkdwn("only a subtitle")), "at least one of hero_image", "/blocks/0"),
        (_card(title=_mrkdwn("t"), actions=[]), "non-empty array", "/blocks/0/actions"),
        (
            _card(actions=[{"type": "overflow", "options": []}]),
            "unsupported type: overflow",
            "/blocks/0/actions/0/type",
        ),
        (
            _card(hero_image={"image_url": "https://img.test/a.png", "alt_text": "a"}),
            "must be an image element",
            "/blocks/0/hero_image",
        ),
        (
            _card(title=_mrkdwn("t"), icon={"type": "icon", "name": "unicorn"}),
            "Slack icon names",
            "/blocks/0/icon/name",
        ),
        ({"type": "carousel", "elements": []}, "at least 1 items", "/blocks/0/elements"),
        (
            {"type": "carousel", "elements": [section("not a card")]},
            "unsupported type: section",
            "/blocks/0/elements/0/type",
        ),
        ({"type": "context_actions", "elements": []}, "non-empty array", "/blocks/0/elements"),
        (
            {"type": "context_actions", "elements": [button("No", "no")]},
            "unsupported type: button",
            "/blocks/0/elements/0/type",
        ),
        (
            {"type": "context_actions", "elements": [_feedback(negative_button=None)]},
            "missing required field: negative_button",
            "/blocks/0/elements/0",
        ),
        (
            {"type": "context_actions", "elements": [_feedback(positive_button={"text": {}})]},
            "missing required field: value",
            "/blocks/0/elements/0/positive_button",
        ),
        (
            {
                "type": "context_actions",
                "elements": [
                    _feedback(positive_button=_thumb(text="x") | {"text": _mrkdwn("*up*")})
                ],
            },
            "must be one of plain_text",
            "/blocks/0/elements/0/positive_button/text/type",
        ),
        (
            {"type": "context_actions", "elements": [_feedback(), _feedback()]},
            "duplicate action_id: feedback",
            "/blocks/0/elements/1/action_id",
        ),
        (
            {"type": "context_actions", "elements": [{"type": "icon_button", "text": "x"}]},
            "missing required field: icon",
            "/blocks/0/elements/0",
        ),
    ],
)
def test_malformed_ai_blocks_are_refused_with_a_pointer(
    shared: EmuSetup, block: dict[str, Any], why: str, pointer: str
) -> None:
    with pytest.raises(SlackApiError) as refused:
        shared.client.chat_postMessage(channel=shared.general, text="t", blocks=[block])
    assert refused.value.response["error"] == "invalid_blocks"
    messages = refused.value.response["response_metadata"]["messages"]
    assert any(why in m and m.endswith(f"[json-pointer:{pointer}]") for m in messages), messages


@pytest.mark.parametrize(
    "block",
    [
        _card(title=_mrkdwn("t")),
        {"type": "carousel", "elements": [_card(title=_mrkdwn("t"))]},
        {"type": "context_actions", "elements": [_feedback()]},
        {"type": "markdown", "text": "**hi**"},
    ],
    ids=lambda b: b["type"],
)
def test_ai_blocks_are_for_messages_only_and_refused_in_views(
    shared: EmuSetup, block: dict[str, Any]
) -> None:
    with pytest.raises(SlackApiError) as refused:
        shared.client.views_publish(user_id=shared.alice, view={"type": "home", "blocks": [block]})
    assert refused.value.response["error"] == "invalid_arguments"
    assert f"unsupported type: {block['type']} [json-pointer:/view/blocks/0/type]" in str(
        refused.value.response["response_metadata"]
    )
    trigger = shared.emu.issue_trigger(shared.alice)
    with pytest.raises(SlackApiError):
        shared.client.views_open(trigger_id=trigger, view=modal([block]))
