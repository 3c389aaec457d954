"""Fail when the product code's module import graph has a cycle (part of `make lint`).

The graph is import-linter's own (grimp): every import statement counts, those under
`if TYPE_CHECKING:` and those inside functions included. A cycle is reported as the
modules of each strongly connected component, with one shortest chain that closes it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import grimp

PACKAGES = ("core", "records", "stores", "tools", "agent", "auth", "audit", "server")


def _children(graph: grimp.ImportGraph, module: str) -> Iterator[str]:
    return iter(sorted(graph.find_modules_directly_imported_by(module)))


def components(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, _children(graph, root))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, _children(graph, child)))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main() -> int:
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False)
    cycles = components(graph)
    for component in cycles:
        first, second = component[0], None
        for candidate in component[1:]:
            if graph.find_shortest_chain(importer=candidate, imported=first):
                second = candidate
                break
        print(f"import cycle among {len(component)} modules: {', '.join(component)}")
        if second is not None:
            there = graph.find_shortest_chain(importer=first, imported=second) or ()
            back = graph.find_shortest_chain(importer=second, imported=first) or ()
            print("  " + " -> ".join([*there, *back[1:]]))
    if cycles:
        return 1
    print(f"no import cycles among {len(graph.modules)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
