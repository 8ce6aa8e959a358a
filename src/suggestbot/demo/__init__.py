"""``suggestbot demo``: the whole product on the built-in sandbox and Slack emulator.

Starts both on loopback, runs the real app against them in HTTP mode, and drives a scripted
session as a person would. Prints the conversation as it happens, writes a self-contained HTML
transcript, and exits 0 only if every step did what it should.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from suggestbot.demo.html import render_html
from suggestbot.demo.session import Session, StepFailed
from suggestbot.demo.stage import ALICE, BRUNO, CAROL, BrokenImages, Stage
from suggestbot.demo.steps import STEPS, channel_language
from suggestbot.logs import configure_logging
from suggestbot.ui.messages import PSEUDO, SLACK_LOCALES, SOURCE, language_of

DEFAULT_HTML = "demo-transcript.html"
LANGUAGE_STEP = ("Alice, an admin, sets the language of channel posts on Home", channel_language)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="suggestbot demo", description=__doc__)
    parser.add_argument("--html", default=DEFAULT_HTML, help="where to write the HTML transcript")
    parser.add_argument(
        "--keep-running", action="store_true", help="leave the sandbox and the app up afterwards"
    )
    parser.add_argument("--log-level", default="WARNING", help="app log level (default WARNING)")
    parser.add_argument(
        "--locale",
        help="everyone's Slack locale, and the workspace's language (an admin picks it first): "
        f"one of {', '.join(demo_locales())}, or 'pseudo' (accented, 40 %% longer)",
    )
    args = parser.parse_args(argv)
    if args.locale is not None and args.locale not in (*demo_locales(), PSEUDO):
        parser.error(f"--locale {args.locale}: no enabled catalogue reads it")
    configure_logging(level=args.log_level)
    logging.getLogger("suggestbot").setLevel(args.log_level)

    with tempfile.TemporaryDirectory(prefix="suggestbot-demo-") as data:
        stage = Stage(data_dir=Path(data), time_factor=0.05, poll_scale=0.05, locale=args.locale)
        try:
            with stage:
                session = Session(stage=stage)
                steps = STEPS if args.locale is None else [LANGUAGE_STEP, *STEPS]
                steps_ok = _run(session, steps)
                ok = _images_loaded(session, stage) and steps_ok
                _write_html(session, stage, Path(args.html))
                if args.keep_running:
                    _keep_running(session, stage)
        except BrokenImages:
            ok = False  # each one is listed above
    return 0 if ok else 1


def demo_locales() -> list[str]:
    """The Slack locales whose catalogue is enabled (``--locale``)."""
    return [
        locale for locale in SLACK_LOCALES if language_of(locale) != SOURCE or locale == "en-US"
    ]


def _run(session: Session, steps: list[tuple[str, Callable[[Session], Any]]]) -> bool:
    session.say("suggestbot demo — the app against the built-in sandbox and Slack emulator")
    session.say(f"  sandbox (content service): {session.stage.sandbox_url}")
    session.say(f"  Slack emulator:            {session.stage.emu.url}")
    failed = 0
    for number, (title, step) in enumerate(steps, start=1):
        session.say(f"\n[{number}/{len(steps)}] {title}")
        started = time.monotonic()
        try:
            step(session)
        except (StepFailed, TimeoutError) as exc:
            failed += 1
            session.say(f"  ✗ FAILED: {exc}")
            continue
        session.say(f"  ✓ done in {time.monotonic() - started:.1f} s")
    session.say(f"\n{len(steps) - failed} of {len(steps)} steps worked.")
    return failed == 0


def _images_loaded(session: Session, stage: Stage) -> bool:
    """Every image URL the app posted was fetched as Slack fetches it; all must have loaded."""
    fetched, broken = stage.images_fetched(), stage.broken_images()
    if broken:
        session.say(f"✗ of {fetched} image URLs the app posted, these did not load:")
        for line in broken:
            session.say(f"  {line}")
        return False
    session.say(f"Images: {fetched} image URLs the app posted were fetched; all loaded (200).")
    return True


def _write_html(session: Session, stage: Stage, path: Path) -> None:
    names = {ALICE: "alice", BRUNO: "bruno", CAROL: "carol", stage.channel: "marketing"}

    def fetch(url: str) -> bytes | None:
        try:
            response = httpx.get(url, timeout=5)
        except httpx.HTTPError:
            return None
        return response.content if response.status_code == 200 else None

    page = render_html(
        title="suggestbot demo transcript", scenes=session.scenes, names=names, fetch=fetch
    )
    path.write_text(page, encoding="utf-8")
    session.say(f"HTML transcript: {path.resolve()}")


def _keep_running(session: Session, stage: Stage) -> None:
    session.say("\nStill running (Ctrl-C to stop):")
    session.say(f"  sandbox:  {stage.sandbox_url}  (admin key: {stage.sandbox.admin_key})")
    session.say(f"  Slack API emulator: {stage.emu.api_url}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        session.say("stopping")
