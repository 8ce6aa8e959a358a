"""Every sentence a Slack user reads, from gettext catalogues.

Handlers and block builders never hold user-facing text themselves; they ask :func:`t` (or
:func:`tn` for a sentence about a count) for it by key. The keys are the catalogues' msgids and
the English catalogue holds the source text, so a wording change touches a ``.po`` file, never
the code. Catalogues live in ``ui/locales/<lang>/LC_MESSAGES/suggestbot.po`` and are read from
their compiled ``.mo`` (README, *Languages*, says how to extract, translate and compile).

Plural forms come from CLDR through Babel: each catalogue's ``Plural-Forms`` header says how many
forms a count has (one for Japanese, Korean and Chinese; two for English and German; three for
French, Spanish, Italian and Brazilian Portuguese, whose ``many`` form is CLDR's), and gettext
picks the form for ``count``. Numbers in sentences are written the reader's way (``4,500`` /
``4.500``) by Babel's formatters.

Only complete catalogues are :data:`ENABLED` (the tests check each one against the English);
a reader whose language is not enabled reads English. A missing key renders as the key itself,
which the tests that render every key catch.
"""

from __future__ import annotations

import gettext
import re
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.numbers import format_decimal, format_percent

DOMAIN = "suggestbot"
LOCALES_DIR = Path(__file__).parent / "locales"
SOURCE = "en"

# Catalogues that are complete (no English fallback left); a reader's language is one of these.
ENABLED: tuple[str, ...] = (
    "en",
    "en_GB",
    "de",
    "es",
    "es_419",
    "fr",
    "it",
    "pt_BR",
    "ja",
    "ko",
    "zh_CN",
    "zh_TW",
)
# Generated from the English at run time (accented, 40 % longer): shows untranslated or
# truncated text and layouts too tight for longer languages. Never offered to real readers.
PSEUDO = "pseudo"

# Slack's display languages, as ``users.info`` gives them (Slack's help, "Change your language").
SLACK_LOCALES = (
    "en-US",
    "en-GB",
    "de-DE",
    "es-ES",
    "es-LA",
    "fr-FR",
    "it-IT",
    "pt-BR",
    "ja-JP",
    "ko-KR",
    "zh-CN",
    "zh-TW",
)

# Slack's locale (``users.info``) to a catalogue where the two differ; otherwise the catalogue is
# the locale itself (``pt-BR`` -> ``pt_BR``), then its language alone (``de-AT`` -> ``de``).
_SLACK_LOCALES = {
    "es_LA": "es_419",
    "en_IN": "en_GB",
    "en_AU": "en_GB",
    "zh_HK": "zh_TW",
    "zh_SG": "zh_CN",
}


def language_of(slack_locale: str | None) -> str:
    """The enabled catalogue for a Slack locale (``de-DE``, ``es-LA``…); English by default."""
    if not slack_locale:
        return SOURCE
    if slack_locale == PSEUDO:  # no Slack locale is called that: the demo's stage asks for it
        return PSEUDO
    code = slack_locale.replace("-", "_")
    language, _, region = code.partition("_")
    code = f"{language.lower()}_{region.upper()}" if region else language.lower()
    for candidate in (_SLACK_LOCALES.get(code), code, language.lower()):
        if candidate in ENABLED:
            return candidate
    return SOURCE


@cache
def babel_locale(lang: str) -> Locale:
    """Babel's locale for a catalogue code (numbers, plural rules); English for the pseudo one."""
    return Locale.parse(SOURCE if lang == PSEUDO else lang)


