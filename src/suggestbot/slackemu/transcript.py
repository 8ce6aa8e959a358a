"""Plain-text transcripts: a channel, a thread or a user's ephemeral messages, as a person
in Slack would read them.

A message with blocks is read through its blocks (the top-level ``text`` is only the
notification fallback, which people do not see in the channel); sections and their fields,
headers, context lines, buttons as ``[Text]``, images as ``[image: alt text]``, files as
``[file: name]``. Thread roots end with their reply count. Cards read as ``[card] title ·
subtitle`` with their body, image and buttons beneath (``[card 2/3]`` inside a carousel),
feedback buttons as their two labels, and a thread whose app is working ends with the status
line a person sees under it (``[status] suggestbot is writing… (Picking images)``).
"""

from __future__ import annotations

from typing import Any

from suggestbot.slackemu.model import BOT_NAME, Ephemeral, StoredMessage
from suggestbot.slackemu.workspace import Workspace

_INDENT = "    "


def channel_transcript(ws: Workspace, channel_id: str, *, thread_ts: str | None = None) -> str:
    channel = ws.channel(channel_id)
    title = _conversation_title(ws, channel_id)
    if thread_ts is None:
        lines = [title]
        for message in ws.top_level(channel.id):
            lines += _message_lines(ws, message)
            if message.replies:
                count = len(message.replies)
                lines.append(f"{_INDENT}[{count} {'reply' if count == 1 else 'replies'}]")
            lines += [_INDENT + s for s in _status_lines(ws, channel.id, message.ts)]
        return "\n".join(lines)
    root_ts = ws.thread_root_ts(channel.id, thread_ts)
    titles = ws.assistant.titles.get((channel.id, root_ts))
    lines = [f"Thread in {title}" + (f" — {titles[-1]}" if titles else "")]
    for message in ws.thread(channel.id, root_ts):
        lines += _message_lines(ws, message)
    lines += _status_lines(ws, channel.id, root_ts)
    return "\n".join(lines)


def _status_lines(ws: Workspace, channel_id: str, root_ts: str) -> list[str]:
    shown = ws.assistant.current((channel_id, root_ts), now=ws.clock())
    if shown is None:
        return []
    loading = f" ({' · '.join(shown.loading_messages)})" if shown.loading_messages else ""
    return [f"[status] {BOT_NAME} {shown.status}{loading}"]


def ephemeral_transcript(ws: Workspace, user_id: str, channel_id: str | None = None) -> str:
    lines = [f"Only visible to {ws.user(user_id).name}"]
    for ephemeral in ws.ephemerals:
        if ephemeral.user_id != user_id or ephemeral.deleted:
            continue
        if channel_id is not None and ephemeral.channel_id != channel_id:
            continue
        lines += _ephemeral_lines(ws, ephemeral)
    return "\n".join(lines)


def view_transcript(view: dict[str, Any]) -> str:
    """A modal or App Home as text: title, blocks, then the submit/close buttons."""
    title = (view.get("title") or {}).get("text") or view.get("type", "view")
    lines = [f"[{title}]"]
    lines += [f"{_INDENT}{line}" for line in blocks_lines(view.get("blocks") or [])]
    buttons = [f"[{view[k]['text']}]" for k in ("close", "submit") if view.get(k)]
    if buttons:
        lines.append(_INDENT + " ".join(buttons))
    return "\n".join(lines)


def _conversation_title(ws: Workspace, channel_id: str) -> str:
    channel = ws.channel(channel_id)
    if channel.is_im:
        other = ws.users.get(channel.im_user or "")
        return f"DM with {other.name if other else channel.im_user}"
    return f"#{channel.name}"


def _author(ws: Workspace, message: StoredMessage) -> str:
    user = ws.users.get(message.user)
    name = user.name if user else message.user
    return f"{name} (app)" if message.bot else name


def _message_lines(ws: Workspace, message: StoredMessage) -> list[str]:
    if message.deleted:
        return ["(This message was deleted.)"]
    author = _author(ws, message)
    if message.blocks:
        body = blocks_lines(message.blocks)
    elif message.text or not (message.files or message.attachments):
        body = _text_lines(message.text)
    else:
        body = []
    for attachment in message.attachments or []:
        body += _text_lines(str(attachment.get("text") or attachment.get("fallback") or ""))
    for uploaded in message.files or []:
        body.append(f"[file: {uploaded.get('title') or uploaded.get('name')}]")
    suffix = " (edited)" if message.edited_ts else ""
    return _with_author(author + suffix, body)


