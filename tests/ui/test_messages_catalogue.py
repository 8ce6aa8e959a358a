"""Every user-facing sentence exists in English and German and renders."""

from __future__ import annotations

import re

import pytest

from suggestbot.ui import messages


def test_every_key_has_german_text() -> None:
    assert messages.untranslated() == []


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_sentence_renders_with_its_placeholders(lang: str) -> None:
    for key in messages.all_keys():
        template = messages.t(key, lang)
        names = set(re.findall(r"(?<!\{)\{([a-z_]+)\}(?!\})", template))
        rendered = messages.t(key, lang, **{n: "X" for n in names}) if names else template
        assert not re.search(r"\{[a-z_]+\}", rendered), key
        assert rendered.strip(), key


def test_placeholders_match_between_languages() -> None:
    for key in messages.all_keys():
        en = set(re.findall(r"\{([a-z_]+)\}", messages.t(key, "en")))
        de = set(re.findall(r"\{([a-z_]+)\}", messages.t(key, "de")))
        assert en == de, key


@pytest.mark.parametrize(
    ("slack_locale", "lang"),
    [("de-DE", "de"), ("de_AT", "de"), ("en-GB", "en"), ("fr-FR", "en"), (None, "en"), ("", "en")],
)
def test_language_of_slack_locale(slack_locale: str | None, lang: str) -> None:
    assert messages.language_of(slack_locale) == lang


@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_sentence_hedges_between_singular_and_plural(lang: str) -> None:
    for key in messages.all_keys():
        template = messages.t(key, lang)
        assert not re.search(r"\w\((s|n|en)\)|Vorschlag/Vorschläge", template), key


@pytest.mark.parametrize(
    ("lang", "key", "values", "one", "many"),
    [
        ("en", "root.ready", {"user": "U1"}, "are ready: 1 suggestion.", "3 suggestions"),
        ("de", "root.ready", {"user": "U1"}, "sind fertig: 1 Vorschlag.", "3 Vorschläge"),
        ("en", "root.context", {"segment": "S", "use_case": "U"}, "1 variant", "3 variants"),
        ("de", "root.context", {"segment": "S", "use_case": "U"}, "1 Variante", "3 Varianten"),
        ("en", "history.thread_intro", {"name": "N"}, "1 turn,", "3 turns,"),
        ("de", "history.thread_intro", {"name": "N"}, "1 Runde,", "3 Runden,"),
        ("en", "variant.skipped", {}, "1 suggestion of a kind", "3 suggestions of a kind"),
        ("de", "inspire.left_out", {}, "1 weitere Variante passte", "3 weitere Varianten passten"),
    ],
)
def test_counts_read_as_real_singular_and_plural(
    lang: str, key: str, values: dict[str, str], one: str, many: str
) -> None:
    name = {"root.context": "variants", "history.thread_intro": "turns"}.get(key, "count")
    assert one in messages.t(key, lang, **values, **{name: 1})
    assert many in messages.t(key, lang, **values, **{name: 3})
    assert one not in messages.t(key, lang, **values, **{name: 3})
