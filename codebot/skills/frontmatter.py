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


class Scalar(str):
    """A number or date as written, remembering what YAML would have made of it.

    Text fields want "1.10"; a JSON Schema in `arguments` wants `minimum: 1` as a number.
    """

    __slots__ = ("parsed",)
    parsed: object


def _scalar_constructor(tag: str):
    standard = yaml.SafeLoader.yaml_constructors[f"tag:yaml.org,2002:{tag}"]

    def construct(loader: yaml.BaseLoader, node: yaml.Node) -> Scalar:
        text = Scalar(loader.construct_scalar(node))  # type: ignore[arg-type]
        text.parsed = standard(loader, node)
        return text

    return construct


for _tag in ("int", "float", "timestamp"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _scalar_constructor(_tag))


def unwrap_numbers(value: object) -> object:
    """Undo `Scalar` recursively: what a plain YAML load would have returned."""
    if isinstance(value, Scalar):
        return value.parsed
    if isinstance(value, dict):
        return {k: unwrap_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap_numbers(v) for v in value]
    return value

BOM = b"\xef\xbb\xbf"
_FENCE = re.compile(rb"^---[ \t]*\r?$")
# Visiting more nodes than this means aliases are multiplying the document (a "billion
# laughs" bomb): such frontmatter is refused before anything turns it into text.
MAX_NODES = 20_000
MAX_EXPANDED_CHARS = 4 * 1024 * 1024
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
# Keys whose value is always text: `argument-hint: [path] [--fix]` or a description that
# starts with a backtick is not YAML, but the author's meaning is clear.
_TEXT_LINE = re.compile(r"^(?P<key>name|description|when[_-]to[_-]use|argument[_-]hint):[ \t]+(?P<value>[\[{%@`].*?)[ \t]*$", re.IGNORECASE)


def _quote_plain_scalars(text: str) -> tuple[str, list[int]]:
    """Quote top-level plain values that YAML rejects because of `: ` or ` #` inside."""
    out: list[str] = []
    fixed: list[int] = []
    for i, line in enumerate(text.split("\n")):
        m = _PLAIN_LINE.match(line)
        bad_plain = m is not None and (": " in m["value"] or " #" in m["value"] or m["value"].endswith(":"))
        if not bad_plain:
            m = _TEXT_LINE.match(line)
            if m and _parses_alone(line):
                m = None  # valid YAML as written: leave it alone
        if m:
            escaped = m["value"].replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'{m["key"]}: "{escaped}"')
            fixed.append(i)
        else:
            out.append(line)
    return "\n".join(out), fixed


def _parses_alone(line: str) -> bool:
    try:
        yaml.load(line, Loader=_Loader)
    except yaml.YAMLError:
        return False
    return True


def _count_nodes(value: Any, budget: list[int]) -> None:
    budget[0] -= 1
    if isinstance(value, str):
        budget[1] -= len(value)
    if budget[0] < 0 or budget[1] < 0:
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
    if "*" in sp.yaml_text:  # without aliases, MAX_FRONTMATTER_BYTES already bounds the size
        _count_nodes(value, [MAX_NODES, MAX_EXPANDED_CHARS])
    return value, repaired


def _yaml_failure(err: yaml.YAMLError, first_line: int) -> FrontmatterError:
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    return FrontmatterError(
        "yaml-syntax",
        f"frontmatter is not valid YAML: {problem}",
        _yaml_error_line(err, first_line),
        "quote values that contain ': ' or start with a special character, e.g. description: \"...\"",
    )
