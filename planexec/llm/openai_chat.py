"""OpenAI chat client: the official SDK, our retries, and JSON modes that degrade per server.

Any OpenAI-compatible server works through `base_url` (Ollama, vLLM, llama.cpp). Servers
differ in which `response_format` they accept; a request asking for JSON tries, in order:

    json_schema         {"type": "json_schema", "json_schema": {name, schema, strict: false}}
    json_object_schema  {"type": "json_object", "schema": {...}}   (llama.cpp's server)
    json_object         {"type": "json_object"} with the schema stated in the prompt
    prompt              no response_format; the schema stated in the prompt

A refusal of the format (400/422, or llama.cpp's HTTP 500 validation error) moves to the
next mode without spending retries, and the client remembers the first mode that worked.
The answer's JSON is always validated by the caller (`complete_json`), never trusted.

With `stream = True` (PLANEXEC_LLM_STREAM) replies are streamed and the stream is closed as
soon as the request's end time passes: servers that keep writing a non-streamed reply after
its client left (llama-cpp-python) stop writing a streamed one, so the next request does not wait.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from planexec.llm.base import Ask, Message, Reply, prompt_chars
from planexec.llm.providers import OPENAI
from planexec.llm.retry import (
    MalformedReply,
    ProviderErrors,
    RequestRejected,
    error_text,
    status_of,
)
from planexec.llm.sdk_chat import SDKChat

JSON_MODES = ("json_schema", "json_object_schema", "json_object", "prompt")
_REJECTION_WORDS = ("response_format", "json_schema", "json_object", "validation error")


class OpenAIChat(SDKChat):
    """An LLM backed by the OpenAI chat completions API or any server that speaks it."""

    sdk_module = "openai"
    provider = client_class = "OpenAI"
    spec = OPENAI
    json_mode = JSON_MODES[0]
    """The first JSON mode the server is believed to accept; advances on a refusal."""
    stream = False
    """Stream replies (see the module docstring); token counts are then estimated when the server sends none."""

    def keyless(self) -> str | None:
        return "not-needed" if self.base_url != self.default_base_url else None  # local servers ignore the key

    def missing_key(self) -> str:
        return f"OpenAI needs an API key: set {self.key_env}, pass --base-url for a local server, or use --llm none"

    def reply(self, messages: list[Message], ask: Ask) -> Reply:
        """Ask the server; with a JSON schema, use the best JSON mode it accepts."""
        extra: dict[str, Any] = {}
        if ask.max_tokens is not None:
            extra["max_tokens"] = ask.max_tokens
        if ask.temperature is not None:
            extra["temperature"] = ask.temperature
        if ask.json_schema is None:
            return self._send(messages, extra)
        start = JSON_MODES.index(self.json_mode)
        for mode in JSON_MODES[start:]:
            sent, fmt = _json_request(messages, ask.json_schema, mode)
            kwargs = dict(extra, response_format=fmt) if fmt is not None else extra
            try:
                answer = self._send(sent, kwargs)
            except RequestRejected:
                continue  # the server refuses this format: try the next, spend no retries
            self.json_mode = mode
            return answer
        raise AssertionError("unreachable: the prompt mode sends no response_format to refuse")

    def _send(self, messages: list[Message], kwargs: dict[str, Any]) -> Reply:
        payload = [{"role": m.role, "content": m.content} for m in messages]
        rejectable = "response_format" in kwargs
        stream = self.stream
        if stream:
            kwargs = dict(kwargs, stream=True)

        def create(client: Any, errors: ProviderErrors) -> Any:
            try:
                response = client.chat.completions.create(model=self.model, messages=payload, **kwargs)
            except errors.status as exc:
                if rejectable and _is_format_rejection(exc):
                    raise RequestRejected(exc) from exc
                raise
            return _collect(response, errors) if stream else _parse(response)

        return self.ask(create, lambda parsed: parsed, prompt_chars(messages))


def _parse(response: Any) -> tuple[str, str, Any, str]:
    """Text, finish reason, usage and model of a chat completion; MalformedReply otherwise."""
    choices = getattr(response, "choices", None)
    if not choices:
        shown = str(response)[:200] if isinstance(response, str) else type(response).__name__
        raise MalformedReply(f"expected a chat completion with choices, got {shown!r}")
    choice = choices[0]
    message = getattr(choice, "message", None)
    text = getattr(message, "content", None) or ""
    return text, str(getattr(choice, "finish_reason", "") or ""), getattr(response, "usage", None), str(
        getattr(response, "model", "") or ""
    )


def _collect(stream: Any, errors: ProviderErrors) -> tuple[str, str, Any, str]:
    """Text, finish reason, usage and model of a streamed chat completion; the stream is closed however it ends."""
    import httpx2

    parts: list[str] = []
    finish, usage, model = "", None, ""
    try:
        for chunk in stream:
            model = model or str(getattr(chunk, "model", "") or "")
            usage = getattr(chunk, "usage", None) or usage
            for choice in getattr(chunk, "choices", None) or ():
                parts.append(getattr(getattr(choice, "delta", None), "content", None) or "")
                finish = str(getattr(choice, "finish_reason", "") or "") or finish
    except httpx2.TimeoutException as exc:  # raised while reading the body, where the SDK does not wrap it
        raise errors.timeout(request=exc.request) from exc  # type: ignore[call-arg]
    except httpx2.TransportError as exc:
        raise errors.connection(request=exc.request) from exc  # type: ignore[call-arg]
    finally:
        stream.close()  # a server that streams stops writing once the connection is gone
    if not finish:
        raise MalformedReply(f"the streamed reply ended without a finish reason after {sum(map(len, parts))} characters")
    return "".join(parts), finish, usage, model


def _is_format_rejection(exc: BaseException) -> bool:
    """Whether a status error refuses the request's response_format, not the service failing."""
    status = status_of(exc)
    if status in (400, 422):
        return True
    if status == 500:
        text = error_text(exc).lower()
        return any(word in text for word in _REJECTION_WORDS)
    return False


def _json_request(
    messages: Sequence[Message], schema: dict[str, Any], mode: str
) -> tuple[list[Message], dict[str, Any] | None]:
    """The messages and response_format of one JSON mode."""
    if mode == "json_schema":
        named = {"name": _schema_name(schema), "schema": schema, "strict": False}
        return list(messages), {"type": "json_schema", "json_schema": named}
    if mode == "json_object_schema":
        return list(messages), {"type": "json_object", "schema": schema}
    stated = _with_schema_in_prompt(messages, schema)
    return stated, ({"type": "json_object"} if mode == "json_object" else None)


def _with_schema_in_prompt(messages: Sequence[Message], schema: dict[str, Any]) -> list[Message]:
    # The word "JSON" must appear in the prompt for OpenAI's json_object mode.
    note = f"Reply with only a JSON value matching this JSON schema:\n{json.dumps(schema)}"
    msgs = list(messages)
    for i, m in enumerate(msgs):
        if m.role == "system":
            msgs[i] = Message("system", f"{m.content}\n\n{note}")
            return msgs
    return [Message("system", note), *msgs]


def _schema_name(schema: dict[str, Any]) -> str:
    title = str(schema.get("title") or "answer")
    return re.sub(r"[^A-Za-z0-9_-]", "_", title)[:64] or "answer"
