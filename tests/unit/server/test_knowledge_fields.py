"""The knowledge and memory RPCs' checks of required ids say what is wrong with them
(both use server.rpcs.common.required_id, at 64 characters)."""

from __future__ import annotations

import pytest

from core.errors import InvalidArgumentError
from server.rpcs.common import required_id
from server.rpcs.knowledge import MAX_KNOWLEDGE_ID


def test_an_id_too_long_is_called_too_long_not_missing() -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        required_id("k" * 65, "knowledge_base_id", MAX_KNOWLEDGE_ID)
    assert "is longer than 64 characters" in str(raised.value)
    assert "required" not in str(raised.value)
    with pytest.raises(InvalidArgumentError, match="is required"):
        required_id("", "knowledge_base_id", MAX_KNOWLEDGE_ID)
    required_id("k" * 64, "knowledge_base_id", MAX_KNOWLEDGE_ID)
