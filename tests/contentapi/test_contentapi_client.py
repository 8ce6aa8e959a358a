"""ContentClient against a scripted service: endpoints, paging, retries, failures."""

from __future__ import annotations

import logging
import ssl
from collections.abc import Generator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from contentapi_fakes import (
    SIGNED_URL,
    TS,
    FakeService,
    SleepRecorder,
    body_of,
    collection,
    email_json,
    error_response,
    make_client,
    run_json,
    set_json,
    social_json,
    thread_json,
)

from suggestbot.contentapi import (
    AssetNotFound,
    ContentClient,
    DraftEmailSuggestionRequest,
    EmailPayload,
    ImageMode,
    InvalidAssetRef,
    InvalidResponse,
    NotFound,
    RateLimited,
    RefinementRequest,
    RunCreationUncertain,
    RunStatus,
    ServerError,
    SteeredGenerationRequest,
    SteeringDisabled,
    Timeout,
    TransportError,
    UnsupportedSuggestion,
    UserTokenAuth,
    UserTokenRequired,
    ValidationFailed,
    decisions,
)
from suggestbot.contentapi.retry import DEFAULT_RETRY_AFTER_S, INITIAL_BACKOFF_S

NOW = datetime(2024, 5, 1, 10, 0, 0, tzinfo=UTC)


@pytest.fixture
def service() -> FakeService:
    return FakeService()


@pytest.fixture
def sleep_and_client(
    service: FakeService,
) -> Generator[tuple[SleepRecorder, ContentClient], None, None]:
    client, _, sleep = make_client(service, now=lambda: NOW)
    yield sleep, client
    client.close()


@pytest.fixture
def client(sleep_and_client: tuple[SleepRecorder, ContentClient]) -> ContentClient:
    return sleep_and_client[1]


@pytest.fixture
def sleep(sleep_and_client: tuple[SleepRecorder, ContentClient]) -> SleepRecorder:
    return sleep_and_client[0]


def _query(request: httpx.Request) -> dict[str, list[str]]:
    return parse_qs(request.url.query.decode())


# --- paging ---------------------------------------------------------------------------------------


def test_a_short_page_with_a_cursor_is_not_the_end(
    service: FakeService, client: ContentClient
) -> None:
    service.on(
        "GET",
        "/v1/threads",
        collection([thread_json("t1"), thread_json("t2")], next_cursor="c/1=="),
        collection([], next_cursor="c2"),
        collection([thread_json("t3")], next_cursor=None),
    )
    ids = [t.id for t in client.iter_threads(limit=50)]
    assert ids == ["t1", "t2", "t3"]
    requests = service.requests_to("GET", "/v1/threads")
    assert [_query(r).get("cursor") for r in requests] == [None, ["c/1=="], ["c2"]]
    assert all(_query(r)["limit"] == ["50"] for r in requests)


def test_an_id_repeated_across_pages_is_yielded_once(
    service: FakeService, client: ContentClient
) -> None:
    service.on(
        "GET",
        "/v1/generation-runs",
        collection([run_json("r1"), run_json("r2")], next_cursor="c1"),
        collection([run_json("r2"), run_json("r3")], next_cursor=None),
    )
    runs = list(client.iter_runs(created_by="user-1"))
    assert [r.id for r in runs] == ["r1", "r2", "r3"]
    assert all(_query(r)["created_by"] == ["user-1"] for r in service.api_requests)


def test_a_cursor_that_repeats_stops_instead_of_looping(
    service: FakeService, client: ContentClient, caplog: pytest.LogCaptureFixture
) -> None:
    service.on(
        "GET",
        "/v1/suggestion-sets",
        collection([set_json("s1")], next_cursor="same"),
        collection([set_json("s2")], next_cursor="same"),
    )
    with caplog.at_level(logging.WARNING):
        ids = [s.id for s in client.iter_suggestion_sets()]
    assert ids == ["s1", "s2"]
    assert len(service.api_requests) == 2
    assert "cursor" in caplog.text


