"""The demo's HTML transcript seen in a real browser: headless Chromium opens it, says which
images did not load and which symbols have no glyph, and takes the README's picture.

A page can look right to a parser and still show a broken-image icon or an empty box where an
emoji should be (no font on the machine has it). Chromium lays the page out with the machine's
real fonts; a script added to a copy of the page asks it, after the page has loaded:

- each ``<img>``: did it decode (``naturalWidth`` > 0)?
- each character beyond ASCII in the visible text (an emoji among them): drawn on a canvas,
  does it differ from the drawing of a code point no font has (the "missing glyph" box), and is
  it not blank?
- does any Slack shortcode (``:sparkles:``) remain as text?

Run ``python -m suggestbot.demo.browser demo-transcript.html --screenshot docs/demo-transcript.png``
to check a transcript and take the picture of its first results. Needs ``chromium`` (Debian:
``apt-get install chromium fonts-noto-color-emoji``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 60
_REPORT_ID = "suggestbot-browser-check"

# Runs once the page (and every image in it) has loaded; leaves its findings as JSON in a <pre>.
_CHECK_SCRIPT = """
<script>
window.addEventListener("load", () => {
  const report = {images: 0, checked: 0, broken: [], symbols: [], missing: [], shortcodes: []};
  for (const img of document.images) {
    report.images += 1;
    if (!img.complete || img.naturalWidth === 0) report.broken.push(img.alt || "(no alt text)");
  }
  const text = document.body.innerText;
  report.shortcodes = [...new Set(text.match(/:[a-z0-9_+-]+:/g) || [])];
  // Every character beyond ASCII, as the reader sees it (an emoji with its variation
  // selector or joiners is one), except spaces and invisible format characters.
  const graphemes = [...new Intl.Segmenter("en", {granularity: "grapheme"}).segment(text)];
  const shown = new Set(graphemes.map((g) => g.segment)
    .filter((g) => /[^\\x00-\\x7F]/.test(g) && !/^[\\s\\p{Cf}]+$/u.test(g)));
  const font = getComputedStyle(document.body).fontFamily;
  const canvas = document.createElement("canvas");
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext("2d", {willReadFrequently: true});
  const draw = (s) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = "40px " + font;
    ctx.textBaseline = "top";
    ctx.fillStyle = "#000";
    ctx.fillText(s, 4, 4);
    return Array.from(ctx.getImageData(0, 0, 64, 64).data).join(",");
  };
  const blank = draw("");
  const boxes = new Set([draw("\\u{10FFFD}"), draw("\\u{10FFFC}"), draw("\\u{E0FFF}")]);
  report.checked = shown.size;
  for (const s of shown) {
    if (/\\p{Extended_Pictographic}|\\p{So}/u.test(s)) report.symbols.push(s);
    const drawn = draw(s);
    if (drawn === blank || boxes.has(drawn)) report.missing.push(s);
  }
  const out = document.createElement("pre");
  out.id = "REPORT_ID";
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
});
</script>
""".replace("REPORT_ID", _REPORT_ID)


@dataclass(frozen=True)
class BrowserReport:
    """What Chromium saw on the page."""

    images: int
    # characters beyond ASCII whose glyph was looked at; the emoji and symbols among them
    checked: int
    broken_images: tuple[str, ...]
    symbols: tuple[str, ...]
    missing_glyphs: tuple[str, ...]
    shortcodes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not (self.broken_images or self.missing_glyphs or self.shortcodes)

    def problems(self) -> list[str]:
        """Each problem in plain words (empty when the page looks right)."""
        said = [f"image did not load: {alt}" for alt in self.broken_images]
        said += [f"no glyph for {s!r} (U+{ord(s[0]):04X})" for s in self.missing_glyphs]
        said += [f"shortcode shown as text: {code}" for code in self.shortcodes]
        return said


def find_browser() -> str | None:
    """The Chromium on this machine (``$CHROMIUM`` first), or None."""
    named = os.environ.get("CHROMIUM")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def _chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        browser,
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--no-first-run",
        "--no-default-browser-check",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, stdin=None
    )


def check_page(page: Path, *, browser: str | None = None) -> BrowserReport:
    """Open ``page`` in headless Chromium and report what it shows (the file is not changed)."""
    browser = browser or find_browser()
    if browser is None:
        raise RuntimeError("no Chromium found: install it (Debian: apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="suggestbot-browser-") as tmp:
        copy = Path(tmp) / page.name
        copy.write_text(page.read_text(encoding="utf-8") + _CHECK_SCRIPT, encoding="utf-8")
        done = _chromium(
            browser,
            Path(tmp) / "profile",
            "--virtual-time-budget=5000",
            "--dump-dom",
            copy.as_uri(),
        )
    found = re.search(rf'<pre id="{_REPORT_ID}">(.*?)</pre>', done.stdout, re.DOTALL)
    if found is None:
        raise RuntimeError(
            f"Chromium did not run the page's check (exit {done.returncode}): "
            f"{done.stderr.strip()[-500:]}"
        )
    data = json.loads(_unescape(found[1]))
    return BrowserReport(
        images=int(data["images"]),
        checked=int(data["checked"]),
        broken_images=tuple(data["broken"]),
        symbols=tuple(data["symbols"]),
        missing_glyphs=tuple(data["missing"]),
        shortcodes=tuple(data["shortcodes"]),
    )


def _unescape(text: str) -> str:
    return (
        text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    )


def screenshot(
    page: Path, out: Path, *, width: int = 900, height: int = 1400, browser: str | None = None
) -> None:
    """A PNG of the top of ``page`` (``width`` x ``height`` CSS pixels) at ``out``."""
    browser = browser or find_browser()
    if browser is None:
        raise RuntimeError("no Chromium found: install it (Debian: apt-get install chromium)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="suggestbot-browser-") as tmp:
        done = _chromium(
            browser,
            Path(tmp) / "profile",
            f"--window-size={width},{height}",
            "--virtual-time-budget=5000",
            f"--screenshot={out.resolve()}",
            page.resolve().as_uri(),
        )
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"Chromium took no screenshot: {done.stderr.strip()[-500:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suggestbot.demo.browser", description=__doc__)
    parser.add_argument("page", type=Path, help="the transcript (demo-transcript.html)")
    parser.add_argument("--screenshot", type=Path, help="also save a picture of its top here")
    args = parser.parse_args(argv)
    report = check_page(args.page)
    print(
        f"{report.images} images; {report.checked} characters beyond ASCII checked for a glyph, "
        f"the emoji and symbols among them: {' '.join(report.symbols)}"
    )
    for problem in report.problems():
        print(f"✗ {problem}")
    if args.screenshot is not None:
        screenshot(args.page, args.screenshot)
        print(f"screenshot: {args.screenshot}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
