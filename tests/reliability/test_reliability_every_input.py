"""SIGKILL straight after the ack of every declared input that starts work: each is carried out
exactly once after the restart — slash commands included.

The inputs come from the app's own table (``slackapp.inputs``), so a new input is in this test
the day it is declared: one that starts work (not read-only) and that this file cannot send
fails :func:`test_every_input_that_starts_work_can_be_sent_here`. Each input is sent by its own
person, all at once, against the app running as its own process with its work frozen at the
named point right after a recorded ack (``SUGGESTBOT_FREEZE_AT=interaction_acked``); every one
is answered 200, the process is SIGKILLed, and started again unfrozen. Then, for each input,
the app's log says its work was carried out exactly once over both processes, nothing recorded
is left unfinished, and what a person sees for the commands and modals is there once.

Buttons are sent from a message of the bot holding a button with the input's action id (the
press reaches the app exactly as Slack sends it; what the button's value names need not
exist); modals are opened as the app opens them. Inputs that open a modal are not held at the
crash point (their trigger lives 3 s): they count once whether their modal opened before the
kill or the person was asked to press again after it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from reliability_harness import (
    ProcessStage,
    StageFactory,
    poll,
    wait_for,
    wait_quiet,
)
from slack_sdk import WebClient

from suggestbot.flows.rename.thread_name import rename_metadata
from suggestbot.flows.workflow import step as workflow_step
from suggestbot.slackapp import inputs
from suggestbot.slackapp.edge.declaration import (
    Action,
    Command,
    Event,
    Function,
    Input,
    Shortcut,
    View,
)
from suggestbot.slackemu.forms import input_blocks
from suggestbot.slackemu.results import AppResponse
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.feedback import build_reason_modal
from suggestbot.ui.blocks.thread_modals import build_rename_modal
from suggestbot.ui.messages import t

FREEZE = "interaction_acked"
SETTLE_TIMEOUT_S = 90.0
WRITER = "U0WRITER"
# What each command is sent with (its first word is the input's own).
COMMAND_TEXT = {
    "brief_command": "[c-brief] Email for the spring fair",
    "digest": "list",
    "inspire": "",
}
# Inputs of a single-workspace install that stop the whole workspace: sent in a stage of
# their own (``test_an_uninstall_…``), not among the others.
WHOLE_WORKSPACE = {"uninstalled"}


def starts_work() -> list[Input]:
    """Every input of a single-workspace install that is recorded before its ack."""
    return [i for i in inputs.one_workspace() if not i.read_only]


def user_of(name: str) -> str:
    return "U0IN" + re.sub(r"[^A-Z0-9]", "", name.upper())[:12]


@dataclass
class Sent:
    name: str
    user: str
    fire: Callable[[], bool]  # sends it; whether the app answered 200 (and no refusal)
    acked: bool = False


def an_action_id(action: Action) -> str:
    """An action id the declaration takes (a pattern's first numbered one)."""
    if isinstance(action.action, str):
        return action.action
    example = re.sub(r"\\\.\\d\+", ".1", action.action.pattern).strip("^$").replace("\\", "")
    assert action.takes(example), example
    return example


def bot_client(stage: ProcessStage) -> WebClient:
    return WebClient(token=stage.emu.bot_token, base_url=stage.emu.api_url)


def button_message(stage: ProcessStage, action_id: str, value: str) -> dict[str, Any]:
    """A bot message in the channel with one button ``action_id`` carrying ``value``."""
    posted: Any = bot_client(stage).chat_postMessage(
        channel=stage.channel,
        text="a button",
        blocks=[
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": f"Press {action_id}"},
                        "action_id": action_id,
                        "value": value,
                    }
                ],
            }
        ],
    )
    return next(m for m in stage.emu.messages(stage.channel) if m["ts"] == posted["ts"])


def fill_in(view: dict[str, Any], *, token: str | None = None) -> dict[str, Any]:
    """A value for every input of ``view`` that has none yet, by label."""
    values: dict[str, Any] = {}
    for label, block in input_blocks(view).items():
        element = block["element"]
        kind = element.get("type")
        if element.get("initial_value") or element.get("initial_option"):
            continue
        if kind == "timepicker":
            values[label] = str(element.get("initial_time") or "09:00")
            continue
        if element.get("initial_options"):
            continue
        options = element.get("options") or [
            o for g in element.get("option_groups") or [] for o in g["options"]
        ]
        if kind == "plain_text_input":
            values[label] = token if token and block["block_id"] == ids.INPUT_TOKEN else "[x] ok"
        elif kind in ("static_select", "radio_buttons") and options:
            values[label] = options[0]["text"]["text"]
        elif kind == "checkboxes" and options:
            values[label] = [options[0]["text"]["text"]]
        elif kind == "number_input":
            values[label] = "1"
    return values


def submitter(stage: ProcessStage, user: str, *, token: str | None = None) -> Callable[[], bool]:
    def fire() -> bool:
        view = stage.emu.current_view(user) or {}
        answer = stage.slack.submit_view(user, fill_in(view, token=token))
        return answer.response.status == 200 and not answer.errors

    return fire


