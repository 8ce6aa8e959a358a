"""Pydantic models of the service's resources, request bodies and collections.

Reading is tolerant, as the contract's versioning section asks: unknown fields are ignored, and a
suggestion of a kind this client does not know is skipped (and counted) instead of failing the set
that holds it. Some things are strict on purpose: timestamps must carry a time zone, and an asset
reference must be ``image:`` plus an id (the contract says to reject unknown prefixes); inside a
set, a suggestion whose image has another prefix is skipped like an unknown kind.

Signed image URLs are credentials. They are held as :class:`pydantic.SecretStr`, so ``repr()``,
``str()`` and JSON dumps show ``**********``; call ``reveal_url()`` at the one place that posts the
image. Validation errors never echo input values (``hide_input_in_errors``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from suggestbot.contentapi import decisions
from suggestbot.contentapi.checks import MAX_REFS_PER_CALL, MAX_VARIANTS

ASSET_REF_PREFIX = "image:"


class InvalidAssetRef(ValueError):
    """An asset reference that is not ``image:`` followed by an id.

    The message names at most the unknown prefix, never the whole value.
    """


def validate_asset_ref(ref: str) -> str:
    """Return ``ref`` unchanged if it is ``image:`` plus a non-empty id.

    References are opaque: this checks the prefix the contract defines and nothing else.

    Raises:
        InvalidAssetRef: any other prefix, no prefix, or an empty id.
    """
    if ref.startswith(ASSET_REF_PREFIX):
        if len(ref) == len(ASSET_REF_PREFIX):
            raise InvalidAssetRef("asset reference 'image:' has an empty image id")
        return ref
    prefix, colon, _ = ref.partition(":")
    if colon and 0 < len(prefix) <= 20 and prefix.isascii() and prefix.isalnum():
        raise InvalidAssetRef(
            f"asset reference has the unsupported prefix {prefix + ':'!r}; only 'image:' exists"
        )
    raise InvalidAssetRef("asset reference must start with 'image:'")


AssetRef = Annotated[str, AfterValidator(validate_asset_ref)]
"""``image:`` plus an image id; opaque, stored and sent back unchanged."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, hide_input_in_errors=True)


# --- Enumerations ---------------------------------------------------------------------------------


class SuggestionKind(StrEnum):
    """Kinds this client can show. The service may add more; those are skipped."""

    EMAIL = "email"
    SOCIAL_SINGLE_IMAGE = "social_single_image"


class RunType(StrEnum):
    STEERED_GENERATION = "steered_generation"
    REFINEMENT = "refinement"


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"

    @property
    def is_terminal(self) -> bool:
        """Only ``succeeded`` and ``failed`` end a run; ``running`` may go back to ``queued``."""
        return self in (RunStatus.SUCCEEDED, RunStatus.FAILED)


class ImageMode(StrEnum):
    """What a refinement does with the image. Send it only for content that has one."""

    REUSE = "reuse"
    REGENERATE = "regenerate"


class SetOrigin(StrEnum):
    """Values of ``SuggestionSet.origin`` (read as a plain string, compared with these)."""

    PRECOMPUTE = "precompute"
    STEERED = "steered"
    REFINEMENT = "refinement"  # legacy: still readable, no longer produced


class ThreadRootOrigin(StrEnum):
    """Values of ``Thread.root_origin`` (read as a plain string, compared with these)."""

    PRECOMPUTE = "precompute"
    STEERED = "steered"
    USER_DRAFT = "user_draft"


# --- Token and errors -----------------------------------------------------------------------------


class TokenResponse(_Model):
    access_token: SecretStr
    token_type: str
    expires_in: int


class ErrorObject(_Model):
    code: str
    message: str = ""
    details: dict[str, Any] | None = None

    @field_validator("details", mode="before")
    @classmethod
    def _drop_odd_details(cls, value: Any) -> Any:
        # Keep the entry (and its code) even if ``details`` has a shape we do not expect.
        return value if isinstance(value, dict) else None


class ErrorEnvelope(_Model):
    errors: list[ErrorObject]


# --- Collections ----------------------------------------------------------------------------------


class CollectionMeta(_Model):
    next_cursor: str | None = None


ItemT = TypeVar("ItemT")


class Collection(_Model, Generic[ItemT]):
    """Any collection response: items plus ``meta.next_cursor`` (null means last page)."""

    items: list[ItemT] = Field(alias=decisions.COLLECTION_ITEMS_FIELD)
    meta: CollectionMeta = Field(default_factory=CollectionMeta)


