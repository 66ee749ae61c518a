"""Split a skill file into YAML frontmatter and body, and load the YAML safely.

Real skill files are written by hand for hosts that are lenient, so this module is too,
within limits: a BOM, CRLF and trailing spaces after `---` are fine, and a plain scalar
with `: ` inside (`description: Usage: /x <a|b>`) is retried as a quoted string. What it
refuses, it refuses with a line number and a hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from codebot import regex_cache
from codebot.skills.files.yaml_hints import yaml_hint

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
        try:
            text.parsed = standard(loader, node)
        except (ValueError, OverflowError):
            # `2024-02-30`, an int of over 4,300 digits: the pattern matched, no value exists
            text.parsed = str(text)
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
_CLOSE = re.compile(rb"^(?:---[ \t]*\r?|\.\.\.[\r \t]*)$", re.MULTILINE)
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
            "no-closing-fence",
            "frontmatter opens with '---' but never closes",
            1,
            "add a line with just '---' after the last frontmatter key",
        )
    # The first line after the opening one that is `---` or `...` (each may be followed
    # by spaces, tabs or a CR) closes the frontmatter.
    m = _CLOSE.search(data, first_end + 1)
    if m is not None:
        yaml_bytes = data[first_end + 1 : m.start()]
        if len(yaml_bytes) > MAX_FRONTMATTER_BYTES:
            raise FrontmatterError(
                "frontmatter-too-large",
                f"frontmatter is {len(yaml_bytes)} bytes",
                2,
                f"keep frontmatter under {MAX_FRONTMATTER_BYTES // 1024} KiB; "
                "move text into the body",
            )
        end = m.end()  # at the line's newline, or at the end of the data
        return Split(
            yaml_text=yaml_bytes.decode("utf-8").replace("\r\n", "\n"),
            yaml_first_line=2,
            body_offset=end + 1 if end < len(data) else len(data),
            body_line=data.count(b"\n", first_end + 1, m.start()) + 3,
        )
    raise FrontmatterError(
        "no-closing-fence",
        "frontmatter opens with '---' on line 1 but never closes",
        1,
        "add a line with just '---' after the last frontmatter key",
    )


# A top-level `key: value` line whose value is a plain scalar (not quoted, not a block or
# flow collection, not an anchor/alias/tag).
_PLAIN_LINE = regex_cache.compile(
    r"^(?P<key>[A-Za-z_][\w-]*):[ \t]+(?P<value>[^\s'\"|>\[{&*!%@`#].*?)[ \t]*$"
)
# Keys whose value is always text: `argument-hint: [path] [--fix]` or a description that
# starts with a backtick is not YAML, but the author's meaning is clear.
_TEXT_LINE = regex_cache.compile(
    r"^(?P<key>name|description|when[_-]to[_-]use|argument[_-]hint):[ \t]+"
    r"(?P<value>[\[{%@`].*?)[ \t]*$",
    re.IGNORECASE,
)


def _quote_plain_scalars(text: str) -> tuple[str, list[int]]:
    """Quote top-level plain values that YAML rejects because of `: ` or ` #` inside."""
    out: list[str] = []
    fixed: list[int] = []
    for i, line in enumerate(text.split("\n")):
        m = _PLAIN_LINE.match(line)
        bad_plain = m is not None and (
            ": " in m["value"] or " #" in m["value"] or m["value"].endswith(":")
        )
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


def _count_nodes(value: object, budget: list[int]) -> None:
    budget[0] -= 1
    if isinstance(value, str):
        budget[1] -= len(value)
    if budget[0] < 0 or budget[1] < 0:
        raise FrontmatterError(
            "frontmatter-bomb",
            "frontmatter expands into too many values (YAML aliases?)",
            1,
            "remove the YAML anchors and aliases (&name / *name) from the frontmatter",
        )
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


# -- a fast path for the simplest frontmatter -------------------------------------------
#
# Most frontmatter is a few `key: text` lines, perhaps with one nested `metadata:` block.
# For exactly that shape, `simple_load` builds the same dict PyYAML (with `_Loader`) would,
# several times faster; for anything else it returns None and PyYAML reads the text. It is
# deliberately conservative. It accepts only:
#   * a text made of printable characters (no tab, CR, NEL, U+2028/9, BOM, controls);
#   * lines that are blank (spaces only), comments (`#` after optional spaces), or
#     `key: value` / `key:` (see `_SIMPLE_LINE`) where `key` starts the line (top level),
#     or, right after a top-level `key:` with nothing written after it, is indented by the
#     same number of spaces on every line of that block (one level of nesting, no deeper);
#   * or, in such a block instead of `key: value` lines, `- value` / `-` items of a block
#     sequence, all with the same indentation (zero included);
#   * values that are either
#       - a plain scalar that does not start with a YAML indicator or space, holds no `: `,
#         no ` #` and does not end with `:`; it is resolved to a tag with the loader's own
#         implicit resolvers, exactly as PyYAML does, and only `str`, `null` and `bool`
#         are accepted (numbers and dates, which `_Loader` wraps in `Scalar`, go to PyYAML);
#       - a single-line "double-quoted" string without `\` or `"` inside, or a
#         'single-quoted' string without `'` inside, followed by nothing but spaces.
# Keys are resolved the same way and must resolve to `str`. Everything else (flow or block
# collections, multi-line scalars, anchors, tags, escapes, numbers, dates, odd indentation)
# falls back to PyYAML. tests/skills/test_frontmatter_fast.py checks that the fast path
# returns what `yaml.load(text, Loader=_Loader)` returns, types included, on the shared
# corpus, on generated skills and on fuzzed texts.

# Printable per YAML 1.1, minus line breaks other than LF and minus the BOM.
_SIMPLE_CHARS = regex_cache.compile(
    "[\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*"
)
# Characters that may not start a plain scalar here: YAML indicators, plus `-`, `?` and `:`
# (which may, when a non-space follows; left to PyYAML) and the space.
_NOT_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@` ")
_RESOLVERS: dict[str | None, list[tuple[str, re.Pattern[str]]]] = _Loader.yaml_implicit_resolvers
_STR_TAG = "tag:yaml.org,2002:str"
_NULL_TAG = "tag:yaml.org,2002:null"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_BOOL_VALUES: dict[str, bool] = yaml.constructor.SafeConstructor.bool_values
_UNSUPPORTED = object()


def _plain_tag(text: str) -> str:
    """The tag PyYAML's resolver gives a plain scalar (cf. `BaseResolver.resolve`)."""
    for tag, regexp in _RESOLVERS.get(text[0] if text else "", ()):
        if regexp.match(text):
            return tag
    return _STR_TAG


