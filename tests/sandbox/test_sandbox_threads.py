"""Threads, turns, refinements, lineage, drafts and renames (sections 2, 3, 4 and design §4)."""

from __future__ import annotations

from typing import Any

from sandbox_helpers import Api, codes

from suggestbot.sandbox import Sandbox


def _refine(api: Api, parent_id: str, instruction: str, **fields: Any) -> dict[str, Any]:
    run = api.finished(api.refinement(parent_id, instruction, **fields))
    assert run["status"] == "succeeded", run
    return run


def test_each_root_suggestion_is_turn_1_of_its_own_thread(api: Api) -> None:
    found = api.steered_set(variant_count=2)
    threads = [api.thread_of(s["id"]) for s in found["suggestions"]]
    assert all(threads)
    assert len({t["id"] for t in threads if t}) == 2
    for suggestion, thread in zip(found["suggestions"], threads, strict=True):
        assert thread is not None
        assert thread["turn_count"] == 1
        assert thread["head_suggestion_id"] == suggestion["id"]
        assert thread["root_origin"] == "steered"
        assert thread["created_by"] == api.demo.user_id
        assert thread["name"] is None
        assert thread["turns"][0]["version"] == 1
        assert thread["turns"][0]["instruction"] is None
        assert thread["segment_id"] == api.demo.segment_id
        assert thread["locale"] == "en"


def test_ready_made_roots_have_threads_without_creator_visible_to_every_user(api: Api) -> None:
    ready = [t for t in api.threads() if t["root_origin"] == "precompute"]
    assert ready
    assert all(t["created_by"] is None for t in ready)
    _, someone = api.new_user()
    visible = {t["id"] for t in api.threads(headers=someone)}
    assert {t["id"] for t in ready} <= visible


def test_refinement_appends_a_turn_to_the_parents_thread(api: Api) -> None:
    root = api.steered_set()["suggestions"][0]
    before = api.thread_of(root["id"])
    assert before is not None
    api.clock.advance(5)
    run = _refine(api, root["id"], "Make it shorter")
    assert run["suggestion_set_id"] is None
    after = api.http.get(f"/v1/threads/{before['id']}", headers=api.user).json()
    assert after["turn_count"] == 2
    assert after["head_suggestion_id"] == run["suggestion_id"]
    assert after["updated_at"] > before["updated_at"]
    assert after["created_at"] == before["created_at"]
    assert after["name"]
    assert [t["version"] for t in after["turns"]] == [1, 2]
    assert after["turns"][1] == {
        "version": 2,
        "suggestion_id": run["suggestion_id"],
        "generated_at": after["turns"][1]["generated_at"],
        "instruction": "Make it shorter",
    }
    refined = api.suggestion(run["suggestion_id"])
    assert refined["suggestion_set_id"] is None
    assert refined["parent_suggestion_id"] == root["id"]
    assert refined["kind"] == root["kind"]


def test_refining_with_an_instruction_empty_once_trimmed_is_a_validation_error(api: Api) -> None:
    # input_rejected belongs to steering_text only (contract §7); an empty instruction is a
    # schema failure, with the field named in details.validation.
    root = api.steered_set()["suggestions"][0]
    assert api.refinement(root["id"], "x").status_code == 202
    for empty in ("", "   ", "\n\t "):
        response = api.refinement(root["id"], empty)
        assert response.status_code == 422, empty
        assert codes(response) == ["validation_error"]
        (failure,) = response.json()["errors"][0]["details"]["validation"]
        assert failure["loc"][-1] == "instruction"


def test_refining_a_suggestion_that_is_not_the_head_fails_with_invalid_parent(api: Api) -> None:
    root = api.steered_set()["suggestions"][0]
    _refine(api, root["id"], "Shorter")
    stale = api.finished(api.refinement(root["id"], "Add a call to action"))
    assert stale["status"] == "failed"
    assert stale["error"]["code"] == "invalid_parent"
    thread = api.thread_of(root["id"])
    assert thread is not None and thread["turn_count"] == 2


def test_concurrent_refinements_of_one_head_do_not_branch_the_thread(api: Api) -> None:
    root = api.steered_set()["suggestions"][0]
    first = api.refinement(root["id"], "Shorter").json()["id"]
    second = api.refinement(root["id"], "More formal").json()["id"]
    api.settle()
    outcomes = sorted([api.run(first)["status"], api.run(second)["status"]])
    assert outcomes == ["failed", "succeeded"]
    thread = api.thread_of(root["id"])
    assert thread is not None and thread["turn_count"] == 2


