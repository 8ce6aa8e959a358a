"""``/suggest threads`` and ``/suggest runs``: the user's own threads and runs, page by page.

Everything is read with the user's own token, and only what is the user's own is listed
(``flows.common.yours``). Pages follow the service's cursor. Its pages may overlap and may end with
an empty page, so each list message keeps its state in the store (cursor, ids shown, how many):
More never repeats an item, numbers go on across pages, and an empty last page ends the list
("That's all") while still showing the last items.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from suggestbot.contentapi import (
    ContentApiError,
    ContentClient,
    GenerationRun,
    NotFound,
    Thread,
    UserTokenRejected,
)
from suggestbot.flows.common import telling, yours
from suggestbot.flows.common.deps import Deps
from suggestbot.store.conversation import ListState
from suggestbot.store.records import Table, user_key
from suggestbot.ui.blocks.lists import (
    RunItem,
    ThreadItem,
    build_list_notice,
    build_run_list,
    build_thread_list,
)
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)

PAGE_SIZE = 10
# One press reads at most this many of the service's pages to fill a page of the user's own.
FETCHES_PER_PAGE = 5
# How many creator-less threads the user refined are read (newest first) for their lists.
REFINED_READ_MAX = 20
KEEP_LIST_S = 2 * 24 * 3600
THREADS, RUNS = "threads", "runs"
Item = ThreadItem | RunItem


def _lists(deps: Deps) -> Table[ListState]:
    return deps.records.lists


def user_client(deps: Deps, *, team_id: str, user_id: str) -> ContentClient | None:
    """A client acting as the linked user, or None when they are not (or no longer) linked."""
    user = deps.records.users.get(user_key(team_id, user_id))
    if user is None or user.state != "linked":
        return None
    return deps.content.as_user(deps.vault.decrypt(user.token_enc))


def thread_item(thread: Thread) -> ThreadItem:
    """A service thread as a list entry."""
    return ThreadItem(
        id=thread.id,
        name=thread.name,
        root_origin=thread.root_origin,
        turn_count=thread.turn_count,
        updated_at=int(thread.updated_at.timestamp()),
        created_at=int(thread.created_at.timestamp()),
    )


def run_text(run: GenerationRun) -> str:
    """The text a run was asked with: a brief's steering text or a refinement's instruction."""
    request: Any = run.request
    return str(getattr(request, "steering_text", None) or getattr(request, "instruction", ""))


def run_item(run: GenerationRun) -> RunItem:
    """A run as a list entry."""
    return RunItem(
        id=run.id,
        type=run.type.value,
        status=run.status.value,
        created_at=int(run.created_at.timestamp()),
        text=run_text(run),
        history=bool(run.suggestion_id or run.suggestion_set_id),
    )


@dataclass
class Cursor:
    """Where a list of the user's own goes on.

    ``service`` is the listing's cursor, ``creator`` the ``created_by`` filter the list was
    started with (kept: a cursor belongs to its filter), and ``pending`` (threads) the
    creator-less threads the user refined and the filtered listing leaves out, newest first,
    merged in by the listing's order.
    """

    service: str | None
    creator: str | None = None
    pending: list[ThreadItem] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        """Nothing more to list: the service's pages and the items held back are all shown."""
        return self.service is None and not self.pending


def refined_elsewhere(
    deps: Deps, client: ContentClient, *, team_id: str, user_id: str
) -> list[ThreadItem]:
    """The creator-less threads this user refined through the app, newest first."""
    found = []
    newest = yours.refined_threads(deps, team_id=team_id, user_id=user_id)[:REFINED_READ_MAX]
    for thread_id in newest:
        try:
            thread = client.get_thread(thread_id=thread_id)
        except NotFound:
            continue
        if thread.root_origin not in yours.OWNED_ORIGINS:
            found.append(thread_item(thread))
    return sorted(found, key=lambda item: item.created_at, reverse=True)


def start_cursor(
    deps: Deps, client: ContentClient, *, kind: str, team_id: str, user_id: str
) -> Cursor:
    """Where a new list starts: the newest items, filtered by the user's service id if known.

    Without the id (nobody can have made a run yet) the unfiltered listing is filtered here
    instead (``flows.common.yours``).
    """
    creator = yours.learn_service_user(deps, client, team_id=team_id, user_id=user_id)
    if kind == THREADS and creator:
        pending = refined_elsewhere(deps, client, team_id=team_id, user_id=user_id)
        return Cursor(None, creator, pending)
    return Cursor(None, creator)


