"""Which Web API methods exist here and which bot scope each one needs.

Scopes per method are from Slack's method reference pages ("Required scopes", bot token);
for ``conversations.*`` the scope depends on the kind of conversation (public channel,
private channel, DM), as Slack documents. A method missing here answers ``unknown_method``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from suggestbot.slackemu import (
    api_assistant,
    api_chat,
    api_conversations,
    api_files,
    api_functions,
    api_views,
)
from suggestbot.slackemu.args import Args
from suggestbot.slackemu.workspace import Workspace

Handler = Callable[[Workspace, Args], dict[str, Any]]
ScopeRule = Callable[[Workspace, Args], tuple[str, ...]]

DEFAULT_SCOPES: frozenset[str] = frozenset(
    {
        "commands",
        "chat:write",
        "im:write",
        "users:read",
        "channels:read",
        "groups:read",
        "im:read",
        "channels:history",
        "groups:history",
        "im:history",
        "files:read",
        "files:write",
    }
)


@dataclass(frozen=True)
class MethodSpec:
    handler: Handler
    scopes: ScopeRule


def _needs(*scopes: str) -> ScopeRule:
    return lambda ws, args: scopes


def _by_conversation(public: str, private: str, im: str) -> ScopeRule:
    def rule(ws: Workspace, args: Args) -> tuple[str, ...]:
        channel = ws.channels.get(args.opt("channel") or "")
        if channel is None:
            return (public,)
        return (im,) if channel.is_im else (private,) if channel.is_private else (public,)

    return rule


METHODS: dict[str, MethodSpec] = {
    "auth.test": MethodSpec(api_conversations.auth_test, _needs()),
    "chat.postMessage": MethodSpec(api_chat.post_message, _needs("chat:write")),
    "chat.postEphemeral": MethodSpec(api_chat.post_ephemeral, _needs("chat:write")),
    "chat.update": MethodSpec(api_chat.update, _needs("chat:write")),
    "chat.delete": MethodSpec(api_chat.delete, _needs("chat:write")),
    "chat.getPermalink": MethodSpec(api_chat.get_permalink, _needs()),
    "conversations.info": MethodSpec(
        api_conversations.conversations_info,
        _by_conversation("channels:read", "groups:read", "im:read"),
    ),
    "conversations.members": MethodSpec(
        api_conversations.conversations_members,
        _by_conversation("channels:read", "groups:read", "im:read"),
    ),
    "conversations.open": MethodSpec(api_conversations.conversations_open, _needs("im:write")),
    "conversations.history": MethodSpec(
        api_conversations.conversations_history,
        _by_conversation("channels:history", "groups:history", "im:history"),
    ),
    "conversations.replies": MethodSpec(
        api_conversations.conversations_replies,
        _by_conversation("channels:history", "groups:history", "im:history"),
    ),
    "users.info": MethodSpec(api_conversations.users_info, _needs("users:read")),
    "views.open": MethodSpec(api_views.views_open, _needs()),
    "views.push": MethodSpec(api_views.views_push, _needs()),
    "views.update": MethodSpec(api_views.views_update, _needs()),
    "views.publish": MethodSpec(api_views.views_publish, _needs()),
    "files.getUploadURLExternal": MethodSpec(api_files.get_upload_url, _needs("files:write")),
    "files.completeUploadExternal": MethodSpec(api_files.complete_upload, _needs("files:write")),
    "files.info": MethodSpec(api_files.files_info, _needs("files:read")),
    # Slack's reference accepts assistant:write for setStatus "for the time being" and says it
    # will soon take chat:write only; the emulator already takes only chat:write.
    "assistant.threads.setStatus": MethodSpec(api_assistant.set_status, _needs("chat:write")),
    "assistant.threads.setSuggestedPrompts": MethodSpec(
        api_assistant.set_suggested_prompts, _needs("assistant:write")
    ),
    "assistant.threads.setTitle": MethodSpec(api_assistant.set_title, _needs("assistant:write")),
    "functions.completeSuccess": MethodSpec(api_functions.complete_success, _needs()),
    "functions.completeError": MethodSpec(api_functions.complete_error, _needs()),
}
