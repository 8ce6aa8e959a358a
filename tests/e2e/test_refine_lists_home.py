"""``/suggest threads`` and ``/suggest runs`` with paging and histories, and the App Home."""

from __future__ import annotations

import json
from typing import Any

from refine_helpers import (
    brief_thread,
    connect,
    connect_as_new_service_user,
    refinement_runs,
    reply,
    service,
    shared_ready_made_thread,
    wait_turn,
)

from suggestbot.contentapi import ContentClient, RefinementRequest, SteeredGenerationRequest
from suggestbot.demo.stage import ALICE, BRUNO, CAROL, Stage, wait_for
from suggestbot.flows.common import yours
from suggestbot.flows.lists import listing as lists
from suggestbot.sandbox import RunTiming
from suggestbot.slackemu.transcript import view_transcript
from suggestbot.store.records import Digest


def _command(stage: Stage, user: str, text: str, needle: str) -> dict[str, Any]:
    """Run ``/suggest text`` and return the new ephemeral answer containing ``needle``."""
    before = len(stage.emu.ephemerals(user, stage.channel))
    stage.slack.slash_command(user, stage.channel, text)
    return wait_for(
        lambda: next(
            (e for e in stage.emu.ephemerals(user, stage.channel)[before:] if needle in e["text"]),
            None,
        ),
        what=f"an ephemeral answer with {needle!r}",
    )


def _history(stage: Stage, message: dict[str, Any], label_part: str) -> str:
    """Press the History button of the list item whose line contains ``label_part``."""
    [button] = [
        b["accessory"]["text"]["text"]
        for b in message["blocks"]
        if b.get("accessory") and label_part in b["text"]["text"]
    ]
    stage.slack.press_button(message, button, user_id=ALICE)
    wait_for(
        lambda: (
            (stage.emu.current_view(ALICE) or {}).get("callback_id") == "history"
            and "Loading" not in stage.emu.view_transcript(ALICE)
        ),
        what="the history modal",
    )
    return stage.emu.view_transcript(ALICE)


def _three_turns(stage: Stage) -> str:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email about the trail festival")
    for number, text in enumerate(["shorter", "add the date", "sign as the team"], start=2):
        reply(stage, ALICE, ts, text)
        wait_turn(stage, ts, number)
    return ts


def test_threads_list_opens_the_turns_oldest_first(stage: Stage) -> None:
    _three_turns(stage)
    listing = _command(stage, ALICE, "threads", "Your recent threads")
    text = stage.emu.ephemeral_transcript(ALICE, stage.channel)
    assert "4 turns" in text and "from a brief" in text
    history = _history(stage, listing, "4 turns")
    lines = history.splitlines()
    order = [next(i for i, line in enumerate(lines) if f"Turn {n}" in line) for n in (1, 2, 3, 4)]
    assert order == sorted(order)
    for instruction in ("shorter", "add the date", "sign as the team"):
        assert f"> {instruction}" in history
    assert "the original" in history


def _alice_client(stage: Stage) -> ContentClient:
    """Alice's own service account (linked through the app), to make runs outside Slack."""
    assert stage.runtime is not None
    deps = stage.runtime.deps
    user = deps.records.users.get(f"{stage.emu.team_id}:{ALICE}")
    assert user is not None
    return service(stage).as_user(deps.vault.decrypt(user.token_enc))


def _briefs(stage: Stage, client: ContentClient, count: int) -> list[str]:
    """``count`` briefs sent straight to the service; returns their run ids, oldest first."""
    demo = stage.sandbox.demo
    assert demo is not None
    return [
        client.create_run(
            request=SteeredGenerationRequest(
                segment_id=demo.segment_id, use_case_id=demo.use_case_id, steering_text=f"idea {n}"
            )
        ).id
        for n in range(count)
    ]


def _list_message(stage: Stage, user: str, title: str) -> dict[str, Any]:
    [message] = [e for e in stage.emu.ephemerals(user, stage.channel) if title in e["text"]]
    return message


def _lines(message: dict[str, Any]) -> list[str]:
    return [b["text"]["text"] for b in message["blocks"] if b["block_id"].startswith("item-")]


def _numbers(message: dict[str, Any]) -> list[int]:
    return [int(line.split(".*", 1)[0].removeprefix("*")) for line in _lines(message)]


def _press_more(stage: Stage, user: str, title: str) -> dict[str, Any]:
    """Press More on the list message and return it once the next page has replaced it."""
    before = _list_message(stage, user, title)
    stage.slack.press_button(before, "More", user_id=user)
    return wait_for(
        lambda: (
            after
            if (after := _list_message(stage, user, title))["blocks"] != before["blocks"]
            else None
        ),
        what="the next page",
    )


def _more_value(message: dict[str, Any]) -> str:
    [value] = [
        e["value"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]
    ]
    return str(value)


