"""The brief modal's submission: checked at once (field errors), recorded before the ack, sent
after it; or, from [Edit and resend], resent in place of the earlier brief."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.contentapi import SteeredGenerationRequest
from suggestbot.contentapi.checks import MAX_VARIANTS, check_brief
from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common import access, requests
from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.slackapp.listeners.askers import person_submitting
from suggestbot.store.records import Preferences, user_key
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import load_metadata, selected_label, view_values


def register(app: App, deps: Deps) -> None:
    # A new brief is recorded as a request before the ack; only "edit and resend" is replayed
    # from the submission (recorded by the middleware) after a crash.
    interactions.on_view(ids.VIEW_BRIEF, _replay_edited_brief)

    @app.view(ids.VIEW_BRIEF)
    def brief_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        values = view_values(view)
        metadata = load_metadata(view.get("private_metadata"))
        if metadata.get("held"):
            held = access.held(deps, person_submitting(body), str(metadata["held"]))
            text = held.text if held else ""
        else:
            text = str(values.get(ids.INPUT_BRIEF) or "")
        code = check_brief(text)
        if code:
            # The language (a Slack call) only to word an error: nothing slow before a good ack.
            lang = deps.lang_of(user_id)
            problem = field_errors.brief_problem(code=code, length=len(text), lang=lang)
            # A brief kept aside (too long for the input) has no field of its own.
            field = ids.INPUT_SEGMENT if metadata.get("held") else ids.INPUT_BRIEF
            ack(response_action="errors", errors={field: problem})
            interactions.finish_current(deps)  # nothing to carry out
            return
        missing = [b for b in (ids.INPUT_SEGMENT, ids.INPUT_USE_CASE) if not values.get(b)]
        if missing:
            lang = deps.lang_of(user_id)
            ack(
                response_action="errors",
                errors=field_errors.brief_missing_choice(block_ids=missing, lang=lang),
            )
            interactions.finish_current(deps)  # nothing to carry out
            return
        if _variant_count(values) is None:
            lang = deps.lang_of(user_id)
            ack(
                response_action="errors",
                errors=field_errors.brief_variants(most=MAX_VARIANTS, lang=lang),
            )
            interactions.finish_current(deps)  # nothing to carry out
            return
        # Recorded before the ack: once the modal has closed nobody submits it again, so a
        # crash right after the ack must not lose the brief (recovery sends what is recorded).
        recorded = _record_brief(deps, body, text, metadata)
        ack()
        in_background(
            deps,
            _send_brief,
            deps,
            body,
            text,
            metadata,
            recorded,
            user_id=user_id,
            channel_id=metadata.get("channel"),
        )


def _replay_edited_brief(deps: Deps, body: dict[str, Any]) -> None:
    view = body["view"]
    metadata = load_metadata(view.get("private_metadata"))
    earlier = access.own_request(deps, person_submitting(body), _str(metadata.get("request")))
    if earlier is None or metadata.get("held"):
        return
    values = view_values(view)
    text = str(values.get(ids.INPUT_BRIEF) or "")
    if check_brief(text) or not (values.get(ids.INPUT_SEGMENT) and values.get(ids.INPUT_USE_CASE)):
        return
    _send_brief(deps, body, text, metadata, None)


def _str(value: Any) -> str | None:
    """A metadata value as an id (None when it is none)."""
    return str(value) if value else None


def _post_where_allowed(deps: Deps, body: dict[str, Any], request_id: str) -> None:
    """A brief goes to the channel its modal was opened in only if its author is a member of
    it, else to their DM (asked of Slack after the ack: a big channel takes several calls)."""
    req = deps.records.requests.get(request_id)
    if req is None or req.state != "new":
        return
    where = access.where_to_post(deps, person_submitting(body), req.channel_id)
    if where != req.channel_id:
        deps.records.requests.update(
            request_id, lambda r: r.model_copy(update={"channel_id": where})
        )


def _variant_count(values: dict[str, Any]) -> int | None:
    """The chosen number of variants, or None when it is not one the service takes."""
    raw = str(values.get(ids.INPUT_VARIANTS) or "1")
    count = int(raw) if raw.isdecimal() else 0
    return count if 1 <= count <= MAX_VARIANTS else None


def _brief_request(
    view: dict[str, Any], text: str
) -> tuple[SteeredGenerationRequest, dict[str, str]]:
    """The ``steered_generation`` request and the display labels from a submitted brief modal."""
    values = view_values(view)
    segment_id, use_case_id = values[ids.INPUT_SEGMENT], values[ids.INPUT_USE_CASE]
    variants = _variant_count(values) or 1
    labels = {
        "segment": selected_label(view, ids.INPUT_SEGMENT) or segment_id,
        "use_case": selected_label(view, ids.INPUT_USE_CASE) or use_case_id,
    }
    run_request = brief.steered_request(
        segment_id=segment_id, use_case_id=use_case_id, text=text, variants=variants
    )
    return run_request, labels


def _record_brief(
    deps: Deps, body: dict[str, Any], text: str, metadata: dict[str, Any]
) -> str | None:
    """Remember the user's choices and record the brief; None when it edits an earlier brief
    of theirs, which is resent in place after the ack."""
    team_id, user_id = body["user"]["team_id"], body["user"]["id"]
    run_request, labels = _brief_request(body["view"], text)
    deps.records.preferences.put(
        user_key(team_id, user_id),
        Preferences(
            segment_id=run_request.segment_id,
            use_case_id=run_request.use_case_id,
            variants=run_request.variant_count,
        ),
    )
    person = person_submitting(body)
    held = access.held(deps, person, _str(metadata.get("held")))
    if held is not None:
        deps.records.held.delete(held.id)
    if access.own_request(deps, person, _str(metadata.get("request"))) is not None:
        return None
    if metadata.get("source"):  # made from a message ("Turn into a brief")
        labels = {**labels, requests.SOURCE_LABEL: str(metadata["source"])}
    req = brief.record(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=metadata.get("channel") or user_id,
        run_request=run_request,
        labels=labels,
    )
    return req.id


def _send_brief(
    deps: Deps, body: dict[str, Any], text: str, metadata: dict[str, Any], recorded: str | None
) -> None:
    if recorded is not None:
        _post_where_allowed(deps, body, recorded)
        brief.launch(deps, recorded, response_url=metadata.get("response_url"))
        return
    run_request, labels = _brief_request(body["view"], text)
    requests.resend_edited(
        deps,
        metadata["request"],
        acting_user=body["user"]["id"],
        run_request=run_request,
        labels=labels,
    )
