"""The toolsets file as YAML: `yaml.safe_load`, except that a key written twice in one
mapping is kept as `Written` (its value is refused), so that a toolset defined twice is
found out rather than silently overwritten."""

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


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)  # a SafeLoader
