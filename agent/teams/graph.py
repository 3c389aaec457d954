"""Who may delegate to whom: cycles in agents' `delegates` are refused.

At load (agent files, and an agent created or updated by RPC) a definition that closes
a cycle is refused; at run time a delegation to an agent already above the task in its
tree (its `lineage`) is refused as an observation, since agents can change between.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def find_cycle(delegates: Mapping[str, Sequence[str]]) -> list[str] | None:
    """A cycle in the delegation graph (agent id -> the ids it delegates to), as the path
    `[a, b, ..., a]`; None when there is none. Unknown ids are leaves."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in delegates.get(node, ()):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(delegates):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def show(cycle: Sequence[str]) -> str:
    return " -> ".join(cycle)
