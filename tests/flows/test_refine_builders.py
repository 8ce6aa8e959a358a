"""The pure pieces of refining: wire bodies, status replies, turns, questions, modals, lists,
App Home — checked on their output and against Slack's Block Kit limits."""

from __future__ import annotations

from typing import Any

import pytest

from suggestbot.flows.common.requests import root_message, wire_body
from suggestbot.flows.common.threads import BoundSuggestion, ThreadBinding
from suggestbot.flows.refine.replies import refine_target, refinement_request
from suggestbot.slackemu.blockkit import MAX_MESSAGE_TEXT, check_message, check_view
from suggestbot.store.records import Failure, Request
from suggestbot.ui import failures
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.home import HomeData, ResultItem, build_home
from suggestbot.ui.blocks.lists import (
    ITEMS_MAX,
    RunItem,
    ThreadItem,
    build_run_list,
    build_thread_list,
)
from suggestbot.ui.blocks.results import Button, Message, Variant
from suggestbot.ui.blocks.text import unescape_markdown
from suggestbot.ui.blocks.thread_modals import (
    build_draft_modal,
    build_history_modal,
    build_refine_modal,
    build_rename_modal,
)
from suggestbot.ui.blocks.turns import (
    Choice,
    ThreadStatus,
    build_choice_prompt,
    build_draft_root,
    build_thread_status,
    build_turn_messages,
)


def _valid_message(message: Message) -> None:
    errors, too_long = check_message(blocks=message.blocks, slack_file_check=lambda _: None)
    assert errors == [] and too_long is None
    assert len(message.text) <= MAX_MESSAGE_TEXT


def _valid_view(view: dict[str, Any]) -> None:
    assert check_view(view, slack_file_check=lambda _: None) == []


def _buttons(message: Message) -> list[dict[str, Any]]:
    found = []
    for block in message.blocks:
        if block["type"] == "actions":
            found += block["elements"]
        if isinstance(block.get("accessory"), dict):
            found.append(block["accessory"])
    return found


# ---------------------------------------------------------------- wire body


def _body(**given: Any) -> dict[str, Any]:
    return wire_body(refinement_request(**given))


def test_refinement_body_leaves_image_out_unless_regenerating() -> None:
    assert _body(parent_id="p1", instruction="shorter", regenerate_image=False) == {
        "type": "refinement",
        "parent_suggestion_id": "p1",
        "instruction": "shorter",
    }
    regen = _body(parent_id="p1", instruction="x", regenerate_image=True)
    assert regen["image"] == "regenerate"


# ---------------------------------------------------------------- status reply


def _refinement(**changes: Any) -> Request:
    req = Request(
        kind="refinement",
        team_id="T1",
        user_id="U1",
        channel_id="C1",
        thread_ts="1.0",
        body=_body(parent_id="p1", instruction="make it <bold>", regenerate_image=False),
    )
    return req.model_copy(update=changes)


@pytest.mark.parametrize(
    ("code", "label", "action_id"),
    [
        ("invalid_parent", "Refine newest", ids.ACTION_REFINE_HEAD),
        ("image_not_applicable", "Resend without image", ids.ACTION_RESEND_WITHOUT_IMAGE),
        ("generation_failed", "Retry", ids.ACTION_RETRY),
    ],
)
def test_failed_refinement_offers_the_button_its_code_calls_for(
    code: str, label: str, action_id: str
) -> None:
    message = root_message(_refinement(state="failed", failure=Failure(code=code)))
    [button] = _buttons(message)
    assert (button["text"]["text"], button["action_id"]) == (label, action_id)
    assert "make it &lt;bold&gt;" in str(message.blocks)  # the instruction, escaped
    _valid_message(message)


def test_a_parent_the_user_cannot_see_is_explained_not_generic() -> None:
    message = root_message(_refinement(state="failed", failure=Failure(code=failures.NOT_FOUND)))
    assert "can't see the suggestion being refined" in message.text
    assert _buttons(message) == []


def test_status_follows_the_run() -> None:
    assert "queued" in root_message(_refinement(state="submitted")).text
    running = root_message(_refinement(state="submitted", run_status="running", attempt=2))
    assert "attempt 2" in running.text
    waiting = root_message(_refinement(state="waiting_user"))
    # The thread sees that it waits; only the author's own ephemeral carries the buttons.
    assert "waiting until they connect" in waiting.text
    assert _buttons(waiting) == []


