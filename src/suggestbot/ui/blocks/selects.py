"""Static selects of the tenant's segments and use cases (and other short lists), one builder.

The brief modal, the draft modal, a new digest's modal and the composer's choices all offer the
catalogue the same way: at most :data:`SELECT_OPTIONS_MAX` options (Slack's limit), each label
cut to :data:`OPTION_TEXT_MAX` characters (Slack's limit), the current choice selected when it
is still offered.
"""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import InputBlock, Option, StaticSelectElement

from suggestbot.ui.messages import t

SELECT_OPTIONS_MAX = 100
OPTION_TEXT_MAX = 75


def option(value: str, label: str, *, ellipsis: bool = False) -> Option:
    """One option; a long ``label`` is cut to Slack's limit (ending in "…" with ``ellipsis``)."""
    if len(label) > OPTION_TEXT_MAX and ellipsis:
        label = label[: OPTION_TEXT_MAX - 1] + "…"
    return Option(value=value, text=label[:OPTION_TEXT_MAX])


def options(pairs: Sequence[tuple[str, str]], *, ellipsis: bool = False) -> list[Option]:
    """``(value, label)`` pairs as options, at most Slack's 100."""
    return [option(v, label, ellipsis=ellipsis) for v, label in pairs[:SELECT_OPTIONS_MAX]]


def select(
    *,
    action_id: str,
    pairs: Sequence[tuple[str, str]],
    selected: str | None = None,
    placeholder: str | None = None,
    ellipsis: bool = False,
) -> StaticSelectElement:
    """A static select of ``pairs`` (``(id, name)``, e.g. the catalogue's segments).

    Args:
        action_id: the element's action id (the block's, in a modal's input).
        pairs: ``(value, label)`` in the order shown.
        selected: the value chosen already; selected when it is among the options.
        placeholder: shown while nothing is selected.
        ellipsis: a cut label ends in "…".
    """
    offered = options(pairs, ellipsis=ellipsis)
    return StaticSelectElement(
        action_id=action_id,
        placeholder=placeholder,
        options=offered,
        initial_option=next((o for o in offered if o.value == selected), None),
    )


def catalogue_inputs(
    *,
    lang: str,
    segments: Sequence[tuple[str, str]],
    use_cases: Sequence[tuple[str, str]],
    block_ids: tuple[str, str],
    selected: tuple[str | None, str | None] = (None, None),
) -> list[InputBlock]:
    """A modal's "Segment" and "Use case" inputs (block id = action id), in that order.

    Args:
        lang: the language of the labels.
        segments: the catalogue's ``(id, name)`` segments.
        use_cases: its ``(id, name)`` use cases.
        block_ids: the two inputs' block (and action) ids.
        selected: the segment and use case chosen already, if any.
    """
    return [
        InputBlock(
            block_id=block_id,
            label=t(label, lang),
            element=select(action_id=block_id, pairs=pairs, selected=chosen),
        )
        for block_id, label, pairs, chosen in zip(
            block_ids,
            ("brief.segment", "brief.use_case"),
            (segments, use_cases),
            selected,
            strict=True,
        )
    ]
