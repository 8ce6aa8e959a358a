"""Modals of refining threads: Refine…, Rename thread, a draft, and a history to read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    DividerBlock,
    InputBlock,
    Option,
    PlainTextInputElement,
    RadioButtonsElement,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject
from slack_sdk.models.views import View

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.modals import MODAL_INPUT_MAX
from suggestbot.ui.blocks.selects import catalogue_inputs
from suggestbot.ui.blocks.text import SECTION_TEXT_MAX, split_text, view_text
from suggestbot.ui.messages import t

VIEW_BLOCKS_MAX = 100
# Slack's input takes more than the service's 60 characters on purpose: the name is counted
# after trimming and collapsing spaces, and an over-long name gets our own field error.
THREAD_NAME_INPUT_MAX = 150
SUBJECT_INPUT_MAX = 250


def refine_note(*, lang: str, variant: int | None, newest_turn: int | None) -> str | None:
    """What the Refine… modal says it refines, when that is not plain: ``variant`` N of a set
    (the thread then continues from it), else the ``newest_turn`` when an older one was
    pressed (threads do not branch)."""
    if variant:
        return t("refine.note_variant", lang, n=variant)
    if newest_turn is not None:
        return t("refine.note_newest", lang, n=newest_turn)
    return None


def build_refine_modal(
    *, lang: str, private_metadata: str, with_image: bool, note: str | None = None
) -> dict[str, Any]:
    """Refine… : the instruction, and for content with an image whether to regenerate it.

    Text-only content gets no image choice at all, so the request never carries ``image``.
    """
    blocks: list[Block] = []
    if note:
        blocks.append(SectionBlock(block_id="note", text=MarkdownTextObject(text=note)))
    blocks.append(
        InputBlock(
            block_id=ids.INPUT_INSTRUCTION,
            label=t("refine.instruction", lang),
            hint=t("refine.instruction_hint", lang),
            element=PlainTextInputElement(
                action_id=ids.INPUT_INSTRUCTION, multiline=True, max_length=MODAL_INPUT_MAX
            ),
        )
    )
    if with_image:
        keep = Option(value="reuse", text=t("refine.image_reuse", lang))
        new = Option(value="regenerate", text=t("refine.image_regenerate", lang))
        blocks.append(
            InputBlock(
                block_id=ids.INPUT_IMAGE_MODE,
                label=t("refine.image", lang),
                element=RadioButtonsElement(
                    action_id=ids.INPUT_IMAGE_MODE, options=[keep, new], initial_option=keep
                ),
            )
        )
    return View(
        type="modal",
        callback_id=ids.VIEW_REFINE,
        title=view_text("refine.title", lang),
        submit=view_text("refine.submit", lang),
        close=view_text("brief.cancel", lang),
        private_metadata=private_metadata,
        blocks=blocks,
    ).to_dict()


def build_rename_modal(
    *, lang: str, private_metadata: str, initial: str | None = None
) -> dict[str, Any]:
    """Rename thread: one line, prefilled with the current name."""
    blocks: list[Block] = [
        InputBlock(
            block_id=ids.INPUT_THREAD_NAME,
            label=t("rename.label", lang),
            hint=t("rename.hint", lang),
            element=PlainTextInputElement(
                action_id=ids.INPUT_THREAD_NAME,
                max_length=THREAD_NAME_INPUT_MAX,
                initial_value=initial[:THREAD_NAME_INPUT_MAX] if initial else None,
            ),
        )
    ]
    return View(
        type="modal",
        callback_id=ids.VIEW_RENAME,
        title=view_text("rename.title", lang),
        submit=view_text("rename.submit", lang),
        close=view_text("brief.cancel", lang),
        private_metadata=private_metadata,
        blocks=blocks,
    ).to_dict()


def build_draft_modal(
    *,
    lang: str,
    segments: Sequence[tuple[str, str]],
    use_cases: Sequence[tuple[str, str]],
    initial_segment: str | None = None,
    initial_use_case: str | None = None,
    private_metadata: str = "",
    loading: bool = False,
) -> dict[str, Any]:
    """A draft email the user wrote: segment, use case, subject and body."""
    if loading or not segments or not use_cases:
        text = t("brief.loading", lang) if loading else t("brief.no_segments", lang)
        return View(
            type="modal",
            callback_id=ids.VIEW_DRAFT,
            title=view_text("draft.title", lang),
            close=view_text("brief.cancel", lang),
            private_metadata=private_metadata,
            blocks=[SectionBlock(block_id="info", text=PlainTextObject(text=text))],
        ).to_dict()

    blocks: list[Block] = [
        *catalogue_inputs(
            lang=lang,
            segments=segments,
            use_cases=use_cases,
            block_ids=(ids.INPUT_SEGMENT, ids.INPUT_USE_CASE),
            selected=(initial_segment, initial_use_case),
        ),
        InputBlock(
            block_id=ids.INPUT_DRAFT_SUBJECT,
            label=t("draft.subject", lang),
            element=PlainTextInputElement(
                action_id=ids.INPUT_DRAFT_SUBJECT, max_length=SUBJECT_INPUT_MAX
            ),
        ),
        InputBlock(
            block_id=ids.INPUT_DRAFT_BODY,
            label=t("draft.body", lang),
            hint=t("draft.body_hint", lang),
            element=PlainTextInputElement(
                action_id=ids.INPUT_DRAFT_BODY, multiline=True, max_length=MODAL_INPUT_MAX
            ),
        ),
    ]
    return View(
        type="modal",
        callback_id=ids.VIEW_DRAFT,
        title=view_text("draft.title", lang),
        submit=view_text("draft.submit", lang),
        close=view_text("brief.cancel", lang),
        private_metadata=private_metadata,
        blocks=blocks,
    ).to_dict()


def build_instruction_modal(*, lang: str, instruction: str) -> dict[str, Any]:
    """A refinement's whole instruction to read, as typed (plain text, split into sections)."""
    chunks = split_text(instruction)[: VIEW_BLOCKS_MAX - 1]
    blocks: list[Block] = [
        SectionBlock(block_id=f"part-{i}", text=PlainTextObject(text=chunk or " ", emoji=False))
        for i, chunk in enumerate(chunks)
    ]
    return View(
        type="modal",
        callback_id=ids.VIEW_INSTRUCTION,
        title=view_text("instruction.title", lang),
        close=view_text("modal.close", lang),
        blocks=blocks,
    ).to_dict()


