"""A person's recent threads and runs: ``/suggest threads``, ``/suggest runs``, [More], and a
thread's or a run's history. None of these changes anything."""

from __future__ import annotations

from collections.abc import Callable

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.lists import histories
from suggestbot.flows.lists import listing as lists
from suggestbot.slackapp.edge.declaration import Action, Command, CommandGiven, Input, Press
from suggestbot.slackapp.inputs.help import COMMAND
from suggestbot.slackapp.inputs.linking import connect_first
from suggestbot.ui.blocks import ids


def _show(kind: str) -> Callable[[Deps, CommandGiven], None]:
    def show(deps: Deps, given: CommandGiven) -> None:
        if connect_first(deps, given):
            return
        lists.show(
            deps,
            kind=kind,
            team_id=given.team_id,
            user_id=given.user_id,
            channel_id=given.channel_id,
            response_url=given.response_url,
        )

    return show


def _more(deps: Deps, press: Press) -> None:
    lists.more(
        deps,
        value=press.value,
        team_id=press.team_id,
        user_id=press.user_id,
        channel_id=press.channel_id or press.user_id,
        response_url=press.response_url,
    )


def _thread_history(deps: Deps, press: Press) -> None:
    assert press.trigger_id is not None
    histories.open_thread_history(
        deps,
        trigger_id=press.trigger_id,
        team_id=press.team_id,
        user_id=press.user_id,
        thread_id=press.value,
    )


def _run_history(deps: Deps, press: Press) -> None:
    assert press.trigger_id is not None
    histories.open_run_history(
        deps,
        trigger_id=press.trigger_id,
        team_id=press.team_id,
        user_id=press.user_id,
        run_id=press.value,
    )


INPUTS: list[Input] = [
    Input("threads", Command(COMMAND, "threads"), run=_show(lists.THREADS), read_only=True),
    Input("runs", Command(COMMAND, "runs"), run=_show(lists.RUNS), read_only=True),
    Input("list_more", Action(ids.ACTION_LIST_MORE), run=_more, read_only=True),
    Input(
        "thread_history",
        Action(ids.ACTION_THREAD_HISTORY),
        run=_thread_history,
        read_only=True,
        opens_modal=True,
    ),
    Input(
        "run_history",
        Action(ids.ACTION_RUN_HISTORY),
        run=_run_history,
        read_only=True,
        opens_modal=True,
    ),
]
