"""The catalogues: every enabled one complete, plurals by CLDR, numbers the reader's way."""

from __future__ import annotations

import fnmatch
import gettext
import io
import re
import tomllib
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.numbers import format_decimal

from suggestbot.ui import catalogue_check, messages
from suggestbot.ui.messages import ENABLED, PSEUDO, t, tn

SOURCE = catalogue_check.read_catalogue(catalogue_check.source_path(), "en")


@pytest.mark.parametrize("lang", ENABLED)
def test_every_enabled_catalogue_is_complete_and_keeps_the_placeholders(lang: str) -> None:
    path = catalogue_check.source_path(lang)
    assert catalogue_check.problems(catalogue_check.read_catalogue(path, lang), lang) == []


@pytest.mark.parametrize("lang", ENABLED)
def test_the_committed_mo_is_the_compiled_po(lang: str) -> None:
    po = catalogue_check.source_path(lang)
    committed = po.with_suffix(".mo").read_bytes()
    fresh = io.BytesIO()
    write_mo(fresh, catalogue_check.read_catalogue(po, lang))
    fresh.seek(0)
    compiled = gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]
    shipped = gettext.GNUTranslations(io.BytesIO(committed))._catalog  # type: ignore[attr-defined]
    assert compiled == shipped, "run: pybabel compile -d src/suggestbot/ui/locales -D suggestbot"


def test_the_check_finds_what_keeps_a_catalogue_from_being_enabled() -> None:
    german = catalogue_check.read_catalogue(catalogue_check.source_path("de"), "de")
    german.delete("help.title")
    german["root.ready"].string = ("{count} Vorschlag", "{count} Vorschläge von <@{usr}>")
    german["connect.done"].string = "Dein Konto ist verbunden."
    german["connect.expired"].string = "Verbinde dich neu mit `/vorschlag verbinden`."
    found = catalogue_check.problems(german, "de", SOURCE)
    assert "help.title: missing" in found
    assert any(p.startswith("root.ready: unknown placeholder(s) ['usr']") for p in found)
    assert any(p.startswith("root.ready: placeholder(s) ['user'] missing") for p in found)
    assert any(p.startswith("connect.done: emoji [':white_check_mark:']") for p in found)
    assert any(p.startswith("connect.expired: command ['/suggest connect']") for p in found)
    french = catalogue_check.read_catalogue(catalogue_check.source_path("de"), "de")
    assert any("CLDR (Babel) gives fr 3" in p for p in catalogue_check.problems(french, "fr"))


@pytest.mark.parametrize("lang", [*ENABLED, PSEUDO])
def test_every_sentence_renders_with_its_placeholders(lang: str) -> None:
    for key in messages.all_keys():
        template = messages.template(key, lang)
        assert template != key, f"{key} has no text in {lang}"
        names = catalogue_check.placeholders(template)
        rendered = t(key, lang, **{n: "X" for n in names}) if names else template
        assert not re.search(r"\{[a-z_]+\}", rendered), key
    for key in messages.plural_keys():
        for count in (0, 1, 2, 5, 21, 1_000_000):
            template = messages.template(key, lang, count)
            names = catalogue_check.placeholders(template) - {"count"}
            rendered = tn(key, lang, count=count, **{n: "X" for n in names})
            assert rendered != key and not re.search(r"\{[a-z_]+\}", rendered), key


@pytest.mark.parametrize("lang", ENABLED)
def test_no_sentence_hedges_between_singular_and_plural(lang: str) -> None:
    for key in messages.all_keys():
        template = messages.template(key, lang)
        assert not re.search(r"\w\((s|n|en)\)|Vorschlag/Vorschläge|\{\w+\|", template), key


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
    assert one in tn(key, lang, **values, count=1)
    assert many in tn(key, lang, **values, count=3)
    assert one not in tn(key, lang, **values, count=3)


