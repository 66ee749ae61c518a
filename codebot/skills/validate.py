"""`codebot skills validate`: the Agent Skills specification's rules plus codebot's.

Parsing is lenient (a skill with an odd name still loads); validation is strict and
says, for each finding, the file, the line, the field and the fix.
"""

from __future__ import annotations

import dataclasses
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from codebot.skills.catalog import Snapshot, glob_error, scan_root
from codebot.skills.files import Diagnostic, Root, Severity, Source, Spec
from codebot.skills.files.parse import KNOWN_KEYS, _key_lines, parse_file

NEGATIVE = re.compile(
    r"\b(not for|do not use|don't use|never use|not when|avoid (using )?(it|this) (for|when)"
    r"|instead use|use .+ instead|skip (it|this) (for|when))\b",
    re.IGNORECASE,
)
TOOL_PATTERN = re.compile(r"^[A-Za-z_][\w.*-]*(\(.*\))?$")
MAX_BODY_LINES = 500
#: Parse warnings that validation reports as errors: the skill loads (with its grants
#: dropped) so a session keeps working, but a file like that must not pass review.
ERROR_CODES = frozenset({"duplicate-grant"})


@dataclass(frozen=True, slots=True)
class Report:
    diagnostics: tuple[Diagnostic, ...]
    checked: int

    def failed(self, strict: bool) -> bool:
        bad = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
        return any(d.severity in bad for d in self.diagnostics)

    @property
    def problems(self) -> tuple[Diagnostic, ...]:
        """Errors and warnings: what every "N problems" counts (hints are advice)."""
        return tuple(d for d in self.diagnostics if d.severity is not Severity.INFO)


def count_of(n: int, noun: str) -> str:
    """`1 problem`, `2 problems`: never "1 problems" nor "problem(s)"."""
    return f"{n:,} {noun if n == 1 else noun + 's'}"


_last: tuple[weakref.ref[Snapshot], tuple[Diagnostic, ...]] | None = None


def catalog_problems(snapshot: Snapshot) -> tuple[Diagnostic, ...]:
    """The loaded catalog's problems: rejected files, root problems and every loaded
    skill's errors and warnings, as `codebot skills validate` reports them.

    The ONE source of every problem count (`skills list`, `skills validate`, `/skills` in
    the TUI and line mode), so they cannot disagree. Hints are skipped (they read every
    body); the result is kept for the last snapshot asked about, which never changes.
    """
    global _last
    if _last is not None and _last[0]() is snapshot:
        return _last[1]
    problems = validate_specs(snapshot, snapshot.diagnostics, hints=False).problems
    _last = (weakref.ref(snapshot), problems)
    return problems


def problem_count(snapshot: Snapshot) -> int:
    """How many problems the catalog has (`catalog_problems`)."""
    return len(catalog_problems(snapshot))


def _frontmatter_lines(spec: Spec) -> dict[str, int]:
    from codebot.skills.files import MAX_FILE_BYTES, read_regular

    try:  # never open() a file that may have become a FIFO since it was loaded
        head = read_regular(spec.path, MAX_FILE_BYTES)[: spec.body_offset].decode(
            "utf-8", errors="replace"
        )
    except OSError:
        return {}
    return _key_lines(head, 1)


def check_spec(spec: Spec, hints: bool = True) -> list[Diagnostic]:
    """The spec's and codebot's rules for one skill; `hints=False` skips the INFO ones."""
    lines: dict[str, int] | None = None  # read from the file only when there is a finding
    path = str(spec.path)
    out: list[Diagnostic] = []

    def add(sev: Severity, code: str, field: str | None, msg: str, hint: str) -> None:
        nonlocal lines
        if sev is Severity.INFO and not hints:
            return
        lines = _frontmatter_lines(spec) if lines is None else lines
        out.append(Diagnostic(path, lines.get(field or "", 1), code, sev, msg, hint, field))

    _check_name(spec, add)
    _check_fields(spec, add)
    if not hints:
        return out
    _check_hints(spec, add)
    return out


#: `add(severity, code, field, message, hint)`: records one finding of `check_spec`.
_Add = Callable[[Severity, str, str | None, str, str], None]


