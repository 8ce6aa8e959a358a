"""Start the catalogue of a new language: every msgid of the English source, msgstr empty (as
many plural forms as CLDR gives the language), the English text beside each as a comment.

    python scripts/new_catalogue.py fr [-o path/to/fr.po]

Default output: ``src/suggestbot/ui/locales/<lang>/LC_MESSAGES/suggestbot.po`` (refused if it
exists). Translate every msgstr, check with ``python -m suggestbot.ui.catalogue_check``, compile,
then add the code to ``ENABLED`` in ``suggestbot/ui/messages.py`` (README, *Languages*).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from suggestbot.ui.catalogue_check import read_catalogue, source_path
from suggestbot.ui.messages import DOMAIN, LOCALES_DIR, SOURCE


def _english(text: str) -> list[str]:
    lines = text.split("\n")
    return [f"English: {lines[0]}"] + [f"         {line}" for line in lines[1:]]


def new_catalogue(lang: str) -> Catalog:
    english = read_catalogue(source_path(), SOURCE)
    catalogue = Catalog(
        locale=lang,
        domain=DOMAIN,
        header_comment="# Sentences of suggestbot, the Slack app, for one language "
        "(see README: Languages).",
        project="suggestbot",
        version="1",
        copyright_holder="the suggestbot authors",
        msgid_bugs_address="",
        last_translator="",
        language_team=lang,
        fuzzy=False,
    )
    for message in english:
        if not message.id:
            continue
        if message.pluralizable:
            one, other = message.string[0], message.string[1]
            comments = [*_english(one), "(plural)", *_english(other)]
            catalogue.add(message.id, ("",) * catalogue.num_plurals, auto_comments=comments)
        else:
            catalogue.add(message.id, "", auto_comments=_english(str(message.string)))
    return catalogue


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lang", help="catalogue code: fr, es_419, pt_BR, zh_TW…")
    parser.add_argument("-o", "--output", type=Path)
    args = parser.parse_args(argv)
    path = args.output or LOCALES_DIR / args.lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if path.exists():
        sys.exit(f"{path} exists; update it with pybabel update instead (README, Languages)")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, new_catalogue(args.lang), width=100, sort_output=True)
    print(f"{args.lang}: {path}")


if __name__ == "__main__":
    main()
