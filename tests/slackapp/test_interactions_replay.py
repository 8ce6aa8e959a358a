"""Recorded interactions: kept sealed with their delivery's claim, carried out at the next start
exactly as the listener would have, given up after repeated crashes, dropped when unreadable."""

from __future__ import annotations

import json
from typing import Any

import pytest

from suggestbot.flows import digests
from suggestbot.flows.common import interactions as current
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration.showing import Pair
from suggestbot.slackapp.edge import record as interactions
from suggestbot.slackapp.edge.declaration import Event, Happening, Input, Submission, View
from suggestbot.slackapp.edge.inputs import Inputs
from suggestbot.store import DeliveryLog, MemoryStore, TokenVault, generate_key
from suggestbot.store.records import Records

VIEW = "test_replay_view"


class Killed(BaseException):
    """The process dying in the middle of the work."""


def deps_with(vault: TokenVault) -> Deps:
    store = MemoryStore()
    parts: dict[str, Any] = {"content": None, "slack": None, "timers": None}
    return Deps(records=Records(store), vault=vault, deliveries=DeliveryLog(store), **parts)


def submission(token: str) -> dict[str, Any]:
    return {
        "type": "view_submission",
        "trigger_id": "1234.5678.abcdef",
        "user": {"id": "U0ALICE", "team_id": "T1"},
        "view": {"callback_id": VIEW, "state": {"values": {"t": {"t": {"value": token}}}}},
    }


def view_input(run: Any) -> Inputs:
    return Inputs([Input("test_view", View(VIEW), run=run)])


def record(deps: Deps, body: dict[str, Any], inputs: Inputs) -> str:
    declared = inputs.find(body, bot_user_id="UBOT")
    assert declared is not None
    given = declared.parse(body, "UBOT")
    assert isinstance(given, Submission | Happening)
    sealed = interactions.seal(deps, declared, given)
    assert deps.deliveries is not None
    key = f"view_submission:{body['trigger_id']}"
    assert deps.deliveries.first_time(key, pending=sealed)
    return key


def test_kept_sealed_and_carried_out_once_without_its_trigger() -> None:
    seen: list[tuple[Submission, str | None]] = []
    inputs = view_input(lambda deps, given: seen.append((given, current.current())))
    deps = deps_with(TokenVault([generate_key()]))
    body = submission("sbx_ut_secret-token-123")
    key = record(deps, body, inputs)
    assert deps.deliveries is not None
    [(_, sealed)] = deps.deliveries.unfinished()
    assert "sbx_ut_secret" not in sealed and "U0ALICE" not in sealed

    assert interactions.replay_unfinished(deps, inputs) == 1
    [(replayed, serving)] = seen
    assert replayed.body == {k: v for k, v in body.items() if k != "trigger_id"}
    assert replayed.trigger_id is None and replayed.user_id == "U0ALICE"
    assert replayed.values == {"t": "sbx_ut_secret-token-123"}
    assert serving == key  # records it creates take their ids from it
    assert deps.deliveries.unfinished() == []
    assert interactions.replay_unfinished(deps, inputs) == 0 and len(seen) == 1


def test_ids_derived_in_one_interaction_are_stable_and_differ_between_them() -> None:
    current.enter("event:Ev1")
    first = current.derived_id("refinement")
    assert current.derived_id("refinement") == first
    assert current.derived_id("digest") != first
    current.enter("event:Ev2")
    assert current.derived_id("refinement") != first
    current.enter(None)
    assert current.derived_id("refinement") != current.derived_id("refinement")


def test_work_that_kills_the_process_every_time_is_given_up() -> None:
    tries: list[int] = []

    def dies(deps: Deps, given: Submission) -> None:
        tries.append(1)
        raise Killed

    inputs = view_input(dies)
    deps = deps_with(TokenVault([generate_key()]))
    record(deps, submission("x"), inputs)
    for _ in range(interactions.MAX_ATTEMPTS):
        with pytest.raises(Killed):
            interactions.replay_unfinished(deps, inputs)
    assert interactions.replay_unfinished(deps, inputs) == 0
    assert len(tries) == interactions.MAX_ATTEMPTS
    assert deps.deliveries is not None and deps.deliveries.unfinished() == []


