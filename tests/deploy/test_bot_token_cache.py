"""A burst of Slack calls in a workspace reads its bot token from the installation store once,
and a token this process deleted, replaced or refreshed is never used again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import Installation

from suggestbot.flows.workspace.uninstall import tokens_revoked
from suggestbot.installations.scope import team_scope
from suggestbot.installations.store import EncryptedInstallationStore
from suggestbot.installations.token_cache import BOT_TOKEN_TTL_S
from suggestbot.installations.tokens import (
    DEFAULT_EXPIRATION_MINUTES,
    BotTokens,
    SerialTokenRotator,
    TeamWebClient,
)
from suggestbot.slackemu import SlackCloud, SlackEmulator
from suggestbot.store import SqliteStore, TokenVault, generate_key
from suggestbot.store.sqlite import DB_FILENAME

NORTH, SOUTH = "T0NORTH", "T0SOUTH"
HOUR_S = 3600
# Refreshed tokens last as long as Slack's do.
SLACK_LIFETIME_S = 12 * HOUR_S


class Clock:
    """Epoch seconds that move only when a test says so. Starts at the real time, since
    slack_sdk's token rotator compares expiry times with the real clock."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class CountedInstallations(EncryptedInstallationStore):
    """The app's installation store, counting how often each workspace's is read."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reads: dict[str | None, int] = {}

    def find_installation(self, **kwargs: Any) -> Installation | None:
        team_id = kwargs.get("team_id")
        self.reads[team_id] = self.reads.get(team_id, 0) + 1
        return super().find_installation(**kwargs)


class SlackOAuth(WebClient):
    """Slack's ``oauth.v2.access`` for refresh tokens: each refresh hands out a new token."""

    def __init__(self) -> None:
        super().__init__()
        self.refreshes = 0

    def oauth_v2_access(self, **kwargs: Any) -> Any:
        assert kwargs["grant_type"] == "refresh_token"
        self.refreshes += 1
        return {
            "token_type": "bot",
            "access_token": f"xoxe.xoxb-refreshed-{self.refreshes}",
            "refresh_token": f"xoxe-1-refresh-{self.refreshes}",
            "expires_in": SLACK_LIFETIME_S,
        }


class App:
    """What a multi-workspace install wires: one store, one rotator, one token source."""

    def __init__(self, store: SqliteStore) -> None:
        self.clock = Clock()
        self.store = store
        self.vault = TokenVault([generate_key()])
        self.installations = CountedInstallations(store, self.vault)
        self.oauth = SlackOAuth()
        self.rotator = SerialTokenRotator(
            installations=self.installations, client_id="1.2", client_secret="s", client=self.oauth
        )
        self.tokens = BotTokens(
            installations=self.installations, rotator=self.rotator, clock=self.clock
        )
        self.slack = TeamWebClient(tokens=self.tokens)

    def install(
        self, team_id: str, token: str, *, expires_in_s: float | None = None
    ) -> Installation:
        installation = Installation(
            app_id="A1",
            team_id=team_id,
            bot_token=token,
            bot_id="B1",
            bot_user_id="UB1",
            bot_scopes="chat:write",
            bot_refresh_token=None if expires_in_s is None else f"xoxe-1-{team_id}",
            bot_token_expires_at=None if expires_in_s is None else int(self.clock() + expires_in_s),
            user_id="U1",
        )
        self.installations.save(installation)
        return installation

    def token(self, team_id: str) -> str | None:
        """The token a Slack call in ``team_id`` would carry."""
        with team_scope(team_id):
            return self.slack.token

    def reads(self, team_id: str) -> int:
        return self.installations.reads.get(team_id, 0)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    store = SqliteStore(tmp_path / DB_FILENAME)
    yield App(store)
    store.close()