def test_runs_over_overlapping_pages_number_on_and_repeat_nothing(stage: Stage) -> None:
    connect(stage, ALICE)
    _briefs(stage, _alice_client(stage), 23)
    stage.sandbox.faults.short_pages = 4  # every page carries a cursor, even the last
    stage.sandbox.faults.overlap_pages = 1  # and starts with the last item of the one before

    first = _command(stage, ALICE, "runs", "Your recent runs")
    assert _numbers(first) == list(range(1, 11))
    second = _press_more(stage, ALICE, "Your recent runs")
    assert _numbers(second) == list(range(11, 21))

    # a second press of page 1's More (a double click, a stale copy) changes nothing
    assert stage.runtime is not None
    shown = len(stage.emu.ephemerals(ALICE, stage.channel))
    lists.more(
        stage.runtime.deps,
        value=_more_value(first),
        team_id=stage.emu.team_id,
        user_id=ALICE,
        channel_id=stage.channel,
        response_url=None,
    )
    assert len(stage.emu.ephemerals(ALICE, stage.channel)) == shown
    assert _list_message(stage, ALICE, "Your recent runs")["blocks"] == second["blocks"]

    third = _press_more(stage, ALICE, "Your recent runs")
    assert _numbers(third) == [21, 22, 23]
    assert "That's all" in json.dumps(third) and "More" not in json.dumps(third)

    shown_texts = [line.rsplit("\n", 1)[1] for m in (first, second, third) for line in _lines(m)]
    assert sorted(shown_texts) == sorted(f"idea {n}" for n in range(23))  # each run once
    assert shown_texts[0] == "idea 22"  # newest first


def test_an_empty_last_page_ends_the_list_and_keeps_what_was_shown(stage: Stage) -> None:
    _three_turns(stage)  # a brief and three refinements
    _briefs(stage, _alice_client(stage), 6)
    stage.sandbox.faults.short_pages = 5  # 10 runs in two full pages, then an empty one

    first = _command(stage, ALICE, "runs", "Your recent runs")
    assert _numbers(first) == list(range(1, 11)) and "More" in json.dumps(first)
    end = _press_more(stage, ALICE, "Your recent runs")
    text = json.dumps(end)
    assert "No runs yet" not in text and "That's all" in text
    assert _lines(end) == _lines(first)  # the runs stay, numbered as they were
    assert "History 7" in text  # the brief's run (finished) still opens its history

    # the ended list's old More button does nothing
    assert stage.runtime is not None
    lists.more(
        stage.runtime.deps,
        value=_more_value(first),
        team_id=stage.emu.team_id,
        user_id=ALICE,
        channel_id=stage.channel,
        response_url=None,
    )
    assert _list_message(stage, ALICE, "Your recent runs")["blocks"] == end["blocks"]

    stage.sandbox.faults.short_pages = 0
    listing = _command(stage, ALICE, "runs", "Your recent runs")
    history = _history(stage, listing, "sign as the team")
    lines = history.splitlines()
    assert "Original (variant 1)" in history
    steps = [i for i, line in enumerate(lines) if line.strip().startswith("> ")]
    quoted = [lines[i].strip()[2:] for i in steps]
    assert quoted == ["shorter", "add the date", "sign as the team"]

    # a brief's run opens the variants of its set
    stage.slack.close_view(ALICE, clear=True)
    listing = _command(stage, ALICE, "runs", "Your recent runs")
    history = _history(stage, listing, "Email about the trail festival")
    assert "1 variant from the brief" in history and "Variant 1" in history


def test_only_your_threads_never_another_persons_instruction(stage: Stage) -> None:
    connect_as_new_service_user(stage, BRUNO)
    connect_as_new_service_user(stage, ALICE)
    connect_as_new_service_user(stage, CAROL)
    ts, _ = shared_ready_made_thread(stage)  # ready-made content: its thread has no creator
    reply(stage, BRUNO, ts, "1: kürzer bitte")
    wait_turn(stage, ts, 2)

    # Carol has sent nothing: none of this is hers, whatever the service lists to her
    assert "No threads yet" in json.dumps(_command(stage, CAROL, "threads", "recent threads"))
    assert "No runs yet" in json.dumps(_command(stage, CAROL, "runs", "recent runs"))
    stage.slack.app_home_opened(CAROL)
    home = wait_for(lambda: stage.emu.home_view(CAROL), what="Carol's Home")
    shown = [b["block_id"] for b in home["blocks"]]
    assert "threads-empty" in shown and not any(b.startswith("thread-") for b in shown)
    # nor Alice's, before she refines it
    assert "No threads yet" in json.dumps(_command(stage, ALICE, "threads", "recent threads"))

    # Alice refines it through the app: now it is hers too, but Bruno's words stay his
    reply(stage, ALICE, ts, "and friendlier")
    wait_turn(stage, ts, 3)
    brief_thread(stage, ALICE, "Email about the trail festival")
    listing = _command(stage, ALICE, "threads", "recent threads")
    assert len(_lines(listing)) == 2 and "ready-made" in json.dumps(listing)
    history = _history(stage, listing, "ready-made")
    assert "> and friendlier" in history
    assert "kürzer" not in history and "refined by someone else" in history
    stage.slack.close_view(ALICE, clear=True)
    assert "No threads yet" in json.dumps(_command(stage, CAROL, "threads", "recent threads"))


