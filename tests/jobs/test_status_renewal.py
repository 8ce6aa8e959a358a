"""Status lines are renewed every minute — well inside the two minutes after which Slack drops
one — for the requests still working, each in its own workspace, and a failing renewal never
stops the next one."""

from __future__ import annotations

from typing import Any

from jobs_helpers import store_only_deps

from suggestbot.installations.scope import current_team
from suggestbot.jobs import status_renewal
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.store.records import Request


class StatusSlack:
    def __init__(self, *, refuse: bool = False) -> None:
        self.calls: list[tuple[str | None, str, str, str]] = []
        self.refuse = refuse

    def assistant_threads_setStatus(self, **call: Any) -> dict[str, Any]:
        if self.refuse:
            raise RuntimeError("Slack is down")
        self.calls.append((current_team(), call["channel_id"], call["thread_ts"], call["status"]))
        return {"ok": True}


def _request(team: str, state: str, root_ts: str | None) -> Request:
    return Request(
        team_id=team,
        user_id="U1",
        channel_id="C1",
        post_channel_id="C1",
        root_ts=root_ts,
        body={"type": "steered_generation", "steering_text": "x"},
        state=state,  # type: ignore[arg-type]
        run_status="running" if state == "submitted" else None,
        attempt=1,
    )


def test_every_working_request_with_a_root_is_renewed_in_its_workspace() -> None:
    slack = StatusSlack()
    deps = store_only_deps(slack=slack)
    for req in (
        _request("T1", "submitted", "1.1"),
        _request("T2", "delayed", "2.2"),
        _request("T1", "done", "3.3"),  # ended: its results cleared the line
        _request("T1", "failed", "4.4"),  # ended: cleared when it failed
        _request("T1", "new", None),  # no root yet: nothing to show it under
    ):
        deps.records.requests.put(req.id, req)
    status_renewal.renew(deps)
    assert sorted(slack.calls) == [
        ("T1", "C1", "1.1", "is writing (attempt 1)…"),
        ("T2", "C1", "2.2", "is waiting: the service is busy, it sends again shortly…"),
    ]


def test_a_failing_renewal_is_logged_and_the_job_keeps_its_minute() -> None:
    deps = store_only_deps(slack=StatusSlack(refuse=True))
    req = _request("T1", "submitted", "1.1")
    deps.records.requests.put(req.id, req)
    status_renewal.renew(deps)  # does not raise
    scheduler = Scheduler(workers=1)
    status_renewal.schedule(scheduler, deps)
    assert status_renewal.JOB_ID in scheduler.job_ids()
    assert status_renewal.EVERY_S <= 60.0  # half of the two minutes Slack keeps a line
