"""`skills validate` for workflows: what is wrong with each skill's `steps:`, with the
file and the line. Unknown skills, cycles (a workflow that runs itself through others),
template syntax, `when`/`args` naming a later or unknown step, `retry` on a skill that
is not `idempotent: true`, a `parallel` inside a `parallel`, duplicate ids."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from codebot.skills.files import Diagnostic, Severity, Spec, normalize_name
from codebot.skills.workflow.lines import Where, line_finder
from codebot.skills.workflow.model import Fallback, Step, Workflow
from codebot.skills.workflow.parse import has_steps, is_idempotent, workflow_of
from codebot.skills.workflow.template import TemplateError, step_refs

Add = Callable[[str, str, str, Where, bool], None]


def _where(step: Step) -> Where:
    if len(step.index) == 2:
        return ("steps", step.index[0], "parallel", step.index[1])
    return ("steps", step.index[0])


def _templates(step: Step) -> list[tuple[Where, str]]:
    base = _where(step)
    out: list[tuple[Where, str]] = []
    if step.args:
        out.append(((*base, "args"), step.args))
    if step.when:
        out.append(((*base, "when"), step.when))
    for kind, act in step.on.items():
        if isinstance(act, Fallback) and act.args:
            out.append(((*base, "on", kind, "args"), act.args))
    return out


def _check_templates(step: Step, earlier: list[str], later: list[str], add: Add) -> None:
    for where, text in _templates(step):
        field = ".".join(str(p) for p in where[2:] if not isinstance(p, int))
        try:
            refs = list(step_refs(text))
        except TemplateError as exc:
            add(
                "workflow-template",
                f"step {step.id!r} {field}: {exc}",
                "fix the jinja2 syntax",
                where,
                True,
            )
            continue
        for ref in refs:
            if ref == step.id and "on" in where:  # a fallback reads the step that failed
                continue
            if ref in earlier:
                continue
            if ref in later:
                add(
                    "workflow-step-order",
                    f"step {step.id!r} {field} reads steps.{ref}, which has not run by then",
                    "a step can read only the steps before it; move it after that step",
                    where,
                    True,
                )
            else:
                add(
                    "workflow-step-order",
                    f"step {step.id!r} {field} reads steps.{ref}, but there is no step {ref!r}",
                    f"the steps before it are: {', '.join(earlier) or 'none'}",
                    where,
                    True,
                )


def _check_skills(step: Step, skills: Mapping[str, Spec], add: Add) -> None:
    base = _where(step)
    named: list[tuple[str, Where]] = []
    if step.skill:
        named.append((step.skill, (*base, "skill")))
    named.extend(
        (act.skill, (*base, "on", kind))
        for kind, act in step.on.items()
        if isinstance(act, Fallback)
    )
    for name, where in named:
        target = skills.get(normalize_name(name))
        if target is None:
            add(
                "workflow-unknown-skill",
                f"step {step.id!r} names skill {name!r}, which does not exist",
                "check the name with 'codebot skills list'",
                where,
                True,
            )
    target = skills.get(normalize_name(step.skill or ""))
    if step.retry is not None and target is not None and not is_idempotent(target):
        add(
            "workflow-retry-not-idempotent",
            f"step {step.id!r} sets retry, but skill {target.name!r} is not idempotent: "
            "it is never retried automatically",
            f"remove retry, or add 'idempotent: true' to {target.name}'s frontmatter if "
            "running it twice is safe",
            (*base, "retry"),
            True,
        )


def _cycle(start: Workflow, skills: Mapping[str, Spec]) -> tuple[Step, list[str]] | None:
    """A step of `start` that leads back to `start`, and the path of keys."""
    graph: dict[str, list[str]] = {}

    def edges(key: str) -> list[str]:
        if key not in graph:
            spec = skills.get(key)
            wf = workflow_of(spec)[0] if spec is not None and has_steps(spec) else None
            graph[key] = [normalize_name(n) for s in wf.steps for n in s.skills()] if wf else []
        return graph[key]

    for step in start.steps:
        for first in {normalize_name(n) for n in step.skills()}:
            stack, seen = [(first, [start.key, first])], set()
            while stack:
                key, path = stack.pop()
                if key == start.key:
                    return step, path
                if key in seen:
                    continue
                seen.add(key)
                stack.extend((nxt, [*path, nxt]) for nxt in edges(key))
    return None


def check_workflows(specs: Iterable[Spec], skills: Mapping[str, Spec]) -> list[Diagnostic]:
    """Every finding about the `steps:` of `specs`; `skills` maps keys to the catalog's
    winning specs (the step skills are looked up there)."""
    out: list[Diagnostic] = []
    for spec in specs:
        if has_steps(spec):
            out.extend(check_one(spec, skills))
    return out


def check_one(spec: Spec, skills: Mapping[str, Spec]) -> list[Diagnostic]:
    finder: list[Callable[[Where], int]] = []
    out: list[Diagnostic] = []

    def add(code: str, message: str, hint: str, where: Where, error: bool) -> None:
        if not finder:
            finder.append(line_finder(spec))  # the file is read only when there is a finding
        sev = Severity.ERROR if error else Severity.WARNING
        out.append(Diagnostic(str(spec.path), finder[0](where), code, sev, message, hint, "steps"))

    wf, problems = workflow_of(spec)
    for p in problems:
        add(p.code, p.message, p.hint, p.where, p.error)
    if wf is None:
        return out
    ids = wf.ids()
    for i, step in enumerate(wf.steps):
        earlier, later = ids[:i], ids[i:]
        for part in (step, *step.parallel):
            _check_templates(part, earlier, later, add)
            _check_skills(part, skills, add)
    found = _cycle(wf, skills)
    if found is not None:
        step, path = found
        add(
            "workflow-cycle",
            f"workflow {spec.name!r} runs itself through its steps: {' → '.join(path)}",
            "a workflow cannot name itself, directly or through other workflows",
            _where(step),
            True,
        )
    return out
