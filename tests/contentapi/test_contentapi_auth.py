"""Token exchange, caching, refresh before expiry, the one retry after a 401, user tokens."""

from __future__ import annotations

import threading
from collections.abc import Generator

import httpx
import pytest
from contentapi_fakes import (
    BASE_URL,
    CLIENT_ID,
    CLIENT_SECRET,
    FakeService,
    bearer_of,
    collection,
    error_response,
    form_of,
    make_client,
)

from suggestbot.contentapi import (
    ClientCredentialsAuth,
    ContentClient,
    Unauthorized,
    UserTokenAuth,
    UserTokenRejected,
)

SEGMENTS = collection([{"id": "seg-1", "name": "Cyclists"}])


@pytest.fixture
def service() -> FakeService:
    svc = FakeService()
    svc.on("GET", "/v1/segments", SEGMENTS)
    return svc


@pytest.fixture
def client(service: FakeService) -> Generator[ContentClient, None, None]:
    client, _, _ = make_client(service)
    yield client
    client.close()


def test_exchange_is_form_encoded_client_credentials(service: FakeService) -> None:
    client, auth, _ = make_client(service)
    with client:
        client.list_segments()
    (exchange,) = service.token_requests
    assert exchange.method == "POST"
    assert exchange.url == f"{BASE_URL}/auth/token"
    assert exchange.headers["content-type"] == "application/x-www-form-urlencoded"
    assert form_of(exchange) == {
        "grant_type": ["client_credentials"],
        "client_id": [CLIENT_ID],
        "client_secret": [CLIENT_SECRET],
    }
    assert "Authorization" not in exchange.headers
    # The exchange keeps the client's timeout instead of waiting forever.
    assert exchange.extensions["timeout"] == service.api_requests[0].extensions["timeout"]
    assert exchange.extensions["timeout"]["read"] == 30
    assert service.api_bearers[0] == "tok-1"
    assert auth.exchange_count == 1


def test_token_is_cached_across_requests(service: FakeService, client: ContentClient) -> None:
    for _ in range(5):
        client.list_segments()
        service.clock.advance(60)
    assert len(service.token_requests) == 1
    assert set(service.api_bearers) == {"tok-1"}


def test_a_token_of_100_seconds_is_replaced_before_it_runs_out(service: FakeService) -> None:
    service.expires_in = 100
    client, auth, _ = make_client(service)
    with client:
        client.list_segments()  # t=0: first exchange
        service.clock.advance(39)
        client.list_segments()  # t=39: still inside 100 - 60
        assert auth.exchange_count == 1
        service.clock.advance(2)
        client.list_segments()  # t=41: past the margin, 59 s before expiry
        assert auth.exchange_count == 2
        service.clock.advance(38)
        client.list_segments()  # t=79: the second token (t=41) is still fresh
    assert service.api_bearers == ["tok-1", "tok-1", "tok-2", "tok-2"]
    # The fake rejects expired tokens: no request ever needed the 401 path.
    assert auth.exchange_count == 2


def test_expires_in_is_read_not_assumed(service: FakeService) -> None:
    service.expires_in = 300
    client, auth, _ = make_client(service)
    with client:
        client.list_segments()
        service.clock.advance(241)  # 300 - 60 has passed; 900 - 60 has not
        client.list_segments()
    assert auth.exchange_count == 2


def test_a_lifetime_shorter_than_the_margin_still_works(service: FakeService) -> None:
    service.expires_in = 30
    client, auth, _ = make_client(service)
    with client:
        assert client.list_segments()[0].name == "Cyclists"
        service.clock.advance(14)
        client.list_segments()  # within half the lifetime: reused
        assert auth.exchange_count == 1
        service.clock.advance(2)
        client.list_segments()  # past half the lifetime: replaced, still before expiry
        assert auth.exchange_count == 2
    assert service.api_bearers == ["tok-1", "tok-1", "tok-2"]


def test_401_then_success_makes_exactly_two_exchanges(
    service: FakeService, client: ContentClient
) -> None:
    client.list_segments()
    service.revoked.add("tok-1")  # e.g. the token was revoked early
    assert client.list_segments()[0].id == "seg-1"
    assert len(service.token_requests) == 2
    assert service.api_bearers == ["tok-1", "tok-1", "tok-2"]


def test_scripted_401_then_success_on_the_first_request(service: FakeService) -> None:
    service.on("GET", "/v1/segments", error_response(401, "unauthorized", "No"), SEGMENTS)
    client, auth, sleep = make_client(service)
    with client:
        assert client.list_segments()[0].id == "seg-1"
    assert auth.exchange_count == 2
    assert len(service.token_requests) == 2
    assert service.api_bearers == ["tok-1", "tok-2"]
    assert sleep.delays == []


def test_401_twice_raises_unauthorized_after_exactly_one_reexchange(
    service: FakeService,
) -> None:
    service.on("GET", "/v1/segments", error_response(401, "unauthorized", "Token rejected"))
    client, auth, sleep = make_client(service)
    with client, pytest.raises(Unauthorized) as excinfo:
        client.list_segments()
    assert type(excinfo.value) is Unauthorized
    assert excinfo.value.status == 401
    assert auth.exchange_count == 2
    assert len(service.api_requests) == 2
    assert sleep.delays == []


