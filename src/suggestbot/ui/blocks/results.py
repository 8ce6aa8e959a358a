"""The root message of a request and the messages holding its variants."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    ImageBlock,
    MarkdownBlock,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject

from suggestbot.ui.blocks.feedback import feedback_block
from suggestbot.ui.blocks.text import (
    MESSAGE_TEXT_BUDGET,
    block_text_length,
    escape_markdown,
    escape_mrkdwn,
    split_text,
)
from suggestbot.ui.messages import t, tn

MESSAGE_BLOCKS_MAX = 50
HEADER_TEXT_MAX = 150
BRIEF_QUOTE_MAX = 600


@dataclass(frozen=True)
class Button:
    """A button: label key in :mod:`messages`, the action id it fires and its value."""

    label_key: str
    action_id: str
    value: str
    style: str | None = None


@dataclass(frozen=True)
class Variant:
    """One suggestion as shown in Slack (built by the flows from the service's model)."""

    suggestion_id: str
    number: int
    total: int
    kind: str
    body: str
    subject: str | None = None
    image_url: str | None = None
    alt_text: str | None = None
    rationale: str | None = None
    buttons: Sequence[Button] = field(default_factory=tuple)
    # What its feedback buttons carry (see flows.feedback.votes); None shows none.
    feedback: str | None = None


@dataclass(frozen=True)
class Message:
    """What ``chat.postMessage`` / ``chat.update`` get: fallback text and blocks."""

    text: str
    blocks: list[dict[str, Any]]


def actions_block(buttons: Sequence[Button], *, lang: str, block_id: str) -> ActionsBlock:
    """A row of buttons, labelled in ``lang``."""
    return ActionsBlock(
        block_id=block_id,
        elements=[
            ButtonElement(
                text=t(b.label_key, lang), action_id=b.action_id, value=b.value, style=b.style
            )
            for b in buttons
        ],
    )


def build_root_message(
    *,
    lang: str,
    status: str,
    brief: str | None = None,
    context: str | None = None,
    buttons: Sequence[Button] = (),
    fine_print: str | None = None,
    reused: tuple[str, Button] | None = None,
) -> Message:
    """The message in the channel that stands for one request and changes as it moves.

    Args:
        status: the sentence saying where the request is (already localised).
        brief: the user's brief, quoted (shortened) so the channel sees what was asked.
        context: segment · use case · variants.
        fine_print: small print under everything (a failure code for support).
        reused: for a quick brief, the sentence naming the remembered choices it was sent
            with, and the button that opens the brief modal to change them.
    """
    blocks: list[Block] = [SectionBlock(block_id="status", text=MarkdownTextObject(text=status))]
    if brief:
        quoted = brief if len(brief) <= BRIEF_QUOTE_MAX else brief[: BRIEF_QUOTE_MAX - 1] + "…"
        quote = "\n".join("> " + line for line in escape_mrkdwn(quoted).splitlines())
        blocks.append(SectionBlock(block_id="brief", text=MarkdownTextObject(text=quote)))
    if reused:
        sentence, change = reused
        blocks.append(
            SectionBlock(
                block_id="reused",
                text=MarkdownTextObject(text=sentence),
                accessory=ButtonElement(
                    text=t(change.label_key, lang), action_id=change.action_id, value=change.value
                ),
            )
        )
    elif context:
        blocks.append(
            ContextBlock(
                block_id="context", elements=[MarkdownTextObject(text=escape_mrkdwn(context))]
            )
        )
    if buttons:
        blocks.append(actions_block(buttons, lang=lang, block_id="actions"))
    if fine_print:
        blocks.append(fine_print_block(fine_print))
    return Message(text=status, blocks=[b.to_dict() for b in blocks])


def fine_print_block(text: str) -> ContextBlock:
    """Small print at the foot of a message (already localised mrkdwn)."""
    return ContextBlock(block_id="fine-print", elements=[MarkdownTextObject(text=text)])


def _variant_title(variant: Variant, lang: str) -> str:
    kind_key = f"variant.kind.{variant.kind}"
    kind = t(kind_key, lang)
    title = f"{t('variant.header', lang, n=variant.number, total=variant.total)} · {kind}"
    return title[:HEADER_TEXT_MAX]


def build_variant_messages(
    *, lang: str, variant: Variant, title: str | None = None, lead: Sequence[Block] = ()
) -> list[Message]:
    """One variant as one message, or several when its text needs more than 50 blocks.

    The body goes into ``markdown`` blocks: Slack shows them as a document (paragraphs spaced,
    line breaks kept, long text wrapped as in an email) where ``plain_text`` sections look like
    separate boxes. It is plain text from the service, so every character markdown would read
    is escaped (:func:`~suggestbot.ui.blocks.text.escape_markdown`); the subject is escaped for
    mrkdwn. A markdown block keeps no ``block_id``: nothing finds a variant by one (recovery
    looks for its metadata). The image block uses the freshly minted URL; without one (not
    minted, or minting failed) the message says how to get a preview. Feedback buttons close
    the message.

    Args:
        title: the header (default "Variant n of N · kind"); a refinement's turn passes its own.
        lead: blocks between the header and the content (a turn's instruction).
    """
    title = (title or _variant_title(variant, lang))[:HEADER_TEXT_MAX]
    head: list[Block] = [HeaderBlock(block_id="title", text=PlainTextObject(text=title)), *lead]
    if variant.subject is not None:
        head.append(
            SectionBlock(
                block_id="subject",
                text=MarkdownTextObject(
                    text=t("variant.subject", lang, subject=escape_mrkdwn(variant.subject))
                ),
            )
        )
    body: list[Block] = [
        MarkdownBlock(text=escape_markdown(chunk))
        for chunk in split_text(variant.body)
        if chunk.strip()
    ]
    tail: list[Block] = []
    if variant.kind == "social_single_image":
        if variant.image_url:
            tail.append(
                ImageBlock(
                    block_id="image",
                    image_url=variant.image_url,
                    alt_text=(variant.alt_text or title)[:2000],
                )
            )
        else:
            tail.append(
                ContextBlock(
                    block_id="image-expired",
                    elements=[MarkdownTextObject(text=t("variant.preview_expired", lang))],
                )
            )
    if variant.rationale:
        rationale = t("variant.rationale", lang, rationale=escape_mrkdwn(variant.rationale)[:2900])
        tail.append(
            ContextBlock(block_id="rationale", elements=[MarkdownTextObject(text=rationale)])
        )
    if variant.buttons:
        tail.append(actions_block(variant.buttons, lang=lang, block_id="actions"))
    if variant.feedback:
        tail.append(feedback_block(lang=lang, value=variant.feedback))
    fallback = title if variant.subject is None else f"{title}: {variant.subject}"[:3000]
    continued = f"{title} {t('variant.continued', lang)}"
    return pack(head, body, tail, fallback=fallback, continued=continued)


def pack(
    head: list[Block], body: list[Block], tail: list[Block], *, fallback: str, continued: str
) -> list[Message]:
    """Blocks into messages: head first, tail last, body in between. A message takes at most 50
    blocks and :data:`MESSAGE_TEXT_BUDGET` characters of block text, so a long result goes out
    as several messages instead of being refused (``msg_blocks_too_long``)."""
    chunks: list[list[Block]] = []
    current = list(head)
    used = sum(block_text_length(b.to_dict()) for b in current)
    for block in [*body, *tail]:
        size = block_text_length(block.to_dict())
        full = len(current) >= MESSAGE_BLOCKS_MAX or used + size > MESSAGE_TEXT_BUDGET
        if full and current:
            chunks.append(current)
            current, used = [], 0
        current.append(block)
        used += size
    chunks.append(current)
    return [
        Message(text=fallback if i == 0 else continued, blocks=[b.to_dict() for b in chunk])
        for i, chunk in enumerate(chunks)
    ]


def build_skipped_note(*, lang: str, count: int) -> Message:
    text = tn("variant.skipped", lang, count=count)
    return Message(
        text=text, blocks=[ContextBlock(elements=[MarkdownTextObject(text=text)]).to_dict()]
    )
