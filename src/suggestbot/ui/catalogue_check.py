"""What makes a translated catalogue fit to enable, checked against the English source.

A catalogue is complete when it holds exactly the English msgids, each translated (not fuzzy,
not empty), plural entries with as many forms as its ``Plural-Forms`` header — which must be
CLDR's, from Babel — and every form keeps the English placeholders, Slack commands in backticks
and ``:emoji:`` shortcodes. The tests run this over every enabled catalogue; translators run it
on theirs before handing it in::

    python -m suggestbot.ui.catalogue_check path/to/fr.po [--lang fr]
"""

from __future__ import annotations

import argparse
import re
import string
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from suggestbot.ui.messages import DOMAIN, LOCALES_DIR, SOURCE

# A slash command's name and subcommand (its arguments may be translated: `[Text]`).
_COMMAND = re.compile(r"(?<=`)/suggest(?: [a-z]+)?")
_EMOJI = re.compile(r"(?<![\w:]):[a-z0-9_+-]+:(?![\w:])")


def read_catalogue(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN, abort_invalid=True)


def source_path(lang: str = SOURCE) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def placeholders(text: str) -> set[str]:
    """The names of ``{name}`` fields (``{{`` is a literal brace, not a field)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _forms(message: Message) -> list[str]:
    s = message.string
    return [str(f or "") for f in s] if isinstance(s, list | tuple) else [str(s or "")]


def _form_problems(key: str, form: str, english: Message) -> Iterable[str]:
    english_forms = _forms(english)
    wanted = set().union(*(placeholders(e) for e in english_forms))
    try:
        have = placeholders(form)
    except ValueError as e:
        yield f"{key}: braces do not parse ({e}); write a literal brace as {{{{ or }}}}"
        return
    if extra := have - wanted:
        yield f"{key}: unknown placeholder(s) {sorted(extra)}; keep only {sorted(wanted)}"
    # The count may go unsaid in a form ("une variante"), nothing else may.
    if missing := wanted - have - ({"count"} if english.pluralizable else set()):
        yield f"{key}: placeholder(s) {sorted(missing)} missing"
    for pattern, what in ((_COMMAND, "command"), (_EMOJI, "emoji")):
        expected = {m for e in english_forms for m in pattern.findall(e)}
        if lost := expected - set(pattern.findall(form)):
            yield f"{key}: {what} {sorted(lost)} must stay exactly as in English"


def problems(catalogue: Catalog, lang: str, english: Catalog | None = None) -> list[str]:
    """Everything that keeps ``catalogue`` (in ``lang``) from being enabled; empty when fit."""
    english = english or read_catalogue(source_path(), SOURCE)
    found: list[str] = []
    expected_forms = get_plural(lang)
    if catalogue.num_plurals != expected_forms.num_plurals:
        found.append(
            f"Plural-Forms header has {catalogue.num_plurals} forms; CLDR (Babel) gives "
            f"{lang} {expected_forms.num_plurals}: {expected_forms.plural_forms}"
        )
    ours = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalogue if m.id}
    theirs = {m.id if isinstance(m.id, str) else m.id[0]: m for m in english if m.id}
    found += [f"{key}: missing" for key in sorted(theirs.keys() - ours.keys())]
    found += [f"{key}: not in the English catalogue" for key in sorted(ours.keys() - theirs)]
    for key in sorted(ours.keys() & theirs.keys()):
        message, source = ours[key], theirs[key]
        if message.pluralizable != source.pluralizable:
            kind = "a plural entry (msgid_plural)" if source.pluralizable else "singular"
            found.append(f"{key}: must be {kind}, as in English")
            continue
        if message.fuzzy:
            found.append(f"{key}: marked fuzzy")
        forms = _forms(message)
        if source.pluralizable and len(forms) != catalogue.num_plurals:
            found.append(
                f"{key}: {len(forms)} plural forms, the header says {catalogue.num_plurals}"
            )
        for i, form in enumerate(forms):
            if not form.strip():
                found.append(f"{key}: form {i} empty" if len(forms) > 1 else f"{key}: empty")
                continue
            found += _form_problems(key, form, source)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a catalogue against the English one.")
    parser.add_argument("po", type=Path)
    parser.add_argument(
        "--lang", help="catalogue code (fr, pt_BR…); default: from the path (fr.po, fr/LC_MESSAGES)"
    )
    args = parser.parse_args(argv)
    lang = args.lang or (args.po.parents[1].name if args.po.stem == DOMAIN else args.po.stem)
    found = problems(read_catalogue(args.po, lang), lang)
    for line in found:
        print(line)
    print(f"{args.po}: {len(found)} problem(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