def test_one_page_at_a_time_keeps_the_cursor_for_a_more_button(
    service: FakeService, client: ContentClient
) -> None:
    service.on(
        "GET",
        "/v1/threads",
        collection([thread_json("t1")], next_cursor="next-1"),
        collection([thread_json("t2")], next_cursor=None),
    )
    first = client.list_threads_page(segment_id="seg-1", created_by="user-1", limit=1)
    assert [t.id for t in first.items] == ["t1"]
    assert first.has_more
    second = client.list_threads_page(cursor=first.next_cursor, segment_id="seg-1", limit=1)
    assert [t.id for t in second.items] == ["t2"]
    assert not second.has_more
    query = _query(service.api_requests[0])
    assert query == {"segment_id": ["seg-1"], "created_by": ["user-1"], "limit": ["1"]}
    assert _query(service.api_requests[1])["cursor"] == ["next-1"]


@pytest.mark.parametrize(
    "call",
    [
        lambda c: list(c.iter_threads(limit=101)),
        lambda c: c.list_threads_page(limit=101),
        lambda c: list(c.iter_runs(limit=101)),
        lambda c: c.list_runs_page(limit=101),
        lambda c: list(c.iter_suggestion_sets(limit=101)),
        lambda c: c.list_suggestion_sets_page(limit=0),
    ],
)
def test_limit_above_100_is_rejected_before_sending(
    service: FakeService, client: ContentClient, call: object
) -> None:
    with pytest.raises(ValueError, match="between 1 and 100"):
        call(client)  # type: ignore[operator]
    assert service.api_requests == []
    assert service.token_requests == []


def test_limit_of_100_is_sent(service: FakeService, client: ContentClient) -> None:
    service.on("GET", "/v1/suggestion-sets", collection([]))
    assert client.list_suggestion_sets_page(limit=100).items == []
    assert _query(service.api_requests[0])["limit"] == ["100"]


# --- reads ----------------------------------------------------------------------------------------


def test_segments_and_use_cases(service: FakeService, client: ContentClient) -> None:
    service.on("GET", "/v1/segments", collection([{"id": "s1", "name": "Cyclists", "x": 1}]))
    service.on("GET", "/v1/use-cases", collection([{"id": "u1", "name": "Spring sale"}]))
    assert [(s.id, s.name) for s in client.list_segments()] == [("s1", "Cyclists")]
    assert [u.name for u in client.list_use_cases()] == ["Spring sale"]


def test_inspiration_keeps_known_suggestions_and_skips_an_unknown_kind(
    service: FakeService, client: ContentClient
) -> None:
    unknown = {"id": "sg-x", "kind": "carousel", "variant_no": 1, "payload": {"cards": []}}
    service.on(
        "GET",
        "/v1/inspiration",
        collection([set_json(suggestions=[unknown, email_json("sg-2", 2), email_json("sg-3", 3)])]),
    )
    (newest,) = client.get_inspiration(segment_id="seg-1", use_case_id="uc-1", locale="en")
    assert [s.id for s in newest.suggestions] == ["sg-2", "sg-3"]
    assert newest.skipped_kinds == ("carousel",)
    assert _query(service.api_requests[0]) == {
        "segment_id": ["seg-1"],
        "use_case_id": ["uc-1"],
        "locale": ["en"],
    }


def test_inspiration_with_asset_urls_and_version(
    service: FakeService, client: ContentClient
) -> None:
    service.on(
        "GET", "/v1/inspiration", collection([set_json(suggestions=[social_json(url=SIGNED_URL)])])
    )
    (chosen,) = client.get_inspiration(
        segment_id="seg-1", use_case_id="uc-1", locale="de", version=3, asset_urls=True
    )
    query = _query(service.api_requests[0])
    assert query["expand"] == ["asset_urls"]
    assert query["version"] == ["3"]
    asset = chosen.suggestions[0].asset
    assert asset is not None
    assert asset.reveal_url() == SIGNED_URL
    assert SIGNED_URL not in repr(chosen)


def test_empty_inspiration_is_an_empty_list(service: FakeService, client: ContentClient) -> None:
    service.on("GET", "/v1/inspiration", collection([]))
    assert client.get_inspiration(segment_id="s", use_case_id="u", locale="en") == []