def test_after_a_401_a_token_already_replaced_by_another_request_is_reused(
    service: FakeService, client: ContentClient
) -> None:
    auth = client._auth
    assert isinstance(auth, ClientCredentialsAuth)
    client.list_segments()  # tok-1
    late = auth.sync_auth_flow(httpx.Request("GET", f"{BASE_URL}/v1/segments"))
    first = next(late)
    assert bearer_of(first) == "tok-1"
    # Meanwhile another request gets tok-1 rejected and replaces it with tok-2 ...
    service.revoked.add("tok-1")
    client.list_segments()
    assert auth.exchange_count == 2
    # ... so the late 401 for tok-1 must reuse tok-2, not exchange a third time.
    retried = late.send(httpx.Response(401, request=first))
    assert bearer_of(retried) == "tok-2"
    assert auth.exchange_count == 2
    late.close()


def test_twenty_threads_at_once_make_one_exchange(service: FakeService) -> None:
    arrived = threading.Condition()
    waiting = 0
    threads_n = 20

    class CountingAuth(ClientCredentialsAuth):
        def sync_auth_flow(
            self, request: httpx.Request
        ) -> Generator[httpx.Request, httpx.Response, None]:
            nonlocal waiting
            with arrived:
                waiting += 1
                arrived.notify_all()
            yield from super().sync_auth_flow(request)

    def slow_token(request: httpx.Request) -> httpx.Response:
        # Hold the first exchange until every thread has asked for a token.
        with arrived:
            assert arrived.wait_for(lambda: waiting == threads_n, timeout=10)
        return httpx.Response(
            200, json={"access_token": "tok-1", "token_type": "Bearer", "expires_in": 900}
        )

    service.token_answers.append(slow_token)
    service.user_tokens.add("tok-1")
    auth = CountingAuth(f"{BASE_URL}/auth/token", CLIENT_ID, CLIENT_SECRET, clock=service.clock)
    errors: list[BaseException] = []
    with ContentClient(BASE_URL, auth=auth, transport=service.transport()) as client:

        def work() -> None:
            try:
                client.list_segments()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(threads_n)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert errors == []
    assert auth.exchange_count == 1
    assert len(service.token_requests) == 1
    assert len(service.api_requests) == threads_n
    assert set(service.api_bearers) == {"tok-1"}


def test_rejected_credentials_raise_unauthorized_without_the_secret(
    service: FakeService,
) -> None:
    service.token_answers.append(error_response(401, "invalid_client", "Client auth failed"))
    client, auth, _ = make_client(service)
    with client, pytest.raises(Unauthorized) as excinfo:
        client.list_segments()
    assert excinfo.value.code == "invalid_client"
    assert "/auth/token" in str(excinfo.value)
    assert CLIENT_SECRET not in str(excinfo.value)
    assert service.api_requests == []
    assert auth.exchange_count == 1


def test_a_failed_exchange_is_tried_again_on_the_next_request(service: FakeService) -> None:
    service.token_answers.append(error_response(400, "invalid_request", "Bad form"))
    client, auth, _ = make_client(service)
    with client:
        with pytest.raises(Exception, match="invalid_request"):
            client.list_segments()
        assert client.list_segments()[0].id == "seg-1"
    assert auth.exchange_count == 2


def test_user_token_401_raises_user_token_rejected_without_any_exchange(
    service: FakeService, client: ContentClient
) -> None:
    user = client.as_user("user-token-expired")
    with pytest.raises(UserTokenRejected) as excinfo:
        user.list_segments()
    assert excinfo.value.status == 401
    assert service.token_requests == []
    assert len(service.api_requests) == 1
    assert "user-token-expired" not in str(excinfo.value)


def test_as_user_sends_the_user_token_and_shares_the_connection_pool(
    service: FakeService, client: ContentClient
) -> None:
    service.user_tokens.add("user-token-ok")
    user = client.as_user("user-token-ok")
    user.list_segments()
    assert service.api_bearers[-1] == "user-token-ok"
    assert service.token_requests == []
    assert user._http is client._http
    user.close()  # must not close the shared pool
    client.list_segments()
    assert service.api_bearers[-1] == "tok-1"


def test_no_secret_in_repr() -> None:
    auth = ClientCredentialsAuth(f"{BASE_URL}/auth/token", CLIENT_ID, CLIENT_SECRET)
    assert CLIENT_SECRET not in repr(auth)
    assert CLIENT_ID in repr(auth)
    assert "user-secret-token" not in repr(UserTokenAuth("user-secret-token"))
    client = ContentClient(BASE_URL, auth=auth)
    user = client.as_user("user-secret-token")
    assert CLIENT_SECRET not in repr(client)
    assert "user-secret-token" not in repr(user)
    client.close()


def test_invalidate_forces_a_new_exchange(service: FakeService) -> None:
    client, auth, _ = make_client(service)
    with client:
        client.list_segments()
        auth.invalidate()  # e.g. after the credential was rotated
        client.list_segments()
    assert auth.exchange_count == 2
    assert service.api_bearers == ["tok-1", "tok-2"]


def test_margin_below_sixty_seconds_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 60"):
        ClientCredentialsAuth(f"{BASE_URL}/auth/token", CLIENT_ID, CLIENT_SECRET, margin_s=30)


def test_token_url_from_base_url() -> None:
    auth = ClientCredentialsAuth.for_base_url(BASE_URL + "/", CLIENT_ID, CLIENT_SECRET)
    assert "https://content.test/auth/token" in repr(auth)
