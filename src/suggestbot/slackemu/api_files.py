"""File uploads the way Slack does them since ``files.upload`` was retired.

1. ``files.getUploadURLExternal`` hands out an upload URL and a file id;
2. the bytes are POSTed to that URL (served by the emulator, no token needed);
3. ``files.completeUploadExternal`` finishes the upload and may share it into a channel or
   thread, which posts a message carrying the file.

Only a completed upload can be read with ``files.info`` or shown by an image block's
``slack_file``. Shapes: slack-ruby/slack-api-ref methods/files/files.getUploadURLExternal.json
and files.completeUploadExternal.json (Slack's reference examples).
"""

from __future__ import annotations

from typing import Any

from suggestbot.slackemu.args import Args
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.model import BOT_USER_ID, UploadedFile
from suggestbot.slackemu.workspace import Workspace

MAX_ALT_TXT = 1000


def get_upload_url(ws: Workspace, args: Args) -> dict[str, Any]:
    filename = args.req("filename")
    length = args.number("length", 0)
    if length <= 0:
        raise ApiError("missing_argument")
    alt_txt = args.opt("alt_txt")
    if alt_txt is not None and len(alt_txt) > MAX_ALT_TXT:
        raise ApiError("alt_txt_too_large")
    file_id = ws.ids.new("F")
    ticket = ws.ids.token(16)
    ws.files[file_id] = UploadedFile(
        id=file_id,
        filename=filename,
        length=length,
        alt_txt=alt_txt,
        ticket=ticket,
        created=int(ws.wall_clock()),
        user=BOT_USER_ID,
    )
    ws.upload_tickets[ticket] = file_id
    return {"ok": True, "upload_url": f"{ws.base_url}upload/v1/{ticket}", "file_id": file_id}


def receive_upload(ws: Workspace, ticket: str, data: bytes) -> tuple[int, str]:
    """The upload URL itself: returns the HTTP status and the plain-text body Slack sends."""
    file_id = ws.upload_tickets.get(ticket)
    if file_id is None:
        return 404, "invalid_upload_url"
    uploaded = ws.files[file_id]
    if uploaded.completed:
        return 400, "upload_already_completed"
    if len(data) != uploaded.length:
        ws.warnings.append(
            f"upload of {uploaded.filename}: {len(data)} bytes sent, {uploaded.length} announced"
        )
    uploaded.content = data
    return 200, f"OK - {len(data)}"


def complete_upload(ws: Workspace, args: Args) -> dict[str, Any]:
    entries = args.structured("files", error="invalid_arguments")
    if not isinstance(entries, list) or not entries:
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: files"])
    targets = _share_targets(ws, args)
    uploads: list[UploadedFile] = []
    for entry in entries:
        uploaded = ws.files.get(str(entry.get("id"))) if isinstance(entry, dict) else None
        if uploaded is None or uploaded.content is None:
            raise ApiError("file_not_found")
        uploads.append(uploaded)
    for uploaded, entry in zip(uploads, entries, strict=True):
        uploaded.title = entry.get("title") or uploaded.title or uploaded.filename
        uploaded.completed = True
    thread_ts = args.opt("thread_ts")
    comment = args.opt("initial_comment") or ""
    for channel in targets:
        stored = ws.add_message(
            channel,
            user=BOT_USER_ID,
            text=comment,
            files=[u.to_api(ws.base_url) for u in uploads],
            thread_ts=thread_ts,
            bot=True,
        )
        for uploaded in uploads:
            share: dict[str, Any] = {"ts": stored.ts, "channel_name": channel.name}
            if stored.thread_ts:
                share["thread_ts"] = stored.thread_ts
            uploaded.shares.setdefault(channel.id, []).append(share)
    return {"ok": True, "files": [{"id": u.id, "title": u.title} for u in uploads]}


def files_info(ws: Workspace, args: Args) -> dict[str, Any]:
    uploaded = ws.files.get(args.req("file", error="file_not_found"))
    if uploaded is None or not uploaded.completed:
        raise ApiError("file_not_found")
    # shape: Slack docs, files.info response (file, comments, response_metadata)
    return {
        "ok": True,
        "file": uploaded.to_api(ws.base_url),
        "comments": [],
        "response_metadata": {"next_cursor": ""},
    }


def _share_targets(ws: Workspace, args: Args) -> list[Any]:
    ids: list[str] = []
    if args.has("channel_id"):
        ids.append(args.req("channel_id"))
    ids += [c for c in (args.opt("channels") or "").split(",") if c]
    targets = []
    for channel_id in ids:
        try:
            targets.append(ws.postable_channel(channel_id, allow_public_without_join=False))
        except ApiError as exc:
            if exc.error == "channel_not_found":
                raise ApiError("invalid_channel") from None
            raise
    return targets
