"""The LLM seam: one small protocol, the message and completion types, and JSON answers.

Every client (OpenAI-compatible, Anthropic, scripted) implements `complete()`; everything
else in planexec talks to that protocol only.
"""

from __future__ import annotations

import json
import re
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


def as_messages(prompt: str | Sequence[Message], system: str | None = None) -> list[Message]:
    """Normalise a plain prompt (plus optional system text) to a message list."""
    msgs: list[Message] = [Message("system", system)] if system else []
    if isinstance(prompt, str):
        msgs.append(Message("user", prompt))
    else:
        msgs.extend(prompt)
    return msgs


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
