"""Refinements: from a reply in a Slack thread (or the Refine… modal) to a ``refinement`` run.

A refinement is a :class:`~suggestbot.store.records.Request` of kind ``refinement``
and goes through the same lifecycle as a brief (:mod:`.requests`: record, post, submit,
watch), created with the ACTING user's own token. Its "root message" is a status reply in the
Slack thread; when the run succeeds, :mod:`.turns` turns that reply into "Turn n".

The parent is always the current head of the lineage bound to the Slack thread (threads do not
branch). With several variants and none chosen yet, ``N:`` picks one; otherwise the user is
asked, and what they typed is kept (:class:`PendingInstruction`) until they answer.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from suggestbot.contentapi import (
    ContentApiError,
    EmailPayload,
    ImageMode,
    NotFound,
    RefinementRequest,
    is_invalid_text,
)
from suggestbot.flows.common import access, interactions, requests, telling, threads, usage
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.threads import BoundSuggestion, ThreadBinding
from suggestbot.flows.linking import accounts as linking
from suggestbot.store.conversation import PendingInstruction
from suggestbot.store.records import HeldInput, Request, Table, user_key
from suggestbot.ui.blocks.turns import (
    Choice,
    ReplyNotice,
    build_choice_gone,
    build_choice_prompt,
    build_choice_taken,
    build_held_reply_prompt,
    build_other_lineage_notice,
    build_reply_notice,
    is_long,
    variant_label,
)
from suggestbot.ui.replies import ThreadReply, parse_variant_choice

log = logging.getLogger(__name__)

IMAGE_REGENERATE = ImageMode.REGENERATE.value
# Slack answers these when an ephemeral cannot reach the user in that conversation.


# How long a reply waiting for its variant to be chosen is kept (jobs/retention.py).
KEEP_PENDING = timedelta(days=7)


def pending(deps: Deps) -> Table[PendingInstruction]:
    """The table of instructions waiting for their variant to be chosen."""
    return deps.records.pending


def refinement_request(
    *, parent_id: str, instruction: str, regenerate_image: bool
) -> RefinementRequest:
    """The ``refinement`` run request.

    ``image`` is sent only to regenerate an image, and the caller passes ``regenerate_image``
    only for content that has one: the service refuses the field (even ``reuse``) on text-only
    content (``image_not_applicable``), and ``reuse`` is its default anyway.
    """
    return RefinementRequest(
        parent_suggestion_id=parent_id,
        instruction=instruction,
        image=ImageMode.REGENERATE if regenerate_image else None,
    )


# ---------------------------------------------------------------- talking in the thread


def _say(
    deps: Deps,
    *,
    user_id: str,
    channel: str,
    thread_ts: str,
    notice: ReplyNotice,
    length: int = 0,
) -> None:
    message = build_reply_notice(lang=deps.lang_of(user_id), notice=notice, length=length)
    telling.tell(deps, user_id=user_id, channel_id=channel, thread_ts=thread_ts, message=message)


# ---------------------------------------------------------------- a reply arrives


def on_reply(deps: Deps, reply: ThreadReply) -> None:
    """A person replied in a thread: refine, ask which variant, or ask them to connect first.

    Replies in threads the app did not start are ignored without a word.
    """
    try:
        binding = threads.binding_of(deps, channel=reply.channel, thread_ts=reply.thread_ts)
    except threads.NotReady:
        _say(
            deps,
            user_id=reply.user_id,
            channel=reply.channel,
            thread_ts=reply.thread_ts,
            notice=ReplyNotice.NOT_READY,
        )
        return
    if binding is None:
        return
    if reply.with_files or is_invalid_text(reply.text):
        notice = _unusable_part(reply)
        _say(
            deps,
            user_id=reply.user_id,
            channel=reply.channel,
            thread_ts=reply.thread_ts,
            notice=notice,
        )
        if notice is not ReplyNotice.FILES_NOT_USED:
            return
    team_id = reply.team_id or binding.team_id
    if not linking.is_linked(deps, team_id=team_id, user_id=reply.user_id):
        _hold(deps, binding, team_id=team_id, user_id=reply.user_id, text=reply.text)
        return
    route(deps, binding, team_id=team_id, user_id=reply.user_id, text=reply.text)


def _unusable_part(reply: ThreadReply) -> ReplyNotice:
    """What to tell the author of a reply the service cannot take as it is (see ``on_reply``).

    Text that is not valid text is refused whole; files are left out and the text refines;
    files without text leave nothing to refine.
    """
    if is_invalid_text(reply.text):
        return ReplyNotice.INVALID_ENCODING
    if not reply.text.strip():
        return ReplyNotice.FILES_WITHOUT_TEXT
    return ReplyNotice.FILES_NOT_USED


def _hold(deps: Deps, binding: ThreadBinding, *, team_id: str, user_id: str, text: str) -> None:
    held = HeldInput(
        id=interactions.derived_id("held"),  # a replay after a crash keeps it once
        team_id=team_id,
        user_id=user_id,
        channel_id=binding.channel,
        text=text,
        thread_ts=binding.thread_ts,
    )
    deps.records.held.put(held.id, held)
    prompt = build_held_reply_prompt(lang=deps.lang_of(user_id), held_id=held.id)
    telling.tell(
        deps,
        user_id=user_id,
        channel_id=binding.channel,
        thread_ts=binding.thread_ts,
        message=prompt,
    )


def resend_held(deps: Deps, held: HeldInput, *, team_id: str, acting_user: str) -> None:
    """The one-click resend of a reply kept while its author was not connected."""
    if held.user_id != acting_user or not held.thread_ts:
        return
    try:
        binding = threads.binding_of(deps, channel=held.channel_id, thread_ts=held.thread_ts)
    except threads.NotReady:
        binding = None
    if binding is None:
        return
    deps.records.held.delete(held.id)
    route(deps, binding, team_id=team_id, user_id=acting_user, text=held.text)


def route(
    deps: Deps,
    binding: ThreadBinding,
    *,
    team_id: str,
    user_id: str,
    text: str,
    regenerate_image: bool = False,
) -> Request | None:
    """Decide what a typed instruction refines, then start it (or ask first)."""
    number, instruction = parse_variant_choice(text, count=len(binding.suggestions))
    if binding.head_suggestion_id is None:
        if number is None:
            _ask_which(deps, binding, team_id=team_id, user_id=user_id, text=instruction)
            return None
        binding = threads.choose(deps, binding, number)
        if binding.chosen_variant != number:
            _other_lineage(deps, binding, team_id=team_id, user_id=user_id, text=instruction)
            return None
    elif number is not None and len(binding.suggestions) > 1 and number != binding.chosen_variant:
        _other_lineage(deps, binding, team_id=team_id, user_id=user_id, text=instruction)
        return None
    if not instruction:
        _say(
            deps,
            user_id=user_id,
            channel=binding.channel,
            thread_ts=binding.thread_ts,
            notice=ReplyNotice.EMPTY,
        )
        return None
    return start(
        deps,
        binding,
        team_id=team_id,
        user_id=user_id,
        instruction=instruction,
        regenerate_image=regenerate_image,
    )


def _keep(
    deps: Deps,
    binding: ThreadBinding,
    *,
    team_id: str,
    user_id: str,
    text: str,
    regenerate_image: bool = False,
) -> PendingInstruction:
    kept = PendingInstruction(
        id=interactions.derived_id("pending"),  # a replay after a crash keeps it once
        team_id=team_id,
        user_id=user_id,
        channel=binding.channel,
        thread_ts=binding.thread_ts,
        text=text,
        regenerate_image=regenerate_image,
    )
    pending(deps).put(kept.id, kept)
    return kept


def _variant_label(deps: Deps, offered: BoundSuggestion, lang: str) -> str:
    """What tells the variants apart in the question: an email's subject, a post's opening."""
    try:
        payload = deps.content.get_suggestion(id=offered.suggestion_id).payload
    except ContentApiError:
        return variant_label(lang=lang, kind=offered.kind, text=None)
    text = payload.subject if isinstance(payload, EmailPayload) else payload.body
    return variant_label(lang=lang, kind=offered.kind, text=text)


def _ask_which(
    deps: Deps, binding: ThreadBinding, *, team_id: str, user_id: str, text: str
) -> None:
    kept = _keep(deps, binding, team_id=team_id, user_id=user_id, text=text)
    lang = deps.lang_of(user_id)
    choices = [
        Choice(number=s.variant_no, label=_variant_label(deps, s, lang))
        for s in binding.suggestions
    ]
    prompt = build_choice_prompt(lang=lang, instruction=text, choices=choices, pending_id=kept.id)
    telling.tell(
        deps,
        user_id=user_id,
        channel_id=binding.channel,
        thread_ts=binding.thread_ts,
        message=prompt,
    )


def _other_lineage(
    deps: Deps,
    binding: ThreadBinding,
    *,
    team_id: str,
    user_id: str,
    text: str,
    regenerate_image: bool = False,
) -> None:
    kept = _keep(
        deps,
        binding,
        team_id=team_id,
        user_id=user_id,
        text=text,
        regenerate_image=regenerate_image,
    )
    lang = deps.lang_of(user_id)
    notice = build_other_lineage_notice(
        lang=lang, chosen=binding.chosen_variant or 1, instruction=text, pending_id=kept.id
    )
    telling.tell(
        deps,
        user_id=user_id,
        channel_id=binding.channel,
        thread_ts=binding.thread_ts,
        message=notice,
    )


def on_choice(
    deps: Deps, *, value: str, team_id: str, user_id: str, response_url: str | None
) -> None:
    """A button of the "which variant?" question (``N``; 0 = the lineage's newest turn): the
    instruction kept is its author's only (anyone else's press finds it gone)."""
    pending_id, _, number_text = value.rpartition(":")
    kept = access.pending(deps, access.Person(team_id, user_id), pending_id)
    if kept is None:
        gone = build_choice_gone(lang=deps.lang_of(user_id), kept_days=KEEP_PENDING.days)
        telling.replace_pressed(response_url, gone)
        return
    if not number_text.isdigit():
        return
    binding = threads.get(deps, channel=kept.channel, thread_ts=kept.thread_ts)
    if binding is None:
        return
    number = int(number_text)
    lang = deps.lang_of(user_id)
    if number > 0:
        binding = threads.choose(deps, binding, number)
        if binding.chosen_variant != number:
            notice = build_other_lineage_notice(
                lang=lang,
                chosen=binding.chosen_variant or 1,
                instruction=kept.text,
                pending_id=kept.id,
            )
            telling.replace_pressed(response_url, notice)
            return
    if not pending(deps).delete(kept.id):
        return  # pressed twice: the first press sent it
    chosen = binding.chosen_variant or number
    telling.replace_pressed(response_url, build_choice_taken(lang=lang, number=chosen))
    start(
        deps,
        binding,
        team_id=kept.team_id,
        user_id=user_id,
        instruction=kept.text,
        regenerate_image=kept.regenerate_image,
    )


# ---------------------------------------------------------------- starting a refinement


def _can_see(deps: Deps, *, team_id: str, user_id: str, suggestion_id: str) -> bool:
    """Whether the user's own account can read the suggestion (the service answers 404 to
    a parent the user may not see). Only a definite 404 counts; anything else is left to the
    run creation to report."""
    user = deps.records.users.get(user_key(team_id, user_id))
    if user is None or user.state != "linked":
        return True
    try:
        deps.content.as_user(deps.vault.decrypt(user.token_enc)).get_suggestion(id=suggestion_id)
    except NotFound:
        return False
    except ContentApiError:
        return True
    return True


def start(
    deps: Deps,
    binding: ThreadBinding,
    *,
    team_id: str,
    user_id: str,
    instruction: str,
    regenerate_image: bool = False,
    parent_id: str | None = None,
    parent_has_image: bool | None = None,
) -> Request | None:
    """Refine the lineage's head (or ``parent_id``) as ``user_id``, with their own token.

    Returns the request, or None when the user cannot see the parent (they are told why).
    """
    parent = parent_id or binding.head_suggestion_id
    if parent is None:
        raise ValueError("no variant of this thread is chosen yet")
    has_image = binding.head_has_image if parent_has_image is None else parent_has_image
    if not _can_see(deps, team_id=team_id, user_id=user_id, suggestion_id=parent):
        log.info("user %s cannot see the head of thread %s", user_id, binding.key)
        _say(
            deps,
            user_id=user_id,
            channel=binding.channel,
            thread_ts=binding.thread_ts,
            notice=ReplyNotice.NOT_VISIBLE,
        )
        return None
    req = Request(
        # The same id each time one recorded interaction is carried out (see interactions).
        id=interactions.derived_id("refinement"),
        kind="refinement",
        team_id=team_id,
        user_id=user_id,
        lang=deps.lang_of(user_id),
        channel_id=binding.channel,
        thread_ts=binding.thread_ts,
        body=requests.wire_body(
            refinement_request(
                parent_id=parent,
                instruction=instruction,
                regenerate_image=regenerate_image and has_image,
            )
        ),
        labels={"thread": binding.key},
    )
    if not deps.records.requests.put_if_absent(req.id, req):
        # Carried out again after a crash: the first attempt recorded it, and the request's
        # own recovery (started with the app) posts and sends it; doing it here too would race.
        return deps.records.requests.get(req.id)
    deps.timers.hold_send(req.id)  # taken over by another replica if this one dies sending
    try:
        usage.count(deps, team_id=team_id, refinements=1)
        requests.post_root(deps, req.id)
        if is_long(instruction):
            # Sent whole (the contract sets no limit); the thread quotes its beginning.
            _say(
                deps,
                user_id=user_id,
                channel=binding.channel,
                thread_ts=binding.thread_ts,
                notice=ReplyNotice.LONG_REPLY,
                length=len(instruction),
            )
        requests.submit(deps, req.id, root_says_sending=True)
    finally:
        deps.timers.end_send(req.id)
    return deps.records.requests.get(req.id) or req


# ---------------------------------------------------------------- the Refine… modal


def refine_target(
    binding: ThreadBinding, *, pressed_suggestion: str
) -> tuple[int, str, bool, bool]:
    """What the Refine… button of a message refines: ``(variant, kind, has_image, is_head)``.

    Before a choice, the pressed variant; after it, always the lineage's newest turn (the
    button of an older turn says so in the modal).
    """
    if binding.head_suggestion_id is None:
        pressed = binding.suggestion(pressed_suggestion) or binding.suggestions[0]
        return pressed.variant_no, pressed.kind, pressed.has_image, True
    return (
        0,
        binding.head_kind or "email",
        binding.head_has_image,
        pressed_suggestion == binding.head_suggestion_id,
    )


def submit_modal(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel: str,
    thread_ts: str,
    variant: int,
    instruction: str,
    regenerate_image: bool,
) -> None:
    """The Refine… modal was submitted: refine the chosen variant or the lineage's head."""
    binding = threads.get(deps, channel=channel, thread_ts=thread_ts)
    if binding is None:
        return
    if binding.head_suggestion_id is None and variant > 0:
        binding = threads.choose(deps, binding, variant)
        if binding.chosen_variant != variant:
            _other_lineage(
                deps,
                binding,
                team_id=team_id,
                user_id=user_id,
                text=instruction,
                regenerate_image=regenerate_image,
            )
            return
    if binding.head_suggestion_id is None:
        return
    start(
        deps,
        binding,
        team_id=team_id,
        user_id=user_id,
        instruction=instruction,
        regenerate_image=regenerate_image,
    )
