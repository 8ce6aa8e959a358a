"""Messages of a refinement thread: a turn's result, a refinement's status, the variant question,
and the thread's state under its root."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import (
    MESSAGE_BLOCKS_MAX,
    Button,
    Message,
    Variant,
    actions_block,
    build_variant_messages,
    fine_print_block,
)
from suggestbot.ui.blocks.text import escape_mrkdwn, split_text
from suggestbot.ui.messages import t

# An instruction is quoted, not published: a short excerpt tells the thread what was asked.
INSTRUCTION_QUOTE_MAX = 600
CHOICE_LABEL_MAX = 120


@dataclass(frozen=True)
class ThreadStatus:
    """What the root shows about its lineage once refined."""

    name: str | None
    turn_count: int
    chosen_variant: int | None
    variants: int
    last_turn_by: str | None
    can_rename: bool
    thread_key: str


def is_long(instruction: str) -> bool:
    """Whether only the beginning of ``instruction`` is quoted in the thread."""
    return len(instruction) > INSTRUCTION_QUOTE_MAX


def instruction_blocks(
    *, lang: str, instruction: str, request_id: str | None, lead: str | None = None
) -> list[Block]:
    """The instruction quoted (its beginning when long) and, when long, a button that shows
    all of it, so a reply of thousands of characters is never cut off for good."""
    text = quote(instruction) if lead is None else lead + "\n" + quote(instruction)
    blocks: list[Block] = [SectionBlock(block_id="instruction", text=MarkdownTextObject(text=text))]
    if request_id and is_long(instruction):
        blocks.append(
            actions_block(
                [Button("instruction.show", ids.ACTION_SHOW_INSTRUCTION, request_id)],
                lang=lang,
                block_id="instruction-actions",
            )
        )
    return blocks


def quote(text: str, *, limit: int = INSTRUCTION_QUOTE_MAX) -> str:
    """``text`` as an mrkdwn quote, escaped and shortened."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return "\n".join("> " + line for line in (escape_mrkdwn(short).splitlines() or [""]))


def build_thread_status(*, lang: str, status: ThreadStatus) -> list[dict[str, Any]]:
    """Blocks added under a thread's root: head, turn count, name, and the rename button."""
    parts = []
    if status.name:
        parts.append(t("thread.name", lang, name=escape_mrkdwn(status.name)))
    parts.append(t("thread.turns", lang, count=status.turn_count))
    if status.chosen_variant is not None and status.variants > 1:
        parts.append(t("thread.follows_variant", lang, n=status.chosen_variant))
    if status.last_turn_by:
        parts.append(t("thread.newest_by", lang, user=status.last_turn_by))
    blocks: list[Block] = [
        ContextBlock(
            block_id="thread-status", elements=[MarkdownTextObject(text=" · ".join(parts))]
        )
    ]
    if status.can_rename:
        blocks.append(
            actions_block(
                [Button("thread.rename", ids.ACTION_RENAME_OPEN, status.thread_key)],
                lang=lang,
                block_id="thread-actions",
            )
        )
    return [b.to_dict() for b in blocks]


def build_turn_messages(
    *,
    lang: str,
    turn: int,
    instruction: str,
    author: str,
    variant: Variant,
    request_id: str | None = None,
) -> list[Message]:
    """One turn's result: "Turn n", the instruction it followed, and the content.

    The body is the service's plain text, so it goes into ``plain_text`` sections; a body too
    long for one message continues in further messages, the image and buttons closing the last.
    """
    kind = t(f"variant.kind.{variant.kind}", lang)
    asked = instruction_blocks(
        lang=lang,
        instruction=instruction,
        request_id=request_id,
        lead=t("turn.asked", lang, user=author),
    )
    return build_variant_messages(
        lang=lang,
        variant=variant,
        title=t("turn.header", lang, n=turn, kind=kind),
        lead=asked,
    )


def build_refinement_status(
    *,
    lang: str,
    status: str,
    instruction: str,
    buttons: Sequence[Button] = (),
    fine_print: str | None = None,
    request_id: str | None = None,
) -> Message:
    """A refinement's reply in the thread while it is sent, queued, running or failed."""
    blocks: list[Block] = [
        SectionBlock(block_id="status", text=MarkdownTextObject(text=status)),
        *instruction_blocks(lang=lang, instruction=instruction, request_id=request_id),
    ]
    if buttons:
        blocks.append(actions_block(buttons, lang=lang, block_id="actions"))
    if fine_print:
        blocks.append(fine_print_block(fine_print))
    return Message(text=status, blocks=[b.to_dict() for b in blocks])


class ReplyNotice(StrEnum):
    """What the author of a thread reply is told, for their eyes only (value: its text key)."""

    NOT_READY = "refine.not_ready"
    FILES_NOT_USED = "refine.files_not_used"
    FILES_WITHOUT_TEXT = "refine.files_without_text"
    INVALID_ENCODING = "refine.invalid_encoding"
    EMPTY = "refine.empty"
    NOT_VISIBLE = "refine.not_visible"
    LONG_REPLY = "refine.long_reply"  # with the reply's length