def test_suggestion_with_lineage(service: FakeService, client: ContentClient) -> None:
    lineage = [
        {
            "id": "sg-0",
            "suggestion_set_id": "set-0",
            "kind": "email",
            "variant_no": 1,
            "created_at": TS,
            "instruction": None,
        }
    ]
    service.on("GET", "/v1/suggestions/sg-1", httpx.Response(200, json=email_json(lineage=lineage)))
    suggestion = client.get_suggestion(id="sg-1", lineage=True)
    assert _query(service.api_requests[0]) == {"expand": ["lineage"]}
    assert suggestion.lineage is not None
    assert suggestion.lineage[0].id == "sg-0"
    client.get_suggestion(id="sg-1")
    assert _query(service.api_requests[1]) == {}


def test_a_single_suggestion_of_unknown_kind_raises_unsupported(
    service: FakeService, client: ContentClient
) -> None:
    service.on(
        "GET",
        "/v1/suggestions/sg-9",
        httpx.Response(200, json={"id": "sg-9", "kind": "podcast", "variant_no": 1}),
    )
    with pytest.raises(UnsupportedSuggestion) as excinfo:
        client.get_suggestion(id="sg-9")
    assert excinfo.value.kind == "podcast"
    assert excinfo.value.reason == "unknown_kind"


def test_get_suggestion_set_run_and_thread(service: FakeService, client: ContentClient) -> None:
    service.on("GET", "/v1/suggestion-sets/set-1", httpx.Response(200, json=set_json()))
    service.on("GET", "/v1/generation-runs/run-1", httpx.Response(200, json=run_json()))
    service.on("GET", "/v1/threads/th-1", httpx.Response(200, json=thread_json(turns=True)))
    assert client.get_suggestion_set(id="set-1").suggestions[0].id == "sg-1"
    run = client.get_run(run_id="run-1")
    assert run.status is RunStatus.QUEUED
    assert isinstance(run.request, SteeredGenerationRequest)
    thread = client.get_thread(thread_id="th-1")
    assert thread.turns is not None
    assert thread.turns[0].suggestion_id == "sg-1"


def test_ids_cannot_add_path_levels(service: FakeService, client: ContentClient) -> None:
    with pytest.raises(NotFound):
        client.get_thread(thread_id="../segments")
    assert service.api_requests[0].url.raw_path == b"/v1/threads/..%2Fsegments"


def test_a_naive_timestamp_in_a_response_is_an_invalid_response_without_the_url(
    service: FakeService, client: ContentClient, caplog: pytest.LogCaptureFixture
) -> None:
    bad = set_json(suggestions=[social_json(url=SIGNED_URL)])
    bad["suggestions"][0]["payload"]["asset"]["url_expires_at"] = "2024-05-01T10:15:00"
    service.on("GET", "/v1/inspiration", collection([bad]))
    with caplog.at_level(logging.DEBUG), pytest.raises(InvalidResponse) as excinfo:
        client.get_inspiration(segment_id="s", use_case_id="u", locale="en", asset_urls=True)
    message = str(excinfo.value)
    assert "url_expires_at" in message
    assert "timezone" in message
    assert "topsecretsignature" not in message
    assert excinfo.value.__cause__ is None
    assert "topsecretsignature" not in caplog.text


def test_a_success_that_is_not_json_is_an_invalid_response(
    service: FakeService, client: ContentClient
) -> None:
    service.on("GET", "/v1/segments", httpx.Response(200, content=b"<html>maintenance</html>"))
    with pytest.raises(InvalidResponse, match="not JSON"):
        client.list_segments()


def test_get_me_is_optional(service: FakeService, client: ContentClient) -> None:
    assert client.get_me() is None
    service.on("GET", "/v1/me", httpx.Response(200, json={"tenant": None, "tenants": []}))
    assert client.get_me() == {"tenant": None, "tenants": []}


# --- writes ---------------------------------------------------------------------------------------


