"""Pure Block Kit builders: data in, ``slack_sdk.models`` objects (as dicts) out; no I/O.

Every builder goes through ``slack_sdk.models`` so Slack's limits are checked when the blocks
are rendered, and every id the listeners match on is a constant in :mod:`.ids`.
"""
