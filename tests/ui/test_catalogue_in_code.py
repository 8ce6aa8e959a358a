"""The code and the catalogues agree: every key the code asks for exists (as a singular or a
plural entry, as it is asked for), and what every enabled language says fits the Block Kit slot
it is shown in, with the longest values the flows put in it."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from suggestbot.ui import catalogue_check, messages
from suggestbot.ui.messages import ENABLED

SRC = Path(__file__).resolve().parents[2] / "src" / "suggestbot"

# Slack's limits on the plain text of these slots (the emulator's, from Slack's reference).
SLOTS: dict[str, dict[str, int]] = {
    "View": {"title": 24, "submit": 24, "close": 24},
    "ButtonElement": {"text": 75},
    "HeaderBlock": {"text": 150},
    "Option": {"text": 75},
    "StaticSelectElement": {"placeholder": 150},
    "PlainTextInputElement": {"placeholder": 150},
}
# The longest value each placeholder takes where these slots show it: counts and numbers as
# large as the flows make them (a page of 46 numbered from 1 to 1,000), ids as Slack's.
LONGEST: dict[str, object] = {
    "n": 1000,
    "count": 1000,
    "total": 10,
    "version": 1000,
    "attempt": 10,
    "user": "U0123456789A",
}


def _calls() -> Iterator[tuple[Path, ast.Call]]:
    for path in sorted(SRC.rglob("*.py")):
        if {"sandbox", "slackemu", "demo"} & set(path.relative_to(SRC).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                yield path, node


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


@functools.cache
def _key_uses() -> tuple[tuple[str, str, str], ...]:
    """(function, key, where) of every t/tn call with a literal key, and of every key-typed
    literal handed on (``Button("button.retry", …)``, ``title_key="…"``)."""
    found = []
    for path, call in _calls():
        where = f"{path.relative_to(SRC)}:{call.lineno}"
        key = _literal(call.args[0]) if call.args else None
        if _name(call) in {"t", "tn"} and key is not None:
            found.append((_name(call), key, where))
        if _name(call) in {"Button", "view_text"} and key is not None:
            found.append(("t", key, where))
        for keyword in call.keywords:
            value = _literal(keyword.value)
            if keyword.arg and keyword.arg.endswith("_key") and value is not None:
                found.append(("t", value, where))
    return tuple(found)


def test_every_key_the_code_asks_for_exists_as_it_is_asked_for() -> None:
    singular, plural = set(messages.all_keys()), set(messages.plural_keys())
    wrong = [
        f"{where}: {function}({key!r})"
        for function, key, where in _key_uses()
        if key not in (plural if function == "tn" else singular)
        and not (function == "t" and key in plural)  # handed on to a builder that counts
    ]
    assert wrong == []


def test_every_key_built_at_run_time_matches_some_key() -> None:
    keys = [*messages.all_keys(), *messages.plural_keys()]
    missing = []
    for path, call in _calls():
        if _name(call) not in {"t", "tn"} or not call.args:
            continue
        arg = call.args[0]
        if not isinstance(arg, ast.JoinedStr):
            continue
        pattern = "".join(
            re.escape(part.value) if isinstance(part, ast.Constant) else r"[a-z_0-9]+"
            for part in arg.values
        )
        if not any(re.fullmatch(pattern, key) for key in keys):
            missing.append(f"{path.relative_to(SRC)}:{call.lineno}: {pattern}")
    assert missing == []


def _keys_in(node: ast.expr, given: set[str]) -> Iterator[str]:
    """Keys whose text ends up in ``node``: t/tn calls inside it (clipped or not), with a key
    held by a parameter resolved to the literals its function's callers give it."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and _name(inner) in {"t", "tn", "view_text"} and inner.args:
            key = _literal(inner.args[0])
            if key is not None:
                yield key
            elif isinstance(inner.args[0], ast.Name):
                yield from (k for name, k in given if name == inner.args[0].id)


def _functions() -> Iterator[tuple[Path, ast.FunctionDef]]:
    for path in sorted(SRC.rglob("*.py")):
        if {"sandbox", "slackemu", "demo"} & set(path.relative_to(SRC).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                yield path, node


@functools.cache
def _slotted() -> tuple[tuple[str, int, str], ...]:
    # (function, parameter) -> the literal keys its callers give that parameter
    passed: dict[str, set[tuple[str, str]]] = {}
    for _, call in _calls():
        for keyword in call.keywords:
            value = _literal(keyword.value)
            if keyword.arg and keyword.arg.endswith("_key") and value is not None:
                passed.setdefault(_name(call), set()).add((keyword.arg, value))
    found = set()
    for path, call in _calls():
        if _name(call) == "Button" and call.args and _literal(call.args[0]):
            found.add((str(_literal(call.args[0])), 75, f"{path.relative_to(SRC)}"))
    for path, function in _functions():
        given = passed.get(function.name, set())
        for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
            for keyword in call.keywords:
                limit = SLOTS.get(_name(call), {}).get(keyword.arg or "")
                if limit is not None:
                    for key in _keys_in(keyword.value, given):
                        found.add((key, limit, f"{path.relative_to(SRC)}:{call.lineno}"))
    return tuple(sorted(found))


def test_the_slots_are_found() -> None:
    slotted = {(key, limit) for key, limit, _ in _slotted()}
    assert {("brief.title", 24), ("connect.submit", 24), ("button.retry", 75)} <= slotted
    assert ("digest.modal_title", 24) in slotted  # handed on as title_key


def _longest(lang: str, key: str) -> str:
    plural = key in messages.plural_keys()
    forms = [messages.template(key, lang, n) for n in (1, 2, 5, 1000)] if plural else []
    texts = forms or [messages.template(key, lang)]
    filled = []
    for text in texts:
        names = catalogue_check.placeholders(text)
        values = {n: LONGEST.get(n, "") for n in names if n != "count"}
        filled.append(
            messages.tn(key, lang, count=1000, **values)
            if plural
            else messages.t(key, lang, **values)
        )
    return max(filled, key=len)


@pytest.mark.parametrize("lang", ENABLED)
def test_every_slotted_text_fits_its_slot_in_every_enabled_language(lang: str) -> None:
    too_long = [
        f"{key} ({where}): {len(text)} > {limit}: {text!r}"
        for key, limit, where in _slotted()
        if len(text := _longest(lang, key)) > limit
    ]
    assert too_long == []
