"""State in memory by default; ``data_dir`` keeps it across restarts, without secrets."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.state import STATE_FILE


def _token(http: httpx.Client, client_id: str, secret: str) -> str:
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    response = http.post("/auth/token", data=form)
    assert response.status_code == 200
    return str(response.json()["access_token"])


def test_data_dir_keeps_state_across_a_restart(tmp_path: Path) -> None:
    first = Sandbox(time_factor=0.001, data_dir=tmp_path)
    demo = first.demo
    assert demo is not None
    client_id, secret = first.create_credential(demo.tenant_id)
    with first.serve() as server, httpx.Client(base_url=server.url) as http:
        access = _token(http, client_id, secret)
        user = {"Authorization": f"Bearer {demo.user_token}"}
        body = {
            "type": "steered_generation",
            "segment_id": demo.segment_id,
            "use_case_id": demo.use_case_id,
            "steering_text": "Autumn newsletter",
        }
        run_id = http.post("/v1/generation-runs", json=body, headers=user).json()["id"]
        threads = http.get("/v1/threads", headers=user).json()["data"]
        renamed = http.patch(
            f"/v1/threads/{threads[0]['id']}", json={"name": "Kept name"}, headers=user
        )
        assert renamed.status_code == 200
        sets_before = http.get("/v1/suggestion-sets", params={"limit": "100"}, headers=user).json()[
            "data"
        ]
    assert (tmp_path / STATE_FILE).exists()

    second = Sandbox(time_factor=0.001, data_dir=tmp_path)
    assert second.demo is not None
    with second.serve() as server, httpx.Client(base_url=server.url) as http:
        machine = {"Authorization": f"Bearer {access}"}
        run = http.get(f"/v1/generation-runs/{run_id}", headers=machine)
        assert run.status_code == 200
        thread = http.get(f"/v1/threads/{threads[0]['id']}", headers=machine).json()
        assert thread["name"] == "Kept name"
        _token(http, client_id, secret)
        sets_after = http.get(
            "/v1/suggestion-sets", params={"limit": "100"}, headers=machine
        ).json()["data"]
        # Not seeded a second time: the same ready-made sets, plus the steered one if done.
        before = {s["id"] for s in sets_before}
        after = {s["id"] for s in sets_after}
        assert before <= after
        assert all(s["origin"] == "steered" for s in sets_after if s["id"] not in before)


def test_state_file_holds_no_secret(tmp_path: Path) -> None:
    sandbox = Sandbox(time_factor=0.001, data_dir=tmp_path, admin_key="sbx_ak_admin-secret")
    assert sandbox.demo is not None
    client_id, secret = sandbox.create_credential(sandbox.demo.tenant_id)
    _, user_token = sandbox.create_user_token(sandbox.demo.tenant_id)
    with sandbox.serve() as server, httpx.Client(base_url=server.url) as http:
        access = _token(http, client_id, secret)
        machine = {"Authorization": f"Bearer {access}"}
        refs = [
            s["payload"]["asset"]["ref"]
            for found in http.get("/v1/suggestion-sets", headers=machine).json()["data"]
            for s in found["suggestions"]
            if s["kind"] == "social_single_image"
        ]
        minted = http.post("/v1/assets/urls", json={"refs": refs[:1]}, headers=machine).json()
        url = minted["data"][0]["url"]
    stored = (tmp_path / STATE_FILE).read_text(encoding="utf-8")
    signature = url.split("sig=")[1]
    for value in (
        secret,
        user_token,
        access,
        signature,
        "sbx_ak_admin-secret",
        sandbox.demo.client_secret,
        sandbox.demo.user_token,
    ):
        assert value not in stored


def test_memory_is_the_default_and_writes_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    sandbox = Sandbox(time_factor=0.001)
    with sandbox.serve():
        pass
    assert list(tmp_path.iterdir()) == []
    fresh = Sandbox(time_factor=0.001, seed=False)
    assert fresh.demo is None
    assert fresh.describe_tenants() == []
