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
   by the next wave;
4. the workspaces' usage counts (digests sent), one write per workspace and round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from suggestbot.flows import usage
from suggestbot.flows.deps import Deps
from suggestbot.flows.inspiration import SharedRoot, record_shared_many
from suggestbot.store.marks import DigestDelivery
from suggestbot.store.records import Digest

DigestChange = Callable[[Digest], Digest]


class PendingWrites:
    """One round's after-post records of one worker; not shared between threads."""

    def __init__(self, deps: Deps) -> None:
        self._deps = deps
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
        for team_id, count in sent.items():
            usage.count(self._deps, team_id=team_id, digests=count)


def _then(first: DigestChange, second: DigestChange) -> DigestChange:
    return lambda digest: second(first(digest))
