"""A person's link to their own account of the service: ``/suggest connect``, ``disconnect``,
``status``, [Connect account], the connect modal, and [Resend] for what they typed before.

The connect modal's token is checked before the ack when the service answers in time (a
refused token is shown next to the field), else after it (told in a message). A disconnect
takes effect before its ack: work after acks runs side by side (and on any replica), so a
status asked right after it must not find the link.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from suggestbot.flows.brief.modal import open_brief_modal
from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.flows.linking import accounts as linking
from suggestbot.flows.linking.accounts import LinkResult
from suggestbot.flows.refine import replies as refine
from suggestbot.slackapp.edge.answer import answer, ask_again, person
from suggestbot.slackapp.edge.declaration import (
    Action,
    Command,
    CommandGiven,
    Given,
    Input,
    Press,
    Refusal,
    Submission,
    View,
)
from suggestbot.slackapp.inputs.help import COMMAND
from suggestbot.store.records import KEEP_HELD
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.modals import MODAL_INPUT_MAX
from suggestbot.ui.blocks.notices import (
    build_connect_first,
    build_connect_outcome,
    build_disconnected,
    build_held_gone,
    build_link_status,
)

# How long the connect modal's submission waits for the token check before it acks.
CONNECT_CHECK_BUDGET_S = 2.0
# What keeps the modal open with an error next to the token (the rest is told after the ack).
_FIELD_ERRORS = (LinkResult.REJECTED, LinkResult.UNREACHABLE, LinkResult.EMPTY)


def connect_first(deps: Deps, given: Given) -> bool:
    """For an input that needs a linked account: tell an unlinked person to connect (with
    the button); True when they must."""
    if linking.is_linked(deps, team_id=given.team_id, user_id=given.user_id):
        return False
    answer(deps, given, build_connect_first(lang=deps.lang_of(given.user_id)))
    return True


def open_connect(deps: Deps, given: Given, *, held_id: str = "") -> None:
    """The connect modal, from the input's trigger."""
    assert given.trigger_id is not None
    linking.open_connect_modal(
        deps,
        trigger_id=given.trigger_id,
        user_id=given.user_id,
        held_id=held_id,
        channel_id=given.channel_id,
        response_url=given.response_url,
    )


def _connect_command(deps: Deps, given: CommandGiven) -> None:
    open_connect(deps, given)


def _unlink(deps: Deps, given: Given) -> bool:
    return linking.unlink(deps, team_id=given.team_id, user_id=given.user_id)


def _disconnect_before_ack(deps: Deps, given: CommandGiven) -> Callable[[], None]:
    removed = _unlink(deps, given)
    return lambda: _answer_disconnect(deps, given, removed=removed)


def _disconnect(deps: Deps, given: CommandGiven) -> None:
    """After a restart: the link was removed before the ack (unlinking again is a no-op), so
    the answer is that it is gone."""
    _unlink(deps, given)
    _answer_disconnect(deps, given, removed=True)


def _answer_disconnect(deps: Deps, given: CommandGiven, *, removed: bool) -> None:
    lang = deps.lang_of(given.user_id)
    answer(deps, given, build_disconnected(lang=lang, removed=removed))
    if removed:
        home.refresh(deps, team_id=given.team_id, user_id=given.user_id)


def _status(deps: Deps, given: CommandGiven) -> None:
    lang = deps.lang_of(given.user_id)
    link = linking.link_of(deps, team_id=given.team_id, user_id=given.user_id)
    try:
        deps.catalog()
        service_up = True
    except Exception:
        service_up = False
    message = build_link_status(lang=lang, link=link, embedded=deps.embedded, service_up=service_up)
    answer(deps, given, message)


def _connect_button(deps: Deps, press: Press) -> None:
    held_id = press.value.removeprefix("held:") if press.value.startswith("held:") else ""
    if held_id and access.held(deps, person(press), held_id) is None:
        held_id = ""  # another's (or gone): connect without it
    open_connect(deps, press, held_id=held_id)


