"""The sentences a modal shows next to its fields (``response_action: errors``), by block id.

A submission answered with these keeps the modal open with what the person typed; the checks
are made at the Slack edge, the wording is here.
"""

from __future__ import annotations

from collections.abc import Iterable

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.text import cut
from suggestbot.ui.messages import t

# The brief and a thread name keep the wording their own checks give for control characters;
# every other input gets the general one.
_INVALID_TEXT = {
    ids.INPUT_BRIEF: "brief.input_invalid_encoding",
    ids.INPUT_THREAD_NAME: "rename.thread_name_not_plain_text",
}


def invalid_text(*, block_ids: Iterable[str], lang: str) -> dict[str, str]:
    """Inputs whose typed text holds control characters or broken characters."""
    return {b: t(_INVALID_TEXT.get(b, "input.invalid_encoding"), lang) for b in block_ids}


def connect_token(*, problem: str, lang: str) -> dict[str, str]:
    """The connect modal's token was ``empty``, ``rejected`` or the check was ``unreachable``."""
    return {ids.INPUT_TOKEN: t(f"connect.{problem}", lang)}


def thread_name(*, code: str, lang: str) -> dict[str, str]:
    """The rename modal's name would be refused (``contentapi.checks.check_thread_name``'s code:
    ``thread_name_empty``, ``thread_name_too_long``, ``thread_name_not_plain_text``)."""
    return {ids.INPUT_THREAD_NAME: t(f"rename.{code}", lang)}


def brief_problem(*, code: str | None, length: int, lang: str) -> str:
    """The sentence for a brief the service would refuse (``contentapi.checks.check_brief``'s
    code), also said when a brief too long for the modal is handed back."""
    return t(f"brief.{code or 'input_rejected'}", lang, count=length)


def brief_missing_choice(*, block_ids: Iterable[str], lang: str) -> dict[str, str]:
    """The brief modal was sent without a segment or a use case."""
    return dict.fromkeys(block_ids, t("brief.missing_choice", lang))


def brief_variants(*, most: int, lang: str) -> dict[str, str]:
    """The brief modal came back with a variant count the service would refuse (a forged or
    stale form: the modal only offers 1 to ``most``)."""
    return {ids.INPUT_VARIANTS: t("brief.variants_out_of_range", lang, most=most)}


def refine_empty(*, lang: str) -> dict[str, str]:
    """The refine modal was sent without an instruction."""
    return {ids.INPUT_INSTRUCTION: t("refine.empty", lang)}


def draft_missing(*, subject: bool, body: bool, lang: str) -> dict[str, str]:
    """The draft modal was sent without a subject and/or without its text."""
    errors = {}
    if subject:
        errors[ids.INPUT_DRAFT_SUBJECT] = t("draft.empty_subject", lang)
    if body:
        errors[ids.INPUT_DRAFT_BODY] = t("draft.empty_body", lang)
    return errors


def digest_form(
    *,
    lang: str,
    bad_time: bool,
    bad_tz: str | None,
    no_weekdays: bool,
    no_segment: bool,
    no_use_case: bool,
) -> dict[str, str]:
    """The "add digest" modal's mistakes (``bad_tz``: the zone as typed, when unknown)."""
    errors: dict[str, str] = {}
    if bad_time:
        errors[ids.INPUT_DIGEST_TIME] = t("digest.bad_time", lang)
    if bad_tz is not None:
        errors[ids.INPUT_DIGEST_TZ] = t("digest.bad_tz", lang, tz=cut(bad_tz))
    if no_weekdays:
        errors[ids.INPUT_DIGEST_WEEKDAYS] = t("digest.no_weekdays", lang)
    if no_segment:
        errors[ids.INPUT_DIGEST_SEGMENT] = t("digest.choose", lang)
    if no_use_case:
        errors[ids.INPUT_DIGEST_USE_CASE] = t("digest.choose", lang)
    return errors
