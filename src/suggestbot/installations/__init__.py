"""Installing the app in several Slack workspaces (OAuth), each with its own service tenant.

- :mod:`~suggestbot.installations.scope` — which workspace the current work serves;
- :mod:`~suggestbot.installations.store` — Slack installations, tokens encrypted at rest;
- :mod:`~suggestbot.installations.state` — the OAuth ``state`` parameter, signed and single-use;
- :mod:`~suggestbot.installations.tokens` — each workspace's bot token, rotated when it expires;
- :mod:`~suggestbot.installations.service` — each workspace's service credentials and client;
- :mod:`~suggestbot.installations.admin` (and ``admin_blocks``) — workspace admins set those
  credentials in App Home;
- :mod:`~suggestbot.installations.lifecycle` — cleaning up after an uninstall;
- :mod:`~suggestbot.installations.listeners` — the Bolt listeners of all this;
- :mod:`~suggestbot.installations.tenancy` — all of it wired for the Bolt app.

Single-workspace mode (``SLACK_BOT_TOKEN``) uses only the scope, to no effect. Nothing is
imported here, so that the flows can use :mod:`~suggestbot.installations.scope` without pulling
the rest in.
"""
