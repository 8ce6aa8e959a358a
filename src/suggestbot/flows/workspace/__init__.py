"""The workspace as a whole: its admins' service credentials set from Home, and what
happens when it takes the app's tokens away or removes the app."""

__all__: list[str] = []
