"""The gallery's cards within Slack's limits, its fallback text, and "Copy text"."""

from __future__ import annotations

from suggestbot.ui.blocks.gallery import (
    CARD_BODY_MAX,
    CARD_TITLE_MAX,
    build_copy_text,
    build_gallery,
    cut,
)
from suggestbot.ui.blocks.results import Variant
from suggestbot.ui.blocks.text import MESSAGE_TEXT_BUDGET, block_text_length


def _variant(number: int, body: str, **kw: object) -> Variant:
    fields: dict = {
        "suggestion_id": f"s{number}",
        "number": number,
        "total": 3,
        "kind": "social_single_image",
        "body": body,
        "image_url": f"http://127.0.0.1:9/{number}.png",
        "alt_text": f"picture {number}",
    }
    fields.update(kw)
    return Variant(**fields)


def test_cut_keeps_text_that_fits_and_cuts_longer_text_at_a_word() -> None:
    assert cut("a" * 200, 200) == "a" * 200
    assert cut("  two\n\nlines  ", 200) == "two lines"
    words = "spring " * 40  # 280 characters
    short = cut(words, 200)
    assert len(short) <= 200 and short.endswith("spring…")
    assert cut("x" * 201, 200) == "x" * 199 + "…"  # one unbroken run: cut hard


def test_gallery_has_one_card_per_variant_with_image_title_body_and_two_buttons() -> None:
    variants = [_variant(n, f"Body {n} " + "word " * 100) for n in (1, 2, 3)]
    message = build_gallery(lang="en", variants=variants, request_id="req9")
    [carousel] = message.blocks
    assert carousel["type"] == "carousel"
    cards = carousel["elements"]
    assert [c["title"]["text"] for c in cards] == [
        "Variant 1 · Social post",
        "Variant 2 · Social post",
        "Variant 3 · Social post",
    ]
    for n, card in enumerate(cards, start=1):
        assert card["hero_image"]["image_url"].endswith(f"/{n}.png")
        assert len(card["body"]["text"]) <= CARD_BODY_MAX
        assert card["body"]["text"].startswith(f"Body {n} word")
        labels = [a["text"]["text"] for a in card["actions"]]
        assert labels == ["Refine…", "Copy text"]
        assert card["actions"][1]["value"] == f"req9:{n}"
    # the text is a complete fallback: every variant in full
    for variant in variants:
        assert variant.body.strip() in message.text


def test_card_limits_at_the_boundary_and_german() -> None:
    email = _variant(1, "b" * 200, kind="email", image_url=None, subject="S" * 151, total=2)
    exact = _variant(2, "c" * 201, total=2)
    message = build_gallery(lang="de", variants=[email, exact], request_id="r")
    first, second = message.blocks[0]["elements"]
    assert "hero_image" not in first
    assert first["body"]["text"] == "b" * 200  # exactly the limit: kept whole
    assert len(first["subtitle"]["text"]) == 150 and first["subtitle"]["text"].endswith("…")
    assert second["body"]["text"] == "c" * 199 + "…"
    assert first["title"]["text"] == "Variante 1 · E-Mail"
    assert len(first["title"]["text"]) <= CARD_TITLE_MAX
    assert first["actions"][1]["text"]["text"] == "Text kopieren"
    assert message.text.startswith("2 Varianten sind fertig")


def test_copy_text_shows_the_plain_text_in_code_blocks_across_messages() -> None:
    text = "Subject: <b> & more\n\n" + "\n\n".join("word " * 400 for _ in range(12))
    messages = build_copy_text(lang="en", title="Variant 1 · Email", text=text)
    assert len(messages) >= 2
    assert messages[0].blocks[0]["text"]["text"].startswith("*Variant 1 · Email* as plain text")
    shown = []
    for message in messages:
        assert block_text_length(message.blocks) <= MESSAGE_TEXT_BUDGET
        for block in message.blocks:
            body = block["text"]["text"]
            assert len(body) <= 3000
            if body.startswith("```"):
                shown.append(body.removeprefix("```\n").removesuffix("\n```"))
    assert "Subject: &lt;b&gt; &amp; more" in shown[0]
    squeeze = "".join(shown).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    assert squeeze.replace("\n", "").replace(" ", "") == text.replace("\n", "").replace(" ", "")
