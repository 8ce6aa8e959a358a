"""Slack token rotation: an expiring bot token is refreshed before use, once, by whoever needs
it first (a Slack request through Bolt, or background work)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_helpers import OAuthWorld, at_rest, wait_for

from suggestbot.installations.scope import team_scope
from suggestbot.store.sqlite import DB_FILENAME

# Shorter than the two hours before expiry from which tokens are refreshed.
SHORT_LIFETIME_S = 600
SLACK_LIFETIME_S = 12 * 3600


@pytest.fixture
def rotating(tmp_path: Path) -> Iterator[OAuthWorld]:
    running = OAuthWorld(
        tmp_path / "data", token_rotation=True, token_lifetime_s=SHORT_LIFETIME_S
    ).start()
    try:
        yield running
    finally:
        running.stop()


def _stored(world: OAuthWorld) -> tuple[str | None, str | None]:
    tenancy = world.app.tenancy
    assert tenancy is not None
    installation = tenancy.installations.find_installation(
        enterprise_id=None, team_id=world.north.team_id
    )
    assert installation is not None
    return installation.bot_token, installation.bot_refresh_token


def _install_expiring(world: OAuthWorld) -> tuple[str, str]:
    """Install north with a short-lived token, then let it expire at Slack."""
    assert world.install(world.north).status == 200
    token, refresh = _stored(world)
    assert token is not None and refresh is not None
    assert token.startswith("xoxe.xoxb-") and refresh.startswith("xoxe-")
    world.north.oauth.token_lifetime_s = SLACK_LIFETIME_S  # what refreshes give from now on
    world.clock.advance(SHORT_LIFETIME_S + 1)
    assert not world.north.emu.token_accepted(token)
    return token, refresh


def test_a_slack_request_refreshes_an_expiring_token_first(rotating: OAuthWorld) -> None:
    north = rotating.north
    old_token, old_refresh = _install_expiring(rotating)

    north.slack.slash_command(north.member, north.channel, "help")

    wait_for(
        lambda: "/suggest brief" in north.emu.ephemeral_transcript(north.member),
        what="help, answered with a fresh token",
    )
    new_token, new_refresh = _stored(rotating)
    assert north.emu.token_refreshes == 1
    assert new_token not in (None, old_token) and new_refresh not in (None, old_refresh)
    assert north.emu.token_accepted(new_token)  # type: ignore[arg-type]
    raw = at_rest(rotating.data_dir / DB_FILENAME)
    assert re.search(rb"xox[be][.-]", raw) is None
    # A fresh token is good for 12 hours: the next request refreshes nothing.
    north.slack.slash_command(north.member, north.channel, "help")
    wait_for(
        lambda: north.emu.ephemeral_transcript(north.member).count("/suggest brief") >= 2,
        what="the second help",
    )
    assert north.emu.token_refreshes == 1


def test_background_work_refreshes_once_however_many_threads_need_the_token(
    rotating: OAuthWorld,
) -> None:
    north = rotating.north
    old_token, _ = _install_expiring(rotating)
    slack = rotating.app.slack
    start = threading.Barrier(6)
    errors: list[BaseException] = []

    def post(n: int) -> None:
        start.wait()
        try:
            with team_scope(north.team_id):
                slack.chat_postMessage(channel=north.channel, text=f"background post {n}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=post, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert north.emu.token_refreshes == 1
    posted = [m["text"] for m in north.emu.messages(north.channel)]
    assert sorted(posted) == [f"background post {n}" for n in range(6)]
    assert _stored(rotating)[0] != old_token


def test_without_a_workspace_scope_nothing_reaches_slack(rotating: OAuthWorld) -> None:
    rotating.install(rotating.north)
    with pytest.raises(Exception, match="not_authed"):
        rotating.app.slack.chat_postMessage(channel=rotating.north.channel, text="for whom?")
