"""Slack's documented rate limits for every Web API method the app calls.

Slack rations its Web API per method, per app, per workspace (per enterprise for an org-wide
install), in tiers (Slack docs, "Rate limits", https://docs.slack.dev/apis/web-api/rate-limits):

    Tier 1   1+ per minute     Tier 3   50+ per minute
    Tier 2  20+ per minute     Tier 4  100+ per minute

Each method's tier is in the "Facts" of its reference page
(``https://docs.slack.dev/reference/methods/<method>``), the source of every row below. Slack
promises "at least" these figures, so the app keeps to them exactly. A method missing from the
table is taken to be Tier 2, the commonest and the lowest the app could meet by surprise.

Posting messages is "Special": about one message a second per channel, "short bursts > 1
allowed", plus a workspace-wide limit whose number Slack does not publish (``chat.postMessage``
reference, "Rate limiting"); :data:`POST_WORKSPACE_PER_MINUTE` is the app's own assumption,
kept well under the "several hundred messages a minute" Slack's message guidelines mention.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tier:
    """A budget: ``per_minute`` calls in any minute."""

    name: str
    per_minute: int


TIER_1 = Tier("tier1", 1)
TIER_2 = Tier("tier2", 20)
TIER_3 = Tier("tier3", 50)
TIER_4 = Tier("tier4", 100)
# chat.postMessage: the per-channel rule below does most of the rationing; this is the
# workspace-wide cap (not published by Slack, see the module docstring).
POST_WORKSPACE_PER_MINUTE = 600
SPECIAL_POSTS = Tier("special_post", POST_WORKSPACE_PER_MINUTE)

# One message a second per channel, with a short burst: Slack tolerates "short bursts > 1";
# three back to back is the burst both the app and the emulator allow.
POST_PER_CHANNEL_PER_S = 1.0
POST_CHANNEL_BURST = 3
POSTING_METHODS = frozenset({"chat.postMessage"})

METHOD_TIERS: dict[str, Tier] = {
    # https://docs.slack.dev/reference/methods/chat.postMessage — Special (see above)
    "chat.postMessage": SPECIAL_POSTS,
    # https://docs.slack.dev/reference/methods/chat.postEphemeral — Tier 4
    "chat.postEphemeral": TIER_4,
    # https://docs.slack.dev/reference/methods/chat.update — Tier 3
    "chat.update": TIER_3,
    # https://docs.slack.dev/reference/methods/chat.delete — Tier 3
    "chat.delete": TIER_3,
    # https://docs.slack.dev/reference/methods/chat.getPermalink — Special, budgeted as Tier 4
    "chat.getPermalink": TIER_4,
    # https://docs.slack.dev/reference/methods/assistant.threads.setStatus — Tier 3
    "assistant.threads.setStatus": TIER_3,
    # https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts — Tier 3
    "assistant.threads.setSuggestedPrompts": TIER_3,
    # https://docs.slack.dev/reference/methods/assistant.threads.setTitle — Tier 3
    "assistant.threads.setTitle": TIER_3,
    # https://docs.slack.dev/reference/methods/views.open (push, update, publish) — Tier 4
    "views.open": TIER_4,
    "views.push": TIER_4,
    "views.update": TIER_4,
    "views.publish": TIER_4,
    # https://docs.slack.dev/reference/methods/conversations.open — Tier 3
    "conversations.open": TIER_3,
    # https://docs.slack.dev/reference/methods/conversations.info — Tier 3
    "conversations.info": TIER_3,
    # https://docs.slack.dev/reference/methods/conversations.history — Tier 3
    "conversations.history": TIER_3,
    # https://docs.slack.dev/reference/methods/conversations.replies — Tier 3
    "conversations.replies": TIER_3,
    # https://docs.slack.dev/reference/methods/users.info — Tier 4
    "users.info": TIER_4,
    # https://docs.slack.dev/reference/methods/auth.test — Special, budgeted as Tier 4
    "auth.test": TIER_4,
    # https://docs.slack.dev/reference/methods/files.getUploadURLExternal — Tier 4
    "files.getUploadURLExternal": TIER_4,
    # https://docs.slack.dev/reference/methods/files.completeUploadExternal — Tier 4
    "files.completeUploadExternal": TIER_4,
    # https://docs.slack.dev/reference/methods/files.info — Tier 4
    "files.info": TIER_4,
    # https://docs.slack.dev/reference/methods/functions.completeSuccess (and completeError)
    # — Tier 4
    "functions.completeSuccess": TIER_4,
    "functions.completeError": TIER_4,
    # https://docs.slack.dev/reference/methods/oauth.v2.access — Tier 4
    "oauth.v2.access": TIER_4,
}
TIER_NAMES = ("tier1", "tier2", "tier3", "tier4", "special_post")


def tier_of(method: str) -> Tier:
    """The method's budget; Tier 2 when the table does not know it."""
    return METHOD_TIERS.get(method, TIER_2)


def method_label(method: str) -> str:
    """A bounded metrics label: the method's name when the table knows it, else "other"."""
    return method if method in METHOD_TIERS else "other"
