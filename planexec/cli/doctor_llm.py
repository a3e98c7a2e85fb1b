"""`planexec doctor --llm openai --base-url URL`: is the server usable, and what does its speed mean for a run.

Checks, in order: the server answers `GET /models`; the model is listed; which JSON mode it
honours (the client's own fallback order); tokens per second on a short prompt; and how many
plan-sized replies the default deadline allows.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from planexec.config import Config
from planexec.errors import PlanexecError


@dataclass
class LLMCheck:
    """What doctor found about one OpenAI-compatible server."""

    base_url: str
    model: str
    reachable: bool = False
    models: list[str] = field(default_factory=list)
    model_listed: bool = False
    json_mode: str | None = None
    tokens_per_second: float | None = None
    seconds_per_plan: float | None = None
    verdict: str = ""
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_server(base_url: str, model: str | None, config: Config | None = None) -> LLMCheck:
    """Probe the server; every failure becomes a line in `problems`, never an exception."""
    from planexec.llm.openai_chat import OpenAIChat
    from planexec.llm.retry import RetryPolicy

    config = config or Config()
    found = LLMCheck(base_url, model or "")
    client = OpenAIChat(model or "default", "not-needed", base_url, min(config.llm_timeout, 60),
                        retry=RetryPolicy(max_retries=0))
    try:
        sdk, _ = client._sdk()
        listed = sdk.models.list()
        found.models = [str(getattr(m, "id", m)) for m in getattr(listed, "data", []) or []]
        found.reachable = True
    except Exception as exc:  # any failure of the probe is a finding, reported in one line
        found.problems.append(f"{base_url} is not reachable or does not list models: {_line(exc)}")
        found.verdict = "unusable: start the server or fix --base-url"
        client.close()
        return found
    if not found.model:
        found.model = client.model = found.models[0] if found.models else "default"
    found.model_listed = found.model in found.models
    if not found.model_listed:
        found.problems.append(f"model {found.model!r} is not listed by the server (it lists {', '.join(found.models) or 'none'})")
    schema = {"title": "probe", "type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}
    try:
        client.complete([_msg('Reply with {"ok": true}.')], json_schema=schema, max_tokens=16)
        found.json_mode = client.json_mode
        started = time.perf_counter()
        done = client.complete([_msg("Count from one to twenty in words.")], max_tokens=48, temperature=0.0)
        elapsed = time.perf_counter() - started
        made = done.usage.completion_tokens or max(1, len(done.text) // 4)
        found.tokens_per_second = round(made / elapsed, 1) if elapsed > 0 else None
    except PlanexecError as exc:
        found.problems.append(_line(exc))
    finally:
        client.close()
    found.verdict = _verdict(found, config)
    return found


def _verdict(found: LLMCheck, config: Config) -> str:
    if found.tokens_per_second is None:
        return "unusable: the server did not complete a short request"
    plan_s = config.max_tokens_plan / found.tokens_per_second
    found.seconds_per_plan = round(plan_s, 1)
    fits = int(config.timeout // max(plan_s, 1e-6))
    speed = (f"{found.tokens_per_second:g} tokens/s: a full-length plan reply ({config.max_tokens_plan} tokens) "
             f"takes about {plan_s:.0f} s; the default deadline ({config.timeout:g} s) allows about {fits} such replies")
    if fits < 4:
        return speed + "; too slow for the default deadline: raise --timeout or lower PLANEXEC_MAX_TOKENS_PLAN"
    return speed + "; usable"


def _msg(text: str) -> Any:
    from planexec.llm.base import Message

    return Message("user", text)


def _line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def render(found: LLMCheck, out: Any) -> None:
    """Print the check for a person."""
    mark = {True: "[green]yes[/green]", False: "[red]no[/red] "}
    out.print(f"\n[bold]LLM server[/bold] {found.base_url}")
    out.print(f"  {mark[found.reachable]}  reachable" + (f" (models: {', '.join(found.models)})" if found.models else ""))
    out.print(f"  {mark[found.model_listed]}  model {found.model!r} listed")
    out.print(f"  JSON mode honoured: {found.json_mode or 'unknown'}")
    if found.tokens_per_second is not None:
        out.print(f"  speed: {found.tokens_per_second:g} tokens/s on a short prompt")
    for p in found.problems:
        out.print(f"  [red]problem:[/red] {p}", markup=True)
    out.print(f"  {found.verdict}", markup=False)


def as_json(found: LLMCheck) -> str:
    return json.dumps(found.to_dict(), indent=2)
