"""A brief from the moment it is typed until its run exists: record, root message, send.

Every step is written to the store before the next one starts, so a crash at any point can be
resumed by :func:`resume` (called by the jobs at start) without losing or duplicating anything.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Literal

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
    RunCreationUncertain,
    ServerError,
    SteeringDisabled,
    Timeout,
    TransportError,
    UserTokenRejected,
    ValidationFailed,
)
from suggestbot.contentapi.polling import next_poll_delay
from suggestbot.flows import failures, linking, slackio
from suggestbot.flows.deps import Deps
from suggestbot.store import VaultError
from suggestbot.store.records import Failure, Request, user_key
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Button, Message, build_root_message
from suggestbot.ui.blocks.text import escape_mrkdwn
from suggestbot.ui.messages import t

log = logging.getLogger(__name__)

_RUN_REQUEST: TypeAdapter[Any] = TypeAdapter(GenerationRunRequest)
_INPUT_ERRORS = (InputTooLong, InputRejected, InputInvalidEncoding, ValidationFailed)
_UNAVAILABLE = (TransportError, Timeout)
_MAYBE_ACCEPTED = frozenset({502, 504})
# How far back a run may have been created for recovery to adopt it as this request's run.
ADOPT_WINDOW_S = 15 * 60
# Set in a quick brief's labels: it was sent with the author's remembered choices.
REUSED_LABEL = "reused"
# When Slack refused a root past its own retries: try again this much later (then backing off).
ROOT_RETRY_S = 30.0


# ---------------------------------------------------------------- the root message


def _status_line(req: Request) -> str:
    lang, user = req.lang, req.user_id
    if req.state in ("new", "sending"):
        return t("root.sending", lang, user=user)
    if req.state == "delayed":
        when = int(req.send_after or time.time())
        fallback = time.strftime("%H:%M:%S UTC", time.gmtime(when))
        return t("root.delayed", lang, user=user, when=f"<!date^{when}^{{time_secs}}|{fallback}>")
    if req.state == "waiting_user":
        return t("root.waiting_for_user", lang, user=user)
    if req.state == "submitted":
        if req.run_status == "running":
            key = "root.running_again" if req.attempt > 1 else "root.running"
            return t(key, lang, user=user, attempt=max(req.attempt, 1))
        if req.attempt > 0:
            return t("root.requeued", lang, user=user, attempt=req.attempt)
        return t("root.queued", lang, user=user)
    if req.state == "posting":
        return t("root.running", lang, user=user, attempt=max(req.attempt, 1))
    if req.state == "done":
        return t("root.ready", lang, user=user, count=len(req.variants))
    failure = req.failure or Failure(code=failures.INTERNAL)
    return t(
        "root.failed",
        lang,
        user=user,
        reason=failures.reason(failure.code, lang, detail=failure.detail),
    )


def connect_buttons(request_id: str) -> list[Button]:
    """[Connect account] [Resend]: for the author's eyes only (an ephemeral), never on the
    public root, where anyone could press them."""
    return [
        Button("connect.button", ids.ACTION_CONNECT, request_id, "primary"),
        Button("button.resend", ids.ACTION_RETRY, request_id),
    ]


def _root_buttons(req: Request) -> list[Button]:
    if req.state == "failed" and req.failure:
        return list(
            failures.buttons(req.failure.code, request_id=req.id, is_brief=req.kind == "brief")
        )
    return []


def root_message(req: Request) -> Message:
    if req.kind == "refinement":
        # A refinement's "root" is its status reply in the Slack thread (imported here:
        # the refinement flow builds on this module).
        from suggestbot.flows.refine import status_message

        return status_message(req)
    context = None
    if req.labels:
        context = t(
            "root.context",
            req.lang,
            segment=req.labels.get("segment", "?"),
            use_case=req.labels.get("use_case", "?"),
            variants=req.body.get("variant_count", 1),
        )
    failed = req.failure if req.state == "failed" else None
    reused = None
    if req.kind == "brief" and req.labels.get(REUSED_LABEL):
        sentence = t(
            "brief.using_defaults",
            req.lang,
            user=req.user_id,
            segment=escape_mrkdwn(req.labels.get("segment", "?")),
            use_case=escape_mrkdwn(req.labels.get("use_case", "?")),
            variants=req.body.get("variant_count", 1),
        )
        reused = (sentence, Button("brief.change", ids.ACTION_CHANGE_DEFAULTS, req.id))
    return build_root_message(
        lang=req.lang,
        status=_status_line(req),
        brief=req.steering_text if req.kind == "brief" else None,
        context=context,
        buttons=_root_buttons(req),
        fine_print=failures.fine_print(failed.code, req.lang) if failed else None,
        reused=reused,
    )


def refresh_root(deps: Deps, req: Request) -> None:
    """Show the request's current state in its root message (best effort: Slack may fail)."""
    if not (req.post_channel_id and req.root_ts):
        return
    try:
        slackio.update(deps, channel=req.post_channel_id, ts=req.root_ts, message=root_message(req))
    except Exception:
        log.exception("could not update the root message of request %s", req.id)


