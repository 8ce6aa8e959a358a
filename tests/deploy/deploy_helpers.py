"""A multi-workspace world on loopback for the deployment tests: the sandbox, two Slack
workspaces behind one Slack address (:class:`SlackCloud`), and the real app in OAuth mode.

Imported by name (not a conftest) so the module name cannot clash with other test folders.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.config import Settings
from suggestbot.contentapi import ClientCredentialsAuth, ContentClient
from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.faults import RunTiming
from suggestbot.sandbox.seed import ACME, BERGWERK, DemoTenant
from suggestbot.sandbox.server import SandboxServer
from suggestbot.server.composition import Runtime
from suggestbot.slackapp.http import EVENTS_PATH, INSTALL_PATH, REDIRECT_PATH, build_http_app
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.slackemu import (
    InstallResult,
    OAuthApp,
    SlackCloud,
    SlackDriver,
    SlackEmulator,
    ViewSubmission,
)
from suggestbot.store import generate_key
from suggestbot.ui.messages import t

CLIENT_ID = "4242.1717"
SIGNING_SECRET = "deploy-signing-secret-0123456789"


class FakeClock:
    """The emulators' monotonic seconds: real time, plus the jumps a test asks for (a token's
    expiry). It keeps moving between jumps, as Slack's does: a frozen clock would never refill
    a channel's one-post-a-second budget, so the emulators would refuse posts Slack accepts."""

    def __init__(self, start: float = 10_000.0) -> None:
        self._offset = start - time.monotonic()
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return time.monotonic() + self._offset

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._offset += seconds


@dataclass
class Team:
    """One Slack workspace of the world, and who is in it."""

    emu: SlackEmulator
    oauth: OAuthApp
    admin: str
    member: str
    channel: str
    driver: SlackDriver | None = None

    @property
    def team_id(self) -> str:
        return self.emu.team_id

    @property
    def slack(self) -> SlackDriver:
        assert self.driver is not None, "the app is not running"
        return self.driver


