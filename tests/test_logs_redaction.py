"""Secrets never reach a log line, whichever library logs them."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import re
import secrets
from collections.abc import Callable, Iterator
from urllib.parse import urlencode

import httpx
import pytest
import uvicorn.config
from slack_bolt.logger.messages import warning_unhandled_by_global_middleware
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from suggestbot import logs
from suggestbot.asgi_thread import BackgroundServer
from suggestbot.logs import RedactingFilter, Redactor, configure_logging, redact, register_secret

SLACK_TOKEN = re.compile(r"xox[abposre]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+")
SANDBOX_TOKEN = re.compile(r"sbx_(?:at|ut|cs)_[A-Za-z0-9_-]+")

Capture = Callable[..., io.StringIO]


def slack_token(prefix: str = "xoxb") -> str:
    return (
        f"{prefix}-{secrets.randbelow(10**12)}-{secrets.randbelow(10**12)}-{secrets.token_hex(12)}"
    )


@pytest.fixture
def capture(monkeypatch: pytest.MonkeyPatch) -> Iterator[Capture]:
    """configure_logging into a buffer; afterwards put every logger back as it was."""
    monkeypatch.setattr(logs, "_REDACTOR", Redactor())
    names = ["", *logs._NON_PROPAGATING]
    saved = {
        name: (
            list(logging.getLogger(name).handlers),
            list(logging.getLogger(name).filters),
            logging.getLogger(name).propagate,
        )
        for name in names
    }
    root_level = logging.getLogger().level
    touched: list[logging.Handler] = []

    def configure(*, level: str = "DEBUG", json: bool = False) -> io.StringIO:
        buffer = io.StringIO()
        configure_logging(level=level, json=json, stream=buffer)
        touched.extend(logging.getLogger().handlers)
        return buffer

    yield configure

    for handler in touched:
        for each in [f for f in handler.filters if isinstance(f, RedactingFilter)]:
            handler.removeFilter(each)
    for name, (handlers, filters, propagate) in saved.items():
        logger = logging.getLogger(name)
        logger.filters[:] = filters
        for handler in list(logger.handlers):
            if handler not in handlers:
                logger.removeHandler(handler)
                handler.close()
        for handler in handlers:
            if handler not in logger.handlers:
                logger.addHandler(handler)
        logger.propagate = propagate
    logging.getLogger().setLevel(root_level)


# A minimal stand-in for Slack's Web API: enough for WebClient to log a full exchange.
async def slack_api(request: Request) -> JSONResponse:
    method = request.path_params["method"]
    if method == "oauth.v2.access":
        return JSONResponse(
            {
                "ok": True,
                "access_token": request.app.state.bot_token,
                "token_type": "bot",
                "authed_user": {"id": "U1", "access_token": request.app.state.user_token},
            }
        )
    return JSONResponse({"ok": True})


@pytest.fixture
def slack_server() -> Iterator[tuple[str, Starlette]]:
    app = Starlette(routes=[Route("/api/{method}", slack_api, methods=["GET", "POST"])])
    app.state.bot_token = slack_token("xoxb")
    app.state.user_token = slack_token("xoxp")
    with BackgroundServer(app) as server:
        yield f"{server.url}/api/", app


def test_slack_sdk_debug_lines_of_real_calls_are_redacted(
    capture: Capture, slack_server: tuple[str, Starlette]
) -> None:
    base_url, app = slack_server
    out = capture(level="DEBUG")
    client_secret = secrets.token_hex(16)
    legacy_token = slack_token("xoxb")
    client = WebClient(base_url=base_url)
    response = client.oauth_v2_access(client_id="111.222", client_secret=client_secret, code="c")
    assert response["access_token"] == app.state.bot_token
    # This call sends the client secret as a form parameter (slack_sdk moves the token to the
    # Authorization header, which it masks itself).
    client.oauth_v2_exchange(token=legacy_token, client_id="111.222", client_secret=client_secret)

    text = out.getvalue()
    assert "Sending a request - url:" in text
    assert "Received the following response" in text
    assert "'client_secret': '[redacted]'" in text
    assert '"access_token":"[redacted]"' in text
    assert SLACK_TOKEN.findall(text) == []
    assert client_secret not in text


def test_httpx_request_line_loses_the_query_of_a_signed_url(capture: Capture) -> None:
    out = capture(level="DEBUG")
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=b"\x89PNG"))
    with httpx.Client(transport=transport) as client:
        assert client.get("http://127.0.0.1:1/img/x.png?exp=1&sig=abc").status_code == 200
    text = out.getvalue()
    assert "HTTP Request: GET http://127.0.0.1:1/img/x.png?<redacted>" in text
    assert "sig=abc" not in text and "exp=1" not in text


@pytest.mark.parametrize(
    "name",
    [
        "slack_sdk.web.base_client",
        "slack_bolt.App",
        "httpx",
        "httpcore.http11",
        "apscheduler.scheduler",
        "uvicorn.error",
        "uvicorn.access",
        "sqlitedict",
        "suggestbot.jobs.watcher",
    ],
)
def test_every_library_logger_is_redacted(capture: Capture, name: str) -> None:
    # uvicorn's own config (applied by every uvicorn.Config) stops its loggers propagating.
    logging.config.dictConfig(uvicorn.config.LOGGING_CONFIG)
    out = capture(level="INFO")
    token = slack_token("xoxb")
    logging.getLogger(name).warning("calling with token %s", token)
    assert out.getvalue().endswith(f"WARNING {name}: calling with token [redacted]\n")


def test_uvicorn_error_log_stays_redacted_when_uvicorn_configures_itself_later(
    capture: Capture, capsys: pytest.CaptureFixture[str]
) -> None:
    capture(level="INFO")
    # What every uvicorn.Config does unless it is given log_config=None.
    logging.config.dictConfig(uvicorn.config.LOGGING_CONFIG)
    token = slack_token("xoxp")
    try:
        raise RuntimeError(f"listener failed with {token}")
    except RuntimeError:
        logging.getLogger("uvicorn.error").exception("Exception in ASGI application")
    err = capsys.readouterr().err
    assert "Exception in ASGI application" in err
    assert "RuntimeError: listener failed with [redacted]" in err
    assert token not in err


def test_registered_secrets_are_redacted_in_tracebacks(capture: Capture) -> None:
    out = capture(level="INFO")
    secret = f"personal-{secrets.token_hex(10)}"  # no pattern knows this shape
    register_secret(secret)

    def exchange() -> None:
        try:
            raise KeyError(f"unknown credential {secret}")
        except KeyError as exc:
            raise RuntimeError(f"exchange failed for {secret}") from exc

    try:
        exchange()
    except RuntimeError:
        logging.getLogger("suggestbot.contentapi").exception("giving up on %s", secret)

    text = out.getvalue()
    assert secret not in text
    assert "giving up on [redacted]" in text
    assert "Traceback (most recent call last)" in text
    assert "RuntimeError: exchange failed for [redacted]" in text
    assert "KeyError: 'unknown credential [redacted]'" in text
    assert text.count("\n") == 1  # one line per event, even with a traceback


def test_json_mode_emits_one_valid_redacted_object_per_line(capture: Capture) -> None:
    out = capture(level="INFO", json=True)
    log = logging.getLogger("suggestbot.slackapp")
    bot_token = slack_token("xoxb")
    log.info("posted to %s", "C1", extra={"run_id": "r1", "attempt": 2})
    log.warning(
        "token exchange said %s",
        '{"access_token": "sbx_at_AbC123", "expires_in": 900}',
        extra={"auth": f"Bearer {bot_token}", "request": {"client_secret": "hunter2hunter2"}},
    )
    try:
        raise ValueError(f"bad token {bot_token}")
    except ValueError:
        log.exception("failed")

    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    events = [json.loads(line) for line in lines]
    first, second, third = events
    assert {"ts", "level", "logger", "message"} <= first.keys()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", first["ts"])
    assert (first["level"], first["logger"], first["message"]) == (
        "INFO",
        "suggestbot.slackapp",
        "posted to C1",
    )
    assert (first["run_id"], first["attempt"]) == ("r1", 2)
    assert (
        second["message"] == 'token exchange said {"access_token": "[redacted]", "expires_in": 900}'
    )
    assert second["auth"] == "Bearer [redacted]"
    assert second["request"] == {"client_secret": "[redacted]"}
    assert "ValueError: bad token [redacted]" in third["exception"]
    everything = out.getvalue()
    assert bot_token not in everything and "hunter2" not in everything
    assert SANDBOX_TOKEN.findall(everything) == []


ORDINARY = [
    "run 5f0c2b1e-0c1d-4f7a-9a55-0e1f2a3b4c5d queued (attempt 2 of 3)",
    "user U0123ABC linked; see https://example.com/runs/42 for details",
    "posting 3 variants to C0456 thread 1712345678.000100",
    "token refreshed, expires_in=900 token_type=Bearer",
    "GET /v1/generation-runs?cursor=abc&limit=20 -> 200",
    "brief: 'Spring sale for runners', segment=athletes, use case=newsletter",
    "tokens_revoked event for T123",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(capture: Capture, text: str) -> None:
    register_secret("short")  # under 8 characters: ignored
    assert redact(text) == text
    out = capture(level="INFO")
    logging.getLogger("suggestbot").info("%s", text)
    assert out.getvalue().endswith(f"INFO suggestbot: {text}\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "grant_type=client_credentials&client_id=x&client_secret=sbx_cs_abc",
            "grant_type=client_credentials&client_id=x&client_secret=[redacted]",
        ),
        (
            '{"access_token": "opaque-value-123", "token_type": "Bearer"}',
            '{"access_token": "[redacted]", "token_type": "Bearer"}',
        ),
        (
            json.dumps('{"refresh_token": "r-123456", "expires_in": 900}'),
            json.dumps('{"refresh_token": "[redacted]", "expires_in": 900}'),
        ),
        ("Authorization: Bearer sbx_ut_Zz9-_", "Authorization: Bearer [redacted]"),
        ("Authorization: Basic Y2xpZW50OnNlY3JldA==", "Authorization: Basic [redacted]"),
        ("socket mode with xapp-1-A0B-123-abcdef", "socket mode with [redacted]"),
        ("step with xwfp-T1-Fx1-abcdef123", "step with [redacted]"),
        ("/oauth?code=abc&token=zzz-yyy", "/oauth?code=abc&token=[redacted]"),
        ("SUGGESTBOT_SECRET_KEYS=newkey,oldkey", "SUGGESTBOT_SECRET_KEYS=[redacted]"),
        (
            "image at https://cdn.example/a/b.png?X-Sig=abc&exp=9 (alt text)",
            "image at https://cdn.example/a/b.png?<redacted> (alt text)",
        ),
        # Slack's short-lived credentials: named by a key...
        (
            "command=%2Fsuggest&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F2%2Fab"
            "&trigger_id=13345224609.738474920.8088930838d88f008e0&user_id=U1",
            "command=%2Fsuggest&response_url=[redacted]&trigger_id=[redacted]&user_id=U1",
        ),
        (
            "{'trigger_id': '13345224609.738474920.80889308', 'view': {'private_metadata': "
            '\'{"response_url": "http://127.0.0.1:9/hooks/commands/T0/77aa"}\'}}',
            "{'trigger_id': '[redacted]', 'view': {'private_metadata': "
            '\'{"response_url": "[redacted]"}\'}}',
        ),
        (
            '{"response_urls": [{"block_id": "b", "response_url": "https://hooks.slack.com/app/x"}]}',
            '{"response_urls": [{"block_id": "b", "response_url": "[redacted]"}]}',
        ),
        ('"interactivity_pointer": "1.2.3"', '"interactivity_pointer": "[redacted]"'),
        # ...or recognised by shape: a request line, escaped JSON, a URL-encoded payload.
        (
            "Sending a request - url: https://hooks.slack.com/actions/T1/2/abc, body: {}",
            "Sending a request - url: https://hooks.slack.com/[redacted], body: {}",
        ),
        (
            'POST http://127.0.0.1:9/hooks/commands/T0EMU/0c60d8d05a "HTTP/1.1 200 OK"',
            'POST http://127.0.0.1:9/hooks/[redacted] "HTTP/1.1 200 OK"',
        ),
        (
            '{"u":"https:\\/\\/hooks.slack.com\\/actions\\/T1\\/2\\/abc"}',
            '{"u":"https:\\/\\/hooks.slack.com/[redacted]"}',
        ),
        (
            "payload=%7B%22u%22%3A%22https%3A%2F%2Fhooks.slack.com%2Fapp%2FT1%2F2%2Fab%22%7D",
            "payload=%7B%22u%22%3A%22https%3A%2F%2Fhooks.slack.com/[redacted]%22%7D",
        ),
        ("opened with 1795463675.552d566e.27517f3686283b21", "opened with [redacted]"),
    ],
)
def test_redact_known_shapes(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_registered_secret_is_redacted_also_url_encoded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "_REDACTOR", Redactor())
    secret = "abc/def+ghi=jkl"
    register_secret(secret)
    assert (
        redact(f"raw {secret} encoded abc%2Fdef%2Bghi%3Djkl") == "raw [redacted] encoded [redacted]"
    )


def test_bolt_and_socket_mode_dumps_of_a_request_lose_its_short_lived_credentials(
    capture: Capture,
) -> None:
    out = capture(level="DEBUG")
    response_url = f"https://hooks.slack.com/commands/T1/{secrets.randbelow(10**9)}/abcDEF123"
    trigger_id = f"{secrets.randbelow(10**10)}.{secrets.randbelow(10**9)}.{secrets.token_hex(16)}"
    form = urlencode(
        {
            "command": "/suggest",
            "text": "brief",
            "response_url": response_url,
            "trigger_id": trigger_id,
            "user_id": "U1",
        }
    )
    request = BoltRequest(
        body=form, headers={"content-type": ["application/x-www-form-urlencoded"]}
    )
    # Bolt's own dump of a request no middleware answered (a parsed body, as a dict repr)...
    logging.getLogger("slack_bolt.App").warning(
        warning_unhandled_by_global_middleware("m", request)
    )
    # ...and slack_sdk's Socket Mode client logging a raw envelope (Slack escapes "/" in JSON).
    envelope = json.dumps({"payload": {"response_url": response_url, "trigger_id": trigger_id}})
    logging.getLogger("slack_sdk.socket_mode.builtin.client").debug(
        "on_message invoked: (message: %s)", envelope.replace("/", "\\/")
    )
    text = out.getvalue()
    assert "'command': '/suggest'" in text and "on_message invoked" in text
    assert response_url not in text and trigger_id not in text
    assert "abcDEF123" not in text and trigger_id.rsplit(".", 1)[1] not in text
