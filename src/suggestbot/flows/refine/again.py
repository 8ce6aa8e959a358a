"""A failed refinement sent again, changed as its failure asks (contract §7).

``invalid_parent``: the thread moved on, so the same instruction refines its current head;
``image_not_applicable``: the same refinement without the ``image`` field. The author's own
refinement is sent again in place; anyone else's press starts their own refinement, since
runs are created with the acting user's token.
"""

from __future__ import annotations

from suggestbot.contentapi import ImageMode, RefinementRequest
from suggestbot.flows.common import requests, threads
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.threads import ThreadBinding
from suggestbot.flows.refine import replies as refine
from suggestbot.store.records import Request


def _refinement_of(req: Request) -> RefinementRequest:
    """The run request a recorded refinement sends."""
    run_request = requests.run_request_of(req)
    if not isinstance(run_request, RefinementRequest):
        raise ValueError(f"request {req.id} is not a refinement")
    return run_request


def _again(
    deps: Deps,
    req: Request,
    binding: ThreadBinding,
    *,
    team_id: str,
    acting_user: str,
    run_request: RefinementRequest,
    parent_has_image: bool,
) -> None:
    """Send ``run_request`` again: in place for the author, as a new refinement for anyone
    else (runs are created with the acting user's own token)."""
    if acting_user == req.user_id:
        requests.resend_edited(deps, req.id, acting_user=acting_user, run_request=run_request)
        return
    refine.start(
        deps,
        binding,
        team_id=team_id,
        user_id=acting_user,
        instruction=run_request.instruction,
        regenerate_image=run_request.image is ImageMode.REGENERATE,
        parent_id=run_request.parent_suggestion_id,
        parent_has_image=parent_has_image,
    )


def _refinement_and_binding(deps: Deps, request_id: str) -> tuple[Request, ThreadBinding] | None:
    req = deps.records.requests.get(request_id)
    if req is None or req.kind != "refinement" or not req.thread_ts:
        return None
    binding = threads.get(deps, channel=req.channel_id, thread_ts=req.thread_ts)
    return (req, binding) if binding is not None else None


def refine_head(deps: Deps, *, request_id: str, team_id: str, acting_user: str) -> None:
    """After ``invalid_parent``: read the service thread again and refine its current head with
    the same instruction (contract §7: threads do not branch)."""
    found = _refinement_and_binding(deps, request_id)
    if found is None:
        return
    req, binding = found
    sent = _refinement_of(req)
    parent = sent.parent_suggestion_id
    thread = threads.find_service_thread(deps, binding, containing=parent)
    if thread is not None:
        head = deps.content.get_suggestion(id=thread.head_suggestion_id)
        binding = threads.set_head(deps, binding, thread=thread, head=head)
        threads.refresh_root(deps, binding)
    head_id = binding.head_suggestion_id or parent
    again = refine.refinement_request(
        parent_id=head_id,
        instruction=sent.instruction,
        regenerate_image=sent.image is ImageMode.REGENERATE and binding.head_has_image,
    )
    _again(
        deps,
        req,
        binding,
        team_id=team_id,
        acting_user=acting_user,
        run_request=again,
        parent_has_image=binding.head_has_image,
    )


def resend_without_image(deps: Deps, *, request_id: str, team_id: str, acting_user: str) -> None:
    """After ``image_not_applicable``: the same refinement without the ``image`` field."""
    found = _refinement_and_binding(deps, request_id)
    if found is None:
        return
    req, binding = found
    _again(
        deps,
        req,
        binding,
        team_id=team_id,
        acting_user=acting_user,
        run_request=_refinement_of(req).model_copy(update={"image": None}),
        parent_has_image=False,
    )
