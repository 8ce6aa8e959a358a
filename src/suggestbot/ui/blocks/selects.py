"""Static selects of the tenant's segments and use cases (and other short lists), one builder.

The brief modal, the draft modal, a new digest's modal and the composer's choices all offer the
catalogue the same way: at most :data:`SELECT_OPTIONS_MAX` options (Slack's limit), each label
cut to :data:`OPTION_TEXT_MAX` characters (Slack's limit), the current choice selected when it
is still offered.
"""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import Option, StaticSelectElement

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
