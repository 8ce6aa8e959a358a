"""``/suggest inspire``: the newest ready-made content, shown to one person, shared on demand.

Reads use the machine client and the workspace's content locale, with ``expand=asset_urls`` so
the images arrive with URLs minted for this very answer (they are credentials: shown, never
kept). What was shown is kept as an :class:`Offer` (ids and image refs only), so "Share" and
"Refine…" post exactly that variant later (:mod:`suggestbot.flows.inspiration.sharing`).

An empty answer says why it may be empty and offers "Generate now": the app then watches for
the new version (:mod:`suggestbot.flows.inspiration.polling`) and posts it when it appears.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from suggestbot.contentapi import (
    ContentApiError,
    NotFound,
    Suggestion,
    SuggestionSet,
)
from suggestbot.flows.common import content_locale, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.variants import shown_variant
from suggestbot.flows.inspiration.matching import Resolution, parse_inspire, resolve_pair
from suggestbot.store.offers import Offer, OfferedVariant, Watch, offer_of_share
from suggestbot.store.records import Table
from suggestbot.ui.blocks.inspiration import (
    Labels,
    build_empty_answer,
    build_inspiration_answer,
    build_pair_picker,
    pick_value,
)
from suggestbot.ui.blocks.inspiration_notices import (
    GenerationStart,
    build_bad_option,
    build_content_unavailable,
    build_generation_notice,
    build_offer_gone,
    build_watch_expired,
    generation_note,
    ready_note,
    skipped_note,
)
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)

SHARE_ROLE = "inspiration_share"


def offers(deps: Deps) -> Table[Offer]:
    """The table of answers shown (:class:`~suggestbot.store.offers.Offer`)."""
    return deps.records.offers


def watches(deps: Deps) -> Table[Watch]:
    """The table of "Generate now" watches."""
    return deps.records.watches


def prune(deps: Deps, *, older_than: float) -> int:
    """Forget answers (and their share claims) shown before ``older_than`` (epoch seconds);
    their buttons then say the answer expired. Returns how many answers were dropped."""
    gone = {key for key, offer in deps.records.offers.items() if offer.created_at < older_than}
    for key in gone:
        deps.records.offers.delete(key)
    for key, _ in deps.records.shares.items():
        if offer_of_share(key) in gone:
            deps.records.shares.delete(key)
    return len(gone)


@dataclass(frozen=True)
class Pair:
    """A segment and a use case, by id and by name."""

    segment_id: str
    segment_name: str
    use_case_id: str
    use_case_name: str

    @property
    def labels(self) -> Labels:
        """The names the builders show."""
        return Labels(segment=self.segment_name, use_case=self.use_case_name)


@dataclass(frozen=True)
class Asker:
    """Who asked, where, and how to answer them only."""

    team_id: str
    user_id: str
    channel_id: str
    response_url: str | None = None
    trigger_id: str | None = None  # a button press's, to open a modal (valid 3 seconds)


def tell(deps: Deps, asker: Asker, message: Message) -> None:
    """Tell the asker alone (see :func:`suggestbot.flows.common.telling.tell`)."""
    telling.tell(
        deps,
        user_id=asker.user_id,
        channel_id=asker.channel_id,
        message=message,
        response_url=asker.response_url,
    )


def tell_offer_gone(deps: Deps, asker: Asker) -> None:
    """A button of an answer that is no longer kept: say so (run the command again)."""
    tell(deps, asker, build_offer_gone(lang=deps.lang_of(asker.user_id)))


def tell_unavailable(deps: Deps, asker: Asker) -> None:
    """Tell the asker that ready-made content cannot be read just now."""
    tell(deps, asker, build_content_unavailable(lang=deps.lang_of(asker.user_id)))


# --- the command ---------------------------------------------------------------------------------


def command(deps: Deps, asker: Asker, text: str) -> None:
    """``/suggest inspire [segment] [use case] [--version N] [--refresh]``."""
    args = parse_inspire(text)
    if args.error:
        tell(deps, asker, build_bad_option(lang=deps.lang_of(asker.user_id), option=args.error))
        return
    catalog = deps.catalog()
    found = resolve_pair(args.words, segments=catalog.segments, use_cases=catalog.use_cases)
    if not found.complete and args.words:
        # A name may be new since the catalogue was cached.
        catalog = deps.catalog(refresh=True)
        found = resolve_pair(args.words, segments=catalog.segments, use_cases=catalog.use_cases)
    if found.complete:
        assert found.segment.chosen and found.use_case.chosen
        pair = Pair(*found.segment.chosen, *found.use_case.chosen)
        show(deps, asker, pair, version=args.version, refresh=args.refresh)
        return
    offer_picker(deps, asker, found, version=args.version, refresh=args.refresh)


def offer_picker(
    deps: Deps, asker: Asker, found: Resolution, *, version: int | None, refresh: bool
) -> None:
    """Ask for the side that is missing or ambiguous, segment first."""
    lang = deps.lang_of(asker.user_id)
    segment, use_case = found.segment, found.use_case
    asking: Literal["segment", "use_case"]
    if segment.chosen is None:
        asking, options, typed = "segment", list(segment.choices), segment.typed
        chosen_use_case = use_case.chosen[0] if use_case.chosen else None
        values = [
            pick_value(
                segment_id=option_id,
                use_case_id=chosen_use_case,
                version=version,
                refresh=refresh,
            )
            for option_id, _ in options
        ]
        chosen = use_case.chosen[1] if use_case.chosen else None
    else:
        asking, options, typed = "use_case", list(use_case.choices), use_case.typed
        values = [
            pick_value(
                segment_id=segment.chosen[0],
                use_case_id=option_id,
                version=version,
                refresh=refresh,
            )
            for option_id, _ in options
        ]
        chosen = segment.chosen[1]
    message = build_pair_picker(
        lang=lang,
        asking=asking,
        typed=typed,
        unknown=found.unknown_text or None,
        chosen=chosen,
        options=options,
        values=values,
    )
    tell(deps, asker, message)


def picked(deps: Deps, asker: Asker, choice: dict[str, Any]) -> None:
    """A picker button was pressed: show, or ask for what is still missing."""
    catalog = deps.catalog()
    segments, use_cases = dict(catalog.segments), dict(catalog.use_cases)
    segment_id, use_case_id = choice.get("s"), choice.get("u")
    if (segment_id and segment_id not in segments) or (
        use_case_id and use_case_id not in use_cases
    ):
        catalog = deps.catalog(refresh=True)
        segments, use_cases = dict(catalog.segments), dict(catalog.use_cases)
    version = choice.get("v") if isinstance(choice.get("v"), int) else None
    refresh = bool(choice.get("r"))
    if segment_id in segments and use_case_id in use_cases:
        pair = Pair(segment_id, segments[segment_id], use_case_id, use_cases[use_case_id])
        show(deps, asker, pair, version=version, refresh=refresh)
        return
    words: list[str] = []
    if segment_id in segments:
        words.append(segment_id)
    found = resolve_pair(words, segments=catalog.segments, use_cases=catalog.use_cases)
    offer_picker(deps, asker, found, version=version, refresh=refresh)


# --- showing a set -------------------------------------------------------------------------------


def image_url(suggestion: Suggestion) -> str | None:
    """The image URL that came with the answer (``expand=asset_urls``), if any."""
    asset = suggestion.asset
    return None if asset is None else asset.reveal_url()


def read_newest(
    deps: Deps, pair: Pair, *, version: int | None = None, asset_urls: bool = True
) -> SuggestionSet | None:
    """The newest set (or ``version``) in the workspace's locale; None when there is none."""
    sets = deps.content.get_inspiration(
        segment_id=pair.segment_id,
        use_case_id=pair.use_case_id,
        locale=deps.content_locale,
        version=version,
        asset_urls=asset_urls,
    )
    if not sets:
        return None
    content_locale.learn(deps, sets[0].locale)
    return sets[0]


