"""Installing an app through the emulator's OAuth pages, token rotation and uninstalling."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slackemu_helpers import EmuSetup, FakeClock
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.slackemu import SlackCloud, SlackDriver, SlackEmulator

CLIENT_ID = "111.222"
CLIENT_SECRET = "emu-oauth-client-secret"
REDIRECT = "https://app.example/slack/oauth_redirect"


def _error(exc: pytest.ExceptionInfo[SlackApiError]) -> str:
    return str(exc.value.response["error"])


def _authorize(emu: SlackEmulator, *, user: str | None, **query: str) -> httpx.Response:
    params = {"client_id": CLIENT_ID, "scope": "chat:write,commands", "state": "s-1", **query}
    cookies = f"emu_user={user}" if user else ""
    return httpx.get(f"{emu.authorize_url}?{urlencode(params)}", headers={"Cookie": cookies})


def _code(response: httpx.Response) -> str:
    assert response.status_code == 302, response.text
    return parse_qs(urlsplit(response.headers["location"]).query)["code"][0]


def _oauth(emu: SlackEmulator) -> WebClient:
    return WebClient(base_url=emu.api_url)


def test_approving_sends_the_browser_back_with_a_code_and_the_state(ws: EmuSetup) -> None:
    ws.emu.register_app(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT)
    answer = _authorize(ws.emu, user=ws.alice)
    assert answer.status_code == 302
    location = urlsplit(answer.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    query = parse_qs(location.query)
    assert query["state"] == ["s-1"] and query["code"][0]


def test_the_authorize_page_refuses_what_slack_refuses(ws: EmuSetup) -> None:
    ws.emu.register_app(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT)
    assert _authorize(ws.emu, user=ws.alice, client_id="999.999").status_code == 400
    other = _authorize(ws.emu, user=ws.alice, redirect_uri="https://evil.example/cb")
    assert (other.status_code, other.text) == (400, "bad_redirect_uri")
    too_much = _authorize(ws.emu, user=ws.alice, scope="chat:write,admin")
    assert (too_much.status_code, too_much.text) == (400, "invalid_scope")
    assert _authorize(ws.emu, user=None).status_code == 401
    assert _authorize(ws.emu, user="U0NOBODY").status_code == 401


def test_denying_sends_access_denied_and_no_code(ws: EmuSetup) -> None:
    ws.emu.register_app(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT)
    params = urlencode({"client_id": CLIENT_ID, "scope": "chat:write", "state": "s-2"})
    answer = httpx.get(
        f"{ws.emu.authorize_url}?{params}", headers={"Cookie": f"emu_user={ws.alice}; emu_deny=1"}
    )
    query = parse_qs(urlsplit(answer.headers["location"]).query)
    assert query == {"error": ["access_denied"], "state": ["s-2"]}


def test_a_code_gives_a_bot_token_once_in_slacks_shape(ws: EmuSetup) -> None:
    ws.emu.register_app(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT)
    code = _code(_authorize(ws.emu, user=ws.alice))
    answer = _oauth(ws.emu).oauth_v2_access(
        client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code
    )
    assert answer["token_type"] == "bot"
    assert answer["scope"] == "chat:write,commands"
    assert answer["bot_user_id"] == ws.emu.bot_user_id
    assert answer["team"] == {"id": ws.emu.team_id, "name": ws.emu.team_domain}
    assert answer["authed_user"] == {"id": ws.alice}
    assert answer["enterprise"] is None and answer["is_enterprise_install"] is False
    assert "refresh_token" not in answer.data and "expires_in" not in answer.data
    token = answer["access_token"]
    assert token.startswith("xoxb-")
    posted = WebClient(token=token, base_url=ws.emu.api_url).chat_postMessage(
        channel=ws.general, text="installed"
    )
    assert posted["ok"]
    with pytest.raises(SlackApiError) as again:
        _oauth(ws.emu).oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)
    assert _error(again) == "invalid_code"
    assert ws.emu.installs == 1
    recorded = ws.emu.calls("oauth.v2.access")
    assert recorded and all(set(call.args) <= {"client_id", "grant_type"} for call in recorded)


def test_codes_expire_after_ten_minutes(ws: EmuSetup) -> None:
    ws.emu.register_app(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT)
    code = _code(_authorize(ws.emu, user=ws.alice))
    ws.clock.advance(601)
    with pytest.raises(SlackApiError) as late:
        _oauth(ws.emu).oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)
    assert _error(late) == "invalid_code"


def test_wrong_client_credentials_and_grant_types_are_refused(ws: EmuSetup) -> None:
    ws.emu.register_app(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT)
    code = _code(_authorize(ws.emu, user=ws.alice))
    client = _oauth(ws.emu)
    with pytest.raises(SlackApiError) as wrong_secret:
        client.oauth_v2_access(client_id=CLIENT_ID, client_secret="nope", code=code)
    assert _error(wrong_secret) == "bad_client_secret"
    with pytest.raises(SlackApiError) as wrong_id:
        client.oauth_v2_access(client_id="1.2", client_secret=CLIENT_SECRET, code=code)
    assert _error(wrong_id) == "invalid_client_id"
    with pytest.raises(SlackApiError) as grant:
        client.oauth_v2_access(
            client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code, grant_type="password"
        )
    assert _error(grant) == "invalid_grant_type"
    with pytest.raises(SlackApiError) as redirect:
        client.oauth_v2_access(
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            code=_code(_authorize(ws.emu, user=ws.alice, redirect_uri=REDIRECT)),
            redirect_uri="https://elsewhere.example/cb",
        )
    assert _error(redirect) == "bad_redirect_uri"
    # None of the refused attempts used the code up.
    assert client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)


def test_rotating_tokens_expire_and_a_refresh_token_works_once(ws: EmuSetup) -> None:
    ws.emu.register_app(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        redirect_url=REDIRECT,
        token_rotation=True,
        token_lifetime_s=600,
    )
    client = _oauth(ws.emu)
    first = client.oauth_v2_access(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        code=_code(_authorize(ws.emu, user=ws.bob)),
    )
    assert first["access_token"].startswith("xoxe.xoxb-1-")
    assert first["refresh_token"].startswith("xoxe-1-")
    assert first["expires_in"] == 600
    assert ws.emu.token_accepted(first["access_token"])
    ws.clock.advance(600)
    with pytest.raises(SlackApiError) as expired:
        WebClient(token=first["access_token"], base_url=ws.emu.api_url).auth_test()
    assert _error(expired) == "token_expired"

    second = client.oauth_v2_access(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        grant_type="refresh_token",
        refresh_token=first["refresh_token"],
    )
    assert second["token_type"] == "bot" and second["expires_in"] == 600
    assert {second["access_token"], second["refresh_token"]}.isdisjoint(
        {first["access_token"], first["refresh_token"]}
    )
    assert WebClient(token=second["access_token"], base_url=ws.emu.api_url).auth_test()["ok"]
    with pytest.raises(SlackApiError) as reused:
        client.oauth_v2_access(
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            grant_type="refresh_token",
            refresh_token=first["refresh_token"],
        )
    assert _error(reused) == "invalid_refresh_token"
    assert ws.emu.token_refreshes == 1


def test_uninstalling_revokes_every_token(ws: EmuSetup) -> None:
    ws.emu.register_app(
        client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT, token_rotation=True
    )
    issued = _oauth(ws.emu).oauth_v2_access(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        code=_code(_authorize(ws.emu, user=ws.bob)),
    )
    ws.emu.uninstall()
    for token in (issued["access_token"], ws.emu.bot_token):
        with pytest.raises(SlackApiError) as revoked:
            WebClient(token=token, base_url=ws.emu.api_url).auth_test()
        assert _error(revoked) == "token_revoked"
    with pytest.raises(SlackApiError) as refresh:
        _oauth(ws.emu).oauth_v2_access(
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            grant_type="refresh_token",
            refresh_token=issued["refresh_token"],
        )
    assert _error(refresh) == "invalid_refresh_token"


# -- the driver as a person's browser -------------------------------------------------------
class StandInApp:
    """The two pages of an app's install flow: set a state cookie and send the browser to Slack,
    then check the state and exchange the code."""

    def __init__(self, emu: SlackEmulator) -> None:
        self.emu = emu
        self.states: set[str] = set()
        self.tokens: list[str] = []
        self.lock = threading.Lock()
        self.url = ""

    async def install(self, request: Request) -> Response:
        state = secrets.token_urlsafe(8)
        with self.lock:
            self.states.add(state)
        query = urlencode(
            {
                "client_id": CLIENT_ID,
                "scope": "chat:write",
                "state": state,
                "redirect_uri": f"{self.url}/slack/oauth_redirect",
            }
        )
        answer = RedirectResponse(f"{self.emu.authorize_url}?{query}", status_code=302)
        answer.headers["set-cookie"] = f"oauth-state={state}; Secure; HttpOnly; Path=/"
        return answer

    async def callback(self, request: Request) -> Response:
        state = request.query_params.get("state")
        if "error" in request.query_params:
            return PlainTextResponse(request.query_params["error"], status_code=200)
        cookie = request.headers.get("cookie") or ""
        with self.lock:
            known = state in self.states and f"oauth-state={state}" in cookie
            self.states.discard(state or "")
        if not known:
            return PlainTextResponse("invalid_state", status_code=400)
        answer = httpx.post(
            f"{self.emu.api_url}oauth.v2.access",
            data={"code": request.query_params["code"]},
            auth=(CLIENT_ID, CLIENT_SECRET),
        ).json()
        self.tokens.append(answer["access_token"])
        return PlainTextResponse("installed")


@pytest.fixture
def stand_in(ws: EmuSetup) -> Iterator[StandInApp]:
    app = StandInApp(ws.emu)
    routes = [
        Route("/slack/install", app.install, methods=["GET"]),
        Route("/slack/oauth_redirect", app.callback, methods=["GET"]),
    ]
    with BackgroundServer(Starlette(routes=routes)) as server:
        app.url = server.url
        ws.emu.register_app(
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            redirect_url=f"{server.url}/slack/oauth_redirect",
        )
        yield app


def test_the_driver_installs_like_a_person_in_a_browser(
    ws: EmuSetup, stand_in: StandInApp, driver: SlackDriver
) -> None:
    result = driver.install_app(f"{stand_in.url}/slack/install", user_id=ws.alice)
    assert (result.status, result.body) == (200, "installed")
    assert "state=" in result.callback_url and "code=" in result.callback_url
    assert result.app_cookies.keys() == {"oauth-state"}
    assert ws.emu.token_accepted(stand_in.tokens[0])


def test_the_driver_can_deny_or_tamper_with_the_way_back(
    ws: EmuSetup, stand_in: StandInApp, driver: SlackDriver
) -> None:
    denied = driver.install_app(f"{stand_in.url}/slack/install", user_id=ws.alice, deny=True)
    assert denied.body == "access_denied"
    forged = driver.install_app(
        f"{stand_in.url}/slack/install",
        user_id=ws.alice,
        tamper=lambda url: url.replace("state=", "state=forged"),
    )
    assert (forged.status, forged.body) == (400, "invalid_state")
    assert stand_in.tokens == [] and ws.emu.installs == 0


def test_uninstall_app_revokes_and_tells_the_app(ws: EmuSetup, driver: SlackDriver) -> None:
    revoked, uninstalled = driver.uninstall_app()
    assert revoked.status == uninstalled.status == 200
    assert not ws.emu.token_accepted(ws.emu.bot_token)


# -- several workspaces behind one address ----------------------------------------------------
def test_the_cloud_routes_each_call_to_the_workspace_of_its_token() -> None:
    clock = FakeClock()
    north = SlackEmulator(team_id="T0NORTH", team_domain="north", clock=clock)
    south = SlackEmulator(team_id="T0SOUTH", team_domain="south", clock=clock)
    with SlackCloud(north, south) as cloud:
        tokens = {}
        for emu, user in ((north, "U0NORA"), (south, "U0SAM")):
            emu.add_user(user, user.lower())
            emu.register_app(
                client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_url=REDIRECT
            )
            assert emu.authorize_url.startswith(cloud.url)
            params = urlencode({"client_id": CLIENT_ID, "scope": "chat:write", "state": "x"})
            approval = httpx.get(
                f"{emu.authorize_url}?{params}",
                headers={"Cookie": f"emu_team={emu.team_id}; emu_user={user}"},
            )
            answer = WebClient(base_url=cloud.api_url).oauth_v2_access(
                client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=_code(approval)
            )
            assert answer["team"]["id"] == emu.team_id
            tokens[emu.team_id] = answer["access_token"]
        for team_id, token in tokens.items():
            assert WebClient(token=token, base_url=cloud.api_url).auth_test()["team_id"] == team_id
        assert north.installs == south.installs == 1
        with pytest.raises(SlackApiError) as unknown:
            WebClient(token="xoxb-unknown", base_url=cloud.api_url).auth_test()
        assert _error(unknown) == "invalid_auth"
