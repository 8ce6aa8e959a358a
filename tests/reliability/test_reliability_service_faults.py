"""The content service misbehaving every way the contract allows, all at once.

20 % of requests answer 5xx, two endpoints take 2 s more, runs stall, every list comes one item
a page, some suggestions are of a kind nobody knows, errors carry unknown codes and two entries
each, and runs fail with a code the app has never heard of. Every brief must still end with
its result (fewer variants only where the service sent unknown kinds, and then said so) or with
the failure message and buttons its code calls for; and those buttons must work once the
service is well again. No brief may stay "queued", be doubled or vanish.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from reliability_harness import (
    ProcessStage,
    StageFactory,
    buttons_of,
    database_snapshot,
    generic_errors,
    metadata_of,
    poll,
    roots_by_tag,
    runs_by_tag,
    send_brief_by_modal,
    wait_for,
)

from suggestbot.demo.stage import ALICE, BRUNO, CAROL, CHANNEL_LANG
from suggestbot.sandbox.faults import RunTiming
from suggestbot.ui import failures
from suggestbot.ui.messages import t, tn

USERS = (ALICE, BRUNO, CAROL)
VARIANTS = {ALICE: 1, BRUNO: 2, CAROL: 3}  # each person's remembered choice
BRIEFS_UNDER_FAULTS = 15
SETTLE_TIMEOUT_S = 90.0
TAG = re.compile(r"\[s\d{2}\]")
FAULTS: dict[str, Any] = {
    "error_rate_5xx": 0.2,
    "latency_s": {"POST /v1/assets/urls": 2.0, "GET /v1/suggestion-sets/*": 2.0},
    "stall_next_runs": 3,
    "short_pages": 1,
    "unknown_kind_rate": 0.25,
    "multi_error_entries": True,
    "fail_next_runs": ["quota_blown"],
    "unknown_error_codes": [
        {"status": 409, "code": "tenant_frozen", "count": 1, "path": "POST /v1/generation-runs"},
        {"status": 502, "code": "edge_gateway", "count": 1, "path": "POST /v1/generation-runs"},
        {"status": 500, "code": "hiccup", "count": 3, "path": "GET /v1/generation-runs/*"},
    ],
}


def tag(n: int) -> str:
    return f"[s{n:02d}]"


def text_for(n: int) -> str:
    topic = "Instagram post" if n % 2 else "Newsletter"
    return f"{tag(n)} {topic} about the autumn trail days"


def requests_by_id(stage: ProcessStage) -> dict[str, dict[str, Any]]:
    return {k: json.loads(v) for k, v in database_snapshot(stage.data_dir)["requests"].items()}


def outcome(stage: ProcessStage, root: dict[str, Any], user: str) -> str | None:
    """ "ready" or "failed" once the root shows an end exactly as the app must word it."""
    lang = CHANNEL_LANG
    req = requests_by_id(stage).get(metadata_of(root).get("request_id", ""))
    if req is None:
        return None
    if req["state"] == "done":
        ready = tn("root.ready", lang, user=user, count=len(req["variants"]))
        return "ready" if root["text"] == ready else None
    if req["state"] == "failed":
        reason = failures.reason(req["failure"]["code"], lang, detail=req["failure"]["detail"])
        return (
            "failed" if root["text"] == t("root.failed", lang, user=user, reason=reason) else None
        )
    return None


def ends(stage: ProcessStage, sent: dict[str, str]) -> dict[str, str | None]:
    roots = roots_by_tag(stage, TAG)
    return {
        key: outcome(stage, roots[key][0], user) if len(roots.get(key, [])) == 1 else None
        for key, user in sent.items()
    }


def retrying_lines() -> set[str]:
    """Every way a root can say "the service is retrying" (a stall), never a failure."""
    return {
        t(key, CHANNEL_LANG, user=user, attempt=attempt)
        for key in ("root.requeued", "root.running_again")
        for user in USERS
        for attempt in range(1, 6)
    }


@pytest.mark.timeout(300)
def test_every_brief_ends_with_its_result_or_the_right_failure(
    process_stage: StageFactory,
) -> None:
    stage = process_stage(
        "service_faults",
        time_factor=0.02,
        poll_scale=0.02,
        run_timing=RunTiming(queued_s=20.0, running_s=40.0),
    )
    stage.connect_all(*USERS)
    sent: dict[str, str] = {}
    # One brief each while the service is well: the app learns the catalogue and remembers
    # every person's choices, so the rest go straight from the slash command to a run.
    for n, user in enumerate(USERS, start=1):
        answer = send_brief_by_modal(stage, user, text_for(n), variants=VARIANTS[user])
        assert answer.response.status == 200 and not answer.errors
        sent[tag(n)] = user
        wait_for(lambda n=n: roots_by_tag(stage, TAG).get(tag(n)), what=f"the root of {tag(n)}")

    stage.sandbox.faults.update(FAULTS)
    for n in range(len(USERS) + 1, len(USERS) + 1 + BRIEFS_UNDER_FAULTS):
        user = USERS[n % len(USERS)]
        answer = stage.slack.slash_command(user, stage.channel, f"brief {text_for(n)}")
        assert answer.status == 200
        sent[tag(n)] = user

    settled = poll(lambda: all(ends(stage, sent).values()), timeout=SETTLE_TIMEOUT_S)
    seen = ends(stage, sent)
    assert settled, f"unfinished: {[k for k, v in seen.items() if v is None]}"

    roots, requests = roots_by_tag(stage, TAG), requests_by_id(stage)
    assert len(stage.emu.messages(stage.channel)) == len(sent)  # one root each, no strays
    failed: dict[str, dict[str, Any]] = {}
    lang = CHANNEL_LANG  # the roots are in the channel
    for key in sent:
        root = roots[key][0]
        req = requests[metadata_of(root)["request_id"]]
        if seen[key] == "failed":
            code = req["failure"]["code"]
            wanted = failures.buttons(code, request_id=req["id"], is_brief=True)
            assert buttons_of(root) == [t(b.label_key, lang) for b in wanted], (key, code)
            assert buttons_of(root), f"{key} failed with {code} and offers nothing to do"
            failed[key] = root
            continue
        thread = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
        thread = [m for m in thread if metadata_of(m).get("role") != "gallery"]
        numbers = [metadata_of(m).get("variant_no") for m in thread if metadata_of(m)]
        notes = [m["text"] for m in thread if not metadata_of(m)]
        assert len(numbers) == len(set(numbers)) == len(req["variants"]), key
        # Every variant asked for is either shown or accounted for as skipped, and said so.
        assert len(numbers) + req["skipped"] == req["body"]["variant_count"], key
        skipped_note = tn("variant.skipped", lang, count=req["skipped"])
        assert notes == ([skipped_note] if req["skipped"] else []), key

    codes = {requests[metadata_of(roots[k][0])["request_id"]]["failure"]["code"] for k in failed}
    # The deterministic faults really happened, and each was told as what it was.
    assert {"quota_blown", "tenant_frozen", failures.SERVICE_UNAVAILABLE} <= codes
    assert any(r["skipped"] for r in requests.values())
    # A 502 on run creation (accepted or not?) made the app look for the run page by page
    # (one run a page) before telling the person; it never sent the brief a second time.
    assert stage.sandbox.counters.get("GET /v1/generation-runs") >= 2
    updates = {str(c.args.get("text")) for c in stage.emu.calls("chat.update")}
    assert updates & retrying_lines(), "no stalled run was shown as retrying"

    # The buttons are the way out: once the service is well, Retry brings every result.
    stage.sandbox.faults.reset()
    stage.sandbox.faults.run_timing = RunTiming(queued_s=20.0, running_s=40.0)
    for key, root in failed.items():
        stage.slack.press_button(root, t("button.retry", CHANNEL_LANG), user_id=sent[key])
    settled = poll(lambda: set(ends(stage, sent).values()) == {"ready"}, timeout=SETTLE_TIMEOUT_S)
    assert settled, ends(stage, sent)
    assert runs_by_tag(stage, TAG, status="succeeded") == dict.fromkeys(sent, 1)
    assert generic_errors(stage) == []  # no unexpected error reached anyone
    assert len(stage.emu.messages(stage.channel)) == len(sent)
