"""Rotating the encryption keys of stored secrets, and losing one, as an operator would.

Rotation: the app runs with ``new,old``, ``suggestbot rotate-keys`` runs beside it as its own
process, then the app restarts with ``new`` alone and every linked user still works. A lost
key: users whose token nothing decrypts are asked to reconnect, their brief is kept, the
operator reads one log line and ``/healthz`` says so.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from at_rest import at_rest

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for
from suggestbot.store import TokenVault, generate_key
from suggestbot.ui.messages import t


def rotate_keys(stage: Stage) -> subprocess.CompletedProcess[str]:
    """``suggestbot rotate-keys`` in a process of its own, configured like the app."""
    env = {
        **os.environ,
        "SUGGESTBOT_SECRET_KEYS": stage.secret_keys,
        "SUGGESTBOT_DATA_DIR": str(stage.data_dir),
    }
    return subprocess.run(
        [sys.executable, "-m", "suggestbot", "rotate-keys"],
        env=env,
        cwd=stage.data_dir,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def healthz(stage: Stage) -> dict:
    assert stage.driver is not None
    url = stage.driver.app_url.rsplit("/slack/", 1)[0] + "/healthz"
    return httpx.get(url, timeout=10).json()


def brief_comes_back(stage: Stage, user_id: str, text: str) -> None:
    stage.brief(user_id, text)
    wait_for(
        lambda: (
            text in stage.emu.transcript(stage.channel)
            and (
                "are ready" in stage.emu.transcript(stage.channel)
                or "sind fertig" in stage.emu.transcript(stage.channel)
            )
        ),
        what=f"the result of {text!r}",
        detail=lambda: stage.emu.transcript(stage.channel),
    )


def status_of(stage: Stage, user_id: str) -> str:
    before = len(stage.emu.ephemerals(user_id))
    stage.slack.slash_command(user_id, stage.channel, "status")
    wait_for(lambda: len(stage.emu.ephemerals(user_id)) > before, what="the status answer")
    return str(stage.emu.ephemerals(user_id)[-1])


def test_rotate_then_drop_the_old_key_and_every_user_still_works(stage: Stage) -> None:
    old, new = stage.secret_keys, generate_key()
    stage.connect(ALICE)
    stage.connect(BRUNO)
    brief_comes_back(stage, ALICE, "Before the rotation")

    stage.secret_keys = f"{new},{old}"
    stage.restart_app()
    assert healthz(stage)["secrets"] == {"unreadable": 0, "older_key": 2}

    done = rotate_keys(stage)  # while the app runs
    assert done.returncode == 0, done.stdout + done.stderr
    assert "re-encrypted 2 record(s)" in done.stdout
    again = rotate_keys(stage)  # resumable: a second pass finds nothing left to do
    assert again.returncode == 0 and "re-encrypted 0 record(s)" in again.stdout

    stage.secret_keys = new
    stage.restart_app()
    assert healthz(stage)["secrets"] == {"unreadable": 0, "older_key": 0}
    brief_comes_back(stage, ALICE, "After the rotation, Alice")
    brief_comes_back(stage, BRUNO, "After the rotation, Bruno")
    assert "is connected" in status_of(stage, ALICE)
    assert old not in at_rest(Path(stage.data_dir) / "suggestbot.sqlite").decode("latin-1")


def test_a_dropped_key_asks_the_user_to_reconnect_and_keeps_the_brief(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    token = stage.user_token()
    stage.connect(ALICE, token)
    stage.secret_keys = generate_key()  # the old key dropped without rotating first
    with caplog.at_level(logging.INFO):
        stage.restart_app()
        problems = [r for r in caplog.records if r.name == "suggestbot.secret_keys"]
        assert [r.levelname for r in problems] == ["INFO", "ERROR"]
        key_line = problems[-1].getMessage()
        assert "SUGGESTBOT_SECRET_KEYS" in key_line and "1 stored record(s) (users)" in key_line
        assert token not in caplog.text
        assert healthz(stage)["secrets"] == {"unreadable": 1, "older_key": 0}

        status = status_of(stage, ALICE)
        assert "Connect again" in status and "is connected" not in status

        stage.slack.slash_command(ALICE, stage.channel, "brief Kept while I reconnect")
        prompt = wait_for(
            lambda: next(
                (e for e in stage.emu.ephemerals(ALICE) if "Connect account" in str(e)), None
            ),
            what="the connect prompt",
            detail=lambda: stage.emu.ephemeral_transcript(ALICE),
        )
        # No job retries with a token it cannot read, and no other error was logged.
        assert not [r for r in caplog.records if "trying again" in r.getMessage()]
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert errors == [problems[-1]]

    stage.slack.press_button(prompt, "Connect account", user_id=ALICE)
    wait_for(lambda: stage.emu.current_view(ALICE), what="the connect modal")
    stage.slack.submit_view(ALICE, {"Personal token": stage.user_token()})
    resend = wait_for(
        lambda: next(
            (e for e in stage.emu.ephemerals(ALICE) if "Your brief is kept" in str(e)), None
        ),
        what="the resend offer",
        detail=lambda: stage.emu.ephemeral_transcript(ALICE),
    )
    stage.slack.press_button(resend, "Resend", user_id=ALICE)
    view = wait_for(
        lambda: (
            (stage.emu.current_view(ALICE) or {}).get("submit") and stage.emu.current_view(ALICE)
        ),
        what="the brief modal",
    )
    assert "Kept while I reconnect" in str(view)  # what the user typed is kept
    demo = stage.demo.primary
    stage.slack.submit_view(
        ALICE,
        {
            t("brief.segment", "en"): next(iter(demo.segments)),
            t("brief.use_case", "en"): next(iter(demo.use_cases)),
        },
    )
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="the result")
    assert "Kept while I reconnect" in stage.emu.transcript(stage.channel)
    assert "is connected" in status_of(stage, ALICE)


def test_a_token_unreadable_while_running_waits_for_a_reconnect_without_retrying(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    # Another process (run with other keys) rewrote Alice's token after this app started.
    stage.connect(ALICE)
    assert stage.runtime is not None
    foreign = TokenVault([generate_key()]).encrypt("sbx_ut_written_elsewhere")
    stage.runtime.store.update(
        "users", f"{stage.emu.team_id}:{ALICE}", lambda old: {**(old or {}), "token_enc": foreign}
    )
    with caplog.at_level(logging.INFO):
        stage.brief(ALICE, "Typed before the keys changed")
        wait_for(lambda: "waiting" in stage.emu.transcript(stage.channel), what="the waiting root")
        assert "Typed before the keys changed" in stage.emu.transcript(stage.channel)
        assert "Connect again" in status_of(stage, ALICE)
    assert not [r for r in caplog.records if "trying again" in r.getMessage()]
    assert "sbx_ut_written_elsewhere" not in caplog.text
