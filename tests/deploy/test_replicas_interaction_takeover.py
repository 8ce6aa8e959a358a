"""A thread reply is recorded before its ack and held by the replica that acked it: when that
replica dies before refining, the other, already running replica carries the reply out once
its hold runs out (one lease period), with no replica starting; and a replica that starts while
a live one still works on a reply leaves it to that one.

The replica that works on the reply is frozen right after the ack (``SUGGESTBOT_FREEZE_AT=
interaction_acked``): it stays alive and renews its hold, but does nothing more, so a SIGKILL
lands exactly between the ack and the refinement."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
from serve_process import ServeProcess
from sqlalchemy import text
from test_serve_shutdown import ALICE, SIGNING_SECRET, Outside, _wait, outside

from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver
from suggestbot.store.postgres import PostgresStore

__all__ = ["outside"]

TAKEN_OVER = re.compile(r"^suggestbot_claims_taken_over_total (\S+)$", re.MULTILINE)
FROZEN = re.compile("work frozen at interaction_acked")
RUNS = "POST /v1/generation-runs"
# The serve processes' lease period: the poll interval at SUGGESTBOT_POLL_SCALE=0.01, raised to
# the 2 s floor (``jobs.leases.lease_period``).
LEASE_S = 2.0


def _taken_over(replica: ServeProcess) -> float:
    found = TAKEN_OVER.search(httpx.get(f"{replica.url}/metrics").text)
    return float(found.group(1)) if found else 0.0


def _driver(outside: Outside, replica: ServeProcess) -> SlackDriver:
    return SlackDriver(
        outside.emu, app_url=replica.url + EVENTS_PATH, signing_secret=SIGNING_SECRET
    )


def _brief_thread(outside: Outside, driver: SlackDriver) -> str:
    """Alice links her account and sends a brief; the ``ts`` of its ready root."""
    outside.link(driver)
    outside.brief_by_modal(driver, text="Autumn boots", variants=1)
    [root] = _wait(lambda: outside.ready_roots(), "the brief's result")
    return str(root["ts"])


def _turns(outside: Outside, thread_ts: str, tag: str) -> list[dict[str, Any]]:
    """The app's status replies in the thread showing the refinement asked for by ``tag``."""
    return [
        m
        for m in outside.emu.messages(outside.channel, thread_ts=thread_ts)[1:]
        if ((m.get("metadata") or {}).get("event_payload") or {}).get("role") == "root"
        and tag in json.dumps(m.get("blocks") or [])
    ]


def _is_turn(message: dict[str, Any]) -> bool:
    blocks = message.get("blocks") or []
    header = blocks[0]["text"]["text"] if blocks and blocks[0]["type"] == "header" else ""
    return str(header).startswith("Turn ")


def _refinement_runs(outside: Outside, tag: str) -> int:
    state = outside.sandbox.env.state
    with state.lock:
        return sum(tag in str(run.request.get("instruction") or "") for run in state.runs.values())


def _interaction_units(postgres_url: str) -> list[tuple[str, str | None]]:
    store = PostgresStore(postgres_url)
    try:
        with store.engine.connect() as connection:
            rows = connection.execute(
                text("SELECT key, owner FROM work_leases WHERE queue = 'interactions'")
            ).all()
    finally:
        store.close()
    return [(key, owner) for key, owner in rows]


def _refined_once(outside: Outside, thread_ts: str, tag: str) -> None:
    _wait(
        lambda: any(_is_turn(m) for m in _turns(outside, thread_ts, tag)),
        "the refinement",
        timeout=60,
    )
    _wait(lambda: outside.sandbox.counters.get(RUNS) == 2, "the refinement's run")
    time.sleep(LEASE_S)  # anything doubled would show by now
    assert len(_turns(outside, thread_ts, tag)) == 1
    assert _refinement_runs(outside, tag) == 1
    assert outside.sandbox.counters.get(RUNS) == 2  # the brief's run and this one


def test_a_reply_whose_replica_died_after_the_ack_is_refined_by_the_running_one(
    outside: Outside, tmp_path: Path, postgres_url: str
) -> None:
    env = outside.env(SUGGESTBOT_DATABASE_URL=postgres_url)
    living = ServeProcess(env, cwd=tmp_path).start()
    dying = ServeProcess({**env, "SUGGESTBOT_FREEZE_AT": "interaction_acked"}, cwd=tmp_path).start()
    driver = _driver(outside, living)
    try:
        thread_ts = _brief_thread(outside, driver)
        before = _taken_over(living)

        driver.app_url = dying.url + EVENTS_PATH
        posted = driver.post_user_message(
            ALICE, outside.channel, "RP-001 shorter, please", thread_ts=thread_ts
        )
        assert posted.delivery is not None and posted.delivery.status == 200  # acked
        dying.wait_for_output(FROZEN)
        dying.kill()
        assert not dying.alive()

        _refined_once(outside, thread_ts, "RP-001")
        assert _taken_over(living) > before  # by the running replica's claim, not a start
        assert living.terminate() == 0
    except BaseException:
        print(outside.emu.transcript(outside.channel))
        print(dying.output[-3000:])
        print(living.output[-3000:])
        raise
    finally:
        dying.kill()
        living.kill()
        driver.close()
    assert _interaction_units(postgres_url) == []  # every hold ended


def test_a_replica_starting_leaves_a_reply_to_the_live_replica_working_on_it(
    outside: Outside, tmp_path: Path, postgres_url: str
) -> None:
    env = outside.env(SUGGESTBOT_DATABASE_URL=postgres_url)
    setup = ServeProcess(env, cwd=tmp_path).start()
    driver = _driver(outside, setup)
    working = starting = None
    try:
        thread_ts = _brief_thread(outside, driver)
        assert setup.terminate() == 0

        working = ServeProcess(
            {**env, "SUGGESTBOT_FREEZE_AT": "interaction_acked"}, cwd=tmp_path
        ).start()
        driver.app_url = working.url + EVENTS_PATH
        driver.post_user_message(ALICE, outside.channel, "RP-002 warmer", thread_ts=thread_ts)
        working.wait_for_output(FROZEN)

        # A replica starts while the reply is being worked on (its work is frozen, its replica
        # alive and renewing its hold): it must not carry the reply out as well.
        starting = ServeProcess(env, cwd=tmp_path).start()
        time.sleep(3 * LEASE_S)
        assert _refinement_runs(outside, "RP-002") == 0
        [(_, owner)] = _interaction_units(postgres_url)
        assert owner is not None and f":{working.pid}:" in owner  # still the working one's

        # Once the working replica dies, the started one takes the reply over: refined once.
        before = _taken_over(starting)
        working.kill()
        _refined_once(outside, thread_ts, "RP-002")
        assert _taken_over(starting) > before
        assert starting.terminate() == 0
    except BaseException:
        print(outside.emu.transcript(outside.channel))
        for replica in (setup, working, starting):
            if replica is not None:
                print(replica.output[-3000:])
        raise
    finally:
        for replica in (setup, working, starting):
            if replica is not None:
                replica.kill()
        driver.close()
    assert _interaction_units(postgres_url) == []
