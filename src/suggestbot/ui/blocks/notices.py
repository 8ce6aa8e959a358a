"""Short messages to one user: help, confirmations, prompts with a button or two."""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, HeaderBlock, SectionBlock
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject

from suggestbot.ui.blocks.results import MESSAGE_BLOCKS_MAX, Button, Message
from suggestbot.ui.blocks.text import split_text
from suggestbot.ui.messages import t


def build_notice(*, lang: str, text: str, buttons: Sequence[Button] = ()) -> Message:
    """A sentence (mrkdwn, already localised) with optional buttons under it."""
    blocks: list[Block] = [SectionBlock(block_id="notice", text=MarkdownTextObject(text=text))]
    if buttons:
        blocks.append(
            ActionsBlock(
                block_id="notice-actions",
                elements=[
                    ButtonElement(
                        text=t(b.label_key, lang),
                        action_id=b.action_id,
                        value=b.value,
                        style=b.style,
                    )
                    for b in buttons
                ],
            )
        )
    return Message(text=text, blocks=[b.to_dict() for b in blocks])


def build_help(*, lang: str, intro: str | None = None) -> Message:
    blocks: list[Block] = []
    if intro:
        blocks.append(SectionBlock(block_id="intro", text=MarkdownTextObject(text=intro)))
    blocks.append(HeaderBlock(block_id="title", text=PlainTextObject(text=t("help.title", lang))))
    blocks.append(SectionBlock(block_id="body", text=MarkdownTextObject(text=t("help.body", lang))))
    return Message(text=intro or t("help.title", lang), blocks=[b.to_dict() for b in blocks])


def build_returned_text(*, lang: str, problem: str, text: str) -> Message:
    """A refusal that hands the user's whole text back (plain, split within Slack's limits), so
    nothing they typed is lost."""
    blocks: list[Block] = [
        SectionBlock(block_id="problem", text=MarkdownTextObject(text=problem)),
        SectionBlock(
            block_id="returned-intro", text=MarkdownTextObject(text=t("brief.returned", lang))
        ),
    ]
    chunks = split_text(text)[: MESSAGE_BLOCKS_MAX - len(blocks)]
    blocks += [
        SectionBlock(block_id=f"returned-{i}", text=PlainTextObject(text=chunk, emoji=False))
        for i, chunk in enumerate(chunks)
    ]
    return Message(text=problem, blocks=[b.to_dict() for b in blocks])
