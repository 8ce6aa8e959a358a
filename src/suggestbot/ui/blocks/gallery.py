"""The gallery: several variants side by side as a carousel of cards, and "Copy text".

Slack limits a card's title and subtitle to 150 characters and its body to 200, and a carousel
to 10 cards; a card shows at most a few buttons. A card is a preview: each full variant follows
in the thread as before, and the message's ``text`` holds every variant in full for clients
that cannot show a carousel. Slack has no clipboard action, so "Copy text" answers with the
variant's plain text in a code block, only for the person who pressed it.
"""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    CardBlock,
    CarouselBlock,
    ImageElement,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.results import Message, Variant, pack
from suggestbot.ui.blocks.text import SECTION_TEXT_MAX, escape_mrkdwn, split_text
from suggestbot.ui.messages import t

CARD_TITLE_MAX = 150
CARD_SUBTITLE_MAX = 150
CARD_BODY_MAX = 200
CAROUSEL_CARDS_MAX = 10
# Slack truncates a message's ``text`` past 40,000 characters; the fallback stays under it.
FALLBACK_TEXT_MAX = 39_000
_FENCE = "```"


def cut(text: str, limit: int) -> str:
    """``text`` on one line, within ``limit`` characters: cut at a word boundary, with "…"."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    room = flat[: limit - 1]
    space = room.rfind(" ")
    if space >= limit // 2:
        room = room[:space]
    return room.rstrip(" ,;:.-") + "…"


def card_title(*, lang: str, variant: Variant) -> str:
    kind = t(f"variant.kind.{variant.kind}", lang)
    return cut(t("gallery.title", lang, n=variant.number, kind=kind), CARD_TITLE_MAX)


def copy_value(request_id: str, number: int) -> str:
    """What a card's "Copy text" button carries."""
    return f"{request_id}:{number}"


def _card(*, lang: str, variant: Variant, request_id: str) -> CardBlock:
    hero = (
        ImageElement(
            image_url=variant.image_url,
            alt_text=(variant.alt_text or card_title(lang=lang, variant=variant))[:2000],
        )
        if variant.image_url
        else None
    )
    subtitle = cut(variant.subject, CARD_SUBTITLE_MAX) if variant.subject else None
    return CardBlock(
        block_id=f"card-{variant.number}",
        hero_image=hero,
        title=PlainTextObject(text=card_title(lang=lang, variant=variant), emoji=False),
        subtitle=PlainTextObject(text=subtitle, emoji=False) if subtitle else None,
        body=PlainTextObject(text=cut(variant.body, CARD_BODY_MAX) or " ", emoji=False),
        actions=[
            ButtonElement(
                text=t("refine.button", lang),
                action_id=ids.ACTION_REFINE_OPEN,
                value=variant.suggestion_id,
            ),
            ButtonElement(
                text=t("gallery.copy", lang),
                action_id=ids.ACTION_COPY_TEXT,
                value=copy_value(request_id, variant.number),
            ),
        ],
    )


def plain_text(*, lang: str, variant: Variant) -> str:
    """A variant as one plain text: its subject line (for an email), then its body."""
    if variant.subject is None:
        return variant.body
    return (
        f"{t('variant.subject', lang, subject=variant.subject).replace('*', '')}\n\n{variant.body}"
    )


def build_gallery(*, lang: str, variants: Sequence[Variant], request_id: str) -> Message:
    """The first message of a result with several variants: one card each (up to 10)."""
    shown = list(variants)[:CAROUSEL_CARDS_MAX]
    carousel = CarouselBlock(
        block_id="gallery",
        elements=[_card(lang=lang, variant=v, request_id=request_id) for v in shown],
    )
    parts = [t("gallery.fallback", lang, count=len(variants))]
    for variant in variants:
        kind = t(f"variant.kind.{variant.kind}", lang)
        header = t("variant.header", lang, n=variant.number, total=variant.total)
        text = escape_mrkdwn(plain_text(lang=lang, variant=variant))
        parts.append(f"*{header} · {kind}*\n{text}")
    fallback = "\n\n".join(parts)
    if len(fallback) > FALLBACK_TEXT_MAX:
        fallback = fallback[: FALLBACK_TEXT_MAX - 1] + "…"
    return Message(text=fallback, blocks=[carousel.to_dict()])


def build_copy_text(*, lang: str, title: str, text: str) -> list[Message]:
    """A variant's plain text in code blocks (no formatting, ready to select and copy); a long
    one continues in further messages."""
    intro: list[Block] = [
        SectionBlock(
            block_id="intro",
            text=MarkdownTextObject(text=t("gallery.copy_intro", lang, title=escape_mrkdwn(title))),
        )
    ]
    room = SECTION_TEXT_MAX - 2 * len(_FENCE) - 2
    body: list[Block] = [
        SectionBlock(
            block_id=f"text-{i}",
            text=MarkdownTextObject(text=f"{_FENCE}\n{chunk}\n{_FENCE}"),
        )
        for i, chunk in enumerate(_escaped_chunks(text, room))
    ]
    return pack(intro, body, [], fallback=title, continued=title)


def _escaped_chunks(text: str, limit: int) -> list[str]:
    """``text`` escaped for mrkdwn in pieces of at most ``limit`` characters (escaping makes a
    piece longer: ``&`` becomes ``&amp;``, so a piece too long once escaped is split again)."""
    out: list[str] = []
    for chunk in split_text(text, limit=limit):
        escaped = escape_mrkdwn(chunk)
        if len(escaped) <= limit or len(chunk) <= 1:
            out.append(escaped)
        else:
            out += _escaped_chunks(chunk, max(len(chunk) // 2, 1))
    return out


def build_copy_gone(*, lang: str) -> Message:
    text = t("gallery.copy_gone", lang)
    return Message(text=text, blocks=[SectionBlock(text=MarkdownTextObject(text=text)).to_dict()])
