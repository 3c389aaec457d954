"""Build agentd's container image with buildah (`make image`; docs/deploy.md).

    python scripts/image.py [--base bookworm | IMAGE] [--tag localhost/agentd:latest]
                            [--refresh-base]

`--base bookworm` (the default) needs no image registry: mmdebstrap builds a minimal
Debian bookworm root file system with python3 and python3-venv from Debian's packages,
and buildah turns it into the base image. Any other value is an image reference passed
as it is (e.g. python:3.11-slim-bookworm, the Containerfile's default, where a registry
is reachable). The build steps reach no package index: pip installs from the wheel
folder of scripts/wheelhouse.py, which is inside the build context.

The root file system (a tar) and the wheels are cached under .cache/, keyed on what
makes them; `--refresh-base` builds the root file system again (for Debian's security
updates). Prints the build time and the image's size.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts import wheelhouse

ROOT = wheelhouse.ROOT
CACHE = ROOT / ".cache" / "rootfs"
CONTAINERFILE = ROOT / "deploy" / "Containerfile"
DEFAULT_TAG = "localhost/agentd:latest"
SUITE = "bookworm"
PACKAGES = ("python3", "python3-venv", "ca-certificates")
"""Debian's python3 is 3.11 on bookworm; python3-venv brings ensurepip (venv with pip)."""
MMDEBSTRAP_OPTIONS = (
    "--variant=minbase",
    "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",  # merged /usr without usrmerge (perl)
    "--aptopt=APT::Install-Recommends false",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/info/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    "--dpkgopt=path-include=/usr/share/locale/locale.alias",
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
)
"""A slim image's choices: no recommended packages, no manuals, translations or docs
(the copyright files stay)."""


def _run(command: list[str], *, quiet: bool = False) -> str:
    """Run `command`; its output when `quiet` (else it goes to this process's)."""
    done = subprocess.run(command, check=True, text=True, capture_output=quiet)
    return done.stdout if quiet else ""


def rootfs_key() -> str:
    inputs = {"suite": SUITE, "packages": PACKAGES, "options": MMDEBSTRAP_OPTIONS}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


def rootfs(*, refresh: bool = False) -> Path:
    """The base root file system as a tar, built by mmdebstrap unless cached."""
    tar = CACHE / f"{SUITE}-{rootfs_key()}.tar"
    if tar.is_file() and not refresh:
        return tar
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = CACHE / f"partial-{tar.name}"  # mmdebstrap writes a tar for a .tar name
    include = "--include=" + ",".join(PACKAGES)
    _run(["mmdebstrap", "--quiet", *MMDEBSTRAP_OPTIONS, include, SUITE, str(partial)])
    for old in CACHE.glob(f"{SUITE}-*.tar"):  # an older key's tar: nothing will read it
        old.unlink()
    partial.rename(tar)
    return tar


def image_id(name: str) -> str:
    """The id of the image `name`, or "" when there is none."""
    found = subprocess.run(["buildah", "images", "--quiet", name], capture_output=True, text=True)
    return found.stdout.strip() if found.returncode == 0 else ""


def base_image(*, refresh: bool = False) -> str:
    """A local image of the cached root file system (named by its key)."""
    name = f"localhost/agentd-base:{SUITE}-{rootfs_key()}"
    if image_id(name) and not refresh:
        return name
    tar = rootfs(refresh=refresh)
    container = _run(["buildah", "from", "scratch"], quiet=True).strip()
    try:
        _run(["buildah", "add", "--quiet", container, str(tar), "/"], quiet=True)
        _run(["buildah", "config", "--env", "LANG=C.UTF-8", container])
        _run(["buildah", "commit", "--quiet", "--rm", container, name], quiet=True)
    except BaseException:
        subprocess.run(["buildah", "rm", container], capture_output=True)
        raise
    return name


def build(base: str, tag: str) -> None:
    """`buildah bud` of deploy/Containerfile on `base`, from the wheel folder."""
    wheels = wheelhouse.ensure()
    inside = Path("/src") / wheels.relative_to(ROOT)
    before = image_id(tag)
    options = ["--isolation", "chroot", "--quiet", "--file", str(CONTAINERFILE), "--tag", tag]
    options += ["--build-arg", f"BASE_IMAGE={base}"]
    options += ["--build-arg", f"PIP_INSTALL_OPTIONS=--no-index --find-links {inside}"]
    _run(["buildah", "bud", *options, str(ROOT)])
    if before and before != image_id(tag):  # nameless now: nothing will run it again
        subprocess.run(["buildah", "rmi", before], capture_output=True)


def size(tag: str) -> str:
    """The image's size as buildah shows it (its layers, uncompressed), e.g. "315 MB"."""
    shown = _run(["buildah", "images", "--json", tag], quiet=True)
    return str(json.loads(shown)[0]["size"])


def missing_tools(base: str) -> list[str]:
    needed = ["buildah"] + (["mmdebstrap"] if base == SUITE else [])
    return [tool for tool in needed if shutil.which(tool) is None]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=SUITE, help=f"'{SUITE}' or an image reference")
    parser.add_argument("--tag", default=DEFAULT_TAG)
    parser.add_argument("--refresh-base", action="store_true", help="rebuild the root fs")
    args = parser.parse_args()
    missing = missing_tools(args.base)
    if missing:
        print(f"image: {', '.join(missing)} missing (Debian packages; .ci/run installs them)")
        return 1
    started = time.monotonic()
    base = base_image(refresh=args.refresh_base) if args.base == SUITE else args.base
    build(base, args.tag)
    seconds = time.monotonic() - started
    print(f"image: {args.tag} on {base}, {size(args.tag)}, built in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