def answered(response: AppResponse | None) -> bool:
    return response is not None and response.status == 200


def modal_of(stage: ProcessStage, user: str, callback_id: str) -> dict[str, Any]:
    return wait_for(
        lambda: (
            view
            if (view := stage.emu.current_view(user) or {}).get("callback_id") == callback_id
            and view.get("submit") is not None
            else None
        ),
        what=f"{user}'s {callback_id} modal",
    )


class World:
    """The stage, and what the inputs are sent against: the writer's ready brief thread."""

    def __init__(self, stage: ProcessStage) -> None:
        self.stage = stage
        stage.emu.add_user(WRITER, "writer", locale="en-US")
        stage.emu.join(stage.channel, WRITER)
        stage.connect(WRITER)
        stage.brief(WRITER, "[w] Email for the autumn trail days", variants=1)
        self.root = wait_for(
            lambda: next(
                (
                    m
                    for m in stage.emu.messages(stage.channel)
                    if "are ready" in str(m.get("text")) or "is ready" in str(m.get("text"))
                ),
                None,
            ),
            what="the writer's brief",
        )
        self.thread_ts = str(self.root["ts"])

    def person(self, name: str, *, linked: bool = True) -> str:
        user = user_of(name)
        self.stage.emu.add_user(user, user.lower(), locale="en-US")
        self.stage.emu.join(self.stage.channel, user)
        if linked:
            self.stage.connect(user)
        return user

    def prepare(self, declared: Input) -> Sent:
        """Set up what ``declared`` needs (the app not frozen yet) and how to send it."""
        stage, name, m = self.stage, declared.name, declared.matches
        linked = name not in ("connect", "connect_submitted", "connect_button")
        user = self.person(name, linked=linked)
        if isinstance(m, Command):
            text = f"{m.sub} {COMMAND_TEXT.get(name, '')}".strip()
            return Sent(
                name,
                user,
                lambda: answered(stage.slack.slash_command(user, stage.channel, text)),
            )
        if isinstance(m, Action):
            message = button_message(stage, an_action_id(m), f"[{name}]")
            label = f"Press {an_action_id(m)}"
            return Sent(
                name,
                user,
                lambda: answered(stage.slack.press_button(message, label, user_id=user)),
            )
        if isinstance(m, View):
            return Sent(name, user, self._open_modal(m.callback_id, user))
        if isinstance(m, Shortcut):
            variant = stage.emu.messages(stage.channel, thread_ts=self.thread_ts)[1]
            return Sent(
                name,
                user,
                lambda: answered(
                    stage.slack.use_message_shortcut(variant, m.callback_id, user_id=user)
                ),
            )
        if isinstance(m, Function):
            return Sent(name, user, lambda: self._run_step(user))
        if isinstance(m, Event):
            return Sent(name, user, self._event(name, m, user))
        raise AssertionError(f"no way to send {name}")

    def _open_modal(self, callback_id: str, user: str) -> Callable[[], bool]:
        stage = self.stage
        if callback_id == ids.VIEW_CONNECT:
            stage.slack.slash_command(user, stage.channel, "connect")
            modal_of(stage, user, callback_id)
            return submitter(stage, user, token=stage.user_token())
        if callback_id in (ids.VIEW_BRIEF, ids.VIEW_DRAFT, ids.VIEW_DIGEST_ADD):
            word = {ids.VIEW_BRIEF: "brief", ids.VIEW_DRAFT: "draft"}.get(callback_id, "digest add")
            stage.slack.slash_command(user, stage.channel, word)
        elif callback_id == ids.VIEW_REFINE:
            variant = stage.emu.messages(stage.channel, thread_ts=self.thread_ts)[1]
            stage.slack.press_button(variant, t("refine.button", "en"), user_id=user)
        elif callback_id == ids.VIEW_RENAME:
            metadata = rename_metadata(channel=stage.channel, thread_ts=self.thread_ts)
            view = build_rename_modal(lang="en", private_metadata=metadata)
            bot_client(stage).views_open(trigger_id=stage.emu.issue_trigger(user), view=view)
        elif callback_id == ids.VIEW_FEEDBACK_REASON:
            view = build_reason_modal(lang="en", value="nothing:1")
            bot_client(stage).views_open(trigger_id=stage.emu.issue_trigger(user), view=view)
        else:
            raise AssertionError(f"no way to open the modal {callback_id}: add one here")
        modal_of(stage, user, callback_id)
        return submitter(stage, user)

    def _run_step(self, user: str) -> bool:
        step = self.stage.slack.run_workflow_step(
            workflow_step.CALLBACK_ID,
            inputs={"brief": "[step] Post", "channel": self.stage.channel, "user": user},
            user_id=user,
        )
        return answered(step.delivery)

    def _event(self, name: str, m: Event, user: str) -> Callable[[], bool]:
        stage = self.stage
        if name == "thread_reply":
            return lambda: answered(
                stage.slack.post_user_message(
                    user, stage.channel, "[reply] shorter, please", thread_ts=self.thread_ts
                ).delivery
            )
        if name == "composer_brief":
            return lambda: answered(
                stage.slack.message_in_messages_tab(user, "[dm] Teaser for the fair").delivery
            )
        if name == "tokens_revoked":
            return lambda: answered(stage.slack.revoke_tokens(user_ids=(user,)))
        raise AssertionError(f"no way to send the event input {name}: add one here")


