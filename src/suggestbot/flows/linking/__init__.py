"""Linking a Slack user to their own service account (token kept encrypted), and
asking whether someone is linked."""

__all__ = ["accounts"]
