"""Installing the app into workspaces by OAuth, through the Slack emulator's pages, and what
a workspace can do once it has installed it."""

from __future__ import annotations

import re
import ssl
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import pytest
from deploy_helpers import ACME, OAuthWorld, Team, at_rest, wait_for

from suggestbot.config import Settings
from suggestbot.contentapi import ContentClient, UserTokenAuth
from suggestbot.server.composition import slack_client
from suggestbot.slackapp.http import REDIRECT_PATH
from suggestbot.slackapp.tenancy import Tenancy, authorization_url
from suggestbot.store import MemoryStore, TokenVault, generate_key
from suggestbot.store.records import SLACK_BOTS, SLACK_INSTALLATIONS
from suggestbot.store.sqlite import DB_FILENAME

TOKEN_SHAPE = re.compile(rb"xox[abposre][.-]")


def _with_state(url: str, state: str | None) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "state"]
    if state is not None:
        query.append(("state", state))
    return urlunsplit(parts._replace(query=urlencode(query)))


def _installed_bot_token(world: OAuthWorld, team: Team) -> str | None:
    installation = world.app.tenancy.installations.find_installation(  # type: ignore[union-attr]
        enterprise_id=None, team_id=team.team_id
    )
    return installation.bot_token if installation else None


def test_install_through_slack_stores_the_installation_with_tokens_encrypted(
    world: OAuthWorld,
) -> None:
    result = world.install(world.north)

    assert result.status == 200, result.body
    assert urlsplit(result.callback_url).path == REDIRECT_PATH
    assert "state=" in result.callback_url
    token = _installed_bot_token(world, world.north)
    assert token is not None and world.north.emu.token_accepted(token)
    assert world.north.emu.installs == 1
    # At rest: only ciphertext, in the database file and in every stored record.
    raw = at_rest(world.data_dir / DB_FILENAME)
    assert token.encode() not in raw
    assert TOKEN_SHAPE.search(raw) is None
    for table in (SLACK_BOTS, SLACK_INSTALLATIONS):
        for _, record in world.app.store.items(table):
            assert record["bot_token_enc"] and token not in str(record)


def test_the_installed_workspace_is_served_with_its_own_token(world: OAuthWorld) -> None:
    world.install(world.north)
    world.north.slack.slash_command(world.north.member, world.north.channel, "help")
    wait_for(
        lambda: "/suggest brief" in world.north.emu.ephemeral_transcript(world.north.member),
        what="the help text",
    )


def test_a_wrong_or_missing_state_is_refused_and_nothing_is_installed(world: OAuthWorld) -> None:
    issued: list[str] = []

    def drop_state(url: str) -> str:
        issued.append(dict(parse_qsl(urlsplit(url).query))["state"])
        return _with_state(url, None)

    missing = world.install(world.north, tamper=drop_state)
    forged = world.install(world.north, tamper=lambda url: _with_state(url, "a.1.b"))
    # A genuine, unused state of this app, but issued to another browser (its cookie differs).
    other_browser = world.install(world.north, tamper=lambda url: _with_state(url, issued[0]))

    for refused in (missing, forged, other_browser):
        assert refused.status in (400, 401), refused.body
    assert world.north.emu.installs == 0  # no code was exchanged for tokens
    assert _installed_bot_token(world, world.north) is None
    assert world.install(world.north).status == 200
    assert world.north.emu.installs == 1


def test_a_callback_cannot_be_replayed(world: OAuthWorld) -> None:
    first = world.install(world.north)
    assert first.status == 200
    cookie = "; ".join(f"{name}={value}" for name, value in first.app_cookies.items())
    replay = httpx.get(first.callback_url, headers={"Cookie": cookie})
    assert replay.status_code == 401
    assert world.north.emu.installs == 1


def test_a_denied_install_stores_nothing(world: OAuthWorld) -> None:
    denied = world.install(world.north, deny=True)
    assert denied.status == 200  # Bolt's failure page
    assert _installed_bot_token(world, world.north) is None
    assert world.north.emu.installs == 0


def test_a_workspace_that_did_not_install_is_not_served(world: OAuthWorld) -> None:
    world.install(world.north)
    world.south.slack.slash_command(world.south.member, world.south.channel, "help")
    # Bolt answers it cannot find the installation; no flow ran, nothing reached south.
    assert world.south.emu.calls("chat.postEphemeral") == []
    assert world.south.emu.calls("views.open") == []


def test_installations_survive_a_restart(world: OAuthWorld) -> None:
    world.install(world.north)
    token = _installed_bot_token(world, world.north)
    world.restart_app()
    assert _installed_bot_token(world, world.north) == token
    world.north.slack.slash_command(world.north.member, world.north.channel, "help")
    wait_for(
        lambda: "/suggest brief" in world.north.emu.ephemeral_transcript(world.north.member),
        what="the help text after a restart",
    )


def test_without_a_service_configured_installed_workspaces_use_the_built_in_sandbox(
    tmp_path: Path,
) -> None:
    world = OAuthWorld(tmp_path / "data", embedded=True).start()
    try:
        north = world.north
        assert world.app.sandbox is not None
        world.install(north)
        # People are linked to the built-in sandbox on first use: no token to paste.
        world.brief(north, north.member, "Tents for the first warm weekend", tenant=ACME)
        wait_for(
            lambda: world.results(north),
            what="the results from the built-in sandbox",
            detail=lambda: north.emu.transcript(north.channel),
        )
    finally:
        world.stop()


def test_oauth_needs_a_state_secret() -> None:
    settings = Settings(_env_file=None, slack_client_id="1.2", slack_client_secret="s" * 32)
    with (
        ContentClient("http://127.0.0.1:9", auth=UserTokenAuth("unused")) as default,
        pytest.raises(ValueError, match="SLACK_STATE_SECRET"),
    ):
        Tenancy(
            settings,
            store=MemoryStore(),
            vault=TokenVault([generate_key()]),
            default_content=default,
            retry_handlers=[],
        )


@pytest.mark.parametrize(
    ("api_url", "authorize"),
    [
        ("https://slack.com/api/", "https://slack.com/oauth/v2/authorize"),
        ("http://127.0.0.1:5000/api/", "http://127.0.0.1:5000/oauth/v2/authorize"),
    ],
)
def test_slacks_approval_page_is_found_next_to_its_web_api(api_url: str, authorize: str) -> None:
    assert authorization_url(api_url) == authorize


def test_every_slack_client_shares_one_tls_context(world: OAuthWorld) -> None:
    # urllib would otherwise build a context (and load the CA bundle) per HTTPS connection
    tenancy = world.app.tenancy
    assert tenancy is not None
    assert isinstance(world.app.slack.ssl, ssl.SSLContext)
    assert tenancy.oauth_client.ssl is world.app.slack.ssl
    single = slack_client(Settings(_env_file=None, slack_bot_token="xoxb-1"))
    assert isinstance(single.ssl, ssl.SSLContext)
