"""Feedback under a variant or turn (👍 / 👎), and the optional "what was wrong?" modal."""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import (
    ContextActionsBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
    InputBlock,
    PlainTextInputElement,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject
from slack_sdk.models.views import View

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.text import view_text
from suggestbot.ui.messages import t

REASON_INPUT_MAX = 500
POSITIVE = "up"
NEGATIVE = "down"


def feedback_block(*, lang: str, value: str) -> ContextActionsBlock:
    """Slack's feedback buttons; each button's value says which way and on what
    (``"up:<value>"`` / ``"down:<value>"``), so a press needs nothing else to be recorded."""
    return ContextActionsBlock(
        block_id="feedback",
        elements=[
            FeedbackButtonsElement(
                action_id=ids.ACTION_FEEDBACK,
                positive_button=FeedbackButtonObject(
                    text=t("feedback.good", lang),
                    accessibility_label=t("feedback.good_label", lang),
                    value=f"{POSITIVE}:{value}",
                ),
                negative_button=FeedbackButtonObject(
                    text=t("feedback.bad", lang),
                    accessibility_label=t("feedback.bad_label", lang),
                    value=f"{NEGATIVE}:{value}",
                ),
            )
        ],
    )


def parse_press(value: str) -> tuple[bool, str] | None:
    """``(positive, what)`` from a pressed feedback button's value, or None."""
    way, _, what = value.partition(":")
    if way not in (POSITIVE, NEGATIVE) or not what:
        return None
    return way == POSITIVE, what


def build_reason_modal(*, lang: str, value: str) -> dict[str, Any]:
    """One optional question after a thumbs-down; ``value`` names the vote it explains."""
    return View(
        type="modal",
        callback_id=ids.VIEW_FEEDBACK_REASON,
        title=view_text("feedback.reason_title", lang),
        submit=view_text("feedback.reason_submit", lang),
        close=view_text("feedback.reason_skip", lang),
        private_metadata=value,
        blocks=[
            SectionBlock(
                block_id="intro", text=MarkdownTextObject(text=t("feedback.reason_intro", lang))
            ),
            InputBlock(
                block_id=ids.INPUT_FEEDBACK_REASON,
                label=t("feedback.reason_label", lang),
                optional=True,
                element=PlainTextInputElement(
                    action_id=ids.INPUT_FEEDBACK_REASON,
                    multiline=True,
                    max_length=REASON_INPUT_MAX,
                    placeholder=t("feedback.reason_placeholder", lang),
                ),
            ),
        ],
    ).to_dict()
