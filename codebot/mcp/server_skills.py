"""A connected server's SEP-2640 skills as a catalog `SkillSource` (docs/mcp.md).

`await skill_source(session, server)` takes an open, initialized `ClientSession` and the
server's name (the host's label for it, never its self-reported name): None when the
server did not declare `io.modelcontextprotocol/skills`, else a `ServerSkills` built from
every page of `skills/list`. Each entry becomes a spec of source `mcp:<server>` named
`<server>:<name>` (two entries of one server with the same name are both named by their
whole path, `<server>:<prefix>/<name>`: neither is preferred in silence). Nothing but the
listing is fetched at connect.

On invocation (`fetch_body`): `skills/get` of its URI, whose frontmatter must still be the
one listed; then `resources/read` of its SKILL.md, whose bytes must have the entry's size
and digest and whose frontmatter must equal the entry's, field by field. Supporting files
(`read_file`) are read only when asked, only at URIs the held entry lists, each checked
against its digest; `read_directory` only where the server declared `directoryRead`. Any
mismatch is a `SourceError` naming the server, and the content is not used.

Such a skill is data: its spec carries no `allowed-tools`, `model`, `effort`, `paths` or
`hooks`, and `Source.MCP` refuses its `` !`cmd` `` lines (skills/invoke).
"""

from __future__ import annotations

import base64
import posixpath
import re
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from codebot.mcp import sep2640
from codebot.skills.catalog import SourceError, external_spec
from codebot.skills.files import Spec

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

__all__ = ["ServerSkills", "skill_source"]

_T = TypeVar("_T")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True, slots=True)
class _Listed:
    entry: sep2640.SkillEntry
    spec: Spec
    files: Mapping[str, sep2640.SkillFile]  # uri -> digest and size


async def skill_source(
    session: ClientSession, server: str, *, timeout: float = 60.0
) -> ServerSkills | None:
    """The server's skills, or None when it does not declare the extension. SourceError
    (naming the server) when its `skills/list` fails or takes over `timeout` seconds."""
    settings = sep2640.declared(session)
    if settings is None:
        return None
    directory_read = settings.get("directoryRead") is True
    source = ServerSkills(session, server, directory_read=directory_read, timeout=timeout)
    await source.refresh()
    return source