def _ephemeral_lines(ws: Workspace, ephemeral: Ephemeral) -> list[str]:
    where = _conversation_title(ws, ephemeral.channel_id)
    author = f"suggestbot (app) in {where}" if ephemeral.from_bot else f"Slackbot in {where}"
    body = blocks_lines(ephemeral.blocks) if ephemeral.blocks else _text_lines(ephemeral.text)
    return _with_author(author, body)


def _with_author(author: str, body: list[str]) -> list[str]:
    body = [line for item in body for line in (item.splitlines() or [""])]
    if len(body) == 1:
        return [f"{author}: {body[0]}"]
    return [f"{author}:"] + [f"{_INDENT}{line}" for line in body]


def _text_lines(text: str) -> list[str]:
    return text.splitlines() or [""]


def blocks_lines(blocks: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for block in blocks:
        lines += _block_lines(block)
    return lines


def _block_lines(block: dict[str, Any]) -> list[str]:
    btype = block.get("type")
    if btype == "header":
        return [f"== {_text(block.get('text'))} =="]
    if btype == "divider":
        return ["---"]
    if btype == "section":
        lines = _text_lines(_text(block.get("text"))) if block.get("text") else []
        fields = [" ".join(_text(f).split("\n")) for f in block.get("fields") or []]
        if fields:
            lines.append(" | ".join(fields))
        accessory = block.get("accessory")
        if isinstance(accessory, dict):
            lines.append(_element(accessory))
        return lines
    if btype == "context":
        parts = [_element(e) if e.get("type") == "image" else _text(e) for e in block["elements"]]
        return [" · ".join(parts)]
    if btype == "actions":
        return [" ".join(_element(e) for e in block.get("elements") or [])]
    if btype == "image":
        title = f" {_text(block['title'])}" if block.get("title") else ""
        return [f"[image: {block.get('alt_text', '')}]{title}"]
    if btype == "input":
        return [f"{_text(block.get('label'))}: {_element(block.get('element') or {})}"]
    if btype == "rich_text":
        return _text_lines(_rich_text(block))
    if btype == "markdown":
        return _text_lines(str(block.get("text", "")))
    if btype == "card":
        return _card_lines(block, "[card]")
    if btype == "carousel":
        cards = [c for c in block.get("elements") or [] if isinstance(c, dict)]
        lines = []
        for index, card in enumerate(cards, start=1):
            lines += _card_lines(card, f"[card {index}/{len(cards)}]")
        return lines
    if btype == "context_actions":
        return [" ".join(_context_action(e) for e in block.get("elements") or [])]
    return [f"[{btype}]"]


def _card_lines(card: dict[str, Any], label: str) -> list[str]:
    heading = " · ".join(_text(card[k]) for k in ("title", "subtitle") if card.get(k))
    lines = [f"{label} {heading}".rstrip()]
    body = _text_lines(_text(card["body"])) if card.get("body") else []
    extras = [_element(card["hero_image"])] if isinstance(card.get("hero_image"), dict) else []
    extras += [_element(a) for a in card.get("actions") or [] if isinstance(a, dict)]
    if extras:
        body.append(" ".join(extras))
    return lines + [f"{_INDENT}{line}" for line in body]


def _context_action(element: dict[str, Any]) -> str:
    if element.get("type") == "feedback_buttons":
        return " ".join(
            f"[{_text((element.get(k) or {}).get('text'))}]"
            for k in ("positive_button", "negative_button")
        )
    return f"[{_text(element.get('text'))}]"


def _element(element: dict[str, Any]) -> str:
    etype = element.get("type")
    if etype == "button":
        return f"[{_text(element.get('text'))}]"
    if etype == "image":
        return f"[image: {element.get('alt_text', '')}]"
    if etype == "overflow":
        return "[⋯]"
    placeholder = _text(element.get("placeholder")) if element.get("placeholder") else ""
    return f"[{etype}{': ' + placeholder if placeholder else ''}]"


def _text(obj: Any) -> str:
    if isinstance(obj, dict):
        return str(obj.get("text", ""))
    return "" if obj is None else str(obj)


def _rich_text(block: dict[str, Any]) -> str:
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "text":
                out.append(str(node.get("text", "")))
            elif node.get("type") == "link":
                out.append(str(node.get("text") or node.get("url", "")))
            elif node.get("type") == "user":
                out.append(f"<@{node.get('user_id')}>")
            for child in node.get("elements") or []:
                walk(child)

    walk(block)
    return "".join(out)
