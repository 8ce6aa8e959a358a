"""suggestbot: a Slack app for a Content Suggestion Service."""

__version__ = "0.1.0"
