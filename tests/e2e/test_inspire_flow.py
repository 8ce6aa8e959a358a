"""``/suggest inspire`` as people see it: ready-made content, sharing, pickers, empty answers."""

from __future__ import annotations

import logging
import time

import pytest
from inspiration_helpers import (
    ephemerals_with,
    images,
    posts_with_role,
    text_of,
    wait_ephemeral,
)

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for
from suggestbot.flows.common import threads
from suggestbot.flows.inspiration import polling as inspiration_watches
from suggestbot.flows.inspiration import showing as inspiration
from suggestbot.jobs import inspiration_watch
from suggestbot.store.offers import Watch
from suggestbot.store.records import shared_post_key

SPRING = "0190c0de-5eed-7000-8000-00000000a201"
WEEKEND = "0190c0de-5eed-7000-8000-00000000a101"


def test_inspire_shows_variants_with_images_and_share_posts_a_refinable_root(
    stage: Stage,
) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring")
    answer = wait_ephemeral(stage, ALICE, "Ready-made content")
    text = text_of(answer)
    assert "*Weekend Hikers* · *Spring Launch*: version 1 (the newest)" in text
    # Spring Launch sets hold 3 variants: email, social post (with an image), email.
    assert "Variant 1 of 3 · Email" in text and "Variant 2 of 3 · Social post" in text
    assert "[Share #1 to channel]" in text and "[Refine #3…]" in text
    [image] = images(answer)
    assert image["image_url"].startswith(stage.sandbox_url) and image["alt_text"]
    # One read, which carried the image URLs: nothing minted separately.
    assert stage.sandbox.counters.get("GET /v1/inspiration") == 1
    assert stage.sandbox.counters.get("POST /v1/assets/urls") == 0

    stage.slack.press_button(answer, "Share #2 to channel", user_id=ALICE)
    wait_ephemeral(stage, ALICE, "Shared to")
    [root] = posts_with_role(stage, stage.channel, "inspiration_share")
    shown = text_of(root)
    assert "Shared by <@U0ALICE> from ready-made content: Weekend Hikers · Spring Launch" in shown
    assert "Variant 2 of 3 · Social post" in shown
    assert "Reply in this thread to refine it." in shown
    assert images(root)[0]["image_url"].startswith(stage.sandbox_url)

    deps = stage.runtime.deps  # type: ignore[union-attr]
    shared = deps.records.shared_posts.get(shared_post_key(stage.channel, root["ts"]))
    assert shared is not None and shared.source == "inspiration"
    assert shared.variant_nos == [2] and shared.kinds == ["social_single_image"]
    assert shared.posted_by == ALICE and shared.version == 1
    binding = threads.get(deps, channel=stage.channel, thread_ts=root["ts"])
    assert binding is not None
    assert binding.head_suggestion_id == shared.suggestion_ids[0]

    # A second press does not post again.
    stage.slack.press_button(answer, "Share #2 to channel", user_id=ALICE)
    wait_ephemeral(stage, ALICE, "already shared")
    assert len(posts_with_role(stage, stage.channel, "inspiration_share")) == 1
    assert stage.emu.warnings == []


def test_refine_shares_once_and_points_to_the_thread(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, f"inspire {WEEKEND} {SPRING}")
    answer = wait_ephemeral(stage, ALICE, "Ready-made content")
    stage.slack.press_button(answer, "Refine #1…", user_id=ALICE)
    note = wait_ephemeral(stage, ALICE, "reply in its thread")
    assert f"<#{stage.channel}>" in text_of(note)
    stage.slack.press_button(answer, "Share #1 to channel", user_id=ALICE)
    wait_ephemeral(stage, ALICE, "already shared")
    [root] = posts_with_role(stage, stage.channel, "inspiration_share")
    assert "Variant 1 of 3 · Email" in text_of(root)


def test_refine_opens_the_threads_refine_modal_and_refines_in_the_shared_thread(
    stage: Stage,
) -> None:
    stage.connect(ALICE)
    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring")
    answer = wait_ephemeral(stage, ALICE, "Ready-made content")
    stage.slack.press_button(answer, "Refine #2…", user_id=ALICE)
    modal = wait_for(
        lambda: (
            (stage.emu.current_view(ALICE) or {}).get("callback_id") == "refine"
            and stage.emu.current_view(ALICE)
        ),
        what="the Refine… modal",
    )
    assert "Image" in stage.emu.view_transcript(ALICE)  # a social post: the image choice
    assert modal["type"] == "modal"
    [root] = posts_with_role(stage, stage.channel, "inspiration_share")
    stage.slack.submit_view(
        ALICE, {"What should change?": "Shorter, please", "Image": "Keep the image"}
    )
    # The refinement's result arrives in the shared root's own thread.
    wait_for(
        lambda: len(stage.emu.messages(stage.channel, thread_ts=root["ts"])) > 1,
        what="a refinement in the shared thread",
    )
    assert "Shorter, please" in stage.emu.transcript(stage.channel, thread_ts=root["ts"])