# ---------------------------------------------------------------- starting a brief


def start(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel_id: str,
    body: dict[str, Any],
    labels: dict[str, str],
    response_url: str | None = None,
) -> Request:
    """Record a new brief, post its root message, and send it to the service.

    Args:
        body: the ``steered_generation`` request as it goes on the wire.
        labels: names of the segment and use case, for display.
    """
    req = record(
        deps, team_id=team_id, user_id=user_id, channel_id=channel_id, body=body, labels=labels
    )
    return launch(deps, req.id, response_url=response_url) or req


def record(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel_id: str,
    body: dict[str, Any],
    labels: dict[str, str],
) -> Request:
    """Write a new brief to the store. From then on a crash cannot lose it (recovery posts its
    root and sends it), so listeners call this before they ack and :func:`launch` after.

    No Slack call here (it would delay the ack): the language is the one already known, else
    English until :func:`post_root` looks it up."""
    req = Request(
        team_id=team_id,
        user_id=user_id,
        lang=deps.known_lang(user_id) or "en",
        channel_id=channel_id,
        body=body,
        labels=labels,
    )
    deps.records.requests.put(req.id, req)
    return req


def launch(deps: Deps, request_id: str, *, response_url: str | None = None) -> Request | None:
    """Post the root message of a recorded brief and send it. When Slack is down past its
    retries, the send timer does both later (and keeps trying): a recorded brief is not left
    behind until the next restart."""
    try:
        post_root(deps, request_id, response_url=response_url)
    except (SlackApiError, OSError) as exc:
        if not slackio.unavailable(exc):
            raise
        log.warning("request %s: Slack is unavailable; posting its root later", request_id)
        deps.timers.send_later(request_id, at=deps.clock() + ROOT_RETRY_S * deps.poll_scale)
        return deps.records.requests.get(request_id)
    submit(deps, request_id, root_says_sending=True)
    return deps.records.requests.get(request_id)


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
        lang = deps.lang_of(req.user_id)
        _set(deps, request_id, post_channel_id=channel, lang=lang)
        req = req.model_copy(update={"lang": lang})
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
            channel = slackio.open_dm(deps, req.user_id)
            _set(deps, request_id, post_channel_id=channel)
            intro = Message(
                text=t("slack.dm_fallback", req.lang, channel=req.channel_id), blocks=[]
            )
            slackio.post(deps, channel=channel, message=intro)
            ts = slackio.post(deps, channel=channel, message=root_message(req), metadata=metadata)
            note = t("slack.not_in_channel", req.lang, channel=req.channel_id)
            try:
                slackio.notify(
                    deps,
                    user_id=req.user_id,
                    channel_id=req.channel_id,
                    message=Message(text=note, blocks=[]),
                    response_url=response_url,
                )
            except Exception:
                log.warning(
                    "could not tell user %s that the bot is not in the channel", req.user_id
                )

    def set_root(r: Request) -> Request:
        return r.model_copy(update={"post_channel_id": channel, "root_ts": ts})

    deps.records.requests.update(request_id, set_root)


def _find_root(deps: Deps, req: Request) -> tuple[str, str] | None:
    """After a crash between posting the root and recording it: find it by its metadata."""
    if not req.post_channel_id:
        return None
    try:
        history: Any = deps.slack.conversations_history(
            channel=req.post_channel_id, include_all_metadata=True, limit=100
        )
    except Exception:
        return None
    for message in history.get("messages", []):
        payload = (message.get("metadata") or {}).get("event_payload") or {}
        if payload.get("request_id") == req.id and payload.get("role") == "root":
            return req.post_channel_id, str(message["ts"])
    return None


# ---------------------------------------------------------------- sending


def _set(deps: Deps, request_id: str, **changes: Any) -> Request | None:
    return deps.records.requests.update(request_id, lambda r: r.model_copy(update=changes))