def test_threads_are_yours_across_overlapping_pages(stage: Stage) -> None:
    connect_as_new_service_user(stage, BRUNO)
    connect(stage, ALICE)
    ts, _ = shared_ready_made_thread(stage)
    reply(stage, BRUNO, ts, "1: kürzer bitte")
    wait_turn(stage, ts, 2)
    alice = _alice_client(stage)
    _briefs(stage, alice, 12)
    wait_for(
        lambda: [r.status.value for r in alice.iter_runs(limit=100)] == ["succeeded"] * 12,
        what="Alice's twelve briefs, each the root of a thread",
    )
    stage.sandbox.faults.short_pages = 3
    stage.sandbox.faults.overlap_pages = 1

    first = _command(stage, ALICE, "threads", "Your recent threads")
    second = _press_more(stage, ALICE, "Your recent threads")
    assert _numbers(first) + _numbers(second) == list(range(1, 13))
    ids = [
        b["accessory"]["value"]
        for message in (first, second)
        for b in message["blocks"]
        if b["block_id"].startswith("item-")
    ]
    assert len(set(ids)) == 12 and "ready-made" not in json.dumps([first, second])
    assert "History 12" in json.dumps(second) and "That's all" in json.dumps(second)


def test_app_home_shows_link_runs_threads_digests_within_limits(stage: Stage) -> None:
    _three_turns(stage)
    assert stage.runtime is not None and stage.sandbox.demo is not None
    deps = stage.runtime.deps
    # many runs still in progress, created directly with Alice's own token
    stage.sandbox.faults.run_timing = RunTiming(queued_s=3600, running_s=3600)
    user = deps.records.users.get(f"{stage.emu.team_id}:{ALICE}")
    assert user is not None
    alice = service(stage).as_user(deps.vault.decrypt(user.token_enc))
    demo = stage.sandbox.demo
    for n in range(14):
        alice.create_run(
            request=SteeredGenerationRequest(
                segment_id=demo.segment_id, use_case_id=demo.use_case_id, steering_text=f"idea {n}"
            )
        )
    head = max(refinement_runs(stage), key=lambda r: r.created_at).suggestion_id
    assert head is not None
    alice.create_run(request=RefinementRequest(parent_suggestion_id=head, instruction="later"))
    # digests as an earlier version wrote them to the store: Alice's 40, and one of Carol's
    digest = {
        "team_id": stage.emu.team_id,
        "channel_id": stage.channel,
        "segment_id": demo.segment_id,
        "use_case_id": demo.use_case_id,
    }
    for n in range(40):
        deps.records.store.put(
            "digests",
            f"d{n:03d}",
            {
                **digest,
                "id": f"d{n:03d}",
                "created_by": ALICE,
                "segment_name": "Weekend Hikers",
                "use_case_name": "Spring Launch",
                "time": "09:00",
                "tz": "Europe/Berlin",
                "weekdays": [0, 2, 4],
                "paused": n == 0,
                "created_at": 1_700_000_000 + n,
            },
        )
    carol = {"created_by": CAROL, "time": "07:00", "tz": "UTC", "weekdays": [1]}
    names = {"segment_name": "Carol's segment", "use_case_name": "Carol's use case"}
    deps.records.store.put("digests", "carol", {**digest, **carol, **names, "id": "carol"})

    answer = stage.slack.app_home_opened(ALICE)
    assert answer.acked_in_time
    # (Home is also published on linking and on each result: wait for one with everything)
    home = wait_for(
        lambda: (
            (view := stage.emu.home_view(ALICE))
            and "20 more not shown" in json.dumps(view)
            and view
        ),
        what="the Home published on opening",
    )
    assert len(home["blocks"]) <= 100
    text = json.dumps(home)
    assert "Disconnect" in text and "connected" in text
    assert text.count("queued") + text.count("running") >= 10
    assert "5 more running" in text
    assert "4 turns" in text  # the thread refined three times
    assert text.count("Weekend Hikers") >= 20 and "20 more not shown" in text
    assert "Mon, Wed, Fri" in text and "(paused)" in text
    assert "07:00" not in text  # Carol's digest is not Alice's
    assert "/suggest draft" in text  # help
    assert stage.emu.warnings == []

    # a thread's history opens from Home too
    stage.slack.press_button(home, "History 1", user_id=ALICE)
    wait_for(
        lambda: (
            "Thread history" in stage.emu.view_transcript(ALICE)
            and "Turn 4" in stage.emu.view_transcript(ALICE)
        ),
        what="the thread history from Home",
    )
    stage.slack.close_view(ALICE, clear=True)

    # Disconnect from Home: the token is gone and Home says so
    stage.slack.press_button(home, "Disconnect", user_id=ALICE)
    wait_for(
        lambda: "Connect account" in json.dumps(stage.emu.home_view(ALICE)),
        what="Home to offer connecting again",
    )
    assert deps.records.users.get(f"{stage.emu.team_id}:{ALICE}") is None


