"""JSON validators: is_json (the whole answer), json_schema (JSON found anywhere), json_path."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from planexec.evals.base import BadParams, EvalContext, Outcome, ValidatorSet, as_text, need
from planexec.llm.base import extract_json

VALIDATORS = ValidatorSet()


def _parse_anywhere(answer: Any) -> Any:
    """A JSON value from the answer: already-structured values as they are, else bare/fenced/embedded JSON."""
    if isinstance(answer, (dict, list, int, float, bool)) or answer is None:
        return answer
    return extract_json(as_text(answer))


@VALIDATORS("is_json", params=("extract",))
def is_json(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the whole answer is valid JSON (with extract=true, when it contains some)."""
    extract = params.get("extract", False)
    if not isinstance(extract, bool):
        raise BadParams(f"params.extract must be true or false, got {extract!r}")
    if not isinstance(answer, str):
        return Outcome(True, "The answer is a structured value.", output=answer)
    try:
        value = extract_json(answer) if extract else json.loads(answer)
    except ValueError as exc:
        return Outcome(False, f"Not valid JSON: {exc}.")
    return Outcome(True, f"Valid JSON ({type(value).__name__}).", output=value)


@functools.lru_cache(maxsize=256)
def _validator_for(schema_text: str) -> Any:
    import jsonschema

    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise BadParams(f"invalid JSON schema: {exc.message}") from None
    return cls(schema)


@VALIDATORS("json_schema", params=("schema",))
def json_schema(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the JSON in the answer (bare or in a fenced block) matches `schema`; the value is the output."""
    schema = need(params, "schema", (dict, bool), "a JSON schema object")
    try:
        schema_text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise BadParams(f"params.schema is not JSON: {exc}") from None
    validator = _validator_for(schema_text)
    try:
        value = _parse_anywhere(answer)
    except ValueError as exc:
        return Outcome(False, f"No valid JSON in the answer: {exc}.")
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "(root)"
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return Outcome(False, f"JSON does not match the schema at {where}: {first.message}{more}.")
    return Outcome(True, "JSON matches the schema.", output=value)


_PATH_TOKEN = re.compile(r"\.?([^.\[\]]+)|\[(-?\d+)\]|\[['\"]([^'\"]+)['\"]\]")


def parse_path(path: str) -> list[str | int]:
    """`$.a.b[0]["c d"]` -> ['a', 'b', 0, 'c d']; raises BadParams on anything else."""
    rest = path.strip()
    if rest.startswith("$"):
        rest = rest[1:]
    keys: list[str | int] = []
    pos = 0
    while pos < len(rest):
        m = _PATH_TOKEN.match(rest, pos)
        if m is None or m.end() == pos:
            raise BadParams(f"cannot read params.path {path!r} at {rest[pos:]!r}")
        name, index, quoted = m.groups()
        keys.append(int(index) if index is not None else (quoted if quoted is not None else name))
        pos = m.end()
    return keys


def follow(value: Any, keys: list[str | int]) -> Any:
    """The value at `keys`; raises KeyError naming the first step that does not exist."""
    for i, key in enumerate(keys):
        if isinstance(key, int) and isinstance(value, list) and -len(value) <= key < len(value):
            value = value[key]
        elif isinstance(value, dict) and str(key) in value:
            value = value[str(key)]
        elif isinstance(value, list) and isinstance(key, str) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            have = sorted(map(str, value))[:10] if isinstance(value, dict) else type(value).__name__
            where = ".".join(map(str, keys[:i])) or "(root)"
            raise KeyError(f"no {key!r} under {where} (has: {have})")
    return value


@VALIDATORS("json_path", params=("path", "equals", "contains"))
def json_path(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the value at `path` exists and, if given, equals `equals` or contains `contains`."""
    path = need(params, "path", str, "a path such as $.user.name or items[0].id")
    keys = parse_path(path)
    try:
        data = _parse_anywhere(answer)
    except ValueError as exc:
        return Outcome(False, f"No valid JSON in the answer: {exc}.")
    try:
        value = follow(data, keys)
    except KeyError as exc:
        return Outcome(False, f"Path {path!r} not found: {exc.args[0]}.")
    if "equals" in params:
        ok = value == params["equals"]
        return Outcome(ok, f"{path} = {value!r}, expected {params['equals']!r}.", output=value)
    if "contains" in params:
        needle = params["contains"]
        try:
            ok = isinstance(value, (list, dict)) or isinstance(needle, str) and isinstance(value, str)
            ok = ok and needle in value
        except TypeError:  # an unhashable needle against a dict
            ok = False
        return Outcome(ok, f"{path} {'contains' if ok else 'does not contain'} {needle!r}.", output=value)
    return Outcome(True, f"{path} exists ({value!r:.60}).", output=value)
