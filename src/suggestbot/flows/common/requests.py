"""A run request's lifecycle, the same for a brief and a refinement: post its root, send it,
show where it is, fail it, send it again.

A request is recorded by its feature (:mod:`.brief`, :mod:`.refine`) and from then on moves
here. Every step is written to the store before the next one starts, so a crash at any point
is resumed (the jobs call :func:`post_root` and :func:`submit` at start) without losing or
duplicating anything. Its state is shown as a value (:func:`status_of`); the words for it
come from ``ui.blocks.requests``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from pydantic import TypeAdapter
from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import (
    ContentApiError,
    GenerationRun,
    GenerationRunRequest,
    ImageNotApplicable,
    InputInvalidEncoding,
    InputRejected,
    InputTooLong,
    NotFound,
    RateLimited,
    RefinementRequest,
    RunCreationUncertain,
    ServerError,
    SteeredGenerationRequest,
    SteeringDisabled,
    Timeout,
    TransportError,
    UserTokenRejected,
    ValidationFailed,
)
from suggestbot.contentapi.polling import next_poll_delay
from suggestbot.flows.common import live_status, slackio, telling, workspace_language
from suggestbot.flows.common.channel_posts import find_in_channel
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.workspace_language import is_dm
from suggestbot.flows.linking import accounts as linking
from suggestbot.flows.workflow import completion as step_completion
from suggestbot.installations.scope import team_scope
from suggestbot.slack import Closed, Dropped, Priority, priority
from suggestbot.store import VaultError
from suggestbot.store.records import ACTIVE_STATES, Failure, LinkedUser, Request, user_key
from suggestbot.ui import failures, steps
from suggestbot.ui.blocks.requests import (
    BriefShown,
    ConnectReason,
    Phase,
    RequestStatus,
    build_brief_root,
    build_connect_prompt,
    build_dm_intro,
    build_not_in_channel,
    build_refinement_reply,
)
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)

RunRequest = SteeredGenerationRequest | RefinementRequest
_RUN_REQUEST: TypeAdapter[RunRequest] = TypeAdapter(GenerationRunRequest)
_INPUT_ERRORS = (InputTooLong, InputRejected, InputInvalidEncoding, ValidationFailed)
_UNAVAILABLE = (TransportError, Timeout)
_MAYBE_ACCEPTED = frozenset({502, 504})
# How far back a run may have been created for recovery to adopt it as this request's run.
ADOPT_WINDOW_S = 15 * 60
# How long a Retry pressed on a failure that is shown but not yet recorded waits for it.
FAILURE_RECORDING_WAIT_S = 5.0
# Set in a quick brief's labels: it was sent with the author's remembered choices.
REUSED_LABEL = "reused"
# Set in a brief made from a message (the message shortcut): that message's permalink.
SOURCE_LABEL = "source_link"


# ---------------------------------------------------------------- what is sent


def wire_body(run_request: RunRequest) -> dict[str, Any]:
    """How a request keeps what it sends: the run request exactly as it goes on the wire."""
    return run_request.model_dump(mode="json", exclude_none=True)


def run_request_of(req: Request) -> RunRequest:
    """The typed run request a recorded request sends."""
    return _RUN_REQUEST.validate_python(req.body)


# ---------------------------------------------------------------- where it is, and its root


def status_of(req: Request) -> RequestStatus:
    """Where the request is, as its author sees it."""
    phase: Phase
    if req.state in ("new", "sending"):
        phase = Phase.SENDING
    elif req.state == "delayed":
        phase = Phase.DELAYED
    elif req.state == "waiting_user":
        phase = Phase.WAITING_USER
    elif req.state == "submitted" and req.run_status == "running":
        phase = Phase.RUNNING
    elif req.state == "submitted":
        phase = Phase.REQUEUED if req.attempt > 0 else Phase.QUEUED
    elif req.state == "posting":
        phase = Phase.POSTING
    elif req.state == "done":
        phase = Phase.DONE
    else:
        phase = Phase.FAILED
    return RequestStatus(
        kind=req.kind,
        phase=phase,
        author=req.user_id,
        attempt=req.attempt,
        send_after=(req.send_after or time.time()) if phase is Phase.DELAYED else None,
        variants=len(req.variants),
        failure=req.failure if phase is Phase.FAILED else None,
    )


def root_message(req: Request) -> Message:
    """The message that stands for the request: a brief's root in the channel, or a
    refinement's status reply in its Slack thread."""
    status = status_of(req)
    if req.kind == "refinement":
        instruction = str(req.body.get("instruction") or "")
        return build_refinement_reply(
            lang=req.posts_lang, status=status, request_id=req.id, instruction=instruction
        )
    labels = req.labels
    shown = BriefShown(
        text=req.steering_text,
        variants=int(req.body.get("variant_count", 1)),
        segment=labels.get("segment", "?") if labels else None,
        use_case=labels.get("use_case", "?") if labels else None,
        reused=bool(labels.get(REUSED_LABEL)),
        source_link=labels.get(SOURCE_LABEL),
        choices=req.composer,
        segment_id=str(req.body.get("segment_id") or ""),
        use_case_id=str(req.body.get("use_case_id") or ""),
    )
    return build_brief_root(lang=req.posts_lang, status=status, request_id=req.id, brief=shown)


