"""The App Home tab: linked account, recent results, digests, usage; published again
when any of them changes."""

__all__ = ["tab"]
