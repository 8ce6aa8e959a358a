"""Section 4 reads: segments, use cases, inspiration, paging, set and suggestion reads."""

from __future__ import annotations

import re

from sandbox_helpers import Api, codes

from suggestbot.sandbox import Sandbox

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _inspiration(api: Api, **params: str) -> tuple[int, dict]:
    query = {
        "segment_id": api.demo.segment_id,
        "use_case_id": api.demo.use_case_id,
        "locale": "en",
    }
    query.update(params)
    response = api.http.get("/v1/inspiration", params=query, headers=api.machine)
    return response.status_code, response.json()


def test_segments_lists_only_segments_set_up_for_content_in_one_page(api: Api) -> None:
    body = api.http.get("/v1/segments", headers=api.machine).json()
    assert {s["id"] for s in body["data"]} == set(api.demo.segment_ids)
    assert api.demo.unset_segment_id not in {s["id"] for s in body["data"]}
    assert all(s["name"] and "description" in s for s in body["data"])
    assert body["meta"] == {"next_cursor": None}


def test_use_cases_listed_in_one_page(api: Api) -> None:
    body = api.http.get("/v1/use-cases", headers=api.user).json()
    assert {u["id"] for u in body["data"]} == set(api.demo.use_case_ids)
    assert body["meta"] == {"next_cursor": None}


def test_inspiration_returns_the_newest_ready_made_set_with_all_variants(api: Api) -> None:
    status, body = _inspiration(api)
    assert status == 200
    assert body["meta"] == {"next_cursor": None}
    [found] = body["data"]
    assert found["origin"] == "precompute"
    assert found["version"] == 1
    assert found["generation_run_id"] is None
    assert found["steering_text"] is None
    assert found["created_by"] is None
    assert found["locale"] == "en"
    variants = sorted(found["suggestions"], key=lambda s: s["variant_no"])
    assert [v["variant_no"] for v in variants] == [1, 2, 3]
    assert {v["kind"] for v in variants} == {"email", "social_single_image"}
    assert len({v["payload"]["body"] for v in variants}) == 3


def test_ready_made_sets_hold_a_per_use_case_count_that_may_exceed_three(api: Api) -> None:
    counts = set()
    for use_case_id in api.demo.use_case_ids:
        _, body = _inspiration(api, use_case_id=use_case_id)
        counts.add(len(body["data"][0]["suggestions"]))
    assert counts == {2, 3, 4}


def test_inspiration_is_empty_200_never_404(api: Api, sandbox: Sandbox) -> None:
    unknown = "0190c0de-0000-7000-8000-000000000000"
    for params in (
        {"segment_id": unknown},
        {"use_case_id": unknown},
        {"segment_id": api.demo.unset_segment_id},
    ):
        status, body = _inspiration(api, **params)
        assert (status, body["data"]) == (200, [])
    # A new tenant has nothing until the overnight run or a forced generation.
    tenant_id = sandbox.create_tenant("Newco", "en")
    segment_id = sandbox.add_segment(tenant_id, "All", "Everyone")
    use_case_id = sandbox.add_use_case(tenant_id, "Welcome")
    client_id, secret = sandbox.create_credential(tenant_id)
    headers = api.bearer(api.exchange(client_id, secret))
    query = {"segment_id": segment_id, "use_case_id": use_case_id, "locale": "en"}
    response = api.http.get("/v1/inspiration", params=query, headers=headers)
    assert (response.status_code, response.json()["data"]) == (200, [])
    sandbox.run_precompute(tenant_id)
    response = api.http.get("/v1/inspiration", params=query, headers=headers)
    assert len(response.json()["data"]) == 1


def test_inspiration_locale_is_matched_exactly_and_regional_matches_nothing(api: Api) -> None:
    for locale in ("en-GB", "de"):
        status, body = _inspiration(api, locale=locale)
        assert (status, body["data"]) == (200, [])
    for bad in ("EN", "english", "en_GB", "en-gb"):
        status, body = _inspiration(api, locale=bad)
        assert status == 422
        assert body["errors"][0]["code"] == "validation_error"


