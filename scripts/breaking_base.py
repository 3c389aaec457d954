"""Print the buf input that `make lint` checks the protos against for breaking changes.

On a branch: the commit where it left main (`git merge-base HEAD main`, or
`origin/main` in a clone without a local main), so main's own later changes
are not taken for this branch's. On main: the commit before HEAD, so the last
change (and anything uncommitted) is checked. A clone too shallow to have that
commit is told how to fetch it.
"""

from __future__ import annotations

import subprocess
import sys


def _git(*args: str) -> str | None:
    done = subprocess.run(["git", *args], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def base() -> str:
    head = _git("rev-parse", "HEAD")
    if head is None:
        raise SystemExit("make lint: not a git checkout, so no protos to compare with")
    for main in ("main", "origin/main"):
        fork = _git("merge-base", "HEAD", main)
        if fork is not None and fork != head:
            return fork
        if fork == head:
            previous = _git("rev-parse", "--verify", "--quiet", "HEAD~1")
            if previous is None:
                if _git("rev-parse", "--is-shallow-repository") == "true":
                    raise SystemExit(
                        "make lint: this clone is shallow; run `git fetch --unshallow` so "
                        "buf breaking can compare the protos with the previous commit"
                    )
                return head  # the first commit: only uncommitted changes can break
            return previous
    raise SystemExit(
        "make lint: no main branch to compare the protos with; run `git fetch origin main`"
    )


if __name__ == "__main__":
    sys.stdout.write(f".git#ref={base()}\n")
