"""The workspace a piece of work serves travels with it, and picks its service client."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from suggestbot.contentapi import ContentClient, UserTokenAuth
from suggestbot.installations.scope import ContextExecutor, current_team, team_scope
from suggestbot.installations.service import ContentClients, TeamContentProxy, url_problem
from suggestbot.store import MemoryStore, TokenVault, generate_key

USE_CASES = {"data": [{"id": "u1", "name": "Launch"}], "meta": {"next_cursor": None}}


def test_pool_tasks_serve_the_workspace_of_whoever_submitted_them() -> None:
    with ContextExecutor(max_workers=1) as pool:
        with team_scope("T1"):
            assert pool.submit(current_team).result() == "T1"
        # The same worker thread, reused: nothing of the previous task's workspace is left.
        assert pool.submit(current_team).result() is None
        with team_scope("T2"):
            assert pool.submit(lambda: pool.submit(current_team)).result().result() == "T2"


def test_team_scope_restores_the_outer_workspace() -> None:
    with team_scope("T1"):
        with team_scope("T2"):
            assert current_team() == "T2"
        assert current_team() == "T1"
    assert current_team() is None


class Service:
    """Records which service address each request went to."""

    def __init__(self) -> None:
        self.hosts: list[str] = []

    def client(self, base_url: str, *_: str) -> ContentClient:
        def answer(request: httpx.Request) -> httpx.Response:
            self.hosts.append(request.url.host)
            return httpx.Response(200, json=USE_CASES)

        return ContentClient(
            base_url, auth=UserTokenAuth("t"), transport=httpx.MockTransport(answer)
        )


@pytest.fixture
def service() -> Service:
    return Service()


@pytest.fixture
def clients(service: Service) -> Iterator[ContentClients]:
    registry = ContentClients(
        store=MemoryStore(),
        vault=TokenVault([generate_key()]),
        default=service.client("http://default.test"),
        factory=service.client,
    )
    yield registry
    registry.close()
    registry.default.close()


def test_each_workspace_reaches_its_own_service_and_others_the_default(
    clients: ContentClients, service: Service
) -> None:
    clients.set_credentials(
        team_id="T1",
        base_url="http://tenant-one.test/",
        client_id="c",
        client_secret="s",
        set_by="U",
    )
    proxy = TeamContentProxy(clients).as_client()
    with team_scope("T1"):
        proxy.list_use_cases()
    with team_scope("T2"):
        proxy.list_use_cases()
    proxy.list_use_cases()
    assert service.hosts == ["tenant-one.test", "default.test", "default.test"]
    assert clients.for_team("T1") is clients.for_team("T1")  # built once


def test_changed_or_deleted_credentials_take_effect_at_once(
    clients: ContentClients, service: Service
) -> None:
    clients.set_credentials(
        team_id="T1", base_url="http://old.test", client_id="c", client_secret="s", set_by="U"
    )
    clients.for_team("T1").list_use_cases()
    clients.set_credentials(
        team_id="T1", base_url="http://new.test", client_id="c", client_secret="s", set_by="U"
    )
    clients.for_team("T1").list_use_cases()
    assert clients.delete_credentials("T1") is True
    clients.for_team("T1").list_use_cases()
    assert service.hosts == ["old.test", "new.test", "default.test"]


def test_workspaces_on_the_default_service_share_its_run_listing(
    clients: ContentClients,
) -> None:
    """The run watcher sweeps a listing: the default service's one tenant holds the runs of
    every workspace without credentials of its own; one with credentials has its own."""
    clients.set_credentials(
        team_id="T1", base_url="http://own.test", client_id="c", client_secret="s", set_by="U"
    )
    assert [clients.listing_of(team) for team in ("T1", "T2", "T3", None)] == [
        "T1",
        None,
        None,
        None,
    ]
    clients.delete_credentials("T1")
    assert clients.listing_of("T1") is None


def test_the_client_secret_is_kept_encrypted(clients: ContentClients) -> None:
    clients.set_credentials(
        team_id="T1",
        base_url="http://x.test",
        client_id="c",
        client_secret="s3cr3t-value",
        set_by="U",
    )
    stored = clients.credentials("T1")
    assert stored is not None and "s3cr3t-value" not in stored.model_dump_json()
    assert "s3cr3t-value" not in repr(stored)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://content.example.com", None),
        ("https://content.example.com/base/", None),
        ("http://127.0.0.1:8080", None),
        ("http://localhost:8080", None),
        ("http://content.example.com", "url_insecure"),
        ("ftp://content.example.com", "url_invalid"),
        ("content.example.com", "url_invalid"),
        ("https://user:pw@content.example.com", "url_invalid"),
        ("https://content.example.com/?x=1", "url_invalid"),
        ("", "url_invalid"),
    ],
)
def test_service_addresses_must_be_https_except_on_loopback(url: str, problem: str | None) -> None:
    assert url_problem(url) == problem
