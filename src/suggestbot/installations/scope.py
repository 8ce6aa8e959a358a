"""Which workspace the work on this thread serves, for an app installed in several.

The flows were written for one workspace: they call ``deps.slack`` and ``deps.content``
without saying which workspace they act for. In a multi-workspace install those two look the
workspace up here. It is set where work begins, from what the work is about:

- each Slack request, by a Bolt middleware (the request's team);
- each timer job, by the timers (the team of the request record it works on);
- each digest, by the digest wave (the digest's team).

Work handed to a thread pool keeps the scope because the app's pools are
:class:`ContextExecutor` s, which run each task in a copy of the submitter's context. Outside
any scope (start-up, health checks) the single-workspace defaults apply.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_TEAM: contextvars.ContextVar[str | None] = contextvars.ContextVar("team", default=None)


def current_team() -> str | None:
    """The Slack team (workspace) id the current work serves, if any."""
    return _TEAM.get()


def enter_team(team_id: str | None) -> None:
    """Serve ``team_id`` from here on in this context.

    For Bolt middleware, which returns before the listeners run and so cannot wrap them;
    everything else uses :func:`team_scope`.
    """
    _TEAM.set(team_id)


@contextmanager
def team_scope(team_id: str | None) -> Iterator[None]:
    """Serve ``team_id`` inside the ``with`` block."""
    token = _TEAM.set(team_id)
    try:
        yield
    finally:
        _TEAM.reset(token)


class ContextExecutor(ThreadPoolExecutor):
    """A thread pool that runs each task in a copy of the submitting thread's context.

    A plain pool would run a task in whatever context its worker thread was left with, so the
    workspace a task serves would be lost (or, worse, be a previous task's).
    """

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        context = contextvars.copy_context()

        def run() -> T:
            return context.run(fn, *args, **kwargs)

        return super().submit(run)
