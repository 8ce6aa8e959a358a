"""Demo steps around a result: the gallery's Copy text, feedback and the usage panel, and the
Workflow Builder step."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from suggestbot.demo.html import Scene
from suggestbot.demo.session import Session, StepFailed
from suggestbot.demo.stage import ALICE, CAROL, Stage
from suggestbot.slackemu.results import AppResponse
from suggestbot.slackemu.transcript import blocks_lines
from suggestbot.ui.messages import percent, tn


def _first_thread(stage: Stage) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The first brief's gallery and its variants."""
    root = stage.emu.messages(stage.channel)[0]
    replies = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
    galleries = [m for m in replies if (m.get("blocks") or [{}])[0].get("type") == "carousel"]
    if not galleries:
        raise StepFailed("the brief's thread does not open with a gallery of its variants")
    variants = [m for m in replies if (m.get("blocks") or [{}])[0].get("type") == "header"]
    return galleries[0], variants


def _press_card(stage: Stage, gallery: dict[str, Any], number: int, label: str) -> AppResponse:
    """Press a button of card ``number``: every card has the same labels, so the button is
    picked by its card rather than by its label."""
    slack = stage.slack
    card = gallery["blocks"][0]["elements"][number - 1]
    button = next(a for a in card["actions"] if a["text"]["text"] == label)
    return slack._act_on_message(gallery, ALICE, lambda _b: slack._button_action(card, button))


def gallery_copy_text(session: Session) -> None:
    stage = session.stage
    gallery, _ = _first_thread(stage)
    session.show_message(gallery)
    session.say("  alice presses [Copy text] on card 2 of the gallery")
    before = len(stage.emu.ephemerals(ALICE))
    _press_card(stage, gallery, 2, stage.says(None, "gallery.copy"))
    copied = session.wait(
        lambda: stage.emu.ephemerals(ALICE)[before:], what="variant 2's text, ready to copy"
    )
    session.show_message(copied[0])
    text = "\n".join(blocks_lines(copied[0].get("blocks") or []))
    session.scenes.append(
        Scene(title="The gallery: Copy text", messages=[gallery], ephemerals=[text])
    )


def feedback_and_usage(session: Session) -> None:
    stage = session.stage
    _, variants = _first_thread(stage)
    session.say("  alice presses 👍 under variant 1; carol presses 👎 under variant 3")
    stage.slack.press_feedback(variants[0], positive=True, user_id=ALICE)
    stage.slack.press_feedback(variants[2], positive=False, user_id=CAROL)
    view = session.wait(
        lambda: (
            (v := stage.emu.current_view(CAROL)) and v["callback_id"] == "feedback_reason" and v
        ),
        what="the optional “what was wrong?” modal",
    )
    session.show(stage.emu.view_transcript(CAROL))
    session.say("  carol answers “Too long for a teaser” and sends it")
    label = next(b["label"]["text"] for b in view["blocks"] if b["type"] == "input")
    stage.slack.submit_view(CAROL, {label: "Too long for a teaser"})
    session.say("  alice opens the app's Home tab")
    stage.slack.app_home_opened(ALICE)
    lang = stage.lang(ALICE)
    rate = tn("home.usage_rate", lang, count=2, percent=percent(0.5, lang))
    home = session.wait(
        lambda: (
            (v := stage.emu.home_view(ALICE)) and rate in "\n".join(blocks_lines(v["blocks"])) and v
        ),
        what="the usage panel with both votes",
    )
    panel = [b for b in home["blocks"] if str(b.get("block_id", "")).startswith("usage")]
    for line in blocks_lines(panel):
        session.say("    " + line)
    session.scenes.append(
        Scene(
            title="Feedback under each variant, and the usage panel in App Home",
            messages=[variants[2], {"bot_id": "home", "ts": "home", "blocks": panel}],
        )
    )


def workflow_step(session: Session) -> None:
    stage = session.stage
    inputs = {
        "brief": "Email inviting loyalty members to the autumn trail days",
        "segment": "Trail Runners",
        "use_case": "Loyalty Reward",
        "variant_count": 2,
        "channel": stage.channel,
        "user": ALICE,
    }
    session.say("  a workflow runs the step “Generate content suggestions” with:")
    for name, value in inputs.items():
        session.say(f"    {name}: {value}")
    step = stage.slack.run_workflow_step("generate_suggestions", inputs=inputs, user_id=ALICE)
    ended = session.wait(
        lambda: (
            (e := stage.emu.function_execution(step.function_execution_id))["state"] != "running"
            and e
        ),
        what="the step to complete",
    )
    if ended["state"] != "completed":
        raise StepFailed(f"the step ended {ended['state']}: {ended.get('error')}")
    outputs = ended["outputs"]
    session.say(f"  the step completed; permalink: {outputs['permalink']}")
    session.say("  first variant: " + " ".join(outputs["first_variant"].split())[:120] + "…")
    root = stage.emu.messages(stage.channel)[-1]
    session.record(
        "A workflow's step, posted in the channel", channel=stage.channel, thread_of=root["ts"]
    )
    note = f"Workflow step completed · permalink: {outputs['permalink']}"
    session.scenes[-1] = replace(session.scenes[-1], ephemerals=[note])