def collect(
    deps: Deps,
    client: ContentClient,
    *,
    kind: str,
    team_id: str,
    user_id: str,
    cursor: Cursor,
    first: bool,
    seen: set[str],
    want: int = PAGE_SIZE,
) -> tuple[list[Item], Cursor]:
    """Up to ``want`` of the user's own threads or runs from ``cursor`` on (``first``: from
    the newest), none in ``seen`` (which grows); returns them and where to go on from."""
    creator = cursor.creator
    refined = frozenset(
        [] if creator else yours.refined_threads(deps, team_id=team_id, user_id=user_id)
    )
    found: list[Item] = []
    service = cursor.service
    listing_ended = not first and service is None
    fetches = 0
    while not listing_ended and len(found) < want and fetches < FETCHES_PER_PAGE:
        need = want - len(found)
        new: list[Item]
        if kind == THREADS:
            threads_page = client.list_threads_page(cursor=service, created_by=creator, limit=need)
            new = [
                thread_item(th)
                for th in threads_page.items
                if creator or yours.is_yours(th, refined=refined)
            ]
            service = threads_page.next_cursor
        else:
            runs_page = client.list_runs_page(cursor=service, created_by=creator, limit=need)
            new = [run_item(r) for r in runs_page.items]
            service = runs_page.next_cursor
        fetches += 1
        listing_ended = service is None
        for item in new:
            if item.id not in seen:
                seen.add(item.id)
                found.append(item)
    pending = [p for p in cursor.pending if p.id not in seen]
    if pending and (found or listing_ended):
        # Merge in the creator-less threads at least as new as the oldest thread listed here
        # (all that are left once the listing has ended).
        oldest = min(i.created_at for i in found if isinstance(i, ThreadItem)) if found else 0
        placed = [p for p in pending if listing_ended or p.created_at >= oldest]
        seen.update(p.id for p in placed)
        found = sorted(
            [*found, *placed],
            key=lambda i: i.created_at if isinstance(i, ThreadItem) else 0,
            reverse=True,
        )
        pending = [p for p in pending if p not in placed]
    return found, Cursor(service, creator, pending)


def _items_of(kind: str, raw: list[dict[str, Any]]) -> list[Item]:
    model = ThreadItem if kind == THREADS else RunItem
    return [model(**entry) for entry in raw]


def _render(
    lang: str, kind: str, items: list[Item], *, first: int, more_value: str | None
) -> Message:
    if kind == THREADS:
        threads = [i for i in items if isinstance(i, ThreadItem)]
        return build_thread_list(lang=lang, items=threads, more_value=more_value, first=first)
    runs = [i for i in items if isinstance(i, RunItem)]
    return build_run_list(lang=lang, items=runs, more_value=more_value, first=first)


def _more_value(kind: str, list_id: str, state: ListState) -> str | None:
    return None if state.ended else f"{kind}|list:{list_id}:{state.page}"


def _message_of(lang: str, list_id: str, state: ListState) -> Message:
    shown = _items_of(state.kind, state.last)
    return _render(
        lang,
        state.kind,
        shown,
        first=state.shown_count - len(shown) + 1,
        more_value=_more_value(state.kind, list_id, state),
    )


def _deliver(
    deps: Deps,
    *,
    user_id: str,
    channel_id: str,
    message: Message,
    response_url: str | None,
    replace: bool,
) -> None:
    if replace and telling.replace_pressed(response_url, message):
        return
    telling.tell(
        deps,
        user_id=user_id,
        channel_id=channel_id,
        message=message,
        response_url=None if replace else response_url,
    )


def _failure_notice(exc: ContentApiError, *, kind: str, user_id: str, lang: str) -> Message:
    if isinstance(exc, UserTokenRejected):
        return build_list_notice(lang=lang, notice="expired")
    log.warning("listing %s for %s failed: %s", kind, user_id, exc)
    return build_list_notice(lang=lang, notice="unavailable")


def _forget_old_lists(deps: Deps) -> None:
    cutoff = time.time() - KEEP_LIST_S
    table = _lists(deps)
    for key, _ in table.items_matching(at_most={"created_at": cutoff}):
        table.delete(key)


def _start(
    deps: Deps, *, kind: str, team_id: str, user_id: str, legacy_cursor: str | None = None
) -> Message:
    """A new list message from the newest items (or an old More button's cursor), its state
    kept for More."""
    lang = deps.lang_of(user_id)
    client = user_client(deps, team_id=team_id, user_id=user_id)
    if client is None:
        return build_list_notice(lang=lang, notice="connect")
    seen: set[str] = set()
    try:
        if legacy_cursor is None:
            cursor = start_cursor(deps, client, kind=kind, team_id=team_id, user_id=user_id)
        else:
            cursor = Cursor(legacy_cursor)  # read as it was: without a filter
        items, after = collect(
            deps,
            client,
            kind=kind,
            team_id=team_id,
            user_id=user_id,
            cursor=cursor,
            first=True,
            seen=seen,
        )
    except ContentApiError as exc:
        return _failure_notice(exc, kind=kind, user_id=user_id, lang=lang)
    state = ListState(
        kind=kind,
        team_id=team_id,
        user_id=user_id,
        cursor=after.service,
        creator=after.creator,
        pending=[asdict(i) for i in after.pending],
        ended=after.ended,
        shown_ids=sorted(seen),
        shown_count=len(items),
        last=[asdict(i) for i in items],
    )
    list_id = uuid.uuid4().hex
    if not state.ended:
        _forget_old_lists(deps)
        _lists(deps).put(list_id, state)
    return _message_of(lang, list_id, state)


