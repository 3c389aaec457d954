"""Message parts through the engine's pieces: stored by reference (never inline), counted
by OpenAI's tile rule, sent as content parts to a model that sees images (a note to one
that does not), dropped whole to fit a window, and the providers file's `images:` key."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from pathlib import Path

import pytest

from agent.llm.fakes.received import images_of, text_of
from agent.llm.openai import OpenAIModel
from agent.llm.providers import Candidate, FallbackModel, Provider
from agent.llm.testing import ScriptedModel, text
from agent.llm.tool_names import WireNames
from agent.llm.window.catalog import ModelLimits
from agent.llm.window.fitting import fit_request
from agent.llm.window.tokens import ESTIMATE, image_tokens, message_tokens
from agent.seeing.inputs import document_text
from core.files import is_text
from records import serialization
from records.messages import Message, ModelSettings, ToolCall
from records.parts import ImagePart, InlineImage, TextPart
from server.wiring.providers import (
    ProvidersInvalidError,
    image_models,
    read_definitions,
)

PHOTO = ImagePart("photo.png", 1, "image/png", 800, 600)
PNG = b"\x89PNG\r\n\x1a\n-not-really-but-bytes"


def test_parts_round_trip_by_reference_and_an_inline_image_is_never_stored() -> None:
    message = Message("user", "look", parts=(PHOTO, TextPart("and this")))
    assert serialization.loads(serialization.dumps(message)) == message
    with pytest.raises(TypeError, match="InlineImage"):
        serialization.dumps(Message("user", "x", parts=(InlineImage(PHOTO, PNG),)))


def test_a_message_without_parts_is_stored_as_before_and_old_ones_load() -> None:
    plain = Message("user", "hello")
    stored = serialization.dumps(plain)
    assert "parts" not in json.loads(stored)  # byte for byte what the version before wrote
    old = '{"role":"assistant","content":"hi","tool_calls":{"__tuple":[]},"__t":"Message"}'
    assert serialization.loads(old) == Message("assistant", "hi")


@pytest.mark.parametrize(
    ("size", "detail", "tokens"),
    [
        ((800, 600), "low", 85),
        ((512, 512), "high", 255),  # one tile
        ((1024, 1024), "auto", 765),  # 768×768: four tiles
        ((2048, 4096), "high", 1105),  # 1024×2048, then 768×1536: six tiles
        ((800, 600), "auto", 765),  # 768 shortest side: 1024×768, four tiles
    ],
)
def test_images_are_counted_by_openais_tile_rule(
    size: tuple[int, int], detail: str, tokens: int
) -> None:
    assert image_tokens(*size, detail) == tokens
    image = ImagePart("i.png", 1, "image/png", *size, detail=detail)
    with_image = message_tokens(Message("user", "", parts=(image,)))
    assert with_image - message_tokens(Message("user", "")) == tokens


def _sent(model: OpenAIModel, messages: list[Message]) -> list[dict[str, object]]:
    request = model._request(messages, (), ModelSettings(), WireNames([]))
    sent: list[dict[str, object]] = request["messages"]
    return sent


def test_the_builder_sends_image_parts_to_a_seeing_model_and_plain_strings_otherwise() -> None:
    seeing = OpenAIModel("vision", image_models=frozenset({"vision"}))
    blind = seeing.sibling("text-only", None, None)
    assert seeing.sees_images
    assert not blind.sees_images
    messages = [
        Message("system", "be brief"),
        Message("user", "what is this?", parts=(InlineImage(PHOTO, PNG), TextPart("thanks"))),
    ]
    sent = _sent(seeing, messages)
    assert sent[0] == {"role": "system", "content": "be brief"}  # unchanged on the wire
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert sent[1]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": url, "detail": "auto"}},
        {"type": "text", "text": "thanks"},
    ]
    [received] = images_of({"messages": sent})
    assert received.sha256 == hashlib.sha256(PNG).hexdigest()
    noted = text_of({"messages": _sent(blind, messages)})
    assert "[image photo.png (image/png, 800×600) — this model does not see images" in noted
    assert images_of({"messages": _sent(blind, messages)}) == []


def test_images_of_tool_results_follow_them_in_a_user_message() -> None:
    model = OpenAIModel("vision", image_models=frozenset({"vision"}))
    call = ToolCall("c1", "fetch", "{}")
    messages = [
        Message("user", "fetch it"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "kept as photo.png", tool_call_id="c1", name="fetch",
                parts=(InlineImage(PHOTO, PNG),)),
    ]  # fmt: skip
    sent = _sent(model, messages)
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[2]["content"] == "kept as photo.png"  # OpenAI takes no image in a tool message
    assert [i.role for i in images_of({"messages": sent})] == ["user"]


def test_a_fallback_chain_reads_images_when_any_of_its_models_sees_them() -> None:
    seeing = OpenAIModel("vision", image_models=frozenset({"vision"}))
    blind = OpenAIModel("text-only")
    make = seeing.sibling
    chain = FallbackModel([Candidate(Provider("b", make), blind)])
    assert not chain.sees_images
    both = FallbackModel(
        [Candidate(Provider("b", make), blind), Candidate(Provider("s", make), seeing)]
    )
    assert both.sees_images


def test_ten_images_into_a_small_window_drop_whole_images_oldest_first_with_notes() -> None:
    images = [ImagePart(f"shot-{i}.png", 1, "image/png", 1024, 1024) for i in range(10)]
    messages = [
        Message("system", "describe the screenshots"),
        Message("user", "here they are", parts=tuple(images[:5])),
        Message("assistant", "go on"),
        Message("user", "and these", parts=tuple(images[5:])),
    ]
    limits = ModelLimits(4_096, 512)
    fitted = fit_request(messages, (), limits, ESTIMATE)
    usable = int(limits.context_window * 0.95) - 512
    assert fitted.prompt_tokens <= usable  # the request fits
    kept = [p for m in fitted.messages for p in m.parts if isinstance(p, ImagePart)]
    notes = [p.text for m in fitted.messages for p in m.parts if isinstance(p, TextPart)]
    dropped = 10 - len(kept)
    assert fitted.dropped_images == dropped > 0
    assert kept == images[dropped:]  # the newest kept whole, the oldest left out
    assert notes == [
        f"[image shot-{i}.png (image/png, 1024×1024) left out to fit the context window]"
        for i in range(dropped)
    ]
    assert fitted.clipped == fitted.dropped == 0  # only images went


def test_a_test_double_records_what_it_received() -> None:
    model = ScriptedModel([text("ok")])
    model.sees_images = True
    message = Message("user", "see", parts=(InlineImage(PHOTO, PNG), TextPart("more")))
    asyncio.run(model.complete([message]))
    [image] = model.images()
    assert (image.media_type, image.size) == ("image/png", len(PNG))
    assert model.text() == "see\nmore"


def test_a_document_is_marked_with_its_name_and_cut_at_its_limit() -> None:
    assert document_text("a.txt", "text/plain", "short", 100) == (
        "[document a.txt (text/plain)]\nshort\n[end of a.txt]"
    )
    cut = document_text("b.csv", "text/csv", "z" * 1_500, 1_000)
    assert cut.count("z") == 1_000
    assert "500 more characters of b.csv cut" in cut
    assert is_text("application/json")
    assert is_text("text/csv; charset=utf-8")
    assert not is_text("application/zip")


def test_the_providers_file_says_which_models_take_images(tmp_path: Path) -> None:
    path = tmp_path / "providers.json"
    models = ["plain", {"name": "vision", "images": True}, {"name": "other", "images": False}]
    spec = {"base_url": "http://127.0.0.1:1/v1", "models": models}
    path.write_text(json.dumps({"providers": {"p": spec}}))
    assert image_models(read_definitions(path)["p"]) == frozenset({"vision"})
    spec["models"] = [{"name": "vision", "images": "yes"}]
    path.write_text(json.dumps({"providers": {"p": spec}}))
    with pytest.raises(ProvidersInvalidError, match=r"models\[0\]\.images: true or false"):
        read_definitions(path)


async def test_a_providers_models_know_from_its_entries_whether_they_see_images(
    tmp_path: Path,
) -> None:
    from server.wiring.providers import build_providers
    from tests.servers import settings_in

    path = tmp_path / "providers.json"
    models = ["plain", {"name": "vision", "images": True}]
    spec = {"base_url": "http://127.0.0.1:1/v1", "models": models}
    path.write_text(json.dumps({"providers": {"p": spec}}))
    provider = build_providers(settings_in(tmp_path, providers_file=path))["p"]
    try:
        assert provider.make("vision", None, None).sees_images
        assert not provider.make("plain", None, None).sees_images
        assert not provider.make("unknown", None, None).sees_images
    finally:
        assert provider.close is not None
        await provider.close()  # type: ignore[misc]


def test_a_trace_and_a_conversations_turn_name_images_never_their_bytes() -> None:
    from agent.conversations.turns import turn_from
    from agent.llm.window.tokens import ESTIMATE as COUNTER
    from agent.recording.capture import message
    from records.parts import InputPart
    from records.tasks import Task, TaskStatus

    traced = message(Message("user", "see", parts=(InlineImage(PHOTO, PNG), TextPart("t"))), 4096)
    assert traced.content == "see\n[image photo.png (image/png, 800×600)]\nt"
    task = Task(task_id="t1", tenant="acme", owner="alice", goal="what is this?")
    task.input_parts = (InputPart("photo.png", "image/png", b"", len(PNG), "ab", "", 800, 600),)
    task.status, task.final_answer = TaskStatus.COMPLETED, "a photo"
    first = turn_from(task, [], COUNTER).messages[0]
    assert first.content == (
        "what is this?\n[given with this message, kept as artifacts of task t1: "
        "photo.png (image/png)]"
    )


async def test_the_run_reads_images_once_for_a_seeing_model_and_notes_a_missing_one() -> None:
    from agent.running.artifacts import RunArtifacts
    from records.tasks import Task
    from stores.artifacts.memory import InMemoryArtifactStore

    store = InMemoryArtifactStore()
    task = Task(task_id="t1", tenant="acme", owner="alice", goal="look")
    await store.write("acme", "t1", "photo.png", "image/png", PNG, "t1")
    artifacts = RunArtifacts(store, task)
    gone = ImagePart("gone.png", 1, "image/png", 10, 10)
    messages = [Message("user", "look", parts=(PHOTO, gone))]
    shown = await artifacts.shown(messages, sees=True)
    assert shown[0].parts[0] == InlineImage(PHOTO, PNG)
    assert shown[0].parts[1] == TextPart(
        "[image gone.png (image/png, 10×10) — its artifact is no longer kept]"
    )
    await store.write("acme", "t1", "photo.png", "image/png", b"version 2", "t1")
    again = await artifacts.shown(messages, sees=True)
    assert again[0].parts[0] == InlineImage(PHOTO, PNG)  # version 1, as referred to
    blind = await artifacts.shown(messages, sees=False)
    assert isinstance(blind[0].parts[0], TextPart)
    assert "does not see images" in blind[0].parts[0].text
    assert messages[0].parts == (PHOTO, gone)  # what the run keeps is unchanged


def test_an_assistant_message_with_parts_keeps_its_tool_calls_and_sends_no_image() -> None:
    model = OpenAIModel("vision", image_models=frozenset({"vision"}))
    call = ToolCall("c1", "look", "{}")
    assistant = Message("assistant", "", tool_calls=(call,), parts=(InlineImage(PHOTO, PNG),))
    [sent] = _sent(model, [assistant])
    assert sent["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}}
    ]
    assert images_of({"messages": [sent]}) == []  # a note instead: only users send images
    assert "photo.png" in text_of({"messages": [sent]})
