"""Installing the app in several Slack workspaces (OAuth), each with its own service tenant.

- :mod:`~suggestbot.installations.scope` — which workspace the current work serves;
- :mod:`~suggestbot.installations.store` — Slack installations, tokens encrypted at rest;
- :mod:`~suggestbot.installations.state` — the OAuth ``state`` parameter, signed and single-use;
- :mod:`~suggestbot.installations.tokens` — each workspace's bot token, rotated when it expires;
- :mod:`~suggestbot.installations.token_cache` — those tokens, kept in memory for a few seconds;
- :mod:`~suggestbot.installations.service` — each workspace's service credentials and client.

What is done with them lives above: admins set the service credentials in App Home
(:mod:`suggestbot.flows.workspace.admin`), an uninstall is cleaned up after
(:mod:`suggestbot.flows.workspace.uninstall`), the Bolt listeners of all this
(:func:`suggestbot.slackapp.inputs.workspace.for_many_workspaces`) and its wiring into the Bolt app
(:mod:`suggestbot.slackapp.tenancy`) are at the Slack edge. Nothing here imports the flows, the
UI or ``slackapp``.

Single-workspace mode (``SLACK_BOT_TOKEN``) uses only the scope, to no effect. Nothing is
imported here, so that the flows can use :mod:`~suggestbot.installations.scope` without pulling
the rest in.
"""
