"""Which line of a SKILL.md a place in its `steps:` is on, for `skills validate`.

The frontmatter is composed again (YAML nodes keep their marks; nothing is constructed,
so aliases are not expanded) and a path such as `("steps", 1, "retry")` is followed as
far as it exists: a key's line, else its step's, else the `steps:` line.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

from codebot.skills.files import MAX_FILE_BYTES, Spec, read_regular
from codebot.skills.files.frontmatter import FrontmatterError, split

Where = tuple[str | int, ...]


def _norm(key: str) -> str:
    return key.strip().lower().replace("_", "-")


def _child(node: yaml.Node, part: str | int) -> yaml.Node | None:
    """The value node (for a key: the key node, whose line is the key's) under `part`."""
    if isinstance(part, int) and isinstance(node, yaml.SequenceNode):
        return node.value[part] if 0 <= part < len(node.value) else None
    if isinstance(part, str) and isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and _norm(str(k.value)) == _norm(part):
                return v
    return None


def _key_line(node: yaml.Node, part: str | int) -> int | None:
    if isinstance(part, str) and isinstance(node, yaml.MappingNode):
        for k, _ in node.value:
            if isinstance(k, yaml.ScalarNode) and _norm(str(k.value)) == _norm(part):
                return k.start_mark.line
    if (
        isinstance(part, int)
        and isinstance(node, yaml.SequenceNode)
        and 0 <= part < len(node.value)
    ):
        return node.value[part].start_mark.line
    return None


def line_finder(spec: Spec) -> Callable[[Where], int]:
    """`find(where)`: the 1-based line of `where` in `spec`'s file (1 when unknown)."""
    root: yaml.Node | None = None
    first = 1
    try:  # read_regular: never open a file that became a FIFO since it was loaded
        head = read_regular(spec.path, MAX_FILE_BYTES)[: spec.body_offset]
        found = split(head)
        if found is not None:
            first = found.yaml_first_line
            root = yaml.compose(found.yaml_text, Loader=yaml.SafeLoader)
    except (OSError, ValueError, RecursionError, yaml.YAMLError, FrontmatterError):
        root = None

    def find(where: Where) -> int:
        node, line = root, None
        for part in where:
            if node is None:
                break
            at = _key_line(node, part)
            if at is None:
                break
            line = at
            node = _child(node, part)
        return first + line if line is not None else 1

    return find
