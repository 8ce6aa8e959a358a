"""Two workspaces installed side by side, each with its own service tenant; uninstalling one."""

from __future__ import annotations

from deploy_helpers import (
    ACME,
    BERGWERK,
    OAuthWorld,
    at_rest,
    dm_text,
    install_both_with_south_on_its_own_tenant,
    set_service,
    wait_for,
)

from suggestbot.flows.workspace.uninstall import UNINSTALLED
from suggestbot.installations.scope import team_scope
from suggestbot.sandbox.faults import RunTiming
from suggestbot.store.sqlite import DB_FILENAME
from suggestbot.ui.messages import t


def test_two_workspaces_work_independently_each_with_its_own_tenant(world: OAuthWorld) -> None:
    north, south = world.north, world.south
    install_both_with_south_on_its_own_tenant(world)
    assert BERGWERK.client_secret.encode() not in at_rest(world.data_dir / DB_FILENAME)

    world.connect(north, north.member, world.user_token(ACME))
    world.connect(south, south.member, world.user_token(BERGWERK))
    world.brief(north, north.member, "Spring jackets for the north", tenant=ACME)
    world.brief(south, south.member, "Wanderschuhe für den Süden", tenant=BERGWERK)

    for team in (north, south):
        wait_for(
            lambda team=team: world.results(team),
            what=f"the results in {team.team_id}",
            detail=lambda team=team: team.emu.transcript(team.channel),
        )
    acme_briefs = [run.request.model_dump().get("steering_text") for run in world.runs_of(ACME)]
    bergwerk_briefs = [
        run.request.model_dump().get("steering_text") for run in world.runs_of(BERGWERK)
    ]
    assert "Spring jackets for the north" in acme_briefs
    assert "Wanderschuhe für den Süden" in bergwerk_briefs
    assert "Wanderschuhe für den Süden" not in acme_briefs
    assert "Spring jackets for the north" not in bergwerk_briefs
    # Each workspace saw only its own conversation.
    assert "Wanderschuhe" not in north.emu.transcript(north.channel)
    assert "Spring jackets" not in south.emu.transcript(south.channel)


def test_only_admins_see_and_keep_workspace_settings(world: OAuthWorld) -> None:
    south = world.south
    world.install(south)
    south.slack.app_home_opened(south.member)
    wait_for(lambda: south.emu.home_view(south.member), what="the member's Home")
    assert t("admin.set", "en") not in str(south.emu.home_view(south.member))

    # The admin opens the modal, then stops being an admin before submitting.
    south.slack.app_home_opened(south.admin)
    home = wait_for(
        lambda: (
            (view := south.emu.home_view(south.admin))
            and t("admin.set", "en") in str(view["blocks"])
            and view
        ),
        what="the admin's Home",
    )
    south.slack.press_button(home, t("admin.set", "en"), user_id=south.admin)
    wait_for(lambda: south.emu.current_view(south.admin) is not None, what="the settings modal")
    with south.emu.ws.lock:
        south.emu.ws.users[south.admin].is_admin = False
    south.slack.submit_view(
        south.admin,
        {
            t("admin.url", "en"): world.sandbox_url,
            t("admin.client_id", "en"): BERGWERK.client_id,
            t("admin.client_secret", "en"): BERGWERK.client_secret,
        },
    )
    wait_for(
        lambda: t("admin.only_admins", "en") in dm_text(south, south.admin),
        what="the refusal",
    )
    assert world.app.tenancy.contents.credentials(south.team_id) is None  # type: ignore[union-attr]


def test_credentials_the_service_refuses_are_not_kept(world: OAuthWorld) -> None:
    south = world.south
    world.install(south)
    set_service(
        world, south, url=world.sandbox_url, client_id=BERGWERK.client_id, secret="sbx_cs_wrong"
    )
    wait_for(lambda: "did not accept" in dm_text(south, south.admin), what="the rejection")
    assert world.app.tenancy.contents.credentials(south.team_id) is None  # type: ignore[union-attr]


