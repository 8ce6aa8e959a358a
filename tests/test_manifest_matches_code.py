"""manifest.yml declares exactly the command, scopes and events the code uses."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from suggestbot.slackapp import manifest
from suggestbot.slackapp.listeners.commands.suggest import COMMAND
from suggestbot.ui.blocks import ids

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "suggestbot"
APP_CODE = [
    SOURCE / "slackapp",
    SOURCE / "flows",
    SOURCE / "jobs",
    SOURCE / "installations",
    SOURCE / "server",
]


def _python_files() -> list[Path]:
    files: list[Path] = []
    for place in APP_CODE:
        files += [place] if place.is_file() else sorted(place.rglob("*.py"))
    return files


def _web_api_methods() -> set[str]:
    """Slack Web API methods the app calls (``client.chat_postMessage(`` → chat.postMessage)."""
    called = set()
    families = "auth|chat|conversations|users|views|files|reactions|team|apps|oauth|pins"
    pattern = re.compile(rf"\.slack\.([a-z]+)_([A-Za-z]+)\(|client\.({families})_([A-Za-z]+)\(")
    # assistant.threads.* (three parts): slack.assistant_threads_setStatus(
    threads = re.compile(r"\.slack\.assistant_threads_([A-Za-z]+)\(")
    for path in _python_files():
        text = path.read_text(encoding="utf-8")
        called |= {f"assistant.threads.{name}" for name in threads.findall(text)}
        for match in pattern.finditer(text):
            family, name = (
                (match.group(1), match.group(2)) if match.group(1) else match.groups()[2:]
            )
            called.add(f"{family}.{name}")
    return called


def _event_types() -> set[str]:
    pattern = re.compile(r"app\.event\(\s*[\"']([a-z_]+)[\"']")
    return {m for p in _python_files() for m in pattern.findall(p.read_text(encoding="utf-8"))}


def _shortcuts() -> set[str]:
    pattern = re.compile(r"app\.shortcut\(\s*(?:ids\.)?([A-Za-z_\"']+)")
    return {m for p in _python_files() for m in pattern.findall(p.read_text(encoding="utf-8"))}


def _manifest() -> dict:
    return yaml.safe_load((ROOT / "manifest.yml").read_text(encoding="utf-8"))


def test_manifest_yml_is_exactly_what_the_package_carries() -> None:
    # The installed package has no manifest.yml: the demo's emulator takes this one.
    assert _manifest() == manifest.app_manifest()
    here = manifest.app_manifest("https://bot.example.org")
    assert (
        here["settings"]["interactivity"]["request_url"] == "https://bot.example.org/slack/events"
    )
    assert here["oauth_config"]["redirect_urls"] == ["https://bot.example.org/slack/oauth_redirect"]


def test_manifest_states_the_declared_scopes_events_and_command() -> None:
    doc = _manifest()
    assert doc["oauth_config"]["scopes"]["bot"] == list(manifest.BOT_SCOPES)
    assert doc["settings"]["event_subscriptions"]["bot_events"] == list(manifest.BOT_EVENTS)
    [command] = doc["features"]["slash_commands"]
    assert command["command"] == manifest.COMMAND == COMMAND
    assert doc["settings"]["interactivity"]["is_enabled"] is True
    assert doc["features"]["app_home"]["home_tab_enabled"] is True


def test_every_method_called_is_known_and_allowed_by_the_scopes() -> None:
    called = _web_api_methods()
    assert called, "the scan found no Web API call: the pattern is broken"
    unknown = called - set(manifest.METHOD_SCOPES)
    assert unknown == set(), f"add these methods' scopes to manifest.METHOD_SCOPES: {unknown}"
    for method in called:
        assert set(manifest.METHOD_SCOPES[method]) <= set(manifest.BOT_SCOPES), method


def test_every_event_listened_to_is_subscribed_and_nothing_else() -> None:
    listened = _event_types()
    assert "message" in listened and "app_home_opened" in listened
    needed = {sub for event in listened for sub in manifest.EVENT_SUBSCRIPTIONS[event]}
    assert needed == set(manifest.BOT_EVENTS)


def test_no_scope_is_declared_that_nothing_uses() -> None:
    used = {"commands"}
    for method in _web_api_methods():
        used |= set(manifest.METHOD_SCOPES[method])
    for event in manifest.BOT_EVENTS:
        used |= set(manifest.EVENT_SCOPES[event])
    assert set(manifest.BOT_SCOPES) == used


def test_the_message_shortcuts_and_the_composer_are_declared() -> None:
    doc = _manifest()
    declared = {
        s["callback_id"]: s["name"]
        for s in doc["features"].get("shortcuts", [])
        if s["type"] == "message"
    }
    assert declared == manifest.MESSAGE_SHORTCUTS
    # The listener registers each shortcut by the constant the manifest module names.
    assert _shortcuts() == {"SHORTCUT_BRIEF"}
    assert ids.SHORTCUT_BRIEF in manifest.MESSAGE_SHORTCUTS
    assert ("agent_view" in doc["features"]) is manifest.AGENT_VIEW
    assert doc["features"]["app_home"]["messages_tab_enabled"] is True
    assert doc["features"]["app_home"]["messages_tab_read_only_enabled"] is False


def test_the_status_line_and_the_prompts_have_their_scopes() -> None:
    called = _web_api_methods()
    assert {"assistant.threads.setStatus", "assistant.threads.setSuggestedPrompts"} <= called
    assert "assistant:write" in manifest.BOT_SCOPES
    assert manifest.METHOD_SCOPES["assistant.threads.setStatus"] == ("chat:write",)


def _functions_in_code() -> set[str]:
    pattern = re.compile(r"app\.function\(\s*([A-Za-z_.]+)")
    found = set()
    for path in _python_files():
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            found.add(name)
    return found


def test_the_workflow_step_is_declared_with_its_inputs_and_outputs() -> None:
    from suggestbot.flows.workflow import step as workflow_step

    doc = _manifest()
    assert _functions_in_code() == {"workflow_step.CALLBACK_ID"}
    assert set(doc["functions"]) == set(manifest.FUNCTIONS) == {workflow_step.CALLBACK_ID}
    for callback_id, spec in manifest.FUNCTIONS.items():
        declared = doc["functions"][callback_id]
        assert declared["title"] == "Generate content suggestions"
        for side, key in (("inputs", "input_parameters"), ("outputs", "output_parameters")):
            required, optional = spec[side]
            assert set(declared[key]["properties"]) == {*required, *optional}
            assert declared[key]["required"] == list(required)
    # Slack delivers function_executed for declared functions; it cannot be subscribed.
    assert "function_executed" not in doc["settings"]["event_subscriptions"]["bot_events"]
    assert doc["settings"]["function_runtime"] == "remote"
    assert doc["settings"]["org_deploy_enabled"] is True