def _check_name(spec: Spec, add: _Add) -> None:
    """The specification's name rule (`files/names.py`: Unicode lowercase after NFKC, as
    skills-ref applies it). A SKILL.md with no `name`, or an empty one (the parser's
    warning), gets `name-missing`, naming the folder name used instead."""
    from codebot.skills.files import name_problems

    if any(d.code == "name-missing" for d in spec.diagnostics):
        return  # `name:` empty: the parser's warning names the folder used instead
    if not spec.single_file and "name" not in _keys(spec):
        add(
            Severity.WARNING,
            "name-missing",
            "name",
            f"frontmatter has no name; the folder name {spec.dir.name!r} is used instead",
            f"add 'name: {spec.dir.name}' (the Agent Skills specification requires a name)",
        )
        return
    name = spec.name.split(":", 1)[1] if spec.plugin else spec.name
    merged: dict[str, tuple[list[str], str]] = {}  # one finding per code, every reason in it
    for problem in name_problems(name, None if spec.single_file else spec.dir.name):
        merged.setdefault(problem.code, ([], problem.hint))[0].append(problem.message)
    for code, (messages, hint) in merged.items():
        add(Severity.ERROR, code, "name", "; ".join(messages), hint)


def _keys(spec: Spec) -> set[str]:
    """The frontmatter keys as written, folded as the parser folds them."""
    return {k.strip().lower().replace("_", "-") for k in spec.frontmatter_keys}


def _check_fields(spec: Spec, add: _Add) -> None:
    if len(spec.description) > 1024:
        add(
            Severity.ERROR,
            "description-length",
            "description",
            f"description is {len(spec.description)} characters",
            "keep it under 1,024 characters; move detail into the body",
        )
    if spec.compatibility is None and "compatibility" in _keys(spec):
        add(
            Severity.ERROR,
            "compatibility-empty",
            "compatibility",
            "compatibility is empty",
            "write 1 to 500 characters (what the skill needs), or remove the field",
        )
    if spec.compatibility and len(spec.compatibility) > 500:
        add(
            Severity.ERROR,
            "compatibility-length",
            "compatibility",
            f"compatibility is {len(spec.compatibility)} characters",
            "keep it under 500 characters",
        )
    if spec.paths and (err := glob_error(spec.paths)):
        add(Severity.ERROR, "bad-glob", "paths", err, "fix the pattern (gitignore syntax)")
    for tool in (*spec.allowed_tools, *spec.disallowed_tools):
        if not TOOL_PATTERN.match(tool):
            add(
                Severity.WARNING,
                "bad-tool-pattern",
                "allowed-tools",
                f"tool pattern {tool!r} is malformed",
                "write a tool name, optionally with (argument pattern), e.g. Bash(git diff:*)",
            )
    from codebot.skills.files.outputs import KEYS, contract_of
    from codebot.skills.workflow.model import KEYS as WORKFLOW_KEYS

    for field, message in contract_of(spec).problems:
        hint = "write a JSON Schema mapping (draft 2020-12)" if field == "outputs" else ""
        add(Severity.ERROR, f"bad-{field}", field, message, hint or "write required or optional")
    for key in spec.extra:
        norm = key.lower().replace("_", "-")
        if norm not in KNOWN_KEYS and norm not in KEYS and norm not in WORKFLOW_KEYS:
            add(
                Severity.INFO,
                "unknown-key",
                None,
                f"frontmatter key {key!r} is not used by codebot",
                "it is kept and shown by 'skills show', but has no effect",
            )


def _check_hints(spec: Spec, add: _Add) -> None:
    """The INFO findings: advice, and the only checks that read the body."""
    if not NEGATIVE.search(spec.description) and not (
        spec.when_to_use and NEGATIVE.search(spec.when_to_use)
    ):
        add(
            Severity.INFO,
            "no-negative-boundary",
            "description",
            "description does not say when NOT to use the skill",
            "add a sentence like 'Not for X; use Y instead' so it does not trigger on near misses",
        )
    try:
        body_lines = spec.read_body().count("\n") + 1
    except OSError:
        body_lines = 0
    if body_lines > MAX_BODY_LINES:
        add(
            Severity.INFO,
            "long-body",
            None,
            f"body is {body_lines} lines",
            f"keep SKILL.md under {MAX_BODY_LINES} lines; move detail into references/",
        )


