"""The language picker on an admin's Home, through the real Bolt app."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dispatch_helpers import ALICE, BRUNO, TEAM_ID, Workspace

from suggestbot.flows.common import workspace_language
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t


@pytest.fixture
def ws() -> Iterator[Workspace]:
    workspace = Workspace()
    yield workspace
    workspace.close()


def test_an_admin_picks_the_channels_language_and_home_shows_it(ws: Workspace) -> None:
    ws.slack.admins.add(ALICE.id)
    answer = ws.pick_in_home(ids.ACTION_WORKSPACE_LANGUAGE, "ja", user=ALICE)
    assert answer.status == 200
    assert workspace_language.of(ws.deps, TEAM_ID) == "ja"
    told = [m["text"] for m in ws.slack.made("chat.postMessage")]
    assert t("admin.language_saved", "en", language="Japanese") in told
    [home] = [v for v in ws.slack.made("views.publish") if v["user_id"] == ALICE.id][-1:]
    picker = next(b for b in home["view"]["blocks"] if b.get("block_id") == "admin-language")
    assert picker["accessory"]["initial_option"]["value"] == "ja"


def test_a_member_who_is_no_admin_cannot_pick_it(ws: Workspace) -> None:
    ws.slack.locales[BRUNO.id] = "de-DE"
    assert ws.pick_in_home(ids.ACTION_WORKSPACE_LANGUAGE, "ja", user=BRUNO).status == 200
    assert workspace_language.of(ws.deps, TEAM_ID) == "en"
    told = [m["text"] for m in ws.slack.made("chat.postMessage")]
    assert t("admin.language_only_admins", "de") in told
    [home] = [v for v in ws.slack.made("views.publish") if v["user_id"] == BRUNO.id][-1:]
    assert all(b.get("block_id") != "admin-language" for b in home["view"]["blocks"])
