"""Immutable values that describe a skill and what was wrong with its file.

`Spec` is what the rest of codebot passes around. It never holds the body: only where
the body starts, so an edited body is read fresh at invocation time.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Never, TypeVar, cast

from codebot.skills.files.safe_read import MAX_FILE_BYTES, read_regular

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

EMPTY: Mapping[str, Never] = MappingProxyType({})  # fits any Mapping[str, X]
_T = TypeVar("_T", bound="DataclassInstance")


class Source(enum.Enum):
    """Where a skill came from. The order of members is the precedence for name clashes."""

    PROJECT = "project"
    USER = "user"
    BUNDLED = "bundled"
    PLUGIN = "plugin"
    # Not from a folder: a `skills.catalog.sources.SkillSource` (an MCP server's SEP-2640
    # skills); its body is fetched by the source, never read from `path`.
    MCP = "mcp"

    @property
    def trusted(self) -> bool:
        """Plugins are third-party code and a server's skills are data: neither may run
        shell or raise privileges."""
        return self is not Source.PLUGIN and self is not Source.MCP


class Severity(enum.Enum):
    ERROR = "error"  # the skill is not loaded
    WARNING = "warning"  # loaded, but something should be fixed
    INFO = "info"  # a fact worth knowing (shadowing, a repaired line)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about one file: where, what, and what to do about it."""

    path: str
    line: int
    code: str
    severity: Severity
    message: str
    hint: str = ""
    field: str | None = None

    def format(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        field = f" [{self.field}]" if self.field else ""
        hint = f" — {self.hint}" if self.hint else ""
        return f"{where}: {self.severity.value} {self.code}{field}: {self.message}{hint}"

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "code": self.code,
            "severity": self.severity.value,
            "field": self.field,
            "message": self.message,
            "hint": self.hint,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Diagnostic:
        """A diagnostic from the catalog index's JSON (the index checks its rows)."""
        return cls(
            path=d["path"],
            line=d["line"],
            code=d["code"],
            severity=Severity(d["severity"]),
            message=d["message"],
            hint=d.get("hint", ""),
            field=d.get("field"),
        )


@dataclass(frozen=True, slots=True)
class Argument:
    """A declared argument. `schema` is a JSON Schema for its value, when one was given."""

    name: str
    description: str = ""
    required: bool = False
    schema: Mapping[str, object] | None = None


@dataclass(frozen=True, slots=True)
class Root:
    """A folder that holds skills, with everything needed to rank what it holds.

    `rank` orders roots for name clashes: lower wins. It is assigned by discovery from the
    source, the folder family (codebot > .agents > .claude), the distance from the working
    directory and the order of `--skills-dir` flags.
    """

    path: Path
    source: Source
    family: (
        str  # a host of `catalog/hosts.py` ("codebot", "gemini", …), "extra", "bundled", "plugin"
    )
    rank: tuple[int, ...]
    plugin: str | None = None
    explicit: bool = False  # named by the user (--skills-dir): a missing one is reported


@dataclass(frozen=True, slots=True)
class Stamp:
    """What `reload()` compares to decide whether a file must be parsed again."""

    mtime_ns: int
    size: int
    inode: int


@dataclass(frozen=True, slots=True)
class Spec:
    """One parsed skill. Immutable; the catalog swaps whole snapshots of these."""

    name: str  # as written (or the folder/file stem); namespaced `plugin:name` for plugins
    key: str  # normalized name used for deduplication and lookup
    description: str
    path: Path  # the SKILL.md (or single-file .md) as found
    real_path: Path
    dir: Path  # the skill's folder (for single-file skills, the root)
    root: Root
    body_offset: int  # byte offset of the body in the file
    body_line: int  # 1-based line number where the body starts
    stamp: Stamp
    when_to_use: str | None = None
    argument_hint: str | None = None
    arguments: tuple[Argument, ...] = ()
    context: str = "inline"
    agent: str | None = None
    model: str | None = None
    effort: str | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    user_invocable: bool = True
    disable_model_invocation: bool = False
    # From Codex's agents/openai.yaml beside SKILL.md.
    allow_implicit_invocation: bool = True
    display_name: str | None = None
    short_description: str | None = None
    license: str | None = None
    compatibility: str | None = None
    metadata: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    extra: Mapping[str, object] = field(default_factory=lambda: EMPTY)
    frontmatter_keys: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def source(self) -> Source:
        return self.root.source

    @property
    def plugin(self) -> str | None:
        return self.root.plugin

    @property
    def single_file(self) -> bool:
        return self.path.name.lower() != "skill.md"

    def read_body(self) -> str:
        """Read the body from disk now, so an edit takes effect without a reload.

        Raises OSError (safe_read.NotRegularFile, TooLarge, ...) when the file is gone, is
        no longer a regular file (a FIFO swapped in would block the session) or has grown
        past the size limit.
        """
        if self.root.source is Source.MCP:  # `path` names it; no file holds it
            raise OSError(f"{self.name} comes from an MCP server: its source fetches the body")
        data = read_regular(self.path, MAX_FILE_BYTES, offset=self.body_offset)
        return data.decode("utf-8", errors="replace")


def slot_maker(cls: type[_T], keywords: bool = False) -> Callable[..., _T]:
    """A constructor equivalent to `cls(...)` for a slots dataclass, about twice as fast.

    A frozen dataclass's `__init__` sets each field with a looked-up `object.__setattr__`
    call; the catalog builds ten thousand specs (and candidates and stamps) in one load.
    The function made here, generated from `fields(cls)` like the dataclass's own
    `__init__`, sets the slots through their descriptors instead. Same parameters in the
    same order (keyword-only with `keywords=True`), same defaults (a default factory is
    called per object, as in `__init__`); `cls` must have no `__post_init__`.
    """
    if hasattr(cls, "__post_init__") or not all(f.init for f in fields(cls)):  # pragma: no cover
        raise TypeError(f"{cls.__name__}: only plain slots dataclasses are supported")
    ns: dict[str, object] = {"_new": object.__new__, "_cls": cls, "_MISSING": MISSING}
    params: list[str] = []
    body: list[str] = []
    for f in fields(cls):
        if f.default is not MISSING:
            ns[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not MISSING:
            ns[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    if {f.name} is _MISSING: {f.name} = _f_{f.name}()")
        else:
            params.append(f.name)
        ns[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
    body.append("    o = _new(_cls)")
    body.extend(f"    _set_{f.name}(o, {f.name})" for f in fields(cls))
    star = "*, " if keywords else ""
    src = f"def make({star}{', '.join(params)}):\n" + "\n".join(body) + "\n    return o\n"
    exec(src, ns)  # generated from the dataclass fields, as dataclasses does
    return cast("Callable[..., _T]", ns["make"])


#: `make_spec(**fields)` is `Spec(**fields)`, faster; `new_stamp(m, s, i)` is `Stamp(m, s, i)`.
make_spec = slot_maker(Spec, keywords=True)
new_stamp = slot_maker(Stamp)


_SEPARATORS = re.compile(r"[\s_]+")


def normalize_name(name: str) -> str:
    """The identity of a skill name: NFKC, case-folded, runs of `_`/space as `-`.

    `Code_Review`, `code review` and `ｃｏｄｅ-ｒｅｖｉｅｗ` are the same skill.
    """
    folded = unicodedata.normalize("NFKC", name).casefold().strip()
    return _SEPARATORS.sub("-", folded)
