"""The LLM seam: one small protocol, the message and completion types, and JSON answers.

Everything in planexec talks to the `LLM` protocol only. Every client that ships here
(OpenAI-compatible, Anthropic, scripted) is a `ChatModel`: it writes only `reply()`, and the
base's `complete()` does the bookkeeping once (the call's usage, added to the client's total).
"""

from __future__ import annotations

import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from planexec.errors import LLMError
from planexec.models import Usage

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Role
    content: str


@dataclass(frozen=True)
class Completion:
    """A model's answer and what it cost."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    finish_reason: str = ""


@runtime_checkable
class LLM(Protocol):
    """Anything that turns messages into a completion and counts its usage."""

    model: str
    usage: Usage

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """Answer the conversation; with `json_schema`, ask for JSON matching it where supported."""
        ...


@dataclass(frozen=True)
class Ask:
    """What one call asks for besides the messages."""

    json_schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    temperature: float | None = None


@dataclass(frozen=True)
class Reply:
    """A client's raw answer; token counts None when the server did not give them (then estimated)."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model: str = ""
    prompt_chars: int | None = None
    """Characters actually sent, when the client reshaped the messages (e.g. a system prompt)."""


class ChatModel(ABC):
    """Base of the shipped clients: `complete()` is `reply()` plus usage accounting, thread-safe."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.usage = Usage()
        self._lock = threading.Lock()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """Answer the conversation and add what it cost to `usage`."""
        sent = list(messages)
        reply = self.reply(sent, Ask(json_schema, max_tokens, temperature))
        chars = prompt_chars(sent) if reply.prompt_chars is None else reply.prompt_chars
        usage = Usage(
            calls=1,
            prompt_tokens=_estimate_tokens(chars) if reply.prompt_tokens is None else reply.prompt_tokens,
            completion_tokens=(_estimate_tokens(len(reply.text)) if reply.completion_tokens is None
                               else reply.completion_tokens),
            prompt_chars=chars,
        )
        with self._lock:
            self.usage.add(usage)
        return Completion(reply.text, usage, reply.model or self.model, reply.finish_reason)

    @abstractmethod
    def reply(self, messages: list[Message], ask: Ask) -> Reply:
        """The model's answer to `messages`; what each client implements."""


def _estimate_tokens(chars: int) -> int:
    return max(1, chars // 4) if chars else 0


def prompt_chars(messages: Sequence[Message]) -> int:
    return sum(len(m.content) for m in messages)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_json(text: str) -> Any:
    """Parse the JSON value in a model answer: bare, fenced, or the first {...}/[...] span."""
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    for open_, close in (("{", "}"), ("[", "]")):
        start, end = text.find(open_), text.rfind(close)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    last_error: Exception | None = None
    for cand in candidates:
        if not cand:
            continue
        try:
            return json.loads(cand)
        except json.JSONDecodeError as exc:
            last_error = exc
    raise ValueError(f"no JSON found in the answer ({last_error or 'empty answer'})")


def complete_json(
    llm: LLM,
    messages: Sequence[Message],
    schema: dict[str, Any],
    *,
    what: str = "answer",
    max_tokens: int | None = None,
    loose: dict[str, Any] | None = None,
) -> Any:
    """Ask for JSON matching `schema`; re-ask once with the validation error, then fail clearly.

    `loose` is the schema checked here when the caller checks some constraints itself (e.g. names
    the server's grammar enforces by enum, which the caller resolves with a more precise message).
    """
    import jsonschema

    convo = list(messages)
    error = ""
    for attempt in range(2):
        completion = llm.complete(convo, json_schema=schema, max_tokens=max_tokens)
        try:
            value = extract_json(completion.text)
            jsonschema.validate(value, loose or schema)
            return value
        except (ValueError, jsonschema.ValidationError) as exc:
            error = exc.message if isinstance(exc, jsonschema.ValidationError) else str(exc)
            if attempt == 0:
                convo = convo + [
                    Message("assistant", completion.text),
                    Message(
                        "user",
                        f"That {what} was not valid: {error}. Reply again with only JSON "
                        f"matching this schema:\n{json.dumps(schema)}",
                    ),
                ]
    raise LLMError(
        f"the model's {what} was not valid JSON for the schema after one re-ask ({error}); "
        "try a stronger model or --llm none"
    )
