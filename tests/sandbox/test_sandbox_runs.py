"""Generation runs: creation rules and errors (sections 4, 7, 8) and states (section 3)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from sandbox_helpers import TIME_FACTOR, Api, FakeClock, codes

from suggestbot.sandbox import RateLimit, RunTiming, Sandbox
from suggestbot.sandbox import runs as sandbox_runs
from suggestbot.sandbox.records import RunRec

if TYPE_CHECKING:
    from _collections_abc import dict_values


def _step(api: Api, nominal_seconds: float) -> None:
    api.clock.advance(nominal_seconds * TIME_FACTOR)
    api.sandbox.process_due()


def test_run_creation_is_202_queued_with_attempt_count_0_echoing_the_request(api: Api) -> None:
    response = api.steered()
    assert response.status_code == 202
    run = response.json()
    assert run["status"] == "queued"
    assert run["attempt_count"] == 0
    assert run["type"] == "steered_generation"
    assert run["created_by"] == api.demo.user_id
    assert run["request"] == {
        "type": "steered_generation",
        "segment_id": api.demo.segment_id,
        "use_case_id": api.demo.use_case_id,
        "steering_text": "Spring email about our new rain jacket",
        "variant_count": 1,
    }
    assert run["suggestion_set_id"] is None
    assert run["suggestion_id"] is None
    assert run["error"] is None


def test_run_moves_queued_running_succeeded_and_counts_attempts(api: Api) -> None:
    run_id = api.steered().json()["id"]
    _step(api, 0.5)
    assert api.run(run_id)["status"] == "queued"
    _step(api, 0.6)
    running = api.run(run_id)
    assert (running["status"], running["attempt_count"]) == ("running", 1)
    _step(api, 2.0)
    done = api.run(run_id)
    assert (done["status"], done["attempt_count"]) == ("succeeded", 1)
    assert done["suggestion_set_id"] is not None
    assert done["suggestion_id"] is None
    assert done["error"] is None


def test_succeeded_steered_run_has_a_complete_set_of_the_requested_variants(api: Api) -> None:
    found = api.steered_set(variant_count=3)
    assert found["origin"] == "steered"
    assert found["version"] is None
    assert found["steering_text"] == "Spring email about our new rain jacket"
    assert found["created_by"] == api.demo.user_id
    variants = sorted(found["suggestions"], key=lambda s: s["variant_no"])
    assert [v["variant_no"] for v in variants] == [1, 2, 3]
    assert {v["kind"] for v in variants} == {"email"}
    assert len({v["payload"]["subject"] for v in variants}) == 3
    assert all(v["parent_suggestion_id"] is None for v in variants)


def test_stalled_run_returns_to_queued_and_the_next_attempt_raises_attempt_count(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.stall_next_runs = 1
    run_id = api.steered().json()["id"]
    seen = []
    for _ in range(8):
        _step(api, 1.0)
        run = api.run(run_id)
        seen.append((run["status"], run["attempt_count"]))
    assert ("running", 1) in seen
    stalled_at = seen.index(("running", 1)) + 1
    assert ("queued", 1) in seen[stalled_at:]
    assert seen[-1] == ("succeeded", 2)


def test_attempt_longer_than_10_minutes_fails_with_generation_timeout(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.run_timing = RunTiming(queued_s=1, running_s=3600)
    run_id = api.steered().json()["id"]
    _step(api, 1)
    _step(api, 599)
    assert api.run(run_id)["status"] == "running"
    _step(api, 2)
    run = api.run(run_id)
    assert run["status"] == "failed"
    assert run["error"]["code"] == "generation_timeout"
    assert run["error"]["message"]


@pytest.mark.parametrize(
    "code",
    [
        "generation_failed",
        "generation_timeout",
        "steering_disabled",
        "invalid_parent",
        "image_not_applicable",
        "output_rejected",
        "model_overloaded",
    ],
)
def test_each_run_failure_code_can_be_produced_on_demand(
    api: Api, sandbox: Sandbox, code: str
) -> None:
    sandbox.faults.fail_next_runs = [code]
    run = api.finished(api.steered())
    assert run["status"] == "failed"
    assert run["error"]["code"] == code
    assert run["suggestion_set_id"] is None
    # The knob is used up: the next run succeeds.
    assert api.finished(api.steered())["status"] == "succeeded"


def test_switching_steering_off_fails_waiting_runs_with_steering_disabled(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.run_timing = RunTiming(queued_s=3600, running_s=1)
    run_id = api.steered().json()["id"]
    assert sandbox.set_steering(api.demo.tenant_id, False) == 1
    run = api.run(run_id)
    assert run["status"] == "failed"
    assert run["error"]["code"] == "steering_disabled"


def test_run_creation_while_steering_is_off_is_403_steering_disabled(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.set_steering(api.demo.tenant_id, False)
    response = api.steered()
    assert response.status_code == 403
    assert codes(response) == ["steering_disabled"]
    sandbox.set_steering(api.demo.tenant_id, True)
    assert api.steered().status_code == 202


def test_steering_text_over_4000_characters_is_input_too_long(api: Api) -> None:
    # Characters, not bytes: 4000 two-byte characters are fine.
    assert api.steered(steering_text="ä" * 4000).status_code == 202
    response = api.steered(steering_text="ä" * 4001)
    assert response.status_code == 422
    assert codes(response) == ["input_too_long"]


def test_input_too_long_is_checked_after_schema_validation(api: Api) -> None:
    response = api.steered(steering_text="x" * 5000, variant_count=9)
    assert response.status_code == 422
    assert codes(response) == ["validation_error"]


def test_brief_empty_once_trimmed_is_input_rejected(api: Api) -> None:
    for text in ("", "   ", "\n\t "):
        response = api.steered(steering_text=text)
        assert response.status_code == 422
        assert codes(response) == ["input_rejected"]


def test_non_text_in_a_brief_is_input_invalid_encoding(api: Api) -> None:
    for text in ("bell\u0007", "nul\u0000byte", "escape\u001b[0m", "c1\u0085"):
        response = api.steered(steering_text=text)
        assert response.status_code == 422, text
        assert codes(response) == ["input_invalid_encoding"]
    body = {
        "type": "steered_generation",
        "segment_id": api.demo.segment_id,
        "use_case_id": api.demo.use_case_id,
        "steering_text": "half SURROGATE pair",
    }
    # A lone surrogate escape is valid JSON syntax but not text.
    raw = json.dumps(body).replace("SURROGATE", "\\ud800")
    lone = api.http.post(
        "/v1/generation-runs",
        content=raw,
        headers={**api.user, "Content-Type": "application/json"},
    )
    assert codes(lone) == ["input_invalid_encoding"]
    assert api.steered(steering_text="Line one\nLine two\ttabbed\r\n").status_code == 202


def test_brief_refused_by_the_safety_check_is_input_rejected(api: Api, sandbox: Sandbox) -> None:
    response = api.steered(steering_text="Talk about the forbidden fruit")
    assert response.status_code == 422
    assert codes(response) == ["input_rejected"]
    sandbox.faults.refuse_words = ["competitor"]
    assert api.steered(steering_text="Talk about the forbidden fruit").status_code == 202
    assert codes(api.steered(steering_text="Mention our Competitor")) == ["input_rejected"]


def test_generated_content_failing_the_safety_check_fails_with_output_rejected(api: Api) -> None:
    run = api.finished(api.steered(steering_text="Write something unsafe-output please"))
    assert run["status"] == "failed"
    assert run["error"]["code"] == "output_rejected"


def test_variant_count_is_1_to_3_and_defaults_to_1(api: Api) -> None:
    for bad in (0, 4, "2", True, 2.0, None):
        response = api.steered(variant_count=bad)
        assert response.status_code == 422, bad
        assert codes(response) == ["validation_error"]
    assert len(api.steered_set()["suggestions"]) == 1


def test_validation_error_lists_every_schema_failure(api: Api) -> None:
    response = api.http.post(
        "/v1/generation-runs",
        json={
            "type": "steered_generation",
            "segment_id": "NOT-A-UUID",
            "use_case_id": api.demo.use_case_id,
            "variant_count": 7,
            "colour": "blue",
        },
        headers=api.user,
    )
    assert response.status_code == 422
    [entry] = response.json()["errors"]
    assert entry["code"] == "validation_error"
    fields = {f["loc"][-1] for f in entry["details"]["validation"]}
    assert fields == {"segment_id", "steering_text", "variant_count", "colour"}


def test_body_that_is_not_json_or_has_an_unknown_type_is_422(api: Api) -> None:
    cases = [
        (
            {"content": b"type=steered_generation"},
            {"Content-Type": "application/x-www-form-urlencoded"},
        ),
        ({"content": b"{not json"}, {"Content-Type": "application/json"}),
        ({"json": {"type": "translation"}}, {}),
        ({"json": ["steered_generation"]}, {}),
    ]
    for kwargs, headers in cases:
        response = api.http.post("/v1/generation-runs", headers={**api.user, **headers}, **kwargs)
        assert response.status_code == 422
        assert codes(response) == ["validation_error"]


def test_unknown_or_not_set_up_segment_and_unknown_use_case_or_parent_are_404(api: Api) -> None:
    unknown = "0190c0de-0000-7000-8000-000000000000"
    for fields in (
        {"segment_id": unknown},
        {"segment_id": api.demo.unset_segment_id},
        {"use_case_id": unknown},
        {"segment_id": next(iter(api.demo.second.segments.values()))},
    ):
        response = api.steered(**fields)
        assert response.status_code == 404, fields
        assert codes(response) == ["not_found"]
    response = api.refinement(unknown, "Shorter")
    assert response.status_code == 404


def test_refining_a_suggestion_the_caller_may_not_read_is_404(api: Api) -> None:
    _, other = api.new_user()
    theirs = api.steered_set()["suggestions"][0]["id"]
    response = api.refinement(theirs, "Make it shorter", headers=other)
    assert response.status_code == 404
    assert codes(response) == ["not_found"]


def test_image_field_on_content_without_image_is_image_not_applicable(api: Api) -> None:
    email = api.steered_set()["suggestions"][0]
    assert email["kind"] == "email"
    for image in ("reuse", "regenerate"):
        response = api.refinement(email["id"], "Shorter", image=image)
        assert response.status_code == 422
        [entry] = response.json()["errors"]
        assert entry["code"] == "image_not_applicable"
        assert entry["details"] == {"field": "image"}
    accepted = api.refinement(email["id"], "Shorter")
    assert accepted.status_code == 202
    assert accepted.json()["request"]["image"] == "reuse"


def test_run_creation_rate_limit_is_429_rate_limited_with_retry_after(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.run_create_rate_limit = RateLimit(max_runs=2, window_s=60)
    assert api.steered().status_code == 202
    api.clock.advance(10)
    assert api.steered().status_code == 202
    limited = api.steered()
    assert limited.status_code == 429
    assert codes(limited) == ["rate_limited"]
    assert limited.headers["Retry-After"] == "50"
    api.clock.advance(51)
    assert api.steered().status_code == 202


def test_user_sees_only_own_runs_and_machine_sees_every_run(api: Api) -> None:
    mine = api.steered().json()["id"]
    other_id, other = api.new_user()
    theirs = api.steered(headers=other).json()["id"]
    listed_mine = {
        r["id"] for r in api.http.get("/v1/generation-runs", headers=api.user).json()["data"]
    }
    assert mine in listed_mine
    assert theirs not in listed_mine
    hidden = api.http.get(f"/v1/generation-runs/{theirs}", headers=api.user)
    assert hidden.status_code == 404
    machine = {
        r["id"] for r in api.http.get("/v1/generation-runs", headers=api.machine).json()["data"]
    }
    assert {mine, theirs} <= machine
    assert api.run(theirs)["created_by"] == other_id


def test_runs_listed_newest_first_and_failed_runs_keep_their_request(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.fail_next_runs = ["generation_failed"]
    first = api.finished(api.steered(steering_text="First brief"))
    api.clock.advance(1)
    second = api.finished(api.steered(steering_text="Second brief"))
    listed = api.http.get("/v1/generation-runs", headers=api.user).json()["data"]
    assert [r["id"] for r in listed][:2] == [second["id"], first["id"]]
    failed = next(r for r in listed if r["id"] == first["id"])
    assert failed["status"] == "failed"
    assert failed["request"]["steering_text"] == "First brief"


def test_worker_thread_moves_runs_on_its_own() -> None:
    sandbox = Sandbox(time_factor=0.001)
    assert sandbox.demo is not None
    with sandbox.serve() as server, httpx.Client(base_url=server.url) as http:
        headers = {"Authorization": f"Bearer {sandbox.demo.user_token}"}
        body = {
            "type": "steered_generation",
            "segment_id": sandbox.demo.segment_id,
            "use_case_id": sandbox.demo.use_case_id,
            "steering_text": "A newsletter",
        }
        run = http.post("/v1/generation-runs", json=body, headers=headers).json()
        deadline = time.monotonic() + 10
        while run["status"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.01)
            run = http.get(f"/v1/generation-runs/{run['id']}", headers=headers).json()
        assert run["status"] == "succeeded"
        assert run["attempt_count"] == 1


# --- the worker walks the runs only when something can be due ---------------------------------


def _count_run_steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the runs the worker looked at, one entry per look."""
    looked: list[str] = []
    real: Callable[..., bool] = sandbox_runs._advance_run

    def counting(env: Any, run: RunRec, now: datetime) -> bool:
        looked.append(run.id)
        return real(env, run, now)

    monkeypatch.setattr(sandbox_runs, "_advance_run", counting)
    return looked


