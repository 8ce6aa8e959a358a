"""Two minutes of the soak (``bench/soak.py`` runs it for half an hour): three replicas on one
PostgreSQL under steady mixed traffic — briefs, thread replies, 👍 on variants, App Home
opens, briefs in the Messages tab, a digest wave a minute — with a replica restarted at the
minute. Fails on growth of anything that should not grow: an error in any replica's log, a
replica's threads or file descriptors climbing after its warm-up, its memory climbing by more
than a leak's worth, work left held once the traffic stopped (polls, sends, recorded
interactions), heartbeats of replicas that are gone, the database's connections beyond the
pools'."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_harness import ClusterStage
from soak_harness import Soak, growth

from suggestbot.store.postgres import MAX_OVERFLOW, POOL_SIZE

pytestmark = pytest.mark.timeout(600)

SECONDS = 120.0
WARMUP_S = 30.0
REPLICAS = 3
# Bounds over a process's samples after its warm-up (last minus first). Descriptors and threads
# come and go with connections and work in flight, within these; a leak of one per request is
# dozens a minute at this pace.
FD_SLACK = 20
THREAD_SLACK = 8
RSS_SLACK_MB = 40.0


@pytest.fixture
def cluster(tmp_path: Path, postgres_url: str) -> Iterator[ClusterStage]:
    stage = ClusterStage(
        data_dir=tmp_path / "cluster",
        database_url=postgres_url,
        replicas=REPLICAS,
        log_level="INFO",
    )
    try:
        stage.start()
        yield stage
    finally:
        stage.stop()


def test_two_minutes_of_mixed_traffic_grow_nothing_that_should_not_grow(
    cluster: ClusterStage,
) -> None:
    soak = Soak(
        cluster,
        seconds=SECONDS,
        every_s=1.0,
        sample_every_s=10.0,
        restart_every_s=60.0,
        digest_every_min=1,
        digest_channels=2,
    )
    result = soak.run()
    print(f"actions: {result.actions}; restarts: {result.restarts}")
    assert result.action_errors == []
    assert result.log_errors == []
    assert all(count > 0 for count in result.actions.values()), result.actions
    assert result.restarts, "no replica was restarted"

    fits = growth(result, warmup_s=WARMUP_S)
    grew = {}
    for (replica, pid), found in fits.items():
        for name, slack in (("fds", FD_SLACK), ("threads", THREAD_SLACK), ("rss_mb", RSS_SLACK_MB)):
            line = found.get(name)
            if line is not None:
                print(
                    f"{replica} ({pid}) {name}: {line.first:.0f} → {line.last:.0f}, "
                    f"{line.slope:+.2f}/min ± {line.stderr:.2f} over {line.points} samples"
                )
                if line.last - line.first > slack:
                    grew[f"{replica} ({pid}) {name}"] = (line.first, line.last)
    assert grew == {}
    assert any("fds" in found for found in fits.values()), "too few samples after warm-up"

    last = result.samples[-1]
    held = {
        name: rows
        for name, rows in last.rows.items()
        if name in ("work_leases/run_polls", "work_leases/run_sends", "work_leases/interactions")
        and rows
    }
    assert held == {}, f"work still held once the traffic stopped: {held}"
    assert last.rows.get("work_leases/replicas", 0) <= REPLICAS
    assert last.connections <= REPLICAS * (POOL_SIZE + MAX_OVERFLOW)
