"""Thumbs-up and thumbs-down on a posted variant or turn, one vote per person."""

__all__ = ["votes"]
