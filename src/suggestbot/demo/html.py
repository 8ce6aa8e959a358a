"""A self-contained HTML transcript of a Slack conversation: Block Kit rendered, images inlined.

The demo writes one so a person can see what the app posted without a Slack workspace; images
are fetched once while their signed URLs are still valid and embedded as data URIs (the file
holds no URL that could expire or leak). Cards of a carousel stand side by side, feedback
buttons show as their two labels, markdown blocks are rendered as markdown, and a thread whose
app is still working ends with its status line.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Slack's shortcodes for the emoji the app sends, as the characters they stand for (a test keeps
# every shortcode in the app's texts here, and a browser check that each one has a glyph).
_EMOJI = {
    "arrow_forward": "▶️",
    "bulb": "💡",
    "clock3": "🕒",
    "double_vertical_bar": "⏸️",
    "gear": "⚙️",
    "hourglass_flowing_sand": "⏳",
    "link": "🔗",
    "lock": "🔒",
    "memo": "📝",
    "newspaper": "📰",
    "outbox_tray": "📤",
    "snail": "🐌",
    "sparkles": "✨",
    "warning": "⚠️",
    "wastebasket": "🗑️",
    "white_check_mark": "✅",
    "x": "❌",
    "zzz": "💤",
}
_SHORTCODE = re.compile(r":([a-z0-9_+-]+):")


def emojize(text: str) -> str:
    """``text`` with each shortcode Slack would show as an emoji replaced by that emoji (others,
    like the ``:30:`` of a time, stay as they are)."""
    return _SHORTCODE.sub(lambda m: _EMOJI.get(m.group(1), m.group(0)), text)


_STYLE = "".join(
    [
        # Emoji fonts last: the text keeps its face, the emoji get colour glyphs.
        "body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif,Apple Color Emoji,"
        "Segoe UI Emoji,Noto Color Emoji;background:#f4f4f6;"
        "margin:0;padding:24px;color:#1d1c1d}",
        "h1{font-size:22px}",
        " h2{font-size:16px;margin:28px 0 8px;color:#555}",
        ".conv{background:#fff;border-radius:8px;padding:12px 16px;max-width:800px;"
        "box-shadow:0 1px 3px #0002}",
        ".msg{display:flex;gap:10px;padding:8px 0;border-top:1px solid #eee}",
        ".msg:first-child{border-top:0}",
        ".msg>div:last-child{min-width:0;flex:1}",
        ".avatar{width:36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;"
        "display:flex;align-items:center;justify-content:center;font-weight:bold;flex:none}",
        ".person .avatar{background:#1264a3}",
        ".who{font-weight:bold}",
        ".app{font-size:11px;background:#eee;border-radius:3px;padding:0 4px;margin-left:4px;"
        "color:#666}",
        ".thread{margin-left:46px;border-left:3px solid #ddd;padding-left:10px}",
        ".header{font-size:17px;font-weight:bold;margin:4px 0}",
        ".context{color:#616061;font-size:13px}",
        "blockquote{border-left:4px solid #ddd;margin:4px 0;padding-left:8px;color:#444}",
        ".plain{white-space:pre-wrap}",
        ".btn{display:inline-block;border:1px solid #bbb;border-radius:4px;padding:3px 10px;"
        "margin:4px 6px 0 0;font-size:13px}",
        ".btn.primary{background:#007a5a;color:#fff;border-color:#007a5a}",
        "img.block{max-width:360px;border-radius:6px;display:block;margin:6px 0}",
        ".eph{background:#f8f8fa;border-left:3px solid #999;padding:4px 8px;margin:4px 0}",
        "code{background:#f1f1f1;padding:0 3px;border-radius:3px}",
        ".carousel{display:flex;gap:10px;overflow-x:auto;padding:4px 0}",
        ".card{flex:0 0 200px;border:1px solid #ddd;border-radius:8px;padding:8px;background:#fff}",
        ".card img.block{max-width:100%}",
        ".card .title{font-weight:bold}",
        ".card .subtitle{color:#616061;font-size:13px}",
        ".btn.icon{border-radius:12px;padding:1px 8px}",
        ".md h1,.md h2,.md h3{font-size:15px;margin:6px 0}",
        ".md ul{margin:4px 0;padding-left:20px}",
        ".status{color:#616061;font-style:italic;font-size:13px;padding:6px 0}",
        ".select{display:inline-block;border:1px solid #bbb;border-radius:4px;padding:3px 10px;"
        "margin:4px 6px 0 0;font-size:13px;background:#fafafa}",
        ".prompts{margin:6px 0 4px 46px}",
        ".prompt{display:inline-block;border:1px solid #1264a3;color:#1264a3;border-radius:12px;"
        "padding:2px 10px;margin:0 6px 6px 0;font-size:13px}",
    ]
)


@dataclass
class Scene:
    """One step of the demo: a title and the messages it showed (with their thread replies)."""

    title: str
    messages: Sequence[Mapping[str, Any]] = ()
    replies: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    ephemerals: Sequence[str] = ()
    # thread root ts -> the status line shown under that thread (e.g. "is writing…")
    statuses: Mapping[str, str] = field(default_factory=dict)
    # the suggested prompts offered in the app's Messages tab (their titles)
    prompts: Sequence[str] = ()


def mrkdwn_to_html(text: str, names: Mapping[str, str]) -> str:
    """The subset of Slack's mrkdwn the app uses: bold, italic, code, quotes, mentions, dates."""
    text = re.sub(r"<!date\^\d+\^[^|>]*\|([^>]*)>", r"\1", text)
    text = re.sub(r"<@([A-Z0-9]+)>", lambda m: "@" + names.get(m.group(1), m.group(1)), text)
    text = re.sub(
        r"<#([A-Z0-9]+)(?:\|([^>]*))?>",
        lambda m: "#" + (m.group(2) or names.get(m.group(1), m.group(1))),
        text,
    )
    # Links, <url|label>: kept aside as markers while the rest is escaped.
    links: list[tuple[str, str]] = []

    def keep_link(match: re.Match[str]) -> str:
        url, label = (part.replace("&amp;", "&") for part in match.groups())
        links.append((url, label))
        return f"\x00{len(links) - 1}\x00"

    text = re.sub(r"<(https?://[^|>\s]+)\|([^>]*)>", keep_link, text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    out = html.escape(text)

    def link(match: re.Match[str]) -> str:
        url, label = links[int(match.group(1))]
        return f'<a href="{html.escape(url)}">{html.escape(label)}</a>'

    out = re.sub("\x00(\\d+)\x00", link, out)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])", r"<b>\1</b>", out)
    out = re.sub(r"(?<![\w_])_([^_\n]+)_(?![\w_])", r"<i>\1</i>", out)
    out = emojize(out)
    lines = []
    for line in out.split("\n"):
        lines.append(f"<blockquote>{line[5:]}</blockquote>" if line.startswith("&gt; ") else line)
    return "<br>".join(lines).replace("</blockquote><br>", "</blockquote>")