# ---------------------------------------------------------------- turns


def _variant(body: str, **changes: Any) -> Variant:
    fields: dict[str, Any] = {
        "suggestion_id": "s9",
        "number": 1,
        "total": 1,
        "kind": "email",
        "body": body,
        "subject": "Hi <there>",
        "buttons": (Button("refine.button", ids.ACTION_REFINE_OPEN, "s9"),),
    }
    fields.update(changes)
    return Variant(**fields)


def test_turn_shows_number_instruction_and_plain_body() -> None:
    [message] = build_turn_messages(
        lang="en",
        turn=3,
        instruction="add *stars* & more",
        author="U1",
        variant=_variant("Body *x*"),
    )
    blocks = message.blocks
    assert blocks[0]["text"]["text"] == "Turn 3 · Email"
    assert "<@U1> asked:" in blocks[1]["text"]["text"]
    assert "> add *stars* &amp; more" in blocks[1]["text"]["text"]
    # the body as typed: a markdown block with what markdown would read escaped
    assert {"type": "markdown", "text": "Body \\*x\\*"} in blocks
    assert [b["text"]["text"] for b in _buttons(message)] == ["Refine…"]
    assert message.text.startswith("Turn 3 · Email: Hi <there>")
    _valid_message(message)


def test_turn_in_german() -> None:
    [message] = build_turn_messages(
        lang="de", turn=2, instruction="kürzer", author="U1", variant=_variant("Text")
    )
    assert message.blocks[0]["text"]["text"] == "Runde 2 · E-Mail"


def test_long_turn_is_split_with_buttons_last() -> None:
    body = "\n\n".join("paragraph " * 250 for _ in range(80))
    messages = build_turn_messages(
        lang="en", turn=2, instruction="longer", author="U1", variant=_variant(body)
    )
    assert len(messages) >= 2
    for message in messages:
        assert len(message.blocks) <= 50
        _valid_message(message)
    assert _buttons(messages[-1]) and not any(_buttons(m) for m in messages[:-1])
    text = "".join(
        unescape_markdown(b["text"]) for m in messages for b in m.blocks if b["type"] == "markdown"
    )
    assert text.replace("\n", "").replace(" ", "") == body.replace("\n", "").replace(" ", "")


def test_turn_of_an_image_post_without_a_fresh_url_says_how_to_refresh() -> None:
    [message] = build_turn_messages(
        lang="en",
        turn=2,
        instruction="brighter",
        author="U1",
        variant=_variant("Post", kind="social_single_image", subject=None),
    )
    assert "Refresh preview" in str(message.blocks)
    assert all(b["type"] != "image" for b in message.blocks)


# ---------------------------------------------------------------- questions and root status


def test_choice_prompt_has_one_button_per_variant_with_unique_ids() -> None:
    message = build_choice_prompt(
        lang="en",
        instruction="warmer",
        choices=[Choice(1, "Email"), Choice(2, "Email"), Choice(3, "Email: " + "long " * 100)],
        pending_id="abc",
    )
    buttons = _buttons(message)
    assert [b["text"]["text"] for b in buttons] == ["Variant 1", "Variant 2", "Variant 3"]
    assert [b["value"] for b in buttons] == ["abc:1", "abc:2", "abc:3"]
    assert len({b["action_id"] for b in buttons}) == 3
    assert all(b["action_id"].startswith(ids.ACTION_CHOOSE_VARIANT + ".") for b in buttons)
    assert "> warmer" in str(message.blocks)
    assert message.blocks[-2]["text"]["text"].endswith("…")  # a long label is shortened
    _valid_message(message)


def _status(**changes: Any) -> ThreadStatus:
    fields: dict[str, Any] = {
        "name": "Spring <launch>",
        "turn_count": 4,
        "chosen_variant": 2,
        "variants": 3,
        "last_turn_by": "U1",
        "can_rename": True,
        "thread_key": "C1:1.0",
    }
    fields.update(changes)
    return ThreadStatus(**fields)


