"""What the user sees, built without I/O: the en/de text catalogue, Block Kit builders, payload
extractors and reply parsing. Pure, so the flows and the Slack edge share it and tests read it
directly."""