def test_the_settings_modal_refuses_an_unsafe_address_at_once(world: OAuthWorld) -> None:
    south = world.south
    world.install(south)
    for url, key in (
        ("ftp://content.example.com", "admin.url_invalid"),
        ("http://content.example.com", "admin.url_insecure"),
    ):
        answer = set_service(world, south, url=url, client_id="x", secret="y")
        assert answer.errors == {t("admin.url", "en"): t(key, "en")}
        assert south.emu.current_view(south.admin) is not None  # the modal stays open
        south.slack.close_view(south.admin)
    assert world.app.tenancy.contents.credentials(south.team_id) is None  # type: ignore[union-attr]


def test_app_uninstalled_removes_the_workspace_and_stops_its_work(world: OAuthWorld) -> None:
    north, south = world.north, world.south
    world.install(north)
    world.install(south)
    set_service(
        world,
        north,
        url=world.sandbox_url,
        client_id=ACME.client_id,
        secret=ACME.client_secret,
    )
    wait_for(lambda: "Checked and saved" in dm_text(north, north.admin), what="saved")
    world.connect(north, north.member, world.user_token(ACME))
    # A run that will not finish while the workspace uninstalls.
    world.sandbox.faults.run_timing = RunTiming(queued_s=10_000, running_s=1.0)
    world.brief(north, north.member, "Never finished", tenant=ACME)
    records = world.app.deps.records
    request = wait_for(
        lambda: next((r for r in records.requests.values() if r.state == "submitted"), None),
        what="the brief to be submitted",
    )

    tenancy = world.app.tenancy
    assert tenancy is not None
    with team_scope(north.team_id):
        assert tenancy.slack.token is not None  # and kept for the next few seconds

    revoked, uninstalled = north.slack.uninstall_app()

    assert revoked.status == uninstalled.status == 200
    # The listeners ack first and clean up right after.
    wait_for(
        lambda: (
            tenancy.contents.credentials(north.team_id) is None
            and records.requests.get(request.id).state == "failed"
        ),  # type: ignore[union-attr]
        what="the workspace to be forgotten",
    )
    with team_scope(north.team_id):
        assert tenancy.slack.token is None  # not the one kept a moment ago
    installations = tenancy.installations
    assert installations.find_installation(enterprise_id=None, team_id=north.team_id) is None
    assert installations.find_bot(enterprise_id=None, team_id=north.team_id) is None
    assert [u for u in records.users.values() if u.team_id == north.team_id] == []
    stopped = records.requests.get(request.id)
    assert stopped is not None and stopped.failure is not None
    assert stopped.failure.code == UNINSTALLED
    assert f"request:{request.id}" not in world.app.scheduler.job_ids()
    # South is untouched and still served.
    assert tenancy.installations.find_bot(enterprise_id=None, team_id=south.team_id) is not None
    south.slack.slash_command(south.member, south.channel, "help")
    wait_for(lambda: "/suggest brief" in south.emu.ephemeral_transcript(south.member), what="help")
    # North is no longer served: its next command runs no flow (Bolt only answers, through
    # the command's response_url, that the app must be installed again).
    before = len(north.emu.calls())
    north.slack.slash_command(north.member, north.channel, "help")
    assert [c.method for c in north.emu.calls()[before:]] == ["response_url"]


def test_uninstall_events_in_either_order_or_twice_leave_the_same_result(
    world: OAuthWorld,
) -> None:
    north = world.north
    world.install(north)
    north.emu.uninstall()
    for event in (
        {"type": "app_uninstalled"},
        {"type": "tokens_revoked", "tokens": {"bot": ["B"]}},
    ):
        for _ in range(2):
            assert north.slack.event(event).status == 200
    tenancy = world.app.tenancy
    assert tenancy is not None
    assert (
        tenancy.installations.find_installation(enterprise_id=None, team_id=north.team_id) is None
    )
