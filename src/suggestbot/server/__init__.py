"""Running the app as a process: the ``serve`` command, the composition root that builds every
part from one Settings object, the health probe, the built-in sandbox for trying the app, and
the helper that serves an ASGI app from a thread.

Nothing is imported here, so the stand-ins can use :mod:`~suggestbot.server.asgi_thread`
without pulling in the app.
"""
