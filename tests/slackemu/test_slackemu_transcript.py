"""Transcripts read the way a person sees Slack: blocks rather than fallback text, buttons as
[Text], images as [image: alt], threads with their replies, ephemerals per user."""

from __future__ import annotations

from slackemu_helpers import EmuSetup, button, section

from suggestbot.slackemu import SlackDriver

RICH_BLOCKS = [
    {"type": "header", "text": {"type": "plain_text", "text": "Spring sale — ready"}},
    section(
        "*Variant 1* is an email.",
        fields=[
            {"type": "mrkdwn", "text": "*Segment*\nRunners"},
            {"type": "mrkdwn", "text": "*Use case*\nWin-back"},
        ],
        accessory=button("Refine…", "refine"),
    ),
    {
        "type": "context",
        "elements": [
            {"type": "mrkdwn", "text": "Run r-42"},
            {"type": "image", "image_url": "https://img.test/i.png", "alt_text": "icon"},
        ],
    },
    {"type": "divider"},
    {"type": "image", "image_url": "https://img.test/v1.png", "alt_text": "Runner at dawn"},
    {"type": "actions", "elements": [button("Retry", "retry"), button("Share", "share")]},
]


def test_channel_transcript_shows_blocks_buttons_images_and_reply_counts(
    ws: EmuSetup, driver: SlackDriver
) -> None:
    driver.post_user_message(ws.alice, ws.general, "brief: spring sale")
    root = ws.client.chat_postMessage(
        channel=ws.general, text="fallback nobody sees", blocks=RICH_BLOCKS
    )["ts"]
    ws.client.chat_postMessage(channel=ws.general, text="Subject: Run into spring", thread_ts=root)
    driver.post_user_message(ws.bob, ws.general, "shorter please", thread_ts=root)

    assert ws.emu.transcript(ws.general) == "\n".join(
        [
            "#general",
            "alice: brief: spring sale",
            "suggestbot (app):",
            "    == Spring sale — ready ==",
            "    *Variant 1* is an email.",
            "    *Segment* Runners | *Use case* Win-back",
            "    [Refine…]",
            "    Run r-42 · [image: icon]",
            "    ---",
            "    [image: Runner at dawn]",
            "    [Retry] [Share]",
            "    [2 replies]",
        ]
    )
    assert ws.emu.transcript(ws.general, thread_ts=root).splitlines()[-2:] == [
        "suggestbot (app): Subject: Run into spring",
        "bob: shorter please",
    ]


def test_ephemeral_transcript_is_per_user_and_per_channel(ws: EmuSetup) -> None:
    ws.client.chat_postEphemeral(channel=ws.general, user=ws.alice, text="Invite me with /invite")
    ws.client.chat_postEphemeral(channel=ws.general, user=ws.bob, text="for bob")
    dm = ws.emu.dm_channel(ws.alice)
    ws.client.chat_postEphemeral(
        channel=dm, user=ws.alice, text="x", blocks=[section("Connect your account")]
    )

    assert ws.emu.ephemeral_transcript(ws.alice) == "\n".join(
        [
            "Only visible to alice",
            "suggestbot (app) in #general: Invite me with /invite",
            "suggestbot (app) in DM with alice: Connect your account",
        ]
    )
    assert ws.emu.ephemeral_transcript(ws.alice, ws.general).count("\n") == 1


def test_deleted_and_edited_messages_read_as_such(ws: EmuSetup) -> None:
    keep = ws.client.chat_postMessage(channel=ws.general, text="Queued")["ts"]
    gone = ws.client.chat_postMessage(channel=ws.general, text="temporary")["ts"]
    ws.client.chat_update(channel=ws.general, ts=keep, text="Running (attempt 2)")
    ws.client.chat_delete(channel=ws.general, ts=gone)
    assert ws.emu.transcript(ws.general) == (
        "#general\nsuggestbot (app) (edited): Running (attempt 2)"
    )


def test_a_deleted_thread_root_stays_as_a_tombstone_while_it_has_replies(ws: EmuSetup) -> None:
    root = ws.client.chat_postMessage(channel=ws.general, text="Queued")["ts"]
    reply = ws.client.chat_postMessage(channel=ws.general, text="Variant 1", thread_ts=root)["ts"]
    ws.client.chat_delete(channel=ws.general, ts=root)

    assert ws.emu.transcript(ws.general) == "#general\n(This message was deleted.)\n    [1 reply]"
    thread = ws.client.conversations_replies(channel=ws.general, ts=root)["messages"]
    assert [m.get("subtype") for m in thread] == ["tombstone", None]

    ws.client.chat_delete(channel=ws.general, ts=reply)
    assert ws.emu.transcript(ws.general) == "#general"
