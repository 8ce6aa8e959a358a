"""What every feature shares: the ports (``Deps``), telling a person, posting and pacing,
a run request's lifecycle, thread bindings, who owns what, usage and language.

Every feature may import any module here; nothing here imports a feature's internals.
"""
