"""What the app does, independent of Bolt: one package per feature, one name across layers.

``brief``, ``refine``, ``rename``, ``drafts``, ``lists``, ``home``, ``linking``, ``feedback``,
``composer``, ``inspiration``, ``digests``, ``workflow`` and ``workspace`` each say in their
``__init__`` what they do and which of their modules other features may import (``__all__``);
``common`` holds what they share. Listeners translate Slack payloads into calls here; jobs call
in here when a run moves. Nothing in this package imports Bolt: it talks to Slack through
``slack_sdk``'s ``WebClient`` and to the service through ``contentapi``.
"""
