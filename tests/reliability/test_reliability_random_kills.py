"""Three replicas on one PostgreSQL, SIGKILLed at random while briefs, thread replies and digest
waves go through them: nothing acknowledged is lost, nothing is done twice.

Three ``suggestbot serve`` processes sit behind the loopback round-robin balancer (see
``cluster_harness``), on the sandbox and the Slack emulator. While :data:`BRIEFS` quick briefs,
:data:`REPLIES` replies in their threads (each a refinement) and :data:`WAVES` digest waves (on
the wall clock's next minutes: the replicas run their own once-a-minute wave) go through, a
replica picked at random is SIGKILLed every few seconds and started again.

What Slack does, the test does: a slash command is never retried (one whose connection was cut
after it was sent is ``dispatch_failed`` for the person; the balancer only retries a refused
connection, as haproxy does), an event is retried up to three times until it is acknowledged.
Then, counted in the emulator's messages and the sandbox's records:

- every acknowledged brief has one root, ready, with each variant once, and one run; a brief
  that failed to dispatch is counted apart, and if any replica recorded it, it is complete too;
- every reply Slack got acknowledged made exactly one refinement run and one turn in its thread;
- every digest due was posted exactly once in its channel that day, and every subscription is
  still there;
- the service exchanged its machine token at most once per tenant per replica start (each
  start has its own cache) per token lifetime.

The random choices come from one seed, printed (``-s``) and named in every failure; set
``SUGGESTBOT_CHAOS_SEED`` to replay one.
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
