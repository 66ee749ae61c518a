"""Split a skill file into YAML frontmatter and body, and load the YAML safely.

Real skill files are written by hand for hosts that are lenient, so this module is too,
within limits: a BOM, CRLF and trailing spaces after `---` are fine, and a plain scalar
with `: ` inside (`description: Usage: /x <a|b>`) is retried as a quoted string. What it
refuses, it refuses with a line number and a hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader that keeps numbers and dates as the text the author wrote.

    No frontmatter field is numeric, and `version: 1.10` must stay "1.10", not 1.1.
    """


def _as_text(loader: yaml.BaseLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


for _tag in ("int", "float", "timestamp"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _as_text)

BOM = b"\xef\xbb\xbf"
_FENCE = re.compile(rb"^---[ \t]*\r?$")
# Visiting more nodes than this means aliases are multiplying the document (a "billion
# laughs" bomb): such frontmatter is refused before anything turns it into text.
MAX_NODES = 20_000
MAX_FRONTMATTER_BYTES = 256 * 1024


class FrontmatterError(Exception):
    """The frontmatter cannot be used. Carries what a Diagnostic needs."""

    def __init__(self, code: str, message: str, line: int = 1, hint: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.hint = hint


@dataclass(frozen=True, slots=True)
class Split:
    yaml_text: str
    yaml_first_line: int  # 1-based line of the first YAML line
    body_offset: int  # byte offset of the body
    body_line: int  # 1-based line where the body starts


def split(data: bytes) -> Split | None:
    """Find the frontmatter. None when the file does not start with `---`."""
    start = len(BOM) if data.startswith(BOM) else 0
    first_end = data.find(b"\n", start)
    first = data[start : first_end if first_end != -1 else len(data)]
    if not _FENCE.match(first):
        return None
    if first_end == -1:
        raise FrontmatterError(
            "no-closing-fence", "frontmatter opens with '---' but never closes", 1,
            "add a line with just '---' after the last frontmatter key",
        )  # fmt: skip
    pos = first_end + 1
    line_no = 2
    while pos <= len(data):
        end = data.find(b"\n", pos)
        line = data[pos : end if end != -1 else len(data)]
        if _FENCE.match(line) or line.rstrip(b"\r \t") == b"...":
            yaml_bytes = data[first_end + 1 : pos]
            if len(yaml_bytes) > MAX_FRONTMATTER_BYTES:
                raise FrontmatterError(
                    "frontmatter-too-large", f"frontmatter is {len(yaml_bytes)} bytes", 2,
                    f"keep frontmatter under {MAX_FRONTMATTER_BYTES // 1024} KiB; move text into the body",
                )  # fmt: skip
            body_offset = end + 1 if end != -1 else len(data)
            return Split(
                yaml_text=yaml_bytes.decode("utf-8").replace("\r\n", "\n"),
                yaml_first_line=2,
                body_offset=body_offset,
                body_line=line_no + 1,
            )
        if end == -1:
            break
        pos = end + 1
        line_no += 1
    raise FrontmatterError(
        "no-closing-fence", "frontmatter opens with '---' on line 1 but never closes", 1,
        "add a line with just '---' after the last frontmatter key",
    )  # fmt: skip


# A top-level `key: value` line whose value is a plain scalar (not quoted, not a block or
# flow collection, not an anchor/alias/tag).
_PLAIN_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):[ \t]+(?P<value>[^\s'\"|>\[{&*!%@`#].*?)[ \t]*$")


def _quote_plain_scalars(text: str) -> tuple[str, list[int]]:
    """Quote top-level plain values that YAML rejects because of `: ` or ` #` inside."""
    out: list[str] = []
    fixed: list[int] = []
    for i, line in enumerate(text.split("\n")):
        m = _PLAIN_LINE.match(line)
        if m and (": " in m["value"] or " #" in m["value"] or m["value"].endswith(":")):
            escaped = m["value"].replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'{m["key"]}: "{escaped}"')
            fixed.append(i)
        else:
            out.append(line)
    return "\n".join(out), fixed


def _count_nodes(value: Any, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise FrontmatterError(
            "frontmatter-bomb", "frontmatter expands into too many values (YAML aliases?)", 1,
            "remove the YAML anchors and aliases (&name / *name) from the frontmatter",
        )  # fmt: skip
    if isinstance(value, dict):
        for k, v in value.items():
            _count_nodes(k, budget)
            _count_nodes(v, budget)
    elif isinstance(value, list):
        for v in value:
            _count_nodes(v, budget)


def _yaml_error_line(err: yaml.YAMLError, first_line: int) -> int:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    return first_line + mark.line if mark is not None else first_line


def load(sp: Split) -> tuple[dict[str, Any], list[int]]:
    """Parse the YAML of a split. Returns the mapping and the file lines that were repaired."""
    try:
        value = yaml.load(sp.yaml_text, Loader=_Loader)
        repaired: list[int] = []
    except yaml.YAMLError as first_err:
        quoted, fixed = _quote_plain_scalars(sp.yaml_text)
        if not fixed:
            raise _yaml_failure(first_err, sp.yaml_first_line) from None
        try:
            value = yaml.load(quoted, Loader=_Loader)
        except yaml.YAMLError:
            raise _yaml_failure(first_err, sp.yaml_first_line) from None
        repaired = [sp.yaml_first_line + i for i in fixed]
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise FrontmatterError(
            "frontmatter-not-mapping",
            f"frontmatter is a {type(value).__name__}, not a mapping of keys to values",
            sp.yaml_first_line,
            "write 'key: value' lines, e.g. 'name: my-skill' and 'description: ...'",
        )
    _count_nodes(value, [MAX_NODES])
    return value, repaired


def _yaml_failure(err: yaml.YAMLError, first_line: int) -> FrontmatterError:
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    return FrontmatterError(
        "yaml-syntax",
        f"frontmatter is not valid YAML: {problem}",
        _yaml_error_line(err, first_line),
        "quote values that contain ': ' or start with a special character, e.g. description: \"...\"",
    )
