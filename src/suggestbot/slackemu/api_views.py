"""``views.open``, ``views.push``, ``views.update`` and ``views.publish``.

A user has a stack of at most three modals (Slack docs, "Modals": "you can push up to 2
additional views", i.e. three in all) and one App Home. ``trigger_id``s are exchanged once
and expire after 3 seconds (errors ``exchanged_trigger_id`` / ``expired_trigger_id`` from
Slack's views.open reference).
"""

from __future__ import annotations

from typing import Any

from suggestbot.slackemu.args import Args
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.model import StoredView
from suggestbot.slackemu.workspace import MAX_MODAL_STACK, Workspace


def views_open(ws: Workspace, args: Args) -> dict[str, Any]:
    definition = _modal(ws, args)
    trigger = ws.use_trigger(args.req("trigger_id"))
    view = ws.new_view(trigger.user_id, definition, root=None)
    ws.modal_stacks[trigger.user_id] = [view]
    return {"ok": True, "view": view.to_api()}


def views_push(ws: Workspace, args: Args) -> dict[str, Any]:
    definition = _modal(ws, args)
    trigger = ws.use_trigger(args.req("trigger_id"))
    stack = ws.modal_stacks.get(trigger.user_id) or []
    if not stack:
        raise ApiError("not_found")
    if len(stack) >= MAX_MODAL_STACK:
        raise ApiError("push_limit_reached")
    view = ws.new_view(trigger.user_id, definition, root=stack[0].id)
    view.previous_view_id = stack[-1].id
    stack.append(view)
    return {"ok": True, "view": view.to_api()}


def views_update(ws: Workspace, args: Args) -> dict[str, Any]:
    view_id, external_id = args.opt("view_id"), args.opt("external_id")
    if not view_id and not external_id:
        raise ApiError(
            "invalid_arguments", messages=["[ERROR] either view_id or external_id is required"]
        )
    raw = args.structured("view", error="invalid_arguments")
    if raw is None:
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: view"])
    definition = ws.check_view(raw)
    stored = ws.find_view(view_id=view_id, external_id=external_id)
    _check_hash(stored, args)
    if definition.get("type") != stored.type:
        raise ApiError(
            "invalid_arguments",
            messages=[
                f"[ERROR] cannot change a {stored.type} view into a {definition.get('type')}"
            ],
        )
    replace_definition(ws, stored, definition)
    return {"ok": True, "view": stored.to_api()}


def views_publish(ws: Workspace, args: Args) -> dict[str, Any]:
    user = ws.user(args.req("user_id", error="user_not_found"))
    raw = args.structured("view", error="invalid_arguments")
    if raw is None:
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: view"])
    definition = ws.check_view(raw)
    if definition.get("type") != "home":
        raise ApiError(
            "invalid_arguments", messages=["[ERROR] must be one of home [json-pointer:/view/type]"]
        )
    existing = ws.home_views.get(user.id)
    if existing is not None:
        _check_hash(existing, args)
        replace_definition(ws, existing, definition)
        return {"ok": True, "view": existing.to_api()}
    view = ws.new_view(user.id, definition, root=None)
    ws.home_views[user.id] = view
    return {"ok": True, "view": view.to_api()}


def replace_definition(ws: Workspace, stored: StoredView, definition: dict[str, Any]) -> None:
    """Swap a view's content in place: same id, new hash, input state kept per block_id."""
    kept_ids = {b.get("block_id") for b in definition.get("blocks", []) if isinstance(b, dict)}
    stored.state_values = {k: v for k, v in stored.state_values.items() if k in kept_ids}
    stored.definition = definition
    stored.hash = ws.new_view_hash()


def _modal(ws: Workspace, args: Args) -> dict[str, Any]:
    raw = args.structured("view", error="invalid_arguments")
    if raw is None:
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: view"])
    definition = ws.check_view(raw)
    if definition.get("type") != "modal":
        raise ApiError(
            "invalid_arguments", messages=["[ERROR] must be one of modal [json-pointer:/view/type]"]
        )
    return definition


def _check_hash(stored: StoredView, args: Args) -> None:
    given = args.opt("hash")
    if given is not None and given != stored.hash:
        raise ApiError("hash_conflict")
