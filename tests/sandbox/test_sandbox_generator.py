"""Deterministic templates (en and de), refinement rules, images and URL signing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from suggestbot.sandbox import generator
from suggestbot.sandbox.images import UrlSigner, render_png

EN = generator.Context(
    locale="en",
    tenant_name="Acme Outdoor",
    segment_name="Weekend Hikers",
    segment_description="Active on weekends",
    use_case_name="Spring Launch",
)
DE = generator.Context(
    locale="de",
    tenant_name="Bergwerk GmbH",
    segment_name="Bergsteiger",
    segment_description="Regelmäßig in den Alpen",
    use_case_name="Frühjahrsaktion",
)


def _email(
    ctx: generator.Context, variant_no: int = 1, brief: str | None = "Rain jackets"
) -> generator.Generated:
    return generator.generate(
        ctx, kind=generator.EMAIL, variant_no=variant_no, brief=brief, version=None
    )


def test_generation_is_deterministic_and_variants_differ() -> None:
    assert _email(EN).payload == _email(EN).payload
    variants = [_email(EN, n).payload for n in (1, 2, 3)]
    assert len({v["subject"] for v in variants}) == 3
    assert len({v["body"] for v in variants}) == 3


def test_generation_uses_segment_use_case_brief_and_tenant_locale() -> None:
    english = _email(EN, brief="Light rain jackets for spring").payload
    assert "Weekend Hikers" in english["body"]
    assert "Light rain jackets for spring" in english["body"]
    assert "Spring Launch" in english["subject"]
    german = _email(DE, brief="Leichte Regenjacken").payload
    assert german["body"].startswith("Hallo Bergsteiger,")
    assert "Im Mittelpunkt: Leichte Regenjacken." in german["body"]
    assert "Ihr Bergwerk GmbH Team" in german["body"]


@pytest.mark.parametrize(
    ("brief", "use_case", "kind"),
    [
        ("An Instagram post about boots", "Spring Launch", generator.SOCIAL),
        ("A newsletter with a photo of boots", "Social Teaser", generator.EMAIL),
        ("Boots for everyone", "Social Teaser", generator.SOCIAL),
        ("Boots for everyone", "Spring Launch", generator.EMAIL),
        ("Ein Beitrag mit Bild", "Frühjahrsaktion", generator.SOCIAL),
    ],
)
def test_kind_follows_the_brief_then_the_use_case(brief: str, use_case: str, kind: str) -> None:
    assert generator.choose_kind(brief=brief, use_case_name=use_case) == kind


def test_social_posts_carry_alt_text_and_emails_none() -> None:
    social = generator.generate(EN, kind=generator.SOCIAL, variant_no=2, brief=None, version=3)
    assert social.alt_text
    assert "Edition 3" in social.payload["body"]
    assert _email(EN).alt_text is None


@pytest.mark.parametrize("ctx", [EN, DE])
def test_refinement_follows_shorter_mention_formal_and_call_to_action(
    ctx: generator.Context,
) -> None:
    base = _email(ctx).payload
    shorter = generator.refine(
        ctx, kind="email", payload=base, instruction="Make it shorter / kürzer"
    )
    assert len(shorter.payload["body"]) < len(base["body"])
    assert shorter.payload["subject"] == base["subject"]
    mention = generator.refine(ctx, kind="email", payload=base, instruction="mention Gore-Tex")
    assert "Gore-Tex" in mention.payload["body"]
    quoted = generator.refine(ctx, kind="email", payload=base, instruction="Use „Gipfelglück“")
    assert "Gipfelglück" in quoted.payload["body"]
    formal = generator.refine(ctx, kind="email", payload=base, instruction="more formal, förmlich")
    assert formal.payload["body"].split("\n")[0] in (
        "Dear Weekend Hikers,",
        "Sehr geehrte Damen und Herren,",
    )
    cta = generator.refine(ctx, kind="email", payload=base, instruction="add a call to action")
    assert cta.payload["body"].startswith(base["body"])
    assert len(cta.payload["body"]) > len(base["body"])


def test_shorter_is_always_strictly_shorter() -> None:
    text = {"body": "One short line"}
    for _ in range(5):
        refined = generator.refine(EN, kind="email", payload=text, instruction="shorter")
        assert len(refined.payload["body"]) < len(text["body"]) or len(text["body"]) <= 2
        text = refined.payload


def test_unrecognised_instruction_still_changes_the_content() -> None:
    base = _email(EN).payload
    refined = generator.refine(EN, kind="email", payload=base, instruction="Sound like a pirate")
    assert refined.payload["body"] != base["body"]
    assert "Sound like a pirate" in refined.payload["body"]


def test_thread_names_fit_the_contract_limits() -> None:
    long = generator.Context("en", "T", "A very long segment name " * 3, "", "And a use case " * 3)
    name = generator.thread_name(long)
    assert len(name) <= 60
    assert len(name.split()) <= 8


def test_images_differ_per_id_and_are_deterministic() -> None:
    assert render_png("aaa") == render_png("aaa")
    assert render_png("aaa") != render_png("aab")


def test_url_signer_rejects_expired_and_tampered_urls() -> None:
    signer = UrlSigner()
    now = datetime(2025, 1, 1, tzinfo=UTC)
    url, expires_at = signer.mint(base_url="http://h", ref="image:abc", now=now)
    assert expires_at - now == timedelta(minutes=15)
    query = dict(part.split("=") for part in url.split("?")[1].split("&"))
    assert signer.check(ref="image:abc", expires=query["expires"], sig=query["sig"], now=now)
    assert not signer.check(ref="image:abd", expires=query["expires"], sig=query["sig"], now=now)
    assert not signer.check(
        ref="image:abc", expires=query["expires"], sig=query["sig"], now=expires_at
    )
    assert not UrlSigner().check(
        ref="image:abc", expires=query["expires"], sig=query["sig"], now=now
    )
    assert "abc" not in repr(signer)