def validate_specs(
    specs: Iterable[Spec],
    rejected: Iterable[Diagnostic] = (),
    *,
    hints: bool = True,
    known: Callable[[], Mapping[str, Spec]] | None = None,
) -> Report:
    """Every finding for `specs` and the files that did not load; `hints=False` leaves out
    the INFO findings (and the reads they need), never an error or a warning. An MCP
    server's skills are not checked here: their names are `<server>:<name>` and no file
    holds them; what a server lists wrong is in `rejected` (the source's problems)."""
    diags = [d for d in rejected if d.severity is not Severity.INFO]
    # A workflow's steps may name any skill of the catalog, a server's too.
    catalog = (lambda snap=specs: snap.skills) if isinstance(specs, Snapshot) else None
    specs = [s for s in specs if s.source is not Source.MCP]
    n = 0
    for spec in specs:
        n += 1
        diags.extend(
            dataclasses.replace(d, severity=Severity.ERROR) if d.code in ERROR_CODES else d
            for d in spec.diagnostics
            if hints or d.severity is not Severity.INFO
        )
        diags.extend(check_spec(spec, hints))
    diags.extend(description_quality(specs))
    diags.extend(_workflow_problems(specs, catalog or known))
    return Report(tuple(diags), n)


def _workflow_problems(
    specs: Iterable[Spec], known: Callable[[], Mapping[str, Spec]] | None
) -> list[Diagnostic]:
    """`steps:` findings; the step skills are looked up among `specs` and, for files
    validated outside the catalog, in `known()` (asked only when a workflow is there)."""
    from codebot.skills.workflow import check_workflows, has_steps

    flows = [s for s in specs if has_steps(s)]
    if not flows:
        return []
    skills = dict(known()) if known is not None else {}
    skills.update((s.key, s) for s in specs)  # the files checked win over the catalog
    return check_workflows(flows, skills)


def _own_skill_file(folder: Path) -> Path | None:
    """`folder/SKILL.md` (or `skill.md`) when `folder` is one skill's folder: its other
    `.md` files are supporting files, not skills. None for a file or a root of skills."""
    if not folder.is_dir():
        return None
    for name in ("SKILL.md", "skill.md"):
        if (folder / name).is_file():
            return folder / name
    return None


def validate_paths(
    paths: Iterable[Path], known: Callable[[], Mapping[str, Spec]] | None = None
) -> Report:
    """Validate files or folders given on the command line, outside any catalog
    (`known()`: the catalog's skills, which a workflow's steps may name)."""
    specs: list[Spec] = []
    rejected: list[Diagnostic] = []
    for i, p in enumerate(paths):
        p = p.resolve()
        own = _own_skill_file(p)  # a skill folder: that skill alone, not its other .md files
        root = Root(
            p.parent if p.is_file() or own else p, Source.PROJECT, "extra", (0, 1, i), explicit=True
        )
        if p.is_file() or own:
            found = [(own or p, None, None)]
        else:
            res = scan_root(root)
            rejected.extend(res.diagnostics)
            found = [(c.path, c.stat, c.real_path) for c in res.candidates]
        for path, st, real in found:
            spec, diags = parse_file(path, root, st, real)
            if spec is not None:
                specs.append(spec)
            else:
                rejected.extend(diags)
        if not found and not rejected:
            rejected.append(
                Diagnostic(
                    str(p),
                    0,
                    "no-skills",
                    Severity.ERROR,
                    "no SKILL.md found here",
                    "pass a SKILL.md, a skill folder or a folder of skills",
                )
            )
    return validate_specs(specs, rejected, known=known)


# -- description quality: does the description route well? -----------------------------

#: Descriptions shorter than this (in words) rarely say what, when and when not.
MIN_DESCRIPTION_WORDS = 8
#: Two descriptions whose word sets overlap this much (Jaccard, after stemming and stop
#: words) compete for the same requests.
OVERLAP_JACCARD = 0.6
_TITLE_FILLER = frozenset(
    {"skill", "the", "a", "an", "and", "for", "of", "powerful", "example", "expert"}
)
_TITLE_WORD = re.compile(r"[A-Za-z0-9][\w'+#]*")


