"""The Slack edge of suggestbot: the Bolt app, its HTTP adapter and the listeners."""
