"""The vendored A2A contract (third_party/a2a/a2a.proto, tag v1.0.0), from which the Go and
Java code is generated, is the contract the official SDK's types (which agentd serves in
Python) describe: the same messages, enums, service, methods and annotations."""

from __future__ import annotations

from pathlib import Path

from a2a.types import a2a_pb2
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]


def _vendored(tmp_path: Path) -> descriptor_pb2.FileDescriptorProto:
    import grpc_tools
    from google.api import annotations_pb2

    out = tmp_path / "a2a.pb"
    status = protoc.main(
        [
            "protoc",
            f"--proto_path={ROOT / 'third_party' / 'a2a'}",
            f"--proto_path={Path(annotations_pb2.__file__).parents[2]}",
            f"--proto_path={Path(grpc_tools.__file__).parent / '_proto'}",
            f"--descriptor_set_out={out}",
            "a2a.proto",
        ]
    )
    assert status == 0
    found = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return found.file[0]


def test_the_vendored_proto_is_the_contract_of_the_sdk(tmp_path: Path) -> None:
    vendored = _vendored(tmp_path)
    sdk = descriptor_pb2.FileDescriptorProto()
    a2a_pb2.DESCRIPTOR.CopyToProto(sdk)
    assert (
        (vendored.name, vendored.package) == (sdk.name, sdk.package) == ("a2a.proto", "lf.a2a.v1")
    )
    # The SDK's build rewrites the file options (its Java package, PHP and Ruby names);
    # everything that is on the wire or in the service is the same.
    vendored.ClearField("options")
    sdk.ClearField("options")
    assert vendored == sdk
    [service] = vendored.service
    assert [m.name for m in service.method] == [
        "SendMessage",
        "SendStreamingMessage",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "SubscribeToTask",
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "GetExtendedAgentCard",
        "DeleteTaskPushNotificationConfig",
    ]


def test_the_licence_and_its_source_are_kept_with_it() -> None:
    folder = ROOT / "third_party" / "a2a"
    assert "Apache License" in (folder / "LICENSE").read_text()
    note = (folder / "README.md").read_text()
    assert "v1.0.0" in note
    assert "173695755607e884aa9acf8ce4feed90e32727a1" in note
