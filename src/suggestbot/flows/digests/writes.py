"""What the digest wave writes after posting: held for a round, then one commit per table.

Every commit costs an fsync (milliseconds on a real disk). Written one at a time, the records of
one digest (its delivery mark, the digest's own fields, the shared-post record, the thread
binding) cost more than the time Slack's one post per second per channel leaves each digest once
dozens of channels post at once. Holding them until the end of a round is safe: the deliveries
were claimed before posting, so a crash before :meth:`PendingWrites.flush` leaves claims without
marks, which the next wave settles by searching the channel's history
(:mod:`suggestbot.flows.digests.delivery`): correct, only slower.

:meth:`PendingWrites.flush` writes in the order that keeps every crash in between understood:

1. shared-post records and thread bindings, so replies in the new threads refine from now on (a
   round ends before its channels' next posts, about a second after its first);
2. delivery marks, so the next wave needs no history search;
3. the digests' own fields (last posted date, version, health); a mark without them is completed
   by the next wave.

The digests marked posted are then added to the wave's :class:`SentCounts`, which the wave
writes to the workspaces' usage once, when it ends (not one more commit per round).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from suggestbot.flows.common import usage
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration.sharing import SharedRoot, record_shared_many
from suggestbot.store.marks import DigestDelivery
from suggestbot.store.records import Digest

DigestChange = Callable[[Digest], Digest]


class SentCounts:
    """Digests posted in one wave per workspace, from every lane; written to the usage once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sent: Counter[str] = Counter()

    def add(self, sent: Counter[str]) -> None:
        """Count digests sent, by workspace (safe from every lane's thread)."""
        with self._lock:
            self._sent.update(sent)

    def write(self, deps: Deps) -> None:
        """Add what was counted so far to each workspace's usage, and start again from zero."""
        with self._lock:
            sent, self._sent = self._sent, Counter()
        for team_id, count in sent.items():
            usage.count(deps, team_id=team_id, digests=count)


class PendingWrites:
    """One round's after-post records of one worker; not shared between threads."""

    def __init__(self, deps: Deps, *, counts: SentCounts | None = None) -> None:
        self._deps = deps
        self._counts = counts
        self._roots: list[SharedRoot] = []
        self._marks: dict[str, DigestDelivery] = {}
        self._changes: dict[str, DigestChange] = {}
        self._sent: Counter[str] = Counter()

    def share(self, root: SharedRoot) -> None:
        """Record a posted root and bind its thread."""
        self._roots.append(root)

    def mark(self, key: str, record: DigestDelivery, *, team_id: str) -> None:
        """Mark a delivery handled (replacing its claim); a posted one counts as sent."""
        if record.state == "posted" and key not in self._marks:
            self._sent[team_id] += 1
        self._marks[key] = record

    def change_digest(self, digest_id: str, change: DigestChange) -> None:
        """Bring a digest up to date; two changes of one digest apply in the order given."""
        earlier = self._changes.get(digest_id)
        self._changes[digest_id] = change if earlier is None else _then(earlier, change)

    def flush(self) -> None:
        """Write everything held (see the module docstring for the order) and start afresh."""
        roots, marks, changes, sent = self._roots, self._marks, self._changes, self._sent
        self._roots, self._marks, self._changes, self._sent = [], {}, {}, Counter()
        record_shared_many(self._deps, roots)
        if marks:
            self._deps.records.digest_deliveries.put_many(marks)
        if changes:
            self._deps.records.digests.update_many(changes)
        if self._counts is not None and sent:
            self._counts.add(sent)


def _then(first: DigestChange, second: DigestChange) -> DigestChange:
    return lambda digest: second(first(digest))
