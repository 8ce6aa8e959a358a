"""Workspace admins set their workspace's service credentials from App Home.

Who is an admin is asked of Slack each time (``users.info``: admin or owner), when the Home
is drawn, when the modal opens and again when it is submitted, so a person who stopped being
an admin cannot save. The credentials are checked with the service (a token exchange and a
cheap read) before they are kept; only a working credential replaces the current one. The
admin is told the outcome by direct message and sees it in their Home.
"""

from __future__ import annotations

import logging
from typing import Any

from suggestbot.flows.common import telling
from suggestbot.flows.common.access import is_admin
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.installations.service import CheckResult, ContentClients, check_credentials
from suggestbot.installations.service import url_problem as service_url_problem
from suggestbot.ui.blocks import admin as admin_blocks
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)


def home_section(
    deps: Deps, contents: ContentClients, *, team_id: str, user_id: str, lang: str
) -> list[dict[str, Any]]:
    """The admin's "Workspace settings" blocks; nothing for everyone else."""
    if not team_id or not is_admin(deps, user_id):
        return []
    creds = contents.credentials(team_id)
    own = None
    if creds is not None:
        own = admin_blocks.ServiceSummary(
            url=creds.base_url,
            client_id=creds.client_id,
            set_by=creds.set_by,
            set_at=int(creds.set_at),
        )
    return admin_blocks.build_admin_section(lang=lang, own=own)


def open_modal(deps: Deps, *, trigger_id: str, user_id: str) -> None:
    """Open the service-credentials modal for a workspace admin; anyone else is told only
    admins may.

    Raises:
        SlackApiError: Slack refused to open the modal (an expired trigger).
    """
    lang = deps.lang_of(user_id)
    if not is_admin(deps, user_id):
        _tell(deps, user_id, admin_blocks.admin_notice(lang=lang, notice="only_admins"))
        return
    deps.slack.views_open(trigger_id=trigger_id, view=admin_blocks.build_service_modal(lang=lang))


def form_errors(values: dict[str, Any], lang: str) -> dict[str, str]:
    """Field errors shown in the modal right away (before anything is checked remotely)."""
    errors: dict[str, str] = {}
    url = str(values.get(ids.INPUT_SERVICE_URL) or "").strip()
    problem = service_url_problem(url)
    if problem is not None:
        errors[ids.INPUT_SERVICE_URL] = admin_blocks.url_error(lang=lang, problem=problem)
    return errors


def save(
    deps: Deps, contents: ContentClients, *, team_id: str, user_id: str, values: dict[str, Any]
) -> CheckResult | None:
    """Check the submitted credentials and keep them if they work; tell the admin.

    Returns the check's result, or None when the person is not an admin (nothing checked).
    """
    lang = deps.lang_of(user_id)
    if not is_admin(deps, user_id):
        _tell(deps, user_id, admin_blocks.admin_notice(lang=lang, notice="only_admins"))
        return None
    url = str(values.get(ids.INPUT_SERVICE_URL) or "").strip().rstrip("/")
    client_id = str(values.get(ids.INPUT_SERVICE_CLIENT_ID) or "").strip()
    secret = str(values.get(ids.INPUT_SERVICE_CLIENT_SECRET) or "").strip()
    result = check_credentials(url, client_id, secret)
    if result is CheckResult.OK:
        contents.set_credentials(
            team_id=team_id, base_url=url, client_id=client_id, client_secret=secret, set_by=user_id
        )
        deps.forget_catalog(team_id)
        _tell(deps, user_id, admin_blocks.admin_notice(lang=lang, notice="saved", url=url))
        home.publish(deps, team_id=team_id, user_id=user_id)
    else:
        log.info("workspace %s: service credentials %s; kept the old ones", team_id, result.value)
        notice: admin_blocks.AdminNotice = (
            "rejected" if result is CheckResult.REJECTED else "unreachable"
        )
        _tell(deps, user_id, admin_blocks.admin_notice(lang=lang, notice=notice, url=url))
    return result


def _tell(deps: Deps, user_id: str, text: str) -> None:
    telling.tell_in_dm(deps, user_id=user_id, message=Message(text, []))
