"""No token, client secret or signed URL in a log line, an error body or a repr."""

from __future__ import annotations

import logging

import pytest
from sandbox_helpers import Api

from suggestbot.sandbox import Sandbox


def test_no_secret_reaches_the_logs_or_error_bodies(
    api: Api, sandbox: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    client_id, secret = sandbox.create_credential(api.demo.tenant_id)
    access = api.exchange(client_id, secret)
    wrong = api.http.post(
        "/auth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": client_id,
            "client_secret": "sbx_cs_x",
        },
    )
    _, user_token = sandbox.create_user_token(api.demo.tenant_id)
    bad_bearer = api.http.get("/v1/segments", headers=api.bearer("sbx_at_guessed-value"))
    run = api.finished(api.steered(headers=api.bearer(user_token), steering_text="Instagram post"))
    found = api.http.get(
        f"/v1/suggestion-sets/{run['suggestion_set_id']}", headers=api.bearer(access)
    ).json()
    ref = found["suggestions"][0]["payload"]["asset"]["ref"]
    url = api.http.post("/v1/assets/urls", json={"refs": [ref]}, headers=api.bearer(access)).json()[
        "data"
    ][0]["url"]
    api.http.get(url)
    api.clock.advance(3600)
    api.http.get(url)
    sandbox.revoke_credential(client_id)
    api.http.get("/v1/segments", headers=api.bearer(access))
    signature = url.split("sig=")[1]
    # The test's own HTTP client logs URLs; what matters is what the server side writes.
    server_side = [r for r in caplog.records if r.name.startswith(("suggestbot", "uvicorn"))]
    logged = "\n".join(r.getMessage() for r in server_side)
    assert logged  # the flow does log (runs accepted, succeeded)
    for value in (secret, access, user_token, signature, "sbx_cs_x", "sbx_at_guessed-value"):
        assert value not in logged
        assert value not in wrong.text
        assert value not in bad_bearer.text


def test_reprs_hide_secrets(sandbox: Sandbox) -> None:
    demo = sandbox.demo
    assert demo is not None
    text = repr(demo) + repr(sandbox) + repr(sandbox.env.signer)
    for value in (demo.client_secret, demo.user_token, sandbox.admin_key):
        assert value not in text
