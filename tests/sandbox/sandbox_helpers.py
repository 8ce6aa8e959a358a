"""Helpers of the sandbox conformance suite: a fake clock and a plain-httpx caller.

Runs are moved by ``sandbox.process_due()`` after advancing the fake clock, so tests are
deterministic and never sleep. (A module with its own name, not conftest, so that importing it
never picks up another folder's conftest.)
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from suggestbot.sandbox import RunTiming, Sandbox

TIME_FACTOR = 0.01


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += timedelta(seconds=seconds)


class Api:
    """Plain httpx over loopback, with the helpers the contract tests share."""

    def __init__(self, *, sandbox: Sandbox, clock: FakeClock, url: str) -> None:
        self.sandbox = sandbox
        self.clock = clock
        self.url = url
        # Plain HTTP on loopback: skipping the TLS context keeps client creation cheap.
        self.http = httpx.Client(base_url=url, timeout=10.0, verify=False)
        demo = sandbox.demo
        assert demo is not None
        self.demo = demo
        self.machine = self.bearer(self.exchange(demo.client_id, demo.client_secret))
        self.user = self.bearer(demo.user_token)

    @staticmethod
    def bearer(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def exchange(self, client_id: str, client_secret: str) -> str:
        response = self.http.post(
            "/auth/token",
            data={
                "grant_type": "client_credentials",
                "client_id": client_id,
                "client_secret": client_secret,
            },
        )
        assert response.status_code == 200, response.text
        return str(response.json()["access_token"])

    def new_user(self, tenant_id: str | None = None) -> tuple[str, dict[str, str]]:
        user_id, token = self.sandbox.create_user_token(tenant_id or self.demo.tenant_id)
        return user_id, self.bearer(token)

    def steered(self, headers: dict[str, str] | None = None, **fields: Any) -> httpx.Response:
        body: dict[str, Any] = {
            "type": "steered_generation",
            "segment_id": self.demo.segment_id,
            "use_case_id": self.demo.use_case_id,
            "steering_text": "Spring email about our new rain jacket",
        }
        body.update(fields)
        return self.http.post("/v1/generation-runs", json=body, headers=headers or self.user)

    def refinement(
        self, parent_id: str, instruction: str, headers: dict[str, str] | None = None, **fields: Any
    ) -> httpx.Response:
        body = {"type": "refinement", "parent_suggestion_id": parent_id, "instruction": instruction}
        body.update(fields)
        return self.http.post("/v1/generation-runs", json=body, headers=headers or self.user)

    def settle(self, max_steps: int = 50) -> None:
        """Advance the fake clock until no run or ready-made generation is in progress."""
        for _ in range(max_steps):
            self.clock.advance(60 * TIME_FACTOR)
            self.sandbox.process_due()
            state = self.sandbox.env.state
            with state.lock:
                busy = any(r.status in ("queued", "running") for r in state.runs.values())
                busy = busy or bool(state.precompute_jobs)
            if not busy:
                return
        raise AssertionError("runs did not settle")

    def run(self, run_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        response = self.http.get(f"/v1/generation-runs/{run_id}", headers=headers or self.machine)
        assert response.status_code == 200, response.text
        return dict(response.json())

    def finished(self, response: httpx.Response) -> dict[str, Any]:
        """The run created by ``response``, after it reached a terminal state."""
        assert response.status_code == 202, response.text
        self.settle()
        return self.run(response.json()["id"])

    def steered_set(self, **fields: Any) -> dict[str, Any]:
        run = self.finished(self.steered(**fields))
        assert run["status"] == "succeeded", run
        got = self.http.get(f"/v1/suggestion-sets/{run['suggestion_set_id']}", headers=self.user)
        return dict(got.json())

    def suggestion(self, suggestion_id: str, **params: str) -> dict[str, Any]:
        response = self.http.get(
            f"/v1/suggestions/{suggestion_id}", params=params, headers=self.machine
        )
        assert response.status_code == 200, response.text
        return dict(response.json())

    def threads(self, headers: dict[str, str] | None = None, **params: str) -> list[dict[str, Any]]:
        """Every thread visible to the caller, following cursors to the end."""
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            query = dict(params, limit="100")
            if cursor:
                query["cursor"] = cursor
            page = self.http.get("/v1/threads", params=query, headers=headers or self.machine)
            assert page.status_code == 200, page.text
            items += page.json()["data"]
            cursor = page.json()["meta"]["next_cursor"]
            if cursor is None:
                return items

    def thread_of(self, suggestion_id: str) -> dict[str, Any] | None:
        for thread in self.threads():
            detail = self.http.get(f"/v1/threads/{thread['id']}", headers=self.machine).json()
            if any(t["suggestion_id"] == suggestion_id for t in detail["turns"]):
                return dict(detail)
        return None


def fast_timing() -> RunTiming:
    return RunTiming(queued_s=1.0, running_s=2.0, precompute_s=1.0)


def codes(response: httpx.Response) -> list[str]:
    """Error codes of an ErrorEnvelope response."""
    return [entry["code"] for entry in response.json()["errors"]]
