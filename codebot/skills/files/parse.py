"""Parse one skill file into a `Spec`, or explain why it cannot be loaded.

`parse_file` never raises for anything a file contains: every problem becomes a
`Diagnostic`, and an ERROR means the skill stays out of the catalog.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from stat import S_ISREG
from types import MappingProxyType

from codebot.skills.files import coerce, frontmatter
from codebot.skills.files.arguments import read_arguments
from codebot.skills.files.codex_meta import NO_CODEX, read_openai_yaml
from codebot.skills.files.collector import Collector
from codebot.skills.files.command_file import COMMANDS, command_fields, whole_body
from codebot.skills.files.frontmatter import FrontmatterError
from codebot.skills.files.safe_read import (
    MAX_FILE_BYTES,
    NotRegularFile,
    TooLarge,
    kind_of,
    read_regular,
)
from codebot.skills.files.spec import (
    Diagnostic,
    Root,
    Severity,
    Spec,
    Stamp,
    make_spec,
    new_stamp,
    normalize_name,
)

CONTEXTS = ("inline", "fork")
# Text that could close or forge the tags codebot wraps skill text in. It is escaped
# when rendered; the warning tells the author (or whoever reviews a plugin) it is there.
TAG_LIKE = re.compile(r"</?\s*(system-reminder|skill)\b", re.IGNORECASE)

# Frontmatter keys with behaviour, after folding case and `_` to `-`.
KNOWN_KEYS = {
    "name",
    "description",
    "when-to-use",
    "argument-hint",
    "arguments",
    "context",
    "agent",
    "model",
    "effort",
    "allowed-tools",
    "disallowed-tools",
    "paths",
    "user-invocable",
    "disable-model-invocation",
    "license",
    "compatibility",
    "metadata",
}
# The fields that grant something (pre-approved tools, a model, an effort, a sub-agent
# and its type). YAML keeps the last of two equal keys without a word, so a second
# `allowed-tools:` appended below the one a reviewer read would win; when any of these is
# written twice, the author's intent is unknowable and none of them is granted.
GRANT_KEYS = ("allowed-tools", "model", "effort", "context", "agent")


def stamp_of(st: os.stat_result) -> Stamp:
    return Stamp(st.st_mtime_ns, st.st_size, st.st_ino)


_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


def _key_lines(yaml_text: str, first_line: int) -> dict[str, int]:
    """Line of each top-level key, so a diagnostic can point at the field."""
    lines: dict[str, int] = {}
    match = _KEY_LINE.match
    for i, line in enumerate(yaml_text.split("\n")):
        m = match(line)
        if m:
            lines.setdefault(m.group(1).lower().replace("_", "-"), first_line + i)
    return lines


def _raw_value(yaml_text: str, index: int) -> str:
    line = yaml_text.split("\n")[index]
    return line.split(":", 1)[1].strip()


def parse_file(
    path: Path,
    root: Root,
    st: os.stat_result | None = None,
    real_path: Path | None = None,
    side: bool = True,
) -> tuple[Spec | None, list[Diagnostic]]:
    """Parse one skill file. `side=False` says the folder has no `agents` entry (the scan
    saw its listing), so agents/openai.yaml is not looked for."""
    out = Collector(path)
    try:
        return _parse(path, root, st, real_path, out, side)
    except RecursionError:
        return out.error(
            "frontmatter-too-deep",
            "frontmatter is nested too deeply to read",
            hint="flatten the frontmatter",
        )
    except Exception as exc:
        return out.error(
            "internal-error",
            f"could not read this skill: {type(exc).__name__}: {exc}",
            hint="please report this file to the codebot developers",
        )


def _parse(
    path: Path,
    root: Root,
    st: os.stat_result | None,
    real_path: Path | None,
    out: Collector,
    side: bool = True,
) -> tuple[Spec | None, list[Diagnostic]]:
    try:
        st = st or path.stat()
    except OSError as exc:
        return out.error(
            "unreadable",
            f"cannot stat file: {exc.strerror or exc}",
            hint="check that the file exists and is readable",
        )
    # A FIFO, a device or a folder is refused before it is opened (opening some devices
    # does something); read_regular checks the opened descriptor again, for a file
    # swapped in between.
    if not S_ISREG(st.st_mode):
        return _not_regular(path, st.st_mode, out)
    if st.st_size > MAX_FILE_BYTES:
        return out.error(
            "file-too-large",
            f"file is {st.st_size:,} bytes (limit {MAX_FILE_BYTES:,})",
            hint="move long material into references/ files next to SKILL.md",
        )
    try:
        data = read_regular(path, MAX_FILE_BYTES, size_hint=st.st_size)
    except NotRegularFile as exc:
        return _not_regular(path, exc.mode, out)
    except TooLarge:  # it grew past the limit since the scan's stat
        return out.error(
            "file-too-large",
            f"file is over {MAX_FILE_BYTES:,} bytes",
            hint="move long material into references/ files next to SKILL.md",
        )
    except OSError as exc:
        return out.error(
            "unreadable",
            f"cannot read file: {exc.strerror or exc}",
            hint="check the file's permissions",
        )
    bad = _bad_content(data, out)
    if bad is not None:
        return bad
    try:
        sp = frontmatter.split(data)
        if sp is None:
            return _no_frontmatter(path, root, st, real_path, data, out)
        raw, repaired, keys = frontmatter.load_keys(sp)
    except FrontmatterError as exc:
        return out.error(exc.code, exc.message, exc.line, exc.hint)
    for line in repaired:
        out.add(
            Severity.WARNING,
            "yaml-repaired",
            "value is not valid YAML as written (': ', ' #' or a leading [, ` inside) "
            "and was read as a quoted string",
            line,
            "put the value in double quotes",
            "frontmatter",
        )
    raw = command_fields(root, data, raw, sp)
    return _build(path, root, st, real_path, raw, sp, out, side, _duplicates(keys, out))


def _no_frontmatter(
    path: Path, root: Root, st: os.stat_result, real_path: Path | None, data: bytes, out: Collector
) -> tuple[Spec | None, list[Diagnostic]]:
    if root.family == COMMANDS:  # a plugin's command file may be all body
        sp = whole_body(data)
        return _build(path, root, st, real_path, command_fields(root, data, {}, sp), sp, out)
    return out.error(
        "no-frontmatter",
        "file does not start with a '---' frontmatter block",
        hint="add '---', 'description: ...', '---' at the top",
    )


def _bad_content(data: bytes, out: Collector) -> tuple[None, list[Diagnostic]] | None:
    """The error for a file that is empty, binary or not UTF-8; None for a text file."""
    if not data or data.isspace():  # no copy of the whole file
        return out.error(
            "empty-file",
            "file is empty",
            hint="start it with '---', 'name:', 'description:', '---' and a body",
        )
    nul = data.find(b"\x00")
    if nul != -1:
        return out.error(
            "binary-file",
            "file contains NUL bytes (is it binary?)",
            data.count(b"\n", 0, nul) + 1,
            "save the skill as plain UTF-8 text",
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return out.error(
            "invalid-utf8",
            f"file is not valid UTF-8 (byte {exc.start})",
            data.count(b"\n", 0, exc.start) + 1,
            "re-save the file as UTF-8",
        )
    return None


def _not_regular(path: Path, mode: int, out: Collector) -> tuple[None, list[Diagnostic]]:
    return out.error(
        "not-a-file",
        f"{path.name} is {kind_of(mode)}, not a regular file; it is not read",
        hint="replace it with a plain text file, or remove it",
    )


def _duplicates(keys: list[tuple[str, int]], out: Collector) -> bool:
    """Warn about each top-level key written more than once (after folding case and `_`
    to `-`, as the fields are read); True when one of them is a grant field."""
    norms = [key.strip().lower().replace("_", "-") for key, _ in keys]
    if len(set(norms)) == len(norms):
        return False  # the usual case, decided without building anything else
    lines: dict[str, list[tuple[str, int]]] = {}
    for norm, (key, line) in zip(norms, keys, strict=True):
        lines.setdefault(norm, []).append((key, line))
    grant = False
    for norm, seen in lines.items():
        if len(seen) < 2:
            continue
        where = ", ".join(f"{k!r} on line {n}" for k, n in seen)
        if norm in GRANT_KEYS:
            grant = True
            out.add(
                Severity.WARNING,
                "duplicate-grant",
                f"{norm!r} is written {len(seen)} times ({where}); "
                "this skill's allowed-tools, model and effort are ignored and it runs inline",
                seen[-1][1],
                f"keep one {norm!r} line: with two, which one was meant cannot be known",
                norm,
            )
        else:
            out.add(
                Severity.WARNING,
                "duplicate-key",
                f"{norm!r} is written {len(seen)} times ({where}); the last one is used",
                seen[-1][1],
                f"keep one {norm!r} line",
                norm,
            )
    return grant


class _Fields:
    """The known frontmatter fields of one file, typed one by one, with warnings that
    point at the field's line (worked out only when a warning needs it)."""

    __slots__ = ("_lines", "fm", "out", "sp")

    def __init__(self, fm: dict[str, object], out: Collector, sp: frontmatter.Split) -> None:
        self.fm = fm
        self.out = out
        self.sp = sp
        self._lines: dict[str, int] | None = None

    @property
    def lines(self) -> dict[str, int]:
        if self._lines is None:
            self._lines = _key_lines(self.sp.yaml_text, self.sp.yaml_first_line)
        return self._lines

    def warn(self, field: str, msg: str | None, hint: str = "") -> None:
        if msg:
            self.out.add(Severity.WARNING, "bad-field", msg, self.lines.get(field, 1), hint, field)

    def text(self, field: str) -> str | None:
        # coerce.to_text, without its calls for the usual absent or plain-text value
        v = self.fm.get(field)
        if v is None:
            return None
        if type(v) is str:
            return v.strip()
        t, msg = coerce.to_text(v)
        self.warn(field, msg)
        return t

    def str_list(self, field: str) -> tuple[str, ...]:
        v = self.fm.get(field)
        if v is None:
            return ()
        items, msg = coerce.to_str_list(v)
        self.warn(field, msg)
        return items

    def flag(self, field: str, default: bool) -> bool:
        v = self.fm.get(field)
        if v is None:
            return default
        value, msg = coerce.to_bool(v, default)
        self.warn(field, msg)
        return value

    def argument_hint(self) -> str | None:
        raw_hint = self.fm.get("argument-hint")
        if raw_hint is None or type(raw_hint) is str:
            return self.text("argument-hint")
        hint_text, msg = coerce.to_text(raw_hint)
        if msg and "argument-hint" in self.lines:
            # `argument-hint: [optional: date]` is YAML for a list holding a mapping; the
            # author meant the text, which is what Claude Code shows too.
            sp = self.sp
            written = _raw_value(sp.yaml_text, self.lines["argument-hint"] - sp.yaml_first_line)
            if written:
                hint_text, msg = written, None
        self.warn("argument-hint", msg)
        return hint_text

    def context(self) -> str:
        context = (self.text("context") or "inline").lower()
        if context not in CONTEXTS:
            self.warn(
                "context", f"unknown context {context!r}; running inline", "use 'inline' or 'fork'"
            )
            context = "inline"
        return context

    def metadata(self) -> dict[str, str]:
        value = self.fm.get("metadata")
        if value is None:
            return {}
        metadata, msg = coerce.to_str_map(value)
        self.warn("metadata", msg)
        return metadata

    def warn_tags(self, field: str, text: str) -> None:
        """Warn when `text` (the value of `field`) holds a tag the prompt would escape."""
        if "<" in text and TAG_LIKE.search(text):
            self.out.add(
                Severity.WARNING,
                "tag-in-text",
                f"{field} contains a <system-reminder> or <skill> tag",
                self.lines.get(field, 1),
                "it is shown to the model escaped; remove it",
                field,
            )


