"""Running agentd's image on this machine without a container runtime.

`podman run` cannot start containers here, so a test mounts the image's root file system
(`buildah mount`) and runs its entrypoint in it the way Kubernetes would with
`readOnlyRootFilesystem: true`: in a mount namespace of its own, the root file system
bound read-only, a host folder as the state volume (/var/lib/agentd), a fresh /tmp, as
the image's user, in its working directory, with exactly the image's environment (plus
what the test sets). The network is this machine's, so a test moves the listening
addresses to 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TAG = "localhost/agentd:test"
"""The image the tests build (apart from `make image`'s localhost/agentd:latest)."""
STATE = "/var/lib/agentd"

_JAIL = """
set -e
root=$1 state=$2 user=$3 workdir=$4; shift 4
mount --bind "$root" "$root"
mount -o remount,bind,ro "$root"
mount --bind "$state" "$root/var/lib/agentd"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
exec chroot --userspec="$user" "$root" /usr/bin/env -i -C "$workdir" "$@"
"""


@dataclass(frozen=True)
class Image:
    """A built image, its configuration, and where its root file system is mounted."""

    tag: str
    config: Mapping[str, object]
    root: Path

    @property
    def env(self) -> dict[str, str]:
        entries = self.config.get("Env") or []
        assert isinstance(entries, list)
        return dict(str(entry).split("=", 1) for entry in entries)

    def command(self, *args: str) -> list[str]:
        """The entrypoint with `args`, or with the image's CMD when none are given."""
        entrypoint = self.config.get("Entrypoint") or []
        cmd = self.config.get("Cmd") or []
        assert isinstance(entrypoint, list)
        assert isinstance(cmd, list)
        return [*map(str, entrypoint), *(args or map(str, cmd))]

    def popen(
        self, state: Path, argv: Sequence[str], env: Mapping[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """`argv` in the image (see the module's docstring); stdout and stderr piped."""
        environment = {**self.env, **(env or {})}
        user = str(self.config.get("User") or "0:0")
        workdir = str(self.config.get("WorkingDir") or "/")
        assignments = [f"{name}={value}" for name, value in environment.items()]
        jail = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _JAIL, "jail"]
        return subprocess.Popen(
            [*jail, str(self.root), str(state), user, workdir, *assignments, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(
        self, state: Path, argv: Sequence[str], env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        process = self.popen(state, argv, env)
        out, err = process.communicate(timeout=120)
        return subprocess.CompletedProcess(argv, process.returncode, out, err)


def build(tag: str = TAG) -> str:
    """Build the image (scripts/image.py: the cached Debian base and wheels); its output."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "image.py"), "--tag", tag],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, f"image build failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
    return done.stdout


def _buildah(*args: str) -> str:
    return subprocess.run(["buildah", *args], check=True, capture_output=True, text=True).stdout


@contextmanager
def mounted(tag: str = TAG) -> Iterator[Image]:
    """A working container of `tag` with its root file system mounted; removed after."""
    inspected = json.loads(_buildah("inspect", "--type", "image", tag))
    config = inspected["OCIv1"]["config"]
    name = f"agentd-test-{secrets.token_hex(4)}"
    container = _buildah("from", "--pull-never", "--name", name, tag)
    container = container.strip()
    try:
        root = Path(_buildah("mount", container).strip())
        yield Image(tag, config, root)
    finally:
        subprocess.run(["buildah", "umount", container], capture_output=True)
        subprocess.run(["buildah", "rm", container], capture_output=True)


def state_volume(folder: Path, user: str) -> Path:
    """A host folder owned by the image's user, for its state volume."""
    uid, gid = (int(part) for part in user.split(":"))
    folder.mkdir(mode=0o750)
    os.chown(folder, uid, gid)
    return folder


class Lines:
    """A process's output read line by line in a thread, so that waits have deadlines."""

    def __init__(self, stream: object) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, pattern: str, seconds: float) -> re.Match[str]:
        """The first match of `pattern` in a line (already seen or to come)."""
        deadline = time.monotonic() + seconds
        for seen in self.seen:
            if found := re.search(pattern, seen):
                return found
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if found := re.search(pattern, line):
                return found
        raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(self.seen)}")

    def rest(self, seconds: float = 10) -> str:
        """Everything read once the stream has ended (within `seconds`)."""
        self._thread.join(timeout=seconds)
        while not self._queue.empty():
            line = self._queue.get()
            if line is not None:
                self.seen.append(line)
        return "".join(self.seen)
