"""Who may act on a record named by id: one rule per kind of record, used wherever an id
arrives (a typed command, a button's value, a modal's metadata, a replay after a crash).

Ids travel through Slack and come back in deliveries, and one install serves many
workspaces, so an id alone proves nothing. Each look-up here returns the record only when the
person may act on it, and None otherwise — for a record that does not exist, one of another
workspace, and one the person may not touch alike, so that the answer ("not found") reveals
nothing of what another person has.

The rules:

- **held input** (what someone typed before linking their account): its author only;
- **pending instruction** (a thread reply waiting for "which variant?"): its author only;
- **inspiration offer** (an answer to ``/suggest inspire``): the person it was shown to;
- **request** (a brief, a refinement, a saved draft — a run): to read (preview, copy, show,
  vote, check again), its author or a member of the channel it was posted in; to change it
  (retry, edit, resend, pick other choices), its author;
- **thread** (a refining thread, by channel and root): a member of its channel;
- **digest**: to read (preview), its creator or a member of its channel; to change it (pause,
  resume, remove), its creator, or a workspace admin who is a member of its channel;
- **channel** a modal's submission posts to (a brief, a draft, a new digest): a member of it
  (a brief or draft of anyone else's choosing goes to the person's own DM instead).

Every rule starts with the workspace: a record of another workspace is never found.

"A member of the channel": the channel Slack delivered the request from counts (Slack signs
who sent it from where); any other is asked of Slack (``conversations.members``). A channel
the bot cannot see into counts as one the person is not in.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from slack_sdk.errors import SlackApiError

from suggestbot.flows.common.deps import Deps
from suggestbot.store.conversation import PendingInstruction
from suggestbot.store.offers import Offer
from suggestbot.store.records import Digest, HeldInput, Request
from suggestbot.store.thread_bindings import ThreadBinding, binding_key

log = logging.getLogger(__name__)

# conversations.members: Slack's own most per page.
MEMBERS_PAGE = 1000
# A channel bigger than this many pages is not read to the end (treated as not a member).
MEMBERS_MOST_PAGES = 20


class Person(NamedTuple):
    """Who is acting, in which workspace, and where Slack delivered their request from
    (``""`` when it came from nowhere in particular, e.g. a modal)."""

    team_id: str
    user_id: str
    channel_id: str = ""


def member_of(deps: Deps, person: Person, channel_id: str | None) -> bool:
    """Whether ``person`` is in ``channel_id`` (their own DM with the app counts)."""
    if not channel_id or not person.user_id:
        return False
    if channel_id in (person.channel_id, person.user_id):
        return True
    cursor: str | None = None
    for _ in range(MEMBERS_MOST_PAGES):
        try:
            page: Any = deps.slack.conversations_members(
                channel=channel_id, limit=MEMBERS_PAGE, cursor=cursor
            )
        except SlackApiError as exc:
            log.info("conversations.members of a channel answered %s", _error(exc))
            return False
        if person.user_id in (page.get("members") or []):
            return True
        cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
        if not cursor:
            return False
    log.warning(
        "a channel has over %d members: not read to the end",
        MEMBERS_PAGE * MEMBERS_MOST_PAGES,
    )
    return False


def where_to_post(deps: Deps, person: Person, channel_id: str | None) -> str:
    """Where a person's new brief or draft is posted: ``channel_id`` when they are in it, else
    their own DM with the app (``user_id`` stands for it)."""
    return channel_id if channel_id and member_of(deps, person, channel_id) else person.user_id


def is_admin(deps: Deps, user_id: str) -> bool:
    """Whether Slack says ``user_id`` administers (or owns) the workspace (unknown: no)."""
    try:
        info: Any = deps.slack.users_info(user=user_id)
    except Exception:
        log.warning("users.info failed for %s; treating them as no admin", user_id)
        return False
    user = info.get("user") or {}
    return bool(user.get("is_admin") or user.get("is_owner") or user.get("is_primary_owner"))


def held(deps: Deps, person: Person, held_id: str | None) -> HeldInput | None:
    """A held input, for its author only."""
    found = deps.records.held.get(held_id) if held_id else None
    return found if found is not None and _own(person, found.team_id, found.user_id) else None


def pending(deps: Deps, person: Person, pending_id: str | None) -> PendingInstruction | None:
    """A pending instruction, for its author only."""
    found = deps.records.pending.get(pending_id) if pending_id else None
    return found if found is not None and _own(person, found.team_id, found.user_id) else None


def offer(deps: Deps, person: Person, offer_id: str | None) -> Offer | None:
    """An inspiration offer, for the person it was shown to."""
    found = deps.records.offers.get(offer_id) if offer_id else None
    return found if found is not None and _own(person, found.team_id, found.user_id) else None


def request(deps: Deps, person: Person, request_id: str | None) -> Request | None:
    """A request to read: its author's, or of a channel the person is in."""
    found = deps.records.requests.get(request_id) if request_id else None
    if found is None or found.team_id != person.team_id:
        return None
    if found.user_id == person.user_id:
        return found
    where = found.post_channel_id or found.channel_id
    return found if member_of(deps, person, where) else None


def own_request(deps: Deps, person: Person, request_id: str | None) -> Request | None:
    """A request to change: its author's only."""
    found = deps.records.requests.get(request_id) if request_id else None
    return found if found is not None and _own(person, found.team_id, found.user_id) else None


def thread(deps: Deps, person: Person, *, channel: str, thread_ts: str) -> ThreadBinding | None:
    """A refining thread's binding, for a member of its channel."""
    if not (channel and thread_ts):
        return None
    found = deps.records.thread_bindings.get(binding_key(channel, thread_ts))
    if found is None or found.team_id != person.team_id:
        return None
    return found if member_of(deps, person, found.channel) else None


def may_use_thread(deps: Deps, person: Person, *, channel: str, thread_ts: str) -> bool:
    """Whether a thread not bound yet (a brief's root bound on first use) may be acted on:
    a member of its channel, and, when it is bound, of its workspace."""
    found = deps.records.thread_bindings.get(binding_key(channel, thread_ts))
    if found is not None and found.team_id != person.team_id:
        return False
    return member_of(deps, person, channel)


def digest(deps: Deps, person: Person, digest_id: str | None, *, change: bool) -> Digest | None:
    """A digest to read (``change=False``) or to change: see the module's rules."""
    found = deps.records.digests.get(digest_id) if digest_id else None
    if found is None or found.team_id != person.team_id:
        return None
    if found.created_by == person.user_id:
        return found
    if not member_of(deps, person, found.channel_id):
        return None
    if change and not is_admin(deps, person.user_id):
        return None
    return found


def _own(person: Person, team_id: str, user_id: str) -> bool:
    return bool(person.user_id) and (team_id, user_id) == (person.team_id, person.user_id)


def _error(exc: SlackApiError) -> str:
    return str(exc.response.get("error", "unknown_error"))
