"""The knowledge RPCs' checks of required ids say what is wrong with them."""

from __future__ import annotations

import pytest

from core.errors import InvalidArgumentError
from server.knowledge_rpcs import _required


def test_an_id_too_long_is_called_too_long_not_missing() -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        _required("knowledge_base_id", "k" * 65)
    assert "is longer than 64 characters" in str(raised.value)
    assert "required" not in str(raised.value)
    with pytest.raises(InvalidArgumentError, match="is required"):
        _required("knowledge_base_id", "")
    _required("knowledge_base_id", "k" * 64)