# States a person waits to see (a failure, a question to them): shown at once, first in line.
# The others only tell progress: shown once they have lasted a few seconds, as decoration.
# "delayed" tells when the service will take the brief: an answer the author waits for.
_SHOWN_AT_ONCE = frozenset({"failed", "waiting_user", "delayed", "done"})


def refresh_root(deps: Deps, req: Request) -> None:
    """Show the request's current state in its root message and in its thread's status line
    (best effort: Slack may fail). Progress is coalesced: a root has at most one update
    pending, the newest state replacing an older one not yet shown."""
    if not (req.post_channel_id and req.root_ts):
        return
    channel, ts = req.post_channel_id, req.root_ts

    def show(*, progress: bool) -> None:
        try:
            slackio.update(deps, channel=channel, ts=ts, message=root_message(req))
        except Dropped:
            raise
        except Closed:
            log.info("the root of request %s was not updated: the app is stopping", req.id)
        except Exception:
            log.exception("could not update the root message of request %s", req.id)
        live_status.show(deps, req=req, status=status_of(req), progress=progress)

    outbound = deps.outbound
    if outbound is None:
        show(progress=False)
    elif req.state in _SHOWN_AT_ONCE:
        outbound.roots.now((channel, ts), lambda: show(progress=False))
    else:
        outbound.roots.later((channel, ts), lambda: _as_progress(lambda: show(progress=True)))


def _as_progress(send: Callable[[], None]) -> None:
    with priority(Priority.PROGRESS):
        send()


class Renewed(NamedTuple):
    """What a renewal of status lines reached."""

    lines: int  # lines shown again (or found still fresh)
    finished: bool  # False: it stopped at its deadline with requests left


def renew_statuses(
    deps: Deps, *, until: float | None = None, clock: Callable[[], float] = time.time
) -> Renewed:
    """Set the status line of every request still working again, before Slack lets it lapse,
    the longest-working first; stop once ``clock()`` reaches ``until``. A line this process
    set less than 50 s ago (``STATUS_RENEW_S``) is left as it is, so a renewal that goes on
    after a stop reaches the lines it did not."""
    renewed = 0
    working = sorted(deps.records.requests.where("state", ACTIVE_STATES), key=_age_order)
    for req in working:
        if until is not None and clock() >= until:
            return Renewed(renewed, finished=False)
        if live_status.thread_of(req) is None:
            continue
        with team_scope(req.team_id):
            live_status.show(deps, req=req, status=status_of(req))
        renewed += 1
    return Renewed(renewed, finished=True)


def _age_order(req: Request) -> tuple[float, str]:
    return req.created_at, req.id


