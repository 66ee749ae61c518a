"""Parse one skill file into a `Spec`, or explain why it cannot be loaded.

`parse_file` never raises for anything a file contains: every problem becomes a
`Diagnostic`, and an ERROR means the skill stays out of the catalog.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any

from codebot.skills import coerce, frontmatter
from codebot.skills.frontmatter import FrontmatterError
from codebot.skills.spec import Argument, Diagnostic, Root, Severity, Spec, Stamp, normalize_name

MAX_FILE_BYTES = 1024 * 1024
ARG_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CONTEXTS = ("inline", "fork")
# Text that could close or forge the tags codebot wraps skill text in. It is escaped
# when rendered; the warning tells the author (or whoever reviews a plugin) it is there.
TAG_LIKE = re.compile(r"</?\s*(system-reminder|skill)\b", re.IGNORECASE)

# Frontmatter keys with behaviour, after folding case and `_` to `-`.
KNOWN_KEYS = {
    "name", "description", "when-to-use", "argument-hint", "arguments", "context", "agent",
    "model", "effort", "allowed-tools", "disallowed-tools", "paths", "user-invocable",
    "disable-model-invocation", "license", "compatibility", "metadata",
}  # fmt: skip


def stamp_of(st: os.stat_result) -> Stamp:
    return Stamp(st.st_mtime_ns, st.st_size, st.st_ino)


class _Collector:
    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.items: list[Diagnostic] = []

    def add(self, sev: Severity, code: str, msg: str, line: int = 1, hint: str = "",
            field: str | None = None) -> None:  # fmt: skip
        self.items.append(Diagnostic(self.path, line, code, sev, msg, hint, field))

    def error(self, code: str, msg: str, line: int = 1, hint: str = "") -> tuple[None, list[Diagnostic]]:
        self.add(Severity.ERROR, code, msg, line, hint)
        return None, self.items


def _key_lines(yaml_text: str, first_line: int) -> dict[str, int]:
    """Line of each top-level key, so a diagnostic can point at the field."""
    lines: dict[str, int] = {}
    for i, line in enumerate(yaml_text.split("\n")):
        m = re.match(r"^([A-Za-z_][\w-]*)\s*:", line)
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
) -> tuple[Spec | None, list[Diagnostic]]:
    out = _Collector(path)
    try:
        return _parse(path, root, st, real_path, out)
    except RecursionError:
        return out.error("frontmatter-too-deep", "frontmatter is nested too deeply to read",
                         hint="flatten the frontmatter")  # fmt: skip
    except Exception as exc:
        return out.error("internal-error", f"could not read this skill: {type(exc).__name__}: {exc}",
                         hint="please report this file to the codebot developers")  # fmt: skip


def _parse(path: Path, root: Root, st: os.stat_result | None, real_path: Path | None,
           out: _Collector) -> tuple[Spec | None, list[Diagnostic]]:  # fmt: skip
    try:
        st = st or path.stat()
    except OSError as exc:
        return out.error("unreadable", f"cannot stat file: {exc.strerror or exc}",
                         hint="check that the file exists and is readable")  # fmt: skip
    if st.st_size > MAX_FILE_BYTES:
        return out.error("file-too-large", f"file is {st.st_size:,} bytes (limit {MAX_FILE_BYTES:,})",
                         hint="move long material into references/ files next to SKILL.md")  # fmt: skip
    try:
        with open(path, "rb") as fh:
            # Ask for the size stat gave (+1 to notice growth): `read(MAX_FILE_BYTES + 1)`
            # allocates and frees a 1 MiB buffer per file, which costs more than the read.
            data = fh.read(st.st_size + 1)
            if len(data) > st.st_size:
                data += fh.read(MAX_FILE_BYTES + 1 - len(data))
    except OSError as exc:
        return out.error("unreadable", f"cannot read file: {exc.strerror or exc}",
                         hint="check the file's permissions")  # fmt: skip
    if len(data) > MAX_FILE_BYTES:
        return out.error("file-too-large", f"file is over {MAX_FILE_BYTES:,} bytes",
                         hint="move long material into references/ files next to SKILL.md")  # fmt: skip
    if not data or data.isspace():  # no copy of the whole file
        return out.error("empty-file", "file is empty",
                         hint="start it with '---', 'name:', 'description:', '---' and a body")  # fmt: skip
    nul = data.find(b"\x00")
    if nul != -1:
        return out.error("binary-file", "file contains NUL bytes (is it binary?)",
                         data.count(b"\n", 0, nul) + 1, "save the skill as plain UTF-8 text")  # fmt: skip
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return out.error("invalid-utf8", f"file is not valid UTF-8 (byte {exc.start})",
                         data.count(b"\n", 0, exc.start) + 1,
                         "re-save the file as UTF-8")  # fmt: skip
    try:
        sp = frontmatter.split(data)
        if sp is None:
            return out.error("no-frontmatter", "file does not start with a '---' frontmatter block",
                             hint="add '---', 'description: ...', '---' at the top")  # fmt: skip
        raw, repaired = frontmatter.load(sp)
    except FrontmatterError as exc:
        return out.error(exc.code, exc.message, exc.line, exc.hint)
    for line in repaired:
        out.add(Severity.WARNING, "yaml-repaired", "value is not valid YAML as written (': ', ' #' or a leading [, ` inside) and was read as a quoted string",
                line, "put the value in double quotes", "frontmatter")  # fmt: skip
    return _build(path, root, st, real_path, raw, sp, out)


def _build(path: Path, root: Root, st: os.stat_result, real_path: Path | None,
           raw: dict[str, Any], sp: frontmatter.Split, out: _Collector) -> tuple[Spec | None, list[Diagnostic]]:  # fmt: skip
    lines = _key_lines(sp.yaml_text, sp.yaml_first_line)
    fm: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for k, v in raw.items():
        norm = str(k).strip().lower().replace("_", "-")
        if norm in KNOWN_KEYS:
            fm[norm] = v
        else:
            extra[str(k)] = coerce.plain(v)

    def warn(field: str, msg: str | None, hint: str = "") -> None:
        if msg:
            out.add(Severity.WARNING, "bad-field", msg, lines.get(field, 1), hint, field)

    is_single = path.name.lower() != "skill.md"
    fallback = path.stem if is_single else path.parent.name
    name, msg = coerce.to_text(fm.get("name"))
    warn("name", msg)
    if not name:
        name = fallback
    description, msg = coerce.to_text(fm.get("description"))
    warn("description", msg)
    if not description:
        return out.error(
            "missing-description",
            "frontmatter has no description" if "description" not in fm else "description is empty",
            lines.get("description", 1),
            "add 'description: <what it does and when to use it>': models choose skills by it",
        )
    when, msg = coerce.to_text(fm.get("when-to-use"))
    warn("when-to-use", msg)
    hint_text, msg = coerce.to_text(fm.get("argument-hint"))
    if msg and "argument-hint" in lines:
        # `argument-hint: [optional: date]` is YAML for a list holding a mapping; the
        # author meant the text, which is what Claude Code shows too.
        raw_hint = _raw_value(sp.yaml_text, lines["argument-hint"] - sp.yaml_first_line)
        if raw_hint:
            hint_text, msg = raw_hint, None
    warn("argument-hint", msg)
    arguments = _arguments(fm.get("arguments"), lambda m: warn("arguments", m))
    context, msg = coerce.to_text(fm.get("context"))
    warn("context", msg)
    context = (context or "inline").lower()
    if context not in CONTEXTS:
        warn("context", f"unknown context {context!r}; running inline", "use 'inline' or 'fork'")
        context = "inline"
    allowed, msg = coerce.to_str_list(fm.get("allowed-tools"))
    warn("allowed-tools", msg)
    disallowed, msg = coerce.to_str_list(fm.get("disallowed-tools"))
    warn("disallowed-tools", msg)
    paths, msg = coerce.to_str_list(fm.get("paths"))
    warn("paths", msg)
    user_invocable, msg = coerce.to_bool(fm.get("user-invocable"), True)
    warn("user-invocable", msg)
    no_model, msg = coerce.to_bool(fm.get("disable-model-invocation"), False)
    warn("disable-model-invocation", msg)
    metadata, msg = coerce.to_str_map(fm.get("metadata"))
    warn("metadata", msg)
    texts = {}
    for field in ("agent", "model", "effort", "license", "compatibility"):
        texts[field], msg = coerce.to_text(fm.get(field))
        warn(field, msg)

    for field, value in (("description", description), ("when-to-use", when)):
        if value and TAG_LIKE.search(value):
            out.add(Severity.WARNING, "tag-in-text", f"{field} contains a <system-reminder> or <skill> tag",
                    lines.get(field, 1), "it is shown to the model escaped; remove it", field)  # fmt: skip

    codex = _read_openai_yaml(os.path.join(os.path.dirname(path), "agents", "openai.yaml"), out) if not is_single else {}
    display_name = codex.get("display_name")
    if root.plugin:
        name = f"{root.plugin}:{name}"
        key = f"{normalize_name(root.plugin)}:{normalize_name(name.split(':', 1)[1])}"
    else:
        key = normalize_name(name)
    if not key:
        return out.error("bad-name", "name is empty after normalization", lines.get("name", 1),
                         "use a name of letters, digits and hyphens")  # fmt: skip

    spec = Spec(
        name=name,
        key=key,
        description=description,
        path=path,
        real_path=real_path or path,
        dir=path.parent,
        root=root,
        body_offset=sp.body_offset,
        body_line=sp.body_line,
        stamp=stamp_of(st),
        when_to_use=when or None,
        argument_hint=hint_text or None,
        arguments=arguments,
        context=context,
        agent=texts["agent"] or None,
        model=texts["model"] or None,
        effort=texts["effort"] or None,
        allowed_tools=allowed,
        disallowed_tools=disallowed,
        paths=paths,
        user_invocable=user_invocable,
        disable_model_invocation=no_model,
        allow_implicit_invocation=codex.get("allow_implicit_invocation", True),
        display_name=display_name,
        short_description=codex.get("short_description"),
        license=texts["license"] or None,
        compatibility=texts["compatibility"] or None,
        metadata=MappingProxyType(metadata),
        extra=MappingProxyType(extra),
        frontmatter_keys=tuple(str(k) for k in raw),
        diagnostics=tuple(out.items),
    )
    return spec, out.items


def _arguments(value: Any, warn) -> tuple[Argument, ...]:
    """`arguments` as a list or string of names, or a mapping of name -> JSON Schema."""
    if value is None:
        return ()
    items: list[Argument] = []
    if isinstance(value, str):
        items = [Argument(n) for n in coerce.split_list(value)]
    elif isinstance(value, dict):
        for name, v in value.items():
            items.append(_argument(str(name), v, warn))
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, str):
                items.append(Argument(v.strip()))
            elif isinstance(v, dict) and "name" in v:
                rest = {k: x for k, x in v.items() if k != "name"}
                items.append(_argument(str(v["name"]), rest, warn))
            else:
                warn(f"argument entry {v!r} has no name and was ignored")
    else:
        warn(f"expected a list, a string or a mapping, got {type(value).__name__}")
    for arg in items:
        if not ARG_NAME.match(arg.name):
            warn(f"argument name {arg.name!r} is not a valid identifier; $-placeholders cannot refer to it")
    return tuple(items)


def _argument(name: str, v: Any, warn) -> Argument:
    if v is None:
        return Argument(name)
    if isinstance(v, str):
        return Argument(name, description=v)
    if isinstance(v, dict):
        schema = {str(k): coerce.plain(frontmatter.unwrap_numbers(x)) for k, x in v.items()}
        required, msg = coerce.to_bool(schema.pop("required", False), False)
        if msg:
            warn(f"argument {name!r}: required {msg}")
        description = str(schema.get("description", ""))
        # Only the keys that constrain a value make this a schema worth validating.
        constraining = set(schema) - {"description", "title", "examples", "default"}
        return Argument(name, description, required, MappingProxyType(schema) if constraining else None)
    warn(f"argument {name!r}: expected a schema mapping or a description, got {type(v).__name__}")
    return Argument(name)


def _read_openai_yaml(path: str, out: _Collector) -> dict[str, Any]:
    """Codex's per-skill metadata. Broken or odd files are a warning, never fatal."""
    if not os.access(path, os.F_OK):
        return {}  # the usual case, without the cost of a FileNotFoundError
    try:
        with open(path, "rb") as fh:
            text = fh.read(256 * 1024).decode("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        out.add(Severity.WARNING, "openai-yaml", f"cannot read agents/openai.yaml: {exc}",
                hint="fix or remove the file")  # fmt: skip
        return {}
    try:
        doc = frontmatter.yaml.load(text, Loader=frontmatter._Loader)
    except frontmatter.yaml.YAMLError as exc:
        out.add(Severity.WARNING, "openai-yaml", f"agents/openai.yaml is not valid YAML: {exc}".splitlines()[0],
                hint="fix the YAML; its policy is ignored until then")  # fmt: skip
        return {}
    if not isinstance(doc, dict):
        return {}
    result: dict[str, Any] = {}
    policy = doc.get("policy")
    if isinstance(policy, dict) and "allow_implicit_invocation" in policy:
        allowed, msg = coerce.to_bool(policy["allow_implicit_invocation"], True)
        if msg:
            out.add(Severity.WARNING, "openai-yaml", f"policy.allow_implicit_invocation: {msg}")
        result["allow_implicit_invocation"] = allowed
    interface = doc.get("interface")
    if isinstance(interface, dict):
        for k in ("display_name", "short_description"):
            if isinstance(interface.get(k), str):
                result[k] = interface[k].strip()
    return result
