"""Deferred work: watching runs, delayed submissions (and, later, digests).

The store is the source of truth; the scheduler only holds timers, rebuilt from the store at
start (:func:`suggestbot.jobs.recovery.resume_all`), so a restart loses nothing.
"""