def fail(deps: Deps, request_id: str, code: str, detail: str | None = None) -> None:
    failure = Failure(code=code, detail=detail)
    req = deps.records.requests.get(request_id)
    if req is None:
        return
    # Shown before it is recorded: a crash in between leaves the request active, so recovery
    # reaches this end again and shows it; the other order could leave the root without its
    # failure and buttons for good.
    refresh_root(deps, req.model_copy(update={"state": "failed", "failure": failure}))
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
    linked = linking.is_linked(deps, team_id=req.team_id, user_id=req.user_id)
    user = deps.records.users.get(user_key(req.team_id, req.user_id))
    if not linked or user is None:
        req = _set(deps, request_id, state="waiting_user")
        if req:
            refresh_root(deps, req)
            _ask_to_connect(deps, req, "connect.needed")
        return
    try:
        token = deps.vault.decrypt(user.token_enc)
    except VaultError:
        # No configured key fits (the keys changed under this data): like a rejected token,
        # the request waits for a reconnect instead of failing again on every retry.
        log.error("request %s: the stored token of its user cannot be decrypted", request_id)
        _expire_user(deps, req, reason="unreadable")
        req = _set(deps, request_id, state="waiting_user")
        if req:
            refresh_root(deps, req)
        return
    if req.state == "sending" and _adopt_existing_run(deps, req):
        return
    fresh = root_says_sending and req.state == "new"
    req = _set(deps, request_id, state="sending", sent_at=deps.clock(), failure=None)
    assert req is not None
    if not fresh:
        refresh_root(deps, req)
    client = deps.content.as_user(token)
    deps.crash_point("before_create_run")
    try:
        run = client.create_run(request=_RUN_REQUEST.validate_python(req.body))
    except RateLimited as exc:
        send_after = deps.clock() + max(exc.retry_after, 1.0)
        req = _set(deps, request_id, state="delayed", send_after=send_after)
        deps.timers.send_later(request_id, at=send_after)
        log.info("request %s rate limited; sending again in %.0f s", request_id, exc.retry_after)
        if req:
            refresh_root(deps, req)
        return
    except UserTokenRejected:
        _expire_user(deps, req)
        req = _set(deps, request_id, state="waiting_user")
        if req:
            refresh_root(deps, req)
        return
    except RunCreationUncertain:
        if not _adopt_existing_run(deps, req):
            fail(deps, request_id, failures.UNCERTAIN)
        return
    except ServerError as exc:
        # A gateway error may have come after the service accepted the run.
        if exc.status in _MAYBE_ACCEPTED and _adopt_existing_run(deps, req):
            return
        fail(deps, request_id, failures.SERVICE_UNAVAILABLE)
        return
    except _INPUT_ERRORS as exc:
        fail(deps, request_id, exc.code or "validation_error")
        return
    except ImageNotApplicable:
        fail(deps, request_id, "image_not_applicable")
        return
    except SteeringDisabled:
        fail(deps, request_id, "steering_disabled")
        return
    except NotFound:
        fail(deps, request_id, failures.NOT_FOUND)
        return
    except _UNAVAILABLE:
        fail(deps, request_id, failures.SERVICE_UNAVAILABLE)
        return
    except ContentApiError as exc:
        fail(deps, request_id, exc.code or f"http_{exc.status}")
        return
    deps.crash_point("after_create_run")
    accepted(deps, request_id, run)


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
    refresh_root(deps, req)
    deps.timers.watch_run(request_id, delay_s=first_poll_delay(deps))


def first_poll_delay(deps: Deps) -> float:
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
    wanted = _RUN_REQUEST.validate_python(req.body).model_dump(mode="json", exclude_none=True)
    since = (req.sent_at or req.created_at) - ADOPT_WINDOW_S
    try:
        for run in client.iter_runs(limit=50):
            if run.created_at.timestamp() < since:
                break
            echoed = run.request.model_dump(mode="json", exclude_none=True)
            if all(echoed.get(k) == v for k, v in wanted.items() if k != "image"):
                log.info("request %s: adopting run found after an uncertain send", req.id)
                accepted(deps, req.id, run)
                return True
    except ContentApiError:
        log.warning("request %s: could not list runs to look for an earlier send", req.id)
    return False


def _expire_user(
    deps: Deps, req: Request, *, reason: Literal["rejected", "unreadable"] = "rejected"
) -> None:
    def expire(u: Any) -> Any:
        return u.model_copy(
            update={"state": "expired", "expired_at": deps.clock(), "expired_reason": reason}
        )

    deps.records.users.update(user_key(req.team_id, req.user_id), expire)
    _ask_to_connect(
        deps, req, "connect.expired_kept" if reason == "rejected" else "connect.unreadable_kept"
    )


def _ask_to_connect(deps: Deps, req: Request, key: str) -> None:
    """Tell the author alone why their request waits, with [Connect account] and [Resend]."""
    message = build_notice(lang=req.lang, text=t(key, req.lang), buttons=connect_buttons(req.id))
    try:
        slackio.notify(
            deps,
            user_id=req.user_id,
            channel_id=req.channel_id,
            message=message,
        )
    except Exception:
        log.warning("could not ask user %s to connect their account", req.user_id)


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

    deps.records.requests.update(request_id, claim)
    if not claimed:
        return True
    deps.timers.cancel(request_id)
    submit(deps, request_id)
    return True


def resend_edited(
    deps: Deps, request_id: str, *, acting_user: str, body: dict[str, Any], labels: dict[str, str]
) -> bool:
    """Replace a failed brief's content (after "Edit and resend") and send it again in place."""
    req = deps.records.requests.get(request_id)
    if req is None or req.user_id != acting_user:
        return False
    _set(deps, request_id, body=body, labels=labels)
    return retry(deps, request_id, acting_user=acting_user)
