"""A fault-injecting HTTP proxy the real-model tests own: scripted faults, then the real server.

Each request to the proxy takes the next fault of its script; when the script is spent the
request is forwarded to the upstream server unchanged. A fault either answers by itself
(429, 500, 503, an HTML page, non-JSON, JSON of the wrong shape, a truncated body, one byte a
second) or breaks the connection (reset mid-body) or stalls before answering.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMPLETION = {"id": "x", "object": "chat.completion", "created": 0, "model": "gemma-3-270m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour: a status and body, or a way to break the reply."""

    name: str
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    kind: str = "answer"
    """answer | reset (send half the body, then drop) | stall (sleep `seconds`, then forward) | trickle (1 byte/s) | truncate"""
    seconds: float = 0.0


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


FAULTS: dict[str, Fault] = {
    "429 with Retry-After": Fault("429 with Retry-After", 429, _json({"error": {"message": "slow down"}}), {"Retry-After": "1"}),
    "429 without Retry-After": Fault("429 without Retry-After", 429, _json({"error": {"message": "slow down"}})),
    "500": Fault("500", 500, _json({"error": {"message": "internal error"}})),
    "503": Fault("503", 503, _json({"error": {"message": "overloaded"}})),
    "reset mid-body": Fault("reset mid-body", body=_json(COMPLETION), kind="reset"),
    "stall": Fault("stall", kind="stall", seconds=30.0),
    "one byte a second": Fault("one byte a second", body=_json(COMPLETION), kind="trickle"),
    "truncated": Fault("truncated", body=_json(COMPLETION), kind="truncate"),
    "non-JSON": Fault("non-JSON", body=b"this is not json", content_type="text/plain"),
    "HTML": Fault("HTML", 200, b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html"),
    "wrong-shape JSON": Fault("wrong-shape JSON", body=_json({"result": "ok", "items": [1, 2, 3]})),
}
"""Every transport fault the issue lists, by name."""


class FaultProxy:
    """A threaded proxy on 127.0.0.1: `with FaultProxy(upstream, [faults]) as p: p.base_url`."""

    def __init__(self, upstream: str, faults: Iterable[Fault] = ()) -> None:
        self.upstream = upstream.rstrip("/")
        self.faults: deque[Fault] = deque(faults)
        self.seen: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, faults: Iterable[Fault]) -> None:
        with self._lock:
            self.faults = deque(faults)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self) -> Fault | None:
        with self._lock:
            return self.faults.popleft() if self.faults else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(b"")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fault = proxy._next()
                proxy.seen.append(fault.name if fault else "forward")
                if fault is None:
                    return self._forward(body)
                if fault.kind == "stall":
                    time.sleep(fault.seconds)
                    return self._forward(body)
                self.send_response(fault.status)
                self.send_header("Content-Type", fault.content_type)
                self.send_header("Content-Length", str(len(fault.body)))
                for k, v in fault.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    if fault.kind == "trickle":
                        for b in fault.body:
                            self.wfile.write(bytes([b]))
                            self.wfile.flush()
                            time.sleep(1.0)
                    elif fault.kind in ("reset", "truncate"):
                        self.wfile.write(fault.body[: len(fault.body) // 2])
                        self.wfile.flush()
                        if fault.kind == "reset":
                            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                    else:
                        self.wfile.write(fault.body)
                except OSError:
                    pass

            def _forward(self, body: bytes) -> None:
                path = self.path[len("/v1"):] if self.path.startswith("/v1") else self.path
                req = urllib.request.Request(proxy.upstream + path, data=body or None, method=self.command,
                                             headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=600) as reply:
                        status, data, ctype = reply.status, reply.read(), reply.headers.get("Content-Type", "application/json")
                except urllib.error.HTTPError as exc:
                    status, data, ctype = exc.code, exc.read(), exc.headers.get("Content-Type", "application/json")
                except OSError:
                    return
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

        return Handler
