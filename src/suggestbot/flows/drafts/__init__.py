"""``/suggest draft``: an email the user wrote, saved in the service, refinable in Slack."""

__all__: list[str] = []
