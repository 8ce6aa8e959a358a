"""The app's Messages tab as a composer, over loopback: suggested prompts, a brief written
there, its variants and refinements in that conversation, its choices picked in one click,
and the status line while it works — as a person in Slack sees them."""

from __future__ import annotations

from typing import Any

from suggestbot.demo.stage import ALICE, BRUNO, CAROL, Stage, wait_for
from suggestbot.ui.messages import t


def _dm(stage: Stage, user: str) -> str:
    return stage.emu.dm_channel(user)


def _roots(stage: Stage, user: str) -> list[dict[str, Any]]:
    """The app's brief roots in the person's conversation with it, oldest first."""
    return [
        m
        for m in stage.emu.messages(_dm(stage, user))
        if (m.get("metadata") or {}).get("event_payload", {}).get("role") == "root"
        or any(b.get("block_id", "").startswith("composer_choices:") for b in m["blocks"])
    ]


def _wait_roots(stage: Stage, user: str, count: int) -> list[dict[str, Any]]:
    return wait_for(
        lambda: (found := _roots(stage, user)) and len(found) >= count and found,
        what=f"{count} brief root(s) in the Messages tab",
        detail=lambda: stage.emu.transcript(_dm(stage, user)),
    )


def _wait_ready(stage: Stage, user: str, root: dict[str, Any], words: str) -> None:
    wait_for(
        lambda: words in stage.emu.transcript(_dm(stage, user), thread_ts=None),
        what="the root to say ready",
        detail=lambda: stage.emu.transcript(_dm(stage, user)),
    )


def _variants(stage: Stage, user: str, root: dict[str, Any]) -> list[dict[str, Any]]:
    return stage.emu.messages(_dm(stage, user), thread_ts=root["ts"])[1:]


def _context(root: dict[str, Any]) -> str:
    return " ".join(
        str(e.get("text", ""))
        for b in root["blocks"]
        if b["type"] == "context"
        for e in b.get("elements", [])
    )


def test_prompts_a_picked_prompt_its_variants_and_the_status_line(stage: Stage) -> None:
    stage.connect(ALICE)
    opened = stage.slack.open_messages_tab(ALICE)
    assert opened is not None and opened.acked_in_time
    dm = _dm(stage, ALICE)
    prompts = wait_for(lambda: stage.emu.suggested_prompts(dm), what="suggested prompts")
    assert prompts["title"] == "Start a brief from a template:"
    offered = prompts["prompts"]
    assert 1 <= len(offered) <= 4
    segments, use_cases = stage.demo.primary.segments, stage.demo.primary.use_cases
    # Each template names a segment and a use case of the workspace, and no two are alike.
    assert len({p["message"] for p in offered}) == len(offered)
    for prompt in offered:
        head = prompt["message"].split(":", 1)[0]
        segment, use_case = head.split(" · ")
        assert segment in segments and use_case in use_cases
        assert prompt["title"] == f"{use_case} for {segment}"

    chosen = offered[1]
    segment, use_case = chosen["message"].split(":", 1)[0].split(" · ")
    stage.slack.pick_suggested_prompt(ALICE, chosen["title"])
    [root] = _wait_roots(stage, ALICE, 1)
    # The brief went to the prompt's segment and use case, as the root says.
    assert f"{segment} · {use_case} · 1 variant" in _context(root)
    _wait_ready(stage, ALICE, root, "are ready")
    [variant] = _variants(stage, ALICE, root)
    assert variant["blocks"][0]["text"]["text"].startswith("Variant 1 of 1")
    history = stage.emu.status_history(dm, root["ts"])
    shown = [h for h in history if h["cause"] == "set"]
    assert shown, history
    assert all(h["status"].startswith("is ") and h["loading_messages"] for h in shown)
    assert "Drafting the variants…" in shown[-1]["loading_messages"]
    # The variants posted in the thread ended the line; nothing set it again afterwards.
    assert history[-1]["cause"] == "reply"
    assert stage.emu.thread_status(dm, root["ts"]) is None
    assert stage.emu.warnings == []


