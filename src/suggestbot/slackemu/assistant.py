"""What Slack keeps for the AI-app surfaces: a thread's status line, suggested prompts, titles.

The status line (``assistant.threads.setStatus``) shows under a thread while the app works.
Slack clears it when the app sets an empty status or posts its reply in that thread, and lets
it lapse on its own two minutes after it was last set ("A two minute timeout applies, which
will cause the status to be removed if no message has been sent" — method reference), so an
app that works longer must renew it. Every change is kept in a history so tests can see what a
person saw and when it went away.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STATUS_LIFETIME_S = 120.0

ThreadKey = tuple[str, str]  # (conversation id, thread root ts)


@dataclass(frozen=True)
class StatusChange:
    """One change of a thread's status line; ``cause`` is set, cleared, reply or lapsed."""

    at: float
    cause: str
    status: str = ""
    loading_messages: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "cause": self.cause,
            "status": self.status,
            "loading_messages": list(self.loading_messages),
        }


@dataclass
class ThreadStatus:
    history: list[StatusChange] = field(default_factory=list)

    @property
    def showing(self) -> StatusChange | None:
        last = self.history[-1] if self.history else None
        return last if last is not None and last.cause == "set" else None

    def settle(self, now: float) -> None:
        """Record the lapse of a status nobody renewed (evaluated whenever it is looked at)."""
        shown = self.showing
        if shown is not None and now - shown.at > STATUS_LIFETIME_S:
            self.history.append(StatusChange(at=shown.at + STATUS_LIFETIME_S, cause="lapsed"))


@dataclass(frozen=True)
class SuggestedPrompts:
    title: str | None
    prompts: tuple[tuple[str, str], ...]  # (title, message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "prompts": [{"title": t, "message": m} for t, m in self.prompts],
        }


class AssistantState:
    """Status lines, suggested prompts and thread titles of one workspace."""

    def __init__(self) -> None:
        self.statuses: dict[ThreadKey, ThreadStatus] = {}
        # (conversation id, thread root ts or None for the whole Messages tab) -> prompts
        self.prompts: dict[tuple[str, str | None], SuggestedPrompts] = {}
        self.titles: dict[ThreadKey, list[str]] = {}

    def set_status(
        self, key: ThreadKey, *, status: str, loading_messages: tuple[str, ...], now: float
    ) -> None:
        thread = self.statuses.setdefault(key, ThreadStatus())
        thread.settle(now)
        if status:
            thread.history.append(StatusChange(now, "set", status, loading_messages))
        elif thread.showing is not None:
            thread.history.append(StatusChange(now, "cleared"))

    def app_replied(self, key: ThreadKey, *, now: float) -> None:
        """The app posted in the thread: Slack removes the status line."""
        thread = self.statuses.get(key)
        if thread is None:
            return
        thread.settle(now)
        if thread.showing is not None:
            thread.history.append(StatusChange(now, "reply"))

    def current(self, key: ThreadKey, *, now: float) -> StatusChange | None:
        thread = self.statuses.get(key)
        if thread is None:
            return None
        thread.settle(now)
        return thread.showing

    def history(self, key: ThreadKey, *, now: float) -> list[StatusChange]:
        thread = self.statuses.get(key)
        if thread is None:
            return []
        thread.settle(now)
        return list(thread.history)
