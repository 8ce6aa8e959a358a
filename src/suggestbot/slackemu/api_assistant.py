"""``assistant.threads.*``: the status line, suggested prompts and thread titles.

Arguments and errors follow Slack's method reference (``channel_not_found``,
``invalid_thread_ts``; ``loading_messages`` at most 10; up to four suggested prompts, each with
a ``title`` and a ``message``). Where the reference is silent the emulator is stricter:

- ``setStatus`` works in any conversation the bot is a member of (the status line also shows
  under channel threads), on a thread that exists; ``loading_messages`` must be non-empty
  strings.
- Suggested prompts and titles belong to the app's Messages tab, so they are refused
  (``channel_not_found``) outside the bot's DMs. An app with ``agent_view`` sets prompts for
  the whole tab, without ``thread_ts``: the reference says a call that includes it "will
  silently fail", so the emulator answers ok, changes nothing and records a warning. A
  manifest that declares neither ``agent_view`` nor ``assistant_view`` gets ``access_denied``.
"""

from __future__ import annotations

from typing import Any

from suggestbot.slackemu.args import Args
from suggestbot.slackemu.assistant import SuggestedPrompts, ThreadKey
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.model import Channel
from suggestbot.slackemu.workspace import Workspace

MAX_LOADING_MESSAGES = 10
MAX_SUGGESTED_PROMPTS = 4


def set_status(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.member_channel(args.req("channel_id", error="channel_not_found"))
    key = _thread(ws, channel, args.req("thread_ts", error="invalid_thread_ts"))
    if not isinstance(args.raw.get("status"), str):
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: status"])
    loading = _loading_messages(args)
    ws.assistant.set_status(
        key, status=args.raw["status"], loading_messages=loading, now=ws.clock()
    )
    return {"ok": True}


def set_suggested_prompts(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = _messages_tab(ws, args)
    prompts = _prompts(args)
    title = args.opt("title")
    thread_arg = args.opt("thread_ts")
    if thread_arg is not None and ws.manifest is not None and ws.manifest.agent_view:
        args.warnings.append(
            "assistant.threads.setSuggestedPrompts: thread_ts given to an agent_view app — "
            "Slack ignores the call (prompts belong to the whole Messages tab)"
        )
        return {"ok": True}
    root = _thread(ws, channel, thread_arg)[1] if thread_arg is not None else None
    ws.assistant.prompts[(channel.id, root)] = SuggestedPrompts(title, prompts)
    return {"ok": True}


def set_title(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = _messages_tab(ws, args)
    key = _thread(ws, channel, args.req("thread_ts", error="invalid_thread_ts"))
    title = args.opt("title")
    if title is None or not title.strip():
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: title"])
    ws.assistant.titles.setdefault(key, []).append(title)
    return {"ok": True}


def _messages_tab(ws: Workspace, args: Args) -> Channel:
    manifest = ws.manifest
    if manifest is not None and not (manifest.agent_view or manifest.assistant_view):
        raise ApiError("access_denied")
    channel = ws.member_channel(args.req("channel_id", error="channel_not_found"))
    if not channel.is_im:
        raise ApiError("channel_not_found")
    return channel


def _thread(ws: Workspace, channel: Channel, thread_ts: str) -> ThreadKey:
    stored = ws.messages.get(channel.id, {}).get(thread_ts)
    if stored is None or stored.deleted:
        raise ApiError("invalid_thread_ts")
    return channel.id, stored.thread_ts or stored.ts


def _loading_messages(args: Args) -> tuple[str, ...]:
    value = args.structured("loading_messages", error="invalid_arguments")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _invalid("must provide an array", "/loading_messages")
    if len(value) > MAX_LOADING_MESSAGES:
        raise _invalid(f"no more than {MAX_LOADING_MESSAGES} items allowed", "/loading_messages")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise _invalid("must be more than 0 characters", f"/loading_messages/{index}")
    return tuple(value)


def _prompts(args: Args) -> tuple[tuple[str, str], ...]:
    value = args.structured("prompts", error="invalid_arguments")
    if not isinstance(value, list) or not value:
        raise _invalid("must provide at least 1 items", "/prompts")
    if len(value) > MAX_SUGGESTED_PROMPTS:
        raise _invalid(f"no more than {MAX_SUGGESTED_PROMPTS} items allowed", "/prompts")
    prompts: list[tuple[str, str]] = []
    for index, item in enumerate(value):
        for key in ("title", "message"):
            text = item.get(key) if isinstance(item, dict) else None
            if not isinstance(text, str) or not text.strip():
                raise _invalid(f"missing required field: {key}", f"/prompts/{index}")
        prompts.append((item["title"], item["message"]))
    return tuple(prompts)


def _invalid(message: str, pointer: str) -> ApiError:
    return ApiError("invalid_arguments", messages=[f"[ERROR] {message} [json-pointer:{pointer}]"])
