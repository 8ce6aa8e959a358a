"""The Messages tab as a composer: suggested prompts, a brief in plain words sent with
one click's worth of choices."""

__all__: list[str] = []
