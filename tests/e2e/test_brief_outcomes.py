"""What a user sees for each way a brief can end: stalls, failures by code, rate limits,
rejected tokens, a bot that is not in the channel, bad input."""

from __future__ import annotations

import time

import pytest

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for
from suggestbot.jobs import retention
from suggestbot.sandbox.faults import RateLimit
from suggestbot.ui.messages import t


def root_of(stage: Stage, channel: str | None = None) -> dict:
    return wait_for(
        lambda: next(iter(stage.emu.messages(channel or stage.channel)), None), what="a root"
    )


def root_text(stage: Stage) -> str:
    """The channel as people see it, without its title line ("" before anything is posted)."""
    return stage.emu.transcript(stage.channel).partition("\n")[2]


def buttons(message: dict) -> list[str]:
    return [
        e["text"]["text"]
        for b in message.get("blocks", [])
        if b["type"] == "actions"
        for e in b["elements"]
    ]


def updates_of_root(stage: Stage) -> list[str]:
    return [c.args.get("text", "") for c in stage.emu.calls("chat.update")]


def test_a_stall_shows_as_retrying_never_as_a_failure(stage: Stage) -> None:
    stage.sandbox.faults.stall_next_runs = 1
    stage.connect(ALICE)
    stage.brief(ALICE, "Stalling brief for the spring launch")
    wait_for(lambda: "are ready" in root_text(stage), what="the result")
    shown = updates_of_root(stage)
    # Seen as "back in the queue" or as "attempt 2, retrying", depending on when polls land.
    assert any("retrying" in text for text in shown), shown
    assert not any("failed" in text for text in shown)


def test_the_root_is_never_updated_to_the_words_it_already_shows(stage: Stage) -> None:
    stage.connect(ALICE)
    stage.brief(ALICE, "No redundant steps please")
    wait_for(lambda: "are ready" in root_text(stage), what="the result")
    posted = next(
        c.args.get("text", "")
        for c in stage.emu.calls("chat.postMessage")
        if "No redundant" in str(c.args.get("blocks"))
    )
    assert "Sending" in posted
    shown = updates_of_root(stage)
    assert shown and not any("Sending" in text for text in shown), shown


@pytest.mark.parametrize(
    ("code", "says", "offered"),
    [
        ("generation_failed", "failed while generating", ["Retry"]),
        ("generation_timeout", "ran out of time", ["Retry", "Edit and resend"]),
        ("steering_disabled", "retrying will not help", []),
        ("output_rejected", "Reword the brief", ["Edit and resend"]),
        ("quota_blown", "did not explain", ["Retry"]),
    ],
)
def test_each_failure_code_says_what_to_do(
    stage: Stage, code: str, says: str, offered: list[str]
) -> None:
    stage.sandbox.faults.fail_next_runs = [code]
    stage.connect(ALICE)
    stage.brief(ALICE, "A brief that will fail")
    wait_for(lambda: "failed" in root_text(stage), what="the failure")
    root = root_of(stage)
    assert says in root_text(stage)
    assert buttons(root) == offered
    small_print = [b for b in root["blocks"] if b.get("block_id") == "fine-print"]
    if code == "quota_blown":  # a code the app does not know: named only in small print
        assert "quota_blown" not in root["blocks"][0]["text"]["text"]
        assert [b["type"] for b in small_print] == ["context"]
        assert "`quota_blown`" in small_print[0]["elements"][0]["text"]
    else:
        assert small_print == []


def test_retry_after_a_failure_sends_again_in_place(stage: Stage) -> None:
    stage.sandbox.faults.fail_next_runs = ["generation_failed"]
    stage.connect(ALICE)
    stage.brief(ALICE, "Try twice")
    wait_for(lambda: "failed" in root_text(stage), what="the failure")
    stage.slack.press_button(root_of(stage), "Retry", user_id=ALICE)
    wait_for(lambda: "are ready" in root_text(stage), what="the retried result")
    assert len(stage.emu.messages(stage.channel)) == 1  # same root, updated in place


def test_only_the_author_may_retry(stage: Stage) -> None:
    stage.sandbox.faults.fail_next_runs = ["generation_failed"]
    stage.connect(ALICE)
    stage.brief(ALICE, "Mine to retry")
    wait_for(lambda: "failed" in root_text(stage), what="the failure")
    stage.slack.press_button(root_of(stage), "Retry", user_id=BRUNO)
    wait_for(lambda: stage.emu.ephemerals(BRUNO), what="an explanation for bruno")
    assert "U0ALICE" in stage.emu.ephemeral_transcript(BRUNO)
    assert "failed" in root_text(stage)


def test_edit_and_resend_opens_the_brief_prefilled_and_resends(stage: Stage) -> None:
    stage.sandbox.faults.fail_next_runs = ["output_rejected"]
    stage.connect(ALICE)
    stage.brief(ALICE, "unsafe idea for a launch")
    wait_for(lambda: "failed" in root_text(stage), what="the failure")
    stage.slack.press_button(root_of(stage), "Edit and resend", user_id=ALICE)
    view = wait_for(lambda: stage.emu.current_view(ALICE), what="the prefilled modal")
    assert "unsafe idea for a launch" in str(view)
    stage.slack.submit_view(ALICE, {"Brief": "a safe idea for a launch"})
    wait_for(lambda: "are ready" in root_text(stage), what="the resent result")
    assert "a safe idea for a launch" in root_text(stage)