def test_thread_status_names_head_turns_and_offers_rename() -> None:
    blocks = build_thread_status(lang="en", status=_status())
    line = blocks[0]["elements"][0]["text"]
    assert line == "*Spring &lt;launch&gt;* · turn 4 · continues variant 2 · newest by <@U1>"
    assert blocks[1]["elements"][0]["value"] == "C1:1.0"
    assert blocks[1]["elements"][0]["action_id"] == ids.ACTION_RENAME_OPEN


def test_thread_status_without_a_known_service_thread_has_no_rename() -> None:
    blocks = build_thread_status(
        lang="en", status=_status(can_rename=False, variants=1, name=None, last_turn_by=None)
    )
    assert len(blocks) == 1 and blocks[0]["elements"][0]["text"] == "turn 4"


def test_draft_root_shows_the_email_and_refine() -> None:
    message = build_draft_root(
        lang="en", author="U1", context="A · B", subject="S", body="Hello", suggestion_id="d1"
    )
    assert "Draft email by <@U1>" in message.text
    assert [b["value"] for b in _buttons(message)] == ["d1"]
    _valid_message(message)


# ---------------------------------------------------------------- what a Refine… press targets


def _binding(*, chosen: bool, image: bool = False) -> ThreadBinding:
    kind = "social_single_image" if image else "email"
    binding = ThreadBinding(
        team_id="T1",
        channel="C1",
        thread_ts="1.0",
        origin="brief",
        suggestions=[
            BoundSuggestion(suggestion_id=f"s{n}", variant_no=n, kind=kind, has_image=image)
            for n in (1, 2)
        ],
    )
    if chosen:
        binding = binding.model_copy(
            update={
                "chosen_variant": 1,
                "head_suggestion_id": "h3",
                "head_kind": kind,
                "head_has_image": image,
                "turn_count": 3,
            }
        )
    return binding


def test_refine_before_a_choice_targets_the_pressed_variant() -> None:
    assert refine_target(_binding(chosen=False), pressed_suggestion="s2") == (
        2,
        "email",
        False,
        True,
    )


def test_refine_after_a_choice_always_targets_the_newest_turn() -> None:
    assert refine_target(_binding(chosen=True, image=True), pressed_suggestion="s2") == (
        0,
        "social_single_image",
        True,
        False,
    )
    assert refine_target(_binding(chosen=True), pressed_suggestion="h3")[3] is True


# ---------------------------------------------------------------- modals


def _inputs(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["label"]["text"]: b["element"] for b in view["blocks"] if b["type"] == "input"}


def test_refine_modal_offers_the_image_choice_only_for_image_content() -> None:
    text_only = build_refine_modal(lang="en", private_metadata="{}", with_image=False)
    with_image = build_refine_modal(lang="en", private_metadata="{}", with_image=True, note="n")
    assert list(_inputs(text_only)) == ["What should change?"]
    radio = _inputs(with_image)["Image"]
    assert [o["value"] for o in radio["options"]] == ["reuse", "regenerate"]
    assert radio["initial_option"]["value"] == "reuse"
    for view in (text_only, with_image):
        _valid_view(view)


def test_rename_modal_takes_more_than_the_limit_so_our_check_can_explain() -> None:
    view = build_rename_modal(lang="en", private_metadata="{}", initial="Spring")
    element = _inputs(view)["Thread name"]
    assert element["initial_value"] == "Spring" and element["max_length"] > 60
    _valid_view(view)


def test_draft_modal_asks_segment_use_case_subject_and_body() -> None:
    view = build_draft_modal(
        lang="en",
        segments=[("s1", "Hikers")],
        use_cases=[("u1", "Launch")],
        initial_segment="s1",
    )
    assert list(_inputs(view)) == ["Segment", "Use case", "Subject", "Email text"]
    assert _inputs(view)["Segment"]["initial_option"]["value"] == "s1"
    _valid_view(view)
    loading = build_draft_modal(lang="en", segments=[], use_cases=[], loading=True)
    assert "submit" not in loading and "Loading" in str(loading["blocks"])


def test_history_modal_stays_within_a_view() -> None:
    view = build_history_modal(
        lang="en",
        title_key="history.thread_title",
        intro="x",
        entries=[f"e{i}" for i in range(300)],
    )
    assert len(view["blocks"]) <= 100
    assert "more not shown" in str(view["blocks"][-1])
    _valid_view(view)


