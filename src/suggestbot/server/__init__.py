"""Running the app as a process: the ``serve`` command, the composition root that builds every
part from one Settings object, the health probe, and the built-in sandbox for trying the app.
"""
