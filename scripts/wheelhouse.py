"""A folder of wheels of agentd's runtime dependencies, for installs that reach no index.

    python scripts/wheelhouse.py [--python 3.11] [--glibc 2.36] [--to .cache/wheels]

The image build (`make image`, scripts/image.py) installs agentd inside a build step that
reaches no package index, and the lean-install test installs it into an empty virtual
environment; both take their wheels from here (`pip install --no-index --find-links`).

What goes in: the runtime dependencies of pyproject.toml (never an extra) at the versions
this virtual environment has (`pip freeze` as constraints, so the image runs what the
tests ran), and the build backend (`[build-system] requires`) so that agentd itself can be
built from its source without an index. Binary wheels only, for a given CPython and glibc
(the image's: Debian bookworm's 3.11 and 2.36), whatever this machine's Python is.

The folder is keyed on those inputs: when its `.key` matches, nothing is downloaded;
otherwise it is rebuilt whole (pip's own cache makes that fast) and swapped in.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "wheels"
FORMAT = 2
"""Changed when what this script puts in the folder changes (part of the key)."""
IMAGE_PYTHON = "3.11.2"
"""Debian bookworm's python3 (python:3.11-slim-bookworm has a later 3.11): the full version,
since markers compare it (redis needs async-timeout before 3.11.3)."""
IMAGE_GLIBC = "2.36"
"""Debian bookworm's C library: the newest manylinux wheels the image can load."""


@dataclass(frozen=True)
class Target:
    """The interpreter and C library the wheels are for."""

    python: str = IMAGE_PYTHON
    glibc: str = IMAGE_GLIBC
    machine: str = platform.machine()

    @property
    def abi(self) -> str:
        major, minor = self.python.split(".")[:2]
        return f"cp{major}{minor}"

    @property
    def name(self) -> str:
        return f"python{self.python}-glibc{self.glibc}-{self.machine}"

    def markers(self) -> dict[str, str]:
        """The environment markers of this target (pip evaluates them for this machine's
        Python, not for --python-version: `closure` catches what that leaves out)."""
        return {
            "python_version": ".".join(self.python.split(".")[:2]),
            "python_full_version": self.python,
            "implementation_name": "cpython",
            "platform_python_implementation": "CPython",
            "implementation_version": self.python,
            "sys_platform": "linux",
            "platform_system": "Linux",
            "os_name": "posix",
            "platform_machine": self.machine,
            "platform_release": "",
            "platform_version": "",
            "extra": "",
        }

    def pip_options(self) -> list[str]:
        """`pip download` options selecting binary wheels this target can load."""
        major, minor = (int(part) for part in self.glibc.split("."))
        options = ["--only-binary=:all:", "--python-version", self.python]
        options += ["--implementation", "cp", "--abi", self.abi]
        for glibc_minor in range(minor, 4, -1):
            options += ["--platform", f"manylinux_{major}_{glibc_minor}_{self.machine}"]
        return options


def host_target() -> Target:
    """This machine's interpreter and C library (for installs on this machine)."""
    libc = platform.libc_ver()[1] or IMAGE_GLIBC
    return Target(platform.python_version(), libc)


def requirements(pyproject: Path = ROOT / "pyproject.toml") -> tuple[list[str], list[str]]:
    """(runtime dependencies, build requirements) as pyproject.toml pins them."""
    data = tomllib.loads(pyproject.read_text())
    return list(data["project"]["dependencies"]), list(data["build-system"]["requires"])


def constraints(python: Path) -> list[str]:
    """The versions `python`'s environment has installed (agentd itself left out)."""
    frozen = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(
        line
        for line in frozen.splitlines()
        if "==" in line and " @ " not in line and not line.lower().startswith("agentd")
    )


def key(target: Target, runtime: list[str], build: list[str], pinned: list[str]) -> str:
    inputs = {"format": FORMAT, "python": target.python, "glibc": target.glibc}
    inputs |= {"machine": target.machine}
    inputs |= {"runtime": runtime, "build": build}
    inputs["constraints"] = pinned
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def _pip_download(python: Path, options: list[str], into: Path) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "download", "--quiet", "--dest", str(into), *options],
        check=True,
    )


def missing(folder: Path, target: Target) -> list[str]:
    """Requirements of the wheels in `folder` that apply to `target` and that no wheel there
    meets by name (extras are left to pip, which resolved them)."""
    wheels = {parse_wheel_filename(wheel.name)[0]: wheel for wheel in folder.glob("*.whl")}
    wanted: list[str] = []
    for wheel in wheels.values():
        with zipfile.ZipFile(wheel) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            metadata = BytesHeaderParser().parsebytes(archive.read(name))
        for line in metadata.get_all("Requires-Dist") or []:
            requirement = Requirement(line)
            if requirement.marker and not requirement.marker.evaluate(target.markers()):
                continue
            if canonicalize_name(requirement.name) not in wheels:
                requirement.marker = None
                wanted.append(str(requirement))
    return sorted(set(wanted))


def ensure(
    target: Target | None = None, *, python: Path | None = None, cache: Path = CACHE
) -> Path:
    """The wheel folder for `target` (the image's by default), built if missing or stale."""
    target = target or Target()
    python = python or Path(sys.executable)
    runtime, build = requirements()
    pinned = constraints(python)
    wanted = key(target, runtime, build, pinned)
    folder = cache / target.name
    if (folder / ".key").is_file() and (folder / ".key").read_text() == wanted:
        return folder
    staging = cache / f".{target.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    constraint_file = staging / ".constraints.txt"
    constraint_file.write_text("\n".join(pinned) + "\n")
    options = [*target.pip_options(), "-c", str(constraint_file)]
    _pip_download(python, [*options, *runtime], staging)
    for _ in range(5):  # what the target's markers add, and what that needs in turn
        more = missing(staging, target)
        if not more:
            break
        _pip_download(python, [*options, *more], staging)
    else:
        raise RuntimeError(f"wheels still missing for {target.name}: {missing(staging, target)}")
    _pip_download(python, [*target.pip_options(), "--no-deps", *build], staging)
    (staging / ".key").write_text(wanted)
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=IMAGE_PYTHON, help="CPython version, e.g. 3.11.2")
    parser.add_argument("--glibc", default=IMAGE_GLIBC, help="the target's glibc, e.g. 2.36")
    parser.add_argument("--to", type=Path, default=CACHE, help="the cache folder")
    args = parser.parse_args()
    folder = ensure(Target(args.python, args.glibc), cache=args.to)
    count = sum(1 for _ in folder.glob("*.whl"))
    shown = folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder
    print(f"wheels: {count} in {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
