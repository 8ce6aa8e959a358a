"""Wire models of the Content Suggestion Service, written from the contract.

Deliberately independent of ``suggestbot.contentapi``: both are written from the same contract,
so a misreading on either side shows up as a failing test instead of being shared.

Requests are strict (``extra="forbid"``, no type coercion) because the sandbox must be at least as
strict as the real service. Responses carry exactly the contract's fields plus the few names the
contract leaves open (design §4): ``created_by`` on sets and threads, ``type="image"`` on image
assets, and ``active_tenant``/``tenants`` on ``Me``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StringConstraints,
    TypeAdapter,
    model_serializer,
)

from suggestbot.sandbox.ids import UUID_PATTERN, format_ts

Uuid = Annotated[str, StringConstraints(pattern=UUID_PATTERN)]
# Bare language code, or the regional shape the pattern admits (which matches nothing today).
Locale = Annotated[str, StringConstraints(pattern=r"^[a-z]{2,3}(-[A-Z]{2})?$")]
# Well-formed: the one known prefix, then 1 to 1024 printable characters without spaces. Real
# ids may hold ``:``, ``/``, ``=`` and mixed case (see ``content.new_asset_ref``); a well-formed
# but unknown reference is 404 ``asset_not_found``, not a validation failure (design §4).
ASSET_REF_PATTERN = r"^image:[\x21-\x7e]{1,1024}$"
AssetRef = Annotated[str, StringConstraints(pattern=ASSET_REF_PATTERN)]
Timestamp = Annotated[datetime, PlainSerializer(format_ts, return_type=str)]

KNOWN_KINDS = ("email", "social_single_image")
IMAGE_ASSET_TYPE = "image"

T = TypeVar("T")


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# --- responses -----------------------------------------------------------------------------


class CollectionMeta(_Response):
    next_cursor: str | None


class Collection(_Response, Generic[T]):
    data: list[T]
    meta: CollectionMeta


class TokenResponse(_Response):
    access_token: str
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int


class TenantSummary(_Response):
    id: Uuid
    name: str


class Me(_Response):
    active_tenant: TenantSummary | None
    tenants: list[TenantSummary]


class Segment(_Response):
    id: Uuid
    name: str
    description: str


class UseCaseSummary(_Response):
    id: Uuid
    name: str


class EmailPayload(_Response):
    subject: str
    body: str


class EmbeddedImageAsset(_Response):
    type: Literal["image"] = "image"
    ref: AssetRef
    url: str | None = None
    url_expires_at: Timestamp | None = None
    alt_text: Annotated[str, StringConstraints(min_length=1)]


class SocialSingleImagePayload(_Response):
    body: str
    asset: EmbeddedImageAsset


class OtherKindPayload(BaseModel):
    """Payload of a kind this contract version does not describe (mixed in by a fault knob)."""

    model_config = ConfigDict(extra="allow")


Payload = EmailPayload | SocialSingleImagePayload | OtherKindPayload


class LineageSuggestionSummary(_Response):
    id: Uuid
    suggestion_set_id: Uuid | None
    kind: str
    variant_no: int
    created_at: Timestamp
    instruction: str | None


class Suggestion(_Response):
    id: Uuid
    suggestion_set_id: Uuid | None
    kind: str
    variant_no: Annotated[int, Field(ge=1)]
    parent_suggestion_id: Uuid | None
    rationale: str | None
    payload: Payload
    lineage: list[LineageSuggestionSummary] | None = None

    @model_serializer(mode="wrap")
    def _drop_absent_lineage(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # ``lineage`` is present only with expand=lineage; absent, not null, otherwise.
        data: dict[str, Any] = handler(self)
        if self.lineage is None:
            data.pop("lineage", None)
        return data


class SuggestionSet(_Response):
    id: Uuid
    segment_id: Uuid
    use_case_id: Uuid | None
    locale: Locale
    version: int | None
    created_at: Timestamp
    origin: Literal["precompute", "steered", "refinement"]
    generation_run_id: Uuid | None
    steering_text: str | None
    created_by: Uuid | None
    suggestions: list[Suggestion]


class ThreadTurn(_Response):
    version: Annotated[int, Field(ge=1)]
    suggestion_id: Uuid
    generated_at: Timestamp
    instruction: str | None


class Thread(_Response):
    id: Uuid
    name: str | None
    segment_id: Uuid
    use_case_id: Uuid | None
    locale: Locale
    head_suggestion_id: Uuid
    root_origin: Literal["precompute", "steered", "user_draft"]
    turn_count: Annotated[int, Field(ge=1)]
    created_at: Timestamp
    updated_at: Timestamp
    created_by: Uuid | None
    turns: list[ThreadTurn] | None = None

    @model_serializer(mode="wrap")
    def _drop_absent_turns(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # ``turns`` appears only on the single-thread read (and the rename answer).
        data: dict[str, Any] = handler(self)
        if self.turns is None:
            data.pop("turns", None)
        return data


class GenerationRunError(_Response):
    code: str
    message: str


class GenerationRun(_Response):
    id: Uuid
    type: Literal["steered_generation", "refinement"]
    status: Literal["queued", "running", "succeeded", "failed"]
    created_at: Timestamp
    created_by: Uuid
    attempt_count: Annotated[int, Field(ge=0)]
    request: dict[str, Any]
    suggestion_set_id: Uuid | None
    suggestion_id: Uuid | None
    error: GenerationRunError | None


class MintedAssetUrl(_Response):
    ref: AssetRef
    url: str
    url_expires_at: Timestamp


# --- requests ------------------------------------------------------------------------------


class SteeredGenerationRequest(_Request):
    type: Literal["steered_generation"]
    segment_id: Uuid
    use_case_id: Uuid
    # The 4000-character limit is checked after schema validation (code input_too_long).
    steering_text: str
    variant_count: Annotated[int, Field(ge=1, le=3)] = 1


class RefinementRequest(_Request):
    type: Literal["refinement"]
    parent_suggestion_id: Uuid
    instruction: str
    # Not nullable: sending ``image`` at all (even ``reuse``) matters for image_not_applicable.
    image: Literal["reuse", "regenerate"] = "reuse"


GenerationRunRequest = Annotated[
    SteeredGenerationRequest | RefinementRequest, Field(discriminator="type")
]
GENERATION_RUN_REQUEST: TypeAdapter[SteeredGenerationRequest | RefinementRequest] = TypeAdapter(
    GenerationRunRequest
)


class GenerationTriggerRequest(_Request):
    segment_id: Uuid
    use_case_id: Uuid


class DraftEmailPayload(_Request):
    subject: str
    body: str


class DraftSuggestionRequest(_Request):
    kind: Literal["email"]
    segment_id: Uuid
    use_case_id: Uuid
    payload: DraftEmailPayload


class ThreadUpdateRequest(_Request):
    name: str


class AssetUrlMintRequest(_Request):
    refs: Annotated[list[AssetRef], Field(min_length=1, max_length=100)]


class SetActiveTenantRequest(_Request):
    tenant_id: Uuid


# --- query strings (values arrive as text, so these coerce) ----------------------------------


class _Query(BaseModel):
    model_config = ConfigDict(extra="ignore")


class PageQuery(_Query):
    cursor: str | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 20
    created_by: Uuid | None = None


class ThreadListQuery(PageQuery):
    model_config = ConfigDict(extra="forbid")
    segment_id: Uuid | None = None
    use_case_id: Uuid | None = None


class SetListQuery(PageQuery):
    segment_id: Uuid | None = None
    use_case_id: Uuid | None = None


class InspirationQuery(_Query):
    segment_id: Uuid
    use_case_id: Uuid
    locale: Locale
    version: Annotated[int, Field(ge=1)] | None = None
    expand: str | None = None


class SuggestionQuery(_Query):
    expand: str | None = None
