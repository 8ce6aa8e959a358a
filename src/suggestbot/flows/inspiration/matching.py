"""Reading ``/suggest inspire [segment] [use case] [--version N] [--refresh]``.

People type names the way they remember them: any case, the start of a name, or an id pasted
from somewhere. Segment and use case names may hold spaces and need no quotes, so the words are
tried at every split point; only an answer that is unique on both sides is taken. Everything
else becomes a picker with what could be recognised already chosen.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

Option = tuple[str, str]  # (id, name)

MIN_ID_PREFIX = 8


@dataclass(frozen=True)
class InspireArgs:
    """The command's words (names or ids) and options; ``error`` names a bad option."""

    words: tuple[str, ...] = ()
    version: int | None = None
    refresh: bool = False
    error: str | None = None


def parse_inspire(text: str) -> InspireArgs:
    """Split the command text into words and the ``--version N`` / ``--refresh`` options.

    Quotes group words (``"Weekend Hikers"``) but are never needed; an unbalanced quote is
    read as plain text.
    """
    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()
    words: list[str] = []
    version: int | None = None
    refresh = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        lowered = token.lower()
        if lowered == "--refresh":
            refresh = True
        elif lowered == "--version" or lowered.startswith("--version="):
            if "=" in lowered:
                raw = token.split("=", 1)[1]
            else:
                index += 1
                raw = tokens[index] if index < len(tokens) else ""
            if not raw.isdigit() or int(raw) < 1:
                return InspireArgs(error="--version")
            version = int(raw)
        elif token.startswith("--"):
            return InspireArgs(error=token)
        else:
            words.append(token)
        index += 1
    return InspireArgs(words=tuple(words), version=version, refresh=refresh)


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def match_options(query: str, options: Sequence[Option]) -> list[Option]:
    """Options that ``query`` names: an exact id or name (any case) wins; else every option
    whose name (or id, from 8 characters) starts with it. Empty when nothing matches."""
    wanted = _fold(query)
    if not wanted:
        return []
    exact = [o for o in options if o[0].casefold() == wanted or _fold(o[1]) == wanted]
    if exact:
        return exact
    return [
        o
        for o in options
        if _fold(o[1]).startswith(wanted)
        or (len(wanted) >= MIN_ID_PREFIX and o[0].casefold().startswith(wanted))
    ]


@dataclass(frozen=True)
class Side:
    """What one side (segment or use case) resolved to."""

    chosen: Option | None = None
    # When not chosen: the options to offer (all when nothing was typed for this side).
    choices: tuple[Option, ...] = ()
    typed: str = ""

    @property
    def unknown(self) -> bool:
        """Something was typed and nothing matched it."""
        return self.chosen is None and bool(self.typed) and not self.choices


@dataclass(frozen=True)
class Resolution:
    segment: Side
    use_case: Side
    unknown_text: str = ""

    @property
    def complete(self) -> bool:
        """Both a segment and a use case were resolved."""
        return self.segment.chosen is not None and self.use_case.chosen is not None


def _side(typed: str, options: Sequence[Option]) -> Side:
    if not typed:
        return Side(choices=tuple(options))
    found = match_options(typed, options)
    if len(found) == 1:
        return Side(chosen=found[0], typed=typed)
    return Side(choices=tuple(found), typed=typed)


def _score(segment: Side, use_case: Side) -> tuple[int, int, int]:
    """Higher is better: fewer unknown sides, more chosen sides, fewer choices left."""
    unknown = int(segment.unknown) + int(use_case.unknown)
    chosen = int(segment.chosen is not None) + int(use_case.chosen is not None)
    left = len(segment.choices) + len(use_case.choices)
    return (-unknown, chosen, -left)


def resolve_pair(
    words: Sequence[str], *, segments: Sequence[Option], use_cases: Sequence[Option]
) -> Resolution:
    """The segment and use case ``words`` name, trying every split point.

    Returns the best reading: both chosen when some split names each uniquely; otherwise the
    sides it could choose, with the options to offer for the others. If some words match
    nothing at any split, ``unknown_text`` holds them all and both sides offer every option.
    """
    best: tuple[tuple[int, int, int], Side, Side] | None = None
    for cut in range(len(words) + 1):
        segment = _side(" ".join(words[:cut]), segments)
        use_case = _side(" ".join(words[cut:]), use_cases)
        score = _score(segment, use_case)
        if best is None or score > best[0]:
            best = (score, segment, use_case)
    assert best is not None
    _, segment, use_case = best
    if segment.unknown or use_case.unknown:
        return Resolution(
            segment=Side(choices=tuple(segments)),
            use_case=Side(choices=tuple(use_cases)),
            unknown_text=" ".join(words),
        )
    return Resolution(segment=segment, use_case=use_case)
