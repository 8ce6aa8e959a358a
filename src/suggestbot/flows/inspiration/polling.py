"""After "Generate now": poll ``GET /v1/inspiration`` until the new set appears, then post it.

``POST /v1/inspiration`` answers 202 with no run id, so the only signal is the read itself:
data where there was none, or a version newer than the one known when asking. Watches are
store records (a restart loses none); :func:`poll_watches` looks at the due ones and reads each
(segment, use case, locale) once per look, however many people are waiting for it. Polls follow
the contract's schedule (10 s, then 30 s, then 60 s, slower after, until a cap).
:mod:`suggestbot.jobs.inspiration_watch` says how often to look.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from suggestbot.contentapi import ContentApiError
from suggestbot.contentapi.polling import next_poll_delay
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration import showing as inspiration
from suggestbot.flows.inspiration.showing import Pair
from suggestbot.installations.scope import team_scope
from suggestbot.store.offers import Watch

log = logging.getLogger(__name__)


def _is_new(watch: Watch, version: int | None) -> bool:
    if watch.known_version is None:
        return True
    return version is not None and version > watch.known_version


def poll_watches(deps: Deps, *, now: float | None = None) -> int:
    """Poll every due watch once; returns how many were delivered."""
    now = deps.clock() if now is None else now
    table = deps.records.watches
    groups: dict[tuple[str, str, str, str], list[Watch]] = {}
    for watch in table.matching(at_most={"next_poll_at": now}):
        key = (watch.team_id, watch.segment_id, watch.use_case_id, watch.locale)
        groups.setdefault(key, []).append(watch)
    delivered = 0
    for group in groups.values():
        # Each workspace reads its own tenant and posts with its own bot token.
        with team_scope(group[0].team_id):
            delivered += _poll_group(deps, group, now)
    return delivered


def _poll_group(deps: Deps, group: list[Watch], now: float) -> int:
    table = deps.records.watches
    first = group[0]
    segment_id, use_case_id, locale = first.segment_id, first.use_case_id, first.locale
    pair = Pair(segment_id, first.segment_name, use_case_id, first.use_case_name)
    try:
        sets = deps.content.get_inspiration(
            segment_id=segment_id, use_case_id=use_case_id, locale=locale
        )
    except ContentApiError as exc:
        log.warning("polling ready-made content failed (%s); polling again later", exc)
        _again(deps, group, now)
        return 0
    delivered = 0
    version = sets[0].version if sets else None
    ready = [w for w in group if sets and _is_new(w, version)]
    waiting = [w for w in group if w not in ready]
    if ready:
        try:
            found = inspiration.read_newest(deps, pair, asset_urls=True)
        except ContentApiError as exc:
            log.warning("reading generated content failed (%s); polling again later", exc)
            found = None
        if found is None:
            waiting += ready
        else:
            for watch in ready:
                try:
                    inspiration.deliver_watch(deps, watch, found)
                    delivered += 1
                except Exception:
                    log.exception("could not post generated content to %s", watch.user_id)
                table.delete(watch.id)
    _again(deps, waiting, now)
    return delivered


def _due_at(at: float) -> Callable[[Watch], Watch]:
    return lambda w: w.model_copy(update={"next_poll_at": at})


def _again(deps: Deps, group: list[Watch], now: float) -> None:
    table = deps.records.watches
    for watch in group:
        delay = next_poll_delay((now - watch.started_at) / deps.poll_scale)
        if delay is None:
            table.delete(watch.id)
            inspiration.watch_expired(deps, watch)
            continue
        table.update(watch.id, _due_at(now + delay * deps.poll_scale))
