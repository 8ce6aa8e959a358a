"""A contract-faithful local Content Suggestion Service (``suggestbot sandbox``).

Used by the demo, every end-to-end test and anyone without credentials. It is as strict as the
contract (``shared/content-service-api.md``) and can misbehave on purpose (:class:`Faults`).
It writes its own wire models and never imports ``suggestbot.contentapi``.

Typical use::

    sandbox = Sandbox(time_factor=0.01)
    with sandbox.serve() as server:
        ...  # server.url, sandbox.demo.client_id, sandbox.faults.short_pages = 1
"""

from suggestbot.sandbox.admin import ADMIN_KEY_HEADER
from suggestbot.sandbox.core import Sandbox
from suggestbot.sandbox.env import RequestCounters
from suggestbot.sandbox.faults import Faults, InjectedError, RateLimit, RunTiming
from suggestbot.sandbox.seed import DEMO, Demo, DemoTenant
from suggestbot.sandbox.server import SandboxServer

__all__ = [
    "ADMIN_KEY_HEADER",
    "DEMO",
    "Demo",
    "DemoTenant",
    "Faults",
    "InjectedError",
    "RateLimit",
    "RequestCounters",
    "RunTiming",
    "Sandbox",
    "SandboxServer",
]
