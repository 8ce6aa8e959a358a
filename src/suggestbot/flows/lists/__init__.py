"""``/suggest threads`` and ``/suggest runs`` page by page, and the history modals
opened from them and from Home."""

__all__ = ["listing"]
