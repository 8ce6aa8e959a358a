"""The installation store keeps slack_sdk's InstallationStore contract, with tokens encrypted."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_helpers import at_rest
from slack_sdk.oauth.installation_store import Installation

from no_whole_tables import NoWholeTables
from suggestbot.installations.store import EncryptedInstallationStore, workspace_key
from suggestbot.store import SqliteStore, TokenVault, generate_key
from suggestbot.store.records import SLACK_BOTS, SLACK_INSTALLATIONS
from suggestbot.store.sqlite import DB_FILENAME


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[SqliteStore]:
    store = SqliteStore(tmp_path / DB_FILENAME)
    yield store
    store.close()


@pytest.fixture
def installs(sqlite: SqliteStore) -> EncryptedInstallationStore:
    return EncryptedInstallationStore(sqlite, TokenVault([generate_key()]), client_id="1.2")


def _installation(
    *, user_id: str = "U1", bot_token: str = "xoxb-1-aaa", team_id: str = "T1", **extra: object
) -> Installation:
    return Installation(
        app_id="A1",
        team_id=team_id,
        team_name="team",
        bot_token=bot_token,
        bot_id="B1",
        bot_user_id="UB1",
        bot_scopes="chat:write,commands",
        bot_refresh_token="xoxe-1-refresh",
        bot_token_expires_in=3600,
        user_id=user_id,
        user_token=f"xoxp-{user_id}-user",
        user_scopes="search:read",
        incoming_webhook_url="https://hooks.slack.com/services/T1/B1/secretpath",
        installed_at=time.time(),
        **extra,  # type: ignore[arg-type]
    )


def test_what_is_saved_is_found_again(installs: EncryptedInstallationStore) -> None:
    saved = _installation()
    installs.save(saved)

    found = installs.find_installation(enterprise_id=None, team_id="T1")
    assert found is not None
    for name in (
        "bot_token",
        "bot_refresh_token",
        "bot_token_expires_at",
        "user_token",
        "incoming_webhook_url",
        "bot_user_id",
        "team_name",
    ):
        assert getattr(found, name) == getattr(saved, name), name
    assert found.bot_scopes == ["chat:write", "commands"]
    bot = installs.find_bot(enterprise_id=None, team_id="T1")
    assert bot is not None and bot.bot_token == "xoxb-1-aaa"
    assert installs.find_installation(enterprise_id=None, team_id="T1", user_id="U1") is not None
    assert installs.find_installation(enterprise_id=None, team_id="T2") is None
    assert installs.teams() == ["T1"]


def test_no_token_or_webhook_url_is_stored_in_clear(
    installs: EncryptedInstallationStore, sqlite: SqliteStore, tmp_path: Path
) -> None:
    installs.save(_installation())
    raw = at_rest(tmp_path / DB_FILENAME)
    for secret in ("xoxb-1-aaa", "xoxe-1-refresh", "xoxp-U1-user", "secretpath"):
        assert secret.encode() not in raw
    for table in (SLACK_BOTS, SLACK_INSTALLATIONS):
        for _, record in sqlite.items(table):
            assert "xox" not in str(record)


def test_a_rotated_bot_reaches_every_installation_of_the_workspace(
    installs: EncryptedInstallationStore,
) -> None:
    installs.save(_installation(user_id="U1", bot_token="xoxb-old"))
    rotated = installs.find_bot(enterprise_id=None, team_id="T1")
    assert rotated is not None
    rotated.bot_token = "xoxb-new"
    installs.save_bot(rotated)
    for user_id in (None, "U1"):
        found = installs.find_installation(enterprise_id=None, team_id="T1", user_id=user_id)
        assert found is not None and found.bot_token == "xoxb-new"


def test_a_later_install_is_the_latest_and_each_user_keeps_their_own(
    installs: EncryptedInstallationStore,
) -> None:
    installs.save(_installation(user_id="U1", bot_token="xoxb-first"))
    installs.save(_installation(user_id="U2", bot_token="xoxb-second"))
    latest = installs.find_installation(enterprise_id=None, team_id="T1")
    first = installs.find_installation(enterprise_id=None, team_id="T1", user_id="U1")
    assert latest is not None and latest.user_id == "U2"
    assert first is not None and first.user_token == "xoxp-U1-user"
    assert first.bot_token == "xoxb-second"  # the workspace's current bot


def test_deleting_follows_revocations_and_uninstalls(installs: EncryptedInstallationStore) -> None:
    installs.save(_installation(user_id="U1"))
    installs.save(_installation(user_id="U2", team_id="T2"))

    installs.delete_installation(enterprise_id=None, team_id="T1", user_id="U1")
    assert installs.find_installation(enterprise_id=None, team_id="T1", user_id="U1") is None
    latest = installs.find_installation(enterprise_id=None, team_id="T1")
    assert latest is not None and latest.user_token is None and latest.bot_token is not None

    installs.delete_bot(enterprise_id=None, team_id="T1")
    after_revoke = installs.find_installation(enterprise_id=None, team_id="T1")
    assert after_revoke is not None and after_revoke.bot_token is None

    installs.delete_all(enterprise_id=None, team_id="T1")
    assert installs.find_installation(enterprise_id=None, team_id="T1") is None
    assert installs.find_installation(enterprise_id=None, team_id="T2") is not None


def test_an_uninstall_reads_the_workspaces_installations_by_index() -> None:
    guarded = NoWholeTables()
    installs = EncryptedInstallationStore(guarded, TokenVault([generate_key()]), client_id="1.2")
    for team, user in (("T1", "U1"), ("T1", "U2"), ("T2", "U3"), ("T11", "U4")):
        installs.save(_installation(user_id=user, team_id=team))
    installs.save(_installation(user_id="U5", team_id="T5", enterprise_id="E1"))
    installs.save(
        _installation(user_id="U6", team_id="T6", enterprise_id="E1", is_enterprise_install=True)
    )
    guarded.guarding = True

    installs.delete_all(enterprise_id=None, team_id="T1")
    installs.delete_installation(enterprise_id="E1", team_id=None)

    assert installs.find_installation(enterprise_id=None, team_id="T1") is None
    assert installs.find_installation(enterprise_id=None, team_id="T1", user_id="U2") is None
    for team, user in (("T2", "U3"), ("T11", "U4"), ("T5", "U5")):
        found = installs.find_installation(enterprise_id=None, team_id=team, user_id=user)
        assert found is not None, team
    org = installs.find_installation(enterprise_id="E1", team_id=None, is_enterprise_install=True)
    assert org is None


def test_workspaces_are_keyed_by_team_and_org_installs_by_enterprise() -> None:
    assert workspace_key(enterprise_id="E1", team_id="T1") == "T:T1"
    assert workspace_key(enterprise_id=None, team_id="T1") == "T:T1"
    assert workspace_key(enterprise_id="E1", team_id=None) == "E:E1"
    assert workspace_key(enterprise_id="E1", team_id="T1", is_enterprise_install=True) == "E:E1"


def test_an_enterprise_workspace_is_found_by_its_team_alone(
    installs: EncryptedInstallationStore,
) -> None:
    installs.save(_installation(enterprise_id="E1"))
    found = installs.find_installation(enterprise_id=None, team_id="T1")
    assert found is not None and found.enterprise_id == "E1"
