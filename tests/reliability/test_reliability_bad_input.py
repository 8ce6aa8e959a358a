"""Bad input: forged requests, awkward text and payloads with fields missing.

A request that is not provably from Slack (wrong signature, altered body, timestamp 301 s old)
is answered 401 and changes nothing: no record, no Slack call, no service call. Awkward text
(4001 code points, empty, control characters, a 10,000-character thread reply, an unknown
subcommand) and payloads with fields missing get a clear answer where a person can be told,
never a traceback, and the app keeps serving.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any
from urllib.parse import parse_qs, urlencode

import httpx
import pytest
from reliability_harness import (
    LEAK_SHAPES,
    ProcessStage,
    StageFactory,
    brief_modal,
    brief_values,
    database_snapshot,
    held_back,
    leaks_to_slack,
    requests_in_store,
    result_problems,
    roots_by_tag,
    runs_by_tag,
    send_brief_by_modal,
    wait_for,
    wait_quiet,
)

from suggestbot.demo.stage import ALICE, SIGNING_SECRET
from suggestbot.sandbox.faults import RunTiming
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu.results import AppResponse
from suggestbot.slackemu.signing import signed_headers
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t

TAG = re.compile(r"\[i\d{2}\]")
FORM = "application/x-www-form-urlencoded"


def start(process_stage: StageFactory, name: str) -> ProcessStage:
    """Alice linked, with one finished brief (her choices are remembered: 1 variant)."""
    stage = process_stage(
        name, time_factor=0.01, poll_scale=0.02, run_timing=RunTiming(queued_s=10, running_s=20)
    )
    stage.connect(ALICE)
    answer = send_brief_by_modal(stage, ALICE, "[i01] Launch email", variants=1)
    assert answer.response.status == 200 and not answer.errors
    wait_for(lambda: finished(stage, "[i01]"), what="the first result")
    return stage


def finished(stage: ProcessStage, key: str, variants: int = 1) -> bool:
    roots = roots_by_tag(stage, TAG).get(key, [])
    return len(roots) == 1 and not result_problems(stage, roots[0], user=ALICE, variants=variants)


def post(stage: ProcessStage, body: bytes, content_type: str, headers: dict[str, str]) -> Any:
    """POST exactly these bytes and headers to the app, nothing added."""
    return httpx.post(
        stage.app_url + EVENTS_PATH,
        content=body,
        headers={"Content-Type": content_type, **headers},
        timeout=10,
    )


def everything_observable(stage: ProcessStage) -> tuple[Any, ...]:
    return (
        database_snapshot(stage.data_dir),
        len(stage.emu.calls()),
        stage.sandbox.counters.snapshot(),
    )


@pytest.mark.timeout(180)
def test_forged_requests_get_401_and_change_nothing(process_stage: StageFactory) -> None:
    stage = start(process_stage, "forged")
    root = stage.emu.messages(stage.channel)[0]
    variant = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1]
    with held_back(stage) as held:
        stage.slack.slash_command(ALICE, stage.channel, "brief [i02] Would start a run")
        stage.slack.press_button(variant, t("refine.button", "en"), user_id=ALICE)
        stage.slack.post_user_message(ALICE, stage.channel, "shorter", thread_ts=root["ts"])
    wait_quiet(lambda: everything_observable(stage), settle_s=1.0, what="the app")
    before = everything_observable(stage)

    answers: list[Any] = []
    now = int(time.time())
    for body, kwargs in held:
        content_type = kwargs["content_type"]
        good = signed_headers(signing_secret=SIGNING_SECRET, timestamp=now, body=body)
        wrong = signed_headers(signing_secret="not-the-secret-0123456789", timestamp=now, body=body)
        altered = body.replace(b"Would", b"Should") if b"Would" in body else body + b" "
        stale = signed_headers(signing_secret=SIGNING_SECRET, timestamp=now - 301, body=body)
        answers.append(post(stage, body, content_type, wrong))
        answers.append(post(stage, altered, content_type, good))
        answers.append(post(stage, body, content_type, stale))
        answers.append(post(stage, body, content_type, {}))  # not signed at all
    assert [a.status_code for a in answers] == [401] * len(answers)
    assert [a.text for a in answers if LEAK_SHAPES.search(a.text)] == []

    wait_quiet(lambda: everything_observable(stage), settle_s=1.5, what="the app")
    assert everything_observable(stage) == before
    assert runs_by_tag(stage, TAG) == {"[i01]": 1}

    # The same slash command signed 295 s ago (inside Slack's five minutes) is Slack's own.
    body, kwargs = held[0]
    recent = signed_headers(
        signing_secret=SIGNING_SECRET, timestamp=int(time.time()) - 295, body=body
    )
    assert post(stage, body, kwargs["content_type"], recent).status_code == 200
    wait_for(lambda: runs_by_tag(stage, TAG).get("[i02]") == 1, what="the genuine brief's run")


def form_of(body: bytes) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(body.decode()).items()}


@pytest.mark.timeout(240)
def test_awkward_input_gets_a_clear_answer_and_the_app_keeps_serving(
    process_stage: StageFactory,
) -> None:
    stage = start(process_stage, "awkward")
    lang = "en"
    answers: list[AppResponse] = []

    def said(text: str) -> bool:
        return text in stage.emu.ephemeral_transcript(ALICE)

    # 4001 code points (a quarter of them outside the BMP): refused, and handed back whole.
    too_long = ("🥾" * 1000) + ("a" * 3001)
    answers.append(stage.slack.slash_command(ALICE, stage.channel, f"brief {too_long}"))
    wait_for(lambda: said(t("brief.input_too_long", lang, count=4001)), what="too long")
    refusal = stage.emu.ephemerals(ALICE)[-1]
    returned = [b for b in refusal["blocks"] if re.fullmatch(r"returned-\d+", b["block_id"])]
    assert "".join(b["text"]["text"] for b in returned) == too_long
    # 4000 of them is what the service takes: sent as typed, counted in code points.
    longest = "[i03] " + ("🥾" * 1000) + ("b" * 2994)
    assert len(longest) == 4000
    answers.append(stage.slack.slash_command(ALICE, stage.channel, f"brief {longest}"))
    wait_for(lambda: runs_by_tag(stage, TAG).get("[i03]") == 1, what="the 4000 brief's run")
    state = stage.sandbox.env.state
    with state.lock:
        texts = [str(r.request.get("steering_text")) for r in state.runs.values()]
    assert longest in texts

    # Empty (only Unicode spaces): the modal asks for it; submitting blanks says it is empty.
    answers.append(stage.slack.slash_command(ALICE, stage.channel, "brief \u2003\u00a0 "))
    wait_for(lambda: brief_modal(stage, ALICE), what="the brief modal")
    empty = stage.slack.submit_view(ALICE, brief_values(stage, ALICE, "\u2003 \u00a0", 1))
    assert list(empty.errors.values()) == [t("brief.input_rejected", lang)]
    stage.slack.close_view(ALICE, clear=True)

    # Control characters (NUL, BEL, ESC): the modal opens with the text, submitting explains.
    controls = "[i04] bad \x00 bell \x07 escape \x1b[31m"
    answers.append(stage.slack.slash_command(ALICE, stage.channel, f"brief {controls}"))
    wait_for(lambda: brief_modal(stage, ALICE), what="the prefilled modal")
    refused = stage.slack.submit_view(ALICE, brief_values(stage, ALICE, controls, 1))
    assert list(refused.errors.values()) == [t("brief.input_invalid_encoding", lang)]
    stage.slack.close_view(ALICE, clear=True)

    # An unknown subcommand is named back, with the help.
    answers.append(stage.slack.slash_command(ALICE, stage.channel, "frobnicate-ü now"))
    wait_for(lambda: said(t("help.unknown_subcommand", lang, sub="frobnicate-ü")), what="help")

    # A 10,000-character reply in a result's thread: refined, the whole instruction sent.
    root = stage.emu.messages(stage.channel)[0]
    reply = ("Make it warmer and mention the trail map. " * 240)[:10_000]
    posted = stage.slack.post_user_message(ALICE, stage.channel, reply, thread_ts=root["ts"])
    assert posted.delivery is not None
    answers.append(posted.delivery)

    def refinement_runs() -> list[Any]:
        with state.lock:
            return [r for r in state.runs.values() if r.type == "refinement"]

    wait_for(lambda: [r.status for r in refinement_runs()] == ["succeeded"], what="refining")
    assert refinement_runs()[0].request["instruction"] == reply
    wait_for(
        lambda: (
            [r["state"] for r in requests_in_store(stage) if r["kind"] == "refinement"] == ["done"]
        ),
        what="the refined turn",
    )
    thread = stage.emu.messages(stage.channel, thread_ts=root["ts"])
    assert len(thread) == 4 and thread[3].get("bot_id"), stage.emu.transcript(stage.channel)
    assert thread[2]["text"] == reply  # Alice's reply, then exactly one answer from the app

    assert [a.status for a in answers] == [200] * len(answers)
    assert [a.body for a in answers if LEAK_SHAPES.search(a.body)] == []
    assert stage.emu.warnings == []  # Slack refused nothing the app sent (block limits)
    assert leaks_to_slack(stage) == []
    assert stage.alive


@pytest.mark.timeout(180)
def test_payloads_with_missing_fields_never_crash_or_leak(process_stage: StageFactory) -> None:
    stage = start(process_stage, "missing_fields")
    root = stage.emu.messages(stage.channel)[0]
    variant = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1]
    with held_back(stage) as held:
        stage.slack.press_button(variant, t("refine.button", "en"), user_id=ALICE)
        stage.slack.slash_command(ALICE, stage.channel, "status")
    (press, _), (command, _) = held
    stage.slack.slash_command(ALICE, stage.channel, "brief")
    wait_for(lambda: brief_modal(stage, ALICE), what="the brief modal")
    with held_back(stage) as held:
        stage.slack.submit_view(ALICE, brief_values(stage, ALICE, "[i05] Never sent", 1))
    (submission, _) = held[0]
    assert stage.emu.current_view(ALICE) is None  # closed as by Slack after an empty ack
    wait_quiet(lambda: len(stage.emu.calls()), settle_s=1.0, what="the app")
    before = database_snapshot(stage.data_dir).get("requests")

    def payload(body: bytes) -> dict[str, Any]:
        return json.loads(form_of(body)["payload"])

    def send_payload(changed: dict[str, Any]) -> AppResponse:
        return stage.slack.send(
            urlencode({"payload": json.dumps(changed)}).encode(), content_type=FORM
        )

    def send_form(changed: dict[str, str]) -> AppResponse:
        return stage.slack.send(urlencode(changed).encode(), content_type=FORM)

    def without(data: dict[str, Any], *path: str) -> dict[str, Any]:
        copy = json.loads(json.dumps(data))
        target = copy
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        return copy

    def fresh(data: dict[str, Any]) -> dict[str, Any]:
        # Each case is its own delivery (a new trigger), so none is dropped as a repeat.
        data["trigger_id"] = f"{data.get('trigger_id', 'trigger')}.{time.monotonic_ns()}"
        return data

    def forged_variants(data: dict[str, Any], value: str) -> dict[str, Any]:
        # Slack only sends an offered option; a forged or stale form may hold any value.
        copy = json.loads(json.dumps(data))
        for element in copy["view"]["state"]["values"][ids.INPUT_VARIANTS].values():
            element["selected_option"]["value"] = value
        return copy

    button, view = payload(press), payload(submission)
    cases: dict[str, AppResponse] = {
        "block_actions without actions": send_payload(fresh(without(button, "actions"))),
        "block_actions without user": send_payload(fresh(without(button, "user"))),
        "block_actions, user without id": send_payload(fresh(without(button, "user", "id"))),
        "view_submission without view.state": send_payload(fresh(without(view, "view", "state"))),
        "view_submission without view": send_payload(fresh(without(view, "view"))),
        "view_submission without its choices": send_payload(
            fresh(
                without(
                    without(view, "view", "state", "values", "segment"),
                    "view",
                    "state",
                    "values",
                    "use_case",
                )
            )
        ),
        "view_submission asking for 7 variants": send_payload(fresh(forged_variants(view, "7"))),
        "view_submission asking for x variants": send_payload(fresh(forged_variants(view, "x"))),
        "slash command without user_id": send_form(fresh(without(form_of(command), "user_id"))),
        "slash command without channel_id": send_form(
            fresh(without(form_of(command), "channel_id"))
        ),
        "event without user": stage.slack.event(
            {
                "type": "message",
                "channel": stage.channel,
                "text": "hello",
                "ts": "1.000001",
                "thread_ts": root["ts"],
            }
        ),
        "event without event": stage.slack.send(
            json.dumps(
                {"type": "event_callback", "team_id": stage.emu.team_id, "event_id": "Ev0MISSING"}
            ).encode(),
            content_type="application/json",
        ),
    }
    # Never a crash: answered 200 (nothing done where fields are missing), never a 500.
    statuses = {name: answer.status for name, answer in cases.items()}
    assert set(statuses.values()) == {200}, statuses
    assert {n: a.body for n, a in cases.items() if LEAK_SHAPES.search(a.body)} == {}

    # Where a person can be told, they are told plainly.
    empty = json.loads(cases["view_submission without view.state"].body)
    assert empty["errors"] == {"brief_text": t("brief.input_rejected", "en")}
    choose = json.loads(cases["view_submission without its choices"].body)
    assert set(choose["errors"]) == {"segment", "use_case"}
    assert set(choose["errors"].values()) == {t("brief.missing_choice", "en")}
    for forged in ("7", "x"):
        answer = json.loads(cases[f"view_submission asking for {forged} variants"].body)
        assert answer["errors"] == {
            ids.INPUT_VARIANTS: t("brief.variants_out_of_range", "en", most=3)
        }
    # A slash command without its person or channel: told in its ack, in plain words.
    for name in ("slash command without user_id", "slash command without channel_id"):
        assert json.loads(cases[name].body)["text"] == t("error.unreadable_command", "en")

    # Nothing half-done was written, nothing leaked, and the app still serves a real brief.
    wait_quiet(lambda: len(stage.emu.calls()), settle_s=1.0, what="the app")
    assert database_snapshot(stage.data_dir).get("requests") == before
    assert leaks_to_slack(stage) == []
    assert stage.health() == 200
    assert stage.slack.slash_command(ALICE, stage.channel, "brief [i06] Still here").status == 200
    wait_for(lambda: finished(stage, "[i06]"), what="a brief after all that")
