"""What the app asks of Slack: its command, shortcuts, bot scopes and events, in one place.

``manifest.yml`` (what an operator pastes into Slack) must say exactly this, and the code must
use exactly this: a test checks both, and the Slack emulator grants the tests these scopes
and no others, so a Web API call the manifest does not allow fails there as it would in Slack.
"""

from __future__ import annotations

COMMAND = "/suggest"

BOT_SCOPES: tuple[str, ...] = (
    "commands",  # /suggest
    "chat:write",  # chat.postMessage, chat.update, chat.postEphemeral
    "im:write",  # conversations.open: results and notices by DM
    "users:read",  # users.info: locale (language), tz (digests), is_admin
    "channels:read",  # conversations.info/members on public channels
    "groups:read",  # conversations.info/members on private channels
    "im:read",  # conversations.info/members on DMs
    "channels:history",  # conversations.history/replies (recovery by metadata); message.channels
    "groups:history",  # the same in private channels; message.groups
    "im:history",  # the same in DMs; message.im
    "assistant:write",  # suggested prompts of the Messages tab (the composer)
)

# The Messages tab is a composer (``features.agent_view``), and the message shortcuts the app
# answers (callback id -> the name people see in a message's menu).
AGENT_VIEW = True
MESSAGE_SHORTCUTS: dict[str, str] = {"turn_into_brief": "Turn into a brief"}

BOT_EVENTS: tuple[str, ...] = (
    "app_home_opened",
    "app_uninstalled",
    "tokens_revoked",
    "message.channels",
    "message.groups",
    "message.im",
)

# Slack's documented bot scopes per Web API method the app may call (any one suffices where a
# method serves several conversation types, so the app needs each type's scope).
METHOD_SCOPES: dict[str, tuple[str, ...]] = {
    "auth.test": (),
    "chat.postMessage": ("chat:write",),
    "chat.postEphemeral": ("chat:write",),
    "chat.update": ("chat:write",),
    "chat.delete": ("chat:write",),
    "chat.getPermalink": (),
    "assistant.threads.setStatus": ("chat:write",),
    "assistant.threads.setSuggestedPrompts": ("assistant:write",),
    "conversations.open": ("im:write",),
    "conversations.info": ("channels:read", "groups:read", "im:read"),
    "conversations.members": ("channels:read", "groups:read", "im:read"),
    "conversations.history": ("channels:history", "groups:history", "im:history"),
    "conversations.replies": ("channels:history", "groups:history", "im:history"),
    "users.info": ("users:read",),
    "views.open": (),
    "views.update": (),
    "views.push": (),
    "views.publish": (),
    # A workflow step is completed with the token of its execution; no scope needed.
    "functions.completeSuccess": (),
    "functions.completeError": (),
}

# Workflow Builder steps (``functions`` in the manifest, ``@app.function`` in the code): the
# inputs and outputs each declares, required ones first in each pair.
FUNCTIONS: dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "generate_suggestions": {
        # (required, optional)
        "inputs": (("brief", "channel", "user"), ("segment", "use_case", "variant_count")),
        "outputs": (("permalink", "first_variant"), ()),
    },
}

# Events API subscriptions behind a Bolt ``app.event(type)`` listener, and their scopes.
EVENT_SUBSCRIPTIONS: dict[str, tuple[str, ...]] = {
    "message": ("message.channels", "message.groups", "message.im"),
    "app_home_opened": ("app_home_opened",),
    "app_uninstalled": ("app_uninstalled",),
    "tokens_revoked": ("tokens_revoked",),
}
EVENT_SCOPES: dict[str, tuple[str, ...]] = {
    "message.channels": ("channels:history",),
    "message.groups": ("groups:history",),
    "message.im": ("im:history",),
    "app_home_opened": (),
    "app_uninstalled": (),
    "tokens_revoked": (),
}
