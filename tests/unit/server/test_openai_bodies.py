"""The OpenAI requests as agentd's (`server.openai.bodies`) and the door's names of its
calls (`server.openai.door`): a malformed body is refused naming its field as OpenAI
names it."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.requests import Request

from core.errors import InvalidArgumentError
from server.openai import bodies
from server.openai.door import OpenAIDoor
from server.openai.errors import error_response


def _param(data: dict[str, Any], chat: bool = False) -> str:
    with pytest.raises(InvalidArgumentError) as refused:
        (bodies.chat_request if chat else bodies.responses_request)(data)
    response, code = error_response(refused.value)
    assert (response.status_code, code) == (400, "INVALID_ARGUMENT")
    param = refused.value.field_violations[0].field
    assert f'"param":"{param}"' in bytes(response.body).decode()
    return param


def test_malformed_bodies_name_their_field() -> None:
    assert _param({"model": "gpt-4o", "input": "x"}) == "model"
    assert _param({"model": "agent:Bad_Id", "input": "x"}) == "model"
    assert _param({"model": "agent:lead@0", "input": "x"}) == "model"
    assert _param({"model": "agent:lead"}) == "input"
    assert _param({"model": "agent:lead", "input": [{"role": "user", "content": 3}]}) == (
        "input[0].content"
    )
    assert _param({"model": "agent:lead", "input": [{"type": "function_call"}]}) == "input[0].type"
    assert _param({"model": "agent:lead", "input": "x", "tools": [{"type": "x"}]}) == "tools"
    assert _param({"model": "agent:lead", "input": "x", "stream": "yes"}) == "stream"
    assert _param({"model": "agent:lead", "input": "x", "background": True, "store": False}) == (
        "background"
    )
    approval = {"type": "mcp_approval_response", "approval_request_id": "mcpr_c", "approve": True}
    assert _param({"model": "agent:lead", "input": [approval]}) == "previous_response_id"
    assert _param({"model": "agent:lead", "messages": []}, chat=True) == "messages"
    assert _param({"model": "agent:lead", "messages": [{"role": "bot"}]}, chat=True) == (
        "messages[0].role"
    )


def test_the_last_user_message_is_the_task_the_rest_its_context() -> None:
    asked = bodies.chat_request(
        {
            "model": "agent:lead@3",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": [{"type": "text", "text": "Sum 2 and 2"}]},
            ],
        }
    )
    assert asked.agent == "lead@3"
    assert asked.turn.goal == "Sum 2 and 2"
    assert asked.turn.context == {
        "instructions": "Be brief.",
        "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}],
    }
    plain = bodies.responses_request(
        {"model": "agent:lead", "input": "x", "instructions": "Terse."}
    )
    assert (plain.turn.goal, plain.turn.context, plain.store) == (
        "x",
        {"instructions": "Terse."},
        True,
    )


def _request(method: str, path: str) -> Request:
    return Request(
        {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}
    )


def test_the_door_names_its_calls() -> None:
    door = OpenAIDoor.__new__(OpenAIDoor)
    named = {
        ("POST", "/v1/responses"): "CreateResponse",
        ("GET", "/v1/responses/resp_task_1"): "GetResponse",
        ("POST", "/v1/responses/resp_task_1/cancel"): "CancelResponse",
        ("GET", "/v1/responses/resp_task_1/input_items"): "ListInputItems",
        ("POST", "/v1/chat/completions"): "CreateChatCompletion",
        ("GET", "/v1/models"): "ListModels",
        ("DELETE", "/v1/models"): "invalid",
    }
    for (method, path), name in named.items():
        assert door.method_of(_request(method, path), b"{}") == name
    answer = b'{"input": [{"type": "mcp_approval_response"}]}'
    assert door.method_of(_request("POST", "/v1/responses"), answer) == "ApproveToolCall"
    starting = {m for m in named.values() if door.starts_task(m)}
    assert starting == {"CreateResponse", "CreateChatCompletion"}
    assert (door.name, door.service) == ("openai", "openai.v1")


def test_a_body_that_is_no_json_object_names_the_body() -> None:
    for body in (b"{", b"[1]", b"\xff"):
        with pytest.raises(InvalidArgumentError) as refused:
            bodies.json_object(body)
        assert refused.value.field_violations[0].field == "body"
    assert bodies.task_of("resp_task_abc") == "task_abc"
    assert bodies.task_of("resp_other") == ""


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


def test_images_and_files_of_the_task_message_are_its_input_parts() -> None:
    png = b"\x89PNG\r\n\x1a\n..."
    responses = bodies.responses_request(
        {
            "model": "agent:lead",
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "What is in these?"},
                        {"type": "input_image", "image_url": f"data:image/png;base64,{_b64(png)}"},
                        {"type": "input_image", "image_url": "https://example.com/a.jpg"},
                        {
                            "type": "input_file",
                            "filename": "contract.pdf",
                            "file_data": f"data:application/pdf;base64,{_b64(b'%PDF-1.4')}",
                        },
                        {
                            "type": "input_file",
                            "filename": "my file.pdf",
                            "file_url": "https://x.io/f",
                        },
                    ],
                }
            ],
        }
    )
    turn = responses.turn
    assert turn.goal == "What is in these?"
    assert [(p.name, p.media_type, p.data, p.source_uri) for p in turn.parts] == [
        ("", "image/png", png, ""),
        ("", "", b"", "https://example.com/a.jpg"),
        ("contract.pdf", "application/pdf", b"%PDF-1.4", ""),
        ("", "", b"", "https://x.io/f"),  # not an artifact name: the default one
    ]
    chat = bodies.chat_request(
        {
            "model": "agent:lead",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "And this?"},
                        {"type": "image_url", "image_url": {"url": "https://example.com/b.png"}},
                        {
                            "type": "file",
                            "file": {"file_data": f"data:text/csv;base64,{_b64(b'a,b')}"},
                        },
                    ],
                }
            ],
        }
    )
    assert [(p.media_type, p.data, p.source_uri) for p in chat.turn.parts] == [
        ("", b"", "https://example.com/b.png"),
        ("text/csv", b"a,b", ""),
    ]


def test_unsupported_image_and_file_shapes_name_their_field() -> None:
    def responses(*content: dict[str, Any]) -> str:
        return _param(
            {"model": "agent:lead", "input": [{"role": "user", "content": list(content)}]}
        )

    assert (
        responses({"type": "input_image", "image_url": "ftp://x"})
        == "input[0].content[0].image_url"
    )
    assert responses({"type": "input_image", "image_url": "data:image/png;base64,@@"}) == (
        "input[0].content[0].image_url"
    )
    assert responses({"type": "input_image", "file_id": "file-1"}) == "input[0].content[0].file_id"
    assert responses({"type": "input_file", "file_id": "file-1"}) == "input[0].content[0].file_id"
    assert responses({"type": "input_audio"}) == "input[0].content[0]"
    earlier = [
        {"role": "user", "content": [{"type": "input_image", "image_url": "https://x.io/a.png"}]},
        {"role": "assistant", "content": "seen"},
        {"role": "user", "content": "and now?"},
    ]
    assert _param({"model": "agent:lead", "input": earlier}) == "input[0].content"
    chat = [{"role": "user", "content": [{"type": "image_url", "image_url": "https://x.io/a"}]}]
    assert _param({"model": "agent:lead", "messages": chat}, chat=True) == (
        "messages[0].content[0].image_url"
    )
