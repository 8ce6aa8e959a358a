"""Web API methods answer with Slack's shapes and Slack's errors, as slack_sdk sees them."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slackemu_helpers import EmuSetup, button, section

from suggestbot.slackemu import BOT_USER_ID, DEFAULT_SCOPES, SlackDriver, SlackEmulator


def _error(exc: pytest.ExceptionInfo[SlackApiError]) -> str:
    return str(exc.value.response["error"])


# -- authentication and scopes ------------------------------------------------------------
def test_a_wrong_token_is_invalid_auth_and_no_token_is_not_authed(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as wrong:
        WebClient(token="xoxb-not-the-bot", base_url=ws.emu.api_url).auth_test()
    assert _error(wrong) == "invalid_auth"
    with pytest.raises(SlackApiError) as missing:
        WebClient(base_url=ws.emu.api_url).auth_test()
    assert _error(missing) == "not_authed"


def test_auth_test_describes_the_bot(ws: EmuSetup) -> None:
    answer = ws.client.auth_test()
    assert answer["user_id"] == ws.emu.bot_user_id
    assert answer["bot_id"] == ws.emu.bot_id
    assert answer["team_id"] == "T0EMU"


def test_token_as_form_field_works_but_not_inside_a_json_body(ws: EmuSetup) -> None:
    url = f"{ws.emu.api_url}auth.test"
    form = httpx.post(url, data={"token": ws.emu.bot_token})
    assert form.json()["ok"] is True
    as_json = httpx.post(url, json={"token": ws.emu.bot_token})
    assert as_json.json() == {"ok": False, "error": "not_authed"}


def test_a_method_outside_the_granted_scopes_is_missing_scope() -> None:
    scopes = DEFAULT_SCOPES - {"users:read", "groups:history"}
    with SlackEmulator(scopes=scopes) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        private = emu.add_channel("private", members=[alice], is_private=True)
        emu.invite_bot(private)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)

        with pytest.raises(SlackApiError) as users:
            client.users_info(user=alice)
        with pytest.raises(SlackApiError) as history:
            client.conversations_history(channel=private)

    assert users.value.response["error"] == "missing_scope"
    assert users.value.response["needed"] == "users:read"
    assert users.value.response["provided"] == ",".join(sorted(scopes))
    assert history.value.response["needed"] == "groups:history"


def test_an_unknown_method_is_unknown_method(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as unknown:
        ws.client.api_call("chat.postMessag")
    assert _error(unknown) == "unknown_method"


# -- where the bot may post ----------------------------------------------------------------
def test_membership_decides_where_the_bot_may_post(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as public:
        ws.client.chat_postMessage(channel=ws.random, text="hi")
    with pytest.raises(SlackApiError) as private:
        ws.client.chat_postMessage(channel=ws.secret, text="hi")
    with pytest.raises(SlackApiError) as unknown:
        ws.client.chat_postMessage(channel="C0NOTHERE", text="hi")
    assert (_error(public), _error(private), _error(unknown)) == (
        "not_in_channel",
        "channel_not_found",
        "channel_not_found",
    )

    ws.emu.invite_bot(ws.random)
    assert ws.client.chat_postMessage(channel=ws.random, text="hi")["ok"]
    ws.emu.remove_bot(ws.random)
    with pytest.raises(SlackApiError):
        ws.client.chat_postMessage(channel=ws.random, text="again")


def test_archived_channels_refuse_posts(ws: EmuSetup) -> None:
    archived = ws.emu.add_channel("old", members=[ws.alice], archived=True)
    ws.emu.invite_bot(archived)
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=archived, text="hi")
    assert _error(refused) == "is_archived"


def test_chat_write_public_lets_the_bot_post_in_public_channels_it_is_not_in() -> None:
    with SlackEmulator(scopes=DEFAULT_SCOPES | {"chat:write.public"}) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        public = emu.add_channel("public", members=[alice])
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        assert client.chat_postMessage(channel=public, text="hi")["ok"]


def test_ephemeral_messages_go_to_members_only_and_stay_out_of_history(ws: EmuSetup) -> None:
    answer = ws.client.chat_postEphemeral(channel=ws.general, user=ws.alice, text="psst")
    assert re.fullmatch(r"\d{10}\.\d{6}", answer["message_ts"])
    outsider = ws.emu.add_user("U0CAROL", "carol")
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postEphemeral(channel=ws.general, user=outsider, text="psst")
    assert _error(refused) == "user_not_in_channel"

    assert [e["text"] for e in ws.emu.ephemerals(ws.alice)] == ["psst"]
    assert ws.emu.ephemerals(ws.bob) == []
    assert ws.emu.messages(ws.general) == []


def test_posting_to_a_user_id_lands_in_the_bots_dm(ws: EmuSetup) -> None:
    posted = ws.client.chat_postMessage(channel=ws.bob, text="your results")
    assert posted["channel"].startswith("D")
    opened = ws.client.conversations_open(users=ws.bob)
    assert opened["channel"]["id"] == posted["channel"]
    assert opened["already_open"] is True
    assert ws.emu.transcript(posted["channel"]) == "DM with bob\nsuggestbot (app): your results"


# -- messages, threads, metadata ---------------------------------------------------------------
def test_ts_values_are_slack_shaped_unique_and_increasing() -> None:
    frozen = 1_700_000_000.0001  # every post in the same microsecond
    # Many posts in one instant: this check of ts values needs unlimited calls.
    with SlackEmulator(wall_clock=lambda: frozen, rationing=False) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        channel = emu.add_channel("c", members=[alice])
        emu.invite_bot(channel)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        stamps = [client.chat_postMessage(channel=channel, text=str(i))["ts"] for i in range(5)]
    assert all(re.fullmatch(r"1700000000\.\d{6}", ts) for ts in stamps)
    assert stamps == sorted(stamps) and len(set(stamps)) == 5


def test_threads_count_their_replies_and_replies_to_replies_join_the_root(ws: EmuSetup) -> None:
    root = ws.client.chat_postMessage(channel=ws.general, text="root")["ts"]
    first = ws.client.chat_postMessage(channel=ws.general, text="one", thread_ts=root)["ts"]
    second = ws.client.chat_postMessage(channel=ws.general, text="two", thread_ts=first)
    assert second["message"]["thread_ts"] == root
    assert second["message"]["parent_user_id"] == ws.emu.bot_user_id

    thread = ws.client.conversations_replies(channel=ws.general, ts=root)["messages"]
    assert [m["text"] for m in thread] == ["root", "one", "two"]
    assert thread[0]["reply_count"] == 2
    assert thread[0]["latest_reply"] == second["ts"]
    assert thread[0]["reply_users"] == [ws.emu.bot_user_id]

    history = ws.client.conversations_history(channel=ws.general)["messages"]
    assert [m["text"] for m in history] == ["root"]  # replies stay in the thread


def test_a_reply_to_a_missing_thread_is_refused(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="x", thread_ts="1700000000.000001")
    assert _error(refused) == "thread_not_found"


def test_metadata_comes_back_only_with_include_all_metadata(ws: EmuSetup) -> None:
    metadata = {"event_type": "suggestion_posted", "event_payload": {"run_id": "r1", "n": 2}}
    root = ws.client.chat_postMessage(channel=ws.general, text="root")["ts"]
    ws.client.chat_postMessage(channel=ws.general, text="v1", thread_ts=root, metadata=metadata)

    plain = ws.client.conversations_replies(channel=ws.general, ts=root)["messages"]
    full = ws.client.conversations_replies(channel=ws.general, ts=root, include_all_metadata=True)[
        "messages"
    ]
    assert "metadata" not in plain[1]
    assert full[1]["metadata"] == metadata
    history = ws.client.conversations_history(channel=ws.general, include_all_metadata=True)
    assert "metadata" not in history["messages"][0]


def test_malformed_metadata_is_refused(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="x", metadata={"event_payload": {}})
    assert _error(refused) == "invalid_metadata_schema"


def test_history_and_replies_need_membership(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as history:
        ws.client.conversations_history(channel=ws.random)
    assert _error(history) == "not_in_channel"
    with pytest.raises(SlackApiError) as replies:
        ws.client.conversations_replies(channel=ws.general, ts="1700000000.000001")
    assert _error(replies) == "thread_not_found"


def test_history_pages_with_cursors_newest_first(ws: EmuSetup) -> None:
    for i in range(5):
        ws.client.chat_postMessage(channel=ws.general, text=f"m{i}")
    seen: list[str] = []
    cursor = None
    while True:
        page = ws.client.conversations_history(channel=ws.general, limit=2, cursor=cursor)
        seen += [m["text"] for m in page["messages"]]
        cursor = page["response_metadata"]["next_cursor"]
        assert page["has_more"] is bool(cursor)
        if not cursor:
            break
    assert seen == ["m4", "m3", "m2", "m1", "m0"]


def test_chat_update_edits_in_place_and_keeps_blocks_it_was_not_given(ws: EmuSetup) -> None:
    blocks = [section("Queued"), {"type": "actions", "elements": [button("Refresh", "r")]}]
    posted = ws.client.chat_postMessage(channel=ws.general, text="queued", blocks=blocks)
    updated = ws.client.chat_update(channel=ws.general, ts=posted["ts"], text="running")
    assert updated["ts"] == posted["ts"]
    assert updated["text"] == "running"

    (message,) = ws.emu.messages(ws.general)
    assert message["text"] == "running"
    assert message["blocks"][0]["text"]["text"] == "Queued"
    assert "edited" in message

    ws.client.chat_update(channel=ws.general, ts=posted["ts"], text="done", blocks=[section("ok")])
    assert [b["type"] for b in ws.emu.messages(ws.general)[0]["blocks"]] == ["section"]


def test_chat_update_refuses_other_peoples_and_missing_messages(
    ws: EmuSetup, driver: SlackDriver
) -> None:
    human = driver.post_user_message(ws.alice, ws.general, "my message")
    with pytest.raises(SlackApiError) as others:
        ws.client.chat_update(channel=ws.general, ts=human.ts, text="hijack")
    with pytest.raises(SlackApiError) as missing:
        ws.client.chat_update(channel=ws.general, ts="1700000000.000001", text="x")
    assert (_error(others), _error(missing)) == ("cant_update_message", "message_not_found")


def test_chat_delete_and_permalink(ws: EmuSetup) -> None:
    root = ws.client.chat_postMessage(channel=ws.general, text="root")["ts"]
    reply = ws.client.chat_postMessage(channel=ws.general, text="r", thread_ts=root)["ts"]
    link = ws.client.chat_getPermalink(channel=ws.general, message_ts=reply)["permalink"]
    assert link == (
        f"https://emu.slack.com/archives/{ws.general}/p{reply.replace('.', '')}"
        f"?thread_ts={root}&cid={ws.general}"
    )
    ws.client.chat_delete(channel=ws.general, ts=reply)
    assert [m["text"] for m in ws.emu.messages(ws.general, thread_ts=root)] == ["root"]
    with pytest.raises(SlackApiError) as gone:
        ws.client.chat_getPermalink(channel=ws.general, message_ts=reply)
    assert _error(gone) == "message_not_found"


# -- users and conversations -------------------------------------------------------------------
def test_users_info_gives_locale_only_when_asked(ws: EmuSetup) -> None:
    plain = ws.client.users_info(user=ws.alice)["user"]
    assert "locale" not in plain
    assert plain["tz"] == "Europe/Berlin"
    with_locale = ws.client.users_info(user=ws.alice, include_locale=True)["user"]
    assert with_locale["locale"] == "de-DE"
    assert ws.client.users_info(user=ws.bob)["user"]["is_admin"] is True
    with pytest.raises(SlackApiError) as unknown:
        ws.client.users_info(user="U0NOBODY")
    assert _error(unknown) == "user_not_found"


def test_conversations_info_sees_public_channels_but_not_foreign_private_ones(
    ws: EmuSetup,
) -> None:
    info = ws.client.conversations_info(channel=ws.random)["channel"]
    assert (info["name"], info["is_member"], info["is_private"]) == ("random", False, False)
    assert ws.client.conversations_info(channel=ws.general)["channel"]["is_member"] is True
    with pytest.raises(SlackApiError) as private:
        ws.client.conversations_info(channel=ws.secret)
    assert _error(private) == "channel_not_found"


# -- request encodings ---------------------------------------------------------------------
def test_form_bodies_with_json_strings_and_json_bodies_are_both_understood(ws: EmuSetup) -> None:
    url = f"{ws.emu.api_url}chat.postMessage"
    auth = {"Authorization": f"Bearer {ws.emu.bot_token}"}
    blocks = [section("from a form")]
    form = httpx.post(
        url,
        headers=auth,
        data={"channel": ws.general, "text": "form", "blocks": json.dumps(blocks)},
    )
    body = httpx.post(
        url, headers=auth, json={"channel": ws.general, "text": "json", "blocks": blocks}
    )
    broken = httpx.post(
        url, headers=auth, data={"channel": ws.general, "text": "x", "blocks": "[{not json"}
    )
    assert form.json()["ok"] and body.json()["ok"]
    assert form.json()["message"]["blocks"][0]["text"]["text"] == "from a form"
    assert broken.json()["error"] == "invalid_blocks_format"


# -- files ---------------------------------------------------------------------------------------
def test_files_upload_v2_shares_the_file_into_a_thread(ws: EmuSetup) -> None:
    root = ws.client.chat_postMessage(channel=ws.general, text="root")["ts"]
    done = ws.client.files_upload_v2(
        content=b"\x89PNG-bytes",
        filename="variant-1.png",
        title="Variant 1",
        channel=ws.general,
        thread_ts=root,
    )
    file_id = done["file"]["id"]

    info = ws.client.files_info(file=file_id)["file"]
    assert info["title"] == "Variant 1" and info["mimetype"] == "image/png"
    share = info["shares"]["public"][ws.general][0]
    assert share["thread_ts"] == root
    thread = ws.emu.messages(ws.general, thread_ts=root)
    assert thread[1]["files"][0]["id"] == file_id
    assert ws.emu.file_content(file_id) == b"\x89PNG-bytes"
    assert ws.emu.file_info(file_id) == info

    url = info["url_private"]
    assert httpx.get(url).status_code == 403
    downloaded = httpx.get(url, headers={"Authorization": f"Bearer {ws.emu.bot_token}"})
    assert downloaded.content == b"\x89PNG-bytes"


def test_an_upload_is_invisible_until_completed(ws: EmuSetup) -> None:
    ticket = ws.client.files_getUploadURLExternal(filename="a.png", length=3)
    with pytest.raises(SlackApiError) as early:
        ws.client.files_info(file=ticket["file_id"])
    assert _error(early) == "file_not_found"
    with pytest.raises(SlackApiError) as not_uploaded:
        ws.client.files_completeUploadExternal(files=[{"id": ticket["file_id"]}])
    assert _error(not_uploaded) == "file_not_found"

    assert httpx.post(ticket["upload_url"], content=b"abc").text == "OK - 3"
    ws.client.files_completeUploadExternal(files=[{"id": ticket["file_id"], "title": "A"}])
    assert ws.client.files_info(file=ticket["file_id"])["file"]["title"] == "A"
    assert httpx.post(f"{ws.emu.url}/upload/v1/nope", content=b"x").status_code == 404


def test_zero_length_upload_requests_are_refused(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as refused:
        ws.client.files_getUploadURLExternal(filename="a.png", length=0)
    assert _error(refused) == "missing_argument"


# -- what is recorded ---------------------------------------------------------------------
def test_recorded_calls_and_reprs_never_contain_the_token(ws: EmuSetup) -> None:
    ws.client.chat_postMessage(channel=ws.general, text="hello")
    httpx.post(f"{ws.emu.api_url}auth.test", data={"token": ws.emu.bot_token})

    calls = ws.emu.calls()
    assert [c.method for c in calls] == ["chat.postMessage", "auth.test"]
    assert calls[0].ok and calls[0].args["text"] == "hello"
    assert ws.emu.bot_token not in repr(calls) + repr(ws.emu)
    assert all("token" not in c.args for c in calls)


def test_chat_post_message_also_takes_a_channel_name(ws: EmuSetup) -> None:
    posted = ws.client.chat_postMessage(channel="#general", text="by name")
    assert posted["channel"] == ws.general


def test_conversations_members_pages_and_keeps_private_channels_private(ws: EmuSetup) -> None:
    """As Slack: a public channel's members even when the bot is not in it, a private one's
    only as a member, pages of at most ``limit`` with an opaque cursor."""
    general = ws.client.conversations_members(channel=ws.general)
    assert sorted(general["members"]) == sorted([ws.alice, ws.bob, BOT_USER_ID])
    assert general["response_metadata"]["next_cursor"] == ""
    assert ws.client.conversations_members(channel=ws.random)["members"] == [ws.alice]
    with pytest.raises(SlackApiError) as hidden:
        ws.client.conversations_members(channel=ws.secret)
    assert _error(hidden) == "channel_not_found"
    first = ws.client.conversations_members(channel=ws.general, limit=2)
    cursor = first["response_metadata"]["next_cursor"]
    rest = ws.client.conversations_members(channel=ws.general, limit=2, cursor=cursor)
    assert sorted(first["members"] + rest["members"]) == sorted(general["members"])
    assert rest["response_metadata"]["next_cursor"] == ""
    with pytest.raises(SlackApiError) as bad:
        ws.client.conversations_members(channel=ws.general, cursor="not-a-cursor")
    assert _error(bad) == "invalid_cursor"