def _known_fields(
    raw: dict[str, object], no_grants: bool
) -> tuple[dict[str, object], dict[str, object]]:
    """Split the frontmatter into the known fields (by folded name) and the other keys."""
    fm: dict[str, object] = {}
    extra: dict[str, object] = {}
    for k, v in raw.items():
        norm = str(k).strip().lower().replace("_", "-")
        if norm in KNOWN_KEYS:
            fm[norm] = v
        else:
            extra[str(k)] = coerce.plain(v)
    if no_grants:  # a grant field written twice (`_duplicates` warned): grant nothing
        for k in GRANT_KEYS:
            fm.pop(k, None)
    return fm, extra


def _qualified(root: Root, name: str) -> tuple[str, str]:
    """The name as shown (a plugin's skills are `plugin:name`) and its catalog key."""
    if root.plugin:
        name = f"{root.plugin}:{name}"
        return name, f"{normalize_name(root.plugin)}:{normalize_name(name.split(':', 1)[1])}"
    return name, normalize_name(name)


def _build(
    path: Path,
    root: Root,
    st: os.stat_result,
    real_path: Path | None,
    raw: dict[str, object],
    sp: frontmatter.Split,
    out: Collector,
    side: bool = True,
    no_grants: bool = False,
) -> tuple[Spec | None, list[Diagnostic]]:
    fm, extra = _known_fields(raw, no_grants)
    f = _Fields(fm, out, sp)
    text, warn = f.text, f.warn
    is_single = path.name.lower() != "skill.md"
    parent = path.parent
    given = name = text("name")
    if not name:
        name = path.stem if is_single else parent.name
    if not given and "name" in fm and not is_single:  # written, but empty: say what is used
        out.add(
            Severity.WARNING,
            "name-missing",
            f"name is empty; the folder name {name!r} is used instead",
            f.lines.get("name", 1),
            f"write 'name: {name}' (the Agent Skills specification requires a name)",
            "name",
        )
    description = text("description")
    if not description:
        return out.error(
            "missing-description",
            "frontmatter has no description" if "description" not in fm else "description is empty",
            f.lines.get("description", 1),
            "add 'description: <what it does and when to use it>': models choose skills by it",
        )
    when = text("when-to-use")
    hint_text = f.argument_hint()
    value = fm.get("arguments")
    arguments = () if value is None else read_arguments(value, lambda m: warn("arguments", m))
    context = f.context()
    allowed = f.str_list("allowed-tools")
    disallowed = f.str_list("disallowed-tools")
    paths = f.str_list("paths")
    user_invocable = f.flag("user-invocable", True)
    no_model = f.flag("disable-model-invocation", False)
    metadata = f.metadata()
    agent = text("agent")
    model = text("model")
    effort = text("effort")
    license_ = text("license")
    compatibility = text("compatibility")

    f.warn_tags("description", description)
    if when:
        f.warn_tags("when-to-use", when)

    codex = (
        read_openai_yaml(os.path.join(os.path.dirname(path), "agents", "openai.yaml"), out)
        if side and not is_single
        else NO_CODEX
    )
    name, key = _qualified(root, name)
    if not key:
        return out.error(
            "bad-name",
            "name is empty after normalization",
            f.lines.get("name", 1),
            "use a name of letters, digits and hyphens",
        )

    spec = make_spec(
        name=name,
        key=key,
        description=description,
        path=path,
        real_path=real_path or path,
        dir=parent,
        root=root,
        body_offset=sp.body_offset,
        body_line=sp.body_line,
        stamp=new_stamp(st.st_mtime_ns, st.st_size, st.st_ino),
        when_to_use=when or None,
        argument_hint=hint_text or None,
        arguments=arguments,
        context=context,
        agent=agent or None,
        model=model or None,
        effort=effort or None,
        allowed_tools=allowed,
        disallowed_tools=disallowed,
        paths=paths,
        user_invocable=user_invocable,
        disable_model_invocation=no_model,
        allow_implicit_invocation=codex.get("allow_implicit_invocation", True),
        display_name=codex.get("display_name"),
        short_description=codex.get("short_description"),
        license=license_ or None,
        compatibility=compatibility or None,
        metadata=MappingProxyType(metadata),
        extra=MappingProxyType(extra),
        frontmatter_keys=tuple(map(str, raw)),
        diagnostics=tuple(out.items),
    )
    return spec, out.items
