"""Several replicas on one PostgreSQL behind a load balancer: a rolling restart under load fails
no slash command, the same Slack delivery at two replicas at once starts one run, and a
database restart mid-load loses nothing.

The replicas are real ``suggestbot serve`` processes (see ``cluster_harness``) behind the
loopback balancer (``balancer``), on the sandbox and the Slack emulator as everywhere in this
suite. Deferred work (run polls, sends, digest deliveries, maintenance passes) is claimed
through leases in the database, so a replica starting again resumes only requests that have no
unit of work there: a brief another replica is sending or watching stays with it, and each
brief gets one run and one post.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from balancer import wait_ready
from cluster_harness import ClusterStage
from reliability_harness import (
    generic_errors,
    held_back,
    leaks_to_slack,
    metadata_of,
    result_problems,
    roots_by_tag,
    runs_by_tag,
    send_brief_by_modal,
    wait_for,
    wait_quiet,
)

from pg_cluster import PgCluster
from suggestbot.demo.stage import ALICE, BRUNO, LANGS, SIGNING_SECRET
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu.signing import signed_headers
from suggestbot.store.postgres import PostgresStore
from suggestbot.ui.messages import t

ACK_DEADLINE_S = 3.0
# How often the load sends a slash command while replicas restart.
LOAD_EVERY_S = 0.15
RESULT_TIMEOUT_S = 60.0

# Several replica starts, a database restart and waits of up to a minute each: more than the
# suite's default per-test limit, so that a wait's own message (what is missing) is what fails.
pytestmark = pytest.mark.timeout(400)


# The load below sends a quick brief every 0.15 s into one channel: six times what Slack's one
# post a second lets through (two posts a brief), and a hundred briefs' roots need twice
# Slack's minute of chat.update (Tier 3, 50). These tests are of restarts losing and doubling
# nothing, so they need unlimited calls and run without the gate (and the emulator without
# its rationing); Slack's budget across replicas is tested in tests/slack and measured by
# bench/slack_budget_replicas.py.
SLACK_GATE = False


@pytest.fixture
def cluster(tmp_path: Path, postgres_url: str) -> Iterator[ClusterStage]:
    stage = ClusterStage(
        data_dir=tmp_path / "cluster", database_url=postgres_url, replicas=2, slack_gate=SLACK_GATE
    )
    try:
        stage.start()
        yield stage
    finally:
        stage.stop()


def _ready_with_choices(stage: ClusterStage, *users: str) -> None:
    """Connect ``users`` and send each one brief by the modal, so that their choices are
    remembered and ``/suggest brief <text>`` goes straight to a run."""
    for user in users:
        stage.connect(user)
        send_brief_by_modal(stage, user, f"SETUP-{user} first brief", variants=1)
    tags = re.compile(r"SETUP-U0[A-Z]+")
    wait_for(
        lambda: (
            len(roots_by_tag(stage, tags)) == len(users)
            and all(
                not result_problems(stage, roots[0], user=user, variants=1)
                for user in users
                for tag, roots in roots_by_tag(stage, tags).items()
                if tag.endswith(user)
            )
        ),
        timeout=RESULT_TIMEOUT_S,
        what="the set-up briefs' results",
    )


class Load:
    """Quick briefs (``/suggest brief TAG …``) sent one after another in a thread, each
    answer kept with its tag, until :meth:`stop`."""

    def __init__(self, stage: ClusterStage, *, user: str, prefix: str) -> None:
        self.stage, self.user, self.prefix = stage, user, prefix
        self.answers: dict[str, Any] = {}
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"load-{prefix}")

    def start(self) -> Load:
        self._thread.start()
        return self

    def _run(self) -> None:
        number = 0
        while not self._stop.is_set():
            number += 1
            tag = f"{self.prefix}-{number:03d}"
            try:
                self.answers[tag] = self.stage.slack.slash_command(
                    self.user, self.stage.channel, f"brief {tag} steady load"
                )
            except Exception as exc:  # the test reports it, with the tag
                self.errors.append(f"{tag}: {exc!r}")
            self._stop.wait(LOAD_EVERY_S)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


def test_rolling_restart_of_every_replica_under_load_fails_no_slash_command(
    cluster: ClusterStage,
) -> None:
    _ready_with_choices(cluster, ALICE)
    balancer = cluster.balancer
    assert balancer is not None
    load = Load(cluster, user=ALICE, prefix="RR").start()
    try:
        time.sleep(1.0)
        for replica in cluster.replicas:
            replica.send_sigterm()
            assert replica.wait() == 0, replica.log_tail()
            replica.start()
            wait_ready(balancer, [True] * len(cluster.replicas))
            time.sleep(0.5)
    finally:
        load.stop()

    assert load.errors == []
    answers = load.answers
    assert len(answers) >= 20, "the load kept going through the restarts"
    failed = {
        tag: (a.status, round(a.elapsed_s, 2))
        for tag, a in answers.items()
        if a.status != 200 or a.elapsed_s > ACK_DEADLINE_S
    }
    assert failed == {}, f"slash commands that failed: {failed}"
    assert "failed with the error" not in cluster.emu.ephemeral_transcript(ALICE)
    assert balancer.failures == []
    # The drain did it, not the balancer's retry: /readyz turned 503 and the balancer stopped
    # sending before any port closed (without the grace period some requests meet a closed
    # port and only the retry saves them).
    assert balancer.refusals == 0
    # Every replica was restarted once, took traffic, and drained by the book.
    assert [r.starts for r in cluster.replicas] == [2, 2]
    assert all(count > 0 for count in balancer.counts().values())
    assert all("draining: /readyz answers 503" in r.log_text() for r in cluster.replicas)

    # A replica starting again resumes only what has no unit of work in the database, so a
    # brief another replica is sending or watching is left to it: one run, one post each.
    _posted_once(cluster, user=ALICE, tags=sorted(answers), pattern=re.compile(r"RR-\d{3}"))


def _signed(body: bytes, content_type: str) -> dict[str, str]:
    return {
        "Content-Type": content_type,
        **signed_headers(signing_secret=SIGNING_SECRET, timestamp=int(time.time()), body=body),
    }


def _at_once(
    stage: ClusterStage, body: bytes, headers: list[dict[str, str]]
) -> list[httpx.Response]:
    """POST ``body`` to each replica in its own thread, all released at the same instant."""
    gate = threading.Barrier(len(stage.replicas))
    answers: list[Any] = [None] * len(stage.replicas)

    def send(index: int) -> None:
        with httpx.Client(timeout=30) as client:
            gate.wait()
            answers[index] = client.post(
                stage.replicas[index].url + EVENTS_PATH, content=body, headers=headers[index]
            )

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(stage.replicas))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_the_same_slack_delivery_at_two_replicas_at_once_runs_once(cluster: ClusterStage) -> None:
    _ready_with_choices(cluster, ALICE)
    emu = cluster.emu

    # A slash command delivered twice (a doubled request): same body, same trigger_id.
    with held_back(cluster) as held:
        cluster.slack.slash_command(ALICE, cluster.channel, "brief TWICE-1 same command")
    ((body, sent),) = held
    headers = _signed(body, sent["content_type"])
    answers = _at_once(cluster, body, [headers, headers])
    assert [a.status_code for a in answers] == [200, 200]
    _posted_once(cluster, user=ALICE, tags=["TWICE-1"], pattern=re.compile(r"TWICE-\d"))

    # An event and Slack's retry of it (X-Slack-Retry-Num), one at each replica: a reply in the
    # brief's thread, refined once.
    root = roots_by_tag(cluster, re.compile(r"TWICE-1"))["TWICE-1"][0]
    with held_back(cluster) as held:
        cluster.slack.post_user_message(
            ALICE, cluster.channel, "TWICE-2 make it shorter", thread_ts=root["ts"]
        )
    ((body, sent),) = held
    first = _signed(body, sent["content_type"])
    retry = {**first, "X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
    answers = _at_once(cluster, body, [first, retry])
    assert [a.status_code for a in answers] == [200, 200]
    wait_for(
        lambda: _refinements(cluster, "TWICE-2", status="succeeded"),
        timeout=RESULT_TIMEOUT_S,
        what="the refinement's run",
    )
    thread = lambda: emu.messages(cluster.channel, thread_ts=root["ts"])  # noqa: E731
    settled = wait_quiet(thread, settle_s=1.5, timeout=60, what="the thread")
    assert _refinements(cluster, "TWICE-2") == 1
    # One status reply of the refinement in the thread, showing its result.
    statuses = [m for m in settled[1:] if metadata_of(m).get("role") == "root"]
    assert len(statuses) == 1, settled
    logs = cluster.logs()
    assert "ignoring a repeated Slack delivery (command)" in logs
    assert "ignoring a repeated Slack delivery (event)" in logs


def _refinements(stage: ClusterStage, tag: str, *, status: str | None = None) -> int:
    """Refinement runs the service holds whose instruction quotes ``tag``."""
    state = stage.sandbox.env.state
    with state.lock:
        return sum(
            1
            for run in state.runs.values()
            if tag in str(run.request.get("instruction") or "")
            and (status is None or run.status == status)
        )


def test_postgresql_restarted_mid_load_loses_nothing_and_commands_meanwhile_get_their_text_back(
    tmp_path: Path,
) -> None:
    database = PgCluster().start()
    stage: ClusterStage | None = None
    try:
        url = database.create_database("app")
        with PostgresStore(url, check_schema=False) as store:
            store.upgrade_schema()
        stage = ClusterStage(
            data_dir=tmp_path / "cluster", database_url=url, replicas=2, slack_gate=SLACK_GATE
        )
        stage.start()
        _ready_with_choices(stage, ALICE, BRUNO)
        balancer = stage.balancer
        assert balancer is not None

        english = Load(stage, user=ALICE, prefix="PG").start()
        german = Load(stage, user=BRUNO, prefix="DE").start()
        try:
            time.sleep(1.5)
            database.stop_server()
            wait_ready(balancer, [False, False])
            time.sleep(2.0)
            database.start_server()
            wait_ready(balancer, [True, True], timeout=60)
            time.sleep(1.5)
        finally:
            english.stop()
            german.stop()

        assert english.errors == german.errors == []
        assert balancer.failures == []
        handed_back: dict[str, list[str]] = {}
        for load in (english, german):
            lang = LANGS[load.user]
            outage = t("outage.command", lang)
            for tag, answer in load.answers.items():
                assert answer.status == 200 and answer.elapsed_s <= ACK_DEADLINE_S, (tag, answer)
                shown = json.loads(answer.body) if answer.body.strip() else {}
                if shown.get("text") == outage:
                    # Handed back, whole, to send again: nothing typed is lost.
                    assert shown["response_type"] == "ephemeral"
                    blocks = json.dumps(shown["blocks"], ensure_ascii=False)
                    assert f"/suggest brief {tag} steady load" in blocks
                    assert t("outage.returned", lang) in blocks
                    handed_back.setdefault(load.user, []).append(tag)
        assert handed_back.get(ALICE) and handed_back.get(BRUNO), "commands came in the outage"
        transcript = stage.emu.ephemeral_transcript(BRUNO)
        assert "mein Speicher ist nicht erreichbar" in transcript
        assert "failed with the error" not in transcript + stage.emu.ephemeral_transcript(ALICE)

        # The people send again what they were handed back; then every brief is posted once.
        for load in (english, german):
            for tag in handed_back[load.user]:
                again = stage.slack.slash_command(
                    load.user, stage.channel, f"brief {tag} steady load"
                )
                assert again.status == 200 and t("outage.command", "en") not in again.body
        for load in (english, german):
            pattern = re.compile(rf"{load.prefix}-\d{{3}}")
            _posted_once(stage, user=load.user, tags=sorted(load.answers), pattern=pattern)
        # No one was told "something went wrong", and no error's name reached Slack.
        assert generic_errors(stage) == []
        assert leaks_to_slack(stage) == []
        assert database.password not in stage.logs()
    finally:
        if stage is not None:
            stage.stop()
        database.remove()


def _posted_once(
    stage: ClusterStage,
    *,
    user: str,
    tags: list[str],
    pattern: re.Pattern[str],
    runs_once: bool = True,
) -> None:
    """Every tag's brief has exactly one root in the channel, ready, with its variant once,
    and the service ran it once (at least once, without ``runs_once``)."""

    def problems() -> dict[str, list[str]]:
        found = roots_by_tag(stage, pattern)
        return {
            tag: result_problems(stage, found[tag][0], user=user, variants=1)
            if tag in found
            else ["no root"]
            for tag in tags
            if tag not in found or result_problems(stage, found[tag][0], user=user, variants=1)
        }

    wait_for(
        lambda: not problems(),
        timeout=RESULT_TIMEOUT_S,
        what=f"every brief's result for {user}",
        detail=lambda: str(problems()),
    )
    roots = wait_quiet(lambda: roots_by_tag(stage, pattern), settle_s=1.0, timeout=60)
    doubled = {tag: len(found) for tag, found in roots.items() if len(found) != 1}
    assert doubled == {}, f"briefs posted more than once: {doubled}"
    assert set(roots) == set(tags)
    runs = runs_by_tag(stage, pattern)
    if runs_once:
        assert runs == {tag: 1 for tag in tags}, "each brief ran once"
    else:
        assert set(runs) == set(tags) and min(runs.values()) >= 1
