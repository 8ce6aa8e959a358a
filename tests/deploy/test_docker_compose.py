"""``docker-compose.yml`` and its load balancer's configuration, read as Docker would read them
(no Docker here): PostgreSQL 15, a one-shot ``db upgrade`` before two app replicas built from
the Dockerfile, haproxy routing by ``/readyz``, a drain shorter than Docker's stop grace
period, and no secret written in either file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
HAPROXY = ROOT / "deploy" / "haproxy.cfg"
ENV_EXAMPLE = ROOT / "deploy" / "compose.env.example"
REPLICAS = ("app1", "app2")
SECRET_NAMES = re.compile(r"SECRET|TOKEN|PASSWORD|KEYS?$|DATABASE_URL")
# Compose's interpolation of a variable: ${NAME}, ${NAME:?message}, ${NAME:-default}.
REFERENCE = re.compile(r"\$\{([A-Z_]+)(?::?[?-][^}]*)?\}")


def _compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(loaded, dict)
    return loaded


def _seconds(value: str) -> float:
    match = re.fullmatch(r"(\d+)(ms|s|m)", value)
    assert match, value
    return int(match[1]) * {"ms": 0.001, "s": 1, "m": 60}[match[2]]


def test_postgresql_a_one_shot_upgrade_then_two_replicas_behind_the_balancer() -> None:
    services = _compose()["services"]
    assert set(services) == {"postgres", "migrate", *REPLICAS, "lb"}

    postgres = services["postgres"]
    assert postgres["image"] == "postgres:15"
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])

    migrate = services["migrate"]
    assert migrate["command"] == ["db", "upgrade"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}

    for name in REPLICAS:
        app = services[name]
        assert app["build"] == "."
        assert (ROOT / app["build"] / "Dockerfile").is_file()
        assert app["command"] == ["serve"]
        assert app["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
        assert app["env_file"] == ".env"
        url = app["environment"]["SUGGESTBOT_DATABASE_URL"]
        assert url.startswith("postgresql://suggestbot:${POSTGRES_PASSWORD")
        assert url.endswith("@postgres:5432/suggestbot")
        # Docker's own health check asks for liveness: a replica whose database is down stays.
        assert "/livez" in " ".join(app["healthcheck"]["test"])
        # Docker waits longer than the drain before its SIGKILL.
        drain = float(app["environment"]["SUGGESTBOT_DRAIN_SECONDS"])
        assert _seconds(app["stop_grace_period"]) > drain + 10

    lb = services["lb"]
    assert lb["image"].startswith("haproxy:")
    assert f"./{HAPROXY.relative_to(ROOT)}:/usr/local/etc/haproxy/haproxy.cfg:ro" in lb["volumes"]
    assert set(lb["depends_on"]) == set(REPLICAS)


def test_the_balancer_routes_by_readiness_to_each_replica_and_fails_open() -> None:
    lines = [line.split("#", 1)[0].strip() for line in HAPROXY.read_text().splitlines()]
    config = [line for line in lines if line]
    assert "option httpchk GET /readyz" in config
    assert "http-check expect status 200" in config
    assert "balance roundrobin" in config
    for name in REPLICAS:
        assert f"server {name} {name}:3000 check" in config
        # Always up, used only when no checked server is: fail open during a database outage.
        assert f"server {name}-open {name}:3000 backup" in config
    assert "option allbackups" in config
    # Sent again only after a failed connection: haproxy's retry-on stays at its default.
    assert not [line for line in config if line.startswith("retry-on")]


def test_no_secret_is_written_in_the_files_only_referenced_from_the_env_file() -> None:
    compose = _compose()
    referenced: set[str] = set()
    for service in compose["services"].values():
        for name, value in (service.get("environment") or {}).items():
            text = str(value)
            referenced |= set(REFERENCE.findall(text))
            if SECRET_NAMES.search(name):
                without_references = REFERENCE.sub("", text)
                assert not re.search(r":[^/@:]+@", without_references), name
                if name != "SUGGESTBOT_DATABASE_URL":
                    assert REFERENCE.fullmatch(text), f"{name} must come from .env"
    assert referenced == {"POSTGRES_PASSWORD"}
    for path in (COMPOSE, HAPROXY):
        text = path.read_text()
        assert not re.search(r"xox[abp]-|xapp-|sbx_|-----BEGIN", text), path
    # Every variable the files ask of .env is in the example, with no value filled in.
    example = dict(
        line.split("=", 1)
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert referenced <= set(example)
    assert {
        name: value for name, value in example.items() if SECRET_NAMES.search(name) and value
    } == {}
    assert ".env" in (ROOT / ".gitignore").read_text().split()