def post_root(deps: Deps, request_id: str, *, response_url: str | None = None) -> None:
    """Post the root message once; where the bot cannot post, fall back to a DM and say why.

    ``response_url`` (from the slash command, kept in memory only) reaches the user even in a
    channel the bot is not in.
    """
    req = deps.records.requests.get(request_id)
    if req is None or req.root_ts:
        return
    channel = req.channel_id
    metadata = {"request_id": req.id, "role": "root"}
    found = _find_root(deps, req)
    if found:
        channel, ts = found
    else:
        # Where it is about to be posted, written first: after a crash before its ``ts`` is
        # recorded, recovery looks for it there instead of posting a second root. The user's
        # language is settled now too (recording it could not ask Slack before the ack).
        settled = {
            "lang": deps.lang_of(req.user_id),
            "channel_lang": None if is_dm(channel) else workspace_language.of(deps, req.team_id),
        }
        _set(deps, request_id, post_channel_id=channel, **settled)
        req = req.model_copy(update=settled)
        try:
            ts = slackio.post(
                deps,
                channel=channel,
                message=root_message(req),
                metadata=metadata,
                thread_ts=req.thread_ts,
            )
        except SlackApiError as exc:
            if slackio.slack_error(exc) not in slackio.UNREACHABLE_CHANNEL:
                raise
            channel, ts = _post_root_in_dm(deps, req, metadata, response_url=response_url)

    def set_root(r: Request) -> Request:
        return r.model_copy(update={"post_channel_id": channel, "root_ts": ts})

    posted = deps.records.requests.update(request_id, set_root)
    if posted is not None:
        live_status.show(deps, req=posted, status=status_of(posted))


def _post_root_in_dm(
    deps: Deps, req: Request, metadata: dict[str, Any], *, response_url: str | None
) -> tuple[str, str]:
    """The channel would not take the root: post it in a DM, and tell the author why."""
    channel = slackio.open_dm(deps, req.user_id)
    _set(deps, req.id, post_channel_id=channel, channel_lang=None)
    req = req.model_copy(update={"channel_lang": None})
    slackio.post(
        deps, channel=channel, message=build_dm_intro(lang=req.lang, channel=req.channel_id)
    )
    ts = slackio.post(deps, channel=channel, message=root_message(req), metadata=metadata)
    try:
        telling.tell(
            deps,
            user_id=req.user_id,
            channel_id=req.channel_id,
            message=build_not_in_channel(lang=req.lang, channel=req.channel_id),
            response_url=response_url,
        )
    except Exception:
        log.warning("could not tell user %s that the bot is not in the channel", req.user_id)
    return channel, ts


def _find_root(deps: Deps, req: Request) -> tuple[str, str] | None:
    """After a crash between posting the root and recording it: find it by its metadata, in
    the channel since the request was recorded, or in its thread for a refinement's root (a
    reply, which a channel's history does not list)."""
    if not req.post_channel_id:
        return None
    channel = req.post_channel_id

    def mine(payload: dict[str, Any]) -> bool:
        return payload.get("request_id") == req.id and payload.get("role") == "root"

    try:
        if req.thread_ts and channel == req.channel_id:
            ts = slackio.find_posted(deps, channel=channel, thread_ts=req.thread_ts, matches=mine)
        else:
            ts = find_in_channel(deps, channel=channel, since=req.created_at, matches=mine)
    except Exception:
        return None
    return (channel, ts) if ts else None


# ---------------------------------------------------------------- sending


def _set(deps: Deps, request_id: str, **changes: Any) -> Request | None:
    return deps.records.requests.update(request_id, lambda r: r.model_copy(update=changes))


def fail(deps: Deps, request_id: str, code: str, detail: str | None = None) -> None:
    """End the request with failure ``code``; its root says why and offers what can help."""
    failure = Failure(code=code, detail=detail)
    req = deps.records.requests.get(request_id)
    if req is None:
        return
    # Shown before it is recorded: a crash in between leaves the request active, so recovery
    # reaches this end again and shows it; the other order could leave the root without its
    # failure and buttons for good. The failure itself is noted first, so that a Retry pressed
    # as soon as it shows knows to wait for the state (see ``retry``).
    _set(deps, request_id, failure=failure)
    refresh_root(deps, req.model_copy(update={"state": "failed", "failure": failure}))
    step_completion.fail(
        deps, req, message=steps.run_failed(lang=req.lang, code=code, detail=detail)
    )
    _set(deps, request_id, state="failed", failure=failure)
    log.info("request %s failed: %s", request_id, code)