# --- Segments and use cases -----------------------------------------------------------------------


class SegmentSummary(_Model):
    id: str
    name: str


class Segment(_Model):
    id: str
    name: str
    description: str


class UseCaseSummary(_Model):
    id: str
    name: str


class SegmentCollection(Collection[SegmentSummary]):
    """Every segment in one response (``next_cursor`` always null)."""


class UseCaseCollection(Collection[UseCaseSummary]):
    """Every use case in one response (``next_cursor`` always null)."""


# --- Suggestions ----------------------------------------------------------------------------------


class EmbeddedImageAsset(_Model):
    type: str
    ref: AssetRef
    url: SecretStr | None = None
    url_expires_at: AwareDatetime | None = None
    alt_text: str

    def reveal_url(self) -> str | None:
        """The signed URL, or None when it was not requested. Post it; never log or store it."""
        return None if self.url is None else self.url.get_secret_value()


class EmailPayload(_Model):
    subject: str
    body: str


class SocialSingleImagePayload(_Model):
    body: str
    asset: EmbeddedImageAsset


Payload = EmailPayload | SocialSingleImagePayload

_KNOWN_KINDS = frozenset(kind.value for kind in SuggestionKind)

_PAYLOAD_BY_KIND: dict[SuggestionKind, type[EmailPayload] | type[SocialSingleImagePayload]] = {
    SuggestionKind.EMAIL: EmailPayload,
    SuggestionKind.SOCIAL_SINGLE_IMAGE: SocialSingleImagePayload,
}


class LineageSuggestionSummary(_Model):
    id: str
    suggestion_set_id: str | None = None
    # A plain string: history may hold kinds this client cannot show, and dropping an entry
    # would break the chain "closest first, original last".
    kind: str
    variant_no: int
    created_at: AwareDatetime
    instruction: str | None = None


class Suggestion(_Model):
    id: str
    suggestion_set_id: str | None = None
    kind: SuggestionKind
    variant_no: int
    parent_suggestion_id: str | None = None
    rationale: str | None = None
    payload: Payload
    # None unless read with ``expand=lineage``.
    lineage: list[LineageSuggestionSummary] | None = None

    @field_validator("payload", mode="before")
    @classmethod
    def _payload_by_kind(cls, value: Any, info: ValidationInfo) -> Any:
        # The payload's shape is decided by the sibling field ``kind``, which pydantic's
        # discriminated unions cannot express; validate against the one model that applies.
        kind = info.data.get("kind")
        if isinstance(kind, SuggestionKind) and not isinstance(value, BaseModel):
            return _PAYLOAD_BY_KIND[kind].model_validate(value)
        return value

    @model_validator(mode="after")
    def _payload_matches_kind(self) -> Suggestion:
        if not isinstance(self.payload, _PAYLOAD_BY_KIND[self.kind]):
            raise ValueError(f"payload of a {self.kind.value!r} suggestion has the wrong shape")
        return self

    @property
    def asset(self) -> EmbeddedImageAsset | None:
        """The embedded image, for kinds that have one."""
        payload = self.payload
        return payload.asset if isinstance(payload, SocialSingleImagePayload) else None


SkipReason = Literal["unknown_kind", "unsupported_asset_ref"]


class SkippedSuggestion(_Model):
    """A suggestion left out of a set because this client cannot show it."""

    id: str | None
    kind: str
    reason: SkipReason


def unsupported_suggestion_reason(
    raw: Any,
) -> Literal["unknown_kind", "unsupported_asset_ref"] | None:
    """Why a raw suggestion object must be skipped, or None if this client can read it.

    Only the two additive changes the contract announces are skipped: a new kind, and (inside
    an image) a new reference prefix. Anything else malformed still fails validation.
    """
    if not isinstance(raw, dict):
        return None
    kind = raw.get("kind")
    if not isinstance(kind, str):
        return None
    if kind not in _KNOWN_KINDS:
        return "unknown_kind"
    payload = raw.get("payload")
    asset = payload.get("asset") if isinstance(payload, dict) else None
    ref = asset.get("ref") if isinstance(asset, dict) else None
    if isinstance(ref, str) and not ref.startswith(ASSET_REF_PREFIX):
        return "unsupported_asset_ref"
    return None


