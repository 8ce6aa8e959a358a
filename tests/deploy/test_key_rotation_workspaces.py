"""Key rotation reaches every kind of stored secret of an OAuth install: bot and user tokens of
each installation, a workspace's own service credentials and linked users' tokens."""

from __future__ import annotations

import os
import subprocess
import sys

from deploy_helpers import (
    ACME,
    BERGWERK,
    OAuthWorld,
    install_both_with_south_on_its_own_tenant,
    wait_for,
)

from suggestbot.store import generate_key


def _rotate_keys(world: OAuthWorld) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "SUGGESTBOT_SECRET_KEYS": world.secret_keys,
        "SUGGESTBOT_DATA_DIR": str(world.data_dir),
    }
    return subprocess.run(
        [sys.executable, "-m", "suggestbot", "rotate-keys"],
        env=env,
        cwd=world.data_dir,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_workspace_secret_moves_to_the_new_key(world: OAuthWorld) -> None:
    north, south = world.north, world.south
    install_both_with_south_on_its_own_tenant(world)
    world.connect(north, north.member, world.user_token(ACME))
    world.connect(south, south.member, world.user_token(BERGWERK))

    old, new = world.secret_keys, generate_key()
    world.secret_keys = f"{new},{old}"
    world.restart_app()
    older = world.app.health()["secrets"]["older_key"]
    # 2 bots, 2 installations kept twice (latest, installer's), 1 service credential, 2 users.
    assert older == 9
    done = _rotate_keys(world)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"re-encrypted {older} record(s)" in done.stdout

    world.secret_keys = new
    world.restart_app()
    assert world.app.health()["secrets"] == {"unreadable": 0, "older_key": 0}
    world.brief(north, north.member, "North after the rotation", tenant=ACME)
    world.brief(south, south.member, "Süden nach der Rotation", tenant=BERGWERK)
    for team in (north, south):
        wait_for(
            lambda team=team: world.results(team),
            what=f"the results in {team.team_id}",
            detail=lambda team=team: team.emu.transcript(team.channel),
        )
    bergwerk = [run.request.model_dump().get("steering_text") for run in world.runs_of(BERGWERK)]
    assert "Süden nach der Rotation" in bergwerk  # south's own credential still decrypts
