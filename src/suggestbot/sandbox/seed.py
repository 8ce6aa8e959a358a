"""Seed data, so the demo starts ready: two tenants (en and de) with ready-made content.

The ids and the demo credentials are fixed so that docs, the demo and tests can name them. They
are local-only values for a development tool; they still follow the real token formats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from suggestbot.sandbox import auth, tenants
from suggestbot.sandbox.env import Env


@dataclass(frozen=True)
class DemoTenant:
    """One seeded tenant with its machine credential and a demo user token."""

    tenant_id: str
    name: str
    locale: str
    client_id: str
    client_secret: str = field(repr=False)
    user_id: str
    user_token: str = field(repr=False)
    # name -> id; segments here are set up for content
    segments: dict[str, str]
    use_cases: dict[str, str]
    unset_segment_id: str


@dataclass(frozen=True)
class Demo:
    """The seeded tenants; attributes without a prefix refer to the first (English) one."""

    tenants: tuple[DemoTenant, ...]

    @property
    def primary(self) -> DemoTenant:
        return self.tenants[0]

    @property
    def second(self) -> DemoTenant:
        return self.tenants[1]

    @property
    def tenant_id(self) -> str:
        return self.primary.tenant_id

    @property
    def client_id(self) -> str:
        return self.primary.client_id

    @property
    def client_secret(self) -> str:
        return self.primary.client_secret

    @property
    def user_id(self) -> str:
        return self.primary.user_id

    @property
    def user_token(self) -> str:
        return self.primary.user_token

    @property
    def segment_id(self) -> str:
        return next(iter(self.primary.segments.values()))

    @property
    def use_case_id(self) -> str:
        return next(iter(self.primary.use_cases.values()))

    @property
    def segment_ids(self) -> list[str]:
        return list(self.primary.segments.values())

    @property
    def use_case_ids(self) -> list[str]:
        return list(self.primary.use_cases.values())

    @property
    def unset_segment_id(self) -> str:
        return self.primary.unset_segment_id


def _uuid(n: int) -> str:
    return f"0190c0de-5eed-7000-8000-{n:012x}"


ACME = DemoTenant(
    tenant_id=_uuid(0xA000),
    name="Acme Outdoor",
    locale="en",
    client_id="sbx-demo-acme-outdoor",
    client_secret="sbx_cs_demo-acme-outdoor-local-only",
    user_id=_uuid(0xA0F1),
    user_token="sbx_ut_demo-acme-outdoor-user-local-only",
    segments={"Weekend Hikers": _uuid(0xA101), "Trail Runners": _uuid(0xA102)},
    use_cases={
        "Spring Launch": _uuid(0xA201),
        "Loyalty Reward": _uuid(0xA202),
        "Social Teaser": _uuid(0xA203),
    },
    unset_segment_id=_uuid(0xA103),
)

BERGWERK = DemoTenant(
    tenant_id=_uuid(0xB000),
    name="Bergwerk GmbH",
    locale="de",
    client_id="sbx-demo-bergwerk",
    client_secret="sbx_cs_demo-bergwerk-local-only",
    user_id=_uuid(0xB0F1),
    user_token="sbx_ut_demo-bergwerk-user-local-only",
    segments={"Bergsteiger": _uuid(0xB101), "Familien": _uuid(0xB102)},
    use_cases={
        "Frühjahrsaktion": _uuid(0xB201),
        "Treueprogramm": _uuid(0xB202),
        "Social-Media-Teaser": _uuid(0xB203),
    },
    unset_segment_id=_uuid(0xB103),
)

DEMO = Demo(tenants=(ACME, BERGWERK))

_DESCRIPTIONS = {
    "Weekend Hikers": "Active on weekends and keen on light gear",
    "Trail Runners": "Running off-road several times a week",
    "Lapsed Customers": "No purchase in the last twelve months",
    "Bergsteiger": "Regelmäßig in den Alpen unterwegs",
    "Familien": "Mit Kindern draußen aktiv",
    "Neukunden": "Zum ersten Mal bei uns",
}
_UNSET_NAMES = {ACME.tenant_id: "Lapsed Customers", BERGWERK.tenant_id: "Neukunden"}
# Ready-made sets hold 2 to 4 variants, depending on the use case.
_VARIANTS = (3, 2, 4)


def apply(env: Env) -> Demo:
    """Create the demo tenants, credentials, user tokens and the first overnight content."""
    for tenant in DEMO.tenants:
        tid = tenant.tenant_id
        tenants.create_tenant(env, name=tenant.name, locale=tenant.locale, tenant_id=tid)
        for name, segment_id in tenant.segments.items():
            tenants.add_segment(
                env,
                tenant_id=tid,
                name=name,
                description=_DESCRIPTIONS[name],
                segment_id=segment_id,
            )
        unset = _UNSET_NAMES[tid]
        tenants.add_segment(
            env,
            tenant_id=tid,
            name=unset,
            description=_DESCRIPTIONS[unset],
            set_up=False,
            segment_id=tenant.unset_segment_id,
        )
        for (name, use_case_id), variants in zip(tenant.use_cases.items(), _VARIANTS, strict=True):
            tenants.add_use_case(
                env,
                tenant_id=tid,
                name=name,
                precompute_variants=variants,
                use_case_id=use_case_id,
            )
        auth.create_credential(
            env,
            tenant_id=tid,
            expires_in_s=None,
            client_id=tenant.client_id,
            client_secret=tenant.client_secret,
        )
        auth.create_user_token(env, tenant_id=tid, user_id=tenant.user_id, token=tenant.user_token)
        tenants.run_precompute(env, tenant_id=tid)
    return DEMO