def test_a_plain_brief_its_choices_picked_again_and_a_reply_that_refines(stage: Stage) -> None:
    stage.connect(CAROL)
    stage.slack.message_in_messages_tab(CAROL, "A short note about our new rain jacket")
    [first] = _wait_roots(stage, CAROL, 1)
    selects = [e for b in first["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [s["type"] for s in selects] == ["static_select"] * 3
    segment_names = list(stage.demo.primary.segments)
    first_segment = selects[0]["initial_option"]["text"]["text"]
    other = next(name for name in segment_names if name != first_segment)
    _wait_ready(stage, CAROL, first, "are ready")

    # One click: another segment sends the brief again there, and is kept for next time.
    picked = stage.slack.pick_option(first, other, user_id=CAROL, placeholder="Segment")
    assert picked.acked_in_time
    _, second = _wait_roots(stage, CAROL, 2)
    assert f"{other} · " in _context(second)
    assert "A short note about our new rain jacket" in stage.emu.transcript(_dm(stage, CAROL))
    stage.slack.message_in_messages_tab(CAROL, "Now one about hiking boots")
    *_, third = _wait_roots(stage, CAROL, 3)
    assert f"{other} · " in _context(third)

    # A reply in a result's thread refines it, as in a channel.
    posted = stage.slack.message_in_messages_tab(CAROL, "Make it shorter", thread_ts=first["ts"])
    assert posted.delivery is not None and posted.delivery.acked_in_time
    wait_for(
        lambda: any(
            str(m["blocks"][0].get("text", {}).get("text", "")).startswith("Turn 2 ")
            for m in _variants(stage, CAROL, first)
            if m["blocks"] and m["blocks"][0]["type"] == "header"
        ),
        what="the refinement's turn in the thread",
        detail=lambda: stage.emu.transcript(_dm(stage, CAROL), thread_ts=first["ts"]),
    )
    # The refinement had its own line under the thread, ended once its turn was shown.
    history = stage.emu.status_history(_dm(stage, CAROL), first["ts"])
    refining = [h for h in history if "Reading your instruction…" in h["loading_messages"]]
    assert refining, history
    wait_for(
        lambda: stage.emu.thread_status(_dm(stage, CAROL), first["ts"]) is None,
        what="the refinement's status line to end",
        detail=lambda: str(stage.emu.status_history(_dm(stage, CAROL), first["ts"])),
    )
    assert stage.emu.warnings == []


def test_in_german_prompts_and_the_status_line_are_german(stage: Stage) -> None:
    stage.connect(BRUNO)
    stage.slack.open_messages_tab(BRUNO)
    dm = _dm(stage, BRUNO)
    prompts = wait_for(lambda: stage.emu.suggested_prompts(dm), what="suggested prompts")
    assert prompts["title"] == "Ein Briefing aus einer Vorlage beginnen:"
    assert all(" für " in p["title"] for p in prompts["prompts"])
    stage.slack.pick_suggested_prompt(BRUNO, prompts["prompts"][0]["title"])
    [root] = _wait_roots(stage, BRUNO, 1)
    _wait_ready(stage, BRUNO, root, "sind fertig")
    shown = [h for h in stage.emu.status_history(dm, root["ts"]) if h["cause"] == "set"]
    assert shown and "Entwerfe die Varianten…" in shown[-1]["loading_messages"]
    assert {h["status"] for h in shown} <= {
        "sendet die Anfrage…",
        "steht beim Dienst in der Warteschlange…",
        "schreibt (Versuch 1)…",
        "versucht es erneut (Versuch 2)…",
        "veröffentlicht die Ergebnisse…",
    }


def test_an_unlinked_person_is_asked_to_connect_and_the_brief_is_kept(stage: Stage) -> None:
    stage.slack.message_in_messages_tab(ALICE, "Autumn sale teaser for trail runners")
    dm = _dm(stage, ALICE)
    asked = wait_for(
        lambda: next(
            (m for m in stage.emu.messages(dm) if "connect your content service" in m["text"]),
            None,
        ),
        what="the request to connect",
        detail=lambda: stage.emu.transcript(dm),
    )
    assert "[Connect account]" in stage.emu.transcript(dm) and "[Resend]" in stage.emu.transcript(
        dm
    )
    assert stage.sandbox.counters.get("POST /v1/generation-runs") in (None, 0)
    # Connected, one press on Resend opens the brief modal with the text as typed.
    stage.connect(ALICE)
    stage.slack.press_button(asked, "Resend", user_id=ALICE)
    view = wait_for(
        lambda: (v := stage.emu.current_view(ALICE)) and v.get("submit") and v,
        what="the brief modal, filled in",
    )
    assert "Autumn sale teaser for trail runners" in str(view)


def test_a_channel_brief_shows_the_status_line_under_its_root(stage: Stage) -> None:
    stage.sandbox.faults.fail_next_runs = ["generation_failed"]
    stage.connect(ALICE)
    stage.brief(ALICE, "A brief that will fail")
    root = wait_for(lambda: next(iter(stage.emu.messages(stage.channel)), None), what="a root")
    wait_for(
        lambda: "failed" in stage.emu.transcript(stage.channel, thread_ts=None),
        what="the root to say failed",
    )
    # Nothing was posted in the thread: the app clears the line itself, after the root says so.
    wait_for(
        lambda: stage.emu.thread_status(stage.channel, root["ts"]) is None,
        what="the status line to be cleared",
    )
    history = stage.emu.status_history(stage.channel, root["ts"])
    assert [h for h in history if h["cause"] == "set"], history
    assert history[-1]["cause"] == "cleared"


def test_a_brief_with_a_broken_character_is_told_at_once_and_nothing_kept(
    stage: Stage,
) -> None:
    """A lone surrogate (through a JSON escape) is no text: the person is told, and nothing
    that could not be stored or sent is kept (it failed inside the store and Slack before)."""
    stage.slack.message_in_messages_tab(ALICE, "Autumn \ud800 teaser")
    dm = _dm(stage, ALICE)
    wait_for(
        lambda: t("brief.input_invalid_encoding", "en") in stage.emu.transcript(dm),
        what="the plain words",
        detail=lambda: stage.emu.transcript(dm),
    )
    assert stage.runtime is not None
    assert list(stage.runtime.deps.records.held.values()) == []
    assert stage.sandbox.counters.get("POST /v1/generation-runs") in (None, 0)