def test_rate_limited_brief_is_sent_automatically_after_retry_after(stage: Stage) -> None:
    stage.sandbox.faults.run_create_rate_limit = RateLimit(max_runs=1, window_s=2)
    stage.connect(ALICE)
    stage.brief(ALICE, "first")
    stage.brief(ALICE, "second")
    wait_for(
        lambda: any("sent automatically" in t for t in updates_of_root(stage)),
        what="the delayed notice",
    )
    wait_for(
        lambda: stage.emu.transcript(stage.channel).count("are ready") == 2,
        timeout=20,
        what="both results",
    )


def test_a_rejected_user_token_asks_to_reconnect_and_keeps_the_brief(stage: Stage) -> None:
    token = stage.user_token()
    stage.connect(ALICE, token)
    stage.sandbox.revoke_user_token(token)
    stage.brief(ALICE, "Kept while I reconnect")
    wait_for(lambda: "waiting" in root_text(stage), what="the waiting root")
    root = root_of(stage)
    assert buttons(root) == []  # the public root offers nobody buttons meant for Alice
    asked = wait_for(
        lambda: next(
            (e for e in stage.emu.ephemerals(ALICE) if "no longer accepts" in str(e)), None
        ),
        what="Alice's own prompt to reconnect",
    )
    assert buttons(asked) == ["Connect account", "Resend"]
    assert "resent with one click" not in stage.emu.ephemeral_transcript(ALICE)
    stage.slack.press_button(asked, "Connect account", user_id=ALICE)
    wait_for(lambda: stage.emu.current_view(ALICE), what="the connect modal")
    before = len(stage.emu.ephemerals(ALICE))
    stage.slack.submit_view(ALICE, {"Personal token": stage.user_token()})
    wait_for(lambda: len(stage.emu.ephemerals(ALICE)) > before, what="connected")
    stage.slack.press_button(asked, "Resend", user_id=ALICE)
    wait_for(lambda: "are ready" in root_text(stage), what="the resent result")
    assert "Kept while I reconnect" in root_text(stage)


def test_bot_not_in_channel_explains_and_delivers_by_dm(stage: Stage) -> None:
    stage.connect(ALICE)
    stage.brief(ALICE, "Results by DM please", channel=stage.quiet_channel)
    dm = stage.emu.dm_channel(ALICE)
    wait_for(lambda: "are ready" in stage.emu.transcript(dm), what="the DM result")
    assert "/invite @suggestbot" in stage.emu.ephemeral_transcript(ALICE)
    assert stage.emu.messages(stage.quiet_channel) == []


def test_unlinked_user_is_prompted_and_the_brief_is_kept_for_one_click(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "brief Remember me until I connect")
    wait_for(lambda: stage.emu.ephemerals(ALICE), what="the connect prompt")
    prompt = stage.emu.ephemerals(ALICE)[-1]
    assert "connect your content service account first" in stage.emu.ephemeral_transcript(ALICE)
    stage.slack.press_button(prompt, "Connect account", user_id=ALICE)
    wait_for(lambda: stage.emu.current_view(ALICE), what="the connect modal")
    stage.slack.submit_view(ALICE, {"Personal token": stage.user_token()})
    resend = wait_for(
        lambda: next(
            (e for e in stage.emu.ephemerals(ALICE)[1:] if "Your brief is kept" in str(e)), None
        ),
        what="the resend offer",
        detail=lambda: stage.emu.ephemeral_transcript(ALICE),
    )
    stage.slack.press_button(resend, "Resend", user_id=ALICE)
    view = wait_for(
        lambda: (
            (stage.emu.current_view(ALICE) or {}).get("submit") and stage.emu.current_view(ALICE)
        ),
        what="the brief modal",
    )
    assert view["callback_id"] == "brief"
    assert "Remember me until I connect" in str(view)


def test_a_resend_pressed_after_the_text_was_forgotten_says_so(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "brief Typed long ago, never sent")
    wait_for(lambda: stage.emu.ephemerals(ALICE), what="the connect prompt")
    prompt = stage.emu.ephemerals(ALICE)[-1]
    deps = stage.runtime.deps if stage.runtime else None
    assert deps is not None
    now = time.time()
    deps.clock = lambda: now + 31 * 24 * 3600  # a month later
    assert retention.prune_unsent(deps) == 1
    deps.clock = time.time

    stage.slack.press_button(prompt, "Resend", user_id=ALICE)

    wait_for(
        lambda: "no longer kept" in stage.emu.ephemeral_transcript(ALICE),
        what="the explanation",
        detail=lambda: stage.emu.ephemeral_transcript(ALICE),
    )
    assert stage.emu.current_view(ALICE) is None


