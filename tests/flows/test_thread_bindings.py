"""The thread-binding records: what binding keeps, who wins a race, and that heads only move on."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from suggestbot.contentapi import Suggestion, Thread
from suggestbot.flows.common import threads
from suggestbot.store import MemoryStore
from suggestbot.store.records import Records
from suggestbot.ui.blocks.results import Message


def _deps() -> Any:
    # Binding touches only the store; the rest of Deps is not needed here.
    return SimpleNamespace(records=Records(MemoryStore()))


def _offer(*numbers: int) -> list[threads.BoundSuggestion]:
    return [
        threads.BoundSuggestion(suggestion_id=f"s{n}", variant_no=n, kind="email") for n in numbers
    ]


def _bind(deps: Any, offered: list[threads.BoundSuggestion], **extra: Any) -> Any:
    return threads.bind_thread(
        deps,
        threads.new_binding(
            team_id="T1",
            channel="C1",
            thread_ts="1.0",
            suggestions=offered,
            origin="brief",
            **extra,
        ),
    )


def _suggestion(sid: str, *, image: bool = False) -> Suggestion:
    payload: dict[str, Any] = (
        {"body": "b", "asset": {"type": "image", "ref": "image:abc", "alt_text": "a"}}
        if image
        else {"subject": "s", "body": "b"}
    )
    return Suggestion.model_validate(
        {
            "id": sid,
            "kind": "social_single_image" if image else "email",
            "variant_no": 1,
            "payload": payload,
        }
    )


def test_a_single_suggestion_is_chosen_at_once_and_several_wait_for_a_choice() -> None:
    deps = _deps()
    one = _bind(deps, _offer(1))
    assert (one.chosen_variant, one.head_suggestion_id) == (1, "s1")
    other = threads.bind_thread(
        deps,
        threads.new_binding(
            team_id="T1", channel="C2", thread_ts="2.0", suggestions=_offer(3, 1, 2), origin="x"
        ),
    )
    assert other.head_suggestion_id is None
    assert [s.variant_no for s in other.suggestions] == [1, 2, 3]


def test_binding_twice_keeps_the_first_and_the_first_choice_wins() -> None:
    deps = _deps()
    first = _bind(deps, _offer(1, 2))
    again = _bind(deps, _offer(1))
    assert again.suggestions == first.suggestions
    chose_two = threads.choose(deps, first, 2)
    chose_one = threads.choose(deps, first, 1)  # a late second choice changes nothing
    assert chose_two.head_suggestion_id == "s2"
    assert chose_one.chosen_variant == 2
    stored = threads.get(deps, channel="C1", thread_ts="1.0")
    assert stored is not None and stored.head_suggestion_id == "s2"


def test_binding_many_at_once_keeps_earlier_bindings() -> None:
    deps = _deps()
    first = _bind(deps, _offer(1, 2))
    batch = [
        threads.new_binding(
            team_id="T1", channel="C1", thread_ts=ts, suggestions=_offer(1), origin="digest"
        )
        for ts in ("1.0", "2.0", "3.0")
    ]
    assert threads.bind_many(deps, batch) == 2
    assert threads.bind_many(deps, []) == 0
    kept = threads.get(deps, channel="C1", thread_ts="1.0")
    assert kept is not None and kept.suggestions == first.suggestions
    new = threads.get(deps, channel="C1", thread_ts="3.0")
    assert new is not None and (new.origin, new.head_suggestion_id) == ("digest", "s1")


def test_the_head_never_moves_back_to_an_older_turn() -> None:
    deps = _deps()
    binding = _bind(deps, _offer(1))
    threads.advance(deps, binding, suggestion=_suggestion("t3"), turn=3, by="U1", thread=None)
    late = threads.advance(
        deps, binding, suggestion=_suggestion("t2", image=True), turn=2, by="U2", thread=None
    )
    assert (late.head_suggestion_id, late.turn_count, late.last_turn_by) == ("t3", 3, "U1")
    assert late.head_has_image is False


def test_the_kept_root_holds_no_image_urls() -> None:
    deps = _deps()
    root = Message(
        text="root",
        blocks=[
            {"type": "section", "text": {"type": "mrkdwn", "text": "hi"}},
            {"type": "image", "image_url": "https://x/sig?token=1", "alt_text": "a"},
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": "with picture"},
                "accessory": {"type": "image", "image_url": "https://x/2", "alt_text": "b"},
            },
            {"type": "context", "elements": [{"type": "image", "image_url": "https://x/3"}]},
        ],
    )
    binding = _bind(deps, _offer(1), root=root)
    assert binding.root is not None
    assert "https://x" not in str(binding.root)
    assert [b["type"] for b in binding.root["blocks"]] == ["section", "section"]


def test_thread_status_offers_rename_once_the_service_thread_is_known() -> None:
    deps = _deps()
    binding = _bind(deps, _offer(1, 2))
    assert threads.thread_status(binding).can_rename is False
    now = datetime(2025, 1, 1, tzinfo=UTC)
    thread = Thread(
        id="th1",
        name="Named",
        locale="en",
        head_suggestion_id="s1",
        root_origin="steered",
        turn_count=1,
        created_at=now,
        updated_at=now,
    )
    renamed = threads.renamed(deps, binding, thread=thread)
    status = threads.thread_status(renamed)
    assert status.can_rename and status.name == "Named" and status.thread_key == "C1:1.0"
