"""Every record named by id is acted on only by whom it belongs to (``flows.common.access``).

Bruno has a private channel (with the app in it, Alice not). Everything of his there — a
digest, a brief and its thread, a refinement, a kept text, a pending instruction, an
inspiration offer, a list — and a copy of each in another workspace under Alice's own user id
is named by Alice, in #marketing, in every way an id can arrive: a typed command, a button's
value, a modal's metadata. Each time nothing of the record changes, nothing is posted or
updated in Bruno's channel, and Alice reads nothing of it: the answer is the one a record that
does not exist gets.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from deliveries import press, select, settle, submit, text_input
from strangers import SECRET, World, alice_saw, done, running_world, snapshot, touched_private

from suggestbot.demo.stage import ALICE, BRUNO, CAROL, Stage, wait_for
from suggestbot.store.records import Digest, HeldInput
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.composer import choices_block_id
from suggestbot.ui.blocks.histories import history_problem
from suggestbot.ui.messages import t

pytestmark = pytest.mark.loopback


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from running_world(tmp_path_factory.mktemp("by_id") / "data")


# Each way Alice can name a record: (kind, how) → a function sending it with that record's id.
def _ways(w: World) -> dict[str, Any]:
    stage, here = w.stage, w.stage.channel

    segment = next(iter(stage.demo.primary.segments.values()))
    use_case = next(iter(stage.demo.primary.use_cases.values()))

    def button(action_id: str, value: str = "{id}", **extra: Any) -> Any:
        return lambda rid: press(
            stage, ALICE, here, action_id=action_id, value=value.format(id=rid), **extra
        )

    def command(text: str) -> Any:
        return lambda rid: stage.slack.slash_command(ALICE, here, text.format(id=rid))

    def thread_of(key: str) -> tuple[str, str]:
        channel, _, ts = key.partition(":")
        return channel, ts

    def refine_submit(key: str) -> Any:
        channel, ts = thread_of(key)
        return submit(
            stage,
            ALICE,
            callback_id=ids.VIEW_REFINE,
            values={ids.INPUT_INSTRUCTION: text_input("shorter please")},
            private_metadata={"channel": channel, "thread_ts": ts, "variant": 1},
        )

    def rename_submit(key: str) -> Any:
        channel, ts = thread_of(key)
        return submit(
            stage,
            ALICE,
            callback_id=ids.VIEW_RENAME,
            values={ids.INPUT_THREAD_NAME: text_input("Taken over")},
            private_metadata={"channel": channel, "thread_ts": ts},
        )

    def brief_submit(field: str) -> Any:
        return lambda rid: submit(
            stage,
            ALICE,
            callback_id=ids.VIEW_BRIEF,
            values={
                ids.INPUT_BRIEF: text_input("Alice's own words"),
                ids.INPUT_SEGMENT: select(next(iter(stage.demo.primary.segments.values()))),
                ids.INPUT_USE_CASE: select(next(iter(stage.demo.primary.use_cases.values()))),
                ids.INPUT_VARIANTS: select("1"),
            },
            private_metadata={field: rid, "channel": here},
        )

    def connect_submit(rid: str) -> Any:
        return submit(
            stage,
            ALICE,
            callback_id=ids.VIEW_CONNECT,
            values={ids.INPUT_TOKEN: text_input(stage.user_token())},
            private_metadata={"held": rid, "channel": here},
        )

    return {
        "digest: /suggest digest remove": command("digest remove {id}"),
        "digest: /suggest digest pause": command("digest pause {id}"),
        "digest: /suggest digest resume": command("digest resume {id}"),
        "digest: /suggest digest preview": command("digest preview {id}"),
        "digest: [Remove]": button(ids.ACTION_DIGEST_REMOVE),
        "digest: [Pause]": button(ids.ACTION_DIGEST_PAUSE),
        "digest: [Preview]": button(ids.ACTION_DIGEST_PREVIEW),
        "request: [Retry]": button(ids.ACTION_RETRY),
        "request: [Edit and resend]": button(ids.ACTION_EDIT_RESEND),
        "request: [Change]": button(ids.ACTION_CHANGE_DEFAULTS),
        "request: [Check again]": button(ids.ACTION_CHECK_AGAIN),
        "request: [Refresh preview]": button(ids.ACTION_REFRESH_PREVIEW, "{id}:1"),
        "request: [Copy text]": button(ids.ACTION_COPY_TEXT, "{id}:1"),
        "request: thumbs down": button(ids.ACTION_FEEDBACK, "down:{id}:1"),
        "request: composer pick": lambda rid: press(
            stage,
            ALICE,
            here,
            action_id=ids.ACTION_COMPOSER_VARIANTS,
            block_id=choices_block_id(rid),
            selected="2",
        ),
        "request: brief modal editing it": brief_submit("request"),
        "refinement: [Show instruction]": button(ids.ACTION_SHOW_INSTRUCTION),
        "refinement: [Refine the newest turn]": button(ids.ACTION_REFINE_HEAD),
        "refinement: [Resend without image]": button(ids.ACTION_RESEND_WITHOUT_IMAGE),
        "refinement: [Refresh preview] of a turn": button(ids.ACTION_REFRESH_TURN),
        "held: [Resend]": button(ids.ACTION_RESEND),
        "held: [Connect account]": button(ids.ACTION_CONNECT, "held:{id}"),
        "held: brief modal of kept text": brief_submit("held"),
        "held: connect modal": connect_submit,
        "pending: choose variant 1": button(f"{ids.ACTION_CHOOSE_VARIANT}.1", "{id}:1"),
        "offer: [Share]": button(ids.ACTION_INSPIRE_SHARE, "{id}:s1"),
        "offer: [Refine]": button(ids.ACTION_INSPIRE_REFINE, "{id}:s1"),
        "list: [More]": button(ids.ACTION_LIST_MORE, "threads|list:{id}:1"),
        "run: [Run history]": button(ids.ACTION_RUN_HISTORY),
        "channel: brief modal posting there": lambda rid: submit(
            stage,
            ALICE,
            callback_id=ids.VIEW_BRIEF,
            values={
                ids.INPUT_BRIEF: text_input("Alice's brief"),
                ids.INPUT_SEGMENT: select(segment),
                ids.INPUT_USE_CASE: select(use_case),
                ids.INPUT_VARIANTS: select("1"),
            },
            private_metadata={"channel": rid},
        ),
        "channel: draft modal posting there": lambda rid: submit(
            stage,
            ALICE,
            callback_id=ids.VIEW_DRAFT,
            values={
                ids.INPUT_DRAFT_SUBJECT: text_input("Alice's subject"),
                ids.INPUT_DRAFT_BODY: text_input("Alice's draft"),
                ids.INPUT_SEGMENT: select(segment),
                ids.INPUT_USE_CASE: select(use_case),
            },
            private_metadata={"channel": rid},
        ),
        "channel: digest modal adding one there": lambda rid: submit(
            stage,
            ALICE,
            callback_id=ids.VIEW_DIGEST_ADD,
            values={
                ids.INPUT_DIGEST_SEGMENT: select(segment),
                ids.INPUT_DIGEST_USE_CASE: select(use_case),
                ids.INPUT_DIGEST_TIME: {"type": "timepicker", "selected_time": "09:00"},
                ids.INPUT_DIGEST_TZ: text_input("UTC"),
                ids.INPUT_DIGEST_WEEKDAYS: {
                    "type": "checkboxes",
                    "selected_options": [
                        {"text": {"type": "plain_text", "text": "Mon"}, "value": "0"}
                    ],
                },
                ids.INPUT_DIGEST_QUIET: select("quiet"),
            },
            private_metadata={"channel": rid},
        ),
        "thread: [Rename thread]": button(ids.ACTION_RENAME_OPEN),
        "thread: Refine… modal": refine_submit,
        "thread: Rename modal": rename_submit,
    }


WAYS = [
    "digest: /suggest digest remove",
    "digest: /suggest digest pause",
    "digest: /suggest digest resume",
    "digest: /suggest digest preview",
    "digest: [Remove]",
    "digest: [Pause]",
    "digest: [Preview]",
    "request: [Retry]",
    "request: [Edit and resend]",
    "request: [Change]",
    "request: [Check again]",
    "request: [Refresh preview]",
    "request: [Copy text]",
    "request: thumbs down",
    "request: composer pick",
    "request: brief modal editing it",
    "refinement: [Show instruction]",
    "refinement: [Refine the newest turn]",
    "refinement: [Resend without image]",
    "refinement: [Refresh preview] of a turn",
    "held: [Resend]",
    "held: [Connect account]",
    "held: brief modal of kept text",
    "held: connect modal",
    "pending: choose variant 1",
    "offer: [Share]",
    "offer: [Refine]",
    "list: [More]",
    "run: [Run history]",
    "channel: brief modal posting there",
    "channel: draft modal posting there",
    "channel: digest modal adding one there",
    "thread: [Rename thread]",
    "thread: Refine… modal",
    "thread: Rename modal",
]


# Ways that send Alice's own brief (in her DM, when she named a channel she is not in).
ALICES_OWN_RUN = {"request: brief modal editing it", "channel: brief modal posting there"}


@pytest.mark.parametrize("whose", ["another person's", "another workspace's"])
@pytest.mark.parametrize("way", WAYS)
def test_a_strangers_id_changes_nothing_and_shows_nothing(
    world: World, way: str, whose: str
) -> None:
    stage = world.stage
    kind = way.partition(":")[0]
    rid = (world.own if whose == "another person's" else world.elsewhere)[kind]
    world.restore()
    before, mark = snapshot(world), len(stage.emu.calls())
    runs_before = _runs_created(stage)
    seen_before = alice_saw(stage)
    ways = _ways(world)
    assert set(ways) == set(WAYS)
    answer = ways[way](rid)
    assert answer.status == 200
    settle(stage)
    assert snapshot(world) == before
    assert touched_private(stage, mark, world.private) == []
    seen = alice_saw(stage).replace(seen_before, "", 1)
    for secret in (SECRET, "Secret segment", "Secret use case", world.private):
        assert secret not in seen, (way, secret)
    opened = [c for c in stage.emu.calls()[mark:] if c.method in ("views.open", "views.push")]
    assert all(SECRET not in str(c.args) for c in opened)
    if way not in ALICES_OWN_RUN:  # Alice's own new brief, not Bruno's resent
        assert _runs_created(stage) == runs_before
    made = {world.own["digest"], world.elsewhere["digest"]}
    added_there = [
        d
        for d in world.records.digests.values()
        if d.channel_id == rid and d.created_by == ALICE and d.id not in made
    ]
    assert added_there == []
    if way == "run: [Run history]":  # the service itself says it is not Alice's to see
        not_visible = history_problem(lang="en", problem="not_visible")
        wait_for(lambda: not_visible in stage.emu.view_transcript(ALICE), what="not visible")
    if way.startswith("digest: /suggest"):
        not_found = t("digest.not_found", "en", ref=rid).split("`")[0]
        wait_for(lambda: not_found in alice_saw(stage).replace(seen_before, "", 1), what="it")


def _runs_created(stage: Stage) -> int:
    return int(stage.sandbox.counters.get("POST /v1/generation-runs") or 0)


def test_the_owner_and_an_admin_in_the_channel_still_may(world: World) -> None:
    """The rules let through whom they should: Bruno previews his own digest from another
    channel; in #marketing, Alice (a member) previews Carol's digest there but may not pause
    it, and Bruno, once an admin, may."""
    stage, records = world.stage, world.records
    team = done(stage, BRUNO).team_id
    carols = Digest(
        team_id=team,
        channel_id=stage.channel,
        created_by=CAROL,
        segment_id=next(iter(stage.demo.primary.segments.values())),
        use_case_id=next(iter(stage.demo.primary.use_cases.values())),
        segment_name="Carol's segment",
        use_case_name="Carol's use case",
        time="10:00",
        tz="UTC",
        weekdays=[0],
    )
    records.digests.put(carols.id, carols)
    stage.slack.slash_command(BRUNO, stage.channel, f"digest preview {world.own['digest']}")
    wait_for(lambda: "Secret segment" in stage.emu.ephemeral_transcript(BRUNO), what="preview")
    press(stage, ALICE, stage.channel, action_id=ids.ACTION_DIGEST_PREVIEW, value=carols.id)
    wait_for(lambda: "Carol's segment" in stage.emu.ephemeral_transcript(ALICE), what="preview")
    stage.slack.slash_command(ALICE, stage.channel, f"digest pause {carols.id}")
    settle(stage)
    assert not records.digests.get(carols.id).paused
    stage.emu.ws.users[BRUNO].is_admin = True
    try:
        stage.slack.slash_command(BRUNO, stage.channel, f"digest pause {carols.id}")
        wait_for(lambda: records.digests.get(carols.id).paused, what="the admin's pause")
    finally:
        stage.emu.ws.users[BRUNO].is_admin = False


def test_the_author_of_kept_text_sends_it_from_the_modal(world: World) -> None:
    """The modal path a stranger's id goes nowhere on still works for the text's author."""
    stage, records = world.stage, world.records
    team = done(stage, BRUNO).team_id
    kept = HeldInput(team_id=team, user_id=BRUNO, channel_id=stage.channel, text="Bruno's kept")
    records.held.put(kept.id, kept)
    runs = _runs_created(stage)
    answer = submit(
        stage,
        BRUNO,
        callback_id=ids.VIEW_BRIEF,
        values={
            ids.INPUT_SEGMENT: select(next(iter(stage.demo.primary.segments.values()))),
            ids.INPUT_USE_CASE: select(next(iter(stage.demo.primary.use_cases.values()))),
            ids.INPUT_VARIANTS: select("1"),
        },
        private_metadata={"held": kept.id, "channel": stage.channel},
    )
    assert answer.status == 200 and "errors" not in answer.body
    wait_for(lambda: _runs_created(stage) == runs + 1, what="the kept brief sent")
    assert records.held.get(kept.id) is None
