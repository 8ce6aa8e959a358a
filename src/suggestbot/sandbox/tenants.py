"""The operator's side of the sandbox: tenants, segments, use cases, steering, precompute.

Functions over :class:`~suggestbot.sandbox.env.Env`, so the Python API
(:class:`~suggestbot.sandbox.core.Sandbox`), the HTTP surface under ``/sandbox/``
(:mod:`~suggestbot.sandbox.admin`) and the seed data share one implementation without any of
them importing the object that holds them all.
"""

from __future__ import annotations

from typing import Any

from suggestbot.sandbox import content, runs
from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import not_found
from suggestbot.sandbox.records import SegmentRec, TenantRec, UseCaseRec


def create_tenant(env: Env, *, name: str, locale: str, tenant_id: str | None = None) -> str:
    if locale not in ("en", "de"):
        raise ValueError("locale must be 'en' or 'de'")
    state = env.state
    with state.lock:
        tid = tenant_id or env.ids.new()
        state.tenants[tid] = TenantRec(id=tid, name=name, locale=locale, created_at=env.now())
        state.touch()
    return tid


def _tenant(env: Env, tenant_id: str) -> TenantRec:
    tenant = env.state.tenants.get(tenant_id)
    if tenant is None:
        raise not_found()
    return tenant


def add_segment(
    env: Env,
    *,
    tenant_id: str,
    name: str,
    description: str,
    set_up: bool = True,
    segment_id: str | None = None,
) -> str:
    state = env.state
    with state.lock:
        _tenant(env, tenant_id)
        sid = segment_id or env.ids.new()
        state.segments[sid] = SegmentRec(
            id=sid, tenant_id=tenant_id, name=name, description=description, set_up=set_up
        )
        state.touch()
    return sid


def add_use_case(
    env: Env,
    *,
    tenant_id: str,
    name: str,
    precompute_variants: int = 3,
    use_case_id: str | None = None,
) -> str:
    state = env.state
    with state.lock:
        _tenant(env, tenant_id)
        uid = use_case_id or env.ids.new()
        state.use_cases[uid] = UseCaseRec(
            id=uid, tenant_id=tenant_id, name=name, precompute_variants=precompute_variants
        )
        state.touch()
    return uid


def set_steering(env: Env, *, tenant_id: str, enabled: bool) -> int:
    """Switch generation from own instructions; off fails waiting runs. Returns how many."""
    state = env.state
    with state.lock:
        _tenant(env, tenant_id).steering_enabled = enabled
        state.touch()
        failed = 0 if enabled else runs.fail_waiting_runs(env, tenant_id=tenant_id)
    env.wake.set()
    return failed


def run_precompute(
    env: Env, *, tenant_id: str, segment_id: str | None = None, use_case_id: str | None = None
) -> list[str]:
    """The overnight run, now: a new ready-made version for every set-up pair (or one)."""
    state = env.state
    created: list[str] = []
    with state.lock:
        _tenant(env, tenant_id)
        segments = [
            s
            for s in state.segments.values()
            if s.tenant_id == tenant_id and s.set_up and segment_id in (None, s.id)
        ]
        use_cases = [
            u
            for u in state.use_cases.values()
            if u.tenant_id == tenant_id and use_case_id in (None, u.id)
        ]
        if (segment_id and not segments) or (use_case_id and not use_cases):
            raise not_found()
        for segment in segments:
            for use_case in use_cases:
                record = content.create_set(
                    env,
                    tenant_id=tenant_id,
                    segment_id=segment.id,
                    use_case_id=use_case.id,
                    origin="precompute",
                    variant_count=use_case.precompute_variants,
                    brief=None,
                    run_id=None,
                    created_by=None,
                )
                created.append(record.id)
    return created


def describe_tenants(env: Env) -> list[dict[str, Any]]:
    """Tenants with their segments and use cases (no secrets)."""
    state = env.state
    with state.lock:
        return [
            {
                "id": t.id,
                "name": t.name,
                "locale": t.locale,
                "steering_enabled": t.steering_enabled,
                "segments": [
                    {"id": s.id, "name": s.name, "set_up": s.set_up}
                    for s in state.segments.values()
                    if s.tenant_id == t.id
                ],
                "use_cases": [
                    {"id": u.id, "name": u.name}
                    for u in state.use_cases.values()
                    if u.tenant_id == t.id
                ],
            }
            for t in state.tenants.values()
        ]
