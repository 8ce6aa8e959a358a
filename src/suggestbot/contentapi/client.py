"""``ContentClient``: every endpoint of the Content Suggestion Service, through one request path.

All HTTP goes through :meth:`ContentClient._request`, which applies the retry policy
(``retry.py``), turns failures into the error tree (``errors.py``) and leaves authentication to
the ``httpx.Auth`` it was given (``auth.py``). Responses become models (``models.py``) at this
edge; a body that does not match the contract raises ``InvalidResponse`` without echoing it.

One client holds one connection pool. :meth:`ContentClient.as_user` gives a client that shares
that pool but acts as a signed-in user, for the user-only operations (run creation, rename).
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from suggestbot import __version__
from suggestbot.contentapi import decisions
from suggestbot.contentapi.auth import UserTokenAuth
from suggestbot.contentapi.checks import MAX_REFS_PER_CALL
from suggestbot.contentapi.connections import KEEPALIVE_EXPIRY_S, SendTracker, tls_context
from suggestbot.contentapi.errors import (
    ContentApiError,
    InvalidResponse,
    NotFound,
    RunCreationUncertain,
    ServerError,
    Timeout,
    TransportError,
    Unauthorized,
    UnsupportedSuggestion,
    UserTokenRejected,
    describe_validation_error,
    error_from_response,
    invalid_response,
)
from suggestbot.contentapi.models import (
    AssetUrlMintRequest,
    Collection,
    DraftEmailSuggestionRequest,
    GenerationRun,
    GenerationRunCollection,
    GenerationTriggerRequest,
    InvalidAssetRef,
    MintedAssetUrl,
    MintedAssetUrlCollection,
    RefinementRequest,
    SegmentCollection,
    SegmentSummary,
    SteeredGenerationRequest,
    Suggestion,
    SuggestionSet,
    SuggestionSetCollection,
    Thread,
    ThreadCollection,
    ThreadUpdateRequest,
    UseCaseCollection,
    UseCaseSummary,
    unsupported_suggestion_reason,
    validate_asset_ref,
)
from suggestbot.contentapi.pagination import CursorPaginator, HasId, Page, check_limit
from suggestbot.contentapi.retry import (
    DEFAULT_MAX_RETRIES,
    backoff_delay,
    is_retryable_status,
    is_retryable_transport_error,
    parse_retry_after,
    was_never_sent,
)

logger = logging.getLogger(__name__)

_USER_AGENT: Final = f"suggestbot/{__version__}"

ModelT = TypeVar("ModelT", bound=BaseModel)
ItemT = TypeVar("ItemT", bound=HasId)


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _segment(value: str) -> str:
    """An id as one path segment: ids are opaque to us and must not add path levels."""
    return quote(value, safe="")


class ContentClient:
    """Typed client of the Content Suggestion Service. Safe to share between threads.

    Args:
        base_url: the service's base address (paths such as ``/v1/segments`` go under it).
        auth: ``ClientCredentialsAuth`` for the machine credential, ``UserTokenAuth`` for a user.
        transport: an httpx transport; tests pass ``httpx.MockTransport``.
        timeout: seconds for connect, read, write and pool waits.
        sleep: how to wait between retries; tests pass a recorder.
        max_retries: extra attempts for idempotent requests after a 5xx or network failure.
        now: wall-clock time, to read a ``Retry-After`` given as an HTTP-date.
    """

    def __init__(
        self,
        base_url: str,
        *,
        auth: httpx.Auth,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 30,
        sleep: Callable[[float], None] = time.sleep,
        max_retries: int = DEFAULT_MAX_RETRIES,
        now: Callable[[], datetime] = _utcnow,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        self._tracker = SendTracker()
        self._http = httpx.Client(
            base_url=base_url,
            transport=transport,
            verify=tls_context(),
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY_S),
            headers={"Accept": "application/json", "User-Agent": _USER_AGENT},
            event_hooks={"request": [self._tracker.note]},
        )
        self._owns_http = True
        self._auth = auth
        self._sleep = sleep
        self._max_retries = max_retries
        self._now = now

    # --- lifecycle --------------------------------------------------------------------------------

    def as_user(self, token: str) -> ContentClient:
        """A client acting as the user whose token this is, sharing this client's connections.

        Closing it does not close the shared pool; close the client it came from.
        """
        clone = copy.copy(self)
        clone._auth = UserTokenAuth(token)
        clone._owns_http = False
        return clone

    def before_each_send(self, hook: Callable[[], object]) -> None:
        """Call ``hook()`` on the sending thread before each request goes out (retries and
        token exchanges included), for this client and every ``as_user`` client of its pool.
        The app uses it to let work after an ack yield to the acks still in flight."""

        def on_request(request: httpx.Request) -> None:
            hook()

        self._http.event_hooks["request"] = [*self._http.event_hooks["request"], on_request]

    def close(self) -> None:
        """Close the HTTP client, if this client created it."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> ContentClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ContentClient(base_url={str(self._http.base_url)!r}, auth={self._auth!r})"

    # --- segments, use cases, inspiration ---------------------------------------------------------

    def list_segments(self) -> list[SegmentSummary]:
        """Every segment set up for content generation (one response, no paging)."""
        response = self._request("GET", "/v1/segments")
        return self._parse(SegmentCollection, response).items

    def list_use_cases(self) -> list[UseCaseSummary]:
        """Every use case (one response, no paging)."""
        response = self._request("GET", "/v1/use-cases")
        return self._parse(UseCaseCollection, response).items

    def get_inspiration(
        self,
        *,
        segment_id: str,
        use_case_id: str,
        locale: str,
        version: int | None = None,
        asset_urls: bool = False,
    ) -> list[SuggestionSet]:
        """Ready-made content: the newest set first (or ``version``), empty when none yet.

        Args:
            asset_urls: also mint a signed URL for every image (valid 15 minutes).
        """
        params: dict[str, Any] = {
            "segment_id": segment_id,
            "use_case_id": use_case_id,
            "locale": locale,
            "version": version,
            "expand": "asset_urls" if asset_urls else None,
        }
        response = self._request("GET", "/v1/inspiration", params=params)
        return self._parse(SuggestionSetCollection, response).items

    def trigger_inspiration(self, *, segment_id: str, use_case_id: str) -> None:
        """Ask for ready-made content to be generated again; poll ``get_inspiration`` after.

        Repeating it while generation runs joins that generation, so it is retried like a read.
        """
        body = GenerationTriggerRequest(segment_id=segment_id, use_case_id=use_case_id)
        self._request("POST", "/v1/inspiration", json=_dump(body), expected_status=202)

    # --- generation runs --------------------------------------------------------------------------

    def create_run(self, *, request: SteeredGenerationRequest | RefinementRequest) -> GenerationRun:
        """Submit a brief or a refinement. Needs a user client (``as_user``).

        Never retried. If the request was sent and no answer came back, raises
        ``RunCreationUncertain``: the run may exist, so look at the user's runs before resending.
        """
        response = self._request(
            "POST",
            "/v1/generation-runs",
            json=_dump(request),
            retry=False,
            creates_run=True,
            expected_status=202,
        )
        return self._parse(GenerationRun, response)

    def get_run(self, *, run_id: str) -> GenerationRun:
        """``GET /v1/generation-runs/{run_id}``; raises NotFound, or another ContentApiError."""
        response = self._request("GET", f"/v1/generation-runs/{_segment(run_id)}")
        return self._parse(GenerationRun, response)

    def list_runs_page(
        self,
        *,
        cursor: str | None = None,
        created_by: str | None = None,
        limit: int | None = None,
        retry: bool = True,
    ) -> Page[GenerationRun]:
        """One page of runs, newest first; pass the previous ``next_cursor`` for the next.

        ``retry=False`` fails at the first error instead of retrying with a backoff (for a
        caller with a cheaper way out than waiting, such as the run watcher's sweeps).
        """
        check_limit(limit)
        params = {"cursor": cursor, "created_by": created_by, "limit": limit}
        return self._page(GenerationRunCollection, "/v1/generation-runs", params, retry=retry)

    def iter_runs(
        self, *, created_by: str | None = None, limit: int | None = None
    ) -> CursorPaginator[GenerationRun]:
        """Every visible run, newest first, each once. ``limit`` is the page size."""
        check_limit(limit)
        return CursorPaginator(
            lambda cursor: self.list_runs_page(cursor=cursor, created_by=created_by, limit=limit)
        )

    # --- threads ----------------------------------------------------------------------------------

    def list_threads_page(
        self,
        *,
        cursor: str | None = None,
        segment_id: str | None = None,
        use_case_id: str | None = None,
        created_by: str | None = None,
        limit: int | None = None,
    ) -> Page[Thread]:
        """One page of threads, newest first (without ``turns``)."""
        check_limit(limit)
        params = {
            "cursor": cursor,
            "segment_id": segment_id,
            "use_case_id": use_case_id,
            "created_by": created_by,
            "limit": limit,
        }
        return self._page(ThreadCollection, "/v1/threads", params)

    def iter_threads(
        self,
        *,
        segment_id: str | None = None,
        use_case_id: str | None = None,
        created_by: str | None = None,
        limit: int | None = None,
    ) -> CursorPaginator[Thread]:
        """Every visible thread matching all given filters, newest first, each once."""
        check_limit(limit)
        return CursorPaginator(
            lambda cursor: self.list_threads_page(
                cursor=cursor,
                segment_id=segment_id,
                use_case_id=use_case_id,
                created_by=created_by,
                limit=limit,
            )
        )

    def get_thread(self, *, thread_id: str) -> Thread:
        """A thread with its ``turns``, oldest first."""
        response = self._request("GET", f"/v1/threads/{_segment(thread_id)}")
        return self._parse(Thread, response)

    def rename_thread(self, *, thread_id: str, name: str) -> Thread:
        """Rename a thread. Needs a user client. The stored name may differ (normalised)."""
        response = self._request(
            decisions.RENAME_THREAD_METHOD,
            decisions.RENAME_THREAD_PATH.format(thread_id=_segment(thread_id)),
            json=_dump(ThreadUpdateRequest(name=name)),
        )
        return self._parse(Thread, response)

    # --- suggestion sets and suggestions ----------------------------------------------------------

    def list_suggestion_sets_page(
        self, *, cursor: str | None = None, limit: int | None = None
    ) -> Page[SuggestionSet]:
        """One page of suggestion sets, newest first."""
        check_limit(limit)
        params = {"cursor": cursor, "limit": limit}
        return self._page(SuggestionSetCollection, "/v1/suggestion-sets", params)

    def iter_suggestion_sets(self, *, limit: int | None = None) -> CursorPaginator[SuggestionSet]:
        """Every visible suggestion set, newest first, each once."""
        check_limit(limit)
        return CursorPaginator(
            lambda cursor: self.list_suggestion_sets_page(cursor=cursor, limit=limit)
        )

    def get_suggestion_set(self, *, id: str) -> SuggestionSet:
        """``GET /v1/suggestion-sets/{id}``; raises NotFound, or another ContentApiError."""
        response = self._request("GET", f"/v1/suggestion-sets/{_segment(id)}")
        return self._parse(SuggestionSet, response)

    def get_suggestion(self, *, id: str, lineage: bool = False) -> Suggestion:
        """One suggestion; ``lineage=True`` adds its history (closest first, original last).

        Raises:
            UnsupportedSuggestion: its kind (or image reference prefix) is unknown to this client.
        """
        params = {"expand": "lineage" if lineage else None}
        response = self._request("GET", f"/v1/suggestions/{_segment(id)}", params=params)
        body = self._json(response)
        reason = unsupported_suggestion_reason(body)
        if reason is not None:
            kind = str(body.get("kind"))
            raise UnsupportedSuggestion(
                f"suggestion cannot be shown by this client ({reason}, kind {kind!r})",
                kind=kind,
                reason=reason,
                status=response.status_code,
                method=response.request.method,
                path=response.request.url.path,
            )
        return self._validate(Suggestion, body, response)

    def create_draft(self, *, request: DraftEmailSuggestionRequest) -> Suggestion:
        """Save content the user wrote; it becomes the root of a thread. Not retried."""
        response = self._request(
            "POST",
            "/v1/suggestions",
            json=_dump(request),
            retry=False,
            expected_status=decisions.CREATE_DRAFT_STATUS,
        )
        return self._parse(Suggestion, response)

    # --- images -----------------------------------------------------------------------------------

    def mint_asset_urls(self, *, refs: Sequence[str]) -> list[MintedAssetUrl]:
        """Signed URLs (valid 15 minutes) for any number of image references.

        Sends each distinct reference once, in calls of at most 100, and returns one entry per
        given reference in the given order.

        Raises:
            InvalidAssetRef: a reference is not ``image:`` plus an id (nothing is sent).
            AssetNotFound: a reference is unknown or belongs to another tenant.
        """
        if isinstance(refs, str):
            raise TypeError("refs must be a sequence of references, not one string")
        distinct = list(dict.fromkeys(refs))
        for index, ref in enumerate(distinct):
            try:
                validate_asset_ref(ref)
            except InvalidAssetRef as exc:
                raise InvalidAssetRef(f"reference {index}: {exc}") from None
        minted: dict[str, MintedAssetUrl] = {}
        for start in range(0, len(distinct), MAX_REFS_PER_CALL):
            chunk = distinct[start : start + MAX_REFS_PER_CALL]
            response = self._request(
                "POST",
                "/v1/assets/urls",
                json=_dump(AssetUrlMintRequest(refs=chunk)),
                expected_status=decisions.MINT_ASSET_URLS_STATUS,
            )
            for item in self._parse(MintedAssetUrlCollection, response).items:
                minted[item.ref] = item
            missing = sum(1 for ref in chunk if ref not in minted)
            if missing:
                raise invalid_response(
                    f"{missing} of {len(chunk)} references are missing from the answer", response
                )
        return [minted[ref] for ref in refs]

    # --- caller profile ---------------------------------------------------------------------------

    def get_me(self) -> dict[str, Any] | None:
        """The caller profile as sent (field names are not in the contract), or None without one."""
        try:
            response = self._request("GET", decisions.ME_PATH)
        except NotFound:
            return None
        body = self._json(response)
        if not isinstance(body, dict):
            raise invalid_response("caller profile is not a JSON object", response)
        return body

    # --- the one request path ---------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        retry: bool = True,
        creates_run: bool = False,
        expected_status: int = 200,
    ) -> httpx.Response:
        """Send a request, retrying what may be retried; return a 2xx response or raise.

        ``retry``: retry 5xx answers and network failures with a backoff (only for requests
        that are safe to repeat, and whose caller would rather wait than fail).
        """
        query = {key: value for key, value in (params or {}).items() if value is not None}
        retries = 0
        while True:
            request = self._http.build_request(method, path, params=query, json=json)
            may_retry = retry and retries < self._max_retries
            try:
                response = self._http.send(request, auth=self._auth)
            except httpx.TransportError as exc:
                if may_retry and is_retryable_transport_error(exc):
                    retries += 1
                    self._wait_before_retry(request, retries, type(exc).__name__)
                    continue
                raise self._transport_error(exc, request, creates_run=creates_run) from exc
            except ServerError as exc:
                # The token exchange failed with a 5xx before this request was sent.
                if may_retry:
                    retries += 1
                    self._wait_before_retry(request, retries, f"token exchange HTTP {exc.status}")
                    continue
                raise
            finally:
                self._tracker.forget()
            status = response.status_code
            if 200 <= status <= 299:
                if status != expected_status:
                    logger.warning(
                        "%s %s answered %d where %d was expected; accepting it",
                        method,
                        request.url.path,
                        status,
                        expected_status,
                    )
                return response
            if may_retry and is_retryable_status(status):
                retries += 1
                self._wait_before_retry(request, retries, f"HTTP {status}")
                continue
            raise self._status_error(response)

    def _wait_before_retry(self, request: httpx.Request, retry_number: int, reason: str) -> None:
        delay = backoff_delay(retry_number)
        logger.warning(
            "Retrying %s %s in %.2f s after %s (retry %d of %d)",
            request.method,
            request.url.path,
            delay,
            reason,
            retry_number,
            self._max_retries,
        )
        self._sleep(delay)

    def _status_error(self, response: httpx.Response) -> ContentApiError:
        unauthorized: type[Unauthorized] = (
            UserTokenRejected if isinstance(self._auth, UserTokenAuth) else Unauthorized
        )
        retry_after = parse_retry_after(response.headers.get("Retry-After"), now=self._now())
        return error_from_response(
            response, retry_after=retry_after, unauthorized_class=unauthorized
        )

    def _transport_error(
        self, exc: httpx.TransportError, request: httpx.Request, *, creates_run: bool
    ) -> ContentApiError:
        method, path = request.method, request.url.path
        name = type(exc).__name__
        if creates_run and not was_never_sent(exc) and self._tracker.was_handed_over(request):
            return RunCreationUncertain(
                f"no answer to run creation ({name}); the run may exist, check before resending",
                method=method,
                path=path,
            )
        if isinstance(exc, httpx.TimeoutException):
            return Timeout(f"no answer in time ({name})", method=method, path=path)
        return TransportError(f"no usable answer ({name})", method=method, path=path)

    # --- parsing ----------------------------------------------------------------------------------

    def _page(
        self,
        collection_type: type[Collection[ItemT]],
        path: str,
        params: dict[str, Any],
        *,
        retry: bool = True,
    ) -> Page[ItemT]:
        response = self._request("GET", path, params=params, retry=retry)
        collection = self._parse(collection_type, response)
        return Page(items=collection.items, next_cursor=collection.meta.next_cursor)

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise invalid_response("response body is not JSON", response) from None

    def _parse(self, model: type[ModelT], response: httpx.Response) -> ModelT:
        """The body as ``model``, parsed and validated in one pass over its bytes: a page of
        100 runs costs a third of ``json.loads`` followed by validation (the run watcher reads
        thousands of pages a minute)."""
        try:
            return model.model_validate_json(response.content)
        except ValidationError as exc:
            if any(err["type"] == "json_invalid" for err in exc.errors(include_input=False)):
                raise invalid_response("response body is not JSON", response) from None
            raise _mismatch(model, exc, response) from None

    def _validate(self, model: type[ModelT], body: Any, response: httpx.Response) -> ModelT:
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            raise _mismatch(model, exc, response) from None


def _mismatch(
    model: type[BaseModel], exc: ValidationError, response: httpx.Response
) -> InvalidResponse:
    """The error for a body that is JSON but not ``model`` (where, never what)."""
    return invalid_response(
        f"response does not match {model.__name__}: {describe_validation_error(exc)}", response
    )


def _dump(body: BaseModel) -> Any:
    # Optional fields left unset are omitted, not sent as null: the service rejects ``image``
    # (even ``reuse``) when refining content that has no image.
    return body.model_dump(mode="json", exclude_none=True)
