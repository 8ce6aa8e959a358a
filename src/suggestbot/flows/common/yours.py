"""What counts as a user's own: their id in the service, and which listed threads are theirs.

A signed-in user's thread listing holds the threads they created *and* every creator-less
thread of the tenant (the contract makes a refinement of ready-made content creator-less and
lists it to everyone). The contract also says the creator is null only for ready-made content,
so a listed thread whose root is a brief or a draft is the caller's own; a ready-made one is
theirs only if the app's own records show this user refining it. Other people's refinements of
ready-made content never show up as "yours".

The user's service id (for ``created_by``) is learnt when the account is linked, from the
runs the token can list (a signed-in user lists only their own), and again later while unknown.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from suggestbot.contentapi import ContentApiError, ContentClient, Thread
from suggestbot.flows.common.deps import Deps
from suggestbot.store.records import LinkedUser, user_key

log = logging.getLogger(__name__)

# Root origins whose threads always have a creator: listed to a signed-in user only if theirs.
OWNED_ORIGINS = frozenset({"steered", "user_draft"})
# Requests whose refinement reached the service (a run exists or existed).
_SENT_STATES = frozenset({"submitted", "posting", "done", "failed"})


def known_service_user(deps: Deps, *, team_id: str, user_id: str) -> str | None:
    """The user's service id as kept with their link, without asking the service."""
    user = deps.records.users.get(user_key(team_id, user_id))
    return user.service_user_id if user is not None else None


def learn_service_user(
    deps: Deps, client: ContentClient, *, team_id: str, user_id: str
) -> str | None:
    """The user's service id: kept, or read from one of their runs (None while they have none).

    Kept on the link record, and only if that link still holds the token ``client`` acts
    with, so an unlink or relink meanwhile is never given an old account's id. Best effort: a
    failed read leaves it unknown.
    """
    key = user_key(team_id, user_id)
    user = deps.records.users.get(key)
    if user is None:
        return None
    if user.service_user_id:
        return user.service_user_id
    try:
        page = client.list_runs_page(limit=1)
    except ContentApiError as exc:
        log.info("could not learn the service id of %s (%s)", user_id, type(exc).__name__)
        return None
    if not page.items:
        return None
    found = page.items[0].created_by

    def keep(current: LinkedUser) -> LinkedUser:
        if current.token_enc != user.token_enc:
            return current
        return current.model_copy(update={"service_user_id": found})

    deps.records.users.update(key, keep)
    return found


def refined_threads(deps: Deps, *, team_id: str, user_id: str) -> list[str]:
    """Service thread ids this user refined through the app, most recently refined first
    (from the app's requests and the Slack threads they were typed in)."""
    mine = deps.records.requests.matching(
        team_id=team_id,
        user_id=user_id,
        kind="refinement",
        state=_SENT_STATES,
        newest_by="created_at",
    )
    found: dict[str, None] = {}
    for req in mine:
        key = req.labels.get("thread") or f"{req.channel_id}:{req.thread_ts}"
        lineage = deps.records.thread_lineages.get(key)
        if lineage is not None and lineage.service_thread_id:
            found.setdefault(lineage.service_thread_id)
    return list(found)


def is_yours(thread: Thread, *, refined: Collection[str]) -> bool:
    """Whether a thread from the user's own listing is theirs to see as "yours"."""
    return thread.id in refined or thread.root_origin in OWNED_ORIGINS
