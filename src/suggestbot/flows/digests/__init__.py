"""Digests: a channel's subscription to the newest ready-made content, posted on a wall-clock
schedule. One feature, one package:

- :mod:`.schedule` — when a digest is due (pure functions of an injected ``now``);
- :mod:`.subscriptions` — create, list, pause, resume, remove, preview; pause on a dead channel;
- :mod:`.content` — what a digest posts: the newest set, read once per wave for all channels
  that share it, with its image URLs;
- :mod:`.wave` — every digest due at a given minute, dealt out to lanes that post in rounds;
- :mod:`.delivery` — one digest for one local date, posted at most once, also across crashes;
- :mod:`.writes` — what a round records after posting, in one commit per table.

The scheduler only says *when* (``suggestbot.jobs.digest_wave`` runs a wave each minute); the
Block Kit comes from ``suggestbot.ui.blocks``. What listeners ask of digests is re-exported
here.
"""

from suggestbot.flows.digests.subscriptions import (
    create,
    describe_added,
    find,
    list_for,
    pair_of,
    pause_unreachable,
    preview,
    record_error,
    remove,
    schedule_of,
    set_paused,
    tell,
    tell_not_found,
    visible,
)

__all__ = [
    "create",
    "describe_added",
    "find",
    "list_for",
    "pair_of",
    "pause_unreachable",
    "preview",
    "record_error",
    "remove",
    "schedule_of",
    "set_paused",
    "tell",
    "tell_not_found",
    "visible",
]
