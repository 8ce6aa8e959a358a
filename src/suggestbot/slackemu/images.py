"""Optional check that every ``image_url`` can be downloaded, as Slack does when it posts.

Slack fetches an image block's URL when the message is posted and refuses the message with
``invalid_blocks`` / ``downloading image failed`` when it cannot (a common cause: a signed
URL that has already expired). The emulator does the same when built with
``check_image_urls=True``. URLs are probed before the workspace lock is taken, so a slow
image server never stalls the rest of the emulator. The probe uses urllib rather than httpx
because httpx logs every URL it requests, and image URLs are often signed.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

PROBE_TIMEOUT_S = 2.0
DOWNLOAD_FAILED = "downloading image failed"


def image_urls(value: Any) -> set[str]:
    """Every ``image_url`` inside ``value`` (dicts, lists and JSON-encoded strings)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and item[:1] in ("[", "{"):
            try:
                stack.append(json.loads(item))
            except json.JSONDecodeError:
                continue
        elif isinstance(item, dict):
            url = item.get("image_url")
            if isinstance(url, str) and url:
                found.add(url)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def probe(urls: set[str]) -> dict[str, str | None]:
    """``url -> None`` when it serves an image, else the reason Slack gives."""
    return {url: _probe_one(url) for url in sorted(urls)}


def _probe_one(url: str) -> str | None:
    if not url.lower().startswith(("http://", "https://")):
        return DOWNLOAD_FAILED
    try:
        with urllib.request.urlopen(url, timeout=PROBE_TIMEOUT_S) as reply:
            is_image = reply.headers.get_content_type().startswith("image/")
            return None if reply.status == 200 and is_image else DOWNLOAD_FAILED
    except (urllib.error.URLError, OSError, ValueError):
        return DOWNLOAD_FAILED
