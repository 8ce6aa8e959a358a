"""The built-in sandbox, for ``serve`` with no content service configured.

Someone with a Slack workspace and no service account can then try the real app at once: the
sandbox runs inside the process on loopback with its demo data, and each Slack user is linked
to a sandbox user of the demo tenant on first use.
"""

from __future__ import annotations

import logging
from pathlib import Path

from suggestbot.contentapi import ClientCredentialsAuth, ContentClient
from suggestbot.sandbox import Demo, Sandbox
from suggestbot.sandbox.server import SandboxServer

log = logging.getLogger(__name__)


class EmbeddedSandbox:
    """A seeded sandbox served on an ephemeral loopback port, with its state under ``data_dir``."""

    def __init__(self, *, data_dir: Path) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.sandbox = Sandbox(data_dir=data_dir)
        self.server: SandboxServer = self.sandbox.serve()
        log.warning(
            "CONTENT_API_URL is not set: using the built-in sandbox at %s (demo data, not a "
            "real content service). Set CONTENT_API_URL, CONTENT_CLIENT_ID and "
            "CONTENT_CLIENT_SECRET to use the real service.",
            self.server.url,
        )

    @property
    def demo(self) -> Demo:
        demo = self.sandbox.demo
        assert demo is not None, "the embedded sandbox is always seeded"
        return demo

    def client(self) -> ContentClient:
        demo = self.demo
        auth = ClientCredentialsAuth(
            self.server.url + "/auth/token", demo.client_id, demo.client_secret
        )
        return ContentClient(self.server.url, auth=auth)

    def user_token_for(self, team_id: str, user_id: str) -> str:
        """A new sandbox user of the demo tenant for this Slack user (called once per user)."""
        _, token = self.sandbox.create_user_token(self.demo.tenant_id)
        log.info("linked Slack user %s to a new sandbox user", user_id)
        return token

    def stop(self) -> None:
        self.server.stop()
