"""Anthropic Messages client: the official SDK with planexec's retries and usage accounting.

System messages travel in `system=`; a requested JSON schema is stated in the system
prompt (the caller validates the answer locally, so no prefill is needed).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from planexec.llm.base import Ask, Message, Reply
from planexec.llm.providers import ANTHROPIC
from planexec.llm.retry import MalformedReply
from planexec.llm.sdk_chat import SDKChat

DEFAULT_MAX_TOKENS = 4096


class AnthropicChat(SDKChat):
    """An LLM backed by Anthropic's Messages API."""

    sdk_module = "anthropic"
    provider = client_class = "Anthropic"
    spec = ANTHROPIC
    usage_fields = ("input_tokens", "output_tokens")

    def reply(self, messages: list[Message], ask: Ask) -> Reply:
        """Ask the model; with a JSON schema, the schema is stated in the system prompt."""
        system, turns = _split(messages, ask.json_schema)
        kwargs: dict[str, Any] = {"model": self.model, "max_tokens": ask.max_tokens or DEFAULT_MAX_TOKENS,
                                  "messages": turns}
        if system:
            kwargs["system"] = system
        if ask.temperature is not None:  # this SDK version dropped the parameter; the API takes it
            kwargs["extra_body"] = {"temperature": ask.temperature}
        sent_chars = len(system) + sum(len(t["content"]) for t in turns)
        return self.ask(lambda client, _errors: client.messages.create(**kwargs), _parse, sent_chars or None)


def _split(
    messages: Sequence[Message], json_schema: dict[str, Any] | None
) -> tuple[str, list[dict[str, str]]]:
    """System text (with the schema, if any) and the user/assistant turns."""
    system = [m.content for m in messages if m.role == "system"]
    if json_schema is not None:
        system.append(
            "Reply with only a JSON value matching this JSON schema, no prose:\n"
            + json.dumps(json_schema)
        )
    turns = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
    if not turns:  # the API needs at least one user turn
        turns = [{"role": "user", "content": system.pop(0) if system else ""}]
    return "\n\n".join(system), turns


def _parse(response: Any) -> tuple[str, str, Any, str]:
    """Text, stop reason, usage and model of a message; MalformedReply otherwise."""
    content = getattr(response, "content", None)
    if not isinstance(content, list):
        shown = str(response)[:200] if isinstance(response, str) else type(response).__name__
        raise MalformedReply(f"expected a message with content blocks, got {shown!r}")
    text = "".join(
        str(getattr(block, "text", "") or "")
        for block in content
        if getattr(block, "type", "") == "text"
    )
    return text, str(getattr(response, "stop_reason", "") or ""), getattr(response, "usage", None), str(
        getattr(response, "model", "") or ""
    )
