"""What the emulator reads from the app's manifest, as Slack reads it when the app is created.

Slack decides from the manifest, not from what the app does, which scopes a token carries,
which events are delivered, which message shortcuts appear on a message's menu, which custom
steps Workflow Builder offers (``functions``), whether the Messages tab exists and whether
people may write in it, and which AI-app experience the app uses (``agent_view`` or the older
``assistant_view``). The emulator takes the manifest as a parsed dict (the app's
``manifest.yml`` loaded by the caller), so it never depends on the product's code.

Function parameters follow the manifest's shape (``input_parameters``/``output_parameters``
with ``properties`` and a ``required`` list; Slack docs, "Custom steps for Bolt apps").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Parameter types whose values are strings on the wire (slack#/types/* ids, rich text as
# mrkdwn text when a step outputs it from Bolt). Anything else named here is checked by kind.
_STRING_TYPES = frozenset(
    {
        "string",
        "slack#/types/user_id",
        "slack#/types/channel_id",
        "slack#/types/message_ts",
        "slack#/types/message_context",
        "slack#/types/rich_text",
        "slack#/types/timestamp",
        "slack#/types/date",
        "slack#/types/interactivity",
    }
)
_CONVERSATION_PREFIXES = ("C", "G", "D")
_USER_PREFIXES = ("U", "W")


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str
    title: str
    description: str
    required: bool

    def to_event(self) -> dict[str, Any]:
        # shape: Slack docs, events/function_executed ("input_parameters" entries)
        return {
            "type": self.type,
            "name": self.name,
            "description": self.description,
            "title": self.title,
            "is_required": self.required,
        }

    def problem(self, value: Any) -> str | None:
        """Why ``value`` does not fit this parameter's type (None when it does)."""
        if self.type in ("integer",):
            ok = isinstance(value, int) and not isinstance(value, bool)
            return None if ok else "must be an integer"
        if self.type == "number":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            return None if ok else "must be a number"
        if self.type == "boolean":
            return None if isinstance(value, bool) else "must be a boolean"
        if self.type in _STRING_TYPES:
            if not isinstance(value, str):
                return "must be a string"
            if self.type == "slack#/types/channel_id" and not value.startswith(
                _CONVERSATION_PREFIXES
            ):
                return "must be a channel id"
            if self.type == "slack#/types/user_id" and not value.startswith(_USER_PREFIXES):
                return "must be a user id"
            return None
        return None  # arrays, objects and custom types: only presence is checked


@dataclass(frozen=True)
class FunctionSpec:
    """One custom step the manifest declares under ``functions``."""

    callback_id: str
    title: str
    description: str
    inputs: tuple[Parameter, ...]
    outputs: tuple[Parameter, ...]

    def input_problems(self, values: Mapping[str, Any]) -> list[str]:
        return _problems(self.inputs, values, "/inputs")

    def output_problems(self, values: Any) -> list[str]:
        if not isinstance(values, Mapping):
            return ["[ERROR] must provide an object [json-pointer:/outputs]"]
        return _problems(self.outputs, values, "/outputs")


def _problems(params: tuple[Parameter, ...], values: Mapping[str, Any], ptr: str) -> list[str]:
    declared = {p.name: p for p in params}
    problems: list[str] = []
    for param in params:
        if param.required and values.get(param.name) in (None, ""):
            problems.append(f"[ERROR] missing required field: {param.name} [json-pointer:{ptr}]")
    for name, value in values.items():
        known = declared.get(name)
        if known is None:
            problems.append(f"[ERROR] unknown parameter: {name} [json-pointer:{ptr}/{name}]")
            continue
        why = known.problem(value) if value is not None else None
        if why:
            problems.append(f"[ERROR] {why} [json-pointer:{ptr}/{name}]")
    return problems


@dataclass(frozen=True)
class AppManifest:
    """The parts of a manifest Slack's behaviour depends on."""

    bot_scopes: frozenset[str] = frozenset()
    bot_events: frozenset[str] = frozenset()
    functions: Mapping[str, FunctionSpec] = field(default_factory=dict)
    message_shortcuts: Mapping[str, str] = field(default_factory=dict)  # callback_id -> name
    messages_tab_enabled: bool = False
    messages_tab_read_only: bool = True
    agent_view: bool = False
    assistant_view: bool = False

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> AppManifest:
        features = _mapping(doc.get("features"))
        app_home = _mapping(features.get("app_home"))
        settings = _mapping(doc.get("settings"))
        events = _mapping(settings.get("event_subscriptions"))
        scopes = _mapping(_mapping(doc.get("oauth_config")).get("scopes"))
        shortcuts = {
            str(s["callback_id"]): str(s.get("name", ""))
            for s in features.get("shortcuts") or []
            if isinstance(s, Mapping) and s.get("type") == "message" and s.get("callback_id")
        }
        bot_events = frozenset(str(e) for e in events.get("bot_events") or [])
        if "function_executed" in bot_events:
            # Slack delivers it for declared functions only; it is no bot event to subscribe.
            raise ValueError("function_executed cannot be subscribed as a bot event")
        functions = {
            str(callback_id): _function(str(callback_id), _mapping(spec))
            for callback_id, spec in _mapping(doc.get("functions")).items()
        }
        return cls(
            bot_scopes=frozenset(str(s) for s in scopes.get("bot") or []),
            bot_events=bot_events,
            functions=functions,
            message_shortcuts=shortcuts,
            messages_tab_enabled=bool(app_home.get("messages_tab_enabled", False)),
            messages_tab_read_only=bool(app_home.get("messages_tab_read_only_enabled", True)),
            agent_view="agent_view" in features,
            assistant_view="assistant_view" in features,
        )

    def subscribes(self, event: str) -> bool:
        return event in self.bot_events


def _function(callback_id: str, spec: Mapping[str, Any]) -> FunctionSpec:
    if not spec.get("title"):
        raise ValueError(f"function {callback_id!r} needs a title (Slack refuses the manifest)")
    return FunctionSpec(
        callback_id=callback_id,
        title=str(spec["title"]),
        description=str(spec.get("description", "")),
        inputs=_parameters(_mapping(spec.get("input_parameters"))),
        outputs=_parameters(_mapping(spec.get("output_parameters"))),
    )


def _parameters(block: Mapping[str, Any]) -> tuple[Parameter, ...]:
    required = {str(name) for name in block.get("required") or []}
    return tuple(
        Parameter(
            name=str(name),
            type=str(_mapping(prop).get("type", "string")),
            title=str(_mapping(prop).get("title", name)),
            description=str(_mapping(prop).get("description", "")),
            required=str(name) in required,
        )
        for name, prop in _mapping(block.get("properties")).items()
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
