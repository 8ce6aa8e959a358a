"""The whole product on loopback: the sandbox, the Slack emulator and the real app between them.

``suggestbot demo``, the end-to-end tests and the benchmarks all need the same set-up, wired
exactly as production is (the app reaches the service and Slack over HTTP, Slack reaches the
app over signed HTTP), so it lives here once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.config import Settings
from suggestbot.sandbox import Demo, Sandbox
from suggestbot.sandbox.faults import RunTiming
from suggestbot.sandbox.server import SandboxServer
from suggestbot.server.composition import Runtime
from suggestbot.slackapp.http import EVENTS_PATH, build_http_app
from suggestbot.slackapp.manifest import app_manifest
from suggestbot.slackemu import SlackDriver, SlackEmulator
from suggestbot.store import generate_key
from suggestbot.store.records import WorkspaceLanguage
from suggestbot.ui.messages import PSEUDO, SOURCE, language_of, t, tn

SIGNING_SECRET = "stage-signing-secret-0123456789"

ALICE = "U0ALICE"
BRUNO = "U0BRUNO"
CAROL = "U0CAROL"
# The Slack locale the emulator gives each stage user, and the language each reads by default.
LOCALES = {ALICE: "en-US", BRUNO: "de-DE", CAROL: "en-GB"}
LANGS = {user: language_of(locale) for user, locale in LOCALES.items()}
# What channels read until an admin picks a language: a single-workspace app (the stage's) has
# no installer on record whose locale would be the default.
CHANNEL_LANG = SOURCE


def catalogue_of(locale: str) -> str:
    """The catalogue a stage run in Slack locale ``locale`` reads (``pseudo``: the pseudo one)."""
    return PSEUDO if locale == PSEUDO else language_of(locale)


class Stage:
    """Start with :meth:`start` (or ``with Stage(...) as stage``); everything stops on exit.

    Args:
        data_dir: where the app keeps its store (survives :meth:`restart_app`).
        time_factor: the sandbox's clock speed-up (0.01: a 10-minute attempt limit is 6 s).
        poll_scale: multiplies the app's poll delays (0.01: the 10 s poll is 0.1 s).
        run_timing: how long runs wait and run in the sandbox, before ``time_factor``.
        crash_point: called at named points of the flows; tests raise there to "kill" the app.
        database_url: keep the store in this PostgreSQL database (at the newest schema)
            instead of the SQLite file in ``data_dir``.
        check_images: fetch every ``image_url`` the app posts, as Slack does (a post whose
            image does not load is refused, and leaving the stage fails); the benchmarks turn
            it off to keep their figures comparable with those recorded.
        locale: every person's Slack locale (``ja-JP``, or ``pseudo``), and the workspace's
            language once an admin sets it; None: each their own (:data:`LOCALES`), English.
    """

    def __init__(
        self,
        *,
        data_dir: Path,
        time_factor: float = 0.01,
        poll_scale: float = 0.01,
        run_timing: RunTiming | None = None,
        crash_point: Callable[[str], None] | None = None,
        database_url: str | None = None,
        check_images: bool = True,
        locale: str | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.locale = locale
        self.locales = {user: locale or default for user, default in LOCALES.items()}
        # What channels read: English until an admin picks the workspace's language.
        self.channel_lang = CHANNEL_LANG
        self.database_url = database_url
        self.poll_scale = poll_scale
        self.crash_point = crash_point
        self.sandbox = Sandbox(time_factor=time_factor)
        self.sandbox.faults.run_timing = run_timing or RunTiming(
            queued_s=2.0, running_s=5.0, precompute_s=2.0
        )
        # The app's own manifest (manifest.yml, as the package carries it): only its scopes,
        # events, shortcuts and Messages tab, so a call or a surface it does not declare fails
        # here as in Slack.
        self.emu = SlackEmulator(manifest=app_manifest(), check_image_urls=check_images)
        self.secret_keys = generate_key()
        self._sandbox_server: SandboxServer | None = None
        self._app_server: BackgroundServer | None = None
        self._app_port = 0
        self.runtime: Runtime | None = None
        self.driver: SlackDriver | None = None
        self.channel = ""
        self.quiet_channel = ""

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Self:
        self._sandbox_server = self.sandbox.serve()
        self.emu.start()
        locales = self.locales
        self.emu.add_user(ALICE, "alice", locale=locales[ALICE], tz="Europe/Berlin", is_admin=True)
        self.emu.add_user(BRUNO, "bruno", locale=locales[BRUNO], tz="Europe/Berlin")
        self.emu.add_user(CAROL, "carol", locale=locales[CAROL], tz="Europe/London")
        self.channel = self.emu.add_channel("marketing", members=[ALICE, BRUNO, CAROL])
        self.emu.invite_bot(self.channel)
        self.quiet_channel = self.emu.add_channel("no-bot-here", members=[ALICE])
        self.start_app()
        return self

    @property
    def sandbox_url(self) -> str:
        assert self._sandbox_server is not None
        return self._sandbox_server.url

    @property
    def demo(self) -> Demo:
        demo = self.sandbox.demo
        assert demo is not None, "the stage's sandbox is seeded"
        return demo

    def settings(self) -> Settings:
        demo = self.demo
        return Settings(
            _env_file=None,
            slack_bot_token=self.emu.bot_token,
            slack_signing_secret=SIGNING_SECRET,
            slack_api_url=self.emu.api_url,
            content_api_url=self.sandbox_url,
            content_client_id=demo.client_id,
            content_client_secret=demo.client_secret,
            suggestbot_secret_keys=self.secret_keys,
            suggestbot_data_dir=self.data_dir,
            suggestbot_database_url=self.database_url,
        )

    def start_app(self) -> Runtime:
        """Start (or start again) the app on the same port, from the same store."""
        runtime = Runtime(
            self.settings(), poll_scale=self.poll_scale, crash_point=self.crash_point
        ).start()
        server = BackgroundServer(
            build_http_app(
                runtime.app, health=runtime.health, gate=runtime.gate, ready=runtime.ready
            ),
            port=self._app_port,
            name="app",
        ).start()
        self._app_port = server.port
        self.runtime, self._app_server = runtime, server
        if self.driver is None:
            self.driver = SlackDriver(
                self.emu, app_url=server.url + EVENTS_PATH, signing_secret=SIGNING_SECRET
            )
        return runtime

    def stop_app(self, *, graceful: bool = True) -> None:
        """Stop the app; ``graceful=False`` drops timers and queued work as a killed process would
        (the store keeps only what was committed)."""
        if self._app_server is not None:
            self._app_server.stop()
            self._app_server = None
        if self.runtime is not None:
            if graceful:
                self.runtime.stop()
            else:
                self.runtime.abandon()
            self.runtime = None

    def restart_app(self, *, graceful: bool = True) -> Runtime:
        self.stop_app(graceful=graceful)
        return self.start_app()

    def stop(self) -> None:
        if self.driver is not None:
            self.driver.close()
            self.driver = None
        # The app first: work it lets finish may still call Slack and the service.
        self.stop_app()
        # Then both stand-ins at once: each server takes a few uvicorn ticks to wind down.
        sandbox_server, self._sandbox_server = self._sandbox_server, None
        stopping = threading.Thread(target=self.emu.stop, name="stage-stop-emulator")
        stopping.start()
        try:
            if sandbox_server is not None:
                sandbox_server.stop()
        finally:
            stopping.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.stop()
        broken = self.broken_images()
        if exc_type is None and broken:
            raise BrokenImages("images the app posted did not load:\n" + "\n".join(broken))

    # ------------------------------------------------------------------ images

    def images_fetched(self) -> int:
        """How many image URLs in the app's posts were fetched (as Slack does on posting)."""
        return len(self.emu.image_checks())

    def broken_images(self) -> list[str]:
        """Each image URL in the app's posts that did not load (once), without its signature."""
        lines = [f"{url.split('?', 1)[0]}: {why}" for url, why in self.emu.image_checks() if why]
        return list(dict.fromkeys(lines))

    # ------------------------------------------------------------------ what people read

    def lang(self, user_id: str | None = None) -> str:
        """The language ``user_id`` reads what only they see in; None: what channels read."""
        if user_id is None:
            return self.channel_lang
        with self.emu.ws.lock:  # whoever the emulator knows, with the locale it gives them
            return catalogue_of(self.emu.ws.user(user_id).locale)

    def set_channel_language(self, lang: str) -> None:
        """What an admin's pick on Home does, for a language no Home offers (the pseudo one)."""
        assert self.runtime is not None
        chosen = WorkspaceLanguage(lang=lang, set_by=ALICE)
        self.runtime.deps.records.workspace_languages.put(self.emu.team_id, chosen)
        self.channel_lang = lang

    def says(self, user_id: str | None, key: str, /, **values: Any) -> str:
        """The app's sentence ``key`` as ``user_id`` (None: the channel) reads it."""
        return t(key, self.lang(user_id), **values)

    def says_n(self, user_id: str | None, key: str, /, *, count: int, **values: Any) -> str:
        return tn(key, self.lang(user_id), count=count, **values)

    # ------------------------------------------------------------------ acting as people

    @property
    def slack(self) -> SlackDriver:
        assert self.driver is not None
        return self.driver

    def user_token(self) -> str:
        """A fresh personal token of the demo tenant (what a user would paste)."""
        _, token = self.sandbox.create_user_token(self.demo.tenant_id)
        return token

    def connect(self, user_id: str, token: str | None = None) -> None:
        """``/suggest connect``, paste a token, submit, and wait for the app to say it worked."""
        self.slack.slash_command(user_id, self.channel, "connect")
        wait_for(lambda: self.emu.current_view(user_id) is not None, what="the connect modal")
        view = self.emu.current_view(user_id) or {}
        label = next(b["label"]["text"] for b in view["blocks"] if b["type"] == "input")
        before = len(self.emu.ephemerals(user_id))
        self.slack.submit_view(user_id, {label: token or self.user_token()})
        wait_for(
            lambda: (
                len(self.emu.ephemerals(user_id)) > before
                and _words(self.says(user_id, "connect.done"))
                in self.emu.ephemeral_transcript(user_id)
            ),
            what="the account to be connected",
            detail=lambda: self.emu.ephemeral_transcript(user_id),
        )

    def brief(
        self,
        user_id: str,
        text: str,
        *,
        variants: int = 1,
        channel: str | None = None,
        segment: str | None = None,
        use_case: str | None = None,
    ) -> Any:
        """``/suggest brief`` through the modal; returns the app's answer to the submission."""
        self.slack.slash_command(user_id, channel or self.channel, "brief")
        wait_for(
            lambda: (
                (self.emu.current_view(user_id) or {}).get("callback_id") == "brief"
                and (self.emu.current_view(user_id) or {}).get("submit") is not None
            ),
            what="the brief modal",
        )
        demo = self.demo.primary
        lang = self.lang(user_id)
        values: dict[str, Any] = {
            t("brief.segment", lang): segment or next(iter(demo.segments)),
            t("brief.use_case", lang): use_case or next(iter(demo.use_cases)),
            t("brief.text", lang): text,
            t("brief.variants", lang): str(variants),
        }
        return self.slack.submit_view(user_id, values)


class BrokenImages(AssertionError):
    """An image the app posted did not load where Slack would fetch it."""


def _words(sentence: str) -> str:
    """A sentence without its leading ``:emoji:`` (transcripts show emoji as they please)."""
    return sentence.split(": ", 1)[-1] if sentence.startswith(":") else sentence


def wait_for(
    condition: Callable[[], Any],
    *,
    timeout: float = 30.0,
    what: str = "it",
    detail: Callable[[], str] | None = None,
) -> Any:
    """Poll ``condition`` until it is truthy (the app acks first and works after).

    ``detail`` says what was seen instead, for the error when time runs out.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if isinstance(result, Iterator):
            # An iterator is true even when empty: the wait would end at once.
            raise TypeError(f"the condition for {what} gave an iterator; wait for a list of it")
        if result:
            return result
        if time.monotonic() > deadline:
            seen = f"; saw:\n{detail()}" if detail else ""
            raise TimeoutError(f"waited {timeout:.0f} s for {what}{seen}")
        time.sleep(0.02)
