"""Each workspace's content service: its own credentials when an admin set them, else the app's.

Design §2: one workspace is one tenant of the service, through a machine credential. In a
multi-workspace install an admin of each workspace sets it (App Home, see
:mod:`~suggestbot.flows.workspace.admin`): the service's address, client id and client secret,
kept per team with the secret encrypted. A workspace whose admin has not set one uses the
app's configured client (``CONTENT_API_URL``…, or the built-in sandbox).

:class:`ContentClients` gives the client of a team (``for_team``); :class:`TeamContentProxy`
stands in for a ``ContentClient`` in the flows and sends each call to the client of the
workspace being served (see :mod:`~suggestbot.installations.scope`), so the flows need not
know which workspace they serve.
"""

from __future__ import annotations

import enum
import ipaddress
import logging
import threading
from collections.abc import Callable
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from suggestbot.contentapi import (
    ClientCredentialsAuth,
    ContentApiError,
    ContentClient,
    ServerError,
    Timeout,
    TransportError,
    Unauthorized,
)
from suggestbot.installations.scope import current_team
from suggestbot.logs import register_secret
from suggestbot.store import Store, TokenVault
from suggestbot.store.records import Records
from suggestbot.store.workspaces import ServiceCredentials

log = logging.getLogger(__name__)

CHECK_TIMEOUT_S = 10.0

ClientFactory = Callable[[str, str, str], ContentClient]


def build_client(base_url: str, client_id: str, client_secret: str) -> ContentClient:
    """A machine client of the service at ``base_url``."""
    auth = ClientCredentialsAuth.for_base_url(base_url, client_id, client_secret)
    return ContentClient(base_url, auth=auth)


class ContentClients:
    """The service client of each workspace.

    Args:
        store: where credentials are kept (table ``service_credentials``).
        vault: encrypts the client secrets.
        default: the client of workspaces without credentials of their own.
        factory: builds a client from ``(base_url, client_id, client_secret)``.
    """

    def __init__(
        self,
        *,
        store: Store,
        vault: TokenVault,
        default: ContentClient,
        factory: ClientFactory = build_client,
    ) -> None:
        self._credentials = Records(store).service_credentials
        self._vault = vault
        self.default = default
        self._factory = factory
        self._clients: dict[str, ContentClient | None] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ContentClients(workspaces={len(self._clients)})"

    # -- credentials -----------------------------------------------------------------------
    def credentials(self, team_id: str) -> ServiceCredentials | None:
        return self._credentials.get(team_id)

    def set_credentials(
        self, *, team_id: str, base_url: str, client_id: str, client_secret: str, set_by: str
    ) -> None:
        """Keep a workspace's credentials (the secret encrypted) and use them from now on."""
        record = ServiceCredentials(
            team_id=team_id,
            base_url=base_url.rstrip("/"),
            client_id=client_id,
            client_secret_enc=self._vault.encrypt(client_secret),
            set_by=set_by,
        )
        self._credentials.put(team_id, record)
        self.forget(team_id)
        log.info("workspace %s now uses the content service at %s", team_id, record.base_url)

    def delete_credentials(self, team_id: str) -> bool:
        removed = self._credentials.delete(team_id)
        self.forget(team_id)
        return removed

    # -- clients ---------------------------------------------------------------------------
    def for_team(self, team_id: str | None) -> ContentClient:
        """The client of ``team_id``: its own credentials' client, or the default one."""
        if team_id is None:
            return self.default
        with self._lock:
            if team_id in self._clients:
                return self._clients[team_id] or self.default
        creds = self.credentials(team_id)
        client: ContentClient | None = None
        if creds is not None:
            client = self._factory(
                creds.base_url, creds.client_id, self._vault.decrypt(creds.client_secret_enc)
            )
        with self._lock:
            existing = self._clients.setdefault(team_id, client)
        if existing is not client and client is not None:
            client.close()  # another thread built one first
        return existing or self.default

    def listing_of(self, team_id: str | None) -> str | None:
        """The run listing ``team_id``'s runs are in: None when it uses the default client
        (its tenant, and so its listing, is every such workspace's), else ``team_id``."""
        if team_id is None:
            return None
        return None if self.for_team(team_id) is self.default else team_id

    def forget(self, team_id: str) -> None:
        """Drop the cached client of ``team_id`` (its credentials changed or went)."""
        with self._lock:
            client = self._clients.pop(team_id, None)
        if client is not None:
            client.close()

    def close(self) -> None:
        with self._lock:
            clients = [c for c in self._clients.values() if c is not None]
            self._clients.clear()
        for client in clients:
            client.close()


class TeamContentProxy:
    """Stands in for a ``ContentClient``: each attribute is read from the client of the
    workspace being served (:func:`~suggestbot.installations.scope.current_team`)."""

    def __init__(self, clients: ContentClients) -> None:
        self._clients = clients

    def __getattr__(self, name: str) -> Any:
        return getattr(self._clients.for_team(current_team()), name)

    def __repr__(self) -> str:
        return f"TeamContentProxy(team={current_team()!r})"

    def close(self) -> None:
        self._clients.close()

    def as_client(self) -> ContentClient:
        """This proxy where a ``ContentClient`` is expected (it answers every one of its
        attributes; a test checks that the flows' calls reach the right workspace)."""
        return cast(ContentClient, self)


# -- checking credentials before keeping them ------------------------------------------------
class CheckResult(enum.Enum):
    OK = "ok"
    REJECTED = "rejected"
    UNREACHABLE = "unreachable"


def url_problem(url: str) -> Literal["url_invalid", "url_insecure"] | None:
    """Why ``url`` cannot be a service address: ``https`` only, plain ``http`` on loopback."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "url_invalid"
    if parts.query or parts.fragment or parts.username or parts.password:
        return "url_invalid"
    if parts.scheme == "http" and not _is_loopback(parts.hostname):
        return "url_insecure"
    return None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_credentials(base_url: str, client_id: str, client_secret: str) -> CheckResult:
    """Exchange the credential and make one cheap read with it, as linking a user does."""
    register_secret(client_secret)
    auth = ClientCredentialsAuth.for_base_url(base_url, client_id, client_secret)
    client = ContentClient(base_url.rstrip("/"), auth=auth, timeout=CHECK_TIMEOUT_S, max_retries=0)
    try:
        client.list_use_cases()
    except Unauthorized:
        return CheckResult.REJECTED
    except (ServerError, TransportError, Timeout):
        return CheckResult.UNREACHABLE
    except ContentApiError as exc:
        log.warning("checking service credentials: unexpected answer %s", exc)
        return CheckResult.REJECTED
    finally:
        client.close()
    return CheckResult.OK