class SuggestionSet(_Model):
    id: str
    segment_id: str
    use_case_id: str | None = None
    locale: str
    version: int | None = None
    created_at: AwareDatetime
    origin: str
    generation_run_id: str | None = None
    steering_text: str | None = None
    # Sorted by ``variant_no``; the service does not guarantee an order.
    suggestions: list[Suggestion]
    # Filled by the client, never read from the wire: what was left out and why.
    skipped: tuple[SkippedSuggestion, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _skip_unsupported(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("suggestions"), list):
            return data
        kept: list[Any] = []
        skipped: list[SkippedSuggestion] = []
        for raw in data["suggestions"]:
            reason = unsupported_suggestion_reason(raw)
            if reason is None:
                kept.append(raw)
            else:
                raw_id = raw.get("id")
                skipped.append(
                    SkippedSuggestion(
                        id=raw_id if isinstance(raw_id, str) else None,
                        kind=raw["kind"],
                        reason=reason,
                    )
                )
        return {**data, "suggestions": kept, "skipped": tuple(skipped)}

    @field_validator("suggestions", mode="after")
    @classmethod
    def _sort_by_variant(cls, value: list[Suggestion]) -> list[Suggestion]:
        return sorted(value, key=lambda s: s.variant_no)

    @property
    def skipped_count(self) -> int:
        """How many suggestions the client skipped (unknown kind, unsupported asset ref)."""
        return len(self.skipped)

    @property
    def skipped_kinds(self) -> tuple[str, ...]:
        """Kinds of the skipped suggestions, one entry per suggestion (empty when none)."""
        return tuple(s.kind for s in self.skipped)


class SuggestionSetCollection(Collection[SuggestionSet]):
    """Suggestion sets; also the shape of ``GET /v1/inspiration``."""


# --- Threads --------------------------------------------------------------------------------------


class ThreadTurn(_Model):
    version: int
    suggestion_id: str
    generated_at: AwareDatetime
    instruction: str | None = None


class Thread(_Model):
    id: str
    name: str | None = None
    # Optional: the contract names the segment field only through the list filter.
    segment_id: str | None = None
    use_case_id: str | None = None
    locale: str
    head_suggestion_id: str
    root_origin: str
    turn_count: int
    created_at: AwareDatetime
    updated_at: AwareDatetime
    # Present only on a single-thread read (and a rename); oldest first.
    turns: list[ThreadTurn] | None = None


class ThreadCollection(Collection[Thread]):
    pass


# --- Generation runs ------------------------------------------------------------------------------


class SteeredGenerationRequest(_Model):
    """A brief. Check ``steering_text`` with ``checks.check_brief`` before sending."""

    type: Literal["steered_generation"] = "steered_generation"
    segment_id: str
    use_case_id: str
    steering_text: str
    variant_count: int = Field(default=1, ge=1, le=MAX_VARIANTS)


class RefinementRequest(_Model):
    """A refinement. Leave ``image`` None for text-only content: sending it there is an error."""

    type: Literal["refinement"] = "refinement"
    parent_suggestion_id: str
    instruction: str
    image: ImageMode | None = None


GenerationRunRequest = Annotated[
    SteeredGenerationRequest | RefinementRequest, Field(discriminator="type")
]


class RunError(_Model):
    code: str
    message: str = ""


class GenerationRun(_Model):
    id: str
    type: RunType
    status: RunStatus
    created_at: AwareDatetime
    created_by: str
    attempt_count: int
    request: GenerationRunRequest
    suggestion_set_id: str | None = None
    suggestion_id: str | None = None
    error: RunError | None = None

    @property
    def is_terminal(self) -> bool:
        """The run has ended (``succeeded`` or ``failed``) and will not change."""
        return self.status.is_terminal


class GenerationRunCollection(Collection[GenerationRun]):
    pass


# --- Other request bodies -------------------------------------------------------------------------


class GenerationTriggerRequest(_Model):
    segment_id: str
    use_case_id: str


class DraftEmailSuggestionRequest(_Model):
    kind: Literal["email"] = "email"
    segment_id: str
    use_case_id: str
    payload: EmailPayload


class ThreadUpdateRequest(_Model):
    name: str


class AssetUrlMintRequest(_Model):
    refs: list[AssetRef] = Field(min_length=1, max_length=MAX_REFS_PER_CALL)


class MintedAssetUrl(_Model):
    ref: AssetRef
    url: SecretStr
    url_expires_at: AwareDatetime

    def reveal_url(self) -> str:
        """The signed URL. Post it; never log or store it."""
        return self.url.get_secret_value()


class MintedAssetUrlCollection(Collection[MintedAssetUrl]):
    pass
