"""Listeners through ``app.dispatch``: what the user sees for each kind of Slack delivery.

Fast (no server, no port): the real Bolt app with every listener registered, an in-memory
store, a recording Slack client and the content client on an in-memory sandbox (see
``dispatch_helpers``). What a request must leave behind before its ack is checked by letting
the process "die" right after the ack: the work handed to the background never runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from dispatch_helpers import (
    ALICE,
    BRUNO,
    GENERAL,
    TEAM_ID,
    DiesAfterTheAck,
    Workspace,
    texts_of,
)

from suggestbot.store.records import user_key
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t

BRIEF = "Spring boots for weekend hikers, 20% off until Sunday"


@pytest.fixture
def ws() -> Iterator[Workspace]:
    workspace = Workspace()
    yield workspace
    workspace.close()


def connect(ws: Workspace) -> None:
    """Alice links her service account through the connect modal."""
    ws.command("connect")
    answer = ws.submit(ws.opened_view(), {t("connect.label", "en"): ws.demo.user_token})
    assert answer.status == 200 and answer.body == ""


def send_brief_from_modal(
    ws: Workspace, text: str = BRIEF, *, before_submit: Callable[[], object] = lambda: None
) -> dict[str, Any]:
    """``/suggest brief`` → the modal, filled in and submitted; returns the root message."""
    ws.command("brief")
    view = ws.opened_view()
    before_submit()
    answer = ws.submit(
        view,
        {
            t("brief.segment", "en"): "Weekend Hikers",
            t("brief.use_case", "en"): "Spring Launch",
            t("brief.text", "en"): text,
            t("brief.variants", "en"): "2",
        },
    )
    assert answer.status == 200 and answer.body == ""  # the modal closes
    [root] = [p for p in ws.posts() if text in texts_of(p["blocks"])]
    return root


def runs_of(ws: Workspace) -> list[Any]:
    """The runs the service holds for Alice, newest first."""
    return list(ws.content.as_user(ws.demo.user_token).iter_runs(limit=50))


# -- slash commands ----------------------------------------------------------------------------


def test_help_is_shown_to_the_user_alone(ws: Workspace) -> None:
    answer = ws.command("help")
    assert answer.status == 200 and answer.body == ""
    [help_message] = ws.slack.made("chat.postEphemeral")
    assert help_message["user"] == ALICE.id and help_message["channel"] == GENERAL.id
    shown = texts_of(help_message["blocks"])
    for sub in ("brief", "connect", "inspire", "digest", "threads"):
        assert f"/suggest {sub}" in shown
    assert ws.posts() == []


def test_an_unknown_subcommand_is_named_in_the_users_language(ws: Workspace) -> None:
    ws.slack.locales[BRUNO.id] = "de-DE"
    answer = ws.command("translate this please", user=BRUNO)
    assert answer.status == 200 and answer.body == ""
    [reply] = ws.slack.made("chat.postEphemeral")
    assert reply["user"] == BRUNO.id
    shown = texts_of(reply["blocks"])
    assert t("help.unknown_subcommand", "de", sub="translate") in shown
    assert "/suggest brief" in shown  # followed by the help itself


def test_a_brief_from_the_modal_posts_its_root_and_sends_the_run(ws: Workspace) -> None:
    connect(ws)
    root = send_brief_from_modal(ws)
    assert root["channel"] == GENERAL.id
    assert "Weekend Hikers" in texts_of(root["blocks"])
    [run] = runs_of(ws)
    assert run.request.steering_text == BRIEF and run.request.variant_count == 2
    [request] = ws.deps.records.requests.values()
    assert request.run_id == run.id and ws.timers.watched == [request.id]


def test_a_slash_brief_is_recorded_before_the_ack(ws: Workspace) -> None:
    """``/suggest brief <text>`` with remembered choices goes straight to a run: Slack never
    resends a command it had an answer for, so the brief must be in the store at the ack."""
    connect(ws)
    send_brief_from_modal(ws, "An earlier brief, to remember the choices")
    runs_before = len(runs_of(ws))
    ws.deps.background = dies = DiesAfterTheAck()

    answer = ws.command(f"brief {BRIEF}")

    assert answer.status == 200 and answer.body == ""
    assert dies.dropped == 2  # nothing after the ack ran: the brief's work, its usage count
    [kept] = [r for r in ws.deps.records.requests.values() if r.body["steering_text"] == BRIEF]
    assert kept.state == "new" and kept.channel_id == GENERAL.id
    assert kept.body["segment_id"] == ws.demo.primary.segments["Weekend Hikers"]
    assert kept.body["variant_count"] == 2
    assert len(runs_of(ws)) == runs_before
    assert not [p for p in ws.posts() if BRIEF in texts_of(p["blocks"])]


def test_a_slash_brief_waits_for_one_write_and_a_repeat_records_nothing(ws: Workspace) -> None:
    """The ack of ``/suggest brief <text>`` waits for one write: the brief, its held send and
    the claim of its delivery together. The same delivery again (a double submit, a resend)
    finds it and records nothing more."""
    connect(ws)
    send_brief_from_modal(ws, "An earlier brief, to remember the choices")
    ws.deps.background = DiesAfterTheAck()
    writes: list[tuple[str, str]] = []
    depth = [0]

    def counted(name: str, write: Callable[..., Any]) -> Callable[..., Any]:
        def call(table: str, *args: Any, **kwargs: Any) -> Any:
            if depth[0] == 0:
                writes.append((name, table))
            depth[0] += 1
            try:
                return write(table, *args, **kwargs)
            finally:
                depth[0] -= 1

        return call

    for name in ("put", "put_if_absent", "put_if_absent_held", "update", "update_many"):
        setattr(ws.store, name, counted(name, getattr(ws.store, name)))
    ws._trigger = lambda: "1111.2222.same"  # type: ignore[method-assign]

    first = ws.command(f"brief {BRIEF}")

    assert first.status == 200 and first.body == ""
    assert writes == [("put_if_absent_held", "requests")]

    again = ws.command(f"brief {BRIEF}")

    assert again.status == 200 and again.body == ""
    kept = [r for r in ws.deps.records.requests.values() if r.body["steering_text"] == BRIEF]
    assert len(kept) == 1


def test_a_disconnect_has_taken_effect_by_its_ack(ws: Workspace) -> None:
    """Commands are carried out side by side after their acks: a status sent right after a
    disconnect must not find the link the disconnect is still removing."""
    connect(ws)
    held = ws.deps.background
    ws.deps.background = DiesAfterTheAck()

    answer = ws.command("disconnect")

    assert answer.status == 200 and answer.body == ""
    assert ws.deps.records.users.get(user_key(TEAM_ID, ALICE.id)) is None
    ws.deps.background = held
    ws.command("status")
    [status] = ws.slack.made("chat.postEphemeral")[-1:]
    assert t("status.unlinked", "en") in texts_of(status["blocks"])


def test_the_home_disconnect_button_has_taken_effect_by_its_ack(ws: Workspace) -> None:
    connect(ws)
    held = ws.deps.background
    ws.deps.background = DiesAfterTheAck()

    answer = ws.press(ids.ACTION_HOME_DISCONNECT, "disconnect", message_ts="1.0")

    assert answer.status == 200
    assert ws.deps.records.users.get(user_key(TEAM_ID, ALICE.id)) is None
    ws.deps.background = held
    ws.command("status")
    [status] = ws.slack.made("chat.postEphemeral")[-1:]
    assert t("status.unlinked", "en") in texts_of(status["blocks"])


def test_a_slash_brief_with_remembered_choices_needs_no_modal(ws: Workspace) -> None:
    connect(ws)
    send_brief_from_modal(ws, "An earlier brief, to remember the choices")
    opened = len(ws.slack.made("views.open"))

    answer = ws.command(f"brief {BRIEF}")

    assert answer.status == 200 and answer.body == ""
    assert len(ws.slack.made("views.open")) == opened
    assert [p for p in ws.posts() if BRIEF in texts_of(p["blocks"])]
    assert runs_of(ws)[0].request.steering_text == BRIEF


def test_a_bad_signature_is_refused_and_changes_nothing(ws: Workspace) -> None:
    calls = len(ws.slack.calls)
    answer = ws.command(f"brief {BRIEF}", secret="not-the-signing-secret")
    assert answer.status == 401
    assert len(ws.slack.calls) == calls  # nobody is told anything
    assert list(ws.deps.records.requests.values()) == []
    assert ws.deps.deliveries is not None and ws.deps.deliveries.unfinished() == []


# -- modals --------------------------------------------------------------------------------------


def test_a_modal_with_an_empty_brief_stays_open_with_the_reason_by_the_field(
    ws: Workspace,
) -> None:
    connect(ws)
    ws.command("brief")
    answer = ws.submit(
        ws.opened_view(),
        {
            t("brief.segment", "en"): "Weekend Hikers",
            t("brief.use_case", "en"): "Spring Launch",
            t("brief.text", "en"): "   ",
        },
    )
    assert answer.status == 200
    assert answer.headers["content-type"][0].startswith("application/json")
    assert json.loads(answer.body) == {
        "response_action": "errors",
        "errors": {ids.INPUT_BRIEF: t("brief.input_rejected", "en", count=3)},
    }
    assert list(ws.deps.records.requests.values()) == []
    assert runs_of(ws) == []
    # Nothing to carry out: the submission is not kept, nor held by this replica.
    assert ws.deps.deliveries is not None and ws.deps.deliveries.unfinished() == []
    assert ws.deps.deliveries.held() == set()


# -- thread replies ------------------------------------------------------------------------------


def test_a_reply_before_the_results_tells_its_author_to_wait(ws: Workspace) -> None:
    connect(ws)
    root = send_brief_from_modal(ws)
    thread_ts = ws.posted_ts(root)
    [request] = ws.deps.records.requests.values()
    assert request.root_ts == thread_ts

    answer = ws.reply("shorter, please", thread_ts=thread_ts)

    assert answer.status == 200 and answer.body == ""
    [told] = [e for e in ws.slack.made("chat.postEphemeral") if e.get("thread_ts") == thread_ts]
    assert told["user"] == ALICE.id
    assert t("refine.not_ready", "en") in texts_of(told["blocks"])
    assert ws.deps.deliveries is not None and ws.deps.deliveries.unfinished() == []


def test_a_reply_is_kept_before_the_ack(ws: Workspace) -> None:
    connect(ws)
    thread_ts = ws.posted_ts(send_brief_from_modal(ws))
    ws.deps.background = DiesAfterTheAck()

    answer = ws.reply("shorter, please", thread_ts=thread_ts)

    assert answer.status == 200
    assert ws.deps.deliveries is not None
    [(_, sealed)] = ws.deps.deliveries.unfinished()
    assert "shorter, please" not in sealed  # kept encrypted
    assert "shorter, please" in ws.deps.vault.unseal(sealed)


# -- buttons -------------------------------------------------------------------------------------


def failed_brief(ws: Workspace) -> tuple[str, str]:
    """A brief the service could not take (one 5xx): its request id and root message ts."""
    connect(ws)

    def service_fails_once() -> None:
        ws.sandbox.faults.next_5xx = 1

    root = send_brief_from_modal(ws, before_submit=service_fails_once)
    [request] = ws.deps.records.requests.values()
    assert request.state == "failed"
    return request.id, ws.posted_ts(root)


def test_retry_sends_a_failed_brief_again_in_its_own_message(ws: Workspace) -> None:
    request_id, ts = failed_brief(ws)
    failed_root = ws.slack.made("chat.update")[-1]
    buttons = [
        e for e in _elements(failed_root["blocks"]) if e.get("action_id") == ids.ACTION_RETRY
    ]
    assert [b["value"] for b in buttons] == [request_id]
    posts = len(ws.posts())

    answer = ws.press(ids.ACTION_RETRY, request_id, message_ts=ts)

    assert answer.status == 200 and answer.body == ""
    [run] = runs_of(ws)
    request = ws.deps.records.requests.get(request_id)
    assert request is not None and request.run_id == run.id and request.state == "submitted"
    assert len(ws.posts()) == posts  # the same root message, updated in place
    assert ws.slack.made("chat.update")[-1]["ts"] == ts


def test_a_retry_press_is_kept_before_the_ack(ws: Workspace) -> None:
    request_id, ts = failed_brief(ws)
    ws.deps.background = DiesAfterTheAck()

    answer = ws.press(ids.ACTION_RETRY, request_id, message_ts=ts)

    assert answer.status == 200
    assert ws.deps.deliveries is not None
    [(key, _)] = ws.deps.deliveries.unfinished()
    assert key.startswith("block_actions:")
    assert runs_of(ws) == []


def test_someone_elses_retry_is_refused_with_a_word_to_them(ws: Workspace) -> None:
    request_id, ts = failed_brief(ws)
    ws.press(ids.ACTION_RETRY, request_id, message_ts=ts, user=BRUNO)
    [told] = [e for e in ws.slack.made("chat.postEphemeral") if e["user"] == BRUNO.id]
    assert t("error.only_author", "en", user=ALICE.id) in told["text"]
    assert runs_of(ws) == []
    assert ws.deps.records.users.get(user_key(TEAM_ID, BRUNO.id)) is None


def _elements(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for block in blocks:
        found += block.get("elements") or []
        if block.get("accessory"):
            found.append(block["accessory"])
    return found


def test_a_listener_that_fails_after_its_ack_still_answers_with_the_ack(ws: Workspace) -> None:
    """Listeners run in the request's thread and Slack gets their answer when they return: one
    that breaks after acking must not turn the accepted command into an error (Slack would
    show "failed with the error" for work the app took). One that breaks before its ack
    gets an error answer, as nothing was taken."""
    from slack_bolt import Ack

    def after(ack: Ack) -> None:
        ack(text="on it")
        raise RuntimeError("broke after the ack")

    def before(ack: Ack) -> None:
        raise RuntimeError("broke before the ack")

    ws.app.command("/after")(after)
    ws.app.command("/before")(before)

    def send(command: str) -> Any:
        body = f"team_id={TEAM_ID}&user_id={ALICE.id}&channel_id={GENERAL.id}&command={command}"
        return ws.dispatch(
            (body + f"&text=x&trigger_id=t.{command}.x").encode(),
            content_type="application/x-www-form-urlencoded",
        )

    acked = send("%2Fafter")
    assert acked.status == 200 and "on it" in acked.body
    assert send("%2Fbefore").status == 500