def wait_for(
    condition: Callable[[], Any],
    *,
    timeout: float = 20.0,
    what: str = "it",
    detail: Callable[[], str] | None = None,
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            seen = f"; saw:\n{detail()}" if detail else ""
            raise TimeoutError(f"waited {timeout:.0f} s for {what}{seen}")
        time.sleep(0.02)


class OAuthWorld:
    """Two workspaces (north, south) that may install the app, which runs in OAuth mode.

    Args:
        data_dir: the app's store (kept across :meth:`restart_app`).
        token_rotation / token_lifetime_s: the Slack app's token rotation setting.
        embedded: no service configured: the app runs the built-in sandbox as the default.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        token_rotation: bool = False,
        token_lifetime_s: float = 43200,
        embedded: bool = False,
    ) -> None:
        self.data_dir = data_dir
        self.clock = FakeClock()
        self.client_secret = secrets.token_hex(16)
        self.state_secret = secrets.token_hex(16)
        self.secret_keys = generate_key()
        self.sandbox = Sandbox(time_factor=0.01)
        self.sandbox.faults.run_timing = RunTiming(queued_s=1.0, running_s=2.0, precompute_s=1.0)
        self._sandbox_server: SandboxServer | None = None
        self.north = self._team("T0NORTH", "north", "U0NADMIN", "U0NMEMBER")
        self.south = self._team("T0SOUTH", "south", "U0SADMIN", "U0SMEMBER")
        self.cloud = SlackCloud(self.north.emu, self.south.emu)
        self._rotation = token_rotation
        self._lifetime = token_lifetime_s
        self.embedded = embedded
        self.runtime: Runtime | None = None
        self._server: BackgroundServer | None = None
        self._port = 0

    def _team(self, team_id: str, domain: str, admin: str, member: str) -> Team:
        emu = SlackEmulator(
            team_id=team_id, team_domain=domain, scopes=BOT_SCOPES, clock=self.clock
        )
        emu.add_user(admin, f"{domain}-admin", is_admin=True)
        emu.add_user(member, f"{domain}-member")
        channel = emu.add_channel("marketing", members=[admin, member])
        emu.invite_bot(channel)
        placeholder = OAuthApp(CLIENT_ID, "")
        return Team(emu, placeholder, admin, member, channel)

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> OAuthWorld:
        self._sandbox_server = self.sandbox.serve()
        self.cloud.start()
        self.start_app()
        for team in (self.north, self.south):
            team.oauth = team.emu.register_app(
                client_id=CLIENT_ID,
                client_secret=self.client_secret,
                redirect_url=self.url + REDIRECT_PATH,
                token_rotation=self._rotation,
                token_lifetime_s=self._lifetime,
            )
        return self

    @property
    def sandbox_url(self) -> str:
        assert self._sandbox_server is not None
        return self._sandbox_server.url

    @property
    def url(self) -> str:
        assert self._server is not None
        return self._server.url

    def settings(self) -> Settings:
        service: dict[str, Any] = {}
        if not self.embedded:
            service = {
                "content_api_url": self.sandbox_url,
                "content_client_id": ACME.client_id,
                "content_client_secret": ACME.client_secret,
            }
        return Settings(
            _env_file=None,
            slack_signing_secret=SIGNING_SECRET,
            slack_client_id=CLIENT_ID,
            slack_client_secret=self.client_secret,
            slack_state_secret=self.state_secret,
            slack_api_url=self.cloud.api_url,
            suggestbot_secret_keys=self.secret_keys,
            suggestbot_data_dir=self.data_dir,
            **service,
        )

    def start_app(self) -> Runtime:
        runtime = Runtime(self.settings(), poll_scale=0.01).start()
        server = BackgroundServer(
            build_http_app(runtime.app, health=runtime.health), port=self._port, name="app"
        ).start()
        self._port = server.port
        self.runtime, self._server = runtime, server
        for team in (self.north, self.south):
            if team.driver is None:
                team.driver = SlackDriver(
                    team.emu, app_url=server.url + EVENTS_PATH, signing_secret=SIGNING_SECRET
                )
        return runtime

    def stop_app(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self.runtime is not None:
            self.runtime.stop()
            self.runtime = None

    def restart_app(self) -> Runtime:
        self.stop_app()
        return self.start_app()

    def stop(self) -> None:
        for team in (self.north, self.south):
            if team.driver is not None:
                team.driver.close()
                team.driver = None
        # The app first (work it lets finish may still call Slack and the service), then the
        # two stand-ins at once: each server takes a few uvicorn ticks to wind down.
        self.stop_app()
        sandbox_server, self._sandbox_server = self._sandbox_server, None
        stopping = threading.Thread(target=self.cloud.stop, name="world-stop-slack")
        stopping.start()
        try:
            if sandbox_server is not None:
                sandbox_server.stop()
        finally:
            stopping.join()

    @property
    def app(self) -> Runtime:
        assert self.runtime is not None
        return self.runtime

    # -- acting as people -----------------------------------------------------------------
    def install(self, team: Team, **kwargs: Any) -> InstallResult:
        return team.slack.install_app(self.url + INSTALL_PATH, user_id=team.admin, **kwargs)

    def user_token(self, tenant: DemoTenant) -> str:
        _, token = self.sandbox.create_user_token(tenant.tenant_id)
        return token

    def connect(self, team: Team, user_id: str, token: str) -> None:
        team.slack.slash_command(user_id, team.channel, "connect")
        wait_for(lambda: team.emu.current_view(user_id) is not None, what="the connect modal")
        team.slack.submit_view(user_id, {t("connect.label", "en"): token})
        wait_for(
            lambda: "account is connected" in team.emu.ephemeral_transcript(user_id),
            what="the account to be connected",
            detail=lambda: team.emu.ephemeral_transcript(user_id),
        )

    def brief(self, team: Team, user_id: str, text: str, *, tenant: DemoTenant) -> None:
        team.slack.slash_command(user_id, team.channel, "brief")
        wait_for(
            lambda: (team.emu.current_view(user_id) or {}).get("submit") is not None,
            what="the brief modal",
            detail=lambda: team.emu.view_transcript(user_id),
        )
        team.slack.submit_view(
            user_id,
            {
                t("brief.segment", "en"): next(iter(tenant.segments)),
                t("brief.use_case", "en"): next(iter(tenant.use_cases)),
                t("brief.text", "en"): text,
                t("brief.variants", "en"): "1",
            },
        )

    def results(self, team: Team) -> list[dict[str, Any]]:
        """Root messages in the team's channel whose thread holds the variants (ready ones)."""
        ready = []
        for message in team.emu.messages(team.channel):
            if "are ready" in message.get("text", "") and message.get("reply_count"):
                ready.append(message)
        return ready

    def runs_of(self, tenant: DemoTenant) -> list[Any]:
        """The tenant's runs, as its machine credential sees them."""
        auth = ClientCredentialsAuth.for_base_url(
            self.sandbox_url, tenant.client_id, tenant.client_secret
        )
        with ContentClient(self.sandbox_url, auth=auth) as client:
            return list(client.iter_runs())


__all__ = ["ACME", "BERGWERK", "OAuthWorld", "Team", "wait_for"]


def at_rest(db: Path) -> bytes:
    """The state file and its write-ahead log: everything the store keeps on disk (with WAL,
    the newest records are in the log until a checkpoint moves them into the file)."""
    wal = Path(f"{db}-wal")
    return db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def dm_text(team: Team, user_id: str) -> str:
    """Everything the app said to ``user_id`` in a direct message."""
    dm = team.emu.dm_channel(user_id)
    return "\n".join(m.get("text", "") for m in team.emu.messages(dm))


def set_service(
    world: OAuthWorld, team: Team, *, url: str, client_id: str, secret: str
) -> ViewSubmission:
    """The team's admin opens App Home, presses the settings button and submits the modal."""
    team.slack.app_home_opened(team.admin)
    home = wait_for(
        lambda: (
            (view := team.emu.home_view(team.admin))
            and t("admin.set", "en") in str(view["blocks"])
            and view
        ),
        what="the admin's Home with workspace settings",
    )
    team.slack.press_button(home, t("admin.set", "en"), user_id=team.admin)
    wait_for(lambda: team.emu.current_view(team.admin) is not None, what="the settings modal")
    return team.slack.submit_view(
        team.admin,
        {
            t("admin.url", "en"): url,
            t("admin.client_id", "en"): client_id,
            t("admin.client_secret", "en"): secret,
        },
    )


def install_both_with_south_on_its_own_tenant(world: OAuthWorld) -> None:
    """Install both workspaces; south's admin points south at its own tenant (BERGWERK),
    north keeps the app's default one."""
    assert world.install(world.north).status == 200
    assert world.install(world.south).status == 200
    south = world.south
    set_service(
        world,
        south,
        url=world.sandbox_url,
        client_id=BERGWERK.client_id,
        secret=BERGWERK.client_secret,
    )
    wait_for(
        lambda: "Checked and saved" in dm_text(south, south.admin),
        what="the admin to be told the credentials were saved",
        detail=lambda: dm_text(south, south.admin),
    )
