"""A person's browser during an install: the app's install URL, Slack's approval, the way back.

Cookies are carried by hand, per site, as a browser does: the app's (its OAuth ``state``
cookie) go back to the app only, and the emulator's sign-in cookies (which person, which
workspace) go to Slack only. Bolt marks its state cookie ``Secure``; browsers treat loopback
as a secure context and send it over plain HTTP there, which an HTTP library's cookie jar
would not.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from suggestbot.slackemu.errors import DriverError
from suggestbot.slackemu.oauth import AUTHORIZE_PATH, DENY_COOKIE, TEAM_COOKIE, USER_COOKIE

# The "Add to Slack" link of an install page Bolt renders (when it does not redirect at once).
_AUTHORIZE_LINK = re.compile(r'href="([^"]*' + re.escape(AUTHORIZE_PATH) + r'[^"]*)"')


@dataclass(frozen=True)
class InstallResult:
    """How an install attempt ended.

    Attributes:
        status, body: the app's answer to the browser coming back from Slack.
        callback_url: where Slack sent the browser back to (with ``code`` and ``state``).
        app_cookies: the cookies the app set in the browser.
    """

    status: int
    body: str
    callback_url: str
    app_cookies: dict[str, str] = field(default_factory=dict)


def install(
    http: httpx.Client,
    *,
    install_url: str,
    team_id: str,
    user_id: str,
    deny: bool = False,
    tamper: Callable[[str], str] | None = None,
) -> InstallResult:
    """Open ``install_url``, approve (or deny) as ``user_id``, and follow Slack back to the app.

    Args:
        tamper: rewrites the callback URL before the browser follows it (tests of ``state``).
    """
    first = http.get(install_url)
    app_cookies = _set_cookies(first)
    if first.status_code in (301, 302, 303, 307):
        authorize_url = first.headers["location"]
    elif first.status_code == 200 and (link := _AUTHORIZE_LINK.search(first.text)):
        authorize_url = html.unescape(link.group(1))
    else:
        raise DriverError(f"the install URL answered {first.status_code} without a way on")
    slack_cookies = {TEAM_COOKIE: team_id, USER_COOKIE: user_id}
    if deny:
        slack_cookies[DENY_COOKIE] = "1"
    approval = http.get(authorize_url, headers={"Cookie": _cookie_header(slack_cookies)})
    if approval.status_code != 302:
        raise DriverError(f"Slack's authorize page said {approval.status_code}: {approval.text}")
    callback_url = approval.headers["location"]
    if tamper is not None:
        callback_url = tamper(callback_url)
    back = visit(http, callback_url, cookies=app_cookies)
    return InstallResult(back.status_code, back.text, callback_url, app_cookies)


def visit(http: httpx.Client, url: str, *, cookies: dict[str, str]) -> httpx.Response:
    """GET ``url`` with these cookies, as the browser would (no redirects followed)."""
    headers = {"Cookie": _cookie_header(cookies)} if cookies else {}
    return http.get(url, headers=headers)


def _set_cookies(response: httpx.Response) -> dict[str, str]:
    cookies: dict[str, str] = {}
    for header in response.headers.get_list("set-cookie"):
        name, _, value = header.split(";", 1)[0].strip().partition("=")
        if name:
            cookies[name] = value
    return cookies


def _cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())