def language_name(code: str, lang: str) -> str:
    """The name of the language ``code`` (a catalogue, or a content locale such as ``de-DE``),
    written in ``lang`` (CLDR, via Babel); the code itself when Babel does not know it."""
    try:
        named = Locale.parse("en_US" if code == SOURCE else code.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return code
    name = named.get_display_name(babel_locale(lang)) or code
    return name[:1].upper() + name[1:]


@cache
def _compiled(lang: str) -> gettext.NullTranslations:
    path = LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as f:
        return gettext.GNUTranslations(f)


@cache
def _translations(lang: str) -> gettext.NullTranslations:
    """``lang``'s catalogue, falling back to English for what it does not hold."""
    if lang == PSEUDO:
        return _Pseudo(_compiled(SOURCE))
    if lang == SOURCE or lang not in ENABLED:
        return _compiled(SOURCE)
    # A fresh object: add_fallback must not chain onto the cached English one.
    path = LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    with path.open("rb") as f:
        translations = gettext.GNUTranslations(f)
    translations.add_fallback(_compiled(SOURCE))
    return translations


def number(value: float, lang: str) -> str:
    """``value`` written the reader's way (grouping, decimal sign)."""
    if isinstance(value, int) and -1000 < value < 1000:
        return str(value)  # nothing to group, and every enabled language writes Latin digits
    return format_decimal(value, locale=babel_locale(lang))


def percent(ratio: float, lang: str) -> str:
    """``ratio`` (0–1) as a whole percentage written the reader's way (``75%``, ``75 %``)."""
    return format_percent(ratio, locale=babel_locale(lang))


def _fill(template: str, lang: str, values: dict[str, Any]) -> str:
    if not values:
        return template
    shown = {
        name: number(value, lang)
        if isinstance(value, int | float) and not isinstance(value, bool)
        else value
        for name, value in values.items()
    }
    return template.format(**shown)


def t(key: str, lang: str = SOURCE, /, **values: Any) -> str:
    """The sentence ``key`` in ``lang``, with ``values`` filled in (numbers the reader's way)."""
    return _fill(_translations(lang).gettext(key), lang, values)


def tn(key: str, lang: str = SOURCE, /, *, count: int, **values: Any) -> str:
    """The plural entry ``key`` in the form CLDR gives ``count`` in ``lang`` (``{count}`` in it)."""
    return _fill(_translations(lang).ngettext(key, key, count), lang, {"count": count, **values})


def template(key: str, lang: str, count: int | None = None) -> str:
    """The sentence before its values are filled in (the form for ``count`` if plural)."""
    if count is None:
        return _translations(lang).gettext(key)
    return _translations(lang).ngettext(key, key, count)


def has_key(key: str) -> bool:
    """Whether the English catalogue holds the singular sentence ``key`` (for keys built from
    a value the service sends, such as a status, that may be new to this app)."""
    return key in _source_keys()


def all_keys() -> list[str]:
    """Every singular msgid of the English catalogue (the source)."""
    return sorted(k for k in _source_keys() if isinstance(k, str))


def plural_keys() -> list[str]:
    """Every msgid of the English catalogue that takes a count (:func:`tn`)."""
    return sorted({k[0] for k in _source_keys() if isinstance(k, tuple)})


@cache
def _source_keys() -> frozenset[str | tuple[str, int]]:
    catalog: dict[str | tuple[str, int], str] = getattr(_compiled(SOURCE), "_catalog", {})
    return frozenset(k for k in catalog if k != "")


# What pseudo-translation leaves alone: placeholders, code spans, Slack's <…> tokens (mentions,
# links, dates), emoji shortcodes.
_KEEP = re.compile(r"\{[a-z_]+\}|`[^`]*`|<[^<>]*>|:[a-z0-9_+-]+:")
_ACCENTS = str.maketrans(
    "AaCcDEeGHIiJKLlNnOoRrSsTUuWwYyZz",
    "ÅåÇçÐÉéĜĤÎîĴĶĻļÑñÖöŘřŠšŢÛûŴŵÝýŽž",
)


def pseudo_text(text: str) -> str:
    """English text accented and padded to 140 % of its length, markup and placeholders kept."""
    if not text:
        return text
    out: list[str] = []
    last = 0
    for match in _KEEP.finditer(text):
        out.append(text[last : match.start()].translate(_ACCENTS))
        out.append(match.group(0))
        last = match.end()
    out.append(text[last:].translate(_ACCENTS))
    padding = "·" * max(1, round(len(text) * 0.4) - 2)
    return "⟦" + "".join(out) + " " + padding + "⟧"


class _Pseudo(gettext.NullTranslations):
    """The pseudo-locale: English, transformed as it is read."""

    def __init__(self, english: gettext.NullTranslations) -> None:
        super().__init__()
        self._english = english

    def gettext(self, message: str) -> str:
        found = self._english.gettext(message)
        return found if found == message else pseudo_text(found)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        found = self._english.ngettext(msgid1, msgid2, n)
        return found if found in (msgid1, msgid2) else pseudo_text(found)
