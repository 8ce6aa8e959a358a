"""Fault knobs: the sandbox misbehaving on purpose, from Python and over the admin surface."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError
from sandbox_helpers import Api, codes

from suggestbot.sandbox import ADMIN_KEY_HEADER, Faults, InjectedError, Sandbox

ADMIN = {ADMIN_KEY_HEADER: "test-admin-key"}


def test_latency_knob_delays_only_matching_endpoints(api: Api, sandbox: Sandbox) -> None:
    sandbox.faults.latency_s = {"GET /v1/use-cases": 1.0}
    with httpx.Client(base_url=api.url, timeout=0.2, verify=False) as impatient:
        with pytest.raises(httpx.ReadTimeout):
            impatient.get("/v1/use-cases", headers=api.machine)
        assert impatient.get("/v1/segments", headers=api.machine).status_code == 200


def test_latency_patterns_match_path_with_or_without_method() -> None:
    faults = Faults(latency_s={"/v1/generation-runs/*": 0.3, "POST /v1/inspiration": 0.7})
    assert faults.latency_for("GET", "/v1/generation-runs/abc") == 0.3
    assert faults.latency_for("POST", "/v1/inspiration") == 0.7
    assert faults.latency_for("GET", "/v1/inspiration") == 0.0


def test_error_rate_and_next_5xx_answer_503_with_an_envelope(api: Api, sandbox: Sandbox) -> None:
    sandbox.faults.next_5xx = 2
    first = api.http.get("/v1/segments", headers=api.machine)
    assert first.status_code == 503
    assert codes(first) == ["service_unavailable"]
    assert api.http.get("/v1/segments", headers=api.machine).status_code == 503
    assert api.http.get("/v1/segments", headers=api.machine).status_code == 200
    sandbox.faults.error_rate_5xx = 1.0
    assert api.http.get("/v1/segments", headers=api.machine).status_code == 503
    sandbox.faults.error_rate_5xx = 0.5
    statuses = {api.http.get("/v1/segments", headers=api.machine).status_code for _ in range(40)}
    assert statuses == {200, 503}


def test_unknown_kind_rate_mixes_unknown_kinds_into_sets(api: Api, sandbox: Sandbox) -> None:
    sandbox.faults.unknown_kind_rate = 0.5
    sandbox.run_precompute(api.demo.tenant_id)
    sets = api.http.get("/v1/suggestion-sets", params={"limit": "6"}, headers=api.machine)
    kinds = [s["kind"] for found in sets.json()["data"] for s in found["suggestions"]]
    assert "video_story" in kinds
    assert {"email", "social_single_image"} & set(kinds)
    sandbox.faults.unknown_kind_rate = 1.0
    steered = api.steered_set(variant_count=2)
    assert [s["kind"] for s in steered["suggestions"]] == ["video_story", "video_story"]


def test_unknown_error_codes_answer_the_next_n_matching_requests(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.unknown_error_codes = [
        InjectedError(status=403, code="quota_exceeded", count=2, path="/v1/segments")
    ]
    assert api.http.get("/v1/use-cases", headers=api.machine).status_code == 200
    for _ in range(2):
        response = api.http.get("/v1/segments", headers=api.machine)
        assert response.status_code == 403
        assert codes(response) == ["quota_exceeded"]
    assert api.http.get("/v1/segments", headers=api.machine).status_code == 200


def test_multi_error_entries_puts_several_entries_in_errors(api: Api, sandbox: Sandbox) -> None:
    sandbox.faults.multi_error_entries = True
    response = api.steered(variant_count=5)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert len(errors) == 2
    assert errors[0]["code"] == "validation_error"
    assert all(e["message"] for e in errors)


def test_short_pages_are_shorter_than_limit_and_only_a_null_cursor_ends(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.short_pages = 2
    pages, seen, cursor = 0, [], None
    while True:
        params = {"limit": "5"} | ({"cursor": cursor} if cursor else {})
        page = api.http.get("/v1/suggestion-sets", params=params, headers=api.machine).json()
        pages += 1
        assert len(page["data"]) <= 2
        seen += [s["id"] for s in page["data"]]
        cursor = page["meta"]["next_cursor"]
        if cursor is None:
            assert page["data"] == []
            break
        assert len(page["data"]) < 5
    assert len(seen) == len(set(seen)) == 6
    assert pages == 4


def test_overlapping_pages_repeat_items_but_always_move_on(api: Api, sandbox: Sandbox) -> None:
    sandbox.faults.overlap_pages = 1
    listed, cursor, pages = [], None, 0
    while True:
        params = {"limit": "3"} | ({"cursor": cursor} if cursor else {})
        page = api.http.get("/v1/suggestion-sets", params=params, headers=api.machine).json()
        pages += 1
        listed += [s["id"] for s in page["data"]]
        cursor = page["meta"]["next_cursor"]
        if cursor is None:
            break
        assert pages < 10
    assert len(listed) > len(set(listed)) == 6  # every set, some of them twice
    assert listed[2] == listed[3]  # the next page starts with the last one shown


def test_request_counters_count_each_endpoint(api: Api, sandbox: Sandbox) -> None:
    sandbox.counters.reset()
    params = {
        "segment_id": api.demo.segment_id,
        "use_case_id": api.demo.use_case_id,
        "locale": "en",
    }
    for _ in range(2):
        api.http.get("/v1/inspiration", params=params, headers=api.machine)
    run_id = api.steered().json()["id"]
    api.run(run_id)
    api.run(run_id)
    api.run(run_id)
    assert sandbox.counters.get("GET /v1/inspiration") == 2
    assert sandbox.counters.get("POST /v1/generation-runs") == 1
    assert sandbox.counters.get("GET /v1/generation-runs/{run_id}") == 3
    over_http = api.http.get("/sandbox/counters", headers=ADMIN).json()
    assert over_http["GET /v1/inspiration"] == 2


def test_fault_knobs_are_settable_over_the_admin_surface(api: Api, sandbox: Sandbox) -> None:
    response = api.http.patch(
        "/sandbox/faults",
        json={
            "short_pages": 1,
            "fail_next_runs": ["generation_failed"],
            "run_timing": {"queued_s": 0.5, "running_s": 0.5, "precompute_s": 0.5},
            "unknown_error_codes": [{"status": 409, "code": "conflict_later", "count": 1}],
        },
        headers=ADMIN,
    )
    assert response.status_code == 200
    assert sandbox.faults.short_pages == 1
    assert sandbox.faults.run_timing.running_s == 0.5
    assert codes(api.http.get("/v1/segments", headers=api.machine)) == ["conflict_later"]
    run = api.finished(api.steered())
    assert run["error"]["code"] == "generation_failed"
    bad = api.http.patch("/sandbox/faults", json={"error_rate_5xx": 3}, headers=ADMIN)
    assert bad.status_code == 422
    assert api.http.patch("/sandbox/faults", json={"nonsense": 1}, headers=ADMIN).status_code == 422
    reset = api.http.delete("/sandbox/faults", headers=ADMIN)
    assert reset.json()["short_pages"] == 0
    assert sandbox.faults.fail_next_runs == []


def test_fault_knobs_are_validated_when_set_from_python() -> None:
    faults = Faults()
    with pytest.raises(ValidationError):
        faults.error_rate_5xx = 2.0
    with pytest.raises(ValidationError):
        faults.update({"short_pages": -1})
    assert faults.short_pages == 0
