"""A client of one's own writes only `reply()`; `ChatModel.complete()` counts its usage, as for the shipped clients."""

from __future__ import annotations

from planexec.llm import Ask, ChatModel, Message, Reply


class Echo(ChatModel):
    """Echoes the last message; reports token counts only when told to."""

    def __init__(self, counted: bool) -> None:
        super().__init__("echo")
        self.counted = counted
        self.asks: list[Ask] = []

    def reply(self, messages: list[Message], ask: Ask) -> Reply:
        self.asks.append(ask)
        text = messages[-1].content
        return Reply(text, prompt_tokens=7, completion_tokens=3) if self.counted else Reply(text)


def test_usage_is_the_servers_count_when_given_else_an_estimate_and_adds_up() -> None:
    counted, estimated = Echo(counted=True), Echo(counted=False)
    msgs = [Message("user", "x" * 40)]
    done = counted.complete(msgs, max_tokens=5, temperature=0.0)
    assert done.text == "x" * 40 and done.model == "echo" and counted.asks == [Ask(None, 5, 0.0)]
    assert (done.usage.calls, done.usage.prompt_tokens, done.usage.completion_tokens) == (1, 7, 3)
    counted.complete(msgs)
    assert (counted.usage.calls, counted.usage.prompt_tokens, counted.usage.prompt_chars) == (2, 14, 80)
    guessed = estimated.complete(msgs).usage
    assert (guessed.prompt_tokens, guessed.completion_tokens) == (10, 10)  # about four characters a token
