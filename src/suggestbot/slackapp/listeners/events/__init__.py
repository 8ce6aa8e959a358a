"""Events API, one module per feature: the Messages tab as a composer (``composer``, first:
it takes only that tab's events), replies in threads (``message``), the App Home tab
(``app_home_opened``); uninstalls and revoked tokens depend on how the app is installed
(``revocation`` for one workspace, ``uninstall`` for many)."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.events import composer, home, refining


def register(app: App, deps: Deps) -> None:
    composer.register(app, deps)
    refining.register(app, deps)
    home.register(app, deps)
