"""Who reads decides the language: channels read the workspace's, set by an admin on Home."""

from __future__ import annotations

import pytest
from flows_helpers import ALICE, BRUNO, TEAM, World, world

from suggestbot.flows.common import workspace_language
from suggestbot.flows.home import tab as home
from suggestbot.store.records import WorkspaceLanguage
from suggestbot.store.workspaces import StoredInstallation
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t


@pytest.fixture
def w() -> World:
    return world()


def _installed_by(w: World, user_id: str) -> None:
    record = StoredInstallation(team_id=TEAM, user_id=user_id, installed_at=1.0)
    w.deps.records.slack_installations.put(f"T:{TEAM}:latest", record)


def test_until_an_admin_chooses_channels_read_the_installers_language_kept_once_read(
    w: World,
) -> None:
    assert workspace_language.of(w.deps, TEAM) == "en"  # nobody known: English
    _installed_by(w, BRUNO)
    w.slack.locales[BRUNO] = "de-DE"
    assert workspace_language.of(w.deps, TEAM) == "de"
    w.slack.locales[BRUNO] = "en-US"  # the installer's own later change is theirs alone
    w.deps.languages.clear()
    assert workspace_language.of(w.deps, TEAM) == "de"


def test_an_admin_chooses_the_language_and_is_told_in_their_own(w: World) -> None:
    w.slack.admins.add(ALICE)
    assert workspace_language.choose(w.deps, team_id=TEAM, user_id=ALICE, chosen="de")
    assert workspace_language.of(w.deps, TEAM) == "de"
    [told] = w.slack.roots(f"D-{ALICE}")
    assert told.text == t("admin.language_saved", "en", language="German")


def test_someone_who_is_no_admin_cannot_change_it(w: World) -> None:
    w.deps.records.workspace_languages.put(TEAM, WorkspaceLanguage(lang="de", set_by=ALICE))
    w.slack.locales[BRUNO] = "de-DE"
    assert not workspace_language.choose(w.deps, team_id=TEAM, user_id=BRUNO, chosen="en")
    assert workspace_language.of(w.deps, TEAM) == "de"
    [told] = w.slack.roots(f"D-{BRUNO}")
    assert told.text == t("admin.language_only_admins", "de")


def test_a_language_that_is_not_enabled_is_never_stored_nor_read(w: World) -> None:
    w.slack.admins.add(ALICE)
    assert not workspace_language.choose(w.deps, team_id=TEAM, user_id=ALICE, chosen="xx")
    w.deps.records.workspace_languages.put(TEAM, WorkspaceLanguage(lang="xx"))
    assert workspace_language.of(w.deps, TEAM) == "en"


def test_only_admins_find_the_picker_on_home(w: World) -> None:
    w.slack.admins.add(ALICE)
    section = workspace_language.home_section(w.deps, team_id=TEAM, user_id=ALICE, lang="en")
    [block] = section
    assert block["accessory"]["action_id"] == ids.ACTION_WORKSPACE_LANGUAGE
    names = [o["text"]["text"] for o in block["accessory"]["options"]]
    assert "Deutsch" in names and "English (United States)" in names
    assert block["accessory"]["initial_option"]["value"] == "en"
    assert workspace_language.home_section(w.deps, team_id=TEAM, user_id=BRUNO, lang="en") == []
    home.publish(w.deps, team_id=TEAM, user_id=ALICE)
    assert w.slack.homes == [ALICE]
