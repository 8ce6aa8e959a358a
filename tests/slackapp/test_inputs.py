"""The table of inputs: each declared once, read-only only after review, every other one
recorded before its ack — slash commands included — and carried out again from its record by
the same declaration (nothing registered for the replay by hand).

Through ``app.dispatch`` (see ``dispatch_helpers``): the process "dies" right after the ack
when the work handed to the background never runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from dispatch_helpers import ALICE, DiesAfterTheAck, Workspace, texts_of

from suggestbot.slackapp import inputs
from suggestbot.slackapp.edge.declaration import Command
from suggestbot.slackapp.edge.record import replay_unfinished
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t

# Reviewed: each of these changes nothing (no record, no setting, no request), so it is not
# recorded before its ack; a crash after the ack loses only an answer the person can ask again.
# Adding one here needs the same review.
READ_ONLY = {
    "help",
    "unknown_subcommand",
    "status",
    "threads",
    "runs",
    "list_more",
    "thread_history",
    "run_history",
    "show_instruction",
    "copy_text",
    "messages_tab_opened",
    "home_opened",
    "home_refresh",
}


def every_mode() -> list[Any]:
    many = inputs.many_workspaces(installations=None, contents=None)  # type: ignore[arg-type]
    return [*inputs.one_workspace(), *many]


@pytest.fixture
def ws() -> Iterator[Workspace]:
    workspace = Workspace()
    yield workspace
    workspace.close()


def test_the_read_only_inputs_are_the_reviewed_ones() -> None:
    assert {i.name for i in every_mode() if i.read_only} == READ_ONLY


def test_every_subcommand_is_declared_once() -> None:
    subs = [i.matches.sub for i in inputs.one_workspace() if isinstance(i.matches, Command)]
    assert len(subs) == len(set(subs))
    assert {"brief", "connect", "disconnect", "status", "draft", "inspire", "digest"} <= set(subs)
    assert None in subs  # any other word: the help with the word named


def test_a_slash_command_that_starts_work_is_recorded_before_its_ack(ws: Workspace) -> None:
    """Slack never resends a command it had an answer for: ``/suggest digest list`` whose
    process died right after the ack is carried out at the next start, once."""
    held = ws.deps.background
    ws.deps.background = DiesAfterTheAck()

    answer = ws.command("digest list")

    assert answer.status == 200 and answer.body == ""
    assert ws.deps.deliveries is not None
    assert len(ws.deps.deliveries.unfinished()) == 1
    assert ws.slack.made("chat.postEphemeral") == []
    ws.deps.background = held
    assert replay_unfinished(ws.deps, inputs.one_workspace()) == 1
    [told] = ws.slack.made("chat.postEphemeral")
    assert told["user"] == ALICE.id
    assert ws.deps.deliveries.unfinished() == []
    assert replay_unfinished(ws.deps, inputs.one_workspace()) == 0


def test_a_press_that_was_to_open_a_modal_asks_in_words_after_a_restart(ws: Workspace) -> None:
    """Its trigger expired with the process: no modal can open, so the person is asked to
    press again instead of seeing nothing."""
    ws.deps.background = DiesAfterTheAck()

    answer = ws.press(ids.ACTION_EDIT_RESEND, "some-request", message_ts="1.0")

    assert answer.status == 200
    ws.deps.background = None
    assert replay_unfinished(ws.deps, inputs.one_workspace()) == 1
    [told] = ws.slack.made("chat.postEphemeral")
    assert t("modal.press_again", "en") in texts_of(told["blocks"])
    assert ws.slack.made("views.open") == []


def test_a_command_that_was_to_open_a_modal_asks_to_send_it_again(ws: Workspace) -> None:
    ws.deps.background = DiesAfterTheAck()
    assert ws.command("connect").status == 200
    ws.deps.background = None
    assert replay_unfinished(ws.deps, inputs.one_workspace()) == 1
    [told] = ws.slack.made("chat.postEphemeral")
    assert t("modal.send_again", "en") in texts_of(told["blocks"])


def test_a_read_only_input_is_not_recorded(ws: Workspace) -> None:
    ws.deps.background = DiesAfterTheAck()
    assert ws.command("help").status == 200
    assert ws.deps.deliveries is not None and ws.deps.deliveries.unfinished() == []
