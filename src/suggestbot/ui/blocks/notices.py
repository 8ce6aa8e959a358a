"""Short messages to one user: help, confirmations, prompts with a button or two."""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, HeaderBlock, SectionBlock
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject

from suggestbot.store.records import LinkedUser
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.results import MESSAGE_BLOCKS_MAX, Button, Message
from suggestbot.ui.blocks.text import mend, quote, split_text
from suggestbot.ui.messages import language_name, t


def build_notice(*, lang: str, text: str, buttons: Sequence[Button] = ()) -> Message:
    """A sentence (mrkdwn, already localised) with optional buttons under it."""
    blocks: list[Block] = [SectionBlock(block_id="notice", text=MarkdownTextObject(text=text))]
    if buttons:
        blocks.append(
            ActionsBlock(
                block_id="notice-actions",
                elements=[
                    ButtonElement(
                        text=t(b.label_key, lang),
                        action_id=b.action_id,
                        value=b.value,
                        style=b.style,
                    )
                    for b in buttons
                ],
            )
        )
    return Message(text=text, blocks=[b.to_dict() for b in blocks])


def build_failure_notice(*, lang: str, ref: str) -> Message:
    """Work after the ack failed: the user gets the short reference the log line carries."""
    return build_notice(lang=lang, text=t("error.generic", lang, ref=ref))


def build_brief_not_text(*, lang: str) -> Message:
    """A brief holding characters that are not text (they can be neither kept nor sent)."""
    return build_notice(lang=lang, text=t("brief.input_invalid_encoding", lang))


def build_gone(*, lang: str, what: str) -> Message:
    """What a press or reply acted on no longer exists in Slack (``what``: ``message``,
    ``thread``, ``view``, or ``trigger`` for a modal that could no longer be opened)."""
    return build_notice(lang=lang, text=t(f"gone.{what}", lang))


def build_unknown_subcommand(*, lang: str, sub: str, content_locale: str = "en") -> Message:
    """``/suggest <word>`` with a word it does not know: say so, then the help."""
    intro = t("help.unknown_subcommand", lang, sub=quote(sub))
    return build_help(lang=lang, intro=intro, content_locale=content_locale)


def build_connect_needed(*, lang: str, held_id: str) -> Message:
    """An unlinked person's brief was kept (``held_id``): connect, then resend it."""
    return build_notice(
        lang=lang,
        text=t("connect.needed", lang),
        buttons=[
            Button("connect.button", ids.ACTION_CONNECT, f"held:{held_id}", "primary"),
            Button("button.resend", ids.ACTION_RESEND, held_id),
        ],
    )


def build_connect_first(*, lang: str) -> Message:
    """A command that needs a linked account, from someone without one."""
    return build_notice(
        lang=lang,
        text=t("lists.connect", lang),
        buttons=[Button("connect.button", ids.ACTION_CONNECT, "command", "primary")],
    )


def build_connect_outcome(
    *, lang: str, problem: str | None, held_id: str | None = None, held_reply: bool = False
) -> Message:
    """What became of a connect submission checked after its ack.

    Args:
        problem: None when the account is linked, else why not (``rejected``,
            ``unreachable``, ``empty``: the field errors of the connect modal).
        held_id: the kept brief or reply to offer again (Resend once linked, or Connect again).
        held_reply: the kept text is a reply in a thread, not a brief.
    """
    if problem is None:
        if held_id is None:
            return build_notice(lang=lang, text=t("connect.done", lang))
        text = t("refine.held_ready", lang) if held_reply else t("connect.held_ready", lang)
        return build_notice(
            lang=lang,
            text=text,
            buttons=[Button("button.resend", ids.ACTION_RESEND, held_id, "primary")],
        )
    again = f"held:{held_id}" if held_id is not None else "again"
    return build_notice(
        lang=lang,
        text=f":warning: {t(f'connect.{problem}', lang)}",
        buttons=[Button("connect.button", ids.ACTION_CONNECT, again, "primary")],
    )


def build_disconnected(*, lang: str, removed: bool) -> Message:
    """``/suggest disconnect``: whether a link was removed."""
    key = "disconnect.done" if removed else "disconnect.none"
    return build_notice(lang=lang, text=t(key, lang))


def build_link_status(
    *, lang: str, link: LinkedUser | None, embedded: bool, service_up: bool
) -> Message:
    """``/suggest status``: the person's link, then the workspace's service."""
    if link is None:
        lines = [t("status.unlinked", lang)]
    elif link.state == "expired" and link.expired_reason == "unreadable":
        lines = [t("status.unreadable", lang)]
    elif link.state == "expired":
        lines = [
            t("status.expired", lang, since=slack_date(link.expired_at or link.linked_at, lang))
        ]
    else:
        lines = [t("status.linked", lang, since=slack_date(link.linked_at, lang))]
    if service_up:
        mode = t("status.mode_embedded", lang) if embedded else t("status.mode_service", lang)
        lines.append(t("status.workspace_ok", lang, mode=mode))
    else:
        lines.append(t("status.workspace_down", lang))
    return build_notice(lang=lang, text="\n".join(lines))


def build_held_gone(*, lang: str, days: int) -> Message:
    """Resend pressed for kept text that has since been deleted."""
    return build_notice(lang=lang, text=t("held.gone", lang, days=days))


def build_only_author(*, lang: str, author: str) -> Message:
    """A button on someone else's brief that only its author may press."""
    return build_notice(lang=lang, text=t("error.only_author", lang, user=author))


def help_languages(*, lang: str, content_locale: str) -> str:
    """Which language each thing is in: the reader's, the workspace's, the content's own."""
    return t("help.languages", lang, content_language=language_name(content_locale, lang))


def build_help(*, lang: str, intro: str | None = None, content_locale: str = "en") -> Message:
    """The help, with which language each thing is in (``content_locale``: the tenant's)."""
    blocks: list[Block] = []
    if intro:
        blocks.append(SectionBlock(block_id="intro", text=MarkdownTextObject(text=intro)))
    blocks.append(HeaderBlock(block_id="title", text=PlainTextObject(text=t("help.title", lang))))
    blocks.append(SectionBlock(block_id="body", text=MarkdownTextObject(text=t("help.body", lang))))
    languages = help_languages(lang=lang, content_locale=content_locale)
    blocks.append(SectionBlock(block_id="languages", text=MarkdownTextObject(text=languages)))
    return Message(text=intro or t("help.title", lang), blocks=[b.to_dict() for b in blocks])


def build_returned_text(
    *, lang: str, problem: str, text: str, intro_key: str = "brief.returned"
) -> Message:
    """A refusal that hands the user's whole text back (plain, split within Slack's limits), so
    nothing they typed is lost."""
    blocks: list[Block] = [
        SectionBlock(block_id="problem", text=MarkdownTextObject(text=problem)),
        SectionBlock(block_id="returned-intro", text=MarkdownTextObject(text=t(intro_key, lang))),
    ]
    chunks = split_text(mend(text))[: MESSAGE_BLOCKS_MAX - len(blocks)]
    blocks += [
        SectionBlock(block_id=f"returned-{i}", text=PlainTextObject(text=chunk, emoji=False))
        for i, chunk in enumerate(chunks)
    ]
    return Message(text=problem, blocks=[b.to_dict() for b in blocks])


def build_outage_answer(*, lang: str, typed: str) -> Message:
    """The answer to a command that came while the store could not be reached: nothing was
    done, and what the user typed comes back to be sent again."""
    return build_returned_text(
        lang=lang, problem=t("outage.command", lang), text=typed, intro_key="outage.returned"
    )