def submit(deps: Deps, request_id: str, *, root_says_sending: bool = False) -> None:
    """Create the request's run with the requesting user's own token.

    ``root_says_sending``: the root was just posted saying "Sending…", so it is not updated to
    the same words again (a retry or a resumed send does update it).

    Each answer of the service lands in a state the user can see and act on: rate limited →
    sent automatically later; token rejected → waiting for a reconnect; bad input or a code that
    retrying cannot fix → failed with the right buttons.
    """
    req = deps.records.requests.get(request_id)
    if req is None or req.state not in ("new", "sending", "delayed"):
        return
    user = linking.working_link(deps, team_id=req.team_id, user_id=req.user_id)
    if user is None:
        _wait_for_user(deps, request_id)
        _ask_to_connect(deps, req, "not_linked")
        return
    try:
        token = deps.vault.decrypt(user.token_enc)
    except VaultError:
        # No configured key fits (the keys changed under this data): like a rejected token,
        # the request waits for a reconnect instead of failing again on every retry.
        log.error("request %s: the stored token of its user cannot be decrypted", request_id)
        _expire_user(deps, req, reason="unreadable")
        _wait_for_user(deps, request_id)
        return
    if req.state == "sending" and _adopt_existing_run(deps, req):
        return
    fresh = root_says_sending and req.state == "new"
    req = _set(deps, request_id, state="sending", sent_at=deps.shared_now(), failure=None)
    assert req is not None
    if not fresh:
        refresh_root(deps, req)
    deps.crash_point("before_create_run")
    try:
        run = deps.content.as_user(token).create_run(request=run_request_of(req))
    except ContentApiError as exc:
        _refused(deps, req, exc)
        return
    deps.crash_point("after_create_run")
    accepted(deps, request_id, run)


def _refused(deps: Deps, req: Request, exc: ContentApiError) -> None:
    """Settle a run creation that did not return a run (see :func:`submit`)."""
    request_id = req.id
    if isinstance(exc, RateLimited):
        send_after = deps.clock() + max(exc.retry_after, 1.0)
        delayed = _set(deps, request_id, state="delayed", send_after=send_after)
        deps.timers.send_later(request_id, at=send_after)
        log.info("request %s rate limited; sending again in %.0f s", request_id, exc.retry_after)
        if delayed:
            refresh_root(deps, delayed)
    elif isinstance(exc, UserTokenRejected):
        _expire_user(deps, req, reason="rejected")
        _wait_for_user(deps, request_id)
    elif isinstance(exc, RunCreationUncertain):
        if not _adopt_existing_run(deps, req):
            fail(deps, request_id, failures.UNCERTAIN)
    elif isinstance(exc, ServerError):
        # A gateway error may have come after the service accepted the run.
        if not (exc.status in _MAYBE_ACCEPTED and _adopt_existing_run(deps, req)):
            fail(deps, request_id, failures.SERVICE_UNAVAILABLE)
    elif isinstance(exc, _INPUT_ERRORS):
        fail(deps, request_id, exc.code or "validation_error")
    elif isinstance(exc, ImageNotApplicable):
        fail(deps, request_id, "image_not_applicable")
    elif isinstance(exc, SteeringDisabled):
        fail(deps, request_id, "steering_disabled")
    elif isinstance(exc, NotFound):
        fail(deps, request_id, failures.NOT_FOUND)
    elif isinstance(exc, _UNAVAILABLE):
        fail(deps, request_id, failures.SERVICE_UNAVAILABLE)
    else:
        fail(deps, request_id, exc.code or f"http_{exc.status}")


def accepted(deps: Deps, request_id: str, run: GenerationRun) -> None:
    """The service has the run: remember it and start watching."""
    req = _set(
        deps,
        request_id,
        state="submitted",
        run_id=run.id,
        run_status=str(run.status),
        attempt=run.attempt_count,
        send_after=None,
    )
    if req is None:
        return
    # Until the first poll is written the held send is the unit another replica takes over if
    # this one dies here. The root says "queued" before any poll can run: a poll that finished
    # the run first would see its "ready" overwritten by this update arriving late (Slack's
    # 429s and 5xx are retried inside the call).
    deps.crash_point("run_recorded")
    refresh_root(deps, req)
    deps.timers.watch_run(request_id, delay_s=first_poll_delay(deps))


def first_poll_delay(deps: Deps) -> float:
    """Seconds before a new run's first poll: the contract's first interval, scaled by
    ``deps.poll_scale`` (tests and the demo shrink it).
    """
    return (next_poll_delay(0.0) or 10.0) * deps.poll_scale