def test_create_steered_run(service: FakeService, client: ContentClient) -> None:
    service.user_tokens.add("u-tok")
    service.on("POST", "/v1/generation-runs", httpx.Response(202, json=run_json()))
    request = SteeredGenerationRequest(
        segment_id="seg-1", use_case_id="uc-1", steering_text="Spring sale", variant_count=2
    )
    run = client.as_user("u-tok").create_run(request=request)
    assert run.attempt_count == 0
    assert body_of(service.api_requests[0]) == {
        "type": "steered_generation",
        "segment_id": "seg-1",
        "use_case_id": "uc-1",
        "steering_text": "Spring sale",
        "variant_count": 2,
    }


def test_refinement_without_image_does_not_send_the_field(
    service: FakeService, client: ContentClient
) -> None:
    service.on("POST", "/v1/generation-runs", httpx.Response(202, json=run_json()))
    client.create_run(request=RefinementRequest(parent_suggestion_id="sg-1", instruction="Shorter"))
    client.create_run(
        request=RefinementRequest(
            parent_suggestion_id="sg-1", instruction="New picture", image=ImageMode.REGENERATE
        )
    )
    first, second = (body_of(r) for r in service.api_requests)
    assert first == {"type": "refinement", "parent_suggestion_id": "sg-1", "instruction": "Shorter"}
    assert second["image"] == "regenerate"


def test_machine_token_on_run_creation_is_user_token_required(
    service: FakeService, client: ContentClient
) -> None:
    service.on(
        "POST",
        "/v1/generation-runs",
        error_response(403, "user_token_required", "Signed-in user required"),
    )
    with pytest.raises(UserTokenRequired):
        client.create_run(
            request=SteeredGenerationRequest(segment_id="s", use_case_id="u", steering_text="b")
        )


def test_steering_disabled(service: FakeService, client: ContentClient) -> None:
    service.on("POST", "/v1/generation-runs", error_response(403, "steering_disabled", "Off"))
    with pytest.raises(SteeringDisabled):
        client.create_run(
            request=SteeredGenerationRequest(segment_id="s", use_case_id="u", steering_text="b")
        )


def test_rename_is_a_patch_with_the_name(service: FakeService, client: ContentClient) -> None:
    service.on(
        "PATCH",
        "/v1/threads/th-1",
        httpx.Response(200, json=thread_json(name="Spring sale v2", turns=True)),
    )
    thread = client.rename_thread(thread_id="th-1", name="  Spring   sale v2 ")
    assert thread.name == "Spring sale v2"
    assert body_of(service.api_requests[0]) == {"name": "  Spring   sale v2 "}


def test_rename_validation_error(service: FakeService, client: ContentClient) -> None:
    service.on(
        "PATCH",
        "/v1/threads/th-1",
        error_response(422, "validation_error", "Invalid", {"validation": [{"loc": ["name"]}]}),
    )
    with pytest.raises(ValidationFailed) as excinfo:
        client.rename_thread(thread_id="th-1", name="x")
    assert excinfo.value.validation == [{"loc": ["name"]}]


def test_create_draft(service: FakeService, client: ContentClient) -> None:
    service.on(
        "POST", "/v1/suggestions", httpx.Response(201, json=email_json(suggestion_set_id=None))
    )
    request = DraftEmailSuggestionRequest(
        segment_id="seg-1",
        use_case_id="uc-1",
        payload=EmailPayload(subject="Hi", body="Written by me"),
    )
    suggestion = client.create_draft(request=request)
    assert suggestion.suggestion_set_id is None
    assert body_of(service.api_requests[0]) == {
        "kind": "email",
        "segment_id": "seg-1",
        "use_case_id": "uc-1",
        "payload": {"subject": "Hi", "body": "Written by me"},
    }


def test_trigger_inspiration(service: FakeService, client: ContentClient) -> None:
    service.on("POST", "/v1/inspiration", httpx.Response(202))
    assert client.trigger_inspiration(segment_id="seg-1", use_case_id="uc-1") is None
    assert body_of(service.api_requests[0]) == {"segment_id": "seg-1", "use_case_id": "uc-1"}


# --- minting --------------------------------------------------------------------------------------


