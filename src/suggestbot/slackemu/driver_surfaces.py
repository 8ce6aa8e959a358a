"""The driver's hands on Slack's AI-app surfaces: the app's Messages tab, suggested prompts,
feedback buttons, message shortcuts and Workflow Builder steps.

Each action sends what Slack sends, signed like every other request, and only what Slack
would send for the app's manifest when the emulator has one: the Messages tab must be enabled
(and writable to type in it), events only go out when subscribed, a message shortcut or a
workflow step must be declared. ``function_executed`` is delivered for a declared function
whether or not it is subscribed — it cannot be (see ``manifest``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from suggestbot.slackemu import payloads
from suggestbot.slackemu.emulator import SlackEmulator
from suggestbot.slackemu.errors import ApiError, DriverError
from suggestbot.slackemu.finding import find_feedback_buttons
from suggestbot.slackemu.model import APP_ID, Channel, User
from suggestbot.slackemu.results import AppResponse, PostedMessage, WorkflowStep
from suggestbot.slackemu.workspace import Workspace

_FORM = "application/x-www-form-urlencoded"


class _Driver(Protocol):
    emu: SlackEmulator

    @property
    def _ws(self) -> Workspace: ...

    def send(self, body: bytes, *, content_type: str) -> AppResponse: ...

    def event(self, event: dict[str, Any]) -> AppResponse: ...

    def post_user_message(
        self, user_id: str, channel_id: str, text: str, *, thread_ts: str | None = None
    ) -> PostedMessage: ...

    def _act_on_message(
        self, message: Mapping[str, Any], user_id: str, choose: Any
    ) -> AppResponse: ...

    def _person_in(self, user_id: str, channel_id: str) -> tuple[User, Channel]: ...

    def _subscribed(self, event: str) -> bool: ...


class AgentSurfaces:
    """Mixed into :class:`~suggestbot.slackemu.driver.SlackDriver`."""

    def open_messages_tab(self: _Driver, user_id: str) -> AppResponse | None:
        """A person opens the app's Messages tab: ``app_home_opened`` with ``tab: messages``
        (None when the app does not subscribe to it)."""
        _messages_tab(self._ws, writable=False)
        with self._ws.lock:
            dm = self._ws.open_dm(self._ws.user(user_id).id)
            event = payloads.app_home_opened_event(
                user_id=user_id,
                dm_channel_id=dm.id,
                event_ts=self._ws.ts_clock.next_ts(),
                view=None,
                tab="messages",
            )
        return self.event(event) if self._subscribed("app_home_opened") else None

    def message_in_messages_tab(
        self: _Driver, user_id: str, text: str, *, thread_ts: str | None = None
    ) -> PostedMessage:
        """A person writes to the app in its Messages tab (a ``message.im`` event)."""
        _messages_tab(self._ws, writable=True)
        with self._ws.lock:
            dm = self._ws.open_dm(self._ws.user(user_id).id)
        return self.post_user_message(user_id, dm.id, text, thread_ts=thread_ts)

    def pick_suggested_prompt(
        self: _Driver, user_id: str, title: str, *, thread_ts: str | None = None
    ) -> PostedMessage:
        """A person clicks the suggested prompt titled ``title``: Slack sends its message as
        that person in the Messages tab (in the thread it was set for, if any)."""
        _messages_tab(self._ws, writable=True)
        with self._ws.lock:
            dm = self._ws.open_dm(self._ws.user(user_id).id)
        prompts = self.emu.suggested_prompts(dm.id, thread_ts)
        offered = [p["title"] for p in (prompts or {}).get("prompts", [])]
        chosen = [p["message"] for p in (prompts or {}).get("prompts", []) if p["title"] == title]
        if not chosen:
            raise DriverError(f"no suggested prompt {title!r}; offered: {offered!r}")
        return self.post_user_message(user_id, dm.id, chosen[0], thread_ts=thread_ts)

    def press_feedback(
        self: _Driver,
        message: Mapping[str, Any],
        *,
        positive: bool,
        user_id: str,
        action_id: str | None = None,
    ) -> AppResponse:
        """Press 👍 (``positive``) or 👎 of the feedback buttons on a message; the app gets
        ``block_actions`` carrying the pressed button's value."""
        which = "positive_button" if positive else "negative_button"
        ts = self._ws.wall_clock

        def choose(blocks: list[dict[str, Any]]) -> dict[str, Any]:
            block, element = find_feedback_buttons(blocks, action_id=action_id)
            button = element[which]
            # shape: bolt-js FeedbackButtonsAction (type, action_id, block_id, value, text)
            return {
                "type": "feedback_buttons",
                "action_id": element["action_id"],
                "block_id": block["block_id"],
                "value": button["value"],
                "text": button["text"],
                "action_ts": f"{ts():.6f}",
            }

        return self._act_on_message(message, user_id, choose)

    def use_message_shortcut(
        self: _Driver, message: Mapping[str, Any], callback_id: str, *, user_id: str
    ) -> AppResponse:
        """A person picks the app's message shortcut ``callback_id`` from a message's menu."""
        ws = self._ws
        manifest = ws.manifest
        if manifest is not None and callback_id not in manifest.message_shortcuts:
            declared = sorted(manifest.message_shortcuts)
            raise DriverError(f"no message shortcut {callback_id!r}; declared: {declared!r}")
        channel_id, ts = message.get("channel"), message.get("ts")
        if not isinstance(channel_id, str) or not isinstance(ts, str):
            raise DriverError("pass a message from emu.messages()")
        with ws.lock:
            user, channel = self._person_in(user_id, channel_id)
            try:
                stored = ws.message(channel.id, ts)
            except ApiError:
                raise DriverError("that message is gone") from None
            payload = payloads.message_action(
                user=user,
                team_id=self.emu.team_id,
                team_domain=self.emu.team_domain,
                channel=channel,
                callback_id=callback_id,
                trigger_id=ws.issue_trigger(user.id),
                # The shortcut's message is not the app's: its response_url cannot replace it.
                response_url=ws.issue_response_url(
                    kind="app", user_id=user.id, channel_id=channel.id
                ),
                message=stored.to_api(parent_user=ws.parent_user(stored)),
                action_ts=f"{ws.wall_clock():.6f}",
            )
        return self.send(payloads.interactive_form(payload), content_type=_FORM)

    def run_workflow_step(
        self: _Driver, callback_id: str, *, inputs: Mapping[str, Any], user_id: str
    ) -> WorkflowStep:
        """A workflow that uses the app's step ``callback_id`` runs: Slack starts an execution
        and sends ``function_executed`` with a token valid until the step completes."""
        ws = self._ws
        manifest = ws.manifest
        if manifest is None or callback_id not in manifest.functions:
            declared = sorted(manifest.functions) if manifest else []
            raise DriverError(f"no workflow step {callback_id!r}; declared: {declared!r}")
        spec = manifest.functions[callback_id]
        problems = spec.input_problems(inputs)
        if problems:
            raise DriverError("Workflow Builder would not run the step: " + "; ".join(problems))
        with ws.lock:
            ws.user(user_id)
            execution = ws.function_executions.start(
                spec=spec, inputs=dict(inputs), user_id=user_id, ids=ws.ids
            )
            now = int(ws.wall_clock())
            function = {
                "id": f"Fn{execution.id[2:]}",
                "callback_id": spec.callback_id,
                "title": spec.title,
                "description": spec.description,
                "type": "app",
                "input_parameters": [p.to_event() for p in spec.inputs],
                "output_parameters": [p.to_event() for p in spec.outputs],
                "app_id": APP_ID,
                "date_created": now,
                "date_updated": now,
                "date_deleted": 0,
            }
            event = payloads.function_executed_event(
                function=function,
                inputs=dict(inputs),
                function_execution_id=execution.id,
                workflow_execution_id=execution.workflow_execution_id,
                event_ts=ws.ts_clock.next_ts(),
                bot_access_token=execution.token,
            )
        return WorkflowStep(execution.id, self.event(event))


def _messages_tab(ws: Workspace, *, writable: bool) -> None:
    manifest = ws.manifest
    if manifest is None:
        return
    if not manifest.messages_tab_enabled:
        raise DriverError("the app has no Messages tab (features.app_home.messages_tab_enabled)")
    if writable and manifest.messages_tab_read_only:
        raise DriverError("the app's Messages tab is read-only for people")