def build_reply_notice(*, lang: str, notice: ReplyNotice, length: int = 0) -> Message:
    """A short note to a reply's author (``length``: of a long reply, sent whole)."""
    if notice is ReplyNotice.LONG_REPLY:
        return build_notice(lang=lang, text=t(notice.value, lang, count=length))
    return build_notice(lang=lang, text=t(notice.value, lang))


def build_held_reply_prompt(*, lang: str, held_id: str) -> Message:
    """A reply kept while its author is not connected: [Connect account] then [Resend]."""
    return build_notice(
        lang=lang,
        text=t("refine.connect_needed", lang),
        buttons=[
            Button("connect.button", ids.ACTION_CONNECT, f"held:{held_id}", "primary"),
            Button("button.resend", ids.ACTION_RESEND, held_id),
        ],
    )


def variant_label(*, lang: str, kind: str, text: str | None) -> str:
    """What tells variants apart in "which one?": the kind, then an email's subject or a
    post's opening (``text``, when it could be read)."""
    name = t(f"variant.kind.{kind}", lang)
    return name if text is None else f"{name}: {' '.join(text.split())}"


def build_choice_taken(*, lang: str, number: int) -> Message:
    """The answer to a press in "which one?": the kept reply now refines variant ``number``."""
    return build_notice(lang=lang, text=t("choose.taken", lang, n=number))


def build_choice_gone(*, lang: str, kept_days: int) -> Message:
    """The answer to a press in "which one?" whose reply was sent already or has expired."""
    return build_notice(lang=lang, text=t("choose.gone", lang, days=kept_days))


@dataclass(frozen=True)
class Choice:
    """A variant offered in the question "which one?": its number and a short label."""

    number: int
    label: str


def build_choice_prompt(
    *, lang: str, instruction: str, choices: Sequence[Choice], pending_id: str
) -> Message:
    """Ask which variant a reply refines; the typed instruction is kept and shown back."""
    text = t("choose.question", lang, count=len(choices))
    blocks: list[Block] = [
        SectionBlock(block_id="question", text=MarkdownTextObject(text=text)),
        SectionBlock(block_id="instruction", text=MarkdownTextObject(text=quote(instruction))),
    ]
    for choice in choices:
        label = choice.label
        if len(label) > CHOICE_LABEL_MAX:
            label = label[: CHOICE_LABEL_MAX - 1] + "…"
        blocks.append(
            SectionBlock(
                block_id=f"variant-{choice.number}",
                text=MarkdownTextObject(
                    text=t("choose.variant_line", lang, n=choice.number, label=escape_mrkdwn(label))
                ),
            )
        )
    blocks.append(
        ActionsBlock(
            block_id="choices",
            elements=[
                ButtonElement(
                    text=t("choose.button", lang, n=c.number),
                    action_id=f"{ids.ACTION_CHOOSE_VARIANT}.{c.number}",
                    value=f"{pending_id}:{c.number}",
                )
                for c in choices
            ],
        )
    )
    return Message(text=text, blocks=[b.to_dict() for b in blocks])


def build_other_lineage_notice(
    *, lang: str, chosen: int, instruction: str, pending_id: str
) -> Message:
    """The thread follows another variant: say so, and offer to refine its newest turn."""
    text = t("choose.already", lang, n=chosen)
    blocks: list[Block] = [
        SectionBlock(block_id="notice", text=MarkdownTextObject(text=text)),
        SectionBlock(block_id="instruction", text=MarkdownTextObject(text=quote(instruction))),
        ActionsBlock(
            block_id="choices",
            elements=[
                ButtonElement(
                    text=t("button.refine_head", lang),
                    action_id=f"{ids.ACTION_CHOOSE_VARIANT}.0",
                    value=f"{pending_id}:0",
                    style="primary",
                )
            ],
        ),
    ]
    return Message(text=text, blocks=[b.to_dict() for b in blocks])


def build_draft_root(
    *, lang: str, author: str, context: str | None, subject: str, body: str, suggestion_id: str
) -> Message:
    """A saved draft as the root of a new thread: who wrote it, the email, and Refine…."""
    status = t("draft.root", lang, user=author)
    head: list[Block] = [SectionBlock(block_id="status", text=MarkdownTextObject(text=status))]
    if context:
        head.append(
            ContextBlock(
                block_id="context", elements=[MarkdownTextObject(text=escape_mrkdwn(context))]
            )
        )
    head.append(
        SectionBlock(
            block_id="subject",
            text=MarkdownTextObject(
                text=t("variant.subject", lang, subject=escape_mrkdwn(subject))
            ),
        )
    )
    chunks = split_text(body)[: MESSAGE_BLOCKS_MAX - len(head) - 1]
    blocks: list[Block] = [
        *head,
        *[
            SectionBlock(block_id=f"body-{i}", text=PlainTextObject(text=chunk, emoji=False))
            for i, chunk in enumerate(chunks)
        ],
        actions_block(
            [Button("refine.button", ids.ACTION_REFINE_OPEN, suggestion_id)],
            lang=lang,
            block_id="actions",
        ),
    ]
    return Message(text=status, blocks=[b.to_dict() for b in blocks])