def _resend_held(deps: Deps, press: Press) -> None:
    """A kept thread reply is resent as the refinement it was meant to be; a kept brief opens
    the brief modal (after a restart, without a trigger, the person is asked to press again)."""
    held = access.held(deps, person(press), press.value)
    lang = deps.lang_of(press.user_id)
    if held is None:
        answer(deps, press, build_held_gone(lang=lang, days=KEEP_HELD.days))
        return
    linked = linking.is_linked(deps, team_id=press.team_id, user_id=press.user_id)
    if linked and held.thread_ts:
        refine.resend_held(deps, held, team_id=press.team_id, acting_user=press.user_id)
        return
    if press.trigger_id is None:
        ask_again(deps, press)
        return
    if not linked:
        linking.open_connect_modal(
            deps, trigger_id=press.trigger_id, user_id=press.user_id, held_id=held.id
        )
        return
    open_brief_modal(
        deps,
        trigger_id=press.trigger_id,
        team_id=press.team_id,
        user_id=press.user_id,
        channel_id=held.channel_id,
        text=held.text,
    )
    if len(held.text) <= MODAL_INPUT_MAX:
        deps.records.held.delete(held.id)


def _token(given: Submission) -> str:
    return str(given.values.get(ids.INPUT_TOKEN) or "")


def _check_token(given: Submission) -> Refusal | None:
    if _token(given).strip():
        return None
    problem = LinkResult.EMPTY.value
    return Refusal(errors=lambda lang: field_errors.connect_token(problem=problem, lang=lang))


def _check_before_ack(deps: Deps, given: Submission) -> Refusal | Callable[[], None]:
    """The token is checked within a budget under Slack's 3 seconds: a token the service
    refuses is shown next to the field, with the modal still open and what was typed kept. A
    check that takes longer goes on after the ack and its outcome is told in a message."""
    checking = linking.verify_soon(
        deps, team_id=given.team_id, user_id=given.user_id, token=_token(given)
    )
    result = linking.result_within(checking, seconds=CONNECT_CHECK_BUDGET_S)
    if result is not None and result in _FIELD_ERRORS:
        problem = result.value
        return Refusal(errors=lambda lang: field_errors.connect_token(problem=problem, lang=lang))
    return lambda: _finish_connect(deps, given, checking)


def _connect_submitted(deps: Deps, given: Submission) -> None:
    """After a restart: check the token again (linking is a claim) and tell the outcome."""
    checking = linking.verify_soon(
        deps, team_id=given.team_id, user_id=given.user_id, token=_token(given)
    )
    _finish_connect(deps, given, checking)


def _finish_connect(deps: Deps, given: Submission, checking: Future[LinkResult]) -> None:
    lang = deps.lang_of(given.user_id)
    result = checking.result()
    held = access.held(deps, person(given), str(given.metadata.get("held") or ""))
    message = build_connect_outcome(
        lang=lang,
        problem=None if result is LinkResult.LINKED else result.value,
        held_id=held.id if held is not None else None,
        held_reply=bool(held and held.thread_ts),
    )
    where = given.channel_id or (held.channel_id if held else given.user_id)
    answer(deps, given.model_copy(update={"channel_id": where}), message)
    if result is LinkResult.LINKED:
        home.refresh(deps, team_id=given.team_id, user_id=given.user_id)


INPUTS: list[Input] = [
    Input("connect", Command(COMMAND, "connect"), run=_connect_command, opens_modal=True),
    Input(
        "disconnect",
        Command(COMMAND, "disconnect"),
        run=_disconnect,
        before_ack=_disconnect_before_ack,
    ),
    Input("status", Command(COMMAND, "status"), run=_status, read_only=True),
    Input("connect_button", Action(ids.ACTION_CONNECT), run=_connect_button, opens_modal=True),
    Input("resend_held", Action(ids.ACTION_RESEND), run=_resend_held),
    Input(
        "connect_submitted",
        View(ids.VIEW_CONNECT),
        run=_connect_submitted,
        check=_check_token,
        before_ack=_check_before_ack,
    ),
]
