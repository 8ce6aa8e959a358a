"""``suggestbot backup`` of the running app, restored after the state file is lost."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for


def status_of(stage: Stage, user_id: str) -> str:
    before = len(stage.emu.ephemerals(user_id))
    stage.slack.slash_command(user_id, stage.channel, "status")
    wait_for(lambda: len(stage.emu.ephemerals(user_id)) > before, what="the status answer")
    return str(stage.emu.ephemerals(user_id)[-1])


def test_a_backup_taken_while_the_app_runs_restores_that_state(
    stage: Stage, tmp_path: Path
) -> None:
    stage.connect(ALICE)
    stage.brief(ALICE, "Worth keeping in the backup")
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="the result")
    copy = tmp_path / "backup.sqlite"
    env = {**os.environ, "SUGGESTBOT_DATA_DIR": str(stage.data_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "backup", str(copy)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    stage.connect(BRUNO)  # after the backup: not in it
    assert stage.runtime is not None
    with_both = dict(stage.runtime.store.items("users"))
    assert len(with_both) == 2

    stage.stop_app()
    live = Path(stage.data_dir) / "suggestbot.sqlite"
    live.unlink()  # the state file is lost...
    shutil.copyfile(copy, live)  # ...and restored from the backup
    stage.start_app()

    assert stage.runtime is not None
    restored = dict(stage.runtime.store.items("users"))
    assert restored == {k: v for k, v in with_both.items() if k.endswith(ALICE)}
    assert "is connected" in status_of(stage, ALICE)
    assert "is connected" not in status_of(stage, BRUNO)
    stage.brief(ALICE, "After the restore")
    wait_for(
        lambda: stage.emu.transcript(stage.channel).count("are ready") >= 2,
        what="a result after the restore",
        detail=lambda: stage.emu.transcript(stage.channel),
    )
