"""Deterministic LLMs that ship with planexec so users can test their own agents offline."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from planexec.errors import LLMError
from planexec.llm.base import Ask, ChatModel, Message, Reply

ReplyFn = Callable[[Sequence[Message]], str]


class FunctionLLM(ChatModel):
    """Answers with `fn(messages) -> str`: the simplest way to script conditional replies.

    Every call is recorded in `calls` (the messages and the json_schema asked for).
    """

    def __init__(self, fn: ReplyFn, model: str = "function") -> None:
        super().__init__(model)
        self.fn = fn
        self.calls: list[dict[str, Any]] = []

    def reply(self, messages: list[Message], ask: Ask) -> Reply:
        with self._lock:
            self.calls.append({"messages": messages, "json_schema": ask.json_schema})
            index = len(self.calls) - 1
        return Reply(self.answer(messages, index))

    def answer(self, messages: list[Message], index: int) -> str:
        """The text of call number `index` (from 0)."""
        return self.fn(messages)


class ScriptedLLM(FunctionLLM):
    """Answers from a script, in order; each item is a string or a function of the messages."""

    def __init__(self, outputs: Sequence[str | ReplyFn], model: str = "scripted") -> None:
        super().__init__(lambda _: "", model)
        self.outputs = list(outputs)

    def answer(self, messages: list[Message], index: int) -> str:
        if index >= len(self.outputs):
            raise LLMError(
                f"ScriptedLLM ran out of outputs after {len(self.outputs)} call(s); "
                "add more outputs to the script"
            )
        item = self.outputs[index]
        return item(messages) if callable(item) else item
