"""Every sentence a Slack user reads, in English and German.

Handlers and block builders never hold user-facing text themselves; they ask :func:`t` for it
by key, with the user's locale from ``users.info``. A missing German text falls back to English,
and a missing key is a programming error (KeyError), caught by the tests that render every key.
"""

from __future__ import annotations

from typing import Any

SUPPORTED = ("en", "de")

_EN: dict[str, str] = {
    # help
    "help.title": "suggestbot — content suggestions in Slack",
    "help.body": (
        "*Briefs*\n"
        "`/suggest brief [text]` — send a brief; 1–3 variants arrive in a thread.\n"
        "Briefs typed in the modal hold up to 3,000 characters; for longer briefs (up to 4,000) "
        "type them after `/suggest brief`.\n"
        "\n"
        "*Account*\n"
        "`/suggest connect` — link your personal token of the content service.\n"
        "`/suggest disconnect` — unlink it.   `/suggest status` — show your link.\n"
        "`/suggest help` — this help."
    ),
    "help.unknown_subcommand": "I don't know `/suggest {sub}`. Here is what I can do:",
    # linking
    "connect.title": "Connect account",
    "connect.label": "Personal token",
    "connect.hint": "Paste the personal token of your content service account. "
    "It is stored encrypted and never shown again.",
    "connect.submit": "Connect",
    "connect.cancel": "Cancel",
    "connect.done": ":white_check_mark: Your account is connected.",
    "connect.rejected": "The service did not accept this token. Check it and try again.",
    "connect.empty": "Paste your token here.",
    "connect.unreachable": "The service could not be reached to check this token. "
    "Please try again in a minute.",
    "connect.button": "Connect account",
    "connect.checking": ":hourglass_flowing_sand: Checking your token with the service…",
    "connect.held_ready": "Your account is connected. Your brief is kept: press *Resend* to "
    "send it.",
    "modal.close": "Close",
    "error.only_author": "Only <@{user}>, who sent this brief, can do that: runs are created "
    "with the author's own account.",
    "connect.needed": "You need to connect your content service account first. "
    "What you typed is kept: press *Resend* once you are connected.",
    "connect.expired": "The service no longer accepts your token. Connect again with "
    "`/suggest connect`; what you asked for is kept and can be resent with one click.",
    "disconnect.done": "Your account is disconnected. Your token has been deleted.",
    "disconnect.none": "No account is connected.",
    "status.linked": ":link: Your account is connected (since {since}).",
    "status.expired": ":warning: Your token was rejected by the service on {since}. "
    "Connect again with `/suggest connect`.",
    "status.unlinked": "No account is connected. Use `/suggest connect`.",
    "status.workspace_ok": "Workspace: connected to the content service ({mode}).",
    "status.workspace_down": "Workspace: the content service is not reachable right now.",
    "status.mode_embedded": "built-in sandbox",
    "status.mode_service": "content service",
    # brief modal
    "brief.title": "New brief",
    "brief.submit": "Send brief",
    "brief.cancel": "Cancel",
    "brief.segment": "Segment",
    "brief.use_case": "Use case",
    "brief.text": "Brief",
    "brief.text_hint": "Instructions for the generator, not the copy itself. "
    "Up to 3,000 characters here; longer briefs (to 4,000) via `/suggest brief <text>`.",
    "brief.variants": "Variants",
    "brief.long_kept": "Your brief of {count} characters is kept as you typed it and sent "
    "with the choices below.",
    "brief.loading": "Loading segments and use cases…",
    "brief.no_segments": "No segment or use case is set up for content yet. Ask an admin.",
    "brief.input_too_long": "This brief has {count} characters; the service takes at most 4,000.",
    "brief.input_rejected": "The brief is empty. Write what the content should achieve.",
    "brief.input_invalid_encoding": "The brief contains control characters that are not text. "
    "Remove them and send again.",
    "brief.rejected_by_service": "The service refused this brief ({code}). "
    "Reword it and send again.",
    "brief.using_defaults": "Sending your brief for *{segment}* / *{use_case}* "
    "({variants} variant(s)).",
    "brief.change": "Change",
    # root message
    "root.queued": ":hourglass_flowing_sand: Brief from <@{user}> is queued.",
    "root.running": ":gear: Generating for <@{user}>… (attempt {attempt})",
    "root.requeued": ":hourglass_flowing_sand: Generating for <@{user}>: the service is "
    "retrying (attempt {attempt} finished without a result). Nothing is lost.",
    "root.sending": ":outbox_tray: Sending brief from <@{user}>…",
    "root.ready": ":sparkles: {count} suggestion(s) for <@{user}> are ready. "
    "Reply in this thread to refine.",
    "root.failed": ":x: The brief from <@{user}> failed: {reason}",
    "root.delayed": ":snail: The service is busy. The brief from <@{user}> will be sent "
    "automatically at {when}.",
    "root.waiting_for_user": ":warning: The brief from <@{user}> is waiting: {reason}",
    "root.brief_quote": "> {brief}",
    "root.context": "{segment} · {use_case} · {variants} variant(s)",
    # variants
    "variant.header": "Variant {n} of {total}",
    "variant.kind.email": "Email",
    "variant.kind.social_single_image": "Social post",
    "variant.subject": "*Subject:* {subject}",
    "variant.rationale": "_Why:_ {rationale}",
    "variant.refresh": "Refresh preview",
    "variant.preview_expired": "Image preview links expire after 15 minutes: press "
    "*Refresh preview* to see the image again.",
    "variant.skipped": "{count} suggestion(s) of a kind this app does not know yet were skipped.",
    "variant.continued": "(continued)",
    # failures
    "fail.generation_failed": "the service failed while generating.",
    "fail.generation_timeout": "the service ran out of time. A shorter brief or fewer variants "
    "may help.",
    "fail.steering_disabled": "generation from your own instructions is switched off for this "
    "workspace. Ask your service admin to switch it on; retrying will not help.",
    "fail.output_rejected": "the generated content failed the service's safety check. Reword the "
    "brief and send it again.",
    "fail.invalid_parent": "the suggestion being refined is no longer the newest in its thread.",
    "fail.image_not_applicable": "this content has no image, so the image cannot be regenerated.",
    "fail.unknown": "the service reported an unexpected failure (`{code}`).",
    "fail.service_unavailable": "the service could not be reached. Press *Retry* to send again.",
    "fail.uncertain": "the connection broke while sending; the brief may or may not have "
    "arrived. Press *Retry* to send it again if no result appears.",
    "fail.internal": "something went wrong on our side (reference `{ref}`). Press *Retry*.",
    "fail.watch_expired": "the run has not finished after a long wait. It may still finish: "
    "press *Check again*.",
    "button.check_again": "Check again",
    "button.retry": "Retry",
    "button.edit_resend": "Edit and resend",
    "button.resend": "Resend",
    "button.resend_without_image": "Resend without image",
    "button.refine_head": "Refine newest",
    # slack delivery problems
    "slack.not_in_channel": "I'm not a member of <#{channel}>, so I can't post there. "
    "Invite me with `/invite @suggestbot`. Meanwhile your results come here by direct message.",
    "slack.dm_fallback": "Results for your brief from <#{channel}> (I'm not in that channel):",
    # generic
    "error.generic": "Sorry, something went wrong (reference `{ref}`). Please try again.",
    "error.not_found": "The service does not know that item, or you may not see it.",
    "error.rate_limited": "The service is busy; try again in {seconds} seconds.",
}

