"""The MCP door's sealed `requestState` (server.mcp.state) and its name of a call
(server.mcp.door): a state opens for the caller it was sealed for, on any ring holding
the key, and for nobody else; without keys nothing is sealed. A person's answer as the
client's elicitation result gives it (server.mcp.waits)."""

from __future__ import annotations

import os

import pytest
from mcp_types import ElicitResult

from core.errors import InvalidArgumentError
from core.identity import Principal
from core.keyring import KeyRing
from server.mcp.door import method_of_body
from server.mcp.state import Waiting, opened, seal
from server.mcp.waits import answer_of

KEY = os.urandom(32)
ALICE = Principal("alice", "acme", ())
WAITING = Waiting("task_1", "approval", "call_1", 7)


def test_a_state_opens_on_another_ring_with_the_same_key() -> None:
    sealed = seal(KeyRing([KEY]), ALICE, WAITING)
    assert sealed is not None
    assert "task_1" not in sealed  # encrypted, not merely signed
    assert opened(KeyRing([KEY]), ALICE, sealed) == WAITING


@pytest.mark.parametrize("caller", [Principal("bob", "acme", ()), Principal("alice", "other", ())])
def test_another_caller_cannot_open_it(caller: Principal) -> None:
    sealed = seal(KeyRing([KEY]), ALICE, WAITING)
    assert sealed is not None
    with pytest.raises(InvalidArgumentError) as refused:
        opened(KeyRing([KEY]), caller, sealed)
    assert refused.value.violations[0].field == "requestState"


@pytest.mark.parametrize(
    "ring", [KeyRing([os.urandom(32)]), KeyRing()], ids=["another key", "no keys"]
)
def test_a_ring_without_its_key_cannot_open_it(ring: KeyRing) -> None:
    sealed = seal(KeyRing([KEY]), ALICE, WAITING)
    assert sealed is not None
    with pytest.raises(InvalidArgumentError):
        opened(ring, ALICE, sealed)


def test_a_tampered_or_made_up_state_is_refused() -> None:
    sealed = seal(KeyRing([KEY]), ALICE, WAITING)
    assert sealed is not None
    for bad in (sealed[:-2] + ("AA" if not sealed.endswith("AA") else "BB"), "v1.abc", ""):
        with pytest.raises(InvalidArgumentError):
            opened(KeyRing([KEY]), ALICE, bad)


def test_nothing_is_sealed_without_keys() -> None:
    assert seal(KeyRing(), ALICE, WAITING) is None


@pytest.mark.parametrize(
    ("body", "method"),
    [
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}', "tools/call"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}', "tools/list"),
        (b"not json", "invalid"),
        (b"[]", "invalid"),
        (b'{"method": 3}', "invalid"),
        (b'{"method": "' + b"x" * 100 + b'"}', "x" * 64),
    ],
)
def test_the_name_of_a_call(body: bytes, method: str) -> None:
    assert method_of_body(body) == method


QUESTION = Waiting("task_1", "question", "req_1", 3)


@pytest.mark.parametrize(
    ("reply", "decided"),
    [
        (ElicitResult(action="accept", content={"approve": True, "comment": "ok"}), (True, "ok")),
        (ElicitResult(action="accept", content={"approve": False}), (False, "")),
        (ElicitResult(action="decline"), (False, "")),
        (ElicitResult(action="cancel"), (False, "")),
        (ElicitResult(action="accept", content={"approve": "yes"}), (False, "")),
    ],
)
def test_an_approval_is_approved_only_by_an_accepted_true(
    reply: ElicitResult, decided: tuple[bool, str]
) -> None:
    assert answer_of(WAITING, reply) == decided


def test_a_question_takes_an_accepted_answer() -> None:
    reply = ElicitResult(action="accept", content={"answer": "blue"})
    assert answer_of(QUESTION, reply) == (True, "blue")
    for bad in (ElicitResult(action="decline"), ElicitResult(action="accept", content={})):
        with pytest.raises(InvalidArgumentError) as refused:
            answer_of(QUESTION, bad)
        assert refused.value.violations[0].field == "inputResponses.agentd.content.answer"
    with pytest.raises(InvalidArgumentError) as missing:
        answer_of(QUESTION, None)
    assert missing.value.violations[0].field == "inputResponses.agentd"
