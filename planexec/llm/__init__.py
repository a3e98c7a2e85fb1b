"""LLM clients behind one protocol: OpenAI-compatible, Anthropic, and scripted fakes.

A client of your own subclasses `ChatModel` and writes `reply()`; usage is counted for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planexec.llm.base import (
    LLM,
    Ask,
    ChatModel,
    Completion,
    Message,
    Reply,
    complete_json,
    extract_json,
)
from planexec.llm.fakes import FunctionLLM, ScriptedLLM

if TYPE_CHECKING:
    from planexec.llm.anthropic_chat import AnthropicChat
    from planexec.llm.openai_chat import OpenAIChat

__all__ = [
    "LLM",
    "AnthropicChat",
    "Ask",
    "ChatModel",
    "Completion",
    "FunctionLLM",
    "Message",
    "OpenAIChat",
    "Reply",
    "ScriptedLLM",
    "complete_json",
    "extract_json",
]


def __getattr__(name: str) -> Any:
    # The provider SDKs are imported only when their client is asked for.
    if name == "OpenAIChat":
        from planexec.llm.openai_chat import OpenAIChat

        return OpenAIChat
    if name == "AnthropicChat":
        from planexec.llm.anthropic_chat import AnthropicChat

        return AnthropicChat
    raise AttributeError(f"module 'planexec.llm' has no attribute {name!r}")
