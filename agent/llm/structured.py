"""Reading structured (JSON) replies from models that do not always behave."""

from __future__ import annotations

import json
from typing import Any

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
