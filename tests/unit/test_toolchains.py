"""The gateway suites run only where their whole toolchain is: the commands, and the
packaged libraries each example's build.sh checks for (javac and protoc without Debian's
grpc jars made every Java test an error instead of a named skip)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import _libraries, missing_commands


def test_the_libraries_are_read_from_each_build_script() -> None:
    assert Path("/usr/share/java/grpc-api.jar") in _libraries("java")
    assert Path("/usr/share/java/protobuf.jar") in _libraries("java")
    assert Path("/usr/share/gocode/src/google.golang.org/grpc") in _libraries("go")


def test_a_missing_library_makes_the_toolchain_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda command: f"/usr/bin/{command}")
    monkeypatch.setattr(Path, "exists", lambda path: path.name != "grpc-api.jar")
    assert missing_commands("java") == ["/usr/share/java/grpc-api.jar"]
    assert missing_commands("go") == []
