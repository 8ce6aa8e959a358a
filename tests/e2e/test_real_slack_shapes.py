"""Shapes real Slack sends that once went wrong, over signed HTTP to the real app.

- slash commands whose text, channel name or user name contain "payload" (Bolt 1.30 read
  such form bodies as empty and answered 404, which Slack shows as ``dispatch_failed``);
- a reply with files attached (``file_share``) in a results thread;
- text that is not text (a lone surrogate through a JSON escape) in replies and modals;
- ``tokens_revoked`` and ``app_uninstalled`` for a single-workspace install.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from refine_helpers import brief_thread, connect, refinement_runs, wait_ephemeral_with, wait_turn

from suggestbot.demo.stage import ALICE, Stage, wait_for
from suggestbot.flows.digests.schedule import from_epoch
from suggestbot.flows.digests.wave import run_wave
from suggestbot.flows.linking import accounts as linking
from suggestbot.sandbox import RunTiming
from suggestbot.ui.messages import t

PETE = "U0PAYLOADP"
LONE_SURROGATE = "\ud800"


def said_to(stage: Stage, user: str, text: str, channel: str | None = None) -> bool:
    return text in stage.emu.ephemeral_transcript(user, channel)


def test_slash_commands_that_mention_payload_reach_the_app(stage: Stage) -> None:
    stage.emu.add_user(PETE, "payload.pete", locale="en-US")
    team = stage.emu.add_channel("payload-team", members=[ALICE, PETE])
    stage.emu.invite_bot(team)

    # A user called payload…, in a channel called #payload-team: the help, not dispatch_failed.
    answer = stage.slack.slash_command(PETE, team, "help")
    assert answer.status == 200
    wait_for(lambda: said_to(stage, PETE, "/suggest brief", team), what="the help")
    assert not said_to(stage, PETE, "dispatch_failed")

    # The word in the brief itself: the brief is sent with its text as typed.
    connect(stage, ALICE)
    brief_thread(stage, ALICE, "Spring hiking email")  # remembers Alice's choices
    text = "Our new backpack: its payload capacity is 30 litres"
    answer = stage.slack.slash_command(ALICE, team, f"brief {text}")
    assert answer.status == 200
    state = stage.sandbox.env.state

    def sent() -> bool:
        with state.lock:
            return any(r.request.get("steering_text") == text for r in state.runs.values())

    wait_for(sent, what="the run of the brief that mentions payload")
    assert not said_to(stage, ALICE, "dispatch_failed")


def test_a_file_reply_refines_by_its_text_and_says_files_are_not_used(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the autumn trail-running shoes")
    text = "make it look like this, and shorter"
    posted = stage.slack.reply_with_files(ALICE, stage.channel, text, thread_ts=ts)
    assert posted.delivery is not None and posted.delivery.status == 200
    wait_ephemeral_with(stage, ALICE, t("refine.files_not_used", "en"))
    turn = wait_turn(stage, ts, 2)
    assert text in str(turn["blocks"])
    [run] = refinement_runs(stage)
    assert run.request.instruction == text


def test_a_file_reply_without_text_explains_how_to_refine(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the winter sleeping bag")
    posted = stage.slack.reply_with_files(
        ALICE, stage.channel, "", thread_ts=ts, filenames=("moodboard.png", "brand.pdf")
    )
    assert posted.delivery is not None and posted.delivery.status == 200
    wait_ephemeral_with(stage, ALICE, t("refine.files_without_text", "en"))
    # The explanation comes from the same step that would have started a refinement.
    assert refinement_runs(stage) == []
    assert stage.emu.warnings == []


def test_text_that_is_not_text_gets_the_clear_message_in_replies_and_modals(
    stage: Stage,
) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the rain shell")

    # A thread reply (Events API JSON) holding a lone surrogate.
    posted = stage.slack.post_user_message(
        ALICE, stage.channel, f"shorter {LONE_SURROGATE} please", thread_ts=ts
    )
    assert posted.delivery is not None and posted.delivery.status == 200
    wait_ephemeral_with(stage, ALICE, t("refine.invalid_encoding", "en"))

    # The brief modal: the same sentence as for control characters; the modal stays open.
    refused = stage.brief(ALICE, f"Rain {LONE_SURROGATE} jackets")
    assert list(refused.errors.values()) == [t("brief.input_invalid_encoding", "en")]
    assert stage.emu.current_view(ALICE) is not None
    stage.slack.close_view(ALICE, clear=True)

    # The Refine… modal of a variant.
    variant = stage.emu.messages(stage.channel, thread_ts=ts)[1]
    stage.slack.press_button(variant, t("refine.button", "en"), user_id=ALICE)
    wait_for(lambda: (stage.emu.current_view(ALICE) or {}).get("submit"), what="the refine modal")
    refused = stage.slack.submit_view(
        ALICE, {t("refine.instruction", "en"): f"warmer {LONE_SURROGATE}"}
    )
    assert list(refused.errors.values()) == [t("input.invalid_encoding", "en")]
    stage.slack.close_view(ALICE, clear=True)

    # The draft modal: both fields checked, each told.
    stage.slack.slash_command(ALICE, stage.channel, "draft")
    wait_for(lambda: stage.emu.current_view(ALICE), what="the draft modal")
    draft = stage.slack.submit_view(
        ALICE,
        {
            t("draft.subject", "en"): f"Hello {LONE_SURROGATE}",
            t("draft.body", "en"): "Body with a bell \x07",
        },
    )
    assert set(draft.errors.values()) == {t("input.invalid_encoding", "en")}
    assert len(draft.errors) == 2
    stage.slack.close_view(ALICE, clear=True)

    # The connect modal: a pasted token with a broken character is told, not sent.
    stage.slack.slash_command(ALICE, stage.channel, "connect")
    wait_for(lambda: stage.emu.current_view(ALICE), what="the connect modal")
    refused = stage.slack.submit_view(ALICE, {t("connect.label", "en"): f"sbx_ut_{LONE_SURROGATE}"})
    assert list(refused.errors.values()) == [t("input.invalid_encoding", "en")]
    stage.slack.close_view(ALICE, clear=True)

    assert refinement_runs(stage) == []
    assert stage.runtime is not None
    assert linking.is_linked(stage.runtime.deps, team_id=stage.emu.team_id, user_id=ALICE)
    # And the app still works with good text.
    stage.slack.post_user_message(ALICE, stage.channel, "shorter please", thread_ts=ts)
    wait_turn(stage, ts, 2)


def add_digest_by_modal(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "digest add")
    wait_for(
        lambda: (stage.emu.current_view(ALICE) or {}).get("callback_id") == "digest_add",
        what="the digest modal",
    )
    answer = stage.slack.submit_view(
        ALICE,
        {
            "Segment": "Weekend Hikers",
            "Use case": "Spring Launch",
            "Time": "09:00",
            "Time zone": "Europe/Berlin",
            "Weekdays": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
        },
    )
    assert answer.errors == {}
    assert stage.runtime is not None
    digests = stage.runtime.deps.records.digests
    # The submission is recorded before its ack and carried out after it.
    wait_for(lambda: list(digests.values()), what="the digest")


def requests_by_state(stage: Stage) -> dict[str, list[Any]]:
    assert stage.runtime is not None
    found: dict[str, list[Any]] = {}
    for request in stage.runtime.deps.records.requests.values():
        found.setdefault(request.state, []).append(request)
    return found


def slack_writes(stage: Stage) -> int:
    return sum(1 for c in stage.emu.calls() if c.method.startswith(("chat.", "views.")))


@pytest.mark.parametrize("how", ["bot token revoked", "app uninstalled"])
def test_revocation_stops_the_work_of_a_single_workspace_install(
    stage: Stage, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    connect(stage, ALICE)
    add_digest_by_modal(stage)
    # A brief still queued in the service when the token dies.
    stage.sandbox.faults.run_timing = RunTiming(queued_s=3000.0, running_s=3000.0)
    assert stage.brief(ALICE, "Email for the hut-to-hut tour").errors == {}
    wait_for(lambda: requests_by_state(stage).get("submitted"), what="the run to be watched")

    if how == "bot token revoked":
        answers = [stage.slack.revoke_tokens(bot=True)]
        expected_line = "the bot token of workspace"
    else:
        answers = list(stage.slack.uninstall_app())
        expected_line = "the app was uninstalled from workspace"
    assert [a.status for a in answers] == [200] * len(answers)

    assert stage.runtime is not None
    deps = stage.runtime.deps
    wait_for(lambda: requests_by_state(stage).get("failed"), what="the run to be stopped")
    assert not any(
        state in requests_by_state(stage) for state in ("recorded", "submitted", "posted")
    )
    # The stop fails the requests first, then pauses the digests: wait for the pause too.
    wait_for(
        lambda: all(d.paused for d in deps.records.digests.values()),
        what="the digest to be paused",
    )
    [digest] = deps.records.digests.values()
    assert digest.paused
    # The operator's line follows the stop it reports: wait for it, then make sure it is one.
    wait_for(
        lambda: [r for r in caplog.records if expected_line in r.getMessage()],
        what="the operator's log line",
    )
    lines = [r for r in caplog.records if expected_line in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert stage.emu.bot_token not in caplog.text
    linked = linking.is_linked(deps, team_id=stage.emu.team_id, user_id=ALICE)
    assert linked is (how == "bot token revoked")

    # Nothing more is posted with the dead token: the run is no longer watched, and the next
    # wave finds the digest paused.
    [failed] = requests_by_state(stage)["failed"]
    watching = stage.runtime.timers.watching
    # A poll already in flight when the work stopped may come round once more; it finds the
    # request ended and drops it.
    wait_for(lambda: watching.due_at(failed.id) is None, what="the run to leave the watch list")
    before = slack_writes(stage)
    report = run_wave(deps, now=from_epoch(time.time() + 86_400))
    assert (report.due, report.posted, report.lines) == (0, 0, 0)
    # Nor the root's progress that was waiting to be shown (it settles for a few seconds).
    assert stage.runtime.outbound is not None
    time.sleep(stage.runtime.outbound.roots.settle_s + 0.5)
    assert slack_writes(stage) == before


def test_revoked_user_tokens_alone_are_answered_and_stop_nothing(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    connect(stage, ALICE)
    add_digest_by_modal(stage)
    answer = stage.slack.revoke_tokens(user_ids=(ALICE,))
    assert answer.status == 200
    wait_for(
        lambda: any("keeps no Slack user tokens" in r.getMessage() for r in caplog.records),
        what="the operator's line",
    )
    assert stage.runtime is not None
    [digest] = stage.runtime.deps.records.digests.values()
    assert not digest.paused
    assert stage.slack.slash_command(ALICE, stage.channel, "help").status == 200
