"""Reading Web API arguments the way Slack reads them.

``slack_sdk`` sends some methods form-encoded (every value a string, booleans as ``1``/``0``,
``blocks`` and ``view`` as JSON strings) and others as a JSON body (real lists and objects), so
one accessor per kind of value accepts both spellings.
"""

from __future__ import annotations

import json
from typing import Any

from suggestbot.slackemu.errors import ApiError

_TRUE = {"1", "true", "True", "yes"}


class Args:
    """The arguments of one Web API call, with the warnings its handler wants recorded."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.warnings: list[str] = []

    def has(self, name: str) -> bool:
        return self.raw.get(name) not in (None, "")

    def opt(self, name: str, *, required: bool = False, error: str | None = None) -> str | None:
        value = self.raw.get(name)
        if value is None or value == "":
            if required:
                raise _missing(name, error)
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def req(self, name: str, *, error: str | None = None) -> str:
        value = self.opt(name, required=True, error=error)
        assert value is not None
        return value

    def flag(self, name: str) -> bool:
        value = self.raw.get(name)
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return value != 0
        return isinstance(value, str) and value in _TRUE

    def number(self, name: str, default: int) -> int:
        value = self.raw.get(name)
        if value in (None, ""):
            return default
        try:
            return int(str(value))
        except (TypeError, ValueError):
            raise ApiError(
                "invalid_arguments", messages=[f"[ERROR] must be an integer [json-pointer:/{name}]"]
            ) from None

    def structured(self, name: str, *, error: str) -> Any:
        """A structured argument: given as JSON text (form) or as a value (JSON body)."""
        value = self.raw.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                raise ApiError(error) from None
        return value


def _missing(name: str, error: str | None) -> ApiError:
    if error:
        return ApiError(error)
    return ApiError("invalid_arguments", messages=[f"[ERROR] missing required field: {name}"])
