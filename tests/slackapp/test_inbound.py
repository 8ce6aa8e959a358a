"""The request gate's pieces: the signature on raw bytes, and reading a body by its type.

The whole gate, over HTTP against the app as a process, is in
``tests/reliability/test_reliability_refused_requests.py``.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

from suggestbot.slackapp.inbound import Refused, check_signature, parse_slack_body
from suggestbot.slackemu.signing import signed_headers

SECRET = "gate-signing-secret-0123456789"
NOW = 1_800_000_000


def headers_for(body: bytes, *, timestamp: int = NOW, secret: str = SECRET) -> dict[str, str]:
    signed = signed_headers(signing_secret=secret, timestamp=timestamp, body=body)
    return {k.lower(): v for k, v in signed.items()}


def refusal(body: bytes, headers: dict[str, str]) -> tuple[int, str] | None:
    try:
        check_signature(body, headers, signing_secret=SECRET, clock=lambda: NOW)
    except Refused as refused:
        return refused.status, refused.reason
    return None


def test_slacks_signature_passes_even_on_bytes_that_are_not_text() -> None:
    for body in (b'{"type": "event_callback"}', b"\xff\xfe not utf-8", b""):
        assert refusal(body, headers_for(body)) is None


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"x-slack-signature": None}, "no signature or timestamp header"),
        ({"x-slack-request-timestamp": None}, "no signature or timestamp header"),
        ({"x-slack-request-timestamp": "17e8"}, "timestamp is not a number"),
        ({"x-slack-request-timestamp": "-1"}, "timestamp is not a number"),
        ({"x-slack-request-timestamp": str(NOW - 301)}, "timestamp 301 s away from now"),
        ({"x-slack-request-timestamp": str(NOW + 301)}, "timestamp 301 s away from now"),
        ({"x-slack-signature": "v0=deadbeef"}, "signature does not match"),
        ({"x-slack-signature": "v0=ü"}, "signature does not match"),
    ],
)
def test_anything_else_is_401_with_its_reason(change: dict[str, str | None], reason: str) -> None:
    body = b"token=x&text=hello"
    headers = {**headers_for(body), **change}
    assert refusal(body, {k: v for k, v in headers.items() if v is not None}) == (401, reason)


def test_a_signature_made_with_another_secret_or_for_other_bytes_is_refused() -> None:
    body = b"token=x&text=hello"
    assert refusal(body, headers_for(body, secret="another-secret-0123456789")) is not None
    assert refusal(body + b"!", headers_for(body)) == (401, "signature does not match")
    # Five minutes either way is Slack's own window.
    assert refusal(body, headers_for(body, timestamp=NOW - 300)) is None


@pytest.mark.parametrize(
    ("text", "content_type"),
    [
        ('{"type": "event_callback", "event": ', "application/json"),
        ("[1, 2]", "application/json"),
        ("", "application/json"),
        ("payload=%7Bnot+json", "application/x-www-form-urlencoded"),
        ("payload=%5B%5D", "application/x-www-form-urlencoded"),
    ],
)
def test_a_body_that_is_not_what_slack_sends_is_400(text: str, content_type: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_slack_body(text, content_type=content_type)
    assert refused.value.status == 400


def test_bodies_are_read_by_their_type() -> None:
    event = {"type": "event_callback", "event": {"text": "payload=1&x"}}
    assert parse_slack_body(json.dumps(event), content_type="application/json") == event
    assert parse_slack_body(json.dumps(event), content_type="text/plain; charset=utf-8") == event
    action = {"type": "block_actions", "actions": [{"value": "payload"}]}
    form = urlencode({"payload": json.dumps(action)})
    assert parse_slack_body(form, content_type="application/x-www-form-urlencoded") == action
    command = urlencode({"command": "/suggest", "text": "payload=capacity & more"})
    assert parse_slack_body(command, content_type=None) == {
        "command": "/suggest",
        "text": "payload=capacity & more",
    }