def _simple_value(value: str) -> object:
    """A value after `key: ` or `- ` (stripped of spaces, not empty); `_UNSUPPORTED` for
    anything but the simple shapes."""
    first = value[0]
    if first == '"' or first == "'":
        end = value.find(first, 1)
        if end != len(value) - 1:
            return _UNSUPPORTED  # unclosed, or something after the closing quote
        inner = value[1:end]
        if first == '"' and "\\" in inner:
            return _UNSUPPORTED
        return inner
    if first in _NOT_PLAIN_START or ": " in value or " #" in value or value[-1] == ":":
        return _UNSUPPORTED
    resolvers = _RESOLVERS.get(first)
    if resolvers is None:
        return value  # no implicit type starts with this character: a string
    tag = _plain_tag(value)
    if tag == _STR_TAG:
        return value
    if tag == _NULL_TAG:
        return None
    if tag == _BOOL_TAG:
        return _BOOL_VALUES[value.lower()]
    return _UNSUPPORTED


# `key:` or `key: value` with any indentation, or `-` / `- value`; the value without the
# spaces before it (those after it are stripped). Tabs never get here (`_SIMPLE_CHARS`).
_SIMPLE_LINE = regex_cache.compile(r"( *)(?:([A-Za-z_][A-Za-z0-9_-]{0,127}):|(-))(?: +(.*))?")
_BLANK_OR_COMMENT = regex_cache.compile(r" *(?:#.*)?")


class _KeyCache(dict[str, bool]):
    """key -> resolves to a string (keys repeat from file to file). A miss is worked out
    by `__missing__`, so a hit costs the main loop of `simple_load` a plain lookup."""

    def __missing__(self, key: str) -> bool:
        ok = _plain_tag(key) == _STR_TAG
        if len(self) < 1024:
            self[key] = ok
        return ok


_key_ok = _KeyCache()


