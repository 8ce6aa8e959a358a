"""Short messages to one person: what each says, in English and German, with which buttons."""

from __future__ import annotations

from typing import Any

import pytest

from suggestbot.store.records import LinkedUser
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.modals import build_brief_loading_modal, build_brief_modal
from suggestbot.ui.blocks.notices import (
    build_connect_first,
    build_connect_needed,
    build_connect_outcome,
    build_disconnected,
    build_failure_notice,
    build_held_gone,
    build_link_status,
    build_only_author,
    build_unknown_subcommand,
)
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.blocks.thread_modals import refine_note
from suggestbot.ui.messages import t


def _buttons(message: Message) -> list[tuple[str, str, str | None]]:
    """(action id, value, style) of every button in the message."""
    return [
        (e["action_id"], e["value"], e.get("style"))
        for block in message.blocks
        if block["type"] == "actions"
        for e in block["elements"]
    ]


def _text(message: Message | dict[str, Any]) -> str:
    blocks = message.blocks if isinstance(message, Message) else message["blocks"]
    return "\n".join(str((b.get("text") or {}).get("text") or "") for b in blocks)


def test_failure_notice_gives_the_reference_of_the_log_line() -> None:
    message = build_failure_notice(lang="en", ref="a1b2c3d4")
    assert "`a1b2c3d4`" in message.text and "Traceback" not in message.text
    assert "a1b2c3d4" in build_failure_notice(lang="de", ref="a1b2c3d4").text


def test_unknown_subcommand_names_the_word_then_shows_the_help() -> None:
    message = build_unknown_subcommand(lang="en", sub="translate")
    assert "`/suggest translate`" in message.text
    assert t("help.title", "en") in _text(message)


def test_connect_needed_keeps_the_brief_behind_both_buttons() -> None:
    message = build_connect_needed(lang="en", held_id="h1")
    assert message.text == t("connect.needed", "en")
    assert _buttons(message) == [
        (ids.ACTION_CONNECT, "held:h1", "primary"),
        (ids.ACTION_RESEND, "h1", None),
    ]


def test_connect_first_offers_the_connect_button() -> None:
    message = build_connect_first(lang="de")
    assert message.text == t("lists.connect", "de")
    assert _buttons(message) == [(ids.ACTION_CONNECT, "command", "primary")]


def test_connect_outcome_linked_offers_resend_of_what_was_kept() -> None:
    plain = build_connect_outcome(lang="en", problem=None)
    assert plain.text == t("connect.done", "en") and _buttons(plain) == []
    brief = build_connect_outcome(lang="en", problem=None, held_id="h1")
    assert brief.text == t("connect.held_ready", "en")
    assert _buttons(brief) == [(ids.ACTION_RESEND, "h1", "primary")]
    reply = build_connect_outcome(lang="de", problem=None, held_id="h2", held_reply=True)
    assert reply.text == t("refine.held_ready", "de")


@pytest.mark.parametrize("problem", ["rejected", "unreachable", "empty"])
def test_connect_outcome_refused_says_why_and_offers_to_connect_again(problem: str) -> None:
    message = build_connect_outcome(lang="en", problem=problem)
    assert message.text == f":warning: {t(f'connect.{problem}', 'en')}"
    assert _buttons(message) == [(ids.ACTION_CONNECT, "again", "primary")]
    kept = build_connect_outcome(lang="en", problem=problem, held_id="h1")
    assert _buttons(kept) == [(ids.ACTION_CONNECT, "held:h1", "primary")]


def test_disconnected_says_whether_there_was_a_link() -> None:
    assert build_disconnected(lang="en", removed=True).text == t("disconnect.done", "en")
    assert build_disconnected(lang="en", removed=False).text == t("disconnect.none", "en")


def _link(**changes: Any) -> LinkedUser:
    return LinkedUser(team_id="T1", user_id="U1", token_enc="x", linked_at=1_700_000_000, **changes)


def test_link_status_for_each_state_of_the_link() -> None:
    unlinked = build_link_status(lang="en", link=None, embedded=False, service_up=True)
    assert unlinked.text.splitlines()[0] == t("status.unlinked", "en")
    linked = build_link_status(lang="en", link=_link(), embedded=False, service_up=True)
    assert linked.text.splitlines()[0].startswith(":link:")
    # The fallback (shown where the token cannot be) is a readable date, never the epoch.
    assert "<!date^1700000000^{date_short_pretty} {time}|Nov 14, 2023, 10:13\u202fPM UTC>" in (
        linked.text
    )
    expired = _link(state="expired", expired_at=1_700_000_500, expired_reason="rejected")
    message = build_link_status(lang="de", link=expired, embedded=False, service_up=True)
    assert "<!date^1700000500^" in message.text and message.text.startswith(":warning:")
    unreadable = _link(state="expired", expired_at=1_700_000_500, expired_reason="unreadable")
    message = build_link_status(lang="en", link=unreadable, embedded=False, service_up=True)
    assert message.text.splitlines()[0] == t("status.unreadable", "en")


def test_link_status_says_which_service_and_whether_it_answers() -> None:
    embedded = build_link_status(lang="en", link=None, embedded=True, service_up=True)
    mode = t("status.mode_embedded", "en")
    assert embedded.text.splitlines()[-1] == t("status.workspace_ok", "en", mode=mode)
    down = build_link_status(lang="en", link=None, embedded=True, service_up=False)
    assert down.text.splitlines()[-1] == t("status.workspace_down", "en")


def test_held_gone_and_only_author() -> None:
    assert "30" in build_held_gone(lang="en", days=30).text
    assert "<@U0BOB>" in build_only_author(lang="de", author="U0BOB").text


def test_brief_loading_modal_is_the_brief_modal_saying_it_loads() -> None:
    loading = build_brief_loading_modal(lang="en")
    assert loading["callback_id"] == ids.VIEW_BRIEF and "submit" not in loading
    assert _text(loading) == t("brief.loading", "en")
    empty = build_brief_modal(lang="en", segments=[], use_cases=[])
    assert {k: v for k, v in loading.items() if k != "blocks"} == {
        k: v for k, v in empty.items() if k != "blocks"
    }


def test_refine_note_names_the_variant_else_the_newest_turn() -> None:
    assert refine_note(lang="en", variant=None, newest_turn=None) is None
    assert refine_note(lang="en", variant=2, newest_turn=None) == t(
        "refine.note_variant", "en", n=2
    )
    assert refine_note(lang="en", variant=None, newest_turn=4) == t("refine.note_newest", "en", n=4)
    # A chosen variant is what the modal refines, even when an older turn was pressed.
    assert refine_note(lang="de", variant=3, newest_turn=4) == t("refine.note_variant", "de", n=3)
