"""What one digest wave costs: service calls, Slack calls, time, and the highest post rate.

Builds the whole product on loopback (sandbox, Slack emulator, the app), subscribes N channels
to digests that share a few (segment, use case) pairs, and runs one wave at a fake 09:00. The
emulator enforces Slack's one message per second per channel; ``--per-channel 2`` gives every
channel two digests at the same minute, so pacing has to spread them.

Usage: python bench/digest_wave.py [--channels 50] [--pairs 2] [--per-channel 1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from suggestbot.demo.stage import ALICE, Stage
from suggestbot.flows.digests.wave import run_wave
from suggestbot.store.records import WEEKDAYS, Digest

# Monday 7 January 2030, 09:00 in Berlin.
NINE_AM = datetime(2030, 1, 7, 8, 0, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=50)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--per-channel", type=int, default=1)
    args = parser.parse_args()

    with (
        tempfile.TemporaryDirectory() as tmp,
        Stage(
            data_dir=Path(tmp) / "data",
            check_images=False,  # as when the figures were recorded
        ) as stage,
    ):
        demo = stage.sandbox.demo
        assert demo is not None and stage.runtime is not None
        deps = stage.runtime.deps
        segment_id, segment = next((i, n) for n, i in demo.primary.segments.items())
        use_cases = [(i, n) for n, i in demo.primary.use_cases.items()][: args.pairs]
        stage.emu.faults.enforce_post_rate(1.0)
        channels = []
        for n in range(args.channels):
            channel = stage.emu.add_channel(f"bench-{n}", members=[ALICE])
            stage.emu.invite_bot(channel)
            channels.append(channel)
        created = (NINE_AM - timedelta(days=1)).timestamp()
        for n, channel in enumerate(channels):
            for k in range(args.per_channel):
                use_case_id, use_case = use_cases[(n + k) % len(use_cases)]
                digest = Digest(
                    team_id=stage.emu.team_id,
                    channel_id=channel,
                    created_by=ALICE,
                    segment_id=segment_id,
                    use_case_id=use_case_id,
                    segment_name=segment,
                    use_case_name=use_case,
                    time="09:00",
                    tz="Europe/Berlin",
                    weekdays=list(WEEKDAYS),
                    created_at=created,
                    active_since=created,
                )
                deps.records.digests.put(digest.id, digest)
        deps.catalog()  # the token exchange and catalogue read happen before, as in a live app
        stage.sandbox.counters.reset()
        calls_before = len(stage.emu.calls())

        started = time.perf_counter()
        report = run_wave(deps, now=NINE_AM)
        elapsed = time.perf_counter() - started

        service = stage.sandbox.counters.snapshot()
        slack = Counter(c.method for c in stage.emu.calls()[calls_before:])
        refused = sum(
            1
            for c in stage.emu.calls("chat.postMessage")[-sum(slack.values()) :]
            if c.status == 429
        )
        rates = stage.emu.faults.max_post_rates()
        print(f"digests due             {report.due} in {args.channels} channels")
        print(f"distinct pairs          {len(use_cases)}")
        print(f"inspiration reads       {service.get('GET /v1/inspiration', 0)}")
        print(f"URL mint calls          {service.get('POST /v1/assets/urls', 0)}")
        print(f"all service calls       {sum(service.values())} {dict(service)}")
        print(f"Slack calls             {sum(slack.values())} {dict(slack)}")
        print(f"429 answers             {refused}")
        print(f"posted / failed         {report.posted} / {report.failed}")
        print(f"highest rate, 1 channel {max(rates[c] for c in channels)} per second")
        print(f"wave took               {elapsed:.2f} s")


if __name__ == "__main__":
    main()
