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
