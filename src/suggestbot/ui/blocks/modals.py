"""Modals: connect an account, write a brief."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    InputBlock,
    PlainTextInputElement,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject
from slack_sdk.models.views import View

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.selects import catalogue_inputs, select
from suggestbot.ui.blocks.text import view_text
from suggestbot.ui.messages import t

# Slack's plain_text_input holds at most 3000 characters; the service takes 4000 (see help).
MODAL_INPUT_MAX = 3000


def build_connect_modal(
    *, lang: str, private_metadata: str = "", error: str | None = None
) -> dict[str, Any]:
    """The modal that takes a personal token; it never carries a token back to Slack (no
    initial value, also when shown again with ``error`` after a rejected token)."""
    blocks: list[Block] = []
    if error:
        blocks.append(SectionBlock(block_id="error", text=MarkdownTextObject(text=error)))
    view = View(
        type="modal",
        callback_id=ids.VIEW_CONNECT,
        title=view_text("connect.title", lang),
        submit=view_text("connect.submit", lang),
        close=view_text("connect.cancel", lang),
        private_metadata=private_metadata,
        blocks=[
            *blocks,
            InputBlock(
                block_id=ids.INPUT_TOKEN,
                label=t("connect.label", lang),
                hint=t("connect.hint", lang),
                element=PlainTextInputElement(action_id=ids.INPUT_TOKEN, max_length=500),
            ),
        ],
    )
    return view.to_dict()


def build_info_modal(*, lang: str, title_key: str, text: str) -> dict[str, Any]:
    """A modal that only says something (a check under way, a result) and can be closed."""
    return View(
        type="modal",
        callback_id="info",
        title=view_text(title_key, lang),
        close=view_text("modal.close", lang),
        blocks=[SectionBlock(block_id="info", text=MarkdownTextObject(text=text))],
    ).to_dict()


def build_brief_loading_modal(*, lang: str) -> dict[str, Any]:
    """The brief modal opened at once (a trigger lives 3 seconds) while the catalogue of
    segments and use cases is still loading; it is updated in place when it arrives."""
    return _brief_modal_saying(lang=lang, key="brief.loading")


def _brief_modal_saying(*, lang: str, key: str) -> dict[str, Any]:
    return View(
        type="modal",
        callback_id=ids.VIEW_BRIEF,
        title=view_text("brief.title", lang),
        close=view_text("brief.cancel", lang),
        blocks=[SectionBlock(text=PlainTextObject(text=t(key, lang)))],
    ).to_dict()


def build_brief_modal(
    *,
    lang: str,
    segments: Sequence[tuple[str, str]],
    use_cases: Sequence[tuple[str, str]],
    initial_text: str = "",
    initial_segment: str | None = None,
    initial_use_case: str | None = None,
    initial_variants: int = 1,
    private_metadata: str = "",
    long_brief_chars: int | None = None,
    source_link: str | None = None,
) -> dict[str, Any]:
    """The brief modal: segment, use case, brief text (prefilled), number of variants.

    Args:
        segments: ``(id, name)`` pairs as the service lists them.
        use_cases: ``(id, name)`` pairs.
        initial_text: prefill (at most what Slack's input holds).
        long_brief_chars: the brief is longer than the input holds and is kept aside; the
            modal then says so instead of offering a text input.
        source_link: the permalink of the message the brief is made from, shown on top.
    """
    if not segments or not use_cases:
        return _brief_modal_saying(lang=lang, key="brief.no_segments")
    counts = [(str(n), str(n)) for n in (1, 2, 3)]
    chosen = str(initial_variants) if initial_variants in (1, 2, 3) else "1"
    variants_select = select(action_id=ids.INPUT_VARIANTS, pairs=counts, selected=chosen)
    text_input = PlainTextInputElement(
        action_id=ids.INPUT_BRIEF,
        multiline=True,
        max_length=MODAL_INPUT_MAX,
        initial_value=initial_text[:MODAL_INPUT_MAX] or None,
    )
    view = View(
        type="modal",
        callback_id=ids.VIEW_BRIEF,
        title=view_text("brief.title", lang),
        submit=view_text("brief.submit", lang),
        close=view_text("brief.cancel", lang),
        private_metadata=private_metadata,
        blocks=[
            *(
                [
                    ContextBlock(
                        block_id="source",
                        elements=[
                            MarkdownTextObject(
                                text=t("shortcut.from_message", lang, link=source_link)
                            )
                        ],
                    )
                ]
                if source_link
                else []
            ),
            *catalogue_inputs(
                lang=lang,
                segments=segments,
                use_cases=use_cases,
                block_ids=(ids.INPUT_SEGMENT, ids.INPUT_USE_CASE),
                selected=(initial_segment, initial_use_case),
            ),
            (
                SectionBlock(
                    block_id=ids.INPUT_BRIEF,
                    text=PlainTextObject(text=t("brief.long_kept", lang, count=long_brief_chars)),
                )
                if long_brief_chars
                else InputBlock(
                    block_id=ids.INPUT_BRIEF,
                    label=t("brief.text", lang),
                    hint=t("brief.text_hint", lang),
                    element=text_input,
                )
            ),
            InputBlock(
                block_id=ids.INPUT_VARIANTS,
                label=t("brief.variants", lang),
                element=variants_select,
            ),
        ],
    )
    return view.to_dict()