def test_many_calls_within_the_ttl_read_the_store_once(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")

    tokens = [app.token(NORTH) for _ in range(50)]

    assert set(tokens) == {"xoxb-north-1"}
    assert app.reads(NORTH) == 1


def test_after_the_ttl_the_store_is_read_again(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    app.token(NORTH)
    app.clock.advance(BOT_TOKEN_TTL_S - 0.1)
    app.token(NORTH)
    assert app.reads(NORTH) == 1

    app.clock.advance(0.1)
    assert app.token(NORTH) == "xoxb-north-1"
    assert app.reads(NORTH) == 2


def test_a_clock_set_back_does_not_stretch_the_ttl(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    app.token(NORTH)
    app.clock.advance(-HOUR_S)

    app.token(NORTH)

    assert app.reads(NORTH) == 2


def test_an_expiring_token_is_refreshed_and_the_fresh_one_is_used_from_then_on(app: App) -> None:
    # Inside the refresh window: a refresh is due now.
    app.install(NORTH, "xoxe.xoxb-north-old", expires_in_s=600)

    assert app.token(NORTH) == "xoxe.xoxb-refreshed-1"
    following = {app.token(NORTH) for _ in range(20)}

    assert following == {"xoxe.xoxb-refreshed-1"}
    assert app.oauth.refreshes == 1
    # The lookup that refreshed, the rotator's own read, and one read that kept the fresh token.
    assert app.reads(NORTH) == 3


def test_a_token_due_for_refresh_before_the_ttl_would_end_is_not_kept(app: App) -> None:
    # Enters the refresh window about half-way through the cache's seconds.
    window_s = DEFAULT_EXPIRATION_MINUTES * 60
    app.install(NORTH, "xoxe.xoxb-north-old", expires_in_s=window_s + BOT_TOKEN_TTL_S / 2 + 0.5)

    assert app.token(NORTH) == "xoxe.xoxb-north-old"  # not due yet: used, not refreshed
    assert app.token(NORTH) == "xoxe.xoxb-north-old"

    assert app.reads(NORTH) == 2  # read again: once due, the next call refreshes it
    assert app.oauth.refreshes == 0


def test_a_revoked_bot_token_is_not_used_for_the_very_next_call(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    assert app.token(NORTH) == "xoxb-north-1"

    tokens_revoked(
        app.installations, enterprise_id=None, team_id=NORTH, user_ids=[], bot_user_ids=["UB1"]
    )

    assert app.token(NORTH) is None


def test_an_uninstalled_workspace_has_no_token_for_the_very_next_call(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    assert app.token(NORTH) == "xoxb-north-1"

    # What the app_uninstalled listener does first (flows.workspace.uninstall).
    app.installations.delete_all(enterprise_id=None, team_id=NORTH)

    assert app.token(NORTH) is None


def test_a_reinstall_replaces_the_kept_token_at_once(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    assert app.token(NORTH) == "xoxb-north-1"

    app.install(NORTH, "xoxb-north-2")

    assert app.token(NORTH) == "xoxb-north-2"


def test_not_installed_is_not_kept_so_an_install_works_at_once(app: App) -> None:
    assert app.token(NORTH) is None

    # Installed through another replica: the same records, and this process is not told.
    other_replica = EncryptedInstallationStore(app.store, app.vault)
    other_replica.save(
        Installation(app_id="A1", team_id=NORTH, bot_token="xoxb-north-1", bot_id="B1", user_id="U")
    )

    assert app.token(NORTH) == "xoxb-north-1"


def test_a_lookup_overlapping_a_delete_keeps_nothing(app: App) -> None:
    """A read that began before a delete may return the deleted token; it must not be kept."""
    app.install(NORTH, "xoxb-north-1")
    original = EncryptedInstallationStore.find_installation

    def read_then_delete(self: EncryptedInstallationStore, **kwargs: Any) -> Installation | None:
        found = original(self, **kwargs)
        self.delete_all(enterprise_id=None, team_id=NORTH)  # lands mid-lookup
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EncryptedInstallationStore, "find_installation", read_then_delete)
        assert app.token(NORTH) == "xoxb-north-1"  # what was current when the read began

    assert app.token(NORTH) is None


def test_the_store_tells_of_each_change_once_it_is_written(app: App) -> None:
    """So that a lookup starting when told reads the new state, not the old one."""
    app.install(NORTH, "xoxb-north-1")
    told: list[tuple[str | None, str | None]] = []

    def note(team_id: str | None) -> None:
        found = app.installations.find_installation(enterprise_id=None, team_id=NORTH)
        told.append((team_id, found.bot_token if found else None))

    app.installations.on_change(note)
    app.install(NORTH, "xoxb-north-2")  # the bot, then the installation
    app.installations.delete_all(enterprise_id=None, team_id=NORTH)  # the same

    assert told == [(NORTH, "xoxb-north-2")] * 2 + [(NORTH, None)] * 2


def test_a_change_to_an_org_wide_install_drops_every_kept_token(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    app.token(NORTH)

    app.installations.save(
        Installation(
            app_id="A1",
            enterprise_id="E1",
            team_id=SOUTH,  # the team it was installed from; it serves every team of E1
            is_enterprise_install=True,
            bot_token="xoxb-org-1",
            bot_id="B1",
            user_id="U1",
        )
    )
    app.token(NORTH)

    assert app.reads(NORTH) == 2


def test_two_workspaces_never_see_each_others_token(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    app.install(SOUTH, "xoxb-south-1")

    seen = [(app.token(NORTH), app.token(SOUTH)) for _ in range(10)]
    app.install(SOUTH, "xoxb-south-2")  # a change in one workspace leaves the other's alone

    assert set(seen) == {("xoxb-north-1", "xoxb-south-1")}
    assert (app.token(NORTH), app.token(SOUTH)) == ("xoxb-north-1", "xoxb-south-2")
    assert app.reads(NORTH) == 1 and app.reads(SOUTH) == 2


def test_no_token_shows_in_a_repr(app: App) -> None:
    app.install(NORTH, "xoxb-north-1")
    app.token(NORTH)

    shown = repr(app.tokens) + repr(app.tokens._cache) + repr(app.tokens._cache._entries)

    assert "xoxb" not in shown


# -- real Slack calls ---------------------------------------------------------------------


@pytest.mark.loopback
def test_a_burst_of_slack_calls_in_two_workspaces_reads_each_once(app: App) -> None:
    north = SlackEmulator(team_id=NORTH, team_domain="north")
    south = SlackEmulator(team_id=SOUTH, team_domain="south")
    app.install(NORTH, north.bot_token)
    app.install(SOUTH, south.bot_token)
    answered_for: list[str] = []
    with SlackCloud(north, south) as cloud:
        client = TeamWebClient(tokens=app.tokens, base_url=cloud.api_url)
        for _ in range(10):
            for team in (NORTH, SOUTH):
                with team_scope(team):
                    answered_for.append(client.auth_test()["team_id"])

    # Each call carried its own workspace's token (Slack names the workspace that issued it).
    assert answered_for == [NORTH, SOUTH] * 10
    # slack_sdk reads the client's token twice a call: 40 reads of the store without the cache.
    assert app.reads(NORTH) == app.reads(SOUTH) == 1