def test_app_home_for_someone_not_connected(stage: Stage) -> None:
    stage.slack.app_home_opened(CAROL)
    home = wait_for(lambda: stage.emu.home_view(CAROL), what="Carol's Home")
    text = json.dumps(home)
    assert "Connect account" in text and "You have not set up a digest" in text
    stage.slack.press_button(home, "Connect account", user_id=CAROL)
    wait_for(
        lambda: (stage.emu.current_view(CAROL) or {}).get("callback_id") == "connect",
        what="the connect modal from Home",
    )


def _home_saying(stage: Stage, user: str, *words: str) -> dict[str, Any]:
    """The user's Home once it has been published (again) saying all of ``words``."""
    return wait_for(
        lambda: (
            (view := stage.emu.home_view(user))
            and all(word in view_transcript(view) for word in words)
            and view
        ),
        what=f"a Home saying {words!r}",
    )


def test_home_follows_linking_a_brief_and_unlinking_without_reopening(stage: Stage) -> None:
    stage.slack.app_home_opened(CAROL)
    _home_saying(stage, CAROL, "Connect account")

    connect_as_new_service_user(stage, CAROL)  # a user with no runs at all
    before = view_transcript(_home_saying(stage, CAROL, "Disconnect"))
    assert "No finished briefs yet" in before and "Nothing is running" in before
    assert "No threads yet" in before and "Connect account" not in before

    ts = brief_thread(stage, CAROL, "Spring launch email for hikers")
    after = _home_saying(stage, CAROL, "Spring launch email for hikers")
    text = view_transcript(after)
    assert "1 variant ready" in text and "No finished briefs yet" not in text
    assert f"/p{ts.replace('.', '')}|Open the thread>" in json.dumps(after)
    assert "Nothing is running" in text

    stage.slack.slash_command(CAROL, stage.channel, "disconnect")
    gone = view_transcript(_home_saying(stage, CAROL, "Connect account"))
    assert "Spring launch email for hikers" in gone  # the app's own record of the result stays


def test_home_follows_a_digest_being_paused_and_removed(stage: Stage) -> None:
    assert stage.runtime is not None
    deps = stage.runtime.deps
    digest = Digest(
        id="d0home01",
        team_id=stage.emu.team_id,
        channel_id=stage.channel,
        created_by=CAROL,
        segment_id="s",
        use_case_id="u",
        segment_name="Weekend Hikers",
        use_case_name="Spring Launch",
        time="09:00",
        tz="Europe/Berlin",
        weekdays=[0, 2, 4],
    )
    deps.records.digests.put(digest.id, digest)
    stage.slack.app_home_opened(CAROL)
    assert "(paused)" not in view_transcript(_home_saying(stage, CAROL, "Weekend Hikers"))

    stage.slack.slash_command(CAROL, stage.channel, "digest pause d0home01")
    _home_saying(stage, CAROL, "Weekend Hikers", "(paused)")
    stage.slack.slash_command(CAROL, stage.channel, "digest remove d0home01")
    _home_saying(stage, CAROL, "You have not set up a digest")


def test_the_service_id_is_learnt_when_linking(stage: Stage) -> None:
    assert stage.runtime is not None and stage.sandbox.demo is not None
    deps = stage.runtime.deps
    service_user, token = stage.sandbox.create_user_token(stage.sandbox.demo.tenant_id)
    _briefs(stage, service(stage).as_user(token), 1)  # a brief sent outside Slack
    connect(stage, ALICE, token)
    team = stage.emu.team_id
    wait_for(  # the link is kept first, then whose account it is
        lambda: yours.known_service_user(deps, team_id=team, user_id=ALICE) == service_user,
        what="the service id learnt at linking",
    )
    stage.slack.slash_command(ALICE, stage.channel, "disconnect")
    wait_for(
        lambda: yours.known_service_user(deps, team_id=team, user_id=ALICE) is None,
        what="the service id forgotten with the link",
    )
