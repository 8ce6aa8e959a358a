"""A replica that dies while it sends a brief — recorded and acked, but its run not yet created,
created but not yet recorded, or recorded but its first poll not yet written down — leaves a
held send in the database, which the other replica takes over once the hold runs out (one lease
period), not at the next start: the brief gets one run and its result is posted once.

The dying replica is frozen at the named point (``SUGGESTBOT_FREEZE_AT``) before the SIGKILL,
so the kill lands exactly there."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from serve_process import ServeProcess
from sqlalchemy import text
from test_serve_shutdown import ALICE, SIGNING_SECRET, Outside, _wait, outside

from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver
from suggestbot.store.postgres import PostgresStore

__all__ = ["outside"]

TAKEN_OVER = re.compile(r"^suggestbot_claims_taken_over_total (\S+)$", re.MULTILINE)


def _taken_over(replica: ServeProcess) -> float:
    found = TAKEN_OVER.search(httpx.get(f"{replica.url}/metrics").text)
    return float(found.group(1)) if found else 0.0


@pytest.mark.parametrize("point", ["before_create_run", "after_create_run", "run_recorded"])
def test_a_brief_whose_sender_died_is_sent_by_the_other_replica(
    outside: Outside, tmp_path: Path, postgres_url: str, point: str
) -> None:
    store = PostgresStore(postgres_url)
    env = outside.env(SUGGESTBOT_DATABASE_URL=postgres_url)
    dying = ServeProcess({**env, "SUGGESTBOT_FREEZE_AT": point}, cwd=tmp_path).start()
    living = ServeProcess(env, cwd=tmp_path).start()
    driver = SlackDriver(
        outside.emu, app_url=living.url + EVENTS_PATH, signing_secret=SIGNING_SECRET
    )
    emu, runs = outside.emu, "POST /v1/generation-runs"
    try:
        outside.link(driver)
        # The first brief through the modal at the living replica (its choices are then kept).
        outside.brief_by_modal(driver, text="Autumn boots, take 0", variants=1)
        _wait(lambda: len(outside.ready_roots()) == 1, "the first result")
        before = _taken_over(living)

        # The second brief at the replica that dies while it sends it.
        driver.app_url = dying.url + EVENTS_PATH
        driver.slash_command(ALICE, outside.channel, "brief Autumn boots, take 1")
        dying.wait_for_output(re.compile(f"work frozen at {point}"))
        dying.kill()
        assert not dying.alive()
        _wait(lambda: len(outside.ready_roots()) == 2, "the second result", timeout=60)
        assert _taken_over(living) > before  # by the living replica's claim, not a start
        assert living.terminate() == 0
    except BaseException:
        print(outside.sandbox.counters.snapshot())
        print(emu.transcript(outside.channel))
        print(dying.output[-3000:])
        print(living.output[-3000:])
        raise
    finally:
        dying.kill()
        living.kill()
        driver.close()

    roots = outside.ready_roots()
    assert len(emu.messages(outside.channel)) == 2  # no root twice
    assert all(root["reply_count"] == 1 for root in roots), roots  # each result posted once
    assert outside.sandbox.counters.get(runs) == 2  # one run each, never created twice
    assert [r["state"] for _, r in store.items("requests")] == ["done", "done"]
    with store.engine.connect() as connection:
        left = connection.execute(
            text("SELECT count(*) FROM work_leases WHERE queue IN ('run_sends', 'run_polls')")
        ).scalar_one()
    store.close()
    assert left == 0  # every held send ended, every poll done
