"""A brief from the moment it is typed until it is sent: record it, then post its root and send.

Recording comes first and alone (before the ack), so a crash cannot lose a brief; from then on
it is a run request like any other and :mod:`.requests` carries it (its lifecycle, the retries
and the recovery at start).
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import SteeredGenerationRequest
from suggestbot.flows.common import requests, slackio, usage
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.requests import REUSED_LABEL
from suggestbot.store.records import ComposerChoices, Request

log = logging.getLogger(__name__)

__all__ = ["REUSED_LABEL", "launch", "record", "start", "steered_request"]

# When Slack refused a root past its own retries: try again this much later (then backing off).
ROOT_RETRY_S = 30.0


def steered_request(
    *, segment_id: str, use_case_id: str, text: str, variants: int
) -> SteeredGenerationRequest:
    """The ``steered_generation`` run request of a brief."""
    return SteeredGenerationRequest(
        segment_id=segment_id,
        use_case_id=use_case_id,
        steering_text=text,
        variant_count=variants,
    )


def start(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel_id: str,
    run_request: SteeredGenerationRequest,
    labels: dict[str, str],
    response_url: str | None = None,
) -> Request:
    """Record a new brief, post its root message, and send it to the service.

    Args:
        labels: names of the segment and use case, for display.
    """
    req = record(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        run_request=run_request,
        labels=labels,
    )
    return launch(deps, req.id, response_url=response_url) or req


def record(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel_id: str,
    run_request: SteeredGenerationRequest,
    labels: dict[str, str],
    request_id: str | None = None,
    composer: ComposerChoices | None = None,
) -> Request:
    """:func:`record_new`, or the brief already recorded under ``request_id``."""
    req = record_new(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        run_request=run_request,
        labels=labels,
        request_id=request_id,
        composer=composer,
    )
    if req is not None:
        return req
    assert request_id is not None
    unsaved = _new_request(deps, team_id, user_id, channel_id, run_request, labels, composer)
    return deps.records.requests.get(request_id) or unsaved.model_copy(update={"id": request_id})


def record_new(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel_id: str,
    run_request: SteeredGenerationRequest,
    labels: dict[str, str],
    request_id: str | None = None,
    composer: ComposerChoices | None = None,
) -> Request | None:
    """Write a new brief to the store; None when ``request_id`` was recorded before. From then
    on a crash cannot lose it (recovery posts its root and sends it), so listeners call this
    before they ack and :func:`launch` after.

    No Slack call here (it would delay the ack): the language is the one already known, else
    English until the root is posted.

    Args:
        request_id: the id to record it under (an interaction carried out again after a
            crash finds the brief its first attempt recorded, and records nothing more).
        composer: written in the Messages tab: the choices its root offers again.
    """
    req = _new_request(deps, team_id, user_id, channel_id, run_request, labels, composer)
    if request_id is not None:
        req = req.model_copy(update={"id": request_id})
    # The brief and its held send in one write (before the ack, the only one it waits for):
    # both are there, or (the store went away) neither, and the listener hands the text back
    # to send again. A replica that dies from here until its run is recorded leaves a send
    # another one takes over (ended by :func:`launch`).
    if not deps.timers.record_held_send(deps.records.requests, req):
        return None
    # Counted once per new record: a replayed delivery finds its record and returns above.
    _count_after(deps, team_id=team_id)
    return req


def _new_request(
    deps: Deps,
    team_id: str,
    user_id: str,
    channel_id: str,
    run_request: SteeredGenerationRequest,
    labels: dict[str, str],
    composer: ComposerChoices | None,
) -> Request:
    return Request(
        team_id=team_id,
        user_id=user_id,
        lang=deps.known_lang(user_id) or "en",
        channel_id=channel_id,
        body=requests.wire_body(run_request),
        labels=labels,
        composer=composer,
    )


def _count_after(deps: Deps, *, team_id: str) -> None:
    """Count a recorded brief on the background pool, not before the ack that waits for
    :func:`record` (one write fewer there; on PostgreSQL two round trips). A process killed
    before the pool ran it leaves that brief uncounted, as one killed between the two writes
    always did."""

    def count() -> None:
        try:
            usage.count(deps, team_id=team_id, briefs=1)
        except Exception:
            log.exception("could not count a brief in the usage figures")

    if deps.background is None:
        count()
    else:
        deps.background.submit(count)


def launch(deps: Deps, request_id: str, *, response_url: str | None = None) -> Request | None:
    """Post the root message of a recorded brief and send it. When Slack is down past its
    retries, the send timer does both later (and keeps trying): a recorded brief is not left
    behind until the next restart."""
    try:
        try:
            requests.post_root(deps, request_id, response_url=response_url)
        except (SlackApiError, OSError) as exc:
            if not slackio.unavailable(exc):
                raise
            log.warning("request %s: Slack is unavailable; posting its root later", request_id)
            deps.timers.send_later(request_id, at=deps.clock() + ROOT_RETRY_S * deps.poll_scale)
            return deps.records.requests.get(request_id)
        requests.submit(deps, request_id, root_says_sending=True)
    finally:
        deps.timers.end_send(request_id)
    return deps.records.requests.get(request_id)
