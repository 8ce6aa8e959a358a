"""Secrets, after the whole reliability run (this module is moved to the end: see conftest).

Linked users' tokens survive a key rotation: with ``SUGGESTBOT_SECRET_KEYS="<new>,<old>"`` a
token stored under the old key still works, the rotation of ``suggestbot rotate-keys``
re-encrypts it under the new one, and then the old key can go. And then nothing any
reliability test left behind holds a secret: no token, client secret, signing secret, key or
signed image URL in any file under any data directory (the SQLite store, which is also the
scheduler's only durable state: its jobs live in memory and are rebuilt from the store's
requests at start), nor in the app's DEBUG logs; and no stage ever sent Slack a traceback or
an exception's name.
"""

from __future__ import annotations

import re

import pytest
from reliability_harness import (
    DB_FILENAME,
    SECRET_SHAPES,
    Evidence,
    ProcessStage,
    StageFactory,
    brief_modal,
    brief_values,
    files_under,
    result_problems,
    roots_by_tag,
    send_brief_by_modal,
    signed_urls,
    wait_for,
)

from suggestbot.demo.stage import ALICE
from suggestbot.sandbox.faults import RunTiming
from suggestbot.secret_keys import SECRET_TABLES
from suggestbot.store import TokenVault, VaultError, open_store
from suggestbot.store.integrity import MARKER_SUFFIX
from suggestbot.store.records import Records
from suggestbot.store.rotation import rotate
from suggestbot.ui.messages import t

TAG = re.compile(r"\[z\d{2}\]")
MARKER = DB_FILENAME + MARKER_SUFFIX
# How long the scan waits for reliability tests still running in other workers of a parallel
# run (they are handed out long before this one: see tests/conftest.py).
OTHERS_TIMEOUT_S = 120.0


def finished(stage: ProcessStage, key: str, variants: int) -> bool:
    roots = roots_by_tag(stage, TAG).get(key, [])
    return len(roots) == 1 and not result_problems(stage, roots[0], user=ALICE, variants=variants)


def brief_works(stage: ProcessStage, key: str, variants: int) -> None:
    """``/suggest brief <text>`` ends with its result: sent at once with Alice's remembered
    choices, or (nothing cached yet after a start) through the modal it opens prefilled."""
    text = f"{key} Instagram post for the trail days"
    assert stage.slack.slash_command(ALICE, stage.channel, f"brief {text}").status == 200
    opened = wait_for(
        lambda: roots_by_tag(stage, TAG).get(key) or brief_modal(stage, ALICE),
        what=f"{key} to be sent or the modal",
    )
    if isinstance(opened, dict):
        stage.slack.submit_view(ALICE, brief_values(stage, ALICE, text, variants))
    wait_for(lambda: finished(stage, key, variants), what=f"the result of {key}")


def stored_tokens(stage: ProcessStage) -> dict[str, str]:
    """Linked users' encrypted tokens as stored (read with the app stopped)."""
    store = open_store(stage.data_dir)
    try:
        return {f"{u.team_id}:{u.user_id}": u.token_enc for u in Records(store).users.values()}
    finally:
        store.close()


