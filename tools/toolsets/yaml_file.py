"""The toolsets file as YAML: `yaml.safe_load`, except that a key written twice in one
mapping is kept as `Written` (its value is refused), so that a toolset defined twice is
found out rather than silently overwritten, and that a file whose aliases make it more
than MAX_VALUES values (a few lines can stand for billions) or refer to themselves is
refused before it is built, so that nothing walks it for ever."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True, slots=True)
class Written:
    """A key the YAML mapping holds more than once (its value is refused)."""

    times: int


class _Loader(yaml.SafeLoader):
    """safe_load, except that a key written twice in one mapping is kept as `Written`."""


def _mapping(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    """A mapping; a key the mapping itself writes more than once is kept as `Written`
    (keys merged in with `<<: *anchor` may be overridden, as YAML says)."""
    own: Counter[Any] = Counter()
    for key_node, _ in node.value:
        if key_node.tag != "tag:yaml.org,2002:merge":
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key is not a scalar", key_node.start_mark
                )
            own[key] += 1
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        out[loader.construct_object(key_node, deep=True)] = loader.construct_object(
            value_node, deep=True
        )
    out.update({key: Written(times) for key, times in own.items() if times > 1})
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


MAX_VALUES = 500_000
"""More than a 1 MiB file can hold without aliases."""


class TooLargeError(yaml.YAMLError):
    """A document its aliases make too large, or that refers to itself."""


def _values(root: yaml.Node) -> int:
    """How many values the document stands for, aliases expanded (each distinct node
    counted once, its size remembered); TooLargeError past MAX_VALUES or on a cycle."""
    sizes: dict[int, int] = {}
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, children_done = pending.pop()
        parts = _children(node)
        if children_done:
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in parts)
            if sizes[id(node)] > MAX_VALUES:
                raise TooLargeError(f"its aliases make it more than {MAX_VALUES:,} values")
            continue
        if id(node) in sizes:
            continue  # counted already (an alias of it)
        sizes[id(node)] = -1  # in progress: met again below itself, it refers to itself
        pending.append((node, True))
        for child in parts:
            if sizes.get(id(child)) == -1:
                raise TooLargeError("an alias refers to a value that contains it")
            pending.append((child, False))
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load_yaml(text: str) -> Any:
    """The document (None for an empty one); yaml.YAMLError when it is not YAML or is
    refused (TooLargeError)."""
    loader = _Loader(text)  # a SafeLoader
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _values(root)
        return loader.construct_document(root)
    finally:
        loader.dispose()