def carried_out(stage: ProcessStage, since: dict[str, int] | None = None) -> dict[str, int]:
    """How often the app's log says each input's work was carried out (over every start),
    beyond the counts ``since``."""
    counts: dict[str, int] = {}
    for found in re.findall(r"carrying out input (\w+)", stage.log_text()):
        counts[found] = counts.get(found, 0) + 1
    return {k: v - (since or {}).get(k, 0) for k, v in counts.items()}


def test_every_input_that_starts_work_can_be_sent_here() -> None:
    """The table below covers every declared input that starts work: a new one must be added
    to the SIGKILL test (or declared read-only, which ``test_inputs`` reviews)."""
    sendable = (Command, Action, View, Shortcut, Function)
    events = {"thread_reply", "composer_brief", "tokens_revoked", *WHOLE_WORKSPACE}
    for declared in starts_work():
        m = declared.matches
        assert isinstance(m, sendable) or declared.name in events, declared.name
        if isinstance(m, View):
            assert m.callback_id in (
                ids.VIEW_CONNECT,
                ids.VIEW_BRIEF,
                ids.VIEW_DRAFT,
                ids.VIEW_DIGEST_ADD,
                ids.VIEW_REFINE,
                ids.VIEW_RENAME,
                ids.VIEW_FEEDBACK_REASON,
            ), declared.name


@pytest.mark.timeout(420)
def test_every_input_is_carried_out_once_after_a_sigkill_straight_after_its_ack(
    process_stage: StageFactory,
) -> None:
    stage = process_stage("every-input")
    world = World(stage)
    declared = [i for i in starts_work() if i.name not in WHOLE_WORKSPACE]
    sent = [world.prepare(i) for i in declared]
    stage.stop_app()
    stage.freeze_at = FREEZE
    stage.start_app()
    baseline = carried_out(stage)  # what setting the stage carried out
    with ThreadPoolExecutor(max_workers=8) as pool:
        acks = list(pool.map(lambda s: s.fire(), sent))
    for s, ok in zip(sent, acks, strict=True):
        s.acked = ok
    assert [s.name for s in sent if not s.acked] == []
    # Every held input has reached the crash point (or, opening a modal, done its work).
    wait_quiet(lambda: stage.log_text().count(f"work frozen at {FREEZE}"), settle_s=1.0)
    before_kill = {k: v for k, v in carried_out(stage, baseline).items() if v}
    held = [i.name for i in declared if not i.opens_modal and i.name not in before_kill]
    assert held, "nothing was held at the crash point: the test would prove nothing"
    stage.kill_app()
    stage.freeze_at = None
    stage.start_app()
    names = [i.name for i in declared]
    poll(
        lambda: all(carried_out(stage, baseline).get(n, 0) >= 1 for n in names),
        timeout=SETTLE_TIMEOUT_S,
    )
    wait_quiet(lambda: len(stage.emu.calls()), settle_s=2.0, timeout=60, what="Slack calls")
    counts = carried_out(stage, baseline)
    assert {n: counts.get(n, 0) for n in names} == dict.fromkeys(names, 1), stage.log_tail()
    print(f"\n{len(names)} inputs sent, {len(held)} held at {FREEZE} when SIGKILLed:", held)


@pytest.mark.timeout(180)
def test_an_uninstall_is_carried_out_once_after_a_sigkill_straight_after_its_ack(
    process_stage: StageFactory,
) -> None:
    """``app_uninstalled`` stops the whole workspace, so it is sent in a stage of its own.
    Only the event is sent: after a real uninstall the bot token is revoked, and a
    single-workspace app starts again only with a new one."""
    assert {i.name for i in starts_work()} >= WHOLE_WORKSPACE
    stage = process_stage("uninstall")
    stage.stop_app()
    stage.freeze_at = FREEZE
    stage.start_app()
    baseline = carried_out(stage)
    assert answered(stage.slack.event({"type": "app_uninstalled", "event_ts": "1700000000.1"}))
    poll(lambda: f"work frozen at {FREEZE}" in stage.log_text(), timeout=SETTLE_TIMEOUT_S)
    assert carried_out(stage, baseline).get("uninstalled", 0) == 0
    stage.kill_app()
    stage.freeze_at = None
    stage.start_app()
    said = "the app was uninstalled from workspace"
    poll(lambda: said in stage.log_text(), timeout=SETTLE_TIMEOUT_S)
    wait_quiet(lambda: stage.log_text().count(said), settle_s=2.0, timeout=30)
    assert carried_out(stage, baseline).get("uninstalled") == 1
    assert stage.log_text().count(said) == 1
