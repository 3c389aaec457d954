"""Files a tool returns, kept at the one door of tool calls: artifacts of the task under
write_artifact's limits, named for the call, announced, told to the model (an image put
on the tool message as an image part), audited and journalled without their bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from agent.llm.testing import ScriptedModel, text, tool_calls
from agent.modes import function_calling, text_react
from agent.tool_use.files import MAX_FILES, Door, artifact_name, keep_files
from agent.tool_use.results import replayed
from core.identity import CallContext
from records import events as ev
from records import serialization
from records.checkpoints import JournalEntry
from records.execution import ExecutionMode
from records.parts import ImagePart, InlineImage, TextPart
from records.tools.model import (
    JSONValue,
    PermissionLevel,
    RiskLevel,
    Tool,
    ToolFile,
    ToolOutput,
    ToolSpec,
)
from records.tools.outcomes import ToolCallResult
from stores.artifacts.base import name_problem
from tests.helpers import tiny_png
from tests.unit.agent.runs import Env, make_env, of_type
from tools.builtin.artifacts import WRITE_ARTIFACT, WriteArtifact

PNG = tiny_png(4, 3)


class FileTool(Tool):
    """Returns the files it was made with; may not be repeated (so it is journalled)."""

    spec = ToolSpec(
        name="snap",
        description="Take a picture.",
        parameters={"type": "object", "properties": {}},
        category="test",
        permission=PermissionLevel.READ,
        risk=RiskLevel.LOW,
        idempotent=False,
        timeout_seconds=5.0,
    )

    def __init__(self, *files: ToolFile) -> None:
        self.files = files

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        return ToolOutput({"taken": len(self.files)}, "taken", files=self.files)


async def _snap(
    env: Env, *files: ToolFile, sees: bool = True
) -> tuple[ScriptedModel, list[ev.EventPayload]]:
    env.registry.register(FileTool(*files))
    model = ScriptedModel([tool_calls(("snap", {})), text("done")])
    model.sees_images = sees
    run = await env.run(model, tools=("snap",))
    await function_calling.run(run)
    return model, await env.events(run)


async def test_an_image_is_kept_announced_told_and_shown(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model, events = await _snap(env, ToolFile("photo.png", "image/png", PNG))

    (updated,) = of_type(events, ev.ArtifactUpdated)
    assert updated.name == "snap-iteration-1-0-1-photo.png"
    assert (updated.version, updated.media_type, updated.size) == (1, "image/png", len(PNG))
    writer = env.registry.catalog.get(WRITE_ARTIFACT)
    assert isinstance(writer, WriteArtifact)
    kept = await writer._store.read("acme", updated.writer_task_id, updated.name)
    assert kept is not None
    assert kept.content == PNG
    tool_message = model.calls[1].messages[-1]
    assert tool_message.role == "tool"
    assert f"file kept as artifact {updated.name} version 1" in tool_message.content
    assert hashlib.sha256(PNG).hexdigest() in tool_message.content
    shown = ImagePart(updated.name, 1, "image/png", 4, 3)
    assert tool_message.parts == (InlineImage(shown, PNG),)  # the next call sees it


async def test_a_model_that_does_not_see_images_is_told_the_image_s_name(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    model, _ = await _snap(env, ToolFile("photo.png", "image/png", PNG), sees=False)

    (note,) = model.calls[1].messages[-1].parts
    assert isinstance(note, TextPart)
    assert "snap-iteration-1-0-1-photo.png (image/png, 4×3)" in note.text
    assert "does not see images" in note.text


async def test_an_oversized_file_is_not_kept_and_the_model_is_told(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    big = b"\x00" * (1024 * 1024 + 1)
    model, events = await _snap(env, ToolFile("dump", "application/octet-stream", big))

    assert of_type(events, ev.ArtifactUpdated) == []
    (finished,) = of_type(events, ev.ToolCallFinished)
    assert finished.error is None  # the call did not fail for it
    told = model.calls[1].messages[-1].content
    assert "file not kept (application/octet-stream, 1048577 bytes" in told
    assert "AGENTD_ARTIFACT_MAX_BYTES" in told


async def test_something_calling_itself_an_image_is_kept_as_bytes_not_shown(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    model, events = await _snap(env, ToolFile("x.png", "image/png", b"not a png"))

    (updated,) = of_type(events, ev.ArtifactUpdated)
    assert updated.media_type == "application/octet-stream"
    assert model.calls[1].messages[-1].parts == ()


async def test_too_many_files_past_the_cap_are_named_not_kept(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    files = [ToolFile(f"f{i}.txt", "text/plain", b"x") for i in range(MAX_FILES + 2)]
    model, events = await _snap(env, *files)

    assert len(of_type(events, ev.ArtifactUpdated)) == MAX_FILES
    assert (
        "'f21.txt' not kept: a call keeps 20 files at most" in model.calls[1].messages[-1].content
    )


async def test_audit_and_journal_hold_no_bytes(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    secret = b"SECRET-BYTES-" + PNG
    _, events = await _snap(env, ToolFile("s.bin", "application/octet-stream", secret))

    (record,) = [r for r in env.audit.records if r.tool_name == "snap"]
    facts = {
        "name": "s.bin",
        "media_type": "application/octet-stream",
        "size": len(secret),
        "sha256": hashlib.sha256(secret).hexdigest(),
    }
    expected = {"result": {"taken": 1}, "files": [facts]}
    canonical = json.dumps(expected, sort_keys=True, separators=(",", ":"), default=str)
    assert record.result_digest == hashlib.sha256(canonical.encode()).hexdigest()
    assert "SECRET" not in repr(record)
    (finished,) = of_type(events, ev.ToolCallFinished)
    assert "SECRET" not in repr(finished)
    assert hashlib.sha256(secret).hexdigest() in finished.text


@pytest.mark.parametrize(
    ("tool", "place", "suggested", "media_type", "expected"),
    [
        ("snap", "iteration-1/0", "photo.png", "image/png", "snap-iteration-1-0-1-photo.png"),
        ("notes.fetch", "c1", "", "image/jpeg", "notes.fetch-c1-1.jpg"),
        ("t", "c", "../../etc/passwd", "text/plain", "t-c-1-passwd.txt"),
        ("t", "c", "..", "", "t-c-1.bin"),
        ("t", "c", "a b\u00e9c", "application/pdf", "t-c-1-a-b-c.pdf"),
        ("t", "c", "x" * 500 + ".png", "image/png", "t-c-1-" + "x" * 48 + ".png"),
    ],
)
def test_names_are_valid_and_derived_from_the_suggestion(
    tool: str, place: str, suggested: str, media_type: str, expected: str
) -> None:
    name = artifact_name(tool, place, 1, suggested, media_type)
    assert name == expected
    assert name_problem(name) is None


async def test_a_replay_keeps_no_files_and_says_so(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(ScriptedModel([]), tools=())
    result = ToolCallResult(
        "call_1", "snap", {}, "taken", 0.0, files=(ToolFile("p.png", "image/png", PNG),)
    )
    door = SimpleNamespace(registry=env.registry, replay=object())
    kept = await keep_files(run, cast("Door", door), result, "iteration-1/0")
    assert kept.files == ()
    assert kept.images == ()
    assert kept.text.endswith("a replay writes no artifacts")
    assert of_type(await env.events(run), ev.ArtifactUpdated) == []


async def test_read_artifact_puts_the_image_on_the_tool_message(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    env.registry.register(FileTool(ToolFile("photo.png", "image/png", PNG)))
    kept = "snap-iteration-1-0-1-photo.png"
    model = ScriptedModel(
        [tool_calls(("snap", {})), tool_calls(("read_artifact", {"name": kept})), text("red")]
    )
    model.sees_images = True
    run = await env.run(model, tools=("snap", "read_artifact"))
    await function_calling.run(run)
    read = model.calls[2].messages[-1]
    assert read.name == "read_artifact"
    assert read.parts == (InlineImage(ImagePart(kept, 1, "image/png", 4, 3), PNG),)
    assert "base64" not in read.content


async def test_a_journalled_result_keeps_its_images_for_a_resumed_run(tmp_path: Path) -> None:
    """A checkpoint's journal entry keeps the images by reference (through the
    checkpoints' serialization), and the resumed run's result shows them again."""
    env = make_env(tmp_path)
    _, events = await _snap(env, ToolFile("photo.png", "image/png", PNG))
    (updated,) = of_type(events, ev.ArtifactUpdated)
    run = await env.run(ScriptedModel([]), tools=("snap",))
    image = ImagePart(updated.name, 1, "image/png", 4, 3)
    entry = JournalEntry("call_1", "snap", True, True, "taken", {"taken": 1}, images=(image,))
    back = serialization.loads(serialization.dumps(entry))
    assert back == entry
    again = await replayed(run, {}, "iteration-1", "snap", back, "iteration-1/0")
    assert again.images == (image,)


async def test_text_react_shows_the_images_with_the_observation(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    env.registry.register(FileTool(ToolFile("photo.png", "image/png", PNG)))
    action = "Thought: look\nAction: snap\nAction Input: {}"
    model = ScriptedModel([text(action), text("Thought: seen\nFinal Answer: red")])
    model.sees_images = True
    run = await env.run(model, "Look.", tools=("snap",), mode=ExecutionMode.TEXT_REACT)
    await text_react.run(run)
    observed = model.calls[1].messages[-1]
    assert observed.content.startswith("Observation: taken\nfile kept as artifact snap-")
    (image,) = observed.parts
    assert isinstance(image, InlineImage)
    assert image.data == PNG
    assert (image.source.media_type, image.source.width, image.source.height) == (
        "image/png",
        4,
        3,
    )