class _WatchedRuns(dict[str, RunRec]):
    """The runs table, counting how often all of it is read."""

    walks = 0

    def values(self) -> dict_values[str, RunRec]:
        self.walks += 1
        return super().values()


def test_a_run_created_after_a_walk_found_nothing_due_soon_still_moves_on_time(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.run_timing = RunTiming(queued_s=3600, running_s=2)
    later = api.steered().json()["id"]
    _step(api, 1)  # a walk: the only run waits another hour
    sandbox.faults.run_timing = RunTiming(queued_s=1, running_s=2)
    soon = api.steered().json()["id"]
    _step(api, 1.1)
    assert (api.run(soon)["status"], api.run(later)["status"]) == ("running", "queued")
    _step(api, 2)
    assert api.run(soon)["status"] == "succeeded"
    assert api.run(later)["status"] == "queued"


def test_a_ready_made_generation_asked_for_after_a_walk_still_finishes_on_time(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.run_timing = RunTiming(queued_s=3600, running_s=2, precompute_s=1)
    api.steered()
    _step(api, 1)  # a walk: the only run waits another hour
    body = {"segment_id": api.demo.segment_id, "use_case_id": api.demo.use_case_id}
    assert api.http.post("/v1/inspiration", json=body, headers=api.machine).status_code == 202
    _step(api, 1.1)
    params = dict(body, locale="en")
    found = api.http.get("/v1/inspiration", params=params, headers=api.machine).json()["data"]
    assert found[0]["version"] == 2


def test_many_queued_runs_far_from_due_are_not_looked_at_until_they_are_due(
    api: Api, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox.faults.run_timing = RunTiming(queued_s=3600, running_s=2)
    ids = [api.steered().json()["id"] for _ in range(30)]
    looked = _count_run_steps(monkeypatch)
    _step(api, 1)
    assert sorted(looked) == sorted(ids)  # the first walk looks at every run once
    looked.clear()
    for _ in range(20):
        _step(api, 1)
    assert looked == []
    _step(api, 3600)
    assert set(looked) == set(ids)
    assert {api.run(run_id)["status"] for run_id in ids} == {"running"}


def test_finished_runs_are_not_walked_while_nothing_is_in_progress(
    api: Api, sandbox: Sandbox
) -> None:
    for _ in range(3):
        api.steered()
    api.settle()
    state = sandbox.env.state
    watched = _WatchedRuns(state.runs)
    state.runs = watched
    for _ in range(10):
        _step(api, 60)
    assert watched.walks == 0
    run_id = api.steered().json()["id"]
    _step(api, 1.1)
    assert api.run(run_id)["status"] == "running"
    assert watched.walks > 0


def _inspiration_version(api: Api) -> int:
    params = {
        "segment_id": api.demo.segment_id,
        "use_case_id": api.demo.use_case_id,
        "locale": "en",
    }
    found = api.http.get("/v1/inspiration", params=params, headers=api.machine).json()["data"]
    return int(found[0]["version"])


def test_runs_loaded_from_a_file_still_move_and_time_out(tmp_path: Path) -> None:
    clock = FakeClock()
    first = Sandbox(time_factor=TIME_FACTOR, clock=clock, data_dir=tmp_path)
    with first.serve(worker=False) as server:
        api = Api(sandbox=first, clock=clock, url=server.url)
        first.faults.run_timing = RunTiming(queued_s=1, running_s=3600)
        long_one = api.steered().json()["id"]
        _step(api, 1.1)
        assert api.run(long_one)["status"] == "running"
        waiting = api.steered().json()["id"]
        _step(api, 0.5)  # a walk: the next move is the waiting run's start
        api.http.close()

    second = Sandbox(time_factor=TIME_FACTOR, clock=clock, data_dir=tmp_path)
    with second.serve(worker=False) as server:
        api = Api(sandbox=second, clock=clock, url=server.url)
        _step(api, 0.6)
        assert api.run(waiting)["status"] == "running"
        _step(api, 600)  # past the attempt limit of the run that was running when saved
        timed_out = api.run(long_one)
        assert (timed_out["status"], timed_out["error"]["code"]) == ("failed", "generation_timeout")
        api.http.close()


def test_a_ready_made_generation_loaded_from_a_file_still_finishes(tmp_path: Path) -> None:
    clock = FakeClock()
    first = Sandbox(time_factor=TIME_FACTOR, clock=clock, data_dir=tmp_path)
    with first.serve(worker=False) as server:
        api = Api(sandbox=first, clock=clock, url=server.url)
        first.faults.run_timing = RunTiming(precompute_s=1)
        body = {"segment_id": api.demo.segment_id, "use_case_id": api.demo.use_case_id}
        assert api.http.post("/v1/inspiration", json=body, headers=api.machine).status_code == 202
        _step(api, 0.5)  # a walk: the next move is the new version
        assert _inspiration_version(api) == 1
        api.http.close()

    second = Sandbox(time_factor=TIME_FACTOR, clock=clock, data_dir=tmp_path)
    with second.serve(worker=False) as server:
        api = Api(sandbox=second, clock=clock, url=server.url)
        _step(api, 0.6)
        assert _inspiration_version(api) == 2
        api.http.close()
