"""Global middleware: a modal whose typed text is not valid text stays open with a clear error.

Control characters and lone surrogates (``"\\ud800"`` arrives through the JSON escapes of a
``view_submission``) are refused by the service as ``input_invalid_encoding``; a lone surrogate
cannot even be encoded, so storing or sending it fails inside the store or the HTTP client.
Checking every modal's typed inputs here, before any listener stores or sends them, gives the
same sentence for every modal (brief, connect, refine, rename, draft, digest, settings) and
keeps the modal open with what the user typed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltResponse

from suggestbot.contentapi import is_invalid_text
from suggestbot.flows.common.deps import Deps
from suggestbot.ui import field_errors
from suggestbot.ui.payloads import submitted_view, view_values


def invalid_inputs(view: dict[str, Any]) -> list[str]:
    """Block ids of ``view``'s submitted inputs whose typed text is not valid text."""
    return [
        block_id
        for block_id, value in view_values(view).items()
        if isinstance(value, str) and is_invalid_text(value)
    ]


def register(app: App, deps: Deps) -> None:
    @app.middleware
    def refuse_invalid_text(body: dict[str, Any], next: Callable[[], None]) -> BoltResponse | None:
        view = submitted_view(body)
        blocks = invalid_inputs(view) if view is not None else []
        if not blocks:
            next()
            return None
        user = body.get("user") or {}
        lang = deps.lang_of(str(user.get("id") or "")) if isinstance(user, dict) else "en"
        errors = field_errors.invalid_text(block_ids=blocks, lang=lang)
        answer = {"response_action": "errors", "errors": errors}
        return BoltResponse(
            status=200, body=json.dumps(answer), headers={"content-type": "application/json"}
        )