def test_thread_on_first_refinement_knob_creates_the_thread_at_the_first_refinement(
    api: Api, sandbox: Sandbox
) -> None:
    sandbox.faults.thread_on_first_refinement = True
    root = api.steered_set()["suggestions"][0]
    assert api.thread_of(root["id"]) is None
    run = _refine(api, root["id"], "Shorter")
    thread = api.thread_of(root["id"])
    assert thread is not None
    assert thread["turn_count"] == 2
    assert [t["suggestion_id"] for t in thread["turns"]] == [root["id"], run["suggestion_id"]]
    assert thread["root_origin"] == "steered"
    assert thread["created_by"] == api.demo.user_id
    stale = api.finished(api.refinement(root["id"], "Longer"))
    assert stale["error"]["code"] == "invalid_parent"
    _refine(api, run["suggestion_id"], "Mention 'waterproof'")
    again = api.http.get(f"/v1/threads/{thread['id']}", headers=api.user).json()
    assert again["turn_count"] == 3


def test_lineage_lists_earlier_suggestions_closest_first_original_last(api: Api) -> None:
    root = api.steered_set()["suggestions"][0]
    one = _refine(api, root["id"], "Shorter")["suggestion_id"]
    two = _refine(api, one, "Add a call to action")["suggestion_id"]
    lineage = api.suggestion(two, expand="lineage")["lineage"]
    assert [item["id"] for item in lineage] == [one, root["id"]]
    assert lineage[0]["instruction"] == "Shorter"
    assert lineage[1]["instruction"] is None
    assert lineage[1]["suggestion_set_id"] == root["suggestion_set_id"]
    assert lineage[0]["suggestion_set_id"] is None
    assert all(item["created_at"].endswith("Z") for item in lineage)


def test_refinements_visibly_follow_their_instruction(api: Api) -> None:
    root = api.steered_set()["suggestions"][0]
    body = root["payload"]["body"]
    shorter = api.suggestion(_refine(api, root["id"], "Make it shorter")["suggestion_id"])
    assert len(shorter["payload"]["body"]) < len(body)
    mention = api.suggestion(
        _refine(api, shorter["id"], 'Mention "Gore-Tex" please')["suggestion_id"]
    )
    assert "Gore-Tex" in mention["payload"]["body"]
    formal = api.suggestion(_refine(api, mention["id"], "More formal")["suggestion_id"])
    assert formal["payload"]["body"].startswith("Dear ")
    cta = api.suggestion(_refine(api, formal["id"], "Add a call to action")["suggestion_id"])
    assert "Shop now" in cta["payload"]["body"]


def test_refinement_regenerate_makes_a_new_image_and_reuse_keeps_it(api: Api) -> None:
    social = api.steered_set(steering_text="Instagram post for the jacket")["suggestions"][0]
    assert social["kind"] == "social_single_image"
    ref = social["payload"]["asset"]["ref"]
    kept = _refine(api, social["id"], "Shorter", image="reuse")
    assert kept["request"]["image"] == "reuse"
    kept_ref = api.suggestion(kept["suggestion_id"])["payload"]["asset"]["ref"]
    assert kept_ref == ref
    new = _refine(api, kept["suggestion_id"], "Brighter", image="regenerate")
    new_asset = api.suggestion(new["suggestion_id"])["payload"]["asset"]
    assert new_asset["ref"] != ref
    assert new_asset["alt_text"]


def test_saved_draft_is_201_suggestion_and_root_of_a_user_draft_thread(api: Api) -> None:
    response = api.http.post(
        "/v1/suggestions",
        json={
            "kind": "email",
            "segment_id": api.demo.segment_id,
            "use_case_id": api.demo.use_case_id,
            "payload": {"subject": "Our spring sale", "body": "Hello!\nEverything 20% off."},
        },
        headers=api.user,
    )
    assert response.status_code == 201
    draft = response.json()
    assert draft["kind"] == "email"
    assert draft["suggestion_set_id"] is None
    assert draft["parent_suggestion_id"] is None
    assert draft["payload"] == {"subject": "Our spring sale", "body": "Hello!\nEverything 20% off."}
    found = [
        t
        for t in api.threads(headers=api.user, created_by=api.demo.user_id)
        if t["head_suggestion_id"] == draft["id"]
    ]
    assert len(found) == 1
    assert found[0]["root_origin"] == "user_draft"
    assert found[0]["turn_count"] == 1
    refined = _refine(api, draft["id"], "Shorter")
    assert api.suggestion(refined["suggestion_id"])["parent_suggestion_id"] == draft["id"]