def test_inspiration_version_selects_that_version_and_omitted_means_newest(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.run_precompute(api.demo.tenant_id, api.demo.segment_id, api.demo.use_case_id)
    _, newest = _inspiration(api)
    assert newest["data"][0]["version"] == 2
    _, first = _inspiration(api, version="1")
    assert first["data"][0]["version"] == 1
    assert first["data"][0]["id"] != newest["data"][0]["id"]
    status, missing = _inspiration(api, version="7")
    assert (status, missing["data"]) == (200, [])
    assert _inspiration(api, version="latest")[0] == 422


def test_inspiration_expand_asset_urls_fills_every_image_url(api: Api) -> None:
    _, plain = _inspiration(api)
    _, expanded = _inspiration(api, expand="asset_urls")
    images = [
        s["payload"]["asset"]
        for s in expanded["data"][0]["suggestions"]
        if s["kind"] == "social_single_image"
    ]
    assert images
    for image in images:
        assert image["url"].startswith(api.url)
        assert TIMESTAMP.match(image["url_expires_at"])
        assert image["ref"].startswith("image:")
        assert image["alt_text"]
        # Each URL loads, as Slack would fetch it for an image block.
        loaded = api.http.get(image["url"])
        assert (loaded.status_code, loaded.headers["content-type"]) == (200, "image/png")
    # The same kind of URL as the mint endpoint's for the same references: same image path.
    minted = api.http.post(
        "/v1/assets/urls", json={"refs": [i["ref"] for i in images]}, headers=api.machine
    ).json()["data"]
    assert [m["url"].split("?")[0] for m in minted] == [i["url"].split("?")[0] for i in images]
    for suggestion in plain["data"][0]["suggestions"]:
        if suggestion["kind"] == "social_single_image":
            assert suggestion["payload"]["asset"]["url"] is None
            assert suggestion["payload"]["asset"]["url_expires_at"] is None


def test_inspiration_expand_accepts_only_asset_urls(api: Api) -> None:
    for value in ("lineage", "asset_urls,lineage", "", "ASSET_URLS"):
        status, body = _inspiration(api, expand=value)
        assert status == 422
        assert body["errors"][0]["code"] == "validation_error"


def test_inspiration_without_required_parameters_lists_every_failure(api: Api) -> None:
    response = api.http.get("/v1/inspiration", params={"locale": "en"}, headers=api.machine)
    assert response.status_code == 422
    failures = response.json()["errors"][0]["details"]["validation"]
    assert {f["loc"][-1] for f in failures} == {"segment_id", "use_case_id"}


def test_post_inspiration_is_202_without_body_and_joins_a_generation_in_progress(
    api: Api,
) -> None:
    body = {"segment_id": api.demo.segment_id, "use_case_id": api.demo.use_case_id}
    first = api.http.post("/v1/inspiration", json=body, headers=api.machine)
    second = api.http.post("/v1/inspiration", json=body, headers=api.user)
    assert (first.status_code, first.content) == (202, b"")
    assert (second.status_code, second.content) == (202, b"")
    # Existing content stays readable until the new version is ready.
    assert _inspiration(api)[1]["data"][0]["version"] == 1
    api.settle()
    assert _inspiration(api)[1]["data"][0]["version"] == 2
    assert _inspiration(api, version="3")[1]["data"] == []


def test_post_inspiration_unknown_or_not_set_up_segment_is_404(api: Api) -> None:
    for segment_id in (api.demo.unset_segment_id, "0190c0de-0000-7000-8000-000000000000"):
        body = {"segment_id": segment_id, "use_case_id": api.demo.use_case_id}
        response = api.http.post("/v1/inspiration", json=body, headers=api.machine)
        assert response.status_code == 404
        assert codes(response) == ["not_found"]


def test_listing_limit_defaults_to_20(api: Api, sandbox: Sandbox) -> None:
    for _ in range(3):
        sandbox.run_precompute(api.demo.tenant_id)
    body = api.http.get("/v1/suggestion-sets", headers=api.machine).json()
    assert len(body["data"]) == 20
    assert body["meta"]["next_cursor"] is not None


def test_limit_above_100_is_422_not_clamped(api: Api) -> None:
    for path in ("/v1/threads", "/v1/generation-runs", "/v1/suggestion-sets"):
        assert api.http.get(path, params={"limit": "100"}, headers=api.machine).status_code == 200
        for bad in ("101", "0", "-1", "ten"):
            response = api.http.get(path, params={"limit": bad}, headers=api.machine)
            assert response.status_code == 422, (path, bad)
            assert codes(response) == ["validation_error"]


def test_cursor_paging_returns_every_item_once_newest_first(api: Api, sandbox: Sandbox) -> None:
    sandbox.run_precompute(api.demo.tenant_id)
    seen: list[dict] = []
    cursor = None
    while True:
        params = {"limit": "5"} | ({"cursor": cursor} if cursor else {})
        page = api.http.get("/v1/suggestion-sets", params=params, headers=api.machine).json()
        seen += page["data"]
        cursor = page["meta"]["next_cursor"]
        if cursor is None:
            break
    ids = [s["id"] for s in seen]
    assert len(ids) == len(set(ids)) == 12
    stamps = [s["created_at"] for s in seen]
    assert stamps == sorted(stamps, reverse=True)


def test_invalid_cursor_is_422(api: Api) -> None:
    runs_page = api.http.get("/v1/threads", params={"limit": "1"}, headers=api.machine).json()
    cursor = runs_page["meta"]["next_cursor"]
    for bad in ("not-a-cursor", cursor[:-3]):
        response = api.http.get("/v1/threads", params={"cursor": bad}, headers=api.machine)
        assert response.status_code == 422
    # A cursor belongs to its listing.
    response = api.http.get("/v1/suggestion-sets", params={"cursor": cursor}, headers=api.machine)
    assert response.status_code == 422


def test_thread_listing_rejects_unknown_query_parameters_with_422(api: Api) -> None:
    response = api.http.get("/v1/threads", params={"sort": "name"}, headers=api.machine)
    assert response.status_code == 422
    assert codes(response) == ["validation_error"]
    assert response.json()["errors"][0]["details"]["validation"][0]["loc"] == ["query", "sort"]
    # Other listings do not reject them.
    ok = api.http.get("/v1/generation-runs", params={"sort": "name"}, headers=api.machine)
    assert ok.status_code == 200


def test_set_and_suggestion_reads_never_carry_image_urls(api: Api) -> None:
    sets = api.http.get("/v1/suggestion-sets", params={"limit": "100"}, headers=api.machine)
    social = [
        s
        for found in sets.json()["data"]
        for s in found["suggestions"]
        if s["kind"] == "social_single_image"
    ]
    assert social
    one = social[0]
    read_set = api.http.get(f"/v1/suggestion-sets/{one['suggestion_set_id']}", headers=api.machine)
    read_one = api.suggestion(one["id"])
    for suggestion in [*social, *read_set.json()["suggestions"], read_one]:
        if suggestion["kind"] == "social_single_image":
            assert suggestion["payload"]["asset"]["url"] is None
            assert suggestion["payload"]["asset"]["url_expires_at"] is None
    bad = api.http.get(
        f"/v1/suggestions/{one['id']}", params={"expand": "asset_urls"}, headers=api.machine
    )
    assert bad.status_code == 422


def test_suggestion_without_expand_has_no_lineage_field(api: Api) -> None:
    _, body = _inspiration(api)
    suggestion = api.suggestion(body["data"][0]["suggestions"][0]["id"])
    assert "lineage" not in suggestion
    expanded = api.suggestion(suggestion["id"], expand="lineage")
    assert expanded["lineage"] == []


def test_malformed_id_in_path_is_422_and_unknown_id_is_404(api: Api) -> None:
    for path in (
        "/v1/generation-runs/",
        "/v1/threads/",
        "/v1/suggestion-sets/",
        "/v1/suggestions/",
    ):
        upper = api.http.get(path + "0190C0DE-0000-7000-8000-000000000000", headers=api.machine)
        assert upper.status_code == 422
        unknown = api.http.get(path + "0190c0de-0000-7000-8000-000000000000", headers=api.machine)
        assert unknown.status_code == 404
        assert codes(unknown) == ["not_found"]


def test_unknown_route_and_method_answer_with_an_error_envelope(api: Api) -> None:
    missing = api.http.get("/v1/nothing-here", headers=api.machine)
    assert missing.status_code == 404
    assert codes(missing) == ["not_found"]
    wrong = api.http.delete("/v1/segments", headers=api.machine)
    assert wrong.status_code == 405
    assert codes(wrong) == ["method_not_allowed"]


def test_created_by_filter_naming_an_invisible_user_gives_an_empty_page(api: Api) -> None:
    other_id, other = api.new_user()
    api.finished(api.steered(headers=other))
    for path in ("/v1/generation-runs", "/v1/threads", "/v1/suggestion-sets"):
        mine = api.http.get(path, params={"created_by": other_id}, headers=api.user).json()
        assert mine == {"data": [], "meta": {"next_cursor": None}}
        everyone = api.http.get(path, params={"created_by": other_id}, headers=api.machine)
        assert everyone.json()["data"]


def test_ids_are_lower_case_uuids_and_timestamps_are_utc(api: Api) -> None:
    found = api.steered_set()
    ids = [found["id"], found["generation_run_id"], *(s["id"] for s in found["suggestions"])]
    assert all(UUID.match(i) for i in ids)
    assert TIMESTAMP.match(found["created_at"])
