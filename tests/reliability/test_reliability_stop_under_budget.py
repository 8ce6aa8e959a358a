"""A stop is not held by Slack's budget, and what it left is posted after the next start.

Briefs poured into one channel queue at Slack's one post a second: a backlog of minutes. On
SIGTERM the app does not wait that out (an orchestrator kills a process that takes longer
than its grace period, 20 s here as in the harness): calls waiting for the budget are given up
as if Slack were out of reach, the process exits cleanly, and the next start posts every brief
once.
"""

from __future__ import annotations

import re

import pytest
from reliability_harness import (
    StageFactory,
    result_problems,
    roots_by_tag,
    runs_by_tag,
    send_brief_by_modal,
    wait_for,
    wait_quiet,
)

from suggestbot.demo.stage import ALICE

TAG = re.compile(r"\[s\d{2}\]")
# Two posts a brief (root, variant) into one channel: about 50 s of posts at one a second.
BRIEFS = 25
RESULT_TIMEOUT_S = 180.0

# Two app starts and a minute of posts at one a second: more than the suite's default limit.
pytestmark = pytest.mark.timeout(400)


def test_sigterm_with_a_backlog_of_posts_exits_cleanly_and_loses_nothing(
    process_stage: StageFactory,
) -> None:
    stage = process_stage("backlog")  # the app's gate on: it keeps to one post a second
    stage.connect(ALICE)
    send_brief_by_modal(stage, ALICE, "[s00] Email for the spring launch", variants=1)
    wait_for(lambda: roots_by_tag(stage, TAG).get("[s00]"), what="the first brief")
    tags = [f"[s{n:02d}]" for n in range(1, BRIEFS + 1)]
    for tag in tags:
        answer = stage.slack.slash_command(ALICE, stage.channel, f"brief {tag} Summer fair")
        assert answer.status == 200
    wait_for(
        lambda: len(roots_by_tag(stage, TAG)) >= 4, what="the backlog's first posts", timeout=60
    )

    process = stage.process
    assert process is not None
    stage.stop_app()  # SIGTERM; killed if it takes longer than the grace period
    assert process.returncode == 0, "the stop waited for Slack's budget past its grace"
    posted = roots_by_tag(stage, TAG)
    assert len(posted) < BRIEFS + 1, "no backlog was left: the test proves nothing"

    stage.start_app()

    def problems() -> dict[str, list[str]]:
        found = roots_by_tag(stage, TAG)
        return {
            tag: result_problems(stage, found[tag][0], user=ALICE, variants=1)
            if tag in found
            else ["no root"]
            for tag in tags
            if tag not in found or result_problems(stage, found[tag][0], user=ALICE, variants=1)
        }

    wait_for(
        lambda: not problems(),
        timeout=RESULT_TIMEOUT_S,
        what="every brief's result after the restart",
        detail=lambda: str(problems()),
    )
    roots = wait_quiet(lambda: roots_by_tag(stage, TAG), settle_s=2.0, timeout=60)
    assert {tag: len(found) for tag, found in roots.items() if len(found) != 1} == {}
    runs = runs_by_tag(stage, TAG)
    assert {tag: runs.get(tag) for tag in tags} == dict.fromkeys(tags, 1)
