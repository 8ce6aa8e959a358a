"""``suggestbot demo`` is the first thing a new user runs: it must work, end to end."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from suggestbot.demo.browser import check_page


def test_demo_runs_every_step_and_writes_a_self_contained_transcript(tmp_path: Path) -> None:
    page = tmp_path / "transcript.html"
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "demo", "--html", str(page)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "13 of 13 steps worked." in done.stdout
    # Every image URL the app posted was fetched as Slack fetches it, and loaded.
    fetched = re.search(
        r"Images: (\d+) image URLs the app posted were fetched; all loaded", done.stdout
    )
    assert fetched is not None and int(fetched[1]) >= 5, done.stdout[-2000:]
    for step in (
        "connects",
        "three variants",
        "refines",
        "new image",
        "renames",
        "shares",
        "digest",
        "retries",
        "Messages tab",
        "into a brief",
        "copies",
        "rate variants",
        "workflow",
    ):
        assert step in done.stdout
    html = page.read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= 3  # previews embedded, not linked
    assert "sig=" not in html and "127.0.0.1" not in html  # no signed URL kept in the file
    assert "Turn 3" in html and "Tent launch" in html
    assert 'class="carousel"' in html and "Copy text" in html  # the gallery
    assert "Good suggestion" in html and "Usage in this workspace" in html  # feedback, panel
    assert "Workflow step completed" in html
    # As a person sees it in a browser: every image loads, every emoji has a glyph.
    report = check_page(page)
    assert report.ok, report.problems()
    assert report.images >= 3 and "✨" in report.symbols


def test_demo_runs_every_step_in_the_pseudo_locale(tmp_path: Path) -> None:
    """Every message and view the session produces, accented and 40 % longer, is taken by the
    emulator (as strict as Slack's Block Kit limits) and read back by the steps: nothing in the
    app is English-only, too tight for a longer language, or left with a placeholder."""
    page = tmp_path / "transcript.html"
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "demo", "--locale", "pseudo", "--html", str(page)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "14 of 14 steps worked." in done.stdout
    html = page.read_text(encoding="utf-8")
    assert "Çöpý téxt" in html and "Řéfîñé…" in html  # the app's words, pseudo-translated
    assert '"btn ">Copy text<' not in html and "Usage in this workspace" not in html
    assert not re.search(r"\{[a-z_]+\}", html)  # no placeholder left unfilled


def test_demo_refuses_a_locale_no_enabled_catalogue_reads(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "demo", "--locale", "xx-XX"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "no enabled catalogue reads it" in done.stderr


def test_demo_runs_every_step_in_german(tmp_path: Path) -> None:
    """A real catalogue end to end, with what English does not have (a narrow no-break space
    in "50 %", longer words): every step finds what it looks for in German."""
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "demo", "--locale", "de-DE", "--html", "t.html"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "14 of 14 steps worked." in done.stdout
    assert "Kanal-Beiträge" in done.stdout or "Channel-Beiträge" in done.stdout