def show(
    deps: Deps,
    *,
    kind: str,
    team_id: str,
    user_id: str,
    channel_id: str,
    response_url: str | None,
) -> None:
    """Show the first page of the user's own threads or runs to them."""
    message = _start(deps, kind=kind, team_id=team_id, user_id=user_id)
    _deliver(
        deps,
        user_id=user_id,
        channel_id=channel_id,
        message=message,
        response_url=response_url,
        replace=False,
    )


def _claim(deps: Deps, list_id: str, *, page: int, team_id: str, user_id: str) -> ListState | None:
    """Take one More press of ``page``: only the first press of a page's button goes on, and
    only its own person's (a list shows one person's threads or runs)."""
    mine = uuid.uuid4().hex

    def take(state: ListState) -> ListState:
        if state.page != page or state.ended or state.claim:
            return state
        if (state.team_id, state.user_id) != (team_id, user_id):
            return state
        return state.model_copy(update={"claim": mine})

    taken = _lists(deps).update(list_id, take)
    return taken if taken is not None and taken.claim == mine else None


def _next_page(deps: Deps, list_id: str, state: ListState) -> tuple[Message, bool]:
    """The list message's next page (True: it replaces the list), or a notice beside it."""
    lang = deps.lang_of(state.user_id)
    client = user_client(deps, team_id=state.team_id, user_id=state.user_id)
    if client is None:
        _lists(deps).update(list_id, lambda s: s.model_copy(update={"claim": None}))
        return build_list_notice(lang=lang, notice="connect"), False
    seen = set(state.shown_ids)
    try:
        items, after = collect(
            deps,
            client,
            kind=state.kind,
            team_id=state.team_id,
            user_id=state.user_id,
            cursor=Cursor(
                state.cursor, state.creator, [ThreadItem(**raw) for raw in state.pending]
            ),
            first=False,
            seen=seen,
        )
    except ContentApiError as exc:
        _lists(deps).update(list_id, lambda s: s.model_copy(update={"claim": None}))
        return _failure_notice(exc, kind=state.kind, user_id=state.user_id, lang=lang), False
    changes: dict[str, Any] = {
        "cursor": after.service,
        "pending": [asdict(i) for i in after.pending],
        "ended": after.ended,
        "claim": None,
        "page": state.page + 1,
        "shown_ids": sorted(seen),
    }
    if items:  # else the message keeps showing what it showed, and says whether more may come
        changes.update(shown_count=state.shown_count + len(items), last=[asdict(i) for i in items])
    moved = state.model_copy(update=changes)
    _lists(deps).put(list_id, moved)
    return _message_of(lang, list_id, moved), True


def more(
    deps: Deps,
    *,
    value: str,
    team_id: str,
    user_id: str,
    channel_id: str,
    response_url: str | None,
) -> None:
    """A press of More: the next page of the user's own items replaces the list message,
    numbered on from the last page and with nothing already shown in it repeated."""
    kind, _, rest = value.partition("|")
    if kind not in (THREADS, RUNS) or not rest:
        return
    if not rest.startswith("list:"):
        legacy = _legacy_cursor(deps, rest)
        if legacy is None:
            return
        message = _start(deps, kind=kind, team_id=team_id, user_id=user_id, legacy_cursor=legacy)
        replace = True
    else:
        list_id, _, page = rest.removeprefix("list:").rpartition(":")
        number = int(page) if page.isdigit() else -1
        state = _claim(deps, list_id, page=number, team_id=team_id, user_id=user_id)
        if state is None:
            log.info("a More press of %s was already handled or is stale", user_id)
            return
        # A failure is told beside the list, which keeps what it shows.
        message, replace = _next_page(deps, list_id, state)
    _deliver(
        deps,
        user_id=user_id,
        channel_id=channel_id,
        message=message,
        response_url=response_url,
        replace=replace,
    )


def _legacy_cursor(deps: Deps, rest: str) -> str | None:
    if rest.startswith("ref:"):
        kept = deps.records.legacy_cursors.get(rest.removeprefix("ref:"))
        return kept.cursor if kept else None
    return rest
