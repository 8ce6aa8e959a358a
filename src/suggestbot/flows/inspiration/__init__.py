"""``/suggest inspire``: the newest ready-made content shown to one person, shared on
demand, generated anew and watched until it appears."""

__all__ = ["sharing", "showing"]
