"""Short notices of ``/suggest inspire`` and its buttons: a bad option, an answer that expired,
the service out of reach, a channel the app cannot post in, and where a shared set went.

The flows pass what happened; the words are here.
"""

from __future__ import annotations

from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.messages import t


def build_content_unavailable(*, lang: str) -> Message:
    """Ready-made content could not be read: the service is out of reach."""
    return build_notice(lang=lang, text=t("inspire.unavailable", lang))


def build_offer_gone(*, lang: str) -> Message:
    """A button of an inspire answer that is no longer kept."""
    return build_notice(lang=lang, text=t("inspire.offer_gone", lang))
