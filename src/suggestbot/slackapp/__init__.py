"""The Slack side of suggestbot: Bolt listeners, Block Kit builders and user-facing text."""
