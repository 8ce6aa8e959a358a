"""A brief: ``/suggest <text>``, the brief modal and the composer's send, recorded,
sent as a ``steered_generation`` run, and its variants posted in the thread."""

__all__ = ["results", "sending"]