def test_a_rejected_token_is_an_error_in_the_modal_which_stays_open(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "connect")
    wait_for(lambda: stage.emu.current_view(ALICE), what="the connect modal")
    answer = stage.slack.submit_view(ALICE, {"Personal token": "sbx_ut_not-a-real-token"})
    assert answer.errors == {"Personal token": t("connect.rejected", "en")}
    view = stage.emu.current_view(ALICE)
    assert view is not None and view["callback_id"] == "connect"
    typed = [v.get("value") for block in view["state"]["values"].values() for v in block.values()]
    assert typed == ["sbx_ut_not-a-real-token"]  # what was typed is still there to correct
    assert "did not accept" not in stage.emu.ephemeral_transcript(ALICE)
    assert "sbx_ut_not-a-real-token" not in stage.emu.ephemeral_transcript(ALICE)
    # Corrected in the same modal, it connects.
    answer = stage.slack.submit_view(ALICE, {"Personal token": stage.user_token()})
    assert answer.errors == {}
    wait_for(lambda: "account is connected" in stage.emu.ephemeral_transcript(ALICE))
    stage.slack.slash_command(ALICE, stage.channel, "disconnect")
    stage.slack.slash_command(ALICE, stage.channel, "status")
    wait_for(lambda: "No account is connected" in stage.emu.ephemeral_transcript(ALICE))


def test_bad_briefs_are_field_errors_before_anything_is_sent(stage: Stage) -> None:
    stage.connect(ALICE)
    answer = stage.brief(ALICE, "bad \x07 bell")
    assert "control characters" in " ".join(answer.errors.values())
    answer = stage.slack.submit_view(ALICE, {"Brief": "   "})
    assert answer.errors  # empty once trimmed (Slack itself refuses an empty required input)
    assert stage.sandbox.counters.get("POST /v1/generation-runs") == 0


def test_a_brief_too_long_for_the_service_is_refused_and_handed_back(stage: Stage) -> None:
    stage.connect(ALICE)
    text = "word " * 820  # 4100 characters
    stage.slack.slash_command(ALICE, stage.channel, "brief " + text)
    wait_for(lambda: "at most 4,000" in stage.emu.ephemeral_transcript(ALICE), what="refusal")
    shown = stage.emu.ephemeral_transcript(ALICE)
    assert shown.count("word") >= 820
    assert stage.sandbox.counters.get("POST /v1/generation-runs") == 0


def test_a_german_user_reads_their_own_in_german_and_the_channel_its_language(
    stage: Stage,
) -> None:
    stage.connect(BRUNO)
    stage.brief(BRUNO, "Frühjahrsaktion für Wanderer")
    wait_for(lambda: "are ready" in root_text(stage), what="the result, in the channel's English")
    reply = stage.emu.messages(stage.channel, thread_ts=root_of(stage)["ts"])[1]
    assert reply["blocks"][0]["text"]["text"].startswith("Variant 1 of 1")
    assert "Dein Konto ist verknüpft" in stage.emu.ephemeral_transcript(BRUNO)  # his own
    stage.set_channel_language("de")  # an admin picked German on Home
    stage.brief(BRUNO, "Noch eine Frühjahrsaktion")
    wait_for(lambda: "sind fertig" in root_text(stage), what="the result, in German")
    newest = stage.emu.messages(stage.channel)[-1]
    reply = stage.emu.messages(stage.channel, thread_ts=newest["ts"])[1]
    assert reply["blocks"][0]["text"]["text"].startswith("Variante 1 von 1")


def test_unknown_subcommand_shows_help(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "frobnicate")
    wait_for(lambda: "frobnicate" in stage.emu.ephemeral_transcript(ALICE), what="help")
    assert "/suggest brief" in stage.emu.ephemeral_transcript(ALICE)


@pytest.mark.parametrize("length", [3999, 4000])
def test_a_word_as_long_as_slack_allows_gets_the_help_with_its_start(
    stage: Stage, length: int
) -> None:
    word = "q" * length
    assert stage.slack.slash_command(ALICE, stage.channel, word).status == 200
    wait_for(lambda: "/suggest brief" in stage.emu.ephemeral_transcript(ALICE), what="help")
    shown = stage.emu.ephemeral_transcript(ALICE)
    assert "q" * 99 + "…" in shown and "q" * 100 not in shown  # its start, marked as cut
    assert "went wrong" not in shown


def test_refresh_preview_mints_again_and_updates_the_message(stage: Stage) -> None:
    stage.connect(ALICE)
    stage.brief(ALICE, "Instagram post for the trail season")
    wait_for(lambda: "are ready" in root_text(stage), what="the result")
    root = root_of(stage)
    variant = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1]
    before = next(b["image_url"] for b in variant["blocks"] if b["type"] == "image")
    mints = stage.sandbox.counters.get("POST /v1/assets/urls")
    stage.slack.press_button(variant, "Refresh preview", user_id=ALICE)
    wait_for(lambda: stage.sandbox.counters.get("POST /v1/assets/urls") == mints + 1)

    def new_url() -> str | None:
        blocks = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1]["blocks"]
        urls = [b["image_url"] for b in blocks if b["type"] == "image"]
        return urls[0] if urls and urls[0] != before else None

    after = wait_for(new_url, what="the message to show a newly minted URL")
    assert after != before
