"""The workspace's content locale: configured, and checked against what the service returns.

The service keeps one locale per tenant and matches ``locale`` exactly on ``GET
/v1/inspiration``, so a wrong setting reads as "nothing here" forever. Every set the service
returns carries its locale; the app remembers the last one seen. When it differs from the
configured one, that is reported (a warning in the log, once per learned value, and a note in
the answers it explains), never guessed around by reading in another locale.
"""

from __future__ import annotations

import logging

from suggestbot.contentapi import ContentApiError
from suggestbot.flows.common.deps import Deps
from suggestbot.store.records import CONTENT_LOCALE_KEY, LocaleState

log = logging.getLogger(__name__)


def _state(deps: Deps) -> LocaleState:
    return deps.records.workspace.get(CONTENT_LOCALE_KEY) or LocaleState()


def learn(deps: Deps, locale: str) -> None:
    """Remember the locale of a set the service returned; report a mismatch once per value."""
    now = deps.clock()
    report: list[bool] = [False]

    def change(state: LocaleState | None) -> LocaleState:
        state = state or LocaleState()
        mismatch = locale != deps.content_locale
        report[0] = mismatch and state.reported != locale
        return state.model_copy(
            update={
                "learned": locale,
                "learned_at": now,
                "reported": locale if mismatch else None,
            }
        )

    deps.records.workspace.upsert(CONTENT_LOCALE_KEY, change)
    if report[0]:
        log.warning(
            "content locale mismatch: the workspace is configured for %r but the service "
            "returned content in %r; set CONTENT_LOCALE=%s (ready-made content stays empty "
            "until then)",
            deps.content_locale,
            locale,
            locale,
        )


def mismatch(deps: Deps) -> str | None:
    """The locale the service holds content in, when it is not the configured one."""
    learned = _state(deps).learned
    return learned if learned and learned != deps.content_locale else None


def probe(deps: Deps) -> str | None:
    """Look at the tenant's newest suggestion set to learn its locale (one small read).

    Used when ready-made content comes back empty, to tell "nothing yet" from "wrong locale".
    Returns the mismatching locale, if any.
    """
    try:
        page = deps.content.list_suggestion_sets_page(limit=1)
    except ContentApiError as exc:
        log.info("could not read a suggestion set to check the content locale (%s)", exc)
        return mismatch(deps)
    if page.items:
        learn(deps, page.items[0].locale)
    return mismatch(deps)
