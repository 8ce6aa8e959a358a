"""The app's Messages tab as a composer: its suggested prompts, and the choices a brief
written there offers on its root (segment, use case, number of variants), each one click.

A suggested prompt is a brief template that names its segment and use case up front
(:func:`~suggestbot.ui.replies.choice_header`), so picking it sends to those choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import ActionsBlock, ContextBlock
from slack_sdk.models.blocks.basic_components import MarkdownTextObject

from suggestbot.store.records import ComposerChoices
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Button, Message
from suggestbot.ui.blocks.selects import select
from suggestbot.ui.messages import t, tn
from suggestbot.ui.replies import choice_header

# Slack shows at most four suggested prompts.
MAX_PROMPTS = 4
# A prompt's title is a short label on a button-like chip.
PROMPT_TITLE_MAX = 75
VARIANT_CHOICES = (1, 2, 3)


@dataclass(frozen=True)
class SuggestedPrompts:
    """What ``assistant.threads.setSuggestedPrompts`` is given."""

    title: str
    prompts: list[dict[str, str]]


def build_suggested_prompts(
    *, lang: str, segments: Sequence[tuple[str, str]], use_cases: Sequence[tuple[str, str]]
) -> SuggestedPrompts | None:
    """Up to four brief templates, each for another segment and use case of the workspace
    (pairing them in turn), in ``lang``; None when the workspace has none to offer."""
    if not segments or not use_cases:
        return None
    count = min(MAX_PROMPTS, max(len(segments), len(use_cases)))
    prompts = []
    for n in range(count):
        segment = segments[n % len(segments)][1]
        use_case = use_cases[n % len(use_cases)][1]
        title = t("composer.prompt_title", lang, segment=segment, use_case=use_case)
        idea = t(f"composer.idea_{n + 1}", lang)
        message = choice_header(segment=segment, use_case=use_case) + idea
        prompts.append({"title": _clip(title, PROMPT_TITLE_MAX), "message": message})
    return SuggestedPrompts(title=t("composer.prompts_title", lang), prompts=prompts)


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def choices_block_id(request_id: str) -> str:
    """The block of a root's choices names the brief they would send again."""
    return f"{ids.BLOCK_COMPOSER_CHOICES}:{request_id}"


def request_of_choices_block(block_id: str) -> str | None:
    prefix = ids.BLOCK_COMPOSER_CHOICES + ":"
    return block_id.removeprefix(prefix) if block_id.startswith(prefix) else None


def build_choice_blocks(
    *,
    lang: str,
    request_id: str,
    choices: ComposerChoices,
    segment_id: str,
    use_case_id: str,
    variants: int,
) -> list[dict[str, Any]]:
    """A line saying what the selects do, and the three selects, set to the brief's choices.

    Picking another value sends the brief again with it and keeps it for the next briefs."""
    counts = [(str(n), tn("composer.variant_option", lang, count=n)) for n in VARIANT_CHOICES]
    selects = (
        (ids.ACTION_COMPOSER_SEGMENT, "brief.segment", choices.segments, segment_id),
        (ids.ACTION_COMPOSER_USE_CASE, "brief.use_case", choices.use_cases, use_case_id),
        (ids.ACTION_COMPOSER_VARIANTS, "brief.variants", counts, str(variants)),
    )
    elements = [
        select(action_id=a, placeholder=t(key, lang), pairs=p, selected=s, ellipsis=True)
        for a, key, p, s in selects
    ]
    blocks = [
        ContextBlock(
            block_id="composer-hint",
            elements=[MarkdownTextObject(text=t("composer.choices_hint", lang))],
        ),
        ActionsBlock(block_id=choices_block_id(request_id), elements=elements),
    ]
    return [b.to_dict() for b in blocks]


def build_choice_kept(*, lang: str, segment: str, use_case: str, variants: int) -> Message:
    """Said to the author after a pick: the brief goes again, and the choice is kept."""
    return Message(
        text=tn(
            "composer.choice_kept",
            lang,
            segment=segment,
            use_case=use_case,
            count=variants,
        ),
        blocks=[],
    )


def build_kept_for_later(*, lang: str, held_id: str) -> Message:
    """The service could not be asked for the workspace's choices: the brief is kept, and
    [Resend] opens it in the brief modal."""
    return build_notice(
        lang=lang,
        text=t("composer.kept", lang),
        buttons=[Button("button.resend", ids.ACTION_RESEND, held_id, "primary")],
    )


def build_not_your_composer(*, lang: str) -> Message:
    """Someone other than the author picked new choices for a brief."""
    return build_notice(lang=lang, text=t("composer.not_yours", lang))
