"""The one wording of a request's status, for briefs and refinements, and the messages built
around it — checked on their output and against Slack's Block Kit limits."""

from __future__ import annotations

import pytest

from suggestbot.slackemu.blockkit import check_message
from suggestbot.store.records import Failure
from suggestbot.ui import failures
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.requests import (
    BriefShown,
    Phase,
    RequestStatus,
    build_brief_root,
    build_connect_prompt,
    build_refinement_reply,
    status_line,
)
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.messages import t, tn


def _status(kind: str = "brief", phase: Phase = Phase.QUEUED, **extra: object) -> RequestStatus:
    return RequestStatus(kind=kind, phase=phase, author="U1", **extra)  # type: ignore[arg-type]


def _valid(message: Message) -> None:
    errors, too_long = check_message(blocks=message.blocks, slack_file_check=lambda _: None)
    assert errors == [] and too_long is None


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize(
    ("phase", "extra", "brief_key", "refinement_key"),
    [
        (Phase.SENDING, {}, "root.sending", "turn.sending"),
        (Phase.WAITING_USER, {}, "root.waiting_for_user", "turn.waiting_for_user"),
        (Phase.QUEUED, {}, "root.queued", "turn.queued"),
        (Phase.REQUEUED, {"attempt": 2}, "root.requeued", "turn.requeued"),
        (Phase.RUNNING, {"attempt": 1}, "root.running", "turn.running"),
        (Phase.RUNNING, {"attempt": 3}, "root.running_again", "turn.running"),
        (Phase.POSTING, {"attempt": 3}, "root.running", "turn.running"),
    ],
)
def test_one_status_is_worded_for_a_brief_and_for_a_refinement(
    lang: str, phase: Phase, extra: dict[str, int], brief_key: str, refinement_key: str
) -> None:
    attempt = max(extra.get("attempt", 0), 1) if phase in (Phase.RUNNING, Phase.POSTING) else 2
    for kind, key in (("brief", brief_key), ("refinement", refinement_key)):
        said = status_line(lang=lang, status=_status(kind, phase, **extra))
        assert said == t(key, lang, user="U1", attempt=attempt)


def test_a_delayed_request_names_its_send_time_in_the_reader_s_clock() -> None:
    said = status_line(lang="en", status=_status(phase=Phase.DELAYED, send_after=1_700_000_000))
    assert "<!date^1700000000^{time_secs}|10:13:20\u202fPM UTC>" in said


def test_done_counts_the_variants_of_a_brief_only() -> None:
    assert "3 suggestions" in status_line(lang="en", status=_status(phase=Phase.DONE, variants=3))
    done = status_line(lang="en", status=_status("refinement", Phase.DONE))
    assert done == t("turn.done", "en", user="U1")


def test_a_failure_is_told_in_terms_of_what_was_sent() -> None:
    too_long = Failure(code="input_too_long")
    as_brief = status_line(lang="en", status=_status(phase=Phase.FAILED, failure=too_long))
    as_reply = status_line(lang="en", status=_status("refinement", Phase.FAILED, failure=too_long))
    assert as_brief.endswith(failures.reason("input_too_long", "en", is_brief=True))
    assert as_reply.endswith(failures.reason("input_too_long", "en", is_brief=False))
    hidden = _status("refinement", Phase.FAILED, failure=Failure(code=failures.NOT_FOUND))
    assert t("refine.not_visible_reason", "en") in status_line(lang="en", status=hidden)


def test_a_brief_root_shows_the_brief_its_choices_and_the_buttons_its_failure_allows() -> None:
    failed = _status(phase=Phase.FAILED, failure=Failure(code="generation_timeout"))
    shown = BriefShown(text="Boots <now>", variants=2, segment="Hikers", use_case="Spring")
    message = build_brief_root(lang="en", status=failed, request_id="r1", brief=shown)
    blocks = {b["block_id"]: b for b in message.blocks}
    assert blocks["brief"]["text"]["text"] == "> Boots &lt;now&gt;"
    assert blocks["context"]["elements"][0]["text"] == "Hikers · Spring · 2 variants"
    assert [e["action_id"] for e in blocks["actions"]["elements"]] == [
        ids.ACTION_RETRY,
        ids.ACTION_EDIT_RESEND,
    ]
    _valid(message)


def test_a_quick_brief_names_the_remembered_choices_with_a_change_button() -> None:
    shown = BriefShown(text="Boots", variants=1, segment="A<b>", use_case="C", reused=True)
    message = build_brief_root(lang="en", status=_status(), request_id="r1", brief=shown)
    reused = next(b for b in message.blocks if b["block_id"] == "reused")
    assert reused["text"]["text"] == tn(
        "brief.using_defaults", "en", user="U1", segment="A&lt;b&gt;", use_case="C", count=1
    )
    assert reused["accessory"]["action_id"] == ids.ACTION_CHANGE_DEFAULTS
    assert all(b["block_id"] != "context" for b in message.blocks)
    unknown = build_brief_root(
        lang="en", status=_status(), request_id="r1", brief=BriefShown(text="x", variants=1)
    )
    assert all(b["block_id"] != "context" for b in unknown.blocks)  # no names: no line


def test_a_refinement_reply_quotes_the_instruction_and_carries_the_status() -> None:
    message = build_refinement_reply(
        lang="de", status=_status("refinement"), request_id="r1", instruction="kürzer"
    )
    assert message.text == t("turn.queued", "de", user="U1")
    assert "> kürzer" in str(message.blocks)
    _valid(message)


@pytest.mark.parametrize(
    ("reason", "key"),
    [
        ("not_linked", "connect.needed"),
        ("rejected", "connect.expired_kept"),
        ("unreadable", "connect.unreadable_kept"),
    ],
)
def test_the_connect_prompt_says_why_and_resends_the_request(reason: str, key: str) -> None:
    message = build_connect_prompt(lang="en", reason=reason, request_id="r1")  # type: ignore[arg-type]
    assert message.text == t(key, "en")
    [row] = [b for b in message.blocks if b["type"] == "actions"]
    assert [(e["action_id"], e["value"]) for e in row["elements"]] == [
        (ids.ACTION_CONNECT, "r1"),
        (ids.ACTION_RETRY, "r1"),
    ]