def _mint_echo(*, reverse: bool = False):  # type: ignore[no-untyped-def]
    def answer(request: httpx.Request) -> httpx.Response:
        refs = body_of(request)["refs"]
        items = [
            {
                "ref": ref,
                "url": f"https://img.test/{ref[6:]}?sig=secret",
                "url_expires_at": "2024-05-01T10:15:00Z",
            }
            for ref in refs
        ]
        return collection(list(reversed(items)) if reverse else items)

    return answer


def test_150_refs_mint_in_two_calls_in_order(service: FakeService, client: ContentClient) -> None:
    service.on("POST", "/v1/assets/urls", _mint_echo(reverse=True))
    refs = [f"image:img-{i:03d}" for i in range(150)]
    minted = client.mint_asset_urls(refs=refs)
    calls = [body_of(r)["refs"] for r in service.api_requests]
    assert [len(c) for c in calls] == [100, 50]
    assert calls[0] + calls[1] == refs
    assert [m.ref for m in minted] == refs
    assert minted[149].reveal_url() == "https://img.test/img-149?sig=secret"


def test_repeated_refs_are_minted_once_and_answered_for_each(
    service: FakeService, client: ContentClient
) -> None:
    service.on("POST", "/v1/assets/urls", _mint_echo())
    minted = client.mint_asset_urls(refs=["image:a", "image:b", "image:a"])
    assert body_of(service.api_requests[0])["refs"] == ["image:a", "image:b"]
    assert [m.ref for m in minted] == ["image:a", "image:b", "image:a"]


def test_minting_nothing_sends_nothing(service: FakeService, client: ContentClient) -> None:
    assert client.mint_asset_urls(refs=[]) == []
    assert service.api_requests == []


def test_an_unknown_prefix_is_rejected_before_sending(
    service: FakeService, client: ContentClient
) -> None:
    with pytest.raises(InvalidAssetRef, match="video:"):
        client.mint_asset_urls(refs=["image:a", "video:x"])
    assert service.api_requests == []


def test_a_foreign_ref_fails_the_whole_mint(service: FakeService, client: ContentClient) -> None:
    service.on("POST", "/v1/assets/urls", error_response(404, "asset_not_found", "Unknown ref"))
    with pytest.raises(AssetNotFound):
        client.mint_asset_urls(refs=["image:other-tenant"])


def test_a_ref_the_service_finds_malformed_is_a_validation_failure(
    service: FakeService, client: ContentClient
) -> None:
    service.on(
        "POST",
        "/v1/assets/urls",
        error_response(decisions.MALFORMED_ASSET_REF_STATUS, "validation_error", "Bad ref"),
    )
    with pytest.raises(ValidationFailed):
        client.mint_asset_urls(refs=["image:has spaces"])


def test_an_answer_missing_a_ref_is_invalid(service: FakeService, client: ContentClient) -> None:
    service.on("POST", "/v1/assets/urls", collection([]))
    with pytest.raises(InvalidResponse, match="missing"):
        client.mint_asset_urls(refs=["image:a"])


# --- retries and failures -------------------------------------------------------------------------