def test_a_record_no_key_can_open_is_dropped_and_named_without_its_trigger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inputs = view_input(lambda deps, given: pytest.fail("must not run"))
    deps = deps_with(TokenVault([generate_key()]))
    record(deps, submission("x"), inputs)
    deps.vault = TokenVault([generate_key()])  # the old key is gone
    assert interactions.replay_unfinished(deps, inputs) == 0
    assert deps.deliveries is not None and deps.deliveries.unfinished() == []
    assert "view_submission" in caplog.text and "1234.5678" not in caplog.text


def test_a_recorded_input_is_its_typed_value_by_name() -> None:
    inputs = view_input(lambda deps, given: None)
    deps = deps_with(TokenVault([generate_key()]))
    declared = inputs.find(submission("x"), bot_user_id="UBOT")
    assert declared is not None
    given = declared.parse(submission("x"), "UBOT")
    assert isinstance(given, Submission)
    kept = json.loads(deps.vault.unseal(interactions.seal(deps, declared, given)))
    assert kept["input"] == "test_view" and kept["given"]["values"] == {"t": "x"}
    assert "trigger_id" not in kept["given"] and "trigger_id" not in kept["given"]["body"]
    other_view = {"type": "view_submission", "view": {"callback_id": "nobody_listens"}}
    assert inputs.find(other_view, bot_user_id="UBOT") is None


def test_a_delivery_recorded_whole_by_an_earlier_release_is_carried_out() -> None:
    """Releases before declared inputs kept the whole delivery: after an upgrade, what one
    left unfinished is found in the table and carried out all the same."""
    seen: list[Submission] = []
    inputs = view_input(lambda deps, given: seen.append(given))
    deps = deps_with(TokenVault([generate_key()]))
    body = submission("x")
    old = {"kind": f"view:{VIEW}", "body": body, "team": "T1", "bot": "UBOT"}
    assert deps.deliveries is not None
    assert deps.deliveries.first_time("view_submission:1", pending=deps.vault.seal(json.dumps(old)))
    assert interactions.replay_unfinished(deps, inputs) == 1
    [given] = seen
    assert given.values == {"t": "x"} and given.trigger_id is None


def test_a_digest_added_again_by_the_same_submission_is_the_same_digest() -> None:
    deps = deps_with(TokenVault([generate_key()]))
    pair = Pair("s1", "Hikers", "uc1", "Newsletter")

    def add() -> str:
        return digests.create(
            deps,
            team_id="T1",
            channel_id="C1",
            user_id="U0ALICE",
            pair=pair,
            time="09:00",
            tz="Europe/Berlin",
            weekdays=[0, 2],
            quiet_when_unchanged=False,
            lang="en",
        ).id

    current.enter("view_submission:1.2.3")
    first, again = add(), add()  # the replay after a crash between create and done
    current.enter("view_submission:4.5.6")
    other = add()
    current.enter(None)
    assert again == first != other
    assert sorted(d.id for d in deps.records.digests.values()) == sorted({first, other})


def test_a_workflow_step_event_is_kept_sealed_and_carried_out_after_a_crash() -> None:
    seen: list[Happening] = []
    inputs = Inputs([Input("step", Event("test_step_executed"), run=lambda d, g: seen.append(g))])
    deps = deps_with(TokenVault([generate_key()]))
    body = {
        "type": "event_callback",
        "team_id": "T1",
        "event_id": "Ev1",
        "event": {
            "type": "test_step_executed",
            "function_execution_id": "Fx1",
            "bot_access_token": "xwfp-step-token-secret",
            "inputs": {"brief": "Spring"},
        },
    }
    declared = inputs.find(body, bot_user_id="UBOT")
    assert declared is not None and declared.name == "step"
    other = {**body, "event": {"type": "reaction_added"}}
    assert inputs.find(other, bot_user_id="UBOT") is None
    given = declared.parse(body, "UBOT")
    assert isinstance(given, Happening)
    sealed = interactions.seal(deps, declared, given)
    assert "xwfp-step-token-secret" not in sealed
    assert deps.deliveries is not None and deps.deliveries.first_time("event:Ev1", pending=sealed)
    assert interactions.replay_unfinished(deps, inputs) == 1
    [replayed] = seen
    assert replayed.event == body["event"] and replayed.team_id == "T1"


def test_the_service_credentials_submission_is_kept_before_its_ack_and_saved_after_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from suggestbot.flows.workspace import admin as workspace_admin
    from suggestbot.slackapp.inputs.workspace import for_many_workspaces
    from suggestbot.ui.blocks import ids

    saved: list[dict[str, Any]] = []
    monkeypatch.setattr(workspace_admin, "save", lambda deps, contents, **kw: saved.append(kw))
    deps = deps_with(TokenVault([generate_key()]))
    inputs = Inputs(for_many_workspaces(installations=object(), contents=object()))  # type: ignore[arg-type]

    def text(value: str) -> dict[str, Any]:
        return {"v": {"type": "plain_text_input", "value": value}}

    body = {
        "type": "view_submission",
        "trigger_id": "4321.8765.fedcba",
        "user": {"id": "U0ADMIN", "team_id": "T1"},
        "team": {"id": "T1"},
        "view": {
            "callback_id": ids.VIEW_SERVICE_CREDENTIALS,
            "state": {
                "values": {
                    ids.INPUT_SERVICE_URL: text("https://content.example.com"),
                    ids.INPUT_SERVICE_CLIENT_ID: text("client-1"),
                    ids.INPUT_SERVICE_CLIENT_SECRET: text("s3cret-client-secret"),
                }
            },
        },
    }
    key = record(deps, body, inputs)  # kept with the delivery's claim, before the ack
    assert deps.deliveries is not None
    [(_, sealed)] = deps.deliveries.unfinished()
    assert "s3cret-client-secret" not in sealed

    assert interactions.replay_unfinished(deps, inputs) == 1
    assert [
        (s["team_id"], s["user_id"], s["values"][ids.INPUT_SERVICE_CLIENT_ID]) for s in saved
    ] == [("T1", "U0ADMIN", "client-1")]
    assert deps.deliveries.unfinished() == [] and key not in deps.deliveries.held()


class _Ephemerals:
    """A Slack client that keeps each ephemeral it is asked to post."""

    def __init__(self) -> None:
        self.posted: list[tuple[str, str]] = []

    def chat_postEphemeral(self, *, channel: str, user: str, text: str, **_: Any) -> dict[str, Any]:
        self.posted.append((user, text))
        return {"ok": True}


def test_a_note_told_before_a_crash_is_not_told_again_by_the_replay() -> None:
    from suggestbot.flows.common import telling
    from suggestbot.ui.blocks.results import Message

    slack = _Ephemerals()
    deps = deps_with(TokenVault([generate_key()]))
    deps.slack = slack  # type: ignore[assignment]
    attempts: list[int] = []

    def work(deps: Deps, given: Submission) -> None:
        note = Message(text="Your list is on its way.", blocks=[])
        telling.tell(deps, user_id="U0ALICE", channel_id="C1", message=note)
        if not attempts:
            attempts.append(1)
            raise Killed("after the note, before the rest")  # the process dies here
        telling.tell(
            deps, user_id="U0ALICE", channel_id="C1", message=Message(text="Done.", blocks=[])
        )

    inputs = view_input(work)
    record(deps, submission("sbx_ut_token"), inputs)
    with pytest.raises(Killed):
        interactions.replay_unfinished(deps, inputs)  # the first attempt, cut short
    assert interactions.replay_unfinished(deps, inputs) == 1  # carried out again
    assert slack.posted == [("U0ALICE", "Your list is on its way."), ("U0ALICE", "Done.")]
