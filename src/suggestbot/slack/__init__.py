"""The outbound gate: every Slack Web API call, within Slack's rate limits.

Below the flows (they import it), above the store. :mod:`tiers` is Slack's documented budget
per method, :mod:`budget` what is left of it, :mod:`gate` holds each call until it may go
(urgent first, decoration dropped when short, 429s paused for every caller),
:mod:`coalesce` and :mod:`permalinks` spare calls, :mod:`client` puts a ``WebClient`` behind
the gate and :mod:`outbound` holds the lot for one process.
"""

from suggestbot.slack.gate import Closed, Dropped, Priority, SlackGate, priority
from suggestbot.slack.outbound import Outbound

__all__ = ["Closed", "Dropped", "Outbound", "Priority", "SlackGate", "priority"]
