"""Streamed replies: assembled like a plain one; cut at the run's deadline, the connection is closed so the server stops."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from planexec.config import Config
from planexec.errors import LLMError
from planexec.llm.base import Message
from planexec.llm.bounded import BoundedLLM
from planexec.llm.openai_chat import OpenAIChat
from planexec.llm.retry import RetryPolicy

HI = [Message("user", "hi")]


def _event(content: str | None, finish: str | None = None) -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "sse",
             "choices": [{"index": 0, "delta": {"content": content} if content else {}, "finish_reason": finish}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


class _SSE(BaseHTTPRequestHandler):
    """Streams 'hello world' in two chunks, or (path /slow/) one chunk a second until the client leaves."""

    protocol_version = "HTTP/1.1"
    left = threading.Event()
    bodies: list[dict[str, Any]] = []

    def log_message(self, *a: Any) -> None:
        pass

    def do_POST(self) -> None:
        type(self).bodies.append(json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0))))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        slow = self.path.startswith("/slow/")
        events = [_event("tick ")] * 60 if slow else [_event("hello "), _event("world", "stop")]
        try:
            for event in [*events, b"data: [DONE]\n\n"]:
                self.wfile.write(event)
                self.wfile.flush()
                if slow:
                    time.sleep(0.5)
        except OSError:  # the client closed the connection: a streaming server stops writing here
            type(self).left.set()


@pytest.fixture
def sse_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SSE)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _SSE.left.clear()
    _SSE.bodies.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_streamed_reply_is_assembled_and_counted(sse_url: str) -> None:
    client = OpenAIChat("m", "k", f"{sse_url}/v1", timeout=10, retry=RetryPolicy(max_retries=0))
    client.stream = True
    try:
        done = client.complete(HI, max_tokens=8)
    finally:
        client.close()
    assert (done.text, done.finish_reason, done.model) == ("hello world", "stop", "sse")
    assert _SSE.bodies[0]["stream"] is True and _SSE.bodies[0]["max_tokens"] == 8
    assert done.usage.calls == 1 and done.usage.completion_tokens > 0  # no counts sent: estimated


def test_a_stream_cut_at_the_deadline_closes_the_connection_and_says_so_in_one_line(sse_url: str) -> None:
    client = OpenAIChat("m", "k", f"{sse_url}/slow/v1", timeout=30, retry=RetryPolicy(max_retries=2, base=0.05))
    client.stream = True
    bounded = BoundedLLM(client, Config(timeout=1.5))
    bounded.start_run()
    try:
        with pytest.raises(LLMError) as caught:
            bounded.complete(HI)
    finally:
        client.close()
    message = str(caught.value)
    assert "deadline" in message and sse_url in message and "\n" not in message
    assert _SSE.left.wait(10), "the server went on writing to a client that had given up"