def test_picker_asks_for_segment_then_use_case(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "inspire")
    picker = wait_ephemeral(stage, ALICE, "Which segment")
    buttons = text_of(picker).splitlines()[-1]
    assert "[Weekend Hikers]" in buttons and "[Trail Runners]" in buttons
    stage.slack.press_button(picker, "Trail Runners", user_id=ALICE)
    second = wait_ephemeral(stage, ALICE, "Which use case")
    assert "Segment: *Trail Runners*" in text_of(second)
    stage.slack.press_button(second, "Loyalty Reward", user_id=ALICE)
    answer = wait_ephemeral(stage, ALICE, "Ready-made content")
    assert "*Trail Runners* · *Loyalty Reward*" in text_of(answer)
    assert "Variant 2 of 2" in text_of(answer)


def test_ambiguous_and_unknown_names_get_a_picker(stage: Stage) -> None:
    tenant = stage.sandbox.demo.tenant_id  # type: ignore[union-attr]
    stage.sandbox.add_segment(tenant, "Trail Walkers", "Slow and steady")
    stage.slack.slash_command(ALICE, stage.channel, "inspire TRAIL spring")
    picker = wait_ephemeral(stage, ALICE, "matches several segments")
    text = text_of(picker)
    assert "[Trail Runners]" in text and "[Trail Walkers]" in text
    assert "Weekend" not in text
    assert "Use case: *Spring Launch*" in text
    stage.slack.press_button(picker, "Trail Walkers", user_id=ALICE)
    # A new segment has no ready-made content yet: the answer says why.
    wait_ephemeral(stage, ALICE, "No ready-made content for Trail Walkers · Spring Launch")

    stage.slack.slash_command(ALICE, stage.channel, "inspire kayakers")
    unknown = wait_ephemeral(stage, ALICE, "No segment or use case matches `kayakers`")
    assert "[Weekend Hikers]" in text_of(unknown)


def test_german_user_reads_german(stage: Stage) -> None:
    stage.slack.slash_command(BRUNO, stage.channel, "inspire weekend spring")
    answer = wait_ephemeral(stage, BRUNO, "Fertige Inhalte")
    text = text_of(answer)
    assert "Variante 1 von 3 · E-Mail" in text
    assert "[#1 im Kanal teilen]" in text and "[#2 verfeinern…]" in text
    stage.slack.slash_command(BRUNO, stage.channel, "help")
    help_text = text_of(wait_ephemeral(stage, BRUNO, "/suggest digest add"))
    assert "*Fertige Inhalte*" in help_text and "/suggest inspire" in help_text


def test_empty_answer_explains_and_generate_now_posts_when_ready(stage: Stage) -> None:
    tenant = stage.sandbox.demo.tenant_id  # type: ignore[union-attr]
    stage.sandbox.add_use_case(tenant, "Winter Sale", precompute_variants=2)
    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend winter")
    empty = wait_ephemeral(stage, ALICE, "No ready-made content for Weekend Hikers · Winter Sale")
    text = text_of(empty)
    assert "generated overnight" in text
    assert "not set up for content" in text
    assert "has not finished yet" in text
    stage.slack.press_button(empty, "Generate now", user_id=ALICE)
    wait_ephemeral(stage, ALICE, "is being generated")
    ready = wait_ephemeral(stage, ALICE, "The ready-made content you asked for is ready")
    assert "*Weekend Hikers* · *Winter Sale*: version 1 (the newest)" in text_of(ready)
    assert "Variant 2 of 2 · Social post" in text_of(ready)
    assert len(images(ready)) == 1
    assert stage.sandbox.counters.get("POST /v1/inspiration") == 1
    deps = stage.runtime.deps  # type: ignore[union-attr]
    wait_for(lambda: not list(deps.records.watches.items()), what="no watch")


def test_refresh_asks_for_a_new_version_and_posts_it(stage: Stage) -> None:
    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring --refresh")
    first = wait_ephemeral(stage, ALICE, "is being generated")
    assert "version 1 (the newest)" in text_of(first)
    ready = wait_ephemeral(stage, ALICE, "The ready-made content you asked for is ready")
    assert "version 2 (the newest)" in text_of(ready)


def test_versions_older_and_missing(stage: Stage) -> None:
    tenant = stage.sandbox.demo.tenant_id  # type: ignore[union-attr]
    stage.sandbox.run_precompute(tenant, WEEKEND, SPRING)
    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring")
    newest = wait_ephemeral(stage, ALICE, "Ready-made content")
    assert "version 2 (the newest)" in text_of(newest)
    assert "add `--version 1`" in text_of(newest)

    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring --version 1")
    older = wait_ephemeral(stage, ALICE, "Ready-made content", count=2)
    assert "version 1" in text_of(older) and "newest" not in text_of(older)

    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring --version 9")
    missing = wait_ephemeral(stage, ALICE, "There is no version 9")
    assert "The newest is version 2." in text_of(missing)
    assert "Generate now" not in text_of(missing)
    stage.slack.press_button(missing, "Show newest", user_id=ALICE)
    wait_ephemeral(stage, ALICE, "version 2 (the newest)", count=2)

    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring --version x")
    wait_ephemeral(stage, ALICE, "I don't know the option `--version`")


def test_locale_mismatch_is_reported_not_guessed_around(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    deps = stage.runtime.deps  # type: ignore[union-attr]
    deps.content_locale = "de"  # the demo tenant holds English content
    with caplog.at_level(logging.WARNING, logger="suggestbot.flows.common.content_locale"):
        stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring")
        answer = wait_ephemeral(stage, ALICE, "No ready-made content")
    text = text_of(answer)
    assert "set to content in `de`" in text and "`CONTENT_LOCALE=en`" in text
    assert "Generate now" not in text
    # Read in the configured locale only, never retried in another.
    assert stage.sandbox.counters.get("GET /v1/inspiration") == 1
    warnings = [r for r in caplog.records if "content locale mismatch" in r.getMessage()]
    assert len(warnings) == 1

    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring")
    wait_ephemeral(stage, ALICE, "No ready-made content", count=2)
    assert len([r for r in caplog.records if "content locale mismatch" in r.getMessage()]) == 1
    assert not ephemerals_with(stage, ALICE, "Share #1")


def test_people_waiting_for_the_same_content_share_one_read_per_poll(stage: Stage) -> None:
    deps = stage.runtime.deps  # type: ignore[union-attr]
    stage.runtime.scheduler.cancel(inspiration_watch.JOB_ID)  # type: ignore[union-attr]
    tenant = stage.sandbox.demo.tenant_id  # type: ignore[union-attr]
    winter = stage.sandbox.add_use_case(tenant, "Winter Sale", precompute_variants=2)
    never = stage.sandbox.add_use_case(tenant, "Never Ready", precompute_variants=1)
    now = time.time()

    def watch(user: str, use_case: str, *, started: float) -> Watch:
        made = Watch(
            team_id=stage.emu.team_id,
            user_id=user,
            channel_id=stage.channel,
            segment_id=WEEKEND,
            use_case_id=use_case,
            segment_name="Weekend Hikers",
            use_case_name="Winter Sale" if use_case == winter else "Never Ready",
            locale="en",
            started_at=started,
            next_poll_at=started,
        )
        inspiration.watches(deps).put(made.id, made)
        return made

    watch(ALICE, winter, started=now)
    watch(BRUNO, winter, started=now)
    stage.sandbox.counters.reset()
    assert inspiration_watches.poll_watches(deps, now=now) == 0
    assert stage.sandbox.counters.get("GET /v1/inspiration") == 1
    waiting = list(inspiration.watches(deps).values())
    assert [w.next_poll_at for w in waiting] == [now + 10 * deps.poll_scale] * 2

    stage.sandbox.run_precompute(tenant, WEEKEND, winter)
    assert inspiration_watches.poll_watches(deps, now=now + 1) == 2
    # One poll, then one read with image URLs for both people.
    assert stage.sandbox.counters.get("GET /v1/inspiration") == 3
    wait_ephemeral(stage, ALICE, "The ready-made content you asked for is ready")
    wait_ephemeral(stage, BRUNO, "Die angeforderten fertigen Inhalte sind da")
    assert list(inspiration.watches(deps).values()) == []

    # Past the polling cap (an hour, scaled like every poll delay): given up, and said so.
    watch(ALICE, never, started=now - 3600 * deps.poll_scale - 1)
    assert inspiration_watches.poll_watches(deps, now=now) == 0
    wait_ephemeral(stage, ALICE, "has not appeared after a long wait")
    assert list(inspiration.watches(deps).values()) == []


def test_old_answers_expire(stage: Stage) -> None:
    deps = stage.runtime.deps  # type: ignore[union-attr]
    stage.slack.slash_command(ALICE, stage.channel, "inspire weekend spring")
    answer = wait_ephemeral(stage, ALICE, "Ready-made content")
    assert inspiration.prune(deps, older_than=time.time() + 1) == 1
    stage.slack.press_button(answer, "Share #1 to channel", user_id=ALICE)
    wait_ephemeral(stage, ALICE, "This answer has expired")
    assert posts_with_role(stage, stage.channel, "inspiration_share") == []
