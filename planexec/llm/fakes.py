"""Deterministic LLMs that ship with planexec so users can test their own agents offline."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from planexec.errors import LLMError
from planexec.llm.base import Completion, Message, prompt_chars
from planexec.models import Usage

Reply = str | Callable[[Sequence[Message]], str]


def _estimate_tokens(chars: int) -> int:
    return max(1, chars // 4) if chars else 0


class ScriptedLLM:
    """Answers from a script, in order; each item is a string or a function of the messages.

    Every call is recorded in `calls` (the messages and the json_schema asked for).
    """

    def __init__(self, outputs: Sequence[Reply], model: str = "scripted") -> None:
        self.outputs = list(outputs)
        self.model = model
        self.usage = Usage()
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        with self._lock:
            index = len(self.calls)
            self.calls.append({"messages": list(messages), "json_schema": json_schema})
            if index >= len(self.outputs):
                raise LLMError(
                    f"ScriptedLLM ran out of outputs after {len(self.outputs)} call(s); "
                    "add more outputs to the script"
                )
            reply = self.outputs[index]
        text = reply(messages) if callable(reply) else reply
        return _account(self, messages, text)


class FunctionLLM:
    """Answers with `fn(messages) -> str`: the simplest way to script conditional replies."""

    def __init__(self, fn: Callable[[Sequence[Message]], str], model: str = "function") -> None:
        self.fn = fn
        self.model = model
        self.usage = Usage()
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        with self._lock:
            self.calls.append({"messages": list(messages), "json_schema": json_schema})
        return _account(self, messages, self.fn(messages))


def _account(llm: ScriptedLLM | FunctionLLM, messages: Sequence[Message], text: str) -> Completion:
    chars = prompt_chars(messages)
    usage = Usage(1, _estimate_tokens(chars), _estimate_tokens(len(text)), chars)
    with llm._lock:
        llm.usage.add(usage)
    return Completion(text=text, usage=usage, model=llm.model, finish_reason="stop")