# Its own 240 s, plus the wait (in a parallel run) for the other workers' reliability tests.
@pytest.mark.timeout(240 + OTHERS_TIMEOUT_S)
def test_tokens_survive_key_rotation_and_no_secret_is_left_anywhere(
    process_stage: StageFactory, evidence: Evidence
) -> None:
    timing = RunTiming(queued_s=20, running_s=40)
    stage = process_stage("secrets", time_factor=0.02, poll_scale=0.05, run_timing=timing)
    stage.connect(ALICE)
    token = stage.user_tokens[-1]
    # Images: signed URLs are minted for the post, and again on "Refresh preview".
    send_brief_by_modal(stage, ALICE, "[z01] Instagram post for the trail days", variants=2)
    wait_for(lambda: finished(stage, "[z01]", 2), what="the first result")
    root = roots_by_tag(stage, TAG)["[z01]"][0]
    thread = stage.emu.messages(stage.channel, thread_ts=root["ts"])
    # The first variant in full (the gallery of both comes before it).
    variant = next(
        m
        for m in thread
        if (m.get("metadata") or {}).get("event_payload", {}).get("role") == "variant"
    )
    stage.slack.press_button(variant, t("variant.refresh", "en"), user_id=ALICE)
    wait_for(lambda: stage.sandbox.counters.get("POST /v1/assets/urls") == 2, what="a re-mint")
    # A kill while a brief is in flight: recovery's own logging is scanned too.
    stage.slack.slash_command(ALICE, stage.channel, "brief [z02] Instagram post, killed")
    wait_for(lambda: roots_by_tag(stage, TAG).get("[z02]"), what="the second root")
    stage.kill_app()
    stage.start_app()
    wait_for(lambda: finished(stage, "[z02]", 2), what="the result after the kill")

    # Rotation, step 1: a new key first, the old one still listed. The stored token (under
    # the old key) still decrypts, so Alice's brief still works.
    stage.stop_app()
    before = stored_tokens(stage)
    new_key = stage.rotate_keys()
    stage.start_app()
    brief_works(stage, "[z03]", 2)

    # Step 2: what `suggestbot rotate-keys` does re-encrypts each stored token under the new key...
    stage.stop_app()
    vault = TokenVault.from_setting(stage.secret_keys)
    store = open_store(stage.data_dir)
    try:
        assert rotate(store=store, vault=vault, tables=SECRET_TABLES).rotated == len(before)
    finally:
        store.close()
    for key, rotated in stored_tokens(stage).items():
        assert rotated != before[key]
        assert TokenVault([new_key]).decrypt(rotated) == token
    with pytest.raises(VaultError):  # the old key alone can no longer read them
        TokenVault.from_setting(stage.secret_keys.split(",")[1]).decrypt(
            stored_tokens(stage)[f"{stage.emu.team_id}:{ALICE}"]
        )
    # ...and step 3: the old key goes. Alice's brief still works.
    stage.keep_only_key(new_key)
    stage.start_app()
    brief_works(stage, "[z04]", 2)
    stage.stop_app()

    # The scan: every stage of the reliability run, this one included (in a parallel run,
    # once the other workers' reliability tests have ended too).
    evidence.wait_for_every_other_test(timeout=OTHERS_TIMEOUT_S)
    secrets = evidence.secrets()
    assert token in secrets and new_key in secrets
    assert signed_urls(stage) and signed_urls(stage) <= secrets
    assert len(evidence.data_dirs()) >= 1 and stage.data_dir in evidence.data_dirs()
    for data_dir in evidence.data_dirs():
        files = list(files_under(data_dir))
        # One file holds everything durable; no scheduler job store or other state beside it.
        # (and the marker that it held state, a fixed text: see suggestbot.store.integrity).
        assert [f.name for f in files] in ([DB_FILENAME], [DB_FILENAME, MARKER]), files
        content = files[0].read_bytes().decode("latin-1")
        assert "requests" in content  # the records are there...
        assert SECRET_SHAPES.findall(content) == [], data_dir  # ...but no secret of any shape
        assert [s for s in secrets if s in content] == [], data_dir
    # Nor did any stage send Slack a traceback or an exception's name, whatever went wrong.
    assert evidence.leaks() == {}
    posted_somewhere = False
    for log in evidence.log_files():
        text = log.read_text("utf-8", "replace")
        assert "DEBUG" in text  # DEBUG really was on (a stage that only sends Slack an
        # uninstall event posts nothing: Slack's calls are looked for across the stages)
        posted_somewhere = posted_somewhere or "chat.postMessage" in text
        assert SECRET_SHAPES.findall(text) == [], log
        assert [s[:12] for s in secrets if s in text] == [], log
    assert posted_somewhere  # the Web API calls were logged, at DEBUG, where secrets would be
