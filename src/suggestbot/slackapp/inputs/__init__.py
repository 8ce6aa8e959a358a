"""Every Slack input the app takes, one module per feature, each declared once
(:class:`~suggestbot.slackapp.edge.declaration.Input`): its command, buttons, modals and
events, with what it reads and what it does.

To add an input, declare it in its feature's module (or a new module listed here); the edge
(:mod:`suggestbot.slackapp.edge`) registers it with Bolt, records it before its ack unless it
is read-only, and carries it out again after a crash.
"""

from __future__ import annotations

from typing import Any

from suggestbot.installations.service import ContentClients
from suggestbot.slackapp.edge.declaration import Input
from suggestbot.slackapp.edge.inputs import Inputs
from suggestbot.slackapp.inputs import (
    brief,
    composer,
    digests,
    drafts,
    feedback,
    help,
    home,
    inspiration,
    linking,
    lists,
    refine,
    rename,
    workflow,
    workspace,
)

# In order: a command's word-for-anything (``help``'s) comes last of the command's, and the
# Messages tab's events (``composer``) before the thread replies (``refine``) and the Home tab.
FEATURES = (
    linking,
    brief,
    drafts,
    lists,
    inspiration,
    digests,
    composer,
    refine,
    rename,
    feedback,
    home,
    workspace,
    workflow,
    help,
)


def shared() -> list[Input[Any]]:
    """The inputs both install modes take."""
    return [declared for feature in FEATURES for declared in feature.INPUTS]


def one_workspace() -> Inputs:
    """Every input of a single-workspace install (``SLACK_BOT_TOKEN``)."""
    return Inputs([*workspace.for_one_workspace(), *shared()])


def many_workspaces(*, installations: Any, contents: ContentClients) -> Inputs:
    """Every input of an install in many workspaces (OAuth)."""
    mode = workspace.for_many_workspaces(installations=installations, contents=contents)
    return Inputs([*mode, *shared()])
