"""Junk at ``/slack/events``: refused before parsing, one log line each, never a traceback.

The app runs as a real process with DEBUG logs captured. Every unsigned or badly signed body
(malformed JSON, a bad ``payload=``, bytes that are not UTF-8, a non-numeric or stale
timestamp, missing headers) is answered 401; a body over the size limit 413 — before it is
read, whether ``Content-Length`` announces it or the body is streamed without one; a correctly
signed body that is not what Slack sends is 400. Each refusal is exactly one WARNING line
naming the reason; the log holds no traceback and the app keeps serving.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from reliability_harness import (
    StageFactory,
    result_problems,
    roots_by_tag,
    send_brief_by_modal,
    wait_for,
)

from suggestbot.demo.stage import ALICE, SIGNING_SECRET
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackapp.inbound import MAX_BODY_BYTES
from suggestbot.slackemu.signing import signed_headers

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
TAG = re.compile(r"\[p\d{2}\]")
REFUSED = re.compile(r"refused a request to /slack/events from \S+ with HTTP (\d{3}): (.+)")


def signed(body: bytes, *, age_s: int = 0) -> dict[str, str]:
    return signed_headers(
        signing_secret=SIGNING_SECRET, timestamp=int(time.time()) - age_s, body=body
    )


def raw_exchange(port: int, head: bytes, chunks: Iterator[bytes]) -> bytes:
    """Send ``head`` and then ``chunks`` while the server has not answered; its answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
        conn.sendall(head)
        conn.settimeout(0.05)
        answer = b""
        for chunk in chunks:
            with contextlib.suppress(TimeoutError):
                answer = conn.recv(4096)
            if answer:
                break
            try:
                conn.sendall(chunk)
            except OSError:  # the server answered and closed while we were still sending
                break
        conn.settimeout(20)
        while b"\r\n" not in answer:
            more = conn.recv(4096)
            if not more:
                break
            answer += more
        return answer


@pytest.mark.timeout(180)
def test_unsigned_malformed_and_oversized_bodies_are_refused_without_a_traceback(
    process_stage: StageFactory,
) -> None:
    stage = process_stage("refused")
    url = stage.app_url + EVENTS_PATH

    def post(body: bytes, headers: dict[str, str], content_type: str = JSON) -> int:
        reply = httpx.post(
            url, content=body, headers={"Content-Type": content_type, **headers}, timeout=20
        )
        return reply.status_code

    bad_json = b'{"type": "event_callback", "event": '
    bad_payload = b"payload=%7B%22type%22%3A+block_actions"
    not_utf8 = b"\xff\xfe\xfa token=abc&text=\xc3\x28"
    array = b'[{"type": "event_callback"}]'
    good = json.dumps({"type": "event_callback", "team_id": "T1", "event": {}}).encode()
    five_mb = b"x" * (5 * 1024 * 1024)
    ts_not_a_number = {**signed(good), "X-Slack-Request-Timestamp": "12a4"}
    cases: dict[str, tuple[int, int]] = {
        "unsigned malformed JSON": (post(bad_json, {}), 401),
        "unsigned bad payload=": (post(bad_payload, {}, FORM), 401),
        "unsigned non-UTF-8 bytes": (post(not_utf8, {}, FORM), 401),
        "non-numeric timestamp": (post(good, ts_not_a_number), 401),
        "stale timestamp": (post(good, signed(good, age_s=301)), 401),
        # Half a minute past the window: a future timestamp comes closer to it while the
        # request is on its way, so at 301 s a busy machine let it in (a 404 for this body).
        "timestamp from the future": (post(good, signed(good, age_s=-330)), 401),
        "signature missing": (
            post(good, {"X-Slack-Request-Timestamp": str(int(time.time()))}),
            401,
        ),
        "timestamp missing": (
            post(good, {"X-Slack-Signature": signed(good)["X-Slack-Signature"]}),
            401,
        ),
        "wrong signature": (post(good, {**signed(good), "X-Slack-Signature": "v0=00"}), 401),
        "unsigned 5 MB body": (post(five_mb, {}), 413),
        "signed 5 MB body": (post(five_mb, signed(five_mb)), 413),
        "signed malformed JSON": (post(bad_json, signed(bad_json)), 400),
        "signed bad payload=": (post(bad_payload, signed(bad_payload), FORM), 400),
        "signed non-UTF-8 bytes": (post(not_utf8, signed(not_utf8), FORM), 400),
        "signed JSON that is not an object": (post(array, signed(array)), 400),
    }

    # Announced as too big: refused before a single byte of the body is sent.
    announced = raw_exchange(
        stage.port,
        (
            f"POST {EVENTS_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {JSON}\r\n"
            f"Content-Length: {5 * 1024 * 1024}\r\n\r\n"
        ).encode(),
        iter([]),
    )
    cases["Content-Length over the limit, body never sent"] = (int(announced.split()[1]), 413)

    # Streamed without a length: refused once the limit is passed, long before the body ends.
    sent_chunks = 0
    piece = b"y" * 65536

    def stream() -> Iterator[bytes]:
        nonlocal sent_chunks
        for _ in range(4 * MAX_BODY_BYTES // len(piece)):
            sent_chunks += 1
            yield f"{len(piece):x}\r\n".encode() + piece + b"\r\n"

    streamed = raw_exchange(
        stage.port,
        (
            f"POST {EVENTS_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {JSON}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        ).encode(),
        stream(),
    )
    cases["chunked body over the limit"] = (int(streamed.split()[1]), 413)
    assert sent_chunks * len(piece) < 4 * MAX_BODY_BYTES  # the app did not wait for the end

    assert {name: got for name, (got, _) in cases.items()} == {
        name: want for name, (_, want) in cases.items()
    }

    # One WARNING line per refusal, naming the status; no traceback anywhere.
    wait_for(
        lambda: len(REFUSED.findall(stage.log_text())) >= len(cases),
        what="a log line per refusal",
    )
    log = stage.log_text()
    statuses = sorted(int(status) for status, _ in REFUSED.findall(log))
    assert statuses == sorted(want for _, want in cases.values())
    assert all(" WARNING " in line or '"WARNING"' in line for line in _refusal_lines(log))
    assert "Traceback" not in log
    assert "ERROR" not in log

    # The app still serves Slack's own requests: a brief that mentions payload is sent and
    # its result posted.
    assert stage.health() == 200
    stage.connect(ALICE)
    answer = send_brief_by_modal(stage, ALICE, "[p01] Our backpack's payload capacity", variants=1)
    assert answer.response.status == 200 and not answer.errors
    wait_for(
        lambda: any(
            not result_problems(stage, root, user=ALICE, variants=1)
            for root in roots_by_tag(stage, TAG).get("[p01]", [])
        ),
        what="the brief's result",
    )


def _refusal_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if REFUSED.search(line)]
