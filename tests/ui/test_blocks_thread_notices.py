"""Notices of the thread tools (rename, draft) and of the lists, in English and German: the
words a person sees and the button offered to try again."""

from __future__ import annotations

import pytest

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.drafts import build_draft_elsewhere, build_draft_problem, draft_context
from suggestbot.ui.blocks.lists import build_list_notice
from suggestbot.ui.blocks.rename import (
    RenameProblem,
    build_rename_problem,
    build_rename_refused,
    build_renamed,
)
from suggestbot.ui.blocks.results import Message


def _section(message: Message) -> str:
    assert message.blocks[0]["text"]["text"] == message.text
    return message.text


def _buttons(message: Message) -> list[tuple[str, str, str]]:
    return [
        (e["action_id"], e["value"], e["text"]["text"])
        for b in message.blocks
        if b["type"] == "actions"
        for e in b["elements"]
    ]


@pytest.mark.parametrize(
    ("lang", "connect", "expired", "unavailable"),
    [
        ("en", "Connect your content service account first", "no longer accepts your token",
         "could not be reached"),
        ("de", "Verknüpfe zuerst dein Konto", "akzeptiert dein Token nicht mehr",
         "war nicht erreichbar"),
    ],
)  # fmt: skip
def test_a_list_that_cannot_be_shown_says_why(
    lang: str, connect: str, expired: str, unavailable: str
) -> None:
    assert connect in _section(build_list_notice(lang=lang, notice="connect"))
    assert expired in _section(build_list_notice(lang=lang, notice="expired"))
    assert "`/suggest connect`" in build_list_notice(lang=lang, notice="expired").text
    assert unavailable in _section(build_list_notice(lang=lang, notice="unavailable"))
    assert _buttons(build_list_notice(lang=lang, notice="connect")) == []


@pytest.mark.parametrize(
    ("lang", "expired", "not_found", "failed", "draft", "elsewhere"),
    [
        ("en", "no longer accepts your token", "does not know that item",
         "did not save the draft", "draft", "Your draft from <#C1>"),
        ("de", "akzeptiert dein Token nicht mehr", "kennt dieses Element nicht",
         "hat den Entwurf nicht gespeichert", "Entwurf", "Dein Entwurf aus <#C1>"),
    ],
)  # fmt: skip
def test_a_draft_says_why_it_was_not_saved_and_where_it_went(
    lang: str, expired: str, not_found: str, failed: str, draft: str, elsewhere: str
) -> None:
    assert expired in _section(build_draft_problem(lang=lang, problem="expired"))
    assert not_found in _section(build_draft_problem(lang=lang, problem="not_found"))
    text = _section(build_draft_problem(lang=lang, problem="failed", code="http_502"))
    assert failed in text and "`http_502`" in text and "`/suggest draft`" in text
    context = draft_context(lang=lang, segment="Weekend Hikers", use_case="Spring Launch")
    assert context == f"Weekend Hikers · Spring Launch · {draft}"
    note = build_draft_elsewhere(lang=lang, channel_id="C1")
    assert note.text.startswith(elsewhere) and note.blocks == []


@pytest.mark.parametrize(
    ("lang", "done", "refused", "too_long", "again"),
    [
        ("en", "The thread is now called *Tent &lt;launch&gt;*.",
         "did not accept the name “Tent &lt;launch&gt;”", "at most 60 characters",
         "Rename thread"),
        ("de", "Der Thread heißt jetzt *Tent &lt;launch&gt;*.",
         "hat den Namen „Tent &lt;launch&gt;“ nicht angenommen", "höchstens 60 Zeichen",
         "Thread umbenennen"),
    ],
)  # fmt: skip
def test_renaming_says_the_stored_name_or_why_not_with_the_modal_again(
    lang: str, done: str, refused: str, too_long: str, again: str
) -> None:
    assert _section(build_renamed(lang=lang, name="Tent <launch>")).endswith(done)
    message = build_rename_refused(
        lang=lang, name="Tent <launch>", code="thread_name_too_long", retry_key="C1:1.5"
    )
    assert refused in message.text and too_long in message.text
    assert _buttons(message) == [(ids.ACTION_RENAME_OPEN, "C1:1.5", again)]
    failed = build_rename_problem(lang=lang, problem="failed", retry_key="C1:1.5")
    assert _buttons(failed) == [(ids.ACTION_RENAME_OPEN, "C1:1.5", again)]
    quiet: list[RenameProblem] = ["connect", "no_thread_yet", "not_visible", "expired"]
    for problem in quiet:
        notice = build_rename_problem(lang=lang, problem=problem)
        assert notice.text and _buttons(notice) == []
    assert ":lock:" in build_rename_problem(lang=lang, problem="not_visible").text
