"""The whole product on PostgreSQL: scenarios of the SQLite suite run again with
``SUGGESTBOT_DATABASE_URL`` pointing at the test cluster (the same test functions, with this
module's ``stage``), plus a kill and restart mid-brief. App Home, the lists and digest listings
read there by the typed, indexed columns (``Store.items_matching``), not as SQLite does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from test_brief_flow import (
    test_connect_brief_three_variants_posted_in_order_with_images as test_brief_on_postgresql,
)
from test_digest_flow import (
    test_add_through_the_modal_then_one_post_per_local_day as test_digest_on_postgresql,
)
from test_exactly_once import (
    KillAt,
    variant_numbers,
)
from test_exactly_once import (
    test_a_quick_brief_after_a_restart_is_still_answered_in_the_workspaces_language as test_restart_on_postgresql,  # noqa: E501
)
from test_exactly_once import (
    test_a_slash_command_delivered_twice_creates_one_run as test_doubled_delivery_on_postgresql,
)
from test_refine_lists_home import (
    test_app_home_shows_link_runs_threads_digests_within_limits as test_app_home_on_postgresql,
)
from test_refine_lists_home import (
    test_home_follows_a_digest_being_paused_and_removed as test_home_digests_on_postgresql,
)
from test_refine_lists_home import (
    test_only_your_threads_never_another_persons_instruction as test_your_threads_on_postgresql,
)
from test_refine_lists_home import (
    test_runs_over_overlapping_pages_number_on_and_repeat_nothing as test_paging_on_postgresql,
)

from pg_cluster import PgCluster
from suggestbot.demo.stage import ALICE, Stage, wait_for
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.store.postgres import PostgresStore

__all__ = [
    "test_app_home_on_postgresql",
    "test_brief_on_postgresql",
    "test_digest_on_postgresql",
    "test_doubled_delivery_on_postgresql",
    "test_home_digests_on_postgresql",
    "test_paging_on_postgresql",
    "test_restart_on_postgresql",
    "test_your_threads_on_postgresql",
]


@pytest.fixture
def stage(tmp_path: Path, postgres_url: str) -> Iterator[Stage]:
    with Stage(data_dir=tmp_path / "data", database_url=postgres_url) as running:
        assert isinstance(running.runtime and running.runtime.store, PostgresStore)
        yield running
    # Nothing went to a SQLite file on the side.
    assert not (tmp_path / "data" / "suggestbot.sqlite").exists()


def test_killed_mid_posting_then_restarted_posts_each_variant_once_from_postgresql(
    tmp_path: Path, postgres_url: str
) -> None:
    kill = KillAt("variant_posted_not_recorded")
    with Stage(data_dir=tmp_path / "data", crash_point=kill, database_url=postgres_url) as stage:
        stage.connect(ALICE)
        stage.brief(ALICE, "Three variants, whatever happens", variants=3)
        wait_for(lambda: kill.fired, what="the app to die after posting a variant")
        stage.restart_app(graceful=False)
        wait_for(
            lambda: "are ready" in stage.emu.transcript(stage.channel),
            what="the result after the restart",
            detail=lambda: stage.emu.transcript(stage.channel),
        )
        assert variant_numbers(stage) == ["Variant 1 of 3", "Variant 2 of 3", "Variant 3 of 3"]
        assert len(stage.emu.messages(stage.channel)) == 1
        assert stage.sandbox.counters.get("POST /v1/generation-runs") == 1
        with PostgresStore(postgres_url) as store:
            assert [record["state"] for _, record in store.items("requests")] == ["done"]


def test_healthz_answers_503_while_postgresql_is_down_and_ok_again_once_it_is_back(
    stage: Stage, postgres: PgCluster
) -> None:
    healthz = stage.slack.app_url.removesuffix(EVENTS_PATH) + "/healthz"
    assert httpx.get(healthz, timeout=30).status_code == 200
    postgres.stop_server()
    try:
        down = httpx.get(healthz, timeout=30)
    finally:
        postgres.start_server()
    assert down.status_code == 503
    assert down.json()["store"] is False
    # No restart of the app: its pool reconnects by itself.
    back = httpx.get(healthz, timeout=30)
    assert back.status_code == 200, back.text
    stage.connect(ALICE)
