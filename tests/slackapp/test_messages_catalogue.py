"""Every user-facing sentence exists in English and German and renders."""

from __future__ import annotations

import re

import pytest

from suggestbot.slackapp import messages


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