def test_a_5xx_on_a_read_is_retried_then_succeeds(
    service: FakeService,
    client: ContentClient,
    sleep: SleepRecorder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    service.on(
        "GET",
        "/v1/threads/th-1",
        error_response(503, "unavailable", "Try later"),
        httpx.Response(200, json=thread_json()),
    )
    with caplog.at_level(logging.WARNING):
        assert client.get_thread(thread_id="th-1").id == "th-1"
    assert len(service.api_requests) == 2
    assert len(sleep.delays) == 1
    assert 0.75 * INITIAL_BACKOFF_S <= sleep.delays[0] <= INITIAL_BACKOFF_S
    assert "HTTP 503" in caplog.text
    assert "/v1/threads/th-1" in caplog.text


def test_a_read_that_keeps_failing_raises_server_error_after_the_retries(
    service: FakeService, client: ContentClient, sleep: SleepRecorder
) -> None:
    service.on("GET", "/v1/segments", httpx.Response(502, content=b"Bad gateway"))
    with pytest.raises(ServerError) as excinfo:
        client.list_segments()
    assert excinfo.value.status == 502
    assert "without an error envelope" in str(excinfo.value)
    assert len(service.api_requests) == 3  # 1 + max_retries
    assert len(sleep.delays) == 2
    assert sleep.delays[1] > sleep.delays[0] * 0.75  # grows (jitter only shortens)


def test_a_connect_error_on_a_read_is_retried(
    service: FakeService, client: ContentClient, sleep: SleepRecorder
) -> None:
    service.on(
        "GET",
        "/v1/segments",
        httpx.ConnectError("Connection refused"),
        collection([{"id": "s1", "name": "n"}]),
    )
    assert client.list_segments()[0].id == "s1"
    assert len(sleep.delays) == 1


def test_a_connect_error_that_persists_is_a_transport_error(
    service: FakeService, client: ContentClient
) -> None:
    service.on("GET", "/v1/segments", httpx.ConnectError("Connection refused"))
    with pytest.raises(TransportError) as excinfo:
        client.list_segments()
    assert excinfo.value.status is None
    assert "ConnectError" in str(excinfo.value)


def test_a_read_timeout_is_not_retried(service: FakeService, client: ContentClient) -> None:
    service.on("GET", "/v1/segments", httpx.ReadTimeout("timed out"))
    with pytest.raises(Timeout):
        client.list_segments()
    assert len(service.api_requests) == 1


def test_a_5xx_during_the_token_exchange_is_retried_for_a_read(
    service: FakeService, client: ContentClient, sleep: SleepRecorder
) -> None:
    service.token_answers.append(httpx.Response(500, content=b"oops"))
    service.on("GET", "/v1/segments", collection([]))
    assert client.list_segments() == []
    assert len(service.token_requests) == 2
    assert len(sleep.delays) == 1


def test_a_5xx_on_run_creation_is_not_retried(
    service: FakeService, client: ContentClient, sleep: SleepRecorder
) -> None:
    service.on(
        "POST",
        "/v1/generation-runs",
        error_response(500, "internal", "Boom"),
        httpx.Response(202, json=run_json()),
    )
    with pytest.raises(ServerError):
        client.create_run(
            request=SteeredGenerationRequest(segment_id="s", use_case_id="u", steering_text="b")
        )
    assert len(service.api_requests) == 1
    assert sleep.delays == []


def test_a_timeout_on_run_creation_is_run_creation_uncertain(
    service: FakeService, client: ContentClient, sleep: SleepRecorder
) -> None:
    service.on("POST", "/v1/generation-runs", httpx.ReadTimeout("timed out"))
    with pytest.raises(RunCreationUncertain) as excinfo:
        client.create_run(
            request=SteeredGenerationRequest(segment_id="s", use_case_id="u", steering_text="b")
        )
    assert not isinstance(excinfo.value, TransportError)  # generic handlers must not resend it
    assert "may exist" in str(excinfo.value)
    assert len(service.api_requests) == 1
    assert sleep.delays == []


def test_a_dropped_connection_on_run_creation_is_run_creation_uncertain(
    service: FakeService, client: ContentClient
) -> None:
    service.on("POST", "/v1/generation-runs", httpx.RemoteProtocolError("Server disconnected"))
    with pytest.raises(RunCreationUncertain):
        client.create_run(
            request=RefinementRequest(parent_suggestion_id="sg-1", instruction="Shorter")
        )
    assert len(service.api_requests) == 1


def test_a_refused_connection_on_run_creation_is_certain_not_sent(
    service: FakeService, client: ContentClient
) -> None:
    service.on("POST", "/v1/generation-runs", httpx.ConnectError("Connection refused"))
    with pytest.raises(TransportError) as excinfo:
        client.create_run(
            request=SteeredGenerationRequest(segment_id="s", use_case_id="u", steering_text="b")
        )
    assert not isinstance(excinfo.value, RunCreationUncertain)
    assert len(service.api_requests) == 1


def test_a_token_exchange_timeout_before_run_creation_is_not_uncertain(
    service: FakeService, client: ContentClient
) -> None:
    service.token_answers.append(httpx.ReadTimeout("token endpoint slow"))
    service.on("POST", "/v1/generation-runs", httpx.Response(202, json=run_json()))
    with pytest.raises(Timeout):
        client.create_run(
            request=SteeredGenerationRequest(segment_id="s", use_case_id="u", steering_text="b")
        )
    assert service.api_requests == []


def test_a_timeout_on_draft_saving_is_not_retried(
    service: FakeService, client: ContentClient
) -> None:
    service.on("POST", "/v1/suggestions", httpx.ReadTimeout("timed out"))
    with pytest.raises(Timeout):
        client.create_draft(
            request=DraftEmailSuggestionRequest(
                segment_id="s", use_case_id="u", payload=EmailPayload(subject="a", body="b")
            )
        )
    assert len(service.api_requests) == 1


def _rate_limited(headers: dict[str, str] | None) -> httpx.Response:
    return error_response(429, "rate_limited", "Too many runs", headers=headers)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"Retry-After": format_datetime(NOW + timedelta(seconds=90), usegmt=True)}, 90.0),
        (None, DEFAULT_RETRY_AFTER_S),
    ],
    ids=["seconds", "http-date", "missing"],
)
def test_429_raises_rate_limited_with_retry_after(
    service: FakeService,
    client: ContentClient,
    sleep: SleepRecorder,
    headers: dict[str, str] | None,
    expected: float,
) -> None:
    service.on("POST", "/v1/generation-runs", _rate_limited(headers))
    with pytest.raises(RateLimited) as excinfo:
        client.create_run(
            request=SteeredGenerationRequest(segment_id="s", use_case_id="u", steering_text="b")
        )
    assert excinfo.value.retry_after == expected
    assert excinfo.value.status == 429
    assert len(service.api_requests) == 1
    assert sleep.delays == []


