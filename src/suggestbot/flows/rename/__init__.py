"""Renaming the service thread behind a Slack thread, with the user's own token."""

__all__: list[str] = []