def markdown_to_html(text: str) -> str:
    """The subset of standard markdown a ``markdown`` block carries in practice: headings,
    bullet lists, bold, italic, strikethrough, inline code, links; everything else is escaped
    text."""
    blocks: list[str] = []
    items: list[str] = []

    def inline(line: str) -> str:
        out = emojize(html.escape(line))
        out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
        out = re.sub(r"\*\*([^*]+)\*\*|__([^_]+)__", lambda m: f"<b>{m[1] or m[2]}</b>", out)
        out = re.sub(r"~~([^~]+)~~", r"<s>\1</s>", out)
        out = re.sub(r"(?<![\w*])[*_]([^*_\n]+)[*_](?![\w*])", r"<i>\1</i>", out)
        return re.sub(r"\[([^\]]+)\]\((https?://[^)\s]+)\)", r'<a href="\2">\1</a>', out)

    def close_list() -> None:
        if items:
            blocks.append("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
            items.clear()

    for line in text.split("\n"):
        heading = re.match(r"(#{1,3}) (.*)", line)
        bullet = re.match(r"[-*] (.*)", line)
        if bullet:
            items.append(inline(bullet.group(1)))
            continue
        close_list()
        if heading:
            level = len(heading.group(1))
            blocks.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
        elif line.strip():
            blocks.append(inline(line) + "<br>")
    close_list()
    return '<div class="md">' + "".join(blocks) + "</div>"


def _text(obj: Mapping[str, Any] | None, names: Mapping[str, str]) -> str:
    if not obj:
        return ""
    if obj.get("type") == "plain_text":
        return f'<div class="plain">{emojize(html.escape(obj.get("text", "")))}</div>'
    return mrkdwn_to_html(obj.get("text", ""), names)


def _block(block: Mapping[str, Any], names: Mapping[str, str], image: Callable[[str], str]) -> str:
    kind = block.get("type")
    if kind == "header":
        return f'<div class="header">{emojize(html.escape(block["text"]["text"]))}</div>'
    if kind == "section":
        parts = [_text(block.get("text"), names)]
        parts += [_text(f, names) for f in block.get("fields") or []]
        return "<div>" + "".join(parts) + "</div>"
    if kind == "context":
        return (
            '<div class="context">'
            + " ".join(
                _text(e, names) if e.get("type") != "image" else "" for e in block["elements"]
            )
            + "</div>"
        )
    if kind == "image":
        src = image(block.get("image_url", ""))
        return f'<img class="block" src="{src}" alt="{html.escape(block.get("alt_text", ""))}">'
    if kind == "actions":
        buttons = [
            _button(e) if e.get("type") == "button" else _select(e)
            for e in block["elements"]
            if e.get("type") in ("button", "static_select")
        ]
        return "<div>" + "".join(buttons) + "</div>"
    if kind == "divider":
        return "<hr>"
    if kind == "markdown":
        return markdown_to_html(str(block.get("text", "")))
    if kind == "card":
        return _card(block, names, image)
    if kind == "carousel":
        cards = [_card(c, names, image) for c in block.get("elements") or []]
        return '<div class="carousel">' + "".join(cards) + "</div>"
    if kind == "context_actions":
        return "<div>" + "".join(_context_action(e) for e in block.get("elements") or []) + "</div>"
    return ""


def _select(element: Mapping[str, Any]) -> str:
    """A select as it shows before it is opened: its choice, else its placeholder."""
    shown = (element.get("initial_option") or {}).get("text") or element.get("placeholder") or {}
    return f'<span class="select">{emojize(html.escape(str(shown.get("text", ""))))} ▾</span>'


def _button(element: Mapping[str, Any], css: str = "") -> str:
    text = emojize(html.escape(str((element.get("text") or {}).get("text", ""))))
    return f'<span class="btn {css or element.get("style", "")}">{text}</span>'


def _card(card: Mapping[str, Any], names: Mapping[str, str], image: Callable[[str], str]) -> str:
    parts = ['<div class="card">']
    hero = card.get("hero_image")
    if isinstance(hero, Mapping) and hero.get("image_url"):
        alt = html.escape(str(hero.get("alt_text", "")))
        parts.append(f'<img class="block" src="{image(str(hero["image_url"]))}" alt="{alt}">')
    for key in ("title", "subtitle", "body"):
        if card.get(key):
            parts.append(f'<div class="{key}">{_text(card[key], names)}</div>')
    buttons = [_button(a) for a in card.get("actions") or [] if a.get("type") == "button"]
    if buttons:
        parts.append("<div>" + "".join(buttons) + "</div>")
    return "".join(parts) + "</div>"


def _context_action(element: Mapping[str, Any]) -> str:
    if element.get("type") == "feedback_buttons":
        return "".join(
            _button(element.get(key) or {}, "icon")
            for key in ("positive_button", "negative_button")
        )
    return _button(element, "icon")


def _message(msg: Mapping[str, Any], names: Mapping[str, str], image: Callable[[str], str]) -> str:
    is_bot = bool(msg.get("bot_id"))
    who = "suggestbot" if is_bot else names.get(msg.get("user", ""), msg.get("user", "?"))
    badge = '<span class="app">APP</span>' if is_bot else ""
    body = "".join(_block(b, names, image) for b in msg.get("blocks") or [])
    if not body:
        body = mrkdwn_to_html(msg.get("text", ""), names)
    css = "msg" if is_bot else "msg person"
    return (
        f'<div class="{css}"><div class="avatar">{html.escape(who[:1].upper())}</div>'
        f'<div><span class="who">{html.escape(who)}</span>{badge}<div>{body}</div></div></div>'
    )


def render_html(
    *,
    title: str,
    scenes: Sequence[Scene],
    names: Mapping[str, str],
    fetch: Callable[[str], bytes | None],
) -> str:
    """The transcript page. ``fetch`` returns an image's bytes (None when it cannot be had)."""
    cache: dict[str, str] = {}

    def image(url: str) -> str:
        if url not in cache:
            data = fetch(url) if url else None
            cache[url] = "data:image/png;base64," + base64.b64encode(data).decode() if data else ""
        return cache[url]

    parts = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title>"]
    parts.append(f"<style>{_STYLE}</style><h1>{html.escape(title)}</h1>")
    for scene in scenes:
        parts.append(f"<h2>{html.escape(scene.title)}</h2><div class='conv'>")
        for msg in scene.messages:
            parts.append(_message(msg, names, image))
            thread = scene.replies.get(str(msg.get("ts")), ())
            status = scene.statuses.get(str(msg.get("ts")))
            if thread or status:
                parts.append("<div class='thread'>")
                parts += [_message(r, names, image) for r in thread]
                if status:
                    parts.append(f"<div class='status'>suggestbot {html.escape(status)}</div>")
                parts.append("</div>")
        if scene.prompts:
            chips = "".join(
                f"<span class='prompt'>{emojize(html.escape(p))}</span>" for p in scene.prompts
            )
            parts.append(f"<div class='prompts'>{chips}</div>")
        for note in scene.ephemerals:
            parts.append(f"<div class='eph'>🔒 {mrkdwn_to_html(note, names)}</div>")
        parts.append("</div>")
    return "\n".join(parts)