_DE: dict[str, str] = {
    "help.title": "suggestbot — Content-Vorschläge in Slack",
    "help.body": (
        "*Briefings*\n"
        "`/suggest brief [Text]` — Briefing senden; 1–3 Varianten erscheinen im Thread.\n"
        "Im Dialog passen bis zu 3.000 Zeichen; längere Briefings (bis 4.000) "
        "direkt nach `/suggest brief` eingeben.\n"
        "\n"
        "*Konto*\n"
        "`/suggest connect` — persönliches Token des Content-Dienstes verknüpfen.\n"
        "`/suggest disconnect` — Verknüpfung lösen.   `/suggest status` — Verknüpfung anzeigen.\n"
        "`/suggest help` — diese Hilfe."
    ),
    "help.unknown_subcommand": "`/suggest {sub}` kenne ich nicht. Das kann ich:",
    "connect.title": "Konto verknüpfen",
    "connect.label": "Persönliches Token",
    "connect.hint": "Füge das persönliche Token deines Content-Dienst-Kontos ein. "
    "Es wird verschlüsselt gespeichert und nie wieder angezeigt.",
    "connect.submit": "Verknüpfen",
    "connect.cancel": "Abbrechen",
    "connect.done": ":white_check_mark: Dein Konto ist verknüpft.",
    "connect.rejected": "Der Dienst hat dieses Token nicht akzeptiert. Prüfe es und versuche es "
    "erneut.",
    "connect.empty": "Füge hier dein Token ein.",
    "connect.unreachable": "Der Dienst war zum Prüfen des Tokens nicht erreichbar. "
    "Bitte versuche es in einer Minute erneut.",
    "connect.button": "Konto verknüpfen",
    "connect.checking": ":hourglass_flowing_sand: Dein Token wird beim Dienst geprüft…",
    "connect.held_ready": "Dein Konto ist verknüpft. Dein Briefing ist aufbewahrt: Drücke "
    "*Erneut senden*, um es zu senden.",
    "modal.close": "Schließen",
    "error.only_author": "Nur <@{user}>, von dem dieses Briefing stammt, kann das tun: Läufe "
    "werden mit dem eigenen Konto erstellt.",
    "connect.needed": "Verknüpfe zuerst dein Konto beim Content-Dienst. Deine Eingabe bleibt "
    "erhalten: Drücke *Erneut senden*, sobald du verknüpft bist.",
    "connect.expired": "Der Dienst akzeptiert dein Token nicht mehr. Verknüpfe es neu mit "
    "`/suggest connect`; deine Anfrage bleibt erhalten und lässt sich mit einem Klick erneut "
    "senden.",
    "disconnect.done": "Dein Konto ist getrennt. Dein Token wurde gelöscht.",
    "disconnect.none": "Es ist kein Konto verknüpft.",
    "status.linked": ":link: Dein Konto ist verknüpft (seit {since}).",
    "status.expired": ":warning: Dein Token wurde am {since} vom Dienst abgelehnt. "
    "Verknüpfe es neu mit `/suggest connect`.",
    "status.unlinked": "Es ist kein Konto verknüpft. Nutze `/suggest connect`.",
    "status.workspace_ok": "Workspace: mit dem Content-Dienst verbunden ({mode}).",
    "status.workspace_down": "Workspace: der Content-Dienst ist gerade nicht erreichbar.",
    "status.mode_embedded": "eingebaute Sandbox",
    "status.mode_service": "Content-Dienst",
    "brief.title": "Neues Briefing",
    "brief.submit": "Senden",
    "brief.cancel": "Abbrechen",
    "brief.segment": "Segment",
    "brief.use_case": "Anwendungsfall",
    "brief.text": "Briefing",
    "brief.text_hint": "Anweisungen für den Generator, nicht der Text selbst. Hier bis zu "
    "3.000 Zeichen; längere Briefings (bis 4.000) über `/suggest brief <Text>`.",
    "brief.variants": "Varianten",
    "brief.long_kept": "Dein Briefing mit {count} Zeichen bleibt wie eingegeben und wird mit "
    "der Auswahl unten gesendet.",
    "brief.loading": "Segmente und Anwendungsfälle werden geladen…",
    "brief.no_segments": "Noch kein Segment oder Anwendungsfall ist eingerichtet. "
    "Frag eine Admin-Person.",
    "brief.input_too_long": "Dieses Briefing hat {count} Zeichen; "
    "der Dienst nimmt höchstens 4.000.",
    "brief.input_rejected": "Das Briefing ist leer. Beschreibe, was der Inhalt erreichen soll.",
    "brief.input_invalid_encoding": "Das Briefing enthält Steuerzeichen, die kein Text sind. "
    "Entferne sie und sende erneut.",
    "brief.rejected_by_service": "Der Dienst hat dieses Briefing abgelehnt ({code}). "
    "Formuliere es um und sende es erneut.",
    "brief.using_defaults": "Dein Briefing geht an *{segment}* / *{use_case}* "
    "({variants} Variante(n)).",
    "brief.change": "Ändern",
    "root.queued": ":hourglass_flowing_sand: Briefing von <@{user}> ist in der Warteschlange.",
    "root.running": ":gear: Generiere für <@{user}>… (Versuch {attempt})",
    "root.requeued": ":hourglass_flowing_sand: Generiere für <@{user}>: Der Dienst versucht es "
    "erneut (Versuch {attempt} endete ohne Ergebnis). Es geht nichts verloren.",
    "root.sending": ":outbox_tray: Sende Briefing von <@{user}>…",
    "root.ready": ":sparkles: {count} Vorschlag/Vorschläge für <@{user}> sind fertig. "
    "Antworte in diesem Thread, um zu verfeinern.",
    "root.failed": ":x: Das Briefing von <@{user}> ist fehlgeschlagen: {reason}",
    "root.delayed": ":snail: Der Dienst ist ausgelastet. Das Briefing von <@{user}> wird um "
    "{when} automatisch gesendet.",
    "root.waiting_for_user": ":warning: Das Briefing von <@{user}> wartet: {reason}",
    "root.brief_quote": "> {brief}",
    "root.context": "{segment} · {use_case} · {variants} Variante(n)",
    "variant.header": "Variante {n} von {total}",
    "variant.kind.email": "E-Mail",
    "variant.kind.social_single_image": "Social-Post",
    "variant.subject": "*Betreff:* {subject}",
    "variant.rationale": "_Warum:_ {rationale}",
    "variant.refresh": "Vorschau erneuern",
    "variant.preview_expired": "Bildlinks laufen nach 15 Minuten ab: Drücke *Vorschau erneuern*, "
    "um das Bild wieder zu sehen.",
    "variant.skipped": "{count} Vorschlag/Vorschläge einer hier noch unbekannten Art wurden "
    "übersprungen.",
    "variant.continued": "(Fortsetzung)",
    "fail.generation_failed": "beim Generieren ist im Dienst ein Fehler aufgetreten.",
    "fail.generation_timeout": "dem Dienst ist die Zeit ausgegangen. Ein kürzeres Briefing oder "
    "weniger Varianten können helfen.",
    "fail.steering_disabled": "das Generieren aus eigenen Anweisungen ist für diesen Workspace "
    "ausgeschaltet. Bitte die Admin-Person des Dienstes, es einzuschalten; erneutes Senden hilft "
    "nicht.",
    "fail.output_rejected": "der generierte Inhalt hat die Sicherheitsprüfung des Dienstes nicht "
    "bestanden. Formuliere das Briefing um und sende es erneut.",
    "fail.invalid_parent": "der zu verfeinernde Vorschlag ist nicht mehr der neueste im Thread.",
    "fail.image_not_applicable": "dieser Inhalt hat kein Bild; es kann nicht neu erzeugt werden.",
    "fail.unknown": "der Dienst meldete einen unerwarteten Fehler (`{code}`).",
    "fail.service_unavailable": "der Dienst war nicht erreichbar. Drücke *Erneut versuchen*.",
    "fail.uncertain": "die Verbindung brach beim Senden ab; das Briefing ist vielleicht "
    "angekommen. Drücke *Erneut versuchen*, falls kein Ergebnis erscheint.",
    "fail.internal": "bei uns ist etwas schiefgegangen (Referenz `{ref}`). Drücke *Erneut "
    "versuchen*.",
    "fail.watch_expired": "der Lauf ist nach langer Wartezeit nicht fertig. Er kann noch "
    "fertig werden: Drücke *Erneut prüfen*.",
    "button.check_again": "Erneut prüfen",
    "button.retry": "Erneut versuchen",
    "button.edit_resend": "Bearbeiten und senden",
    "button.resend": "Erneut senden",
    "button.resend_without_image": "Ohne Bild senden",
    "button.refine_head": "Neuesten verfeinern",
    "slack.not_in_channel": "Ich bin nicht Mitglied von <#{channel}> und kann dort nicht posten. "
    "Lade mich mit `/invite @suggestbot` ein. Bis dahin kommen deine Ergebnisse per "
    "Direktnachricht.",
    "slack.dm_fallback": "Ergebnisse deines Briefings aus <#{channel}> (ich bin nicht in diesem "
    "Kanal):",
    "error.generic": "Entschuldigung, da ist etwas schiefgegangen (Referenz `{ref}`). "
    "Bitte versuche es erneut.",
    "error.not_found": "Der Dienst kennt dieses Element nicht, oder du darfst es nicht sehen.",
    "error.rate_limited": "Der Dienst ist ausgelastet; versuche es in {seconds} Sekunden erneut.",
}

_CATALOGUES: dict[str, dict[str, str]] = {"en": _EN, "de": _DE}


def language_of(slack_locale: str | None) -> str:
    """Map a Slack user locale (``de-DE``, ``en-GB``…) to one of :data:`SUPPORTED`."""
    if not slack_locale:
        return "en"
    lang = slack_locale.replace("_", "-").split("-", 1)[0].lower()
    return lang if lang in SUPPORTED else "en"


def t(key: str, lang: str = "en", /, **values: Any) -> str:
    """The sentence ``key`` in ``lang`` (falling back to English), with ``values`` filled in."""
    template = _CATALOGUES.get(lang, _EN).get(key) or _EN[key]
    return template.format(**values) if values else template


def keys() -> list[str]:
    return sorted(_EN)


def untranslated() -> list[str]:
    """Keys with no German text yet (the tests keep this empty)."""
    return sorted(set(_EN) - set(_DE))
