"""How often to poll a generation run (or inspiration after a trigger).

The contract suggests every 10 s for 3 minutes, every 30 s for the next 5, then every minute for
13 more. After those 21 minutes a run is most likely stuck in retries (each attempt may take up
to 10 minutes), so polling slows to every 5 minutes until a cap, then stops.
"""

from __future__ import annotations

from typing import Final

# (polling continues at this delay while elapsed seconds are below this bound)
_SCHEDULE: Final = ((180.0, 10.0), (480.0, 30.0), (1260.0, 60.0))
SLOW_POLL_DELAY_S: Final = 300.0
DEFAULT_POLL_CAP_S: Final = 3600.0


def next_poll_delay(elapsed_s: float, *, cap_s: float = DEFAULT_POLL_CAP_S) -> float | None:
    """Seconds until the next poll, given the seconds since the run was submitted.

    Args:
        elapsed_s: time since submission.
        cap_s: stop polling once this much time has passed.

    Returns:
        10, 30, 60 or 300 seconds by the schedule above, or None at or after ``cap_s``.
    """
    if elapsed_s >= cap_s:
        return None
    for bound, delay in _SCHEDULE:
        if elapsed_s < bound:
            return delay
    return SLOW_POLL_DELAY_S
