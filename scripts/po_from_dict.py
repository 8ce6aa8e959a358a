"""Move sentences written in the old dict catalogue (``_EN``/``_DE`` in ``ui/messages.py``) into
the gettext catalogues, for keys that other branches still add that way.

    python scripts/po_from_dict.py path/to/old/messages.py [--replace]

Each key becomes a msgid; a sentence with the old plural syntax ``{n|one|other}`` becomes a
plural entry (msgid and msgid_plural both the key) whose count placeholder is renamed ``{count}``
— call it with ``tn(key, lang, count=n, ...)``. A sentence with two counts has to be split by hand
first (the script says which). Entries already in a catalogue are kept unless ``--replace``.
Afterwards: ``pybabel compile -d src/suggestbot/ui/locales -D suggestbot`` (see README).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

LOCALES = Path(__file__).resolve().parents[1] / "src" / "suggestbot" / "ui" / "locales"
DOMAIN = "suggestbot"
_PLURAL = re.compile(r"\{(\w+)\|([^{}|]*)\|([^{}|]*)\}")


def _load_dicts(path: Path) -> dict[str, dict[str, str]]:
    spec = importlib.util.spec_from_file_location("_old_messages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module._CATALOGUES)


def _count_name(key: str, templates: list[str]) -> str | None:
    names = {m.group(1) for text in templates for m in _PLURAL.finditer(text)}
    if len(names) > 1:
        sys.exit(f"{key}: counts {sorted(names)} in one sentence; split it into one per count")
    return names.pop() if names else None


def _forms(text: str, count: str) -> tuple[str, str]:
    """The sentence's singular and plural, its count placeholder renamed ``{count}``."""
    text = text.replace("{" + count + "}", "{count}")
    return _PLURAL.sub(r"\2", text), _PLURAL.sub(r"\3", text)


def _catalogue(lang: str) -> tuple[Path, Catalog]:
    path = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if path.exists():
        with path.open("rb") as f:
            return path, read_po(f, locale=lang, domain=DOMAIN)
    header = "Sentences of suggestbot, the Slack app, for one language (see README: Languages)."
    return path, Catalog(
        locale=lang,
        domain=DOMAIN,
        header_comment="# " + header,
        project="suggestbot",
        version="1",
        copyright_holder="the suggestbot authors",
        msgid_bugs_address="",
        last_translator="",
        language_team=lang,
        fuzzy=False,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a messages.py holding _CATALOGUES")
    parser.add_argument("--replace", action="store_true", help="overwrite existing entries")
    args = parser.parse_args(argv)
    dicts = _load_dicts(args.source)
    english = dicts["en"]
    for lang, texts in dicts.items():
        path, catalogue = _catalogue(lang)
        added = 0
        for key in english:
            if key not in texts or (key in catalogue and not args.replace):
                continue
            count = _count_name(key, [d[key] for d in dicts.values() if key in d])
            if count is None:
                catalogue.add(key, texts[key])
            else:
                one, other = _forms(texts[key], count)
                forms = [one] + [other] * (catalogue.num_plurals - 1)
                catalogue.add((key, key), tuple(forms))
            added += 1
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalogue, width=100, sort_output=True, omit_header=False)
        print(f"{lang}: {added} entries written to {path.relative_to(LOCALES.parents[3])}")


if __name__ == "__main__":
    main()
