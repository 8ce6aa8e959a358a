"""How a background job reports its failure: a bug or an outage with its traceback, but a call
refused because the app is stopping as one quiet line. That refusal is the graceful stop doing
its job (the work stays recorded for the next start or another replica), not an error an
operator should be paged for."""

from __future__ import annotations

import logging
import sys

from suggestbot.slack import Closed


def log_failure(log: logging.Logger, message: str, *args: object) -> None:
    """Log the exception being handled: with its traceback at ERROR, or at INFO (and no
    traceback) when it is only the stop refusing a Slack call."""
    exc = sys.exc_info()[1]
    if isinstance(exc, Closed):
        log.info(message + " (%s; it is left for the next start)", *args, exc)
    else:
        log.exception(message, *args)
