"""What the Workflow Builder step says when it cannot complete: Slack shows it, as plain text,
to the person who ran the workflow."""

from __future__ import annotations

import re

from suggestbot.ui import failures
from suggestbot.ui.messages import t

# Slack shows a step's error as it is: mrkdwn marks and emoji codes would show as typed.
_MARKS = re.compile(r"[*_`]|:[a-z0-9_+-]+:")


def plain(text: str) -> str:
    return " ".join(_MARKS.sub("", text).split())


def run_failed(*, lang: str, code: str, detail: str | None = None) -> str:
    """A run that failed, in plain words (what happened and what to do)."""
    return plain(t("step.failed", lang, reason=failures.reason(code, lang, detail=detail)))


def needs_connect(*, lang: str, user: str) -> str:
    return plain(t("step.not_connected", lang, user=user))


def bad_input(*, lang: str, key: str, **values: object) -> str:
    """An input the step cannot send (``key`` names the sentence under ``step.``)."""
    return plain(t(f"step.{key}", lang, **values))
