"""Two ``suggestbot serve`` processes on one PostgreSQL, within Slack's budget, split the run
polls through leases in the database: each run is polled by one replica at a time (a page of
a workspace's run listing by the one reading it), and when that one is SIGKILLed the other
takes its runs over and every result is posted once.

What each replica held, and when, comes from a trigger the test adds to ``work_leases``: every
change of a unit's holder is written down with the database's clock, so the test sees the
claims as the database granted them, not as the replicas report them."""

from __future__ import annotations

import os
import signal
from collections import defaultdict
from pathlib import Path

from serve_process import ServeProcess
from sqlalchemy import text
from test_serve_shutdown import ALICE, SIGNING_SECRET, Outside, _wait, outside

from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver
from suggestbot.store.postgres import PostgresStore

__all__ = ["outside"]

BRIEFS = 12

AUDIT = [
    "CREATE TABLE lease_audit (n bigserial PRIMARY KEY, key text, owner text, old_owner text, "
    "at double precision, until double precision)",
    """
    CREATE FUNCTION audit_lease() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' THEN
            INSERT INTO lease_audit (key, owner, old_owner, at, until)
            VALUES (OLD.queue || '/' || OLD.key, NULL, OLD.owner,
                    extract(epoch FROM clock_timestamp()), NULL);
            RETURN OLD;
        END IF;
        IF NEW.owner IS DISTINCT FROM OLD.owner
           OR NEW.lease_until IS DISTINCT FROM OLD.lease_until THEN
            INSERT INTO lease_audit (key, owner, old_owner, at, until)
            VALUES (NEW.queue || '/' || NEW.key, NEW.owner, OLD.owner,
                    extract(epoch FROM clock_timestamp()), NEW.lease_until);
        END IF;
        RETURN NEW;
    END $$ LANGUAGE plpgsql
    """,
    "CREATE TRIGGER lease_audit AFTER UPDATE OR DELETE ON work_leases "
    "FOR EACH ROW EXECUTE FUNCTION audit_lease()",
]


def _pid(owner: str) -> int:
    return int(owner.split(":")[1])