def simple_load(text: str, keys: list[tuple[str, int]] | None = None) -> dict[str, object] | None:
    """What `yaml.load(text, Loader=_Loader)` returns (None read as {}), for the simple
    shapes described above; None when the text is not one of them. `keys` receives each
    top-level key as written with its 0-based line, repeats included (see `load_keys`)."""
    if None in _RESOLVERS or not _SIMPLE_CHARS.fullmatch(text):
        return None
    top: dict[str, object] = {}
    opener: str | None = None  # the last top-level key with no value: a block may follow
    block: dict[str, object] | list[object] | None = None  # that block, once it has a line
    indent = 0  # of the block's lines
    seen = keys if keys is not None else []
    # This loop runs for every line of every skill on a catalog load: the usual line, a
    # top-level `key: value`, is handled here without calling anything but `_simple_value`;
    # blank lines, comments and the lines of a block go to helpers.
    match = _SIMPLE_LINE.fullmatch
    for i, line in enumerate(text.split("\n")):
        m = match(line)
        if m is None:
            if _BLANK_OR_COMMENT.fullmatch(line) is None:
                return None
            continue
        lead_s, key, dash, written = m.groups()
        # `written` never starts with a space (the regex's ` +` is greedy), so it is empty
        # exactly when it is empty after rstrip: `key:` / `-` with nothing after it is null.
        value = _simple_value(written.rstrip(" ")) if written else None
        if value is _UNSUPPORTED:
            return None
        if lead_s or dash is not None:  # `- item` or `  key: value` of the block under `opener`
            placed = _block_line(top, opener, block, indent, len(lead_s), key, dash, value)
            if placed is None:
                return None
            block, indent = placed
            continue
        if not _key_ok[key]:
            return None
        top[key] = value
        seen.append((key, i))
        opener = None if written else key  # `key: null` opens no block
        block = None
    return top


def _block_line(
    top: dict[str, object],
    opener: str | None,
    block: dict[str, object] | list[object] | None,
    indent: int,
    lead: int,
    key: str | None,
    dash: str | None,
    value: object,
) -> tuple[dict[str, object] | list[object], int] | None:
    """Add one line of the block under `opener` (its first line creates the block in `top`).

    Returns the block and its indentation, or None when the line is not one of the simple
    shapes: no key opened a block, a list item in a mapping (or the reverse), another
    indentation, or a key that does not resolve to a string.
    """
    if dash is not None:  # `- item` of a block sequence
        if block is None:
            if opener is None:
                return None
            block, indent = [], lead
            top[opener] = block
        elif lead != indent or type(block) is not list:
            return None
        block.append(value)  # type: ignore[union-attr]
        return block, indent
    if not _key_ok[key]:  # type: ignore[index]
        return None
    if opener is not None and (block is None or (lead == indent and type(block) is dict)):
        if block is None:
            block, indent = {}, lead
            top[opener] = block
        block[key] = value  # type: ignore[index]
        return block, indent
    return None


def load(sp: Split) -> tuple[dict[str, object], list[int]]:
    """Parse the YAML of a split. Returns the mapping and the file lines that were repaired."""
    value, repaired, _ = load_keys(sp)
    return value, repaired


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _yaml_load(text: str, keys: list[tuple[str, int]]) -> object:
    """`yaml.load(text, Loader=_Loader)`, step by step (what `get_single_data` does) so
    the top-level keys can be read off the node tree: the mapping YAML builds keeps only
    the last of two equal keys, and construction folds `<<` merges into the node."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if isinstance(node, yaml.MappingNode):
            keys.extend(
                (str(k.value), k.start_mark.line)
                for k, _ in node.value
                if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE_TAG
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_keys(sp: Split) -> tuple[dict[str, object], list[int], list[tuple[str, int]]]:
    """`load`, plus every top-level key as written and its file line, in order and with
    repeats (both paths report the same list), for the duplicate-key check of `parse`."""
    keys: list[tuple[str, int]] = []
    # the usual simple frontmatter, exactly as PyYAML
    value: object = simple_load(sp.yaml_text, keys)
    repaired: list[int] = []
    # The fast path takes no anchors or aliases (`*x` is not a simple value), so what it
    # gives is bounded by MAX_FRONTMATTER_BYTES like any alias-free text: only PyYAML's
    # result is counted below (a `*` in a glob or a description is no alias to expand).
    expanded = value is None
    if value is None:
        keys.clear()
        try:
            value = _yaml_load(sp.yaml_text, keys)
        except yaml.YAMLError as first_err:
            quoted, fixed = _quote_plain_scalars(sp.yaml_text)
            if not fixed:
                raise _yaml_failure(first_err, sp.yaml_first_line, sp.yaml_text) from None
            keys.clear()
            try:
                value = _yaml_load(quoted, keys)  # same lines: the repair quotes in place
            except yaml.YAMLError:
                raise _yaml_failure(first_err, sp.yaml_first_line, sp.yaml_text) from None
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
    if expanded and "*" in sp.yaml_text:  # without aliases, MAX_FRONTMATTER_BYTES bounds it
        _count_nodes(value, [MAX_NODES, MAX_EXPANDED_CHARS])
    return value, repaired, [(k, sp.yaml_first_line + line) for k, line in keys]


def _yaml_failure(err: yaml.YAMLError, first_line: int, text: str) -> FrontmatterError:
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    return FrontmatterError(
        "yaml-syntax",
        f"frontmatter is not valid YAML: {problem}",
        _yaml_error_line(err, first_line),
        yaml_hint(err, text),
    )