def build_history_modal(
    *, lang: str, title_key: str, intro: str, entries: Sequence[str], loading: bool = False
) -> dict[str, Any]:
    """A history to read: an intro, then one section per entry (mrkdwn, already escaped).

    Long histories are cut to what a view holds, saying how many entries were left out.
    """
    blocks: list[Block] = [SectionBlock(block_id="intro", text=MarkdownTextObject(text=intro))]
    if loading:
        blocks = [
            SectionBlock(block_id="intro", text=PlainTextObject(text=t("lists.loading", lang)))
        ]
    else:
        room = VIEW_BLOCKS_MAX - 3
        shown = list(entries[:room])
        if shown:
            blocks.append(DividerBlock(block_id="divider"))
        blocks += [
            SectionBlock(block_id=f"entry-{i}", text=MarkdownTextObject(text=e[:SECTION_TEXT_MAX]))
            for i, e in enumerate(shown)
        ]
        if len(entries) > len(shown):
            blocks.append(
                ContextBlock(
                    block_id="more",
                    elements=[
                        MarkdownTextObject(
                            text=t("lists.left_out", lang, count=len(entries) - len(shown))
                        )
                    ],
                )
            )
    return View(
        type="modal",
        callback_id=ids.VIEW_HISTORY,
        title=view_text(title_key, lang),
        close=view_text("modal.close", lang),
        blocks=blocks,
    ).to_dict()
