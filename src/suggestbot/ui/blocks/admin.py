"""Block Kit for workspace admins: the App Home section and the service credentials modal.

Pure builders (no I/O), on ``slack_sdk.models`` like the rest of the app's blocks. The modal
never carries a secret back to Slack: it has no initial values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    DividerBlock,
    InputBlock,
    Option,
    PlainTextInputElement,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject
from slack_sdk.models.views import View

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.text import escape_mrkdwn, view_text
from suggestbot.ui.messages import ENABLED, language_name, t

URL_MAX = 500
CLIENT_ID_MAX = 200
SECRET_MAX = 500
OPTION_TEXT_MAX = 75  # Slack's limit on an option's and a placeholder's text


AdminNotice = Literal["only_admins", "saved", "rejected", "unreachable"]
"""What an admin is told by direct message: not an admin, or how the credentials' check went."""

UrlProblem = Literal["url_invalid", "url_insecure"]


@dataclass(frozen=True)
class ServiceSummary:
    """What the Home section says about the workspace's own credentials (never the secret)."""

    url: str
    client_id: str
    set_by: str
    set_at: int


def build_admin_section(*, lang: str, own: ServiceSummary | None) -> list[dict[str, Any]]:
    """The "Workspace settings" blocks of an admin's Home."""
    if own is None:
        text = t("admin.service_default", lang)
    else:
        text = t(
            "admin.service_own",
            lang,
            url=escape_mrkdwn(own.url),
            client_id=escape_mrkdwn(own.client_id),
            user=own.set_by,
            when=slack_date(own.set_at, lang),
        )
    blocks = [
        DividerBlock(block_id="admin-divider"),
        SectionBlock(block_id="admin-title", text=MarkdownTextObject(text=t("admin.title", lang))),
        SectionBlock(block_id="admin-service", text=MarkdownTextObject(text=text)),
        ActionsBlock(
            block_id="admin-actions",
            elements=[
                ButtonElement(
                    text=t("admin.set", lang),
                    action_id=ids.ACTION_SERVICE_CREDENTIALS,
                    value="service",
                )
            ],
        ),
    ]
    return [block.to_dict() for block in blocks]


def build_service_modal(*, lang: str) -> dict[str, Any]:
    """The modal where an admin enters the workspace's service URL, client id and secret."""

    def field(block_id: str, label_key: str, max_length: int, hint: str | None = None) -> Any:
        return InputBlock(
            block_id=block_id,
            label=t(label_key, lang),
            hint=hint,
            element=PlainTextInputElement(action_id=block_id, max_length=max_length),
        )

    return View(
        type="modal",
        callback_id=ids.VIEW_SERVICE_CREDENTIALS,
        title=view_text("admin.modal_title", lang),
        submit=view_text("admin.save", lang),
        close=view_text("admin.cancel", lang),
        blocks=[
            SectionBlock(
                block_id="intro", text=MarkdownTextObject(text=t("admin.modal_intro", lang))
            ),
            field(ids.INPUT_SERVICE_URL, "admin.url", URL_MAX, t("admin.url_hint", lang)),
            field(ids.INPUT_SERVICE_CLIENT_ID, "admin.client_id", CLIENT_ID_MAX),
            field(ids.INPUT_SERVICE_CLIENT_SECRET, "admin.client_secret", SECRET_MAX),
        ],
    ).to_dict()


def admin_notice(*, lang: str, notice: AdminNotice, url: str = "") -> str:
    """The direct message telling a (would-be) admin the outcome; ``url`` is the address checked."""
    return t(f"admin.{notice}", lang, url=url)


def url_error(*, lang: str, problem: UrlProblem) -> str:
    """The field error beside the service URL that cannot be a service address."""
    return t(f"admin.{problem}", lang)


def build_language_section(*, lang: str, current: str) -> list[dict[str, Any]]:
    """An admin's picker of the language channels see (each language named in itself)."""
    options = [
        Option(value=code, text=language_name(code, code)[:OPTION_TEXT_MAX]) for code in ENABLED
    ]
    chosen = next((o for o in options if o.value == current), None)
    text = t("admin.language", lang, language=language_name(current, lang))
    section = SectionBlock(
        block_id="admin-language",
        text=MarkdownTextObject(text=text),
        accessory=StaticSelectElement(
            action_id=ids.ACTION_WORKSPACE_LANGUAGE,
            placeholder=t("admin.language_placeholder", lang)[:OPTION_TEXT_MAX],
            options=options,
            initial_option=chosen,
        ),
    )
    return [section.to_dict()]


def language_notice(*, lang: str, chosen: str | None) -> str:
    """The direct message after a pick: the new language, or that only admins may choose."""
    if chosen is None:
        return t("admin.language_only_admins", lang)
    return t("admin.language_saved", lang, language=language_name(chosen, lang))
