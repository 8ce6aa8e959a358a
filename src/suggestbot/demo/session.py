"""A scripted session on the stage: steps a person would take, checked, shown, recorded."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from suggestbot.demo.html import Scene
from suggestbot.demo.stage import Stage
from suggestbot.slackemu.transcript import blocks_lines


class StepFailed(Exception):
    """A step did not do what a person would expect; the demo then exits non-zero."""


@dataclass
class Session:
    stage: Stage
    out: TextIO = sys.stdout
    scenes: list[Scene] = field(default_factory=list)
    timeout_s: float = 30.0

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def show(self, transcript: str) -> None:
        for line in transcript.splitlines():
            self.say("    " + line)

    def show_message(self, message: dict[str, Any]) -> None:
        """One message as a person reads it (author, then its blocks)."""
        author = "suggestbot (app)" if message.get("bot_id") else str(message.get("user", "?"))
        self.say(f"    {author}:")
        for line in blocks_lines(message.get("blocks") or []) or [str(message.get("text", ""))]:
            self.say("        " + line)

    def wait(
        self,
        condition: Callable[[], Any],
        *,
        what: str,
        progress: Callable[[], str] | None = None,
    ) -> Any:
        """Wait for ``condition``; print ``progress()`` each time it changes (runs in flight)."""
        deadline = time.monotonic() + self.timeout_s
        last = None
        while True:
            result = condition()
            if result:
                return result
            if progress is not None:
                now = progress()
                if now and now != last:
                    self.say(f"      … {now}")
                    last = now
            if time.monotonic() > deadline:
                raise StepFailed(f"waited {self.timeout_s:.0f} s for {what}")
            time.sleep(0.05)

    def record(
        self,
        title: str,
        *,
        channel: str,
        thread_of: str | None = None,
        replies: bool = True,
        statuses: dict[str, str] | None = None,
        prompts: list[str] | None = None,
    ) -> None:
        """Keep what a channel (and one message's thread) looks like now, for the HTML page."""
        emu = self.stage.emu
        messages = emu.messages(channel)
        if thread_of is not None:
            messages = [m for m in messages if m["ts"] == thread_of]
        threads = (
            {m["ts"]: emu.messages(channel, thread_ts=m["ts"])[1:] for m in messages}
            if replies
            else {}
        )
        self.scenes.append(
            Scene(
                title=title,
                messages=messages,
                replies=threads,
                statuses=statuses or {},
                prompts=prompts or [],
            )
        )
