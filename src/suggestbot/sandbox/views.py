"""Wire shapes built from records (expects ``env.state.lock`` held)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from suggestbot.sandbox import wire
from suggestbot.sandbox.content import image_of
from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import message_for
from suggestbot.sandbox.records import RunRec, SetRec, SuggestionRec, ThreadRec


@dataclass(frozen=True)
class UrlMinting:
    """Present when a read expands ``asset_urls``: where and when URLs are minted."""

    base_url: str
    now: datetime


def _payload(env: Env, record: SuggestionRec, urls: UrlMinting | None) -> wire.Payload:
    if record.kind == "email":
        return wire.EmailPayload(subject=record.payload["subject"], body=record.payload["body"])
    asset = image_of(record)
    if record.kind == "social_single_image" and asset is not None:
        url = expires = None
        if urls is not None:
            url, expires = env.signer.mint(base_url=urls.base_url, ref=asset["ref"], now=urls.now)
        image = wire.EmbeddedImageAsset(
            ref=asset["ref"], url=url, url_expires_at=expires, alt_text=asset["alt_text"]
        )
        return wire.SocialSingleImagePayload(body=record.payload["body"], asset=image)
    return wire.OtherKindPayload(**record.payload)


def suggestion(
    env: Env,
    record: SuggestionRec,
    *,
    urls: UrlMinting | None = None,
    lineage: list[SuggestionRec] | None = None,
) -> wire.Suggestion:
    summaries = None
    if lineage is not None:
        summaries = [
            wire.LineageSuggestionSummary(
                id=item.id,
                suggestion_set_id=item.suggestion_set_id,
                kind=item.kind,
                variant_no=item.variant_no,
                created_at=item.created_at,
                instruction=item.instruction,
            )
            for item in lineage
        ]
    return wire.Suggestion(
        id=record.id,
        suggestion_set_id=record.suggestion_set_id,
        kind=record.kind,
        variant_no=record.variant_no,
        parent_suggestion_id=record.parent_suggestion_id,
        rationale=record.rationale,
        payload=_payload(env, record, urls),
        lineage=summaries,
    )


def suggestion_set(
    env: Env, record: SetRec, *, urls: UrlMinting | None = None
) -> wire.SuggestionSet:
    return wire.SuggestionSet(
        id=record.id,
        segment_id=record.segment_id,
        use_case_id=record.use_case_id,
        locale=record.locale,
        version=record.version,
        created_at=record.created_at,
        origin=record.origin,
        generation_run_id=record.generation_run_id,
        steering_text=record.steering_text,
        created_by=record.created_by,
        suggestions=[
            suggestion(env, env.state.suggestions[sid], urls=urls) for sid in record.suggestion_ids
        ],
    )


def thread(record: ThreadRec, *, with_turns: bool) -> wire.Thread:
    turns = None
    if with_turns:
        turns = [
            wire.ThreadTurn(
                version=t.version,
                suggestion_id=t.suggestion_id,
                generated_at=t.generated_at,
                instruction=t.instruction,
            )
            for t in record.turns
        ]
    return wire.Thread(
        id=record.id,
        name=record.name,
        segment_id=record.segment_id,
        use_case_id=record.use_case_id,
        locale=record.locale,
        head_suggestion_id=record.turns[-1].suggestion_id,
        root_origin=record.root_origin,
        turn_count=len(record.turns),
        created_at=record.created_at,
        updated_at=record.updated_at,
        created_by=record.created_by,
        turns=turns,
    )


def run(record: RunRec) -> wire.GenerationRun:
    error = None
    if record.error_code is not None:
        error = wire.GenerationRunError(
            code=record.error_code, message=message_for(record.error_code)
        )
    return wire.GenerationRun(
        id=record.id,
        type=record.type,
        status=record.status,
        created_at=record.created_at,
        created_by=record.created_by,
        attempt_count=record.attempt_count,
        request=record.request,
        suggestion_set_id=record.suggestion_set_id,
        suggestion_id=record.suggestion_id,
        error=error,
    )
