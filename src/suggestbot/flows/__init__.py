"""What linking, a brief and its results do, independent of Bolt.

Listeners translate Slack payloads into calls here; jobs call in here when a run moves. Nothing
in this package imports Bolt: it talks to Slack through ``slack_sdk``'s ``WebClient`` and to the
service through ``contentapi``.
"""
