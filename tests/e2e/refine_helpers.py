"""Steps shared by the refinement scenarios: threads, replies, turns, what the service holds."""

from __future__ import annotations

from typing import Any

from suggestbot.contentapi import ContentClient, GenerationRun, Thread
from suggestbot.demo.stage import Stage, wait_for
from suggestbot.flows.common import slackio, threads
from suggestbot.flows.linking import accounts as linking
from suggestbot.ui.blocks.results import Message


def service(stage: Stage) -> ContentClient:
    """The app's own machine client (sees the whole tenant), to check what the service holds."""
    assert stage.runtime is not None
    return stage.runtime.content


def connect(stage: Stage, slack_user: str, token: str | None = None) -> None:
    """``/suggest connect`` through the modal, done once the app has kept the link (the modal
    closes on submit; the outcome is told in the channel)."""
    stage.slack.slash_command(slack_user, stage.channel, "connect")
    wait_for(lambda: stage.emu.current_view(slack_user) is not None, what="the connect modal")
    view = stage.emu.current_view(slack_user) or {}
    label = next(b["label"]["text"] for b in view["blocks"] if b["type"] == "input")
    stage.slack.submit_view(slack_user, {label: token or stage.user_token()})
    assert stage.runtime is not None
    deps = stage.runtime.deps
    wait_for(
        lambda: linking.is_linked(deps, team_id=stage.emu.team_id, user_id=slack_user),
        what="the account to be linked",
    )
    if stage.emu.current_view(slack_user) is not None:
        stage.slack.close_view(slack_user, clear=True)


def connect_as_new_service_user(stage: Stage, slack_user: str) -> str:
    """Link ``slack_user`` with a token of a fresh service user; returns that user's id."""
    assert stage.sandbox.demo is not None
    service_user, token = stage.sandbox.create_user_token(stage.sandbox.demo.tenant_id)
    connect(stage, slack_user, token)
    return service_user


def brief_thread(stage: Stage, user: str, text: str, *, variants: int = 1) -> str:
    """Send a brief and wait until its variants are posted; returns the root's ``ts``."""
    before = {m["ts"] for m in stage.emu.messages(stage.channel)}
    answer = stage.brief(user, text, variants=variants)
    assert answer.errors == {}
    root = wait_for(
        lambda: next((m for m in stage.emu.messages(stage.channel) if m["ts"] not in before), None),
        what="the brief's root message",
    )
    ts = str(root["ts"])
    wait_for(
        lambda: (
            "are ready" in _root_text(stage, ts)
            # the root, the gallery of several variants, then each variant
            and len(stage.emu.messages(stage.channel, thread_ts=ts)) > variants + (variants > 1)
        ),
        what="the variants",
    )
    return ts


def _root_text(stage: Stage, ts: str) -> str:
    root = stage.emu.messages(stage.channel, thread_ts=ts)[0]
    return (
        " ".join(
            str((b.get("text") or {}).get("text") or "")
            for b in root.get("blocks") or []
            if isinstance(b, dict)
        )
        + " "
        + " ".join(
            str(e.get("text") or "")
            for b in root.get("blocks") or []
            if b.get("type") == "context"
            for e in b.get("elements") or []
        )
    )


def root_text(stage: Stage, ts: str) -> str:
    return _root_text(stage, ts)


def thread_messages(stage: Stage, ts: str) -> list[dict[str, Any]]:
    return stage.emu.messages(stage.channel, thread_ts=ts)


def header(message: dict[str, Any]) -> str:
    blocks = message.get("blocks") or []
    return str(blocks[0]["text"]["text"]) if blocks and blocks[0]["type"] == "header" else ""


def turns(stage: Stage, ts: str) -> list[dict[str, Any]]:
    """The "Turn n" replies of a thread, oldest first (German: "Runde n")."""
    return [m for m in thread_messages(stage, ts) if header(m).startswith(("Turn ", "Runde "))]


def wait_turn(stage: Stage, ts: str, number: int) -> dict[str, Any]:
    def found() -> dict[str, Any] | None:
        return next(
            (
                m
                for m in turns(stage, ts)
                if header(m).startswith((f"Turn {number} ", f"Runde {number} "))
            ),
            None,
        )

    return wait_for(found, what=f"turn {number}", detail=lambda: _thread_state(stage, ts))


def _thread_state(stage: Stage, ts: str) -> str:
    """What the thread shows and what the app holds of its refinements, for a failed wait."""
    shown = [header(m) or str(m.get("text") or "")[:80] for m in thread_messages(stage, ts)]
    held = []
    if stage.runtime is not None:
        for req in stage.runtime.deps.records.requests.values():
            if req.thread_ts == ts or req.root_ts == ts:
                failure = req.failure.model_dump() if req.failure else None
                held.append(f"{req.kind} {req.state} run={req.run_status} failure={failure}")
    return "thread: " + " | ".join(shown) + "\nrequests: " + " | ".join(held)


def reply(stage: Stage, user: str, ts: str, text: str) -> None:
    posted = stage.slack.post_user_message(user, stage.channel, text, thread_ts=ts)
    assert posted.delivery is not None and posted.delivery.acked_in_time


def wait_ephemeral_with(stage: Stage, user: str, words: str) -> dict[str, Any]:
    """The first ephemeral of ``user`` in the stage's channel whose text holds ``words``."""
    found: dict[str, Any] = wait_for(
        lambda: next(
            (e for e in stage.emu.ephemerals(user, stage.channel) if words in e["text"]), None
        ),
        what=f"an ephemeral saying {words!r}",
    )
    return found


def ephemeral_text(stage: Stage, user: str) -> str:
    return stage.emu.ephemeral_transcript(user, stage.channel)


def runs_of(stage: Stage) -> list[GenerationRun]:
    """Every run of the tenant, newest first."""
    return list(service(stage).iter_runs(limit=100))


def refinement_runs(stage: Stage) -> list[GenerationRun]:
    return [r for r in runs_of(stage) if r.type.value == "refinement"]


def thread_of_head(stage: Stage, suggestion_id: str) -> Thread:
    """The service thread whose head is ``suggestion_id``."""
    client = service(stage)
    for item in client.iter_threads(limit=100):
        if item.head_suggestion_id == suggestion_id:
            return client.get_thread(thread_id=item.id)
    raise AssertionError(f"no service thread has {suggestion_id} as its head")


def shared_ready_made_thread(stage: Stage) -> tuple[str, list[str]]:
    """A root of ready-made content (no creator, so every user may refine it), bound with the
    generic binding API the way sharing inspiration binds its roots."""
    assert stage.runtime is not None and stage.sandbox.demo is not None
    deps = stage.runtime.deps
    demo = stage.sandbox.demo
    [newest, *_] = service(stage).get_inspiration(
        segment_id=demo.segment_id, use_case_id=demo.use_case_id, locale="en"
    )
    root = Message(text="Ready-made for Weekend Hikers", blocks=[])
    ts = slackio.post(deps, channel=stage.channel, message=root)
    threads.bind_thread(
        deps,
        threads.new_binding(
            team_id=stage.emu.team_id,
            channel=stage.channel,
            thread_ts=ts,
            suggestions=[threads.bound(s) for s in newest.suggestions],
            origin="inspiration",
            segment_id=newest.segment_id,
            use_case_id=newest.use_case_id,
        ),
    )
    return ts, [s.id for s in newest.suggestions]
