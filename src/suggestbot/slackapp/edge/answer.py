"""Who sent an input and how to answer only them.

Answers are ephemeral: through the ``response_url`` where there is one (it reaches a channel
the app is not a member of), else ``chat.postEphemeral``, else a direct message.
"""

from __future__ import annotations

from collections.abc import Callable

from slack_sdk.models.blocks import MarkdownTextObject, SectionBlock

from suggestbot.flows.common import access, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.slackapp.edge.declaration import CommandGiven, Given, Press, Submission
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.messages import t


def asker(given: Given) -> Asker:
    """The person who sent ``given``, answered where they sent it from (else in a DM)."""
    return Asker(
        team_id=given.team_id,
        user_id=given.user_id,
        channel_id=given.channel_id or given.user_id,
        response_url=given.response_url,
        trigger_id=given.trigger_id,
    )


def person(given: Given) -> access.Person:
    """Who sent ``given``, and the channel Slack delivered it from (a modal is in none: any
    channel is asked of Slack)."""
    if isinstance(given, Submission):
        return access.Person(given.team_id, given.user_id)
    return access.Person(given.team_id, given.user_id, given.channel_id or "")


def answer(deps: Deps, given: Given, message: Message) -> None:
    """Tell the person who sent ``given``, where they sent it from (else in a DM)."""
    telling.tell(
        deps,
        user_id=given.user_id,
        channel_id=given.channel_id or given.user_id,
        message=message,
        response_url=given.response_url,
    )


def ask_again(deps: Deps, given: Given) -> None:
    """An input that was to open a modal, carried out after a restart: its trigger has
    expired, so the person is asked in words to press (or send) again."""
    lang = deps.lang_of(given.user_id)
    if isinstance(given, CommandGiven):
        text = t("modal.send_again", lang)
    else:
        text = t("modal.press_again", lang)
    block = SectionBlock(text=MarkdownTextObject(text=text)).to_dict()
    answer(deps, given, Message(text=text, blocks=[block]))


def needs_trigger(deps: Deps, given: Given) -> str | None:
    """The trigger to open a modal with; None (and the person asked to try again) when the
    input is carried out after a restart."""
    if given.trigger_id is None:
        ask_again(deps, given)
    return given.trigger_id


def with_asker(work: Callable[[Deps, Asker, str], None]) -> Callable[[Deps, Press], None]:
    """A button's work as ``work(deps, asker, value)``: who pressed it, and its value."""

    def run(deps: Deps, press: Press) -> None:
        work(deps, asker(press), press.value)

    return run
