"""One settings object for the whole app, read from the environment (or ``.env``) once.

Built in the entry point and passed down; nothing else reads ``os.environ``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

SLACK_DEFAULT_API_URL = "https://slack.com/api/"


class Settings(BaseSettings):
    """Operator configuration (design §5). Secrets are ``SecretStr`` so they never print."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    slack_state_secret: SecretStr | None = None
    slack_api_url: str = SLACK_DEFAULT_API_URL

    content_api_url: str | None = None
    content_client_id: str | None = None
    content_client_secret: SecretStr | None = None
    # The tenant's content locale (``en`` or ``de``); also learned from what the service returns.
    content_locale: str = "en"

    suggestbot_secret_keys: SecretStr | None = Field(default=None)
    suggestbot_data_dir: Path = Path("./data")
    # PostgreSQL (``postgresql://user:password@host:port/db``) shared by several replicas; unset:
    # the SQLite file in ``suggestbot_data_dir``. A secret: it holds the database password.
    suggestbot_database_url: SecretStr | None = None
    # Multiplies every delay of the run watcher's poll schedule. For tests and demos only, where
    # the sandbox's clock is sped up too: 1.0 (the contract's real schedule) anywhere else.
    suggestbot_poll_scale: float = Field(default=1.0, gt=0)
    # How long a replica's claim on shared work (a run's poll or send, a recorded interaction)
    # lasts without a renewal; renewed every third of it. Longer: a replica stalled by an
    # overloaded host keeps its work; shorter: a dead replica's work is taken over sooner.
    # Unset: one poll interval (10 s), scaled with the poll schedule, never under 2 s.
    suggestbot_lease_seconds: float | None = Field(default=None, ge=2)
    # For crash tests only: work stops for good at this named point of the flows (the test then
    # kills the process there). Unset anywhere else.
    suggestbot_freeze_at: str | None = None
    # Keep every Slack Web API call within Slack's documented rate limits (suggestbot.slack).
    # Off only to measure what the gate saves (the benchmarks' "gate off" run).
    suggestbot_slack_gate: bool = True
    # On SIGTERM, how long `serve` keeps answering after /readyz turned 503, so that a load
    # balancer notices and sends no more requests before the port closes.
    suggestbot_drain_seconds: float = Field(default=5.0, ge=0)
    port: int = 3000
    log_level: str = "INFO"
    log_json: bool = False

    @field_validator("slack_api_url")
    @classmethod
    def _api_url_ends_with_slash(cls, value: str) -> str:
        # slack_sdk appends the method name to base_url as is.
        return value if value.endswith("/") else value + "/"

    @property
    def embedded_sandbox(self) -> bool:
        """No service address configured: run the sandbox inside the process."""
        return not self.content_api_url

    @property
    def database_url(self) -> str | None:
        """``SUGGESTBOT_DATABASE_URL`` in clear, or None for the SQLite default."""
        url = self.suggestbot_database_url
        return url.get_secret_value() if url else None

    @property
    def oauth_install(self) -> bool:
        return bool(self.slack_client_id and self.slack_client_secret)
