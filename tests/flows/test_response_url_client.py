"""The one HTTP client that answers through ``response_url``s lives as long as the process and
is closed as the process ends: no "unclosed socket" warning when a run (a test suite, a replica)
exits after answering."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from suggestbot.flows.common import telling
    from suggestbot.ui.blocks.results import Message

    class Answer(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Slack: the client pools the socket

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/response"
    assert telling.answer_via(url, Message(text="hi", blocks=[]), replace_original=False)
    server.shutdown()
    server.server_close()
    print("answered")
    """
)


def test_a_process_that_answered_through_a_response_url_ends_without_an_unclosed_socket() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "always::ResourceWarning", "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "answered" in done.stdout
    assert "ResourceWarning" not in done.stderr, done.stderr
