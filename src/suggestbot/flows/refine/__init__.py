"""Refining a thread: a reply or the Refine… modal becomes a ``refinement`` run, its
result is posted as "Turn n", and a failed refinement can be sent again."""

__all__ = ["replies"]
