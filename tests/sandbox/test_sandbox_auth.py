"""Section 5 (authentication) and the /auth endpoint of section 4."""

from __future__ import annotations

from sandbox_helpers import Api, codes

from suggestbot.sandbox import Sandbox


def _form(client_id: str, secret: str, grant: str = "client_credentials") -> dict[str, str]:
    return {"grant_type": grant, "client_id": client_id, "client_secret": secret}


def test_token_exchange_returns_prefixed_bearer_token_valid_900_seconds(api: Api) -> None:
    response = api.http.post("/auth/token", data=_form(api.demo.client_id, api.demo.client_secret))
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 900
    assert body["access_token"].startswith("sbx_at_")
    assert len(body["access_token"]) > 30


def test_token_exchange_with_json_body_fails_validation_with_400(api: Api) -> None:
    response = api.http.post("/auth/token", json=_form(api.demo.client_id, api.demo.client_secret))
    assert response.status_code == 400
    assert codes(response) == ["validation_error"]


def test_token_exchange_lists_every_validation_failure_with_400(api: Api) -> None:
    response = api.http.post(
        "/auth/token", data={"grant_type": "password", "client_id": api.demo.client_id}
    )
    assert response.status_code == 400
    failures = response.json()["errors"][0]["details"]["validation"]
    assert {f["loc"][-1] for f in failures} == {"client_secret", "grant_type"}


def test_token_exchange_with_wrong_secret_is_401(api: Api) -> None:
    response = api.http.post("/auth/token", data=_form(api.demo.client_id, "sbx_cs_wrong"))
    assert response.status_code == 401
    assert "sbx_cs_wrong" not in response.text


def test_new_exchange_keeps_earlier_tokens_valid(api: Api) -> None:
    first = api.exchange(api.demo.client_id, api.demo.client_secret)
    second = api.exchange(api.demo.client_id, api.demo.client_secret)
    assert first != second
    for token in (first, second):
        assert api.http.get("/v1/segments", headers=api.bearer(token)).status_code == 200


def test_revoking_a_credential_stops_every_issued_token_at_once(api: Api, sandbox: Sandbox) -> None:
    client_id, secret = sandbox.create_credential(api.demo.tenant_id)
    tokens = [api.exchange(client_id, secret) for _ in range(2)]
    sandbox.revoke_credential(client_id)
    for token in tokens:
        response = api.http.get("/v1/segments", headers=api.bearer(token))
        assert response.status_code == 401
        assert codes(response) == ["unauthorized"]
    assert api.http.post("/auth/token", data=_form(client_id, secret)).status_code == 401


def test_credential_expiry_shortens_expires_in(api: Api, sandbox: Sandbox) -> None:
    client_id, secret = sandbox.create_credential(api.demo.tenant_id, expires_in_s=300)
    response = api.http.post("/auth/token", data=_form(client_id, secret))
    assert response.json()["expires_in"] == 300
    token = response.json()["access_token"]
    api.clock.advance(301)
    assert api.http.get("/v1/segments", headers=api.bearer(token)).status_code == 401
    assert api.http.post("/auth/token", data=_form(client_id, secret)).status_code == 401


def test_access_token_stops_working_after_expires_in(api: Api) -> None:
    token = api.exchange(api.demo.client_id, api.demo.client_secret)
    api.clock.advance(899)
    assert api.http.get("/v1/segments", headers=api.bearer(token)).status_code == 200
    api.clock.advance(2)
    assert api.http.get("/v1/segments", headers=api.bearer(token)).status_code == 401


def test_rotation_issues_a_new_secret_for_the_same_client_id(api: Api, sandbox: Sandbox) -> None:
    client_id, old_secret = sandbox.create_credential(api.demo.tenant_id)
    new_secret = sandbox.rotate_credential(client_id)
    assert api.http.post("/auth/token", data=_form(client_id, old_secret)).status_code == 401
    assert api.http.post("/auth/token", data=_form(client_id, new_secret)).status_code == 200


def test_v1_without_valid_bearer_token_is_401_unauthorized(api: Api) -> None:
    for headers in ({}, {"Authorization": "Bearer sbx_at_unknown"}, {"Authorization": "Basic x"}):
        response = api.http.get("/v1/segments", headers=headers)
        assert response.status_code == 401
        assert codes(response) == ["unauthorized"]
        assert response.headers["www-authenticate"] == "Bearer"


def test_user_token_has_prefix_and_revocation_is_immediate(api: Api, sandbox: Sandbox) -> None:
    _user_id, token = sandbox.create_user_token(api.demo.tenant_id)
    assert token.startswith("sbx_ut_")
    me = api.http.get("/v1/me", headers=api.bearer(token))
    assert me.status_code == 200
    sandbox.revoke_user_token(token)
    assert api.http.get("/v1/me", headers=api.bearer(token)).status_code == 401


def test_machine_token_on_user_only_operations_is_403_user_token_required(api: Api) -> None:
    run = api.steered(headers=api.machine)
    assert run.status_code == 403
    assert codes(run) == ["user_token_required"]
    thread = api.threads()[0]
    rename = api.http.patch(
        f"/v1/threads/{thread['id']}", json={"name": "New name"}, headers=api.machine
    )
    assert rename.status_code == 403
    assert codes(rename) == ["user_token_required"]


def test_token_of_one_tenant_never_sees_another_tenants_data(api: Api, sandbox: Sandbox) -> None:
    second = api.demo.second
    other_user = api.bearer(second.user_token)
    other_run = api.steered(
        headers=other_user,
        segment_id=next(iter(second.segments.values())),
        use_case_id=next(iter(second.use_cases.values())),
        steering_text="Frühlings-Newsletter",
    ).json()
    api.settle()
    other_machine = api.bearer(api.exchange(second.client_id, second.client_secret))
    assert api.http.get(f"/v1/generation-runs/{other_run['id']}", headers=other_machine).is_success
    response = api.http.get(f"/v1/generation-runs/{other_run['id']}", headers=api.machine)
    assert response.status_code == 404
    assert codes(response) == ["not_found"]
    runs = api.http.get("/v1/generation-runs", headers=api.machine).json()["data"]
    assert other_run["id"] not in {r["id"] for r in runs}
    other_threads = {t["id"] for t in api.threads(headers=other_machine)}
    assert other_threads.isdisjoint({t["id"] for t in api.threads()})
    inspiration = api.http.get(
        "/v1/inspiration",
        params={
            "segment_id": next(iter(second.segments.values())),
            "use_case_id": next(iter(second.use_cases.values())),
            "locale": "de",
        },
        headers=api.machine,
    )
    assert inspiration.status_code == 200
    assert inspiration.json()["data"] == []


def test_me_returns_active_tenant_and_the_callers_tenants(api: Api, sandbox: Sandbox) -> None:
    machine = api.http.get("/v1/me", headers=api.machine).json()
    assert machine["active_tenant"] == {"id": api.demo.tenant_id, "name": "Acme Outdoor"}
    assert machine["tenants"] == [machine["active_tenant"]]
    # One person with tokens for both tenants belongs to both.
    sandbox.create_user_token(api.demo.second.tenant_id, user_id=api.demo.user_id)
    user = api.http.get("/v1/me", headers=api.user).json()
    assert user["active_tenant"]["id"] == api.demo.tenant_id
    assert {t["name"] for t in user["tenants"]} == {"Acme Outdoor", "Bergwerk GmbH"}
