"""Installing the app in several Slack workspaces (OAuth), each with its own service tenant.

- :mod:`~suggestbot.installations.scope` — which workspace the current work serves;
- :mod:`~suggestbot.installations.store` — Slack installations, tokens encrypted at rest;
- :mod:`~suggestbot.installations.state` — the OAuth ``state`` parameter, signed and single-use;
- :mod:`~suggestbot.installations.tokens` — each workspace's bot token, rotated when it expires;
- :mod:`~suggestbot.installations.service` — each workspace's service credentials and client;
- :mod:`~suggestbot.installations.admin` — workspace admins set those credentials in App Home
  (its Block Kit is in :mod:`suggestbot.ui.blocks.admin`);
- :mod:`~suggestbot.installations.lifecycle` — cleaning up after an uninstall;

The Bolt listeners of all this (:mod:`suggestbot.slackapp.listeners.installations`) and its
wiring into the Bolt app (:mod:`suggestbot.slackapp.tenancy`) are at the Slack edge, so nothing
here imports ``slackapp``.

Single-workspace mode (``SLACK_BOT_TOKEN``) uses only the scope, to no effect. Nothing is
imported here, so that the flows can use :mod:`~suggestbot.installations.scope` without pulling
the rest in.
"""
