"""Client-side checking of JSON answers against the requested schema, and the repair prompt.

Servers differ in how well they enforce a schema (grammar-constrained decoding, strict mode,
or nothing), so every JSON answer is validated here with ``jsonschema`` whatever the backend.
A failed answer earns exactly one repair re-ask that quotes the validation errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analogist.errors import ModelError
from analogist.models.llm import Completion, parse_json_text

MAX_ERRORS = 3
_MAX_MESSAGE = 200


def json_path(path: Any) -> str:
    """``["relations", 2, 0]`` -> ``$.relations[2][0]``."""
    out = "$"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def schema_errors(instance: Any, schema: Mapping[str, Any], limit: int = MAX_ERRORS) -> list[str]:
    """Up to ``limit`` readable validation errors (empty when the instance is valid).

    Raises:
        ModelError: the schema itself is not a valid JSON Schema.
    """
    # imported here: ~50 ms that a process which never checks a model's answer (every one-shot
    # `analogist search` or `add`) should not pay at startup
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

    try:
        validator = Draft202012Validator(schema)
    except SchemaError as e:  # pragma: no cover - schemas are built in code
        raise ModelError(f"the JSON schema sent to the model is invalid: {e.message}") from None
    found = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    out = []
    for err in found[:limit]:
        msg = err.message
        if len(msg) > _MAX_MESSAGE:
            msg = msg[: _MAX_MESSAGE - 1] + "…"
        if err.validator == "enum":
            msg = f"{err.instance!r} is not an allowed value (see the list in the instructions)"
        out.append(f"{json_path(err.absolute_path)}: {msg}")
    if len(found) > limit:
        out.append(f"... and {len(found) - limit} more")
    return out


def output_problem(c: Completion, schema: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The parsed answer and a description of what is wrong with it (None when valid)."""
    parsed = c.parsed
    if parsed is None:
        try:
            parsed = parse_json_text(c.text)
        except ValueError as e:
            return None, str(e)
    errors = schema_errors(parsed, schema)
    return parsed, ("; ".join(errors) if errors else None)


def repair_prompt(problem: str) -> str:
    """The user message of the one repair re-ask."""
    return (
        "Your previous answer does not match the required JSON schema:\n"
        f"{problem}\n"
        "Reply again with the corrected JSON object only, with no prose and no code fence."
    )
