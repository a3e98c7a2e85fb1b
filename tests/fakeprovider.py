"""A fake LLM provider: a threaded HTTP server on 127.0.0.1 speaking OpenAI and Anthropic.

Tests start it themselves and point the real SDK clients at it:

    with FakeProvider([text("hi"), rate_limited(retry_after=1), text("again")]) as fake:
        llm = OpenAIChat("m", base_url=fake.openai_url)

Each request takes the next scripted reply (`POST /v1/chat/completions` answers with an
OpenAI chat.completion, `POST /v1/messages` with an Anthropic message). Faults are replies
too: any status with headers, a slow reply, a body that is not JSON. `mode="llamacpp"`
refuses `response_format` json_schema with HTTP 500 the way llama-cpp-python 0.3.x does
(without consuming a reply); `mode="plain"` refuses every response_format with 400.
Every request is recorded (path, headers, JSON body) in `requests`.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["openai", "llamacpp", "plain"]

LLAMACPP_REJECTION = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
    "  Input should be 'text' or 'json_object' [type=literal_error, "
    "input_value='json_schema', input_type=str]"
)


@dataclass(frozen=True)
class Reply:
    """One scripted answer: model text, or a fault (status, headers, raw body, delay)."""

    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    """Sent as the body instead of a provider object (with `content_type`)."""
    content_type: str = "application/json"
    delay: float = 0.0
    """Seconds to wait before answering (longer than the client timeout = a timeout)."""
    usage: tuple[int, int] = (11, 7)
    """Prompt and completion tokens reported."""


@dataclass(frozen=True)
class Request:
    """What the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


def text(value: str, usage: tuple[int, int] = (11, 7)) -> Reply:
    return Reply(text=value, usage=usage)


def error(status: int, message: str = "fake error", headers: dict[str, str] | None = None) -> Reply:
    body = {"error": {"message": message, "type": "fake_error", "param": None, "code": None}}
    return Reply(status=status, headers=headers or {}, raw=json.dumps(body).encode())


def rate_limited(retry_after: float | None = None, retry_after_ms: int | None = None) -> Reply:
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = f"{retry_after:g}"
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return error(429, "rate limited", headers)


def slow(seconds: float, value: str = "late") -> Reply:
    return Reply(text=value, delay=seconds)


def not_json(content_type: str = "text/html") -> Reply:
    return Reply(raw=b"<html><body>502 Bad Gateway (proxy)</body></html>", content_type=content_type)


class FakeProvider:
    """The server; use as a context manager. `default` answers when the script is empty."""

    def __init__(
        self,
        replies: Iterable[Reply | str] = (),
        *,
        mode: Mode = "openai",
        default: Reply | str | None = None,
    ) -> None:
        self.mode = mode
        self.default = _as_reply(default) if default is not None else None
        self.requests: list[Request] = []
        self._script: deque[Reply] = deque(_as_reply(r) for r in replies)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting and inspection -------------------------------------------------------
    def push(self, *replies: Reply | str) -> None:
        with self._lock:
            self._script.extend(_as_reply(r) for r in replies)

    def count(self, path_suffix: str = "") -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.path.endswith(path_suffix))

    @property
    def url(self) -> str:
        assert self._server is not None, "start the FakeProvider first (use `with`)"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        """base_url for the OpenAI SDK (it appends /chat/completions)."""
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        """base_url for the Anthropic SDK (it appends /v1/messages)."""
        return self.url

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> FakeProvider:
        handler = type("Handler", (_Handler,), {"provider": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling (called from handler threads) ---------------------------------
    def _answer(self, request: Request) -> tuple[Reply, bytes]:
        with self._lock:
            self.requests.append(request)
            refusal = self._refusal(request)
            if refusal is not None:
                return refusal, refusal.raw or b""
            if self._script:
                reply = self._script.popleft()
            elif self.default is not None:
                reply = self.default
            else:
                reply = error(500, "FakeProvider: no scripted reply left")
        if reply.raw is not None:
            return reply, reply.raw
        if request.path.endswith("/chat/completions"):
            return reply, json.dumps(_openai_body(reply, request.body)).encode()
        if request.path.endswith("/messages"):
            return reply, json.dumps(_anthropic_body(reply, request.body)).encode()
        return error(404, f"unknown path {request.path}"), b'{"error": {"message": "not found"}}'

    def _refusal(self, request: Request) -> Reply | None:
        fmt = request.body.get("response_format") if isinstance(request.body, dict) else None
        if not isinstance(fmt, dict):
            return None
        if self.mode == "llamacpp" and fmt.get("type") == "json_schema":
            body = {"error": {"message": LLAMACPP_REJECTION, "type": "internal_server_error",
                              "param": None, "code": None}}
            return Reply(status=500, raw=json.dumps(body).encode())
        if self.mode == "plain":
            return error(400, f"response_format {fmt.get('type')!r} is not supported")
        return None


class _Handler(BaseHTTPRequestHandler):
    provider: FakeProvider

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode(errors="replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        reply, payload = self.provider._answer(Request("POST", self.path, headers, body))
        if reply.delay and self.provider._stopping.wait(reply.delay):
            return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # keep test output clean


def _as_reply(item: Reply | str) -> Reply:
    return text(item) if isinstance(item, str) else item


def _openai_body(reply: Reply, request: Any) -> dict[str, Any]:
    model = request.get("model", "fake") if isinstance(request, dict) else "fake"
    prompt, completion = reply.usage
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _anthropic_body(reply: Reply, request: Any) -> dict[str, Any]:
    model = request.get("model", "fake") if isinstance(request, dict) else "fake"
    prompt, completion = reply.usage
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": reply.text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }
