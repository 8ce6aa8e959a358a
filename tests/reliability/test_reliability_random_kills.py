"""Three replicas on one PostgreSQL, SIGKILLed at random while briefs, thread replies and digest
waves go through them: nothing acknowledged is lost, nothing is done twice.

The load, what Slack does meanwhile and every check are in ``random_kills_load`` (shared with
the clock-skew test); the random choices come from one seed, printed (``-s``) and named in
every failure; set ``SUGGESTBOT_CHAOS_SEED`` to replay one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_harness import ClusterStage
from random_kills_load import run_random_kills

# Three replica starts, a dozen restarts and three wall-clock minutes of waves.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def cluster(tmp_path: Path, postgres_url: str) -> Iterator[ClusterStage]:
    stage = ClusterStage(
        data_dir=tmp_path / "cluster",
        database_url=postgres_url,
        replicas=3,
        event_retries=True,
        log_level="INFO",
        # Two hundred briefs and a hundred replies into one channel within minutes, several
        # times what Slack's one post a second lets through: a test of exactly-once through
        # kills that needs unlimited calls (Slack's budget: tests/slack, bench/).
        slack_gate=False,
    )
    try:
        stage.start()
        yield stage
    finally:
        stage.stop()


def test_three_replicas_killed_at_random_lose_and_double_nothing(cluster: ClusterStage) -> None:
    run_random_kills(cluster)
