"""The run listing keeps each tenant's runs in creation order and pages by bisection: every
page, cursor and filter must be exactly what sorting all visible runs per page gave."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

import pytest
from sandbox_helpers import Api

from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.records import RunRec
from suggestbot.sandbox.state import State


def _position(cursor: str) -> tuple[datetime, str]:
    data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    return datetime.fromisoformat(data["t"]), data["i"]


def _sorted_page(
    runs: list[RunRec], *, cursor: str | None, limit: int, short_pages: int, overlap: int
) -> tuple[list[str], tuple[datetime, str] | None]:
    """What the listing answered when it sorted every visible run for each page."""
    ordered = sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)
    if cursor is not None:
        position = _position(cursor)
        ordered = [r for r in ordered if (r.created_at, r.id) < position]
    size = min(limit, short_pages) if short_pages else limit
    chunk = ordered[:size]
    if chunk and (len(ordered) > size or short_pages):
        last = chunk[-1 - min(overlap, len(chunk) - 1)]
        return [r.id for r in chunk], (last.created_at, last.id)
    return [r.id for r in chunk], None


def _walk(
    api: Api,
    sandbox: Sandbox,
    *,
    headers: dict[str, str],
    visible: list[RunRec],
    limit: int,
    created_by: str | None = None,
) -> int:
    """Page through the listing, checking each page against the sorted reference."""
    faults = sandbox.faults
    cursor: str | None = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": str(limit)}
        if cursor:
            params["cursor"] = cursor
        if created_by:
            params["created_by"] = created_by
        got = api.http.get("/v1/generation-runs", params=params, headers=headers)
        assert got.status_code == 200, got.text
        body = got.json()
        want_ids, want_next = _sorted_page(
            visible,
            cursor=cursor,
            limit=limit,
            short_pages=faults.short_pages,
            overlap=faults.overlap_pages,
        )
        assert [r["id"] for r in body["data"]] == want_ids
        cursor = body["meta"]["next_cursor"]
        assert (cursor and _position(cursor)) == want_next
        pages += 1
        assert pages < 200
        if cursor is None:
            return pages


@pytest.fixture
def populated(api: Api, sandbox: Sandbox) -> dict[str, dict[str, str]]:
    """Three users' runs, created out of step: ties on created_at (the clock stands still
    between some creations) and one run created after the clock stepped back."""
    users = {"demo": api.user}
    ids = {"demo": api.demo.user_id}
    for name in ("ann", "bob"):
        ids[name], users[name] = api.new_user()
    for round_no in range(9):
        for headers in users.values():
            assert api.steered(headers).status_code == 202
        if round_no % 3 != 2:
            api.clock.advance(1.5)
    api.clock.advance(-20)
    assert api.steered(users["bob"]).status_code == 202
    return {name: {"id": ids[name], **users[name]} for name in users}


def _runs(sandbox: Sandbox, created_by: str | None = None) -> list[RunRec]:
    with sandbox.env.state.lock:
        return [
            r
            for r in sandbox.env.state.runs.values()
            if created_by is None or r.created_by == created_by
        ]


@pytest.mark.parametrize(
    ("short_pages", "overlap"),
    [(0, 0), (0, 2), (4, 0), (4, 1)],
    ids=["plain", "overlap", "short", "short+overlap"],
)
def test_every_page_equals_the_sorted_listing(
    api: Api,
    sandbox: Sandbox,
    populated: dict[str, dict[str, str]],
    short_pages: int,
    overlap: int,
) -> None:
    sandbox.faults.short_pages = short_pages
    sandbox.faults.overlap_pages = overlap
    everyone = _runs(sandbox)
    assert len(everyone) == 28
    for limit in (1, 5, 100):
        _walk(api, sandbox, headers=api.machine, visible=everyone, limit=limit)
    bob = populated["bob"]["id"]
    _walk(api, sandbox, headers=api.machine, visible=_runs(sandbox, bob), limit=3, created_by=bob)
    ann = populated["ann"]
    ann_headers = {"Authorization": ann["Authorization"]}
    # A user sees their own runs only; naming another creator gives an empty page.
    _walk(api, sandbox, headers=ann_headers, visible=_runs(sandbox, ann["id"]), limit=4)
    _walk(
        api,
        sandbox,
        headers=ann_headers,
        visible=_runs(sandbox, ann["id"]),
        limit=4,
        created_by=ann["id"],
    )
    _walk(api, sandbox, headers=ann_headers, visible=[], limit=4, created_by=bob)


def test_order_survives_a_restart_from_the_state_file(
    api: Api, sandbox: Sandbox, populated: dict[str, dict[str, str]], tmp_path: Any
) -> None:

    sandbox.env.state.save(tmp_path)
    loaded = State.load(tmp_path)
    assert loaded is not None
    assert loaded.run_order == sandbox.env.state.run_order
    assert loaded.run_order_by_creator == sandbox.env.state.run_order_by_creator
    tenant = api.demo.tenant_id
    assert loaded.run_order[tenant] == sorted((r.created_at, r.id) for r in _runs(sandbox))
