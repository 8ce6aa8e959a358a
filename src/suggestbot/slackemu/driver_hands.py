"""The driver's hands on messages and modals: pressing buttons, picking options, filling and
submitting a modal, closing it.

Each action sends the ``block_actions``, ``block_suggestion``, ``view_submission`` or
``view_closed`` Slack would send for what the person can see (their own ephemeral messages,
their own modals and Home), and applies the app's answer to a submission the way Slack does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from suggestbot.slackemu import forms, payloads, submission
from suggestbot.slackemu.errors import ApiError, DriverError
from suggestbot.slackemu.finding import find_button, find_select_option
from suggestbot.slackemu.model import Channel, StoredView, User
from suggestbot.slackemu.results import AppResponse, ViewSubmission

if TYPE_CHECKING:
    from suggestbot.slackemu.emulator import SlackEmulator
    from suggestbot.slackemu.workspace import Workspace

_FORM = "application/x-www-form-urlencoded"


class Interactions:
    """Mixed into :class:`~suggestbot.slackemu.driver.SlackDriver`, which provides the rest."""

    if TYPE_CHECKING:
        emu: SlackEmulator

        @property
        def _ws(self) -> Workspace: ...

        def send(self, body: bytes, *, content_type: str) -> AppResponse: ...

        def _person_in(self, user_id: str, channel_id: str) -> tuple[User, Channel]: ...

    # -- buttons -------------------------------------------------------------------------
    def press_button(
        self, message_or_view: Mapping[str, Any], text: str, *, user_id: str
    ) -> AppResponse:
        """Press the button labelled ``text`` in a message or a view.

        Args:
            message_or_view: a message from ``emu.messages()`` / ``emu.ephemerals()`` (any
                dict with ``channel`` and ``ts``), or a view from ``emu.current_view()`` /
                ``emu.home_view()``.
            text: the button's visible label.
            user_id: who presses it; they must be able to see it.
        """
        if message_or_view.get("type") in ("modal", "home") and "id" in message_or_view:
            return self._press_in_view(str(message_or_view["id"]), text, user_id)
        return self._press_in_message(message_or_view, text, user_id)

    def pick_option(
        self,
        message: Mapping[str, Any],
        text: str,
        *,
        user_id: str,
        placeholder: str | None = None,
    ) -> AppResponse:
        """Pick the option labelled ``text`` in a static select of a message or of an App Home
        view (the select whose placeholder is ``placeholder``, when several offer it)."""

        def choose(blocks: list[dict[str, Any]]) -> dict[str, Any]:
            block, element, option = find_select_option(blocks, text=text, placeholder=placeholder)
            # shape: Slack docs, block_actions payload ("actions" of a static_select)
            action: dict[str, Any] = {
                "type": "static_select",
                "action_id": element["action_id"],
                "block_id": block["block_id"],
                "selected_option": option,
                "action_ts": f"{self._ws.wall_clock():.6f}",
            }
            if "placeholder" in element:
                action["placeholder"] = element["placeholder"]
            return action

        if message.get("type") == "home" and "id" in message:
            return self._act_in_view(str(message["id"]), user_id, choose)
        return self._act_on_message(message, user_id, choose)

    def _press_in_message(self, message: Mapping[str, Any], text: str, user_id: str) -> AppResponse:
        return self._act_on_message(
            message, user_id, lambda blocks: self._button_action(*find_button(blocks, text=text))
        )

    def _act_on_message(
        self,
        message: Mapping[str, Any],
        user_id: str,
        choose: Callable[[list[dict[str, Any]]], dict[str, Any]],
    ) -> AppResponse:
        """Send ``block_actions`` for the element ``choose`` picks from the message's blocks
        (it returns the payload's action)."""
        channel_id, ts = message.get("channel"), message.get("ts")
        if not isinstance(channel_id, str) or not isinstance(ts, str):
            raise DriverError("pass a message from emu.messages() or emu.ephemerals()")
        ws = self._ws
        with ws.lock:
            user, channel = self._person_in(user_id, channel_id)
            full_message: dict[str, Any] | None = None
            thread_ts: str | None = None
            if message.get("is_ephemeral"):
                ephemeral = ws.find_ephemeral(channel_id, ts)
                if ephemeral is None or ephemeral.deleted or ephemeral.user_id != user.id:
                    raise DriverError(f"{user.name} cannot see that ephemeral message")
                blocks, thread_ts = ephemeral.blocks, ephemeral.thread_ts
            else:
                try:
                    stored = ws.message(channel_id, ts)
                except ApiError:
                    raise DriverError("that message is gone") from None
                blocks, thread_ts = stored.blocks, stored.thread_ts
                full_message = stored.to_api(
                    include_metadata=False, parent_user=ws.parent_user(stored)
                )
            action = choose(blocks or [])
            container: dict[str, Any] = {
                "type": "message",
                "message_ts": ts,
                "channel_id": channel_id,
                "is_ephemeral": bool(message.get("is_ephemeral")),
            }
            if thread_ts:
                container["thread_ts"] = thread_ts
            payload = payloads.block_actions(
                user=user,
                team_id=self.emu.team_id,
                team_domain=self.emu.team_domain,
                container=container,
                trigger_id=ws.issue_trigger(user.id),
                action=action,
                channel=channel,
                message=full_message,
                response_url=ws.issue_response_url(
                    kind="actions",
                    user_id=user.id,
                    channel_id=channel_id,
                    message_ts=ts,
                    message_is_ephemeral=bool(message.get("is_ephemeral")),
                    thread_ts=thread_ts,
                ),
            )
        return self.send(payloads.interactive_form(payload), content_type=_FORM)

    def _press_in_view(self, view_id: str, text: str, user_id: str) -> AppResponse:
        return self._act_in_view(
            view_id, user_id, lambda blocks: self._button_action(*find_button(blocks, text=text))
        )

    def _act_in_view(
        self,
        view_id: str,
        user_id: str,
        choose: Callable[[list[dict[str, Any]]], dict[str, Any]],
    ) -> AppResponse:
        """Send ``block_actions`` for the element ``choose`` picks from the view's blocks."""
        ws = self._ws
        with ws.lock:
            user = ws.user(user_id)
            stored = self._own_view(view_id, user.id)
            view = stored.to_api()
            payload = payloads.block_actions(
                user=user,
                team_id=self.emu.team_id,
                team_domain=self.emu.team_domain,
                container={"type": "view", "view_id": view_id},
                trigger_id=ws.issue_trigger(user.id),
                action=choose(view["blocks"]),
                view=view,
            )
        return self.send(payloads.interactive_form(payload), content_type=_FORM)

    def _button_action(self, block: dict[str, Any], button: dict[str, Any]) -> dict[str, Any]:
        # shape: "actions" of bolt-python tests/scenario_tests/test_block_actions.py
        action: dict[str, Any] = {
            "action_id": button["action_id"],
            "block_id": block["block_id"],
            "text": button["text"],
            "type": "button",
            "action_ts": f"{self._ws.wall_clock():.6f}",
        }
        for key in ("value", "style", "url"):
            if key in button:
                action[key] = button[key]
        return action

    # -- modals --------------------------------------------------------------------------
    def open_view(self, user_id: str) -> dict[str, Any]:
        """The modal the app opened for ``user_id`` (the top of the stack)."""
        view = self.emu.current_view(user_id)
        if view is None:
            raise DriverError(f"no modal is open for {user_id}")
        return view

    def submit_view(
        self, user_id: str, values_by_label: Mapping[str, forms.Value] | None = None
    ) -> ViewSubmission:
        """Fill the open modal's inputs by label, press submit, apply the app's answer."""
        ws = self._ws
        with ws.lock:
            user = ws.user(user_id)
            top = self._top_modal(user.id)
            view = top.to_api()
            if view.get("submit") is None:
                raise DriverError("this modal has no submit button")
        state = forms.fill(
            view, values_by_label or {}, options_loader=self._options_loader(user, view)
        )
        with ws.lock:
            top.state_values = state
            view = top.to_api()
            trigger_id = ws.issue_trigger(user.id)
        payload = payloads.view_submission(
            user=user,
            team_id=self.emu.team_id,
            team_domain=self.emu.team_domain,
            trigger_id=trigger_id,
            view=view,
        )
        response = self.send(payloads.interactive_form(payload), content_type=_FORM)
        with ws.lock:
            return submission.apply_answer(ws, user.id, top, response)

    def close_view(self, user_id: str, *, clear: bool = False) -> AppResponse | None:
        """Press Cancel (or ✕ with ``clear=True``); ``view_closed`` goes out only when the
        view asked for it with ``notify_on_close``."""
        ws = self._ws
        with ws.lock:
            user = ws.user(user_id)
            stack = ws.modal_stacks.get(user.id) or []
            if not stack:
                raise DriverError(f"no modal is open for {user_id}")
            top = stack[-1]
            view = top.to_api()
            if clear:
                stack.clear()
            else:
                stack.pop()
        if not view.get("notify_on_close"):
            return None
        payload = payloads.view_closed(
            user=user,
            team_id=self.emu.team_id,
            team_domain=self.emu.team_domain,
            view=view,
            is_cleared=clear,
        )
        return self.send(payloads.interactive_form(payload), content_type=_FORM)

    def _options_loader(self, user: User, view: dict[str, Any]) -> forms.OptionsLoader:
        def load(block_id: str, action_id: str, typed: str) -> list[dict[str, Any]]:
            payload = payloads.block_suggestion(
                user=user,
                team_id=self.emu.team_id,
                team_domain=self.emu.team_domain,
                view=view,
                block_id=block_id,
                action_id=action_id,
                value=typed,
            )
            response = self.send(payloads.interactive_form(payload), content_type=_FORM)
            answer = response.json() if response.status == 200 else None
            if not isinstance(answer, dict):
                raise DriverError(f"options request answered HTTP {response.status}")
            if "options" in answer:
                return list(answer["options"])
            return [o for g in answer.get("option_groups", []) for o in g.get("options", [])]

        return load

    def _top_modal(self, user_id: str) -> StoredView:
        stack = self._ws.modal_stacks.get(user_id) or []
        if not stack:
            raise DriverError(f"no modal is open for {user_id}")
        return stack[-1]

    def _own_view(self, view_id: str, user_id: str) -> StoredView:
        for view in self._ws.modal_stacks.get(user_id) or []:
            if view.id == view_id:
                return view
        home = self._ws.home_views.get(user_id)
        if home is not None and home.id == view_id:
            return home
        raise DriverError(f"view {view_id} is not open for {user_id}")