class ServerSkills:
    """One server's skills (a `skills.catalog.SkillSource`)."""

    def __init__(
        self, session: ClientSession, server: str, *, directory_read: bool, timeout: float = 60.0
    ) -> None:
        self.session = session
        self.server = server
        self.directory_read = directory_read
        self.timeout = timeout  # seconds for each request to the server
        self.problems: list[str] = []  # entries not loaded, each naming the server and why
        self._listed: dict[str, _Listed] = {}  # spec key -> listing
        self._held: dict[str, _Listed] = {}  # spec key -> the entry a load verified

    @property
    def label(self) -> str:
        return f"mcp:{self.server}"

    def specs(self) -> Sequence[Spec]:
        return tuple(x.spec for x in self._listed.values())

    async def refresh(self) -> None:
        """Read `skills/list` again (all pages): at connect and when the server says the
        list changed."""
        entries, bad = await self._ask("skills/list", sep2640.list_skills(self.session))
        self.problems = [f"{self.label}: {p}; not loaded" for p in bad]
        good = [(e, files) for e in entries if (files := self._check(e)) is not None]
        names = [str(e.frontmatter["name"]) for e, _ in good]
        listed: dict[str, _Listed] = {}
        for e, files in good:
            name = str(e.frontmatter["name"])
            if names.count(name) > 1:  # the whole path tells them apart
                name = e.uri.split("://", 1)[-1].removesuffix("/SKILL.md")
            spec = self._spec(e, f"{self.server}:{name}")
            if spec.key in listed:
                self.problems.append(f"{self.label}: {e.uri} is listed twice; kept the first")
                continue
            listed[spec.key] = _Listed(e, spec, files)
        self._listed = listed
        self._held = {}

    def _check(self, e: sep2640.SkillEntry) -> dict[str, sep2640.SkillFile] | None:
        """The entry's files by URI, or None (and a problem) when it cannot be loaded."""
        why = _entry_problem(e)
        if why:
            self.problems.append(f"{self.label}: skill {e.uri[:200]!r} not loaded: {why}")
            return None
        assert isinstance(e.resources, list)
        return {f.uri: f for f in e.resources}

    def _spec(self, e: sep2640.SkillEntry, name: str) -> Spec:
        fm = e.frontmatter
        meta = fm.get("metadata")
        metadata = {str(k): str(v) for k, v in meta.items()} if isinstance(meta, dict) else {}
        return external_spec(
            self.label,
            name,
            str(fm["description"]),
            e.uri.split("://", 1)[-1],
            when_to_use=_text(fm.get("when_to_use")),
            argument_hint=_text(fm.get("argument-hint")),
            context=str(fm.get("context", "inline")),
            user_invocable=fm.get("user-invocable") is not False,
            disable_model_invocation=fm.get("disable-model-invocation") is True,
            license=_text(fm.get("license")),
            metadata=metadata,
            frontmatter_keys=tuple(str(k) for k in fm),
        )

    def _listing(self, spec: Spec) -> _Listed:
        got = self._listed.get(spec.key)
        if got is None:
            raise SourceError(f"{spec.name} is not a skill of MCP server {self.server!r}")
        return got

    async def fetch_body(self, spec: Spec) -> str:
        """`skills/get`, then `resources/read` of SKILL.md, checked (module docstring)."""
        listed = self._listing(spec)
        who = f"skill {spec.name} of MCP server {self.server!r}"
        fresh = await self._ask("skills/get", sep2640.get_skill(self.session, listed.entry.uri))
        if fresh.uri != listed.entry.uri or fresh.frontmatter != listed.entry.frontmatter:
            raise SourceError(
                f"{who} changed since it was listed (its frontmatter differs); refused — "
                "reconnect the server to list it again"
            )
        files = self._check(fresh)
        if files is None:
            raise SourceError(f"{who}: {self.problems[-1]}")
        held = _Listed(fresh, listed.spec, files)
        data = await self._read_checked(held, fresh.uri, who)
        from codebot.skills.files.frontmatter import split

        if sep2640.frontmatter_json(data) != fresh.frontmatter:
            raise SourceError(
                f"{who}: the frontmatter of its SKILL.md is not the one the server listed; refused"
            )
        self._held[spec.key] = held
        sp = split(data)
        return data[sp.body_offset if sp else 0 :].decode("utf-8", errors="replace")

    async def read_file(self, spec: Spec, path: str) -> bytes:
        """A supporting file of a loaded skill (relative to its folder, or its full URI),
        read now and checked against the held entry; an unlisted file is refused."""
        held = self._held.get(spec.key) or self._listing(spec)
        who = f"skill {spec.name} of MCP server {self.server!r}"
        base = held.entry.uri.rsplit("/", 1)[0]
        uri = path if "://" in path else _join(base, path)
        if uri is None or uri not in held.files:
            raise SourceError(f"{who}: {path[:200]!r} is not a file it lists; not read")
        return await self._read_checked(held, uri, who)

    async def read_directory(self, spec: Spec, path: str = "") -> list[str]:
        """The names of a folder's children (folders end in `/`) that the held entry lists;
        only from a server that declared `directoryRead`."""
        held = self._held.get(spec.key) or self._listing(spec)
        if not self.directory_read:
            raise SourceError(f"MCP server {self.server!r} did not declare directoryRead")
        base = held.entry.uri.rsplit("/", 1)[0]
        uri = _join(base, path) if path else base
        if uri is None:
            raise SourceError(f"{path[:200]!r} is not a folder of skill {spec.name}")
        got = await self._ask(sep2640.READ_DIRECTORY, sep2640.read_directory(self.session, uri))
        names = []
        for r in got.resources:
            is_dir = r.mime_type == sep2640.DIRECTORY_MIME
            listed = any(u.startswith(r.uri + "/") for u in held.files) if is_dir else None
            if (is_dir and listed) or r.uri in held.files:  # never an unlisted child
                names.append(r.uri.rsplit("/", 1)[-1] + ("/" if is_dir else ""))
        return names

    async def _ask(self, what: str, call: Awaitable[_T]) -> _T:
        """One request to the server, within `timeout`; its failure is a SourceError."""
        import anyio

        try:
            with anyio.fail_after(self.timeout):
                return await call
        except TimeoutError:
            raise SourceError(
                f"MCP server {self.server!r} did not answer {what} within {self.timeout:g} s"
            ) from None
        except Exception as exc:  # the server's error, whatever the SDK raised for it
            raise SourceError(f"MCP server {self.server!r}: {what} failed: {exc}") from None

    async def _read_checked(self, held: _Listed, uri: str, who: str) -> bytes:
        want = held.files[uri]
        result = await self._ask(f"resources/read of {uri}", self.session.read_resource(uri))
        data = b"".join(_bytes(c) for c in result.contents if str(c.uri) == uri)
        if len(data) != want.size or sep2640.digest(data) != want.digest:
            raise SourceError(
                f"{who}: {uri} does not match the digest the server listed "
                f"({len(data)} bytes read, {want.size} listed); refused"
            )
        return data


def _entry_problem(e: sep2640.SkillEntry) -> str:
    fm = e.frontmatter
    name, description = fm.get("name"), fm.get("description")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return "its frontmatter name is missing or not a skill name"
    if not isinstance(description, str) or not description.strip():
        return "its frontmatter has no description"
    if not e.uri.endswith(f"/{name}/SKILL.md") and e.uri.split("://", 1)[-1] != f"{name}/SKILL.md":
        return f"its URI does not end in {name}/SKILL.md"
    if not isinstance(e.resources, list):
        return 'its resources are "dynamic" (no digests to check); not loaded'
    base = e.uri.rsplit("/", 1)[0] + "/"
    if e.uri not in {f.uri for f in e.resources}:
        return "its resources do not list its SKILL.md"
    for f in e.resources:
        if not f.uri.startswith(base) or not sep2640.valid_digest(f.digest):
            return f"resource {f.uri[:200]!r} is outside the skill or has no sha256 digest"
    if len(e.resources) > sep2640.MAX_SKILL_FILES:
        return f"over {sep2640.MAX_SKILL_FILES} files (SEP-2640's limit)"
    if sum(f.size for f in e.resources) > sep2640.MAX_SKILL_BYTES:
        return f"over {sep2640.MAX_SKILL_BYTES:,} bytes (SEP-2640's limit)"
    return ""


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _join(base: str, path: str) -> str | None:
    """`base/path` with `.` and `..` resolved; None when it leaves `base`."""
    joined = posixpath.normpath(posixpath.join("/", path.strip("/")))
    if joined == "/" or joined.startswith("/.."):
        return None
    return base + joined


def _bytes(content: object) -> bytes:
    text = getattr(content, "text", None)
    if isinstance(text, str):
        return text.encode("utf-8")
    blob = getattr(content, "blob", None)
    return base64.b64decode(blob) if isinstance(blob, str) else b""
