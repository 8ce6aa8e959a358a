"""What the app asks of Slack: its command, shortcuts, bot scopes and events, in one place.

``manifest.yml`` (what an operator pastes into Slack) must say exactly this, and the code must
use exactly this: a test checks both, and the Slack emulator grants the tests these scopes
and no others, so a Web API call the manifest does not allow fails there as it would in Slack.
"""

from __future__ import annotations

from typing import Any

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

# What the manifest says about the Workflow Builder step beyond its parameter names:
# parameter name -> (type, title, description), in the order the manifest lists them.
FUNCTION_TEXTS: dict[str, dict[str, Any]] = {
    "generate_suggestions": {
        "title": "Generate content suggestions",
        "description": "Sends a brief to the content service and posts the variants in a channel",
        "inputs": {
            "brief": (
                "string",
                "Brief",
                "What the content should be about (up to 4,000 characters)",
            ),
            "segment": (
                "string",
                "Segment",
                "Name of the audience segment; empty for the last one used",
            ),
            "use_case": ("string", "Use case", "Name of the use case; empty for the last one used"),
            "variant_count": ("integer", "Variants", "How many variants to make, 1 to 3"),
            "channel": (
                "slack#/types/channel_id",
                "Channel",
                "Where the brief and its variants are posted",
            ),
            "user": (
                "slack#/types/user_id",
                "Send as",
                "Whose connected content service account sends the brief",
            ),
        },
        "outputs": {
            "permalink": (
                "string",
                "Link to the result",
                "Permalink of the message that holds the variants' thread",
            ),
            "first_variant": (
                "string",
                "First variant",
                "The text of the first variant, as plain text",
            ),
        },
    },
}

PLACEHOLDER_URL = "https://example.com"


def _parameters(
    texts: dict[str, tuple[str, str, str]], required: tuple[str, ...]
) -> dict[str, Any]:
    properties = {
        name: {"type": kind, "title": title, "description": description}
        for name, (kind, title, description) in texts.items()
    }
    return {"properties": properties, "required": list(required)}


def app_manifest(base_url: str = PLACEHOLDER_URL) -> dict[str, Any]:
    """The whole manifest as Slack parses it, ``manifest.yml`` included: a test keeps them equal.

    The installed package carries no ``manifest.yml`` (and no YAML parser): whatever needs the
    manifest at run time (the demo's Slack emulator) takes it from here."""
    events_url = f"{base_url}/slack/events"
    functions = {}
    for callback_id, texts in FUNCTION_TEXTS.items():
        spec = FUNCTIONS[callback_id]
        functions[callback_id] = {
            "title": texts["title"],
            "description": texts["description"],
            "input_parameters": _parameters(texts["inputs"], spec["inputs"][0]),
            "output_parameters": _parameters(texts["outputs"], spec["outputs"][0]),
        }
    features: dict[str, Any] = {
        "app_home": {
            "home_tab_enabled": True,
            "messages_tab_enabled": True,
            "messages_tab_read_only_enabled": False,
        },
    }
    if AGENT_VIEW:
        features["agent_view"] = {
            "agent_description": "Write a brief in plain words; get content suggestions to refine."
        }
    features["bot_user"] = {"display_name": "suggestbot", "always_online": True}
    features["slash_commands"] = [
        {
            "command": COMMAND,
            "url": events_url,
            "description": "Briefs, refinements, inspiration and digests",
            "usage_hint": "brief [text] | connect | inspire | digest add | help",
            "should_escape": False,
        }
    ]
    features["shortcuts"] = [
        {
            "name": name,
            "type": "message",
            "callback_id": callback_id,
            "description": "Start a brief from this message's text",
        }
        for callback_id, name in MESSAGE_SHORTCUTS.items()
    ]
    return {
        "display_information": {
            "name": "suggestbot",
            "description": (
                "Content suggestions from your brief, refined in threads, with daily inspiration."
            ),
            "background_color": "#4a154b",
        },
        "features": features,
        "oauth_config": {
            "redirect_urls": [f"{base_url}/slack/oauth_redirect"],
            "scopes": {"bot": list(BOT_SCOPES)},
        },
        "settings": {
            "event_subscriptions": {"request_url": events_url, "bot_events": list(BOT_EVENTS)},
            "interactivity": {"is_enabled": True, "request_url": events_url},
            "org_deploy_enabled": True,
            "function_runtime": "remote",
            "socket_mode_enabled": False,
            "token_rotation_enabled": False,
        },
        "functions": functions,
    }
