"""Times as Slack's own ``<!date^…>`` tokens: each reader sees them in their own zone and
language. The fallback text (notifications, clients that cannot render the token) is written
in the message's language, in UTC, and says so — never a bare epoch number."""

from __future__ import annotations

from datetime import UTC, datetime

from babel.dates import format_date, format_time

from suggestbot.ui.messages import babel_locale


def slack_date(epoch: float, lang: str, *, time_only: bool = False) -> str:
    """A date and time (or only a time of day, to the second) shown in each reader's zone."""
    moment = datetime.fromtimestamp(int(epoch), tz=UTC)
    locale = babel_locale(lang)
    if time_only:
        token, fallback = "{time_secs}", format_time(moment, "medium", tzinfo=UTC, locale=locale)
    else:
        day = format_date(moment, "medium", locale=locale)
        clock = format_time(moment, "short", tzinfo=UTC, locale=locale)
        token = "{date_short_pretty} {time}"
        fallback = str(locale.datetime_formats["medium"]).format(clock, day)
    # "|" and ">" would end the token early; no locale's date pattern uses them, but be sure.
    fallback = fallback.replace("|", "/").replace(">", "")
    return f"<!date^{int(epoch)}^{token}|{fallback} UTC>"