def show(
    deps: Deps, asker: Asker, pair: Pair, *, version: int | None = None, refresh: bool = False
) -> None:
    """Answer with the set, or say why there is none; ``refresh`` also asks for a new one."""
    lang = deps.lang_of(asker.user_id)
    notes: list[str] = []
    try:
        found = read_newest(deps, pair, version=version)
    except ContentApiError as exc:
        log.warning("reading ready-made content failed (%s)", exc)
        tell_unavailable(deps, asker)
        return
    if refresh:
        # Asked after reading, so what is shown now is the version the new one replaces.
        known = (found, True) if version is None else (None, False)
        start = _start_generation(deps, asker, pair, current=known)
        notes.append(generation_note(lang=lang, start=start, labels=pair.labels))
    if found is None:
        if refresh:
            tell(deps, asker, build_notice(lang=lang, text="\n".join(notes)))
            return
        explain_empty(deps, asker, pair, version=version)
        return
    offer = remember(deps, asker, pair, found)
    tell(
        deps,
        asker,
        answer_message(deps, offer, found, lang=lang, newest=version is None, notes=notes),
    )


def remember(deps: Deps, asker: Asker, pair: Pair, found: SuggestionSet) -> Offer:
    """Keep what was shown as an :class:`~suggestbot.store.offers.Offer` (ids and image refs,
    never URLs), so its buttons act on exactly these variants later.
    """
    offer = Offer(
        team_id=asker.team_id,
        user_id=asker.user_id,
        channel_id=asker.channel_id,
        segment_id=pair.segment_id,
        use_case_id=pair.use_case_id,
        segment_name=pair.segment_name,
        use_case_name=pair.use_case_name,
        locale=found.locale,
        version=found.version,
        suggestion_set_id=found.id,
        variants=[
            OfferedVariant(
                suggestion_id=s.id,
                variant_no=s.variant_no,
                kind=s.kind.value,
                asset_ref=None if s.asset is None else str(s.asset.ref),
            )
            for s in found.suggestions
        ],
        created_at=deps.clock(),
    )
    offers(deps).put(offer.id, offer)
    return offer