# ---------------------------------------------------------------- lists and Home


def _threads(n: int) -> list[ThreadItem]:
    return [
        ThreadItem(
            id=f"t{i}",
            name=None if i % 2 else f"N{i}",
            root_origin="steered",
            turn_count=i + 1,
            updated_at=1_700_000_000,
        )
        for i in range(n)
    ]


def _runs(n: int, status: str = "queued") -> list[RunItem]:
    return [
        RunItem(
            id=f"r{i}",
            type="refinement",
            status=status,
            created_at=1_700_000_000,
            text="x" * 500,
            history=bool(i % 2),
        )
        for i in range(n)
    ]


def test_thread_list_numbers_items_and_keeps_the_cursor_in_more() -> None:
    message = build_thread_list(lang="en", items=_threads(3), more_value="threads|abc")
    buttons = _buttons(message)
    assert [b["text"]["text"] for b in buttons] == ["History 1", "History 2", "History 3", "More"]
    assert [b["value"] for b in buttons[:3]] == ["t0", "t1", "t2"]
    assert buttons[-1]["value"] == "threads|abc"
    assert "Unnamed thread" in str(message.blocks)
    _valid_message(message)


def test_a_later_page_numbers_on_and_an_unfinished_search_is_not_nothing() -> None:
    page = build_thread_list(lang="en", items=_threads(2), more_value=None, first=11)
    assert [b["text"]["text"] for b in _buttons(page)] == ["History 11", "History 12"]
    assert [b["text"]["text"][:5] for b in page.blocks if b["block_id"].startswith("item-")] == [
        "*11.*",
        "*12.*",
    ]
    assert "That's all" in str(page.blocks)
    searching = build_run_list(lang="de", items=[], more_value="runs|list:x:1")
    assert "Noch keine" not in str(searching.blocks) and "Mehr" in str(searching.blocks)
    _valid_message(searching)


def test_home_results_link_to_their_thread() -> None:
    data = HomeData(
        link_state="linked",
        linked_since=1_700_000_000,
        results=[
            ResultItem(
                text="Spring <launch>", failed=False, variants=3, created_at=1, link="https://x/p1"
            ),
            ResultItem(text="Autumn", failed=True, variants=0, created_at=1),
            *[ResultItem(text="zzolder", failed=False, variants=1, created_at=1)] * 10,
        ],
    )
    view = build_home(lang="en", data=data)
    text = str(view["blocks"])
    assert "3 variants ready" in text and "<https://x/p1|Open the thread>" in text
    assert "Spring &lt;launch&gt;" in text  # what the user typed cannot become a link
    assert ":x: failed" in text and text.count("zzolder") == 3  # at most five results
    _valid_view(view)


def test_lists_hold_within_a_message() -> None:
    message = build_run_list(lang="en", items=_runs(200), more_value=None)
    assert len(message.blocks) <= 50
    assert sum(1 for b in message.blocks if b["block_id"].startswith("item-")) == ITEMS_MAX
    # only finished runs with a result open a history
    assert all(b["text"]["text"].startswith("History") for b in _buttons(message))
    _valid_message(message)
    empty = build_thread_list(lang="en", items=[], more_value=None)
    assert "No threads yet" in str(empty.blocks)


def test_home_stays_within_slacks_view_limits_however_much_there_is() -> None:
    data = HomeData(
        link_state="linked",
        linked_since=1_700_000_000,
        runs=_runs(100),
        threads=_threads(100),
        digests=[f"<#C1> · *S{i}* · *U* · 09:00 Europe/Berlin · Mon" for i in range(100)],
        more_threads=True,
    )
    view = build_home(lang="de", data=data)
    assert len(view["blocks"]) <= 100
    _valid_view(view)
    text = str(view["blocks"])
    assert "Trennen" in text and "90 weitere laufen." in text


def test_home_unlinked_offers_connect() -> None:
    view = build_home(lang="en", data=HomeData(link_state="unlinked"))
    text = str(view["blocks"])
    assert "Connect account" in text and "Disconnect" not in text
    assert "/suggest draft" in text  # help
    _valid_view(view)
