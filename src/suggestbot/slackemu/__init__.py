"""A local Slack workspace for tests and the demo: Web API emulator plus a Slack-side driver.

- :class:`SlackEmulator` — users, channels, threads, ephemeral messages, modals, App Home and
  files behind a real HTTP server that answers like Slack's Web API (strict Block Kit checks,
  scopes, ``not_in_channel``, faults on demand).
- :class:`SlackDriver` — sends the app signed slash commands, events and interactions, and
  acts like a person in the Slack client (fills modals by label, presses buttons by text;
  opens the app's Messages tab, picks suggested prompts, presses feedback buttons, uses
  message shortcuts, runs workflow steps) and in a browser (installs the app through Slack's
  OAuth pages). Given the app's manifest, the emulator and driver do only what Slack does for
  that app (see ``manifest``).
- :class:`SlackCloud` — several emulated workspaces behind one address, for apps installed
  in more than one.

See ``tests/slackemu/test_example_app_pattern.py`` for the pattern an app test follows.
"""

from suggestbot.slackemu.browser import InstallResult
from suggestbot.slackemu.cloud import SlackCloud
from suggestbot.slackemu.driver import SlackDriver
from suggestbot.slackemu.emulator import SlackEmulator
from suggestbot.slackemu.errors import ApiError, ClientRejected, DriverError
from suggestbot.slackemu.faults import Faults
from suggestbot.slackemu.methods import DEFAULT_SCOPES, METHODS
from suggestbot.slackemu.model import APP_ID, BOT_ID, BOT_USER_ID, RecordedCall
from suggestbot.slackemu.oauth import OAuthApp
from suggestbot.slackemu.results import (
    ACK_DEADLINE_S,
    AppResponse,
    PostedMessage,
    RetriedDelivery,
    ViewSubmission,
    WorkflowStep,
)

__all__ = [
    "ACK_DEADLINE_S",
    "APP_ID",
    "BOT_ID",
    "BOT_USER_ID",
    "DEFAULT_SCOPES",
    "METHODS",
    "ApiError",
    "AppResponse",
    "ClientRejected",
    "DriverError",
    "Faults",
    "InstallResult",
    "OAuthApp",
    "PostedMessage",
    "RecordedCall",
    "RetriedDelivery",
    "SlackCloud",
    "SlackDriver",
    "SlackEmulator",
    "ViewSubmission",
    "WorkflowStep",
]