def test_draft_validation_and_machine_tokens(api: Api) -> None:
    good = {
        "kind": "email",
        "segment_id": api.demo.segment_id,
        "use_case_id": api.demo.use_case_id,
        "payload": {"subject": "S", "body": "B"},
    }
    as_machine = api.http.post("/v1/suggestions", json=good, headers=api.machine)
    assert as_machine.status_code == 403
    assert codes(as_machine) == ["user_token_required"]
    for bad in (
        {**good, "kind": "social_single_image"},
        {**good, "payload": {"subject": "S"}},
        {k: v for k, v in good.items() if k != "payload"},
    ):
        response = api.http.post("/v1/suggestions", json=bad, headers=api.user)
        assert response.status_code == 422
        assert codes(response) == ["validation_error"]


def test_user_sees_own_threads_and_creatorless_ones_machine_sees_all(api: Api) -> None:
    other_id, other = api.new_user()
    theirs = api.finished(api.steered(headers=other))
    their_set = api.http.get(
        f"/v1/suggestion-sets/{theirs['suggestion_set_id']}", headers=api.machine
    ).json()
    their_thread = api.thread_of(their_set["suggestions"][0]["id"])
    assert their_thread is not None
    mine = {t["id"] for t in api.threads(headers=api.user)}
    assert their_thread["id"] not in mine
    hidden = api.http.get(f"/v1/threads/{their_thread['id']}", headers=api.user)
    assert hidden.status_code == 404
    assert (
        api.http.get(f"/v1/suggestion-sets/{their_set['id']}", headers=api.user).status_code == 404
    )
    hidden_suggestion = api.http.get(
        f"/v1/suggestions/{their_set['suggestions'][0]['id']}", headers=api.user
    )
    assert hidden_suggestion.status_code == 404
    assert their_thread["created_by"] == other_id
    assert their_thread["id"] in {t["id"] for t in api.threads(headers=other)}


def test_thread_listing_filters_combine_with_and(api: Api) -> None:
    other_use_case = api.demo.use_case_ids[1]
    api.steered_set()
    api.steered_set(use_case_id=other_use_case)
    both = api.threads(
        segment_id=api.demo.segment_id, use_case_id=other_use_case, created_by=api.demo.user_id
    )
    assert len(both) == 1
    assert both[0]["use_case_id"] == other_use_case
    assert "turns" not in both[0]
    segment_only = api.threads(segment_id=api.demo.segment_id)
    assert len(segment_only) > len(both)


def test_rename_trims_collapses_whitespace_and_returns_the_stored_name(api: Api) -> None:
    root = api.steered_set()["suggestions"][0]
    thread = api.thread_of(root["id"])
    assert thread is not None
    api.clock.advance(3)
    response = api.http.patch(
        f"/v1/threads/{thread['id']}", json={"name": "   Spring   jacket  ideas "}, headers=api.user
    )
    assert response.status_code == 200
    renamed = response.json()
    assert renamed["name"] == "Spring jacket ideas"
    assert renamed["updated_at"] > thread["updated_at"]
    assert renamed["turns"] == thread["turns"]
    assert renamed["turn_count"] == 1
    again = api.http.get(f"/v1/threads/{thread['id']}", headers=api.machine).json()
    assert again["name"] == "Spring jacket ideas"


def test_rename_rejects_empty_too_long_and_non_plain_text_names(api: Api) -> None:
    thread = api.threads(headers=api.user)[0]
    cases = {
        "   ": "thread_name_empty",
        "x" * 61: "thread_name_too_long",
        "one two three four five six seven eight nine": "thread_name_too_long",
        "two\nlines": "thread_name_not_plain_text",
        "tab\there": "thread_name_not_plain_text",
        "bell\u0007": "thread_name_not_plain_text",
    }
    for name, code in cases.items():
        response = api.http.patch(
            f"/v1/threads/{thread['id']}", json={"name": name}, headers=api.user
        )
        assert response.status_code == 422, name
        assert codes(response) == [code], name
    ok = api.http.patch(
        f"/v1/threads/{thread['id']}",
        json={"name": "one two three four five six seven " + "e" * 20},
        headers=api.user,
    )
    assert ok.status_code == 200
    missing = api.http.patch(f"/v1/threads/{thread['id']}", json={}, headers=api.user)
    assert codes(missing) == ["validation_error"]


def test_rename_of_a_thread_the_user_cannot_see_is_404(api: Api) -> None:
    _, other = api.new_user()
    mine = api.steered_set()["suggestions"][0]
    thread = api.thread_of(mine["id"])
    assert thread is not None
    response = api.http.patch(f"/v1/threads/{thread['id']}", json={"name": "Stolen"}, headers=other)
    assert response.status_code == 404
    assert codes(response) == ["not_found"]
