"""The transcript in a real browser (headless Chromium): every emoji the app sends is shown as
an emoji with a glyph, and the check itself sees a broken image, a missing glyph and a shortcode
left as text. The demo's own transcript is checked in tests/test_demo_runs.py."""

from __future__ import annotations

import re
from pathlib import Path

from suggestbot.demo.browser import check_page, find_browser, screenshot
from suggestbot.demo.html import Scene, mrkdwn_to_html, render_html

UI = Path(__file__).resolve().parents[2] / "src" / "suggestbot" / "ui"
# A shortcode in the app's texts; not a Sphinx role in a docstring (":class:`...`").
SHORTCODE = re.compile(r":([a-z0-9_+-]+):(?!`)")
PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f6e3a10000000049454e44ae426082"
)


def _shortcodes_the_app_sends() -> set[str]:
    """Shortcodes in the code and in every catalogue's sentences."""
    found: set[str] = set()
    for path in [*UI.rglob("*.py"), *UI.rglob("*.po")]:
        found |= set(SHORTCODE.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_shortcode_the_app_sends_is_shown_as_its_emoji() -> None:
    codes = _shortcodes_the_app_sends()
    assert {"sparkles", "hourglass_flowing_sand", "lock", "clock3", "zzz"} <= codes
    for code in codes:
        shown = mrkdwn_to_html(f":{code}: text", {})
        assert f":{code}:" not in shown, code
    # A time keeps its colons.
    assert mrkdwn_to_html("at 10:30:45", {}) == "at 10:30:45"


def _page(tmp_path: Path, body: str, image: bytes | None) -> Path:
    message = {
        "bot_id": "B1",
        "ts": "1.0",
        "text": "t",
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": ":sparkles: Header"}},
            {"type": "section", "text": {"type": "mrkdwn", "text": body}},
            {"type": "image", "image_url": "https://img.test/a.png", "alt_text": "preview"},
            {
                "type": "actions",
                "elements": [
                    {"type": "button", "text": {"type": "plain_text", "text": ":x: Cancel"}}
                ],
            },
        ],
    }
    page = tmp_path / "page.html"
    scenes = [Scene(title="t", messages=[message])]
    page.write_text(render_html(title="t", scenes=scenes, names={}, fetch=lambda url: image))
    return page


def test_every_emoji_the_app_sends_has_a_glyph_in_the_browser(tmp_path: Path) -> None:
    codes = sorted(_shortcodes_the_app_sends())
    page = _page(tmp_path, " ".join(f":{code}:" for code in codes), PNG_1PX)
    report = check_page(page)
    assert report.ok, report.problems()
    assert report.images == 1
    # Each shortcode became one emoji the browser drew (⚠️ and ⚠ are one).
    assert len(report.symbols) >= len(codes)


def test_the_check_sees_a_broken_image_a_missing_glyph_and_a_shortcode(tmp_path: Path) -> None:
    page = _page(tmp_path, "no font has \U000f0001; :not_an_emoji: stays", b"not a png")
    report = check_page(page)
    assert report.problems() == [
        "image did not load: preview",
        "no glyph for '\\U000f0001' (U+F0001)",
        "shortcode shown as text: :not_an_emoji:",
    ]


def test_the_screenshot_is_a_png_of_the_page(tmp_path: Path) -> None:
    assert find_browser() is not None
    out = tmp_path / "shot.png"
    screenshot(_page(tmp_path, "hello", PNG_1PX), out, width=400, height=300)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(data[16:20]), int.from_bytes(data[20:24])) == (400, 300)