def test_numbers_and_percentages_are_written_the_readers_way() -> None:
    assert "4,500 suggestions" in tn("root.ready", "en", user="U1", count=4500)
    assert "4.500 Vorschläge" in tn("root.ready", "de", user="U1", count=4500)
    assert messages.percent(0.75, "en") == "75%"
    assert messages.percent(0.75, "de") == "75\xa0%"


def test_a_plural_rule_with_more_forms_than_english_picks_by_cldr() -> None:
    # French takes the singular for 0 and 1 and a separate form for exact millions (CLDR).
    plural = gettext.c2py(get_plural("fr").plural_expr)
    assert [plural(n) for n in (0, 1, 2, 1_000_000)] == [0, 0, 2, 1]
    assert get_plural("ja").num_plurals == 1


@pytest.mark.parametrize(
    ("slack_locale", "lang"),
    [
        ("de-DE", "de"),
        ("de_AT", "de"),
        ("en-US", "en"),
        ("en-GB", "en_GB" if "en_GB" in ENABLED else "en"),
        ("es-LA", "es_419" if "es_419" in ENABLED else "es" if "es" in ENABLED else "en"),
        ("zh-TW", "zh_TW" if "zh_TW" in ENABLED else "en"),
        ("pt-BR", "pt_BR" if "pt_BR" in ENABLED else "en"),
        ("xx-YY", "en"),
        (None, "en"),
        ("", "en"),
    ],
)
def test_language_of_slack_locale(slack_locale: str | None, lang: str) -> None:
    assert messages.language_of(slack_locale) == lang


def test_a_locale_that_is_not_enabled_reads_english_never_the_key() -> None:
    assert t("help.title", "xx") == t("help.title", "en")
    assert messages.language_of("xx-XX") == "en"


def test_the_pseudo_locale_is_longer_accented_and_keeps_markup() -> None:
    english = tn("root.ready", "en", user="U1", count=3)
    pseudo = tn("root.ready", PSEUDO, user="U1", count=3)
    assert len(pseudo) >= 1.35 * len(english)
    assert "<@U1>" in pseudo and ":sparkles:" in pseudo and "Ŗ" not in english
    assert "řéådý" in pseudo
    assert "`/suggest connect`" in t("connect.expired", PSEUDO)


def test_the_check_reads_the_language_from_a_catalogues_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert catalogue_check.main([str(catalogue_check.source_path("de"))]) == 0
    assert "0 problem(s)" in capsys.readouterr().err


def test_the_readme_lists_every_enabled_language() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    languages = readme.split("## Languages", 1)[1].split("\n## ", 1)[0]
    assert all(f"`{code}`" in languages for code in ENABLED)


def test_the_wheel_carries_every_catalogue_source_and_compiled() -> None:
    root = Path(__file__).resolve().parents[2]
    with (root / "pyproject.toml").open("rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]["suggestbot.ui"]
    ui = root / "src" / "suggestbot" / "ui"
    files = [p.relative_to(ui).as_posix() for p in (ui / "locales").rglob("*.[mp]o")]
    assert len(files) == 2 * len(list((ui / "locales").iterdir()))
    assert all(any(fnmatch.fnmatch(f, pattern) for pattern in patterns) for f in files)


@pytest.mark.skipif("fr" not in ENABLED, reason="French is not enabled")
def test_french_reads_the_singular_for_zero_and_its_own_form_for_millions() -> None:
    assert "0 suggestion." in tn("root.ready", "fr", user="U1", count=0)
    assert "2 suggestions." in tn("root.ready", "fr", user="U1", count=2)
    # CLDR's "many" (gettext's second form), and the number grouped the French way
    assert "1\u202f000\u202f000 de suggestions." in tn("root.ready", "fr", user="U1", count=10**6)


@pytest.mark.parametrize("lang", ENABLED)
def test_small_numbers_shortcut_babel_only_where_babel_writes_them_the_same(lang: str) -> None:
    for value in (0, 7, 42, 999, -5):
        assert messages.number(value, lang) == format_decimal(
            value, locale=messages.babel_locale(lang)
        )
