"""``pybabel extract`` reads the English catalogue as well as the code (``babel.cfg``).

The English ``.po`` is the source text, and it also holds keys the code builds at run time
(``f"variant.kind.{kind}"``), which no extractor can see in a call. Reading them back from the
English catalogue keeps ``pybabel update`` from marking them obsolete in every language.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from babel.messages.pofile import read_po


def extract(
    fileobj: IO[bytes],
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str, str | tuple[str], list[str]]]:
    """Babel's extractor protocol: each msgid, as if called with ``t`` (or ``tn`` if plural)."""
    for message in read_po(fileobj):
        if not message.id:
            continue
        line = message.lineno or 0
        if isinstance(message.id, tuple):
            yield line, "tn", (message.id[0],), list(message.auto_comments)
        else:
            yield line, "t", str(message.id), list(message.auto_comments)
