"""The admin surface under /sandbox/: guarded by the admin key, wraps the Python API."""

from __future__ import annotations

from sandbox_helpers import Api, codes

from suggestbot.sandbox import ADMIN_KEY_HEADER

ADMIN = {ADMIN_KEY_HEADER: "test-admin-key"}


def test_admin_surface_requires_the_admin_key(api: Api) -> None:
    for headers in ({}, {ADMIN_KEY_HEADER: "wrong"}, api.machine):
        response = api.http.get("/sandbox/tenants", headers=headers)
        assert response.status_code == 401
        assert codes(response) == ["unauthorized"]


def test_admin_builds_a_tenant_that_works_end_to_end(api: Api) -> None:
    tenant = api.http.post(
        "/sandbox/tenants", json={"name": "Gipfel AG", "locale": "de"}, headers=ADMIN
    )
    assert tenant.status_code == 201
    tenant_id = tenant.json()["id"]
    base = f"/sandbox/tenants/{tenant_id}"
    segment_id = api.http.post(
        f"{base}/segments", json={"name": "Wanderer", "description": "Gern draußen"}, headers=ADMIN
    ).json()["id"]
    use_case_id = api.http.post(f"{base}/use-cases", json={"name": "Herbst"}, headers=ADMIN).json()[
        "id"
    ]
    credential = api.http.post(f"{base}/credentials", json={}, headers=ADMIN).json()
    assert credential["client_secret"].startswith("sbx_cs_")
    machine = api.bearer(api.exchange(credential["client_id"], credential["client_secret"]))
    params = {"segment_id": segment_id, "use_case_id": use_case_id, "locale": "de"}
    assert api.http.get("/v1/inspiration", params=params, headers=machine).json()["data"] == []
    done = api.http.post(f"{base}/precompute", json={}, headers=ADMIN).json()
    assert len(done["suggestion_set_ids"]) == 1
    found = api.http.get("/v1/inspiration", params=params, headers=machine).json()["data"][0]
    assert "Wanderer" in found["suggestions"][0]["payload"]["body"]
    user = api.http.post(f"{base}/user-tokens", json={}, headers=ADMIN).json()
    assert user["token"].startswith("sbx_ut_")
    me = api.http.get("/v1/me", headers=api.bearer(user["token"])).json()
    assert me["active_tenant"] == {"id": tenant_id, "name": "Gipfel AG"}
    listed = api.http.get("/sandbox/tenants", headers=ADMIN).json()["data"]
    assert tenant_id in {t["id"] for t in listed}
    assert "secret" not in str(listed)


def test_admin_steering_switch_and_revocations(api: Api) -> None:
    base = f"/sandbox/tenants/{api.demo.tenant_id}"
    off = api.http.put(f"{base}/steering", json={"enabled": False}, headers=ADMIN)
    assert off.json() == {"enabled": False, "failed_runs": 0}
    assert codes(api.steered()) == ["steering_disabled"]
    api.http.put(f"{base}/steering", json={"enabled": True}, headers=ADMIN)
    assert api.steered().status_code == 202

    credential = api.http.post(f"{base}/credentials", json={}, headers=ADMIN).json()
    token = api.exchange(credential["client_id"], credential["client_secret"])
    revoked = api.http.post(f"/sandbox/credentials/{credential['client_id']}/revoke", headers=ADMIN)
    assert revoked.status_code == 204
    assert api.http.get("/v1/segments", headers=api.bearer(token)).status_code == 401

    user = api.http.post(f"{base}/user-tokens", json={}, headers=ADMIN).json()
    api.http.post("/sandbox/user-tokens/revoke", json={"token": user["token"]}, headers=ADMIN)
    assert api.http.get("/v1/me", headers=api.bearer(user["token"])).status_code == 401


def test_admin_operations_on_unknown_tenants_are_404(api: Api) -> None:
    unknown = "/sandbox/tenants/0190c0de-0000-7000-8000-000000000000"
    for path, body in (
        (f"{unknown}/segments", {"name": "x"}),
        (f"{unknown}/credentials", {}),
        (f"{unknown}/precompute", {}),
    ):
        assert api.http.post(path, json=body, headers=ADMIN).status_code == 404
    bad = api.http.post("/sandbox/tenants", json={"name": "X", "locale": "fr"}, headers=ADMIN)
    assert bad.status_code == 422


def test_admin_user_ids_must_be_uuids(api: Api) -> None:
    base = f"/sandbox/tenants/{api.demo.tenant_id}/user-tokens"
    bad = api.http.post(base, json={"user_id": "alice"}, headers=ADMIN)
    assert bad.status_code == 422
    good = api.http.post(
        base, json={"user_id": "0190c0de-0000-7000-8000-0000000000bb"}, headers=ADMIN
    )
    assert good.json()["user_id"] == "0190c0de-0000-7000-8000-0000000000bb"