def test_client_retries_can_be_switched_off(service: FakeService) -> None:
    client, _, sleep = make_client(service, max_retries=0)
    service.on("GET", "/v1/segments", httpx.Response(503))
    with client, pytest.raises(ServerError):
        client.list_segments()
    assert len(service.api_requests) == 1
    assert sleep.delays == []


def test_unexpected_success_status_is_accepted_and_logged(
    service: FakeService, client: ContentClient, caplog: pytest.LogCaptureFixture
) -> None:
    service.on("POST", "/v1/suggestions", httpx.Response(200, json=email_json()))
    with caplog.at_level(logging.WARNING):
        client.create_draft(
            request=DraftEmailSuggestionRequest(
                segment_id="s", use_case_id="u", payload=EmailPayload(subject="a", body="b")
            )
        )
    assert "answered 200 where 201 was expected" in caplog.text


def test_the_hook_before_each_send_runs_on_the_sending_thread_for_every_request(
    service: FakeService,
) -> None:
    """The app's hook that lets post-ack work yield to acks: it must see every request the
    client sends (the token exchange, a retried one, a user's) and run before it goes out."""
    client, _, _ = make_client(service)
    seen: list[int] = []
    client.before_each_send(lambda: seen.append(len(service.api_requests)))
    service.on(
        "GET",
        "/v1/segments",
        error_response(503, "unavailable", "Try again"),
        collection([{"id": "s1", "name": "Cyclists"}]),
    )
    service.on("GET", "/v1/use-cases", collection([]))
    service.user_tokens.add("user-token")

    client.list_segments()  # token exchange, a 503, the retry
    client.as_user("user-token").list_use_cases()

    assert len(service.token_requests) == 1
    # Before each API request went out, none of it had reached the service yet.
    assert seen == [0, 0, 1, 2]


def test_clients_load_the_ca_bundle_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each load costs about a tenth of a second of CPU, and a client is made at every start,
    for the health probe and per installed workspace."""
    from suggestbot.contentapi import connections

    loads: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append(args or kwargs)
        real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    connections.tls_context.cache_clear()
    clients = [
        ContentClient("https://127.0.0.1:9", auth=UserTokenAuth(f"token-{n}")) for n in range(3)
    ]
    for each in clients:
        each.close()
    assert len(loads) == 1