def test_two_replicas_split_the_polls_and_one_killed_is_taken_over(
    outside: Outside, tmp_path: Path, postgres_url: str
) -> None:
    store = PostgresStore(postgres_url)
    with store.engine.begin() as connection:
        for statement in AUDIT:
            connection.execute(text(statement))

    def audit() -> list[tuple[str, str | None, str | None, float, float | None]]:
        with store.engine.connect() as connection:
            rows = connection.execute(
                text("SELECT key, owner, old_owner, at, until FROM lease_audit ORDER BY n")
            )
            return [(key, owner, old, at, until) for key, owner, old, at, until in rows]

    def held_by(pid: int) -> list[str]:
        with store.engine.connect() as connection:
            owners = connection.execute(
                text(
                    "SELECT key, owner FROM work_leases "
                    "WHERE queue = 'run_polls' AND owner IS NOT NULL"
                )
            ).all()
        return [key for key, owner in owners if _pid(owner) == pid]

    def unscheduled() -> int:
        with store.engine.connect() as connection:
            return int(
                connection.execute(
                    text(
                        "SELECT count(*) FROM requests r WHERE r.state IN ('submitted', "
                        "'posting') AND NOT EXISTS (SELECT 1 FROM work_leases w "
                        "WHERE w.queue = 'run_polls' AND w.key = r.key)"
                    )
                ).scalar_one()
            )

    env = outside.env(SUGGESTBOT_DATABASE_URL=postgres_url)
    replicas = [ServeProcess(env, cwd=tmp_path).start() for _ in range(2)]
    driver = SlackDriver(outside.emu, app_url="", signing_secret=SIGNING_SECRET)
    emu = outside.emu
    try:
        driver.app_url = replicas[0].url + EVENTS_PATH
        outside.link(driver)
        # The first brief through the modal (its choices are then kept), the rest quick.
        outside.brief_by_modal(driver, text="Autumn boots, take 0", variants=1)
        _wait(lambda: outside.sandbox.counters.get("POST /v1/generation-runs"), "the first run")
        for n in range(1, BRIEFS):
            # Each replica takes half of the briefs, as behind a load balancer.
            driver.app_url = replicas[n % 2].url + EVENTS_PATH
            driver.slash_command(ALICE, outside.channel, f"brief Autumn boots, take {n}")
        # Every run created, recorded and its first poll scheduled (a brief still being sent
        # is taken over too, see test_replicas_send_takeover; here the polls are).
        recorded = ("submitted", "posting", "done")
        _wait(
            lambda: (
                [r["state"] in recorded for _, r in store.items("requests")] == [True] * BRIEFS
                and not unscheduled()
            ),
            "every run to be created, recorded and scheduled",
        )

        # Killed while it holds polls (a sweep or a result being settled). It is frozen before
        # the look, so it cannot hand its polls back between the look and the kill. Run reads
        # are made slow meanwhile: a poll is held while its run is read, and a quick read
        # (results posted without waiting, as within Slack's budget) was seldom caught.
        outside.sandbox.faults.latency_s = {"GET /v1/generation-runs*": 1.0}

        # A group of polls (a page, or runs still to be found) is one replica's at a time: the
        # one caught holding polls is killed, whichever it is.
        caught: list[ServeProcess] = []

        def frozen_holding() -> bool:
            for replica in replicas:
                os.kill(replica.pid, signal.SIGSTOP)
                if held_by(replica.pid):
                    caught.append(replica)
                    return True
                os.kill(replica.pid, signal.SIGCONT)
            return False

        _wait(frozen_holding, "a replica to hold a poll", timeout=30)
        victim = caught[0]
        survivor = next(replica for replica in replicas if replica is not victim)
        victim.kill()
        outside.sandbox.faults.latency_s = {}
        assert not victim.alive()
        _wait(lambda: len(outside.ready_roots()) == BRIEFS, "every result", timeout=120)
        assert survivor.alive()
        assert survivor.terminate() == 0
    except BaseException:
        print(outside.sandbox.counters.snapshot())
        print(emu.transcript(outside.channel))
        print(emu.ephemeral_transcript(ALICE))
        for replica in replicas:
            print(replica.output[-3000:])
        raise
    finally:
        for replica in replicas:
            replica.kill()
        driver.close()

    roots = outside.ready_roots()
    assert len(emu.messages(outside.channel)) == BRIEFS  # no root twice
    assert all(root["reply_count"] == 1 for root in roots), roots  # each result posted once
    assert outside.sandbox.counters.get("POST /v1/generation-runs") == BRIEFS
    requests = [record for _, record in store.items("requests")]
    assert [r["state"] for r in requests] == ["done"] * BRIEFS

    events = audit()
    store.close()
    polls = [event for event in events if event[0].startswith("run_polls/")]
    owners = {_pid(owner) for _, owner, _, _, _ in polls if owner is not None}
    assert owners == {survivor.pid, victim.pid}, "both replicas polled runs"

    # No unit (a poll, a held send, a heartbeat) was granted to one replica while another held
    # it: each grant follows the end of the previous holder's lease (it handed the unit back,
    # or its lease, as last renewed, ran out).
    holder: dict[str, tuple[str, float]] = {}
    taken_over: list[str] = []
    grants: defaultdict[int, int] = defaultdict(int)
    for key, owner, old, at, until in events:
        if owner is not None and old is not None and owner != old:
            # Granted over a lease: only over one that had run out, i.e. of the killed one.
            assert _pid(old) == victim.pid and _pid(owner) == survivor.pid, (key, old, owner)
            _, held_until = holder[key]
            assert at >= held_until, (key, at - held_until)
            taken_over.append(key)
        if owner is not None:
            assert until is not None
            if holder.get(key, (None, 0.0))[0] != owner and key.startswith("run_polls/"):
                grants[_pid(owner)] += 1
            holder[key] = (owner, until)
        else:
            holder.pop(key, None)
    assert grants[survivor.pid] > 0 and grants[victim.pid] > 0
    assert any(key.startswith("run_polls/") for key in taken_over), (
        "the killed replica held polls that the other one took over"
    )
