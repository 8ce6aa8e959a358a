"""What a workspace admin is told about the service credentials, in English and German."""

from __future__ import annotations

import pytest

from suggestbot.ui.blocks.admin import AdminNotice, admin_notice, url_error

URL = "https://content.example.com"


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "Only a workspace admin can change the workspace's content service."),
        ("de", "Nur Workspace-Admins können den Content-Dienst des Workspace ändern."),
    ],
)
def test_someone_not_an_admin_is_told_who_may(lang: str, expected: str) -> None:
    assert admin_notice(lang=lang, notice="only_admins") == expected


@pytest.mark.parametrize(
    ("lang", "saved", "rejected", "unreachable"),
    [
        ("en", "Checked and saved", "did not accept", "could not be reached"),
        ("de", "Geprüft und gespeichert", "nicht akzeptiert", "nicht erreichbar"),
    ],
)
def test_each_check_outcome_names_the_address_checked(
    lang: str, saved: str, rejected: str, unreachable: str
) -> None:
    outcomes: list[tuple[AdminNotice, str]] = [
        ("saved", saved),
        ("rejected", rejected),
        ("unreachable", unreachable),
    ]
    for notice, words in outcomes:
        text = admin_notice(lang=lang, notice=notice, url=URL)
        assert words in text and URL in text
    assert "nothing" in admin_notice(lang="en", notice="rejected", url=URL).lower()


@pytest.mark.parametrize(
    ("lang", "invalid", "insecure"),
    [
        ("en", "Enter the service's address", "Use an https:// address"),
        ("de", "Gib die Adresse des Dienstes ein", "Verwende eine https://-Adresse"),
    ],
)
def test_a_url_that_cannot_be_a_service_gets_its_own_field_error(
    lang: str, invalid: str, insecure: str
) -> None:
    assert url_error(lang=lang, problem="url_invalid").startswith(invalid)
    assert url_error(lang=lang, problem="url_insecure").startswith(insecure)
