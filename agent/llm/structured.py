"""Reading structured (JSON) replies from models that do not always behave."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from records.messages import ModelResponse


def json_reply(response: ModelResponse) -> Any:
    """The JSON value in a structured reply (tolerating code fences); ValueError if none."""
    text = response.text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # nested too deeply: unusable as well
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except (json.JSONDecodeError, RecursionError):
                pass
    raise ValueError("the reply is not valid JSON")


def fitting_json(text: str, schema: Mapping[str, Any]) -> str | None:
    """`text` as canonical JSON when the JSON value in it (code fences and surrounding
    prose tolerated, as `json_reply` reads it) matches `schema`, else None. One check for
    an agent's output schema: the answer's shaping and the output_schema guardrail."""
    try:
        value = json_reply(ModelResponse(text=text))
        if not Draft202012Validator(schema).is_valid(value):
            return None
    except Exception:  # noqa: BLE001 - an answer that cannot be checked does not fit
        return None
    return json.dumps(value, ensure_ascii=False)
