"""Ready-made content in Slack: the ``/suggest inspire`` answer, its picker, the empty answer,
a shared variant and a channel digest.

Pure builders: the flows hand in localised-ready data (names, variants with freshly minted image
URLs) and get :class:`Message` objects back. A digest is always ONE message, so a channel gets
one post per digest (Slack takes about one message per second per channel).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    ImageBlock,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.results import (
    HEADER_TEXT_MAX,
    MESSAGE_BLOCKS_MAX,
    Message,
    Variant,
    build_variant_messages,
)
from suggestbot.ui.blocks.text import (
    MESSAGE_TEXT_BUDGET,
    block_text_length,
    escape_mrkdwn,
    quote,
)
from suggestbot.ui.messages import t, tn

BUTTON_TEXT_MAX = 75
ACTIONS_MAX = 25
ALT_TEXT_MAX = 2000
# Bodies are shortened in the ephemeral answer and in digests so several variants fit in one
# message; the whole text is posted when a variant is shared.
ANSWER_BODY_MAX = 1500
DIGEST_BODY_MAX = 900
# Blocks one variant may take in a compact listing (title, body, image, buttons).
_VARIANT_BLOCKS = 4
# Room per variant for wording that differs by language (button labels, notes).
_VARIANT_TEXT_MARGIN = 100


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, preferring a word boundary, with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def pick_value(
    *,
    segment_id: str | None,
    use_case_id: str | None,
    version: int | None = None,
    refresh: bool = False,
) -> str:
    """The value of a picker (or "Generate now") button: what is chosen so far."""
    data: dict[str, Any] = {}
    if segment_id:
        data["s"] = segment_id
    if use_case_id:
        data["u"] = use_case_id
    if version is not None:
        data["v"] = version
    if refresh:
        data["r"] = 1
    return json.dumps(data, separators=(",", ":"))


def read_pick_value(raw: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _context(text: str, block_id: str) -> ContextBlock:
    return ContextBlock(block_id=block_id, elements=[MarkdownTextObject(text=text)])


def _variant_blocks(
    variant: Variant, *, lang: str, body_max: int, with_buttons: bool
) -> list[Block]:
    n = variant.number
    kind = t(f"variant.kind.{variant.kind}", lang)
    title = f"*{t('variant.header', lang, n=n, total=variant.total)} · {kind}*"
    if variant.subject is not None:
        title += "\n" + t("variant.subject", lang, subject=escape_mrkdwn(variant.subject))
    blocks: list[Block] = [
        SectionBlock(block_id=f"v{n}-title", text=MarkdownTextObject(text=title[:3000])),
        SectionBlock(
            block_id=f"v{n}-body",
            text=PlainTextObject(text=shorten(variant.body, body_max) or " ", emoji=False),
        ),
    ]
    if variant.kind == "social_single_image":
        if variant.image_url:
            blocks.append(
                ImageBlock(
                    block_id=f"v{n}-image",
                    image_url=variant.image_url,
                    alt_text=(variant.alt_text or kind)[:ALT_TEXT_MAX],
                )
            )
        else:
            blocks.append(_context(t("inspire.no_preview", lang), f"v{n}-image"))
    if with_buttons:
        blocks.append(
            ActionsBlock(
                block_id=f"v{n}-actions",
                elements=[
                    ButtonElement(
                        text=t("inspire.share_button", lang, n=n),
                        action_id=ids.ACTION_INSPIRE_SHARE,
                        value=f"{variant.suggestion_id}",
                        style="primary",
                    ),
                    ButtonElement(
                        text=t("inspire.refine_button", lang, n=n),
                        action_id=ids.ACTION_INSPIRE_REFINE,
                        value=f"{variant.suggestion_id}",
                    ),
                ],
            )
        )
    return blocks


def _fit(
    variants: Sequence[Variant], *, room: int, text_room: int, body_max: int
) -> tuple[Sequence[Variant], int]:
    """The variants that fit in ``room`` blocks and ``text_room`` characters of block text (the
    per-message cap Slack enforces), and how many were left out; at least one is shown."""
    fits = max(room // _VARIANT_BLOCKS, 1)
    used, shown = 0, 0
    for variant in variants[:fits]:
        blocks = _variant_blocks(variant, lang="en", body_max=body_max, with_buttons=True)
        # Measured in English with buttons: other languages' labels are within the margin.
        size = sum(block_text_length(b.to_dict()) for b in blocks) + _VARIANT_TEXT_MARGIN
        if shown and used + size > text_room:
            break
        used += size
        shown += 1
    return variants[:shown], len(variants) - shown


def _text_of(blocks: Sequence[Block]) -> int:
    return sum(block_text_length(b.to_dict()) for b in blocks)


@dataclass(frozen=True)
class Labels:
    """Names of the segment and use case, as the service calls them."""

    segment: str
    use_case: str


def build_inspiration_answer(
    *,
    lang: str,
    labels: Labels,
    version: int | None,
    newest: bool,
    variants: Sequence[Variant],
    offer_id: str,
    notes: Sequence[str] = (),
) -> Message:
    """The ephemeral answer to ``/suggest inspire``: each variant with "Share" and "Refine…".

    Button values are ``"{offer_id}:{suggestion_id}"`` so the press finds what was shown.
    """
    segment, use_case = escape_mrkdwn(labels.segment), escape_mrkdwn(labels.use_case)
    key = "inspire.title_newest" if newest else "inspire.title_version"
    title = t(key, lang, segment=segment, use_case=use_case, version=version or "?")
    head: list[Block] = [SectionBlock(block_id="title", text=MarkdownTextObject(text=title))]
    head += [_context(note, f"note-{i}") for i, note in enumerate(notes)]
    tail: list[Block] = []
    if version and version > 1:
        tail.append(_context(t("inspire.older_hint", lang, previous=version - 1), "older"))
    shown, left_out = _fit(
        variants,
        room=MESSAGE_BLOCKS_MAX - len(head) - len(tail) - 1,
        text_room=MESSAGE_TEXT_BUDGET - _text_of(head + tail) - _VARIANT_TEXT_MARGIN,
        body_max=ANSWER_BODY_MAX,
    )
    body: list[Block] = []
    for variant in shown:
        blocks = _variant_blocks(variant, lang=lang, body_max=ANSWER_BODY_MAX, with_buttons=True)
        actions = blocks[-1]
        assert isinstance(actions, ActionsBlock)
        for element in actions.elements:
            assert isinstance(element, ButtonElement)
            element.value = f"{offer_id}:{element.value}"
        body += blocks
    if left_out:
        tail.append(_context(tn("inspire.left_out", lang, count=left_out), "left-out"))
    blocks = head + body + tail
    return Message(text=title, blocks=[b.to_dict() for b in blocks])


def build_picker(
    *,
    lang: str,
    intro: str,
    options: Sequence[tuple[str, str]],
    values: Sequence[str],
    chosen: str | None = None,
) -> Message:
    """Buttons to choose a segment (or a use case): one per option, ``values`` in order.

    Args:
        intro: what is asked (already localised, mrkdwn).
        chosen: what was chosen already, shown above the buttons.
    """
    blocks: list[Block] = [SectionBlock(block_id="intro", text=MarkdownTextObject(text=intro))]
    if chosen:
        blocks.append(_context(chosen, "chosen"))
    pairs = list(zip(options, values, strict=True))
    room = MESSAGE_BLOCKS_MAX - len(blocks)
    for start in range(0, min(len(pairs), room * ACTIONS_MAX), ACTIONS_MAX):
        chunk = pairs[start : start + ACTIONS_MAX]
        blocks.append(
            ActionsBlock(
                block_id=f"pick-{start // ACTIONS_MAX}",
                elements=[
                    ButtonElement(
                        text=name[:BUTTON_TEXT_MAX],
                        action_id=f"{ids.ACTION_INSPIRE_PICK}.{start + i}",
                        value=value,
                    )
                    for i, ((_, name), value) in enumerate(chunk)
                ],
            )
        )
    if not pairs:
        blocks.append(_context(t("inspire.nothing_to_pick", lang), "empty"))
    return Message(text=intro, blocks=[b.to_dict() for b in blocks])


def build_pair_picker(
    *,
    lang: str,
    asking: Literal["segment", "use_case"],
    typed: str,
    unknown: str | None,
    chosen: str | None,
    options: Sequence[tuple[str, str]],
    values: Sequence[str],
) -> Message:
    """Ask for the segment or the use case of ``/suggest inspire``.

    Args:
        asking: which side is asked for.
        typed: the words that matched several options ("" when none were typed).
        unknown: the words that matched nothing, if any.
        chosen: the name of the other side when it is chosen already.
    """
    intro: list[str] = []
    if unknown:
        intro.append(t("inspire.unknown", lang, text=quote(unknown)))
    key = f"inspire.pick_{asking}_ambiguous" if typed else f"inspire.pick_{asking}"
    intro.append(t(key, lang, text=quote(typed)))
    other = "use_case" if asking == "segment" else "segment"
    shown = t(f"inspire.chosen_{other}", lang, name=escape_mrkdwn(chosen)) if chosen else None
    return build_picker(
        lang=lang, intro="\n".join(intro), options=options, values=values, chosen=shown
    )


def build_empty_answer(
    *,
    lang: str,
    labels: Labels,
    version: int | None,
    newest_version: int | None,
    locale_mismatch: tuple[str, str] | None,
    generate_value: str,
) -> Message:
    """Why there is nothing to show, and what can be done.

    Args:
        version: the version asked for, if any.
        newest_version: the newest version there is, when ``version`` does not exist.
        locale_mismatch: ``(configured, held)`` when the service holds content in another
            locale than the workspace is set to; then generating would not help.
        generate_value: the "Generate now" button's value (what to generate).
    """
    segment, use_case = escape_mrkdwn(labels.segment), escape_mrkdwn(labels.use_case)
    blocks: list[Block] = []
    buttons: list[ButtonElement] = []
    if locale_mismatch is not None:
        configured, held = locale_mismatch
        text = t(
            "inspire.locale_mismatch",
            lang,
            segment=segment,
            use_case=use_case,
            configured=configured,
            held=held,
        )
    elif version is not None and newest_version is not None:
        text = t(
            "inspire.no_such_version",
            lang,
            version=version,
            newest=newest_version,
            segment=segment,
            use_case=use_case,
        )
        buttons.append(
            ButtonElement(
                text=t("inspire.show_newest", lang),
                action_id=f"{ids.ACTION_INSPIRE_PICK}.0",
                value=generate_value,
                style="primary",
            )
        )
    else:
        text = t("inspire.empty", lang, segment=segment, use_case=use_case)
        buttons.append(
            ButtonElement(
                text=t("inspire.generate_button", lang),
                action_id=ids.ACTION_INSPIRE_GENERATE,
                value=generate_value,
                style="primary",
            )
        )
    blocks.append(SectionBlock(block_id="empty", text=MarkdownTextObject(text=text)))
    if buttons:
        blocks.append(ActionsBlock(block_id="empty-actions", elements=buttons))
    return Message(text=text, blocks=[b.to_dict() for b in blocks])


def build_shared_messages(
    *, lang: str, variant: Variant, shared_by: str, labels: Labels, version: int | None
) -> list[Message]:
    """A shared variant as a channel's root message (more messages follow in its thread only
    when the text needs more than one), introduced by who shared it (``shared_by``, a user id)
    and from which set, and ending with how to refine it."""
    intro = t(
        "inspire.shared_intro",
        lang,
        user=shared_by,
        segment=escape_mrkdwn(labels.segment),
        use_case=escape_mrkdwn(labels.use_case),
        version=version or "?",
    )
    messages = build_variant_messages(lang=lang, variant=variant)
    first = messages[0]
    lead = [_context(intro, "shared-intro").to_dict()]
    hint = [_context(t("inspire.refine_hint", lang), "shared-hint").to_dict()]
    if len(first.blocks) + 2 <= MESSAGE_BLOCKS_MAX:
        blocks = lead + first.blocks + hint
    else:
        blocks = lead + first.blocks[: MESSAGE_BLOCKS_MAX - 1]
    return [Message(text=first.text, blocks=blocks), *messages[1:]]


def build_digest_message(
    *,
    lang: str,
    labels: Labels,
    version: int | None,
    variants: Sequence[Variant],
    late_note: str | None = None,
) -> Message:
    """A digest: the newest ready-made set, every variant with its image, in ONE message."""
    header = t("digest.header", lang, segment=labels.segment, use_case=labels.use_case)
    head: list[Block] = [
        HeaderBlock(block_id="title", text=PlainTextObject(text=header[:HEADER_TEXT_MAX]))
    ]
    head.append(_context(t("digest.version", lang, version=version or "?"), "version"))
    if late_note:
        head.append(_context(late_note, "late"))
    tail: list[Block] = [_context(t("digest.refine_hint", lang), "hint")]
    room = MESSAGE_BLOCKS_MAX - len(head) - len(tail) - 1
    shown, left_out = _fit(
        variants,
        room=room,
        text_room=MESSAGE_TEXT_BUDGET - _text_of(head + tail) - _VARIANT_TEXT_MARGIN,
        body_max=DIGEST_BODY_MAX,
    )
    body: list[Block] = []
    for index, variant in enumerate(shown):
        if index:
            body.append(DividerBlock(block_id=f"div-{variant.number}"))
        body += _variant_blocks(variant, lang=lang, body_max=DIGEST_BODY_MAX, with_buttons=False)
    if left_out:
        tail.insert(0, _context(tn("inspire.left_out", lang, count=left_out), "left-out"))
    blocks = head + body + tail
    return Message(text=header, blocks=[b.to_dict() for b in blocks])


def digest_late_note(*, lang: str, time: str, tz: str) -> str:
    """Under a digest posted after its time (``time`` in ``tz``), e.g. after the app was down."""
    return t("digest.late", lang, time=time, tz=tz)


def build_digest_quiet_line(
    *, lang: str, labels: Labels, version: int | None, late_note: str | None = None
) -> Message:
    """The short line a digest posts instead of a set: no content yet (``version`` None), or
    nothing new since the set of ``version`` posted before."""
    names = {"segment": escape_mrkdwn(labels.segment), "use_case": escape_mrkdwn(labels.use_case)}
    if version is None:
        text = t("digest.nothing_yet", lang, **names)
    else:
        text = t("digest.unchanged", lang, version=version, **names)
    return build_digest_line(text=text, late_note=late_note)


def build_digest_line(*, text: str, late_note: str | None = None) -> Message:
    """A digest's short line ("nothing new", "nothing yet")."""
    blocks: list[Block] = [SectionBlock(block_id="line", text=MarkdownTextObject(text=text))]
    if late_note:
        blocks.append(_context(late_note, "late"))
    return Message(text=text, blocks=[b.to_dict() for b in blocks])
