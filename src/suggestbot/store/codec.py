"""JSON codec for stored records.

Records are stored as JSON text, never pickle: a pickled value runs code when it is loaded, so a
copied or tampered database file would become a way in, and pickle ties the file to Python.
Values are checked strictly before they are encoded (no tuples, sets, bytes, non-string keys or
NaN) so that what a caller reads back is exactly what it wrote; ``json.dumps`` alone would
silently turn a tuple into a list or ``{1: ...}`` into ``{"1": ...}``.
"""

from __future__ import annotations

import json
import math
from typing import Any

Record = dict[str, Any]
"""A stored value: a JSON object whose leaves are str, int, float, bool or None."""

_ALLOWED = "dict with str keys, list, str, int, float, bool or None"


def check_json(value: object, *, path: str = "value") -> None:
    """Raise TypeError if ``value`` would not survive a JSON round trip unchanged.

    The message names where the offending part is and its type, never its content, because
    records may hold secrets.
    """
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"store values must be JSON: {path} is a non-finite float")
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            check_json(item, path=f"{path}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(
                    f"store values must be JSON: {path} has a key of type {type(key).__name__}"
                    " (only str keys are allowed)"
                )
            check_json(item, path=f"{path}[{key!r}]")
        return
    raise TypeError(
        f"store values must be JSON: {path} is a {type(value).__name__} (allowed: {_ALLOWED})"
    )


def encode(value: object) -> str:
    """Encode a record as compact JSON text; raise TypeError for anything but a JSON object."""
    if not isinstance(value, dict):
        raise TypeError(f"store records must be dicts, not {type(value).__name__}")
    check_json(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def decode(data: str | bytes) -> Record:
    """Decode JSON text written by :func:`encode`; ValueError if it is not a JSON object."""
    value = json.loads(data)
    if not isinstance(value, dict):
        raise ValueError(f"stored record is a {type(value).__name__}, expected a JSON object")
    return value