def _adopt_existing_run(deps: Deps, req: Request) -> bool:
    """Find a run this request may already have created (a crash or a broken connection after
    sending), so that it is watched instead of being created twice."""
    user = deps.records.users.get(user_key(req.team_id, req.user_id))
    if user is None or user.state != "linked":
        return False
    try:
        client = deps.content.as_user(deps.vault.decrypt(user.token_enc))
    except VaultError:
        return False
    wanted = wire_body(run_request_of(req))
    since = (req.sent_at or req.created_at) - ADOPT_WINDOW_S
    try:
        for run in client.iter_runs(limit=50):
            if run.created_at.timestamp() < since:
                break
            echoed = wire_body(run.request)
            if all(echoed.get(k) == v for k, v in wanted.items() if k != "image"):
                log.info("request %s: adopting run found after an uncertain send", req.id)
                accepted(deps, req.id, run)
                return True
    except ContentApiError:
        log.warning("request %s: could not list runs to look for an earlier send", req.id)
    return False


# ---------------------------------------------------------------- waiting for the author


def _wait_for_user(deps: Deps, request_id: str) -> None:
    req = _set(deps, request_id, state="waiting_user")
    if req:
        refresh_root(deps, req)
        # A workflow step cannot wait for a person to reconnect: it says what to do instead.
        step_completion.fail(
            deps, req, message=steps.needs_connect(lang=req.lang, user=req.user_id)
        )


def _expire_user(deps: Deps, req: Request, *, reason: Literal["rejected", "unreadable"]) -> None:
    """The service refused the author's token (or it cannot be read): unlink until they
    connect again, and tell them so."""

    def expire(u: LinkedUser) -> LinkedUser:
        return u.model_copy(
            update={"state": "expired", "expired_at": deps.clock(), "expired_reason": reason}
        )

    deps.records.users.update(user_key(req.team_id, req.user_id), expire)
    _ask_to_connect(deps, req, reason)


def _ask_to_connect(deps: Deps, req: Request, reason: ConnectReason) -> None:
    """Tell the author alone why their request waits, with [Connect account] and [Resend]."""
    message = build_connect_prompt(lang=req.lang, reason=reason, request_id=req.id)
    try:
        telling.tell(deps, user_id=req.user_id, channel_id=req.channel_id, message=message)
    except Exception:
        log.warning("could not ask user %s to connect their account", req.user_id)


# ---------------------------------------------------------------- sending again


def retry(deps: Deps, request_id: str, *, acting_user: str) -> bool:
    """Send a failed (or waiting) request again, in place. Only its author may: runs are
    created with the author's own token. Returns False when ``acting_user`` is not the author."""
    req = deps.records.requests.get(request_id)
    if req is None:
        return False
    if req.user_id != acting_user:
        return False
    claimed = False

    def claim(r: Request) -> Request:
        # Checked and changed in one step: of two presses at once (a double click), only one
        # may send the request again.
        nonlocal claimed
        if r.state not in ("failed", "waiting_user", "delayed"):
            return r
        claimed = True
        reset = {"failure": None, "run_id": None, "run_status": None, "attempt": 0}
        return r.model_copy(update={"state": "new", **reset})

    # A failure is shown (with its Retry button) before its state is recorded; a press in
    # between finds the request still active with its failure noted, and waits for the state.
    deadline = time.monotonic() + FAILURE_RECORDING_WAIT_S
    while True:
        deps.records.requests.update(request_id, claim)
        if claimed:
            break
        current = deps.records.requests.get(request_id)
        if current is None or current.state not in ACTIVE_STATES or current.failure is None:
            return True  # not failing (a double click after the resend, say): nothing to do
        if time.monotonic() > deadline:
            return True
        time.sleep(0.05)
    deps.timers.cancel(request_id)
    deps.timers.hold_send(request_id)
    try:
        submit(deps, request_id)
    finally:
        deps.timers.end_send(request_id)
    return True


def resend_edited(
    deps: Deps,
    request_id: str,
    *,
    acting_user: str,
    run_request: RunRequest,
    labels: dict[str, str] | None = None,
) -> bool:
    """Replace a failed request's content (after "Edit and resend", or a refinement sent to
    another parent) and send it again in place. ``labels`` None keeps the request's own."""
    req = deps.records.requests.get(request_id)
    if req is None or req.user_id != acting_user:
        return False
    changes: dict[str, Any] = {"body": wire_body(run_request)}
    if labels is not None:
        changes["labels"] = labels
    _set(deps, request_id, **changes)
    return retry(deps, request_id, acting_user=acting_user)
