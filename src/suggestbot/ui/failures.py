"""What the user reads, and which buttons they get, when a request fails — by failure code.

The flows record a failure's code (the service's, or one of the app's own below); what that
code means to the user is decided here alone. Retry is offered only where sending the same
request again can help (contract §7).
"""

from __future__ import annotations

from collections.abc import Sequence

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.results import Button
from suggestbot.ui.messages import has_key, t

# Codes the app itself records, next to the service's codes.
SERVICE_UNAVAILABLE = "service_unavailable"
UNCERTAIN = "uncertain"
INTERNAL = "internal"
NOT_FOUND = "not_found"
WATCH_EXPIRED = "watch_expired"

_RETRY = "retry"
_EDIT = "edit"
_WITHOUT_IMAGE = "without_image"
_REFINE_HEAD = "refine_head"
_CHECK_AGAIN = "check_again"

_ACTIONS_BY_CODE: dict[str, tuple[str, ...]] = {
    "generation_failed": (_RETRY,),
    "generation_timeout": (_RETRY, _EDIT),
    "steering_disabled": (),
    "output_rejected": (_EDIT,),
    "invalid_parent": (_REFINE_HEAD,),
    "image_not_applicable": (_WITHOUT_IMAGE,),
    "input_too_long": (_EDIT,),
    "input_rejected": (_EDIT,),
    "input_invalid_encoding": (_EDIT,),
    "validation_error": (_EDIT,),
    NOT_FOUND: (_EDIT,),
    SERVICE_UNAVAILABLE: (_RETRY,),
    UNCERTAIN: (_RETRY,),
    INTERNAL: (_RETRY,),
    WATCH_EXPIRED: (_CHECK_AGAIN,),
}
_SYNC_INPUT_CODES = frozenset(
    {"input_too_long", "input_rejected", "input_invalid_encoding", "validation_error"}
)


def reason(code: str, lang: str, *, detail: str | None = None, is_brief: bool = True) -> str:
    """One sentence (after "failed:") saying what happened and what to do, in plain words:
    an input code is told in terms of what the user sent (a brief, or a reply's instruction),
    and a code this app does not know reads as a sentence (its code goes in :func:`fine_print`).
    """
    if code in _SYNC_INPUT_CODES:
        return t(f"fail.{'brief' if is_brief else 'instruction'}.{code}", lang)
    if code == NOT_FOUND:
        return t("error.not_found", lang)
    if code == INTERNAL:
        return t("fail.internal", lang, ref=detail or "-")
    key = {
        SERVICE_UNAVAILABLE: "fail.service_unavailable",
        UNCERTAIN: "fail.uncertain",
        WATCH_EXPIRED: "fail.watch_expired",
    }.get(code, f"fail.{code}")
    return t(key if has_key(key) else "fail.unknown", lang)


def fine_print(code: str, lang: str) -> str | None:
    """The code of a failure this app cannot explain, in small print for support; else None."""
    if code in _ACTIONS_BY_CODE:
        return None
    return t("fail.support_code", lang, code=code)


def buttons(code: str, *, request_id: str, is_brief: bool) -> Sequence[Button]:
    """The buttons that can help after failure ``code`` (none where nothing can)."""
    actions = _ACTIONS_BY_CODE.get(code, (_RETRY,))
    made: list[Button] = []
    for action in actions:
        if action == _RETRY:
            made.append(Button("button.retry", ids.ACTION_RETRY, request_id, "primary"))
        elif action == _EDIT and is_brief:
            made.append(Button("button.edit_resend", ids.ACTION_EDIT_RESEND, request_id))
        elif action == _WITHOUT_IMAGE:
            made.append(
                Button("button.resend_without_image", ids.ACTION_RESEND_WITHOUT_IMAGE, request_id)
            )
        elif action == _CHECK_AGAIN:
            made.append(Button("button.check_again", ids.ACTION_CHECK_AGAIN, request_id))
        elif action == _REFINE_HEAD:
            made.append(Button("button.refine_head", ids.ACTION_REFINE_HEAD, request_id))
    return made
