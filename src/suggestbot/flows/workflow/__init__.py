"""The Workflow Builder step "Generate content suggestions": a brief sent from a
workflow, and the step completed wherever its request ends."""

__all__ = ["completion"]