def answer_message(
    deps: Deps,
    offer: Offer,
    found: SuggestionSet,
    *,
    lang: str,
    newest: bool,
    notes: Sequence[str] = (),
) -> Message:
    """The answer as shown: the set's variants with Share and Refine… under each.

    Args:
        offer: the answer as kept (its id goes into the buttons).
        found: the set read, with its image URLs.
        newest: the set is the newest version (else a chosen older one).
        notes: lines shown above the variants.
    """
    total = len(found.suggestions)
    variants = [shown_variant(s, total=total, image_url=image_url(s)) for s in found.suggestions]
    extra = list(notes)
    if found.skipped_count:
        extra.append(skipped_note(lang=lang, count=found.skipped_count))
    return build_inspiration_answer(
        lang=lang,
        labels=Labels(segment=offer.segment_name, use_case=offer.use_case_name),
        version=found.version,
        newest=newest,
        variants=variants,
        offer_id=offer.id,
        notes=extra,
    )


def explain_empty(deps: Deps, asker: Asker, pair: Pair, *, version: int | None) -> None:
    """Nothing to show: a wrong locale, a version that does not exist, or nothing yet."""
    lang = deps.lang_of(asker.user_id)
    held = content_locale.probe(deps)
    newest_version = None
    if held is None and version is not None:
        try:
            newest = read_newest(deps, pair, asset_urls=False)
        except ContentApiError:
            newest = None
        newest_version = newest.version if newest is not None else None
    message = build_empty_answer(
        lang=lang,
        labels=pair.labels,
        version=version,
        newest_version=newest_version,
        locale_mismatch=(deps.content_locale, held) if held else None,
        generate_value=pick_value(segment_id=pair.segment_id, use_case_id=pair.use_case_id),
    )
    tell(deps, asker, message)


# --- generating ----------------------------------------------------------------------------------


def _start_generation(
    deps: Deps,
    asker: Asker,
    pair: Pair,
    *,
    current: tuple[SuggestionSet | None, bool] = (None, False),
) -> GenerationStart:
    """Ask the service for a new set and watch for it; returns what came of asking.

    Args:
        current: the newest set as just read, and whether it was read (else it is read here),
            so the watch knows which version the new one must beat.
    """
    newest, known = current
    try:
        if not known:
            newest = read_newest(deps, pair, asset_urls=False)
        deps.content.trigger_inspiration(segment_id=pair.segment_id, use_case_id=pair.use_case_id)
    except NotFound:
        return "not_set_up"
    except ContentApiError as exc:
        log.warning("asking for ready-made content failed (%s)", exc)
        return "unavailable"
    now = deps.clock()
    watch = Watch(
        team_id=asker.team_id,
        user_id=asker.user_id,
        channel_id=asker.channel_id,
        segment_id=pair.segment_id,
        use_case_id=pair.use_case_id,
        segment_name=pair.segment_name,
        use_case_name=pair.use_case_name,
        locale=deps.content_locale,
        known_version=newest.version if newest else None,
        started_at=now,
        next_poll_at=now,
    )
    watches(deps).put(watch.id, watch)
    return "generating"


def generate_now(deps: Deps, asker: Asker, pair: Pair) -> None:
    """The "Generate now" button: trigger (joining a generation in progress) and watch."""
    lang = deps.lang_of(asker.user_id)
    start = _start_generation(deps, asker, pair)
    tell(deps, asker, build_generation_notice(lang=lang, start=start, labels=pair.labels))


def pair_of(deps: Deps, choice: dict[str, Any]) -> Pair | None:
    """The segment and use case a picker's choice names, looked up in the catalogue (read
    again once if not found); None when either is unknown.
    """
    segment_id, use_case_id = choice.get("s"), choice.get("u")
    for refresh in (False, True):
        catalog = deps.catalog(refresh=refresh)
        segments, use_cases = dict(catalog.segments), dict(catalog.use_cases)
        if segment_id in segments and use_case_id in use_cases:
            return Pair(segment_id, segments[segment_id], use_case_id, use_cases[use_case_id])
    return None


def deliver_watch(deps: Deps, watch: Watch, found: SuggestionSet) -> None:
    """The generation a user asked for is ready: show it to them where they asked."""
    asker = Asker(team_id=watch.team_id, user_id=watch.user_id, channel_id=watch.channel_id)
    pair = Pair(watch.segment_id, watch.segment_name, watch.use_case_id, watch.use_case_name)
    lang = deps.lang_of(watch.user_id)
    offer = remember(deps, asker, pair, found)
    note = ready_note(lang=lang, labels=pair.labels)
    tell(deps, asker, answer_message(deps, offer, found, lang=lang, newest=True, notes=[note]))


def watch_expired(deps: Deps, watch: Watch) -> None:
    """Tell the person who pressed "Generate now" that the new set did not appear in time."""
    asker = Asker(team_id=watch.team_id, user_id=watch.user_id, channel_id=watch.channel_id)
    labels = Labels(segment=watch.segment_name, use_case=watch.use_case_name)
    tell(deps, asker, build_watch_expired(lang=deps.lang_of(watch.user_id), labels=labels))


# --- sharing -------------------------------------------------------------------------------------