def _title_only(spec: Spec) -> bool:
    """'Changelog Generator', 'Incident Commander Skill', '/em -x — Board Meeting Prep'."""
    text = re.sub(r"(?:^|\s)[/-]\S+", " ", spec.description).strip()
    words = _TITLE_WORD.findall(text)
    if not words:
        return True
    name_words = {w for w in re.split(r"[-_:\s]+", spec.name.lower()) if w}
    if all(w.lower() in name_words or w.lower() in _TITLE_FILLER for w in words):
        return True
    alpha = [w for w in words if w[0].isalpha()]
    sentence = re.search(r"[.!?:;](?:\s|$)", text)
    return (
        bool(alpha)
        and len(words) <= 10
        and not sentence
        and sum(w[0].isupper() for w in alpha) >= 0.7 * len(alpha)
    )


def description_quality(specs: Iterable[Spec]) -> list[Diagnostic]:
    """Warnings about descriptions that will route badly: too short, only a title, or
    nearly the same as another skill's (both are named). The missing "Not for …" boundary
    is reported by `check_spec` (`no-negative-boundary`)."""
    from codebot.skills.route import Tokenizer

    specs = list(specs)
    out: list[Diagnostic] = []
    lines: dict[str, int] = {}

    def line_of(spec: Spec) -> int:
        key = str(spec.path)
        if key not in lines:
            lines[key] = _frontmatter_lines(spec).get("description", 1)
        return lines[key]

    for spec in specs:
        n_words = len(spec.description.split())
        if _title_only(spec):
            out.append(
                Diagnostic(
                    str(spec.path),
                    line_of(spec),
                    "title-only-description",
                    Severity.WARNING,
                    f"description {spec.description.strip()!r} is only a title",
                    "say what the skill does, when to use it and when not to; the router and "
                    "the model choose skills by these words",
                    "description",
                )
            )
        elif n_words < MIN_DESCRIPTION_WORDS:
            out.append(
                Diagnostic(
                    str(spec.path),
                    line_of(spec),
                    "short-description",
                    Severity.WARNING,
                    f"description has {count_of(n_words, 'word')}",
                    f"write at least {MIN_DESCRIPTION_WORDS} words: what it does, when to use it, "
                    "and 'Not for X (use Y)'",
                    "description",
                )
            )
    for a, b, jac in _overlapping(specs, Tokenizer("builtin")):
        out.append(
            Diagnostic(
                str(a.path),
                line_of(a),
                "overlapping-description",
                Severity.WARNING,
                f"description of {a.name!r} overlaps {jac:.0%} with {b.name!r} ({b.path})",
                "make each say what sets it apart from the other, or merge them; "
                "requests matching one will match both",
                "description",
            )
        )
    return out


def _overlapping(specs: list[Spec], tokenize) -> list[tuple[Spec, Spec, float]]:
    """Pairs with Jaccard >= OVERLAP_JACCARD, found by prefix filtering (exact, not O(n^2)).

    Sets are visited smallest first, so a set indexed earlier is never larger, and one
    smaller than OVERLAP_JACCARD times the current size cannot reach the threshold (the
    length filter): `skills list` pays for this on every catalog, so it must stay cheap.
    Pairs come out in the input order: (earlier, later), by the later one.
    """
    import math
    from collections import Counter

    sets = [frozenset(tokenize(s.description)) for s in specs]
    df = Counter(t for s in sets for t in s)
    index: dict[str, list[int]] = {}
    found: list[tuple[int, int, float]] = []
    for j in sorted(range(len(sets)), key=lambda k: (len(sets[k]), k)):
        toks = sorted(sets[j], key=lambda t: (df[t], t))
        if len(toks) < 3:
            continue
        prefix = len(toks) - math.ceil(OVERLAP_JACCARD * len(toks)) + 1
        min_size = OVERLAP_JACCARD * len(toks)
        cands: set[int] = set()
        for t in toks[:prefix]:
            posting = index.setdefault(t, [])
            cands.update(i for i in posting if len(sets[i]) >= min_size)
            posting.append(j)
        for i in cands:
            inter = len(sets[i] & sets[j])
            jac = inter / (len(sets[i]) + len(sets[j]) - inter)
            if jac >= OVERLAP_JACCARD:
                found.append((min(i, j), max(i, j), jac))
    found.sort(key=lambda f: (f[1], f[0]))
    return [(specs[i], specs[j], jac) for i, j, jac in found]
