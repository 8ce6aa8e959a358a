"""The service client end to end against the sandbox, over real loopback HTTP.

The two were written separately from the contract; these tests are where a misreading on
either side shows.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from suggestbot.contentapi import (
    ClientCredentialsAuth,
    ContentClient,
    Forbidden,
    GenerationRun,
    ImageMode,
    ImageNotApplicable,
    RateLimited,
    RefinementRequest,
    RunStatus,
    SteeredGenerationRequest,
    ThreadNameTooLong,
    Unauthorized,
    UserTokenRejected,
    UserTokenRequired,
)
from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.faults import InjectedError, RateLimit, RunTiming


@pytest.fixture
def sandbox() -> Iterator[tuple[Sandbox, str]]:
    box = Sandbox(time_factor=0.01)
    box.faults.run_timing = RunTiming(queued_s=1.0, running_s=2.0, precompute_s=1.0)
    with box.serve() as server:
        yield box, server.url


@pytest.fixture
def machine(sandbox: tuple[Sandbox, str]) -> Iterator[ContentClient]:
    box, url = sandbox
    auth = ClientCredentialsAuth(url + "/auth/token", box.demo.client_id, box.demo.client_secret)
    with ContentClient(url, auth=auth, sleep=lambda s: None) as client:
        yield client


def _until_done(client: ContentClient, run: GenerationRun) -> GenerationRun:
    deadline = time.monotonic() + 10
    while not RunStatus(run.status).is_terminal:
        assert time.monotonic() < deadline, "run did not finish"
        time.sleep(0.02)
        run = client.get_run(run_id=run.id)
    return run


def _brief(
    box: Sandbox, text: str = "Spring launch for hikers", n: int = 3
) -> SteeredGenerationRequest:
    return SteeredGenerationRequest(
        type="steered_generation",
        segment_id=box.demo.segment_id,
        use_case_id=box.demo.use_case_id,
        steering_text=text,
        variant_count=n,
    )


def test_brief_to_set_with_sorted_variants_and_images_that_load(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    user = machine.as_user(box.demo.user_token)
    run = user.create_run(request=_brief(box))
    assert run.status == RunStatus.QUEUED and run.attempt_count == 0
    done = _until_done(machine, run)
    assert done.status == RunStatus.SUCCEEDED and done.suggestion_set_id
    found = machine.get_suggestion_set(id=done.suggestion_set_id)
    assert [s.variant_no for s in found.suggestions] == [1, 2, 3]
    refs = [str(s.asset.ref) for s in found.suggestions if s.asset]
    for suggestion in found.suggestions:
        if suggestion.asset:
            assert suggestion.asset.reveal_url() is None  # set reads never carry URLs
    if refs:
        minted = machine.mint_asset_urls(refs=refs)
        assert [m.ref for m in minted] == refs
        image = httpx.get(minted[0].reveal_url())  # unauthenticated: the URL is the credential
        assert image.status_code == 200 and image.content.startswith(b"\x89PNG")


def test_refinement_appends_a_turn_and_lineage_reads_back(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    user = machine.as_user(box.demo.user_token)
    first = _until_done(machine, user.create_run(request=_brief(box, n=1)))
    assert first.suggestion_set_id
    root = machine.get_suggestion_set(id=first.suggestion_set_id).suggestions[0]
    refine = RefinementRequest(
        type="refinement", parent_suggestion_id=root.id, instruction="make it shorter"
    )
    refined = _until_done(machine, user.create_run(request=refine))
    assert refined.status == RunStatus.SUCCEEDED and refined.suggestion_id
    child = machine.get_suggestion(id=refined.suggestion_id, lineage=True)
    assert child.parent_suggestion_id == root.id
    assert child.lineage and child.lineage[-1].id == root.id
    threads = [t for t in user.iter_threads() if t.head_suggestion_id == child.id]
    assert len(threads) == 1 and threads[0].turn_count >= 2


def test_regenerate_image_on_an_email_is_refused_with_the_field(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    user = machine.as_user(box.demo.user_token)
    done = _until_done(machine, user.create_run(request=_brief(box, n=3)))
    assert done.suggestion_set_id
    emails = [
        s for s in machine.get_suggestion_set(id=done.suggestion_set_id).suggestions if not s.asset
    ]
    if not emails:
        pytest.skip("the generator made no email for this brief")
    with pytest.raises(ImageNotApplicable) as caught:
        user.create_run(
            request=RefinementRequest(
                type="refinement",
                parent_suggestion_id=emails[0].id,
                instruction="new picture",
                image=ImageMode.REGENERATE,
            )
        )
    assert caught.value.field == "image"


def test_rename_normalises_and_refuses_nine_words(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    user = machine.as_user(box.demo.user_token)
    _until_done(machine, user.create_run(request=_brief(box, n=1)))
    thread = next(iter(user.iter_threads(created_by=box.demo.user_id)))
    renamed = user.rename_thread(thread_id=thread.id, name="  Spring   launch ")
    assert renamed.name == "Spring launch"
    with pytest.raises(ThreadNameTooLong):
        user.rename_thread(thread_id=thread.id, name="a b c d e f g h i")
    with pytest.raises(UserTokenRequired):
        machine.rename_thread(thread_id=thread.id, name="machine may not")


def test_short_pages_are_followed_to_the_end_without_repeats(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    user = machine.as_user(box.demo.user_token)
    for i in range(5):
        user.create_run(request=_brief(box, text=f"brief {i}", n=1))
    box.faults.short_pages = 1
    ids = [run.id for run in machine.iter_runs(limit=3)]
    assert len(ids) == 5 and len(set(ids)) == 5


def test_unknown_kinds_are_skipped_not_fatal(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    box.faults.unknown_kind_rate = 1.0
    box.run_precompute(box.demo.tenant_id)
    sets = machine.get_inspiration(
        segment_id=box.demo.segment_id, use_case_id=box.demo.use_case_id, locale="en"
    )
    assert sets and sets[0].skipped_count >= 1
    assert all(s.kind.value in ("email", "social_single_image") for s in sets[0].suggestions)


def test_rate_limit_gives_retry_after(sandbox: tuple[Sandbox, str], machine: ContentClient) -> None:
    box, _ = sandbox
    box.faults.run_create_rate_limit = RateLimit(max_runs=1, window_s=30)
    user = machine.as_user(box.demo.user_token)
    user.create_run(request=_brief(box, n=1))
    with pytest.raises(RateLimited) as caught:
        user.create_run(request=_brief(box, n=1))
    assert 0 < caught.value.retry_after <= 30


def test_revoked_tokens_and_credentials(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    _, token = box.create_user_token(box.demo.tenant_id)
    user = machine.as_user(token)
    assert user.list_use_cases()
    box.revoke_user_token(token)
    with pytest.raises(UserTokenRejected):
        user.list_use_cases()
    assert machine.list_segments()
    box.revoke_credential(box.demo.client_id)
    with pytest.raises(Unauthorized):
        machine.list_segments()


def test_unknown_error_code_becomes_the_generic_class_of_its_status(
    sandbox: tuple[Sandbox, str], machine: ContentClient
) -> None:
    box, _ = sandbox
    box.faults.unknown_error_codes = [InjectedError(status=403, code="quota_exceeded")]
    with pytest.raises(Forbidden) as caught:
        machine.list_use_cases()
    assert type(caught.value) is Forbidden and caught.value.code == "quota_exceeded"


def test_reads_ride_out_injected_5xx(sandbox: tuple[Sandbox, str], machine: ContentClient) -> None:
    box, _ = sandbox
    box.faults.next_5xx = 2
    assert machine.list_segments()
