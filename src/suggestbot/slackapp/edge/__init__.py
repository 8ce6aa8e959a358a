"""The Slack edge's plumbing, shared by every input: what an input is (``declaration``), the
table of an app's inputs (``inputs``), how a delivery is taken in — matched, recorded before
the ack, acked, worked on (``take``, ``background``) — and carried out again after a crash
(``record``), how to answer the person (``answer``), and the middleware every delivery passes
(``text_guard``, ``store_outage``, ``workspace_scope``). The inputs themselves are declared in
:mod:`suggestbot.slackapp.inputs`."""
