"""Every Block Kit limit is enforced at its boundary: n is accepted, n+1 refused, like Slack."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slackemu_helpers import EmuSetup, FakeClock, button, modal, options, section, text_input
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.slackemu import SlackEmulator
from suggestbot.slackemu.blockkit import MAX_BLOCK_TEXT_PER_MESSAGE, check_message


@pytest.fixture(scope="module")
def shared() -> Iterator[EmuSetup]:
    """One workspace for the many boundary checks, which only add messages and views."""
    clock = FakeClock()
    # Hundreds of posts on a clock that never moves: these checks need unlimited calls.
    with SlackEmulator(clock=clock, rationing=False) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        general = emu.add_channel("general", members=[alice])
        emu.invite_bot(general)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        yield EmuSetup(emu, client, alice, alice, general, general, general, clock)


Blocks = list[dict[str, Any]]


def _image(alt: str, **source: Any) -> dict[str, Any]:
    return {"type": "image", "alt_text": alt, **(source or {"image_url": "https://img.test/a.png"})}


MESSAGE_LIMITS: dict[str, tuple[int, Callable[[int], Blocks], str]] = {
    # name: (n allowed, blocks with n, json-pointer Slack names when n+1)
    "blocks per message": (50, lambda n: [section("x") for _ in range(n)], "/blocks]"),
    "section text": (3000, lambda n: [section("a" * n)], "/blocks/0/text/text]"),
    "section fields": (
        10,
        lambda n: [{"type": "section", "fields": [{"type": "mrkdwn", "text": "f"}] * n}],
        "/blocks/0/fields]",
    ),
    "header text": (
        150,
        lambda n: [{"type": "header", "text": {"type": "plain_text", "text": "h" * n}}],
        "/blocks/0/text/text]",
    ),
    "button text": (
        75,
        lambda n: [{"type": "actions", "elements": [button("b" * n, "go")]}],
        "/blocks/0/elements/0/text/text]",
    ),
    "button value": (
        2000,
        lambda n: [{"type": "actions", "elements": [button("Go", "go", value="v" * n)]}],
        "/blocks/0/elements/0/value]",
    ),
    "action_id length": (
        255,
        lambda n: [{"type": "actions", "elements": [button("Go", "a" * n)]}],
        "/blocks/0/elements/0/action_id]",
    ),
    "block_id length": (255, lambda n: [section("x", block_id="b" * n)], "/blocks/0/block_id]"),
    "image alt_text": (2000, lambda n: [_image("a" * n)], "/blocks/0/alt_text]"),
    "context elements": (
        10,
        lambda n: [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * n}],
        "/blocks/0/elements]",
    ),
    "actions elements": (
        25,
        lambda n: [
            {"type": "actions", "elements": [button("B", f"a{i}") for i in range(n)]},
        ],
        "/blocks/0/elements]",
    ),
    "select options": (
        100,
        lambda n: [
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "static_select",
                        "action_id": "pick",
                        "options": options(*[f"o{i}" for i in range(n)]),
                    }
                ],
            }
        ],
        "/blocks/0/elements/0/options]",
    ),
}


@pytest.mark.parametrize("name", sorted(MESSAGE_LIMITS))
def test_message_limit_holds_at_its_boundary(shared: EmuSetup, name: str) -> None:
    ws = shared
    limit, build, pointer = MESSAGE_LIMITS[name]

    accepted = ws.client.chat_postMessage(channel=ws.general, text="fallback", blocks=build(limit))
    assert accepted["ok"] is True

    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="fallback", blocks=build(limit + 1))
    assert refused.value.response["error"] == "invalid_blocks"
    messages = refused.value.response["response_metadata"]["messages"]
    assert any(m.startswith("[ERROR] ") and m.endswith(pointer) for m in messages), messages


def test_message_text_over_40000_characters_is_truncated_with_a_warning(ws: EmuSetup) -> None:
    at_limit = ws.client.chat_postMessage(channel=ws.general, text="x" * 40_000)
    assert at_limit["ok"] is True
    assert "warning" not in at_limit.data  # type: ignore[operator]

    over = ws.client.chat_postMessage(channel=ws.general, text="y" * 40_001)
    assert over["ok"] is True
    assert over["warning"] == "message_truncated"
    assert over["response_metadata"]["warnings"] == ["message_truncated"]
    kept = ws.emu.messages(ws.general)[-1]["text"]
    assert kept == "y" * 40_000
    assert any("message_truncated" in w for w in ws.emu.warnings)


def test_chat_update_truncates_text_over_40000_characters_too(ws: EmuSetup) -> None:
    posted = ws.client.chat_postMessage(channel=ws.general, text="v1")
    updated = ws.client.chat_update(channel=ws.general, ts=posted["ts"], text="z" * 40_001)
    assert updated["warning"] == "message_truncated"
    assert ws.emu.messages(ws.general)[-1]["text"] == "z" * 40_000


def _sections_totalling(total: int) -> Blocks:
    """Plain sections whose texts add up to exactly ``total`` characters (each <= 3000)."""
    blocks, left = [], total
    while left > 0:
        size = min(left, 2500)
        blocks.append(section("t" * size))
        left -= size
    return blocks


def test_block_text_is_capped_per_message_below_50_times_3000(ws: EmuSetup) -> None:
    limit = MAX_BLOCK_TEXT_PER_MESSAGE
    assert limit == 11_000
    ok = ws.client.chat_postMessage(channel=ws.general, text="t", blocks=_sections_totalling(limit))
    assert ok["ok"] is True
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(
            channel=ws.general, text="t", blocks=_sections_totalling(limit + 1)
        )
    assert refused.value.response["error"] == "msg_blocks_too_long"


def test_block_text_counts_every_text_in_the_message(ws: EmuSetup) -> None:
    header = {"type": "header", "text": {"type": "plain_text", "text": "h" * 100}}
    context = {"type": "context", "elements": [{"type": "mrkdwn", "text": "c" * 100}]}
    blocks = [header, context, *_sections_totalling(MAX_BLOCK_TEXT_PER_MESSAGE - 200)]
    assert ws.client.chat_postMessage(channel=ws.general, text="t", blocks=blocks)["ok"]
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[*blocks, section("x")])
    assert refused.value.response["error"] == "msg_blocks_too_long"
    posted = ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[section("v1")])
    with pytest.raises(SlackApiError) as refused_update:
        ws.client.chat_update(
            channel=ws.general, ts=posted["ts"], text="t", blocks=[*blocks, section("x")]
        )
    assert refused_update.value.response["error"] == "msg_blocks_too_long"


def _markdown(text: str) -> dict[str, Any]:
    return {"type": "markdown", "text": text}


@pytest.mark.parametrize(
    "blocks",
    [[_markdown("m" * 12_000)], [_markdown("m" * 6000), _markdown("n" * 6000)]],
    ids=["one block", "two blocks"],
)
def test_markdown_blocks_may_hold_12000_characters_in_total(ws: EmuSetup, blocks: Blocks) -> None:
    # Over the wire, as Slack accepts it: a message of exactly 12,000 markdown characters.
    posted = ws.client.chat_postMessage(channel=ws.general, text="t", blocks=blocks)
    assert posted["ok"] is True
    updated = ws.client.chat_update(channel=ws.general, ts=posted["ts"], text="t", blocks=blocks)
    assert updated["ok"] is True


@pytest.mark.parametrize(
    "blocks",
    [[_markdown("m" * 12_001)], [_markdown("m" * 6000), _markdown("n" * 6001)]],
    ids=["one block", "two blocks"],
)
def test_markdown_blocks_holding_12001_characters_are_refused(ws: EmuSetup, blocks: Blocks) -> None:
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=blocks)
    assert refused.value.response["error"] == "invalid_blocks"
    assert "markdown blocks must hold less than 12001 characters in total" in str(
        refused.value.response["response_metadata"]
    )
    errors, _ = check_message(blocks=blocks, slack_file_check=lambda f: None)
    assert errors == [
        "[ERROR] markdown blocks must hold less than 12001 characters in total "
        "[json-pointer:/blocks]"
    ]


def test_a_markdown_block_needs_non_empty_text(ws: EmuSetup) -> None:
    assert ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[_markdown("m")])["ok"]
    for bad, why in [
        (_markdown(""), "must be more than 0 characters"),
        (
            {"type": "markdown"},
            "missing required field: text",
        ),
    ]:
        with pytest.raises(SlackApiError) as refused:
            ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[bad])
        assert refused.value.response["error"] == "invalid_blocks"
        assert why in str(refused.value.response["response_metadata"])


@pytest.mark.parametrize(
    ("url", "accepted"),
    [
        ("https://img.test/a.png", True),
        ("http://img.test/a.png", True),
        ("ftp://img.test/a.png", False),
        ("image:abc/DEF==", False),
        ("/images/a.png", False),
    ],
)
def test_image_url_must_be_http_or_https(ws: EmuSetup, url: str, accepted: bool) -> None:
    blocks = [_image("chart", image_url=url)]
    if accepted:
        assert ws.client.chat_postMessage(channel=ws.general, text="t", blocks=blocks)["ok"]
        return
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=blocks)
    assert "must be a valid http or https URL [json-pointer:/blocks/0/image_url]" in str(
        refused.value.response["response_metadata"]
    )


def test_a_message_with_nothing_in_it_is_refused(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as refused, pytest.warns(UserWarning, match="`text`"):
        ws.client.chat_postMessage(channel=ws.general, text="")
    assert refused.value.response["error"] == "no_text"


def test_blocks_without_top_level_text_are_accepted_but_recorded_as_a_warning(
    ws: EmuSetup,
) -> None:
    with pytest.warns(UserWarning, match="`text`"):  # slack_sdk warns too
        ws.client.chat_postMessage(channel=ws.general, blocks=[section("only blocks")])
    ws.client.chat_postMessage(channel=ws.general, text="with text", blocks=[section("ok")])

    calls = ws.emu.calls("chat.postMessage")
    assert [bool(c.warnings) for c in calls] == [True, False]
    assert "without top-level `text`" in calls[0].warnings[0]
    assert ws.emu.warnings == list(calls[0].warnings)


def test_empty_alt_text_is_refused(ws: EmuSetup) -> None:
    assert ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[_image("a")])["ok"]
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[_image("")])
    assert "must be more than 0 characters" in str(refused.value.response["response_metadata"])


@pytest.mark.parametrize(
    "source",
    [
        {"image_url": "https://img.test/a.png", "slack_file": {"id": "F1"}},
        {},
    ],
    ids=["both", "neither"],
)
def test_an_image_needs_exactly_one_of_image_url_and_slack_file(
    ws: EmuSetup, source: dict[str, Any]
) -> None:
    image = {"type": "image", "alt_text": "a chart", **source}
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[image])
    assert "exactly one of image_url or slack_file" in str(refused.value.response)


def _upload(ws: EmuSetup, filename: str, *, complete: bool) -> str:
    ticket = ws.client.files_getUploadURLExternal(filename=filename, length=4)
    httpx.post(ticket["upload_url"], content=b"\x89PNG").raise_for_status()
    if complete:
        ws.client.files_completeUploadExternal(files=[{"id": ticket["file_id"]}])
    return str(ticket["file_id"])


def test_slack_file_must_name_a_completed_image_upload(ws: EmuSetup) -> None:
    done = _upload(ws, "chart.png", complete=True)
    pending = _upload(ws, "draft.png", complete=False)
    text_file = _upload(ws, "notes.txt", complete=True)

    def post(file_id: str) -> dict[str, Any]:
        image = {"type": "image", "alt_text": "chart", "slack_file": {"id": file_id}}
        response = ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[image])
        return dict(response.data) if isinstance(response.data, dict) else {}

    assert post(done)["ok"] is True
    for file_id, why in [
        (pending, "upload not completed"),
        ("F0000NOPE", "not an uploaded file"),
        (text_file, "not an image"),
    ]:
        with pytest.raises(SlackApiError) as refused:
            post(file_id)
        assert refused.value.response["error"] == "invalid_blocks"
        assert why in str(refused.value.response["response_metadata"])


def test_slack_file_may_also_name_the_file_by_its_url_private(ws: EmuSetup) -> None:
    file_id = _upload(ws, "chart.png", complete=True)
    url = ws.client.files_info(file=file_id)["file"]["url_private"]
    image = {"type": "image", "alt_text": "chart", "slack_file": {"url": url}}
    assert ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[image])["ok"]


def test_block_ids_must_be_unique_within_a_message(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(
            channel=ws.general,
            text="t",
            blocks=[section("a", block_id="x"), section("b", block_id="x")],
        )
    assert "duplicate block_id: x" in str(refused.value.response)


def test_action_ids_must_be_unique_within_their_block_only(ws: EmuSetup) -> None:
    same_block = [{"type": "actions", "elements": [button("A", "go"), button("B", "go")]}]
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=same_block)
    assert "duplicate action_id: go" in str(refused.value.response)

    two_blocks = [
        {"type": "actions", "elements": [button("A", "go")]},
        {"type": "actions", "elements": [button("B", "go")]},
    ]
    assert ws.client.chat_postMessage(channel=ws.general, text="t", blocks=two_blocks)["ok"]


def test_unknown_block_types_are_refused(ws: EmuSetup) -> None:
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[{"type": "hologram"}])
    assert "unsupported type: hologram" in str(refused.value.response)


def test_chat_update_applies_the_same_checks(ws: EmuSetup) -> None:
    posted = ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[section("v1")])
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_update(
            channel=ws.general, ts=posted["ts"], text="t", blocks=[section("a" * 3001)]
        )
    assert refused.value.response["error"] == "invalid_blocks"
    assert ws.emu.messages(ws.general)[0]["blocks"][0]["text"]["text"] == "v1"


VIEW_LIMITS: dict[str, tuple[int, Callable[[int], dict[str, Any]], str]] = {
    "modal title": (
        24,
        lambda n: modal([section("x")], title={"type": "plain_text", "text": "t" * n}),
        "/view/title/text]",
    ),
    "modal submit": (
        24,
        lambda n: modal([section("x")], submit={"type": "plain_text", "text": "s" * n}),
        "/view/submit/text]",
    ),
    "modal close": (
        24,
        lambda n: modal([section("x")], close={"type": "plain_text", "text": "c" * n}),
        "/view/close/text]",
    ),
    "private_metadata": (
        3000,
        lambda n: modal([section("x")], private_metadata="m" * n),
        "/view/private_metadata]",
    ),
    "callback_id": (
        255,
        lambda n: modal([section("x")], callback_id="c" * n),
        "/view/callback_id]",
    ),
    "blocks per view": (100, lambda n: modal([section("x") for _ in range(n)]), "/view/blocks]"),
}


@pytest.mark.parametrize("name", sorted(VIEW_LIMITS))
def test_view_limit_holds_at_its_boundary(shared: EmuSetup, name: str) -> None:
    ws = shared
    limit, build, pointer = VIEW_LIMITS[name]

    opened = ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=build(limit))
    assert opened["ok"] is True

    with pytest.raises(SlackApiError) as refused:
        ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=build(limit + 1))
    # views.* answer invalid_arguments (not invalid_blocks) with the same kind of messages.
    assert refused.value.response["error"] == "invalid_arguments"
    messages = refused.value.response["response_metadata"]["messages"]
    assert any(m.endswith(pointer) for m in messages), messages


def test_home_tab_allows_100_blocks_not_101(ws: EmuSetup) -> None:
    def home(n: int) -> dict[str, Any]:
        return {"type": "home", "blocks": [section("x") for _ in range(n)]}

    assert ws.client.views_publish(user_id=ws.alice, view=home(100))["ok"]
    with pytest.raises(SlackApiError) as refused:
        ws.client.views_publish(user_id=ws.alice, view=home(101))
    assert "no more than 100 items allowed [json-pointer:/view/blocks]" in str(
        refused.value.response
    )


def test_a_modal_with_inputs_needs_a_submit_button(ws: EmuSetup) -> None:
    view = modal([text_input("Brief", "brief")])
    del view["submit"]
    with pytest.raises(SlackApiError) as refused:
        ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=view)
    assert "must define `submit` to use an `input` block in modals" in str(refused.value.response)


def test_input_max_length_is_capped_at_3000(ws: EmuSetup) -> None:
    ok = modal([text_input("Brief", "brief", max_length=3000)])
    assert ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=ok)["ok"]
    too_long = modal([text_input("Brief", "brief", max_length=3001)])
    with pytest.raises(SlackApiError) as refused:
        ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=too_long)
    assert "/view/blocks/0/element/max_length]" in str(refused.value.response)


def test_image_urls_are_downloaded_at_post_time_when_asked() -> None:
    async def image(request: Request) -> Response:
        if request.path_params["name"] == "fresh.png":
            return Response(b"\x89PNG", media_type="image/png")
        return Response("expired", status_code=403)

    images = Starlette(routes=[Route("/img/{name}", image)])
    with (
        BackgroundServer(images, name="image-host") as host,
        SlackEmulator(check_image_urls=True) as emu,
    ):
        alice = emu.add_user("U0ALICE", "alice")
        channel = emu.add_channel("c", members=[alice])
        emu.invite_bot(channel)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)

        def post(name: str) -> Any:
            block = {"type": "image", "image_url": f"{host.url}/img/{name}", "alt_text": "v1"}
            return client.chat_postMessage(channel=channel, text="t", blocks=[block])

        assert post("fresh.png")["ok"]
        with pytest.raises(SlackApiError) as refused:
            post("expired.png")
    assert refused.value.response["errors"] == [
        "downloading image failed [json-pointer:/blocks/0/image_url]"
    ]


def _select(initial: dict[str, Any] | None, *names: str) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "static_select",
        "action_id": "pick",
        "options": options(*names),
    }
    if initial is not None:
        element["initial_option"] = initial
    return {
        "type": "input",
        "block_id": "choice",
        "label": {"type": "plain_text", "text": "Pick"},
        "element": element,
    }


def test_a_selects_initial_option_must_be_one_of_its_options(ws: EmuSetup) -> None:
    offered = options("alpha", "beta")
    ok = modal([_select(offered[1], "alpha", "beta")])
    assert ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=ok)["ok"]
    stranger = options("gamma")[0]
    renamed = {**offered[0], "text": {**offered[0]["text"], "text": "Alpha!"}}
    for initial in (stranger, renamed):
        bad = modal([_select(initial, "alpha", "beta")])
        with pytest.raises(SlackApiError) as refused:
            ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=bad)
        assert (
            "must match one of the provided options [json-pointer:/view/blocks/0/element/"
            "initial_option]" in str(refused.value.response)
        )


def test_a_radio_buttons_initial_option_must_be_one_of_its_options(ws: EmuSetup) -> None:
    radio = {
        "type": "actions",
        "elements": [{"type": "radio_buttons", "action_id": "r", "options": options("a", "b")}],
    }
    radio["elements"][0]["initial_option"] = options("a")[0]
    assert ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[radio])["ok"]
    radio["elements"][0]["initial_option"] = options("c")[0]
    with pytest.raises(SlackApiError) as refused:
        ws.client.chat_postMessage(channel=ws.general, text="t", blocks=[radio])
    assert "must match one of the provided options" in str(refused.value.response)


@pytest.mark.parametrize(("max_length", "accepted"), [(1, True), (3000, True), (0, False)])
def test_input_max_length_is_at_least_1(ws: EmuSetup, max_length: int, accepted: bool) -> None:
    view = modal([text_input("Brief", "brief", max_length=max_length)])
    if accepted:
        assert ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=view)["ok"]
        return
    with pytest.raises(SlackApiError) as refused:
        ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=view)
    assert "must be at least 1 [json-pointer:/view/blocks/0/element/max_length]" in str(
        refused.value.response
    )


def test_input_initial_value_fits_its_max_length(ws: EmuSetup) -> None:
    fits = modal([text_input("Name", "name", max_length=60, initial_value="n" * 60)])
    assert ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=fits)["ok"]
    over = modal([text_input("Name", "name", max_length=60, initial_value="n" * 61)])
    with pytest.raises(SlackApiError) as refused:
        ws.client.views_open(trigger_id=ws.emu.issue_trigger(ws.alice), view=over)
    assert (
        "must be less than 61 characters [json-pointer:/view/blocks/0/element/"
        "initial_value]" in str(refused.value.response)
    )
