"""An HTTP transport that bounds a whole request, not each read.

httpx's timeouts apply to every socket read, so a server that sends one byte a second never
times out. This transport gives each request one end time: the per-request timeout, or the
run's deadline when that comes first; every read is bounded by what is left, and the body
is cut as soon as the end time passes, however steadily the bytes trickle in.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx

from planexec.llm.budget import current


class SlowReply(httpx.ReadTimeout):
    """The reply did not finish by its end time; the message says how far it got."""


class DeadlineTransport(httpx.BaseTransport):
    """Wraps a transport so that each request ends by min(now + timeout, the run's deadline)."""

    def __init__(self, timeout: float, inner: httpx.BaseTransport | None = None) -> None:
        self.timeout = timeout
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        started = time.monotonic()
        end = started + self.timeout
        scope = current()
        if scope is not None:
            end = min(end, scope[0].deadline)
        left = end - started
        if left <= 0:
            raise SlowReply("no time left before the run's deadline to send the request", request=request)
        bounded = {k: (left if v is None else min(float(v), left))
                   for k, v in (request.extensions.get("timeout") or dict.fromkeys(("connect", "read", "write", "pool"))).items()}
        request.extensions = {**request.extensions, "timeout": bounded}
        response = self.inner.handle_request(request)
        response.stream = _BoundedStream(response.stream, started, end, request)
        return response

    def close(self) -> None:
        self.inner.close()


class _BoundedStream(httpx.SyncByteStream):
    """A response body that raises SlowReply once its end time passes."""

    def __init__(self, inner: Any, started: float, end: float, request: httpx.Request) -> None:
        self.inner, self.started, self.end, self.request = inner, started, end, request

    def __iter__(self) -> Iterator[bytes]:
        received = 0
        for chunk in self.inner:
            received += len(chunk)
            if time.monotonic() > self.end:
                self.close()
                raise SlowReply(
                    f"the reply was still arriving after {time.monotonic() - self.started:.0f} s "
                    f"({received} bytes so far); the server is too slow or stalled", request=self.request)
            yield chunk

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()
