"""Bruno's records of every kind, in his private channel and in another workspace, for the
tests that name them as someone else (``test_records_by_id``, ``test_hostile_deliveries``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for
from suggestbot.flows.common import threads
from suggestbot.store.conversation import ListState, PendingInstruction
from suggestbot.store.offers import Offer, OfferedVariant
from suggestbot.store.records import Digest, HeldInput

OTHER_TEAM = "T0ELSEWHERE"
SECRET = "Zephyr-7 private launch"  # in Bruno's brief: must never reach Alice


class World:
    """Bruno's records (``own``) and another workspace's (``elsewhere``), by kind."""

    def __init__(self, stage: Stage, private: str) -> None:
        self.stage, self.private = stage, private
        self.own: dict[str, str] = {}
        self.elsewhere: dict[str, str] = {}
        self.originals: list[tuple[Any, str, Any]] = []  # (table, key, record)

    def restore(self) -> None:
        """Every record as first made (so no case depends on what an earlier one did)."""
        for table, key, record in self.originals:
            table.put(key, record)

    @property
    def records(self) -> Any:
        assert self.stage.runtime is not None
        return self.stage.runtime.deps.records


def running_world(data_dir: Path) -> Iterator[World]:
    """A stage where Alice and Bruno are linked and Bruno's records exist (see the module)."""
    with Stage(data_dir=data_dir) as stage:
        # Alice is the stranger here: no admin (the stage makes her one, for the language).
        stage.emu.ws.users[ALICE].is_admin = False
        private = stage.emu.add_channel("bruno-only", members=[BRUNO], is_private=True)
        stage.emu.invite_bot(private)
        stage.connect(ALICE)
        stage.connect(BRUNO)
        stage.brief(BRUNO, SECRET, channel=private)
        wait_for(lambda: done(stage, BRUNO), what="Bruno's brief", timeout=60)
        w = World(stage, private)
        make_records(w)
        yield w


def done(stage: Stage, user_id: str) -> Any:
    records = stage.runtime.deps.records if stage.runtime else None
    found = [r for r in records.requests.values() if r.user_id == user_id] if records else []
    return found[0] if found and found[0].state == "done" and found[0].variants else None


def make_records(w: World) -> None:
    """Bruno's records of every kind, and the same in another workspace under Alice's id."""
    deps = w.stage.runtime.deps  # type: ignore[union-attr]
    records = w.records
    brief = done(w.stage, BRUNO)
    binding = threads.binding_of(deps, channel=brief.post_channel_id, thread_ts=brief.root_ts)
    assert binding is not None
    refinement = brief.model_copy(
        update={
            "id": "refinementofbruno",
            "kind": "refinement",
            "thread_ts": brief.root_ts,
            "state": "failed",
            "body": {"parent_suggestion_id": "s0", "instruction": SECRET},
        }
    )
    primary = w.stage.demo.primary
    digest = Digest(
        team_id=brief.team_id,
        channel_id=w.private,
        created_by=BRUNO,
        segment_id=next(iter(primary.segments.values())),
        use_case_id=next(iter(primary.use_cases.values())),
        segment_name="Secret segment",
        use_case_name="Secret use case",
        time="09:00",
        tz="UTC",
        weekdays=[0, 1, 2, 3, 4],
    )
    held = HeldInput(team_id=brief.team_id, user_id=BRUNO, channel_id=w.private, text=SECRET)
    pending = PendingInstruction(
        team_id=brief.team_id,
        user_id=BRUNO,
        channel=w.private,
        thread_ts=brief.root_ts,
        text=SECRET,
    )
    offer = Offer(
        team_id=brief.team_id,
        user_id=BRUNO,
        channel_id=w.private,
        segment_id="seg",
        use_case_id="uc",
        segment_name="Secret segment",
        use_case_name="Secret use case",
        locale="en-US",
        suggestion_set_id="set-1",
        variants=[OfferedVariant(suggestion_id="s1", variant_no=1, kind="email")],
    )
    listing = ListState(kind="threads", team_id=brief.team_id, user_id=BRUNO, page=1)
    own = {
        "request": brief,
        "refinement": refinement,
        "digest": digest,
        "held": held,
        "pending": pending,
        "offer": offer,
    }
    for kind, record in own.items():
        table = tables_by_kind(records)[kind]
        table.put(record.id, record)
        w.originals.append((table, record.id, record))
        w.own[kind] = record.id
        copy = record.model_copy(
            update={"id": f"x{record.id}"[: len(record.id)], "team_id": OTHER_TEAM}
        )
        for field in ("user_id", "created_by"):
            if hasattr(copy, field):
                copy = copy.model_copy(update={field: ALICE})  # Alice's id, another workspace
        table.put(copy.id, copy)
        w.originals.append((table, copy.id, copy))
        w.elsewhere[kind] = copy.id
    w.originals += [
        (records.lists, "listofbruno", listing),
        (
            records.lists,
            "listelsewhere",
            listing.model_copy(update={"team_id": OTHER_TEAM, "user_id": ALICE}),
        ),
        (records.thread_bindings, binding.key, binding),
    ]
    records.lists.put("listofbruno", listing)
    records.lists.put(
        "listelsewhere", listing.model_copy(update={"team_id": OTHER_TEAM, "user_id": ALICE})
    )
    w.own["list"], w.elsewhere["list"] = "listofbruno", "listelsewhere"
    w.own["thread"] = binding.key
    # A channel a modal's submission would post to (its metadata names it).
    w.own["channel"], w.elsewhere["channel"] = w.private, "C0ELSEWHERE"
    # A run is the service's: read with the person's own token, never from the store.
    w.own["run"], w.elsewhere["run"] = str(brief.run_id), "0f0e0d0c-0b0a-4000-8000-000000000001"
    elsewhere = binding.model_copy(update={"team_id": OTHER_TEAM, "channel": "C0ELSEWHERE"})
    records.thread_bindings.put(elsewhere.key, elsewhere)
    w.originals.append((records.thread_bindings, elsewhere.key, elsewhere))
    w.elsewhere["thread"] = elsewhere.key


def tables_by_kind(records: Any) -> dict[str, Any]:
    """The table each kind of record of Bruno's is kept in (runs and channels are not)."""
    return {
        "request": records.requests,
        "refinement": records.requests,
        "digest": records.digests,
        "held": records.held,
        "pending": records.pending,
        "offer": records.offers,
        "list": records.lists,
        "thread": records.thread_bindings,
    }


def snapshot(w: World) -> dict[str, Any]:
    """Every record of Bruno's and of the other workspace, as stored."""
    tables = tables_by_kind(w.records)
    shot = {}
    for ids_ in (w.own, w.elsewhere):
        for kind, key in ids_.items():
            if kind not in tables:
                continue
            found = tables[kind].get(key)
            shot[f"{kind}:{key}"] = found.model_dump() if found is not None else None
    return shot


def alice_saw(stage: Stage) -> str:
    views = " ".join(str(v) for v in stage.emu.modal_stack(ALICE))
    return stage.emu.ephemeral_transcript(ALICE) + views


def touched_private(stage: Stage, mark: int, private: str) -> list[str]:
    return [
        c.method
        for c in stage.emu.calls()[mark:]
        if c.args.get("channel") == private
        and c.method in ("chat.postMessage", "chat.update", "chat.delete", "chat.postEphemeral")
    ]
