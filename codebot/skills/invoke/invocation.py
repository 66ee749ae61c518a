"""`process_invocation`: from "run skill X with these arguments, as this actor" to the
text that enters the conversation, or a typed error that says what to do instead.

Steps (DESIGN §3.4): find → policy → composition limits → arguments → expand (shell,
variables, arguments in one pass) → wrap → mode → delta. Side effects are limited to
reading the body and, for trusted skills, running their `!` commands (both injectable).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codebot.skills.files import Source, Spec, normalize_name
from codebot.skills.invoke.escape import attr, escape_tags
from codebot.skills.invoke.expand import (
    Runner,
    ShellCall,
    ShellError,
    ShellPolicy,
    ShellRefused,
    expand,
    run_shell,
    split_arguments,
)
from codebot.skills.invoke.policy import Actor, Adapter, Decision, decide

#: Asked before each `!` command of a skill the person did not invoke themselves:
#: returns None to run it, or the reason it may not run.
Approver = Callable[[str], "str | None"]


@dataclass(frozen=True, slots=True)
class Delta:
    """What a skill changes for the rest of the turn (inline) or for its sub-agent (fork)."""

    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None
    effort: str | None = None
    paths: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(
            self.allowed_tools or self.disallowed_tools or self.model or self.effort or self.paths
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "allowed_tools": list(self.allowed_tools),
            "disallowed_tools": list(self.disallowed_tools),
            "model": self.model,
            "effort": self.effort,
            "paths": list(self.paths),
        }


@dataclass(frozen=True, slots=True)
class Request:
    skill: str
    args: str = ""
    actor: Actor = Actor.HUMAN
    session_id: str = ""
    project_dir: Path = Path(".")
    chain: tuple[str, ...] = ()  # keys of the skills above this one (composition)
    adapter: Adapter = Adapter.EXTENSION
    overrides: Mapping[str, str] = field(default_factory=dict)
    shell: str = "run"  # "run" or "list" (dry run); plugins are always "refuse"
    shell_timeout: float = 120.0
    max_depth: int = 2
    # Whether the person trusted the project folder: an untrusted project's skills run no
    # commands and change no tools, model or effort.
    trusted_project: bool = False
    # Consent for the commands of a skill the model, a sub-agent or another skill invoked
    # (or one written during this session): without it they do not run.
    approve: Approver | None = None
    # Real paths of files written by tools during this session.
    written: frozenset[str] = frozenset()
    # How a command is wrapped to run (the agent's sandbox); None runs it as it is.
    wrap: Callable[[list[str]], list[str]] | None = None
    # Added to the environment of its commands, which has no secret variables: what the
    # person's `shell.env` keeps or sets (`codebot.environment.added_env`).
    env: Mapping[str, str] = field(default_factory=dict)
    # The body when it does not come from a file: what a `SkillSource` fetched (an MCP
    # server's skill, checked against its digest); None reads `spec.read_body()`.
    body: str | None = None


@dataclass(frozen=True, slots=True)
class Invocation:
    spec: Spec
    mode: str  # "inline" | "fork"
    prompt: str  # the wrapped text: <skill ...>...</skill>
    delta: Delta
    decision: Decision
    arguments: tuple[str, ...]
    shell: tuple[ShellCall, ...] = ()
    notes: tuple[str, ...] = ()
    ok: Literal[True] = True  # tells the two apart, for people and the type checker


@dataclass(frozen=True, slots=True)
class InvocationError:
    kind: str  # unknown | denied | cycle | depth | arguments | shell | unreadable
    skill: str
    message: str
    suggestions: tuple[str, ...] = ()
    decision: Decision | None = None
    spec: Spec | None = None
    output: str = ""
    ok: Literal[False] = False


Result = Invocation | InvocationError


def closest(name: str, specs: Sequence[Spec], n: int = 5) -> tuple[str, ...]:
    by_key = {s.key: s.name for s in specs}
    keys = difflib.get_close_matches(normalize_name(name), list(by_key), n=n, cutoff=0.5)
    if not keys:  # prefix/substring matches catch `rev` -> `review`
        needle = normalize_name(name)
        keys = [k for k in by_key if needle and (k.startswith(needle) or needle in k)][:n]
    return tuple(by_key[k] for k in keys)


def process_invocation(
    req: Request, specs: Mapping[str, Spec], runner: Runner = run_shell
) -> Result:
    """`specs` maps normalized keys to winning specs (a catalog snapshot's `skills`)."""
    key = normalize_name(req.skill.lstrip("/"))
    spec = specs.get(key)
    if spec is None:
        pool = [
            s for s in specs.values() if decide(s, req.actor, req.overrides, req.adapter).allowed
        ]
        sugg = closest(req.skill, pool)
        hint = f" Did you mean: {', '.join(sugg)}?" if sugg else ""
        return InvocationError("unknown", req.skill, f"no skill named {req.skill!r}.{hint}", sugg)
    decision = decide(spec, req.actor, req.overrides, req.adapter)
    if not decision.allowed:
        return InvocationError(
            "denied",
            spec.name,
            f"{req.actor.value} may not run skill {spec.name!r}: {decision.reason}",
            decision=decision,
            spec=spec,
        )
    if spec.key in req.chain:
        path = " → ".join([*req.chain, spec.key])
        return InvocationError(
            "cycle",
            spec.name,
            f"skill {spec.name!r} is already running above this call "
            f"({path}); a skill cannot invoke itself through others",
            decision=decision,
            spec=spec,
        )
    if len(req.chain) >= req.max_depth:
        return InvocationError(
            "depth",
            spec.name,
            f"skill nesting is limited to {req.max_depth} levels "
            f"({' → '.join(req.chain)} → {spec.key}); finish the current skill instead",
            decision=decision,
            spec=spec,
        )

    args, split_note = split_arguments(req.args)
    problem = check_arguments(spec, args)
    if problem:
        return InvocationError("arguments", spec.name, problem, decision=decision, spec=spec)
    try:
        body = spec.read_body() if req.body is None else req.body
    except OSError as exc:
        return InvocationError(
            "unreadable",
            spec.name,
            f"cannot read {spec.path}: {exc.strerror or exc}; was it deleted? run /reload",
            decision=decision,
            spec=spec,
        )

    variables = {
        "SKILL_DIR": str(spec.dir),
        "SESSION_ID": req.session_id,
        "PROJECT_DIR": str(req.project_dir),
    }
    env = {
        **req.env,
        **{f"{p}_{k}": v for k, v in variables.items() for p in ("CODEBOT", "CLAUDE")},
    }
    agent_written = written_by_agent(spec, req.written)
    grants_ok = may_grant(spec, req.trusted_project) and not agent_written
    policy, runner = shell_policy(spec, req, env, runner)
    if is_workflow(spec):
        # Codebot runs a workflow's steps; its body is never sent to a model, so nothing in
        # it may run either: each `!` command stays a marker that says why.
        policy = dataclasses.replace(policy, mode="refuse", refuse_reason=WORKFLOW_BODY)
    try:
        exp = expand(
            body,
            args=args,
            raw_args=req.args.strip(),
            declared=[a.name for a in spec.arguments],
            positional_live=bool(spec.arguments or spec.argument_hint),
            variables=variables,
            shell=policy,
            runner=runner,
        )
    except ShellError as exc:
        return InvocationError(
            "shell",
            spec.name,
            f"skill {spec.name!r}: command `{exc.command}` {exc.reason}; the skill was not run",
            decision=decision,
            spec=spec,
            output=exc.output,
        )
    text = exp.text.strip("\n")
    if args and not exp.had_placeholder:
        text += f"\n\nARGUMENTS: {req.args.strip()}"
    notes = [n for n in (split_note, *exp.notes) if n]
    prompt = (
        f'<skill name="{attr(spec.name)}" source="{spec.source.value}" '
        f'dir="{attr(str(spec.dir))}">\n'
        f"{escape_tags(text)}\n</skill>"
    )
    delta = (
        Delta()
        if not grants_ok
        else Delta(spec.allowed_tools, spec.disallowed_tools, spec.model, spec.effort, spec.paths)
    )
    if not grants_ok and (
        spec.allowed_tools or spec.model or spec.effort or spec.disallowed_tools or spec.paths
    ):
        who = {
            Source.PLUGIN: "plugin skills",
            Source.MCP: "skills from MCP servers",
        }.get(spec.source, "skills of an untrusted project")
        if agent_written:
            who = (
                "skills written by codebot's agent and not yet accepted (`codebot written` lists "
                "them, "
                "`codebot written --accept PATH` accepts one)"
            )
        notes.append(f"{who} may not change tools, model or effort; those fields were ignored")
    return Invocation(
        spec, spec.context, prompt, delta, decision, tuple(args), exp.shell, tuple(notes)
    )


WORKFLOW_BODY = "a workflow's body is documentation, never sent to a model; its commands never run"


def is_workflow(spec: Spec) -> bool:
    """Whether the skill is a workflow (a `steps:` key in its frontmatter): codebot runs its
    steps, and its body is documentation (`skills.workflow.has_steps` asks this)."""
    return any(k.strip().lower() == "steps" and v is not None for k, v in spec.extra.items())


def written_by_agent(spec: Spec, written: frozenset[str]) -> bool:
    """Whether codebot's agent wrote this skill's file, or any file in its folder (a
    script its commands run), in this session or an earlier one not yet accepted."""
    if not written:
        return False
    if str(spec.path) in written or str(spec.real_path) in written:
        return True
    folders = {str(spec.dir).rstrip("/") + "/", os.path.realpath(spec.dir).rstrip("/") + "/"}
    return any(w.startswith(f) for w in written for f in folders)


def may_grant(spec: Spec, trusted_project: bool) -> bool:
    """Whether a skill's own fields may run commands or change tools, model and effort:
    bundled and user skills yes, project skills only in a trusted folder, plugins never."""
    if spec.source is Source.PROJECT:
        return trusted_project
    return spec.source.trusted


def shell_policy(
    spec: Spec, req: Request, env: Mapping[str, str], runner: Runner
) -> tuple[ShellPolicy, Runner]:
    """How this invocation treats the skill's `!` commands, and the runner that runs them.

    Who runs them follows who invoked the skill: the person's own `/name` runs them; for
    the model, a sub-agent or another skill (and for a skill file written during this
    session) each command must pass `req.approve` first.
    """
    if spec.source is Source.PLUGIN or spec.source is Source.MCP:
        who = "plugin skills" if spec.source is Source.PLUGIN else "skills from MCP servers"
        return ShellPolicy(
            "refuse", req.project_dir, req.shell_timeout, env, f"{who} may not run shell commands"
        ), runner
    if not may_grant(spec, req.trusted_project):
        return ShellPolicy(
            "refuse",
            req.project_dir,
            req.shell_timeout,
            env,
            "this project is not trusted (run `codebot trust` to allow its skills' commands)",
        ), runner
    policy = ShellPolicy(req.shell, req.project_dir, req.shell_timeout, env, wrap=req.wrap)
    written = written_by_agent(spec, req.written)
    if req.actor is Actor.HUMAN and not written:
        return policy, runner
    approve = req.approve
    why = "written during this session" if written else f"invoked by the {req.actor.value}"

    def gated(command: str, pol: ShellPolicy) -> str:
        if approve is None:
            raise ShellRefused(f"the skill was {why} and nobody can approve its commands here")
        reason = approve(command)
        if reason is not None:
            raise ShellRefused(reason)
        return runner(command, pol)

    return policy, gated


def check_arguments(spec: Spec, args: Sequence[str]) -> str | None:
    """Required arguments present, and values valid against their JSON Schemas."""
    hint = f" (usage: /{spec.name} {spec.argument_hint})" if spec.argument_hint else ""
    for i, arg in enumerate(spec.arguments):
        if i >= len(args):
            if arg.required:
                return f"missing required argument {arg.name!r}{hint}"
            continue
        if arg.schema is None:
            continue
        problem = _schema_check(spec, arg.name, args[i], arg.schema)
        if problem:
            return problem + hint if " is invalid: " in problem else problem
    return None


def _schema_check(spec: Spec, name: str, raw: str, schema: Mapping[str, object]) -> str | None:
    """`raw` against an argument's schema: offline (no `$ref` fetched) and with regexes
    under a timeout (`codebot.skills.files.schemas`)."""
    import jsonschema  # only skills with schemas pay for it
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    from codebot.skills.files.schemas import SchemaRefused, errors

    broken = f"skill {spec.name!r} declares a broken schema for {name!r}"
    try:
        validator_for(dict(schema)).check_schema(dict(schema))
        best = best_match(errors(schema, _typed(raw, schema)))
    except jsonschema.SchemaError as exc:
        return f"{broken}: {exc.message}"
    except SchemaRefused as exc:
        return f"{broken}: {exc}"
    except RecursionError:
        return f"{broken}: it nests too deeply"
    return None if best is None else f"argument {name!r} = {raw!r} is invalid: {best.message}"


def _typed(value: str, schema: Mapping[str, Any]) -> Any:
    """Arguments arrive as text; read them as JSON when the schema wants a non-string."""
    t = schema.get("type")
    types = set(t) if isinstance(t, list) else {t}
    if (
        types & {"integer", "number", "boolean", "array", "object", "null"}
        and "string" not in types
    ):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
