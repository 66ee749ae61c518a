"""`codebot skills ...`: the catalog from the command line, for people and scripts.

This module dispatches the subcommands and holds `list`, `show` and `validate`; `invoke`
and `listing` are in `skills_invoke`, what they share in `skill_io`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from codebot.commands.args import settings_from
from codebot.commands.skill_io import active_keys_of, say, snapshot
from codebot.commands.skills_invoke import cmd_invoke, cmd_listing
from codebot.config import Settings
from codebot.display import strip_escapes
from codebot.skills.catalog import Catalog, Snapshot
from codebot.skills.files import Source, Spec
from codebot.skills.validate import Report, catalog_problems, count_of, problem_count


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    handler = HANDLERS[args.skills_command]
    return handler(args, settings)


def model_invocable(spec: Spec) -> bool:
    return not spec.disable_model_invocation and spec.allow_implicit_invocation


def entry(
    spec: Spec, snap: Snapshot, active: frozenset[str], shadowed_by: Spec | None = None
) -> dict[str, Any]:
    return {
        "name": spec.name,
        "key": spec.key,
        "source": spec.source.value,
        "family": spec.root.family,
        "plugin": spec.plugin,
        "path": str(spec.path),
        "root": str(spec.root.path),
        "description": spec.description,
        "when_to_use": spec.when_to_use,
        "argument_hint": spec.argument_hint,
        "context": spec.context,
        "user_invocable": spec.user_invocable,
        "model_invocable": model_invocable(spec),
        "active": (spec.key in active) if spec.paths else True,
        "paths": list(spec.paths),
        "shadowed_by": None
        if shadowed_by is None
        else {
            "name": shadowed_by.name,
            "source": shadowed_by.source.value,
            "family": shadowed_by.root.family,
            "path": str(shadowed_by.path),
        },
        # Copies of this very name that lost to it (another host's folder, a farther level).
        "also_in": [
            {
                "source": s.spec.source.value,
                "family": s.spec.root.family,
                "root": str(s.spec.root.path),
                "path": str(s.spec.path),
                "reason": s.reason,
            }
            for s in snap.shadows_of(spec)
            if s.spec.key == spec.key
        ]
        if shadowed_by is None
        else [],
        "diagnostics": [d.to_json() for d in spec.diagnostics],
    }


def cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.commands.skill_servers import snapshot_with_servers

    snap = snapshot_with_servers(settings)  # with the MCP servers' skills
    active = active_keys_of(snap, settings)
    rows = [entry(s, snap, active) for s in snap]
    if args.all:
        rows += [
            entry(sh.spec, snap, active, sh.winner) | {"shadow_reason": sh.reason}
            for sh in snap.shadowed
        ]
    if args.json:
        json.dump(
            {
                "skills": rows,
                "diagnostics": [d.to_json() for d in snap.diagnostics],
                "problem_count": problem_count(snap),
                "roots": [
                    {"path": str(r.path), "source": r.source.value, "family": r.family}
                    for r in snap.roots
                ],
            },
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        sys.stdout.write("\n")
        return 0
    _print_groups(rows, settings.project_dir)
    problems = catalog_problems(snap)
    if problems:
        say(f"\n{count_of(len(problems), 'problem')} (run 'codebot skills validate' for details):")
        for d in problems[:20]:
            say("  " + d.format())
        if len(problems) > 20:
            say(f"  … and {len(problems) - 20:,} more")
    if not rows:
        say(
            "no skills found. Put skills in .codebot/skills/<name>/SKILL.md or use --skills-dir "
            "DIR."
        )
    return 0


def _print_groups(rows: list[dict[str, Any]], project: Path) -> None:
    """One group per source; each line: name, host family, flags, then the description
    (or, for a shadowed copy, what shadows it). A winner with shadowed copies of its name
    says where they are first, so a cut line still shows it."""
    width = shutil.get_terminal_size((100, 20)).columns
    for source in Source:
        group = [r for r in rows if r["source"] == source.value]
        if not group:
            continue
        say(f"{source.value} ({len(group)})")
        # Cleaned before padding and cutting, so widths count what the terminal shows.
        name_w = min(32, max(len(strip_escapes(r["name"])) for r in group))
        family_w = max(len(r["family"]) for r in group)
        for r in sorted(group, key=lambda r: (r["shadowed_by"] is not None, r["key"])):
            text = strip_escapes(r["description"].replace("\n", " "))
            if r["shadowed_by"]:
                by = r["shadowed_by"]
                text = (
                    f"in {_short(r['root'], project)}, shadowed by {by['source']} "
                    f"({by['family']}) {_short(by['path'], project)}"
                )
            elif r["also_in"]:
                where = ", ".join(dict.fromkeys(_short(a["root"], project) for a in r["also_in"]))
                text = f"(also in {where}, shadowed) {text}"
            line = (
                f"  {strip_escapes(r['name']):<{name_w}}  {r['family']:<{family_w}}  "
                f"{_flags(r)}{strip_escapes(text)}"
            )
            say(line if len(line) <= width else line[: max(width - 1, 20)] + "…")


def _short(path: str, project: Path) -> str:
    """A folder as the person knows it: relative to the project, else `~/…`, else as is."""
    p = Path(path)
    try:
        home: Path | None = Path.home()
    except (RuntimeError, KeyError):  # no HOME and no passwd entry
        home = None
    for base, label in ((project, ""), (home, "~/")):
        if base is None:
            continue
        try:
            rel = p.relative_to(base)
        except ValueError:
            continue
        return f"{label}{rel.as_posix()}" if rel.parts else (label.rstrip("/") or ".")
    return path


def _flags(r: dict[str, Any]) -> str:
    flags = []
    if not r["user_invocable"]:
        flags.append("model-only")
    if not r["model_invocable"]:
        flags.append("user-only")
    if r["paths"] and not r["active"]:
        flags.append("inactive")
    if r["context"] == "fork":
        flags.append("fork")
    return f"[{', '.join(flags)}] " if flags else ""


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.commands.skill_servers import catalog_with_servers

    with catalog_with_servers(settings) as catalog:  # the MCP servers' skills too
        return _show(args, settings, catalog)


def _show(args: argparse.Namespace, settings: Settings, catalog: Catalog) -> int:
    from codebot.commands.skill_servers import body_of, resolve
    from codebot.skills.files import normalize_name

    snap = catalog.snapshot
    spec = resolve(catalog, args.name)
    shadow = None
    if spec is None:
        hit = [sh for sh in snap.shadowed if sh.spec.key == normalize_name(args.name)]
        if hit:
            spec, shadow = hit[0].spec, hit[0].winner
    if spec is None:
        return _not_loaded(args, snap) or _unknown(args.name, snap)
    d = entry(spec, snap, active_keys_of(snap, settings), shadow) | {
        "display_name": spec.display_name,
        "short_description": spec.short_description,
        "arguments": [
            {
                "name": a.name,
                "description": a.description,
                "required": a.required,
                "schema": dict(a.schema) if a.schema else None,
            }
            for a in spec.arguments
        ],
        "agent": spec.agent,
        "model": spec.model,
        "effort": spec.effort,
        "allowed_tools": list(spec.allowed_tools),
        "disallowed_tools": list(spec.disallowed_tools),
        "disable_model_invocation": spec.disable_model_invocation,
        "allow_implicit_invocation": spec.allow_implicit_invocation,
        "license": spec.license,
        "compatibility": spec.compatibility,
        "metadata": dict(spec.metadata),
        "extra": dict(spec.extra),
        "root": str(spec.root.path),
        "real_path": str(spec.real_path),
        "shadows": [
            {
                "name": s.spec.name,
                "source": s.spec.source.value,
                "path": str(s.spec.path),
                "reason": s.reason,
            }
            for s in snap.shadows_of(spec)
        ],
        "body_line": spec.body_line,
        "body": _body_or_why(spec) if spec.source is not Source.MCP else None,
    }
    refused = ""
    if spec.source is Source.MCP:  # fetched from its server and checked, as on invocation
        d["body"], refused = body_of(catalog, spec)
        if refused:
            d["error"] = refused
            say(f"codebot: {refused}", file=sys.stderr)
    if args.json:
        json.dump(d, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 1 if refused else 0
    body = d.pop("body")
    d.pop("error", None)  # said on stderr
    for k, v in d.items():
        if v in (None, [], {}, ""):
            continue
        say(
            f"{k + ':':<26}{json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else v}"
        )
    _show_workflow(spec)
    if refused:
        say("\n--- body not shown: refused (see above) ---")
        return 1
    say(f"\n--- body (from line {spec.body_line}) ---\n{body}")
    return 0


def _show_workflow(spec: Spec) -> None:
    """A workflow skill's steps as a tree (or why they cannot run)."""
    from codebot.skills.workflow import draw_tree, has_steps, workflow_of

    if not has_steps(spec):
        return
    wf, problems = workflow_of(spec)
    if wf is None:
        say("\n--- steps: cannot run ---")
        for p in problems:
            say(f"  {p.message}" + (f" — {p.hint}" if p.hint else ""))
        say(f"check with: codebot skills validate {spec.path}")
        return
    say("\n--- steps ---\n" + "\n".join(draw_tree(wf)))


def _not_loaded(args: argparse.Namespace, snap: Snapshot) -> int:
    """`skills show broken` for a skill whose file did not load: its problems, each with
    file, line and fix, instead of "no skill named 'broken'" (which hides it). 0 if none."""
    from codebot.skills.files import normalize_name

    wanted = normalize_name(args.name)
    found = [d for d in snap.diagnostics if _folder_name(d.path) == wanted]
    if not found:
        return 0
    if args.json:
        print(
            json.dumps(
                {"name": args.name, "loaded": False, "diagnostics": [d.to_json() for d in found]},
                indent=2,
                ensure_ascii=False,
            )
        )
        return 1
    say(
        f"codebot: skill {args.name!r} did not load: {count_of(len(found), 'problem')} in its "
        "file:",
        file=sys.stderr,
    )
    for d in found:
        say("  " + d.format(), file=sys.stderr)
    say(f"Fix it, then check with: codebot skills validate {found[0].path}", file=sys.stderr)
    return 1


def _folder_name(path: str) -> str:
    """The skill name a file would have had: its folder (`x/SKILL.md`) or its stem (`x.md`)."""
    from pathlib import Path

    from codebot.skills.files import normalize_name

    p = Path(path)
    return normalize_name(p.parent.name if p.name.lower() == "skill.md" else p.stem)


def _unknown(name: str, snap: Snapshot) -> int:
    import difflib

    close = difflib.get_close_matches(name.lower(), [s.name for s in snap], n=5, cutoff=0.5)
    hint = (
        f" Did you mean: {', '.join(close)}?"
        if close
        else " Run 'codebot skills list' to see them."
    )
    say(f"codebot: no skill named {name!r}.{hint}", file=sys.stderr)
    return 1


def cmd_validate(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.skills.validate import validate_paths, validate_specs

    if args.paths:
        missing = [p for p in args.paths if not p.exists()]
        if missing:
            say(f"codebot: {missing[0]}: no such file or folder", file=sys.stderr)
            return 2
    if getattr(args, "spec", False):  # the specification's verdict alone (skills-ref's)
        from codebot.skills.spec_verdict import spec_report

        report = spec_report(args.paths or _catalog_skill_folders(settings))
    elif args.paths:
        report = validate_paths(args.paths, known=lambda: snapshot(settings).skills)
    else:
        from codebot.commands.skill_servers import snapshot_with_servers

        snap = snapshot_with_servers(settings)  # the servers' problems, as `skills list`
        report = validate_specs(snap, snap.diagnostics)
    failed = report.failed(args.strict)
    if args.json:
        json.dump(
            {
                "ok": not failed,
                "checked": report.checked,
                "strict": args.strict,
                "spec": bool(getattr(args, "spec", False)),
                "problem_count": len(report.problems),
                "diagnostics": [d.to_json() for d in report.diagnostics],
            },
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        sys.stdout.write("\n")
    else:
        for d in report.diagnostics:
            say(d.format())
        spec = " (the Agent Skills specification only)" if getattr(args, "spec", False) else ""
        say(_validate_summary(report, args.strict) + spec)
    return 1 if failed else 0


def _catalog_skill_folders(settings: Settings) -> list[Path]:
    """`--spec` without a path: the folder of every loaded skill (the specification has
    no single-file skills)."""
    return sorted({s.dir for s in snapshot(settings) if not s.single_file})


def _validate_summary(report: Report, strict: bool) -> str:
    """`3 skills checked: 2 problems (1 error, 1 warning), 4 hints`: the problem count is
    the one `skills list` and /skills show (`Report.problems`, as `catalog_problems`)."""
    counts = {
        s: sum(1 for d in report.diagnostics if d.severity.value == s)
        for s in ("error", "warning", "info")
    }
    return (
        f"{count_of(report.checked, 'skill')} checked: {count_of(len(report.problems), 'problem')} "
        f"({count_of(counts['error'], 'error')}, {count_of(counts['warning'], 'warning')}), "
        f"{count_of(counts['info'], 'hint')}{' (strict: warnings fail)' if strict else ''}"
    )


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.commands.stats import run_stats

    return run_stats(args, settings, snapshot(settings))


def cmd_runs(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.commands.runs import run_runs

    return run_runs(args, settings)


def cmd_route(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.commands.route import run_route

    return run_route(args, settings)


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.commands.route import run_eval

    return run_eval(args, settings)


def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.commands.watch import run

    return run(args, settings)


HANDLERS = {
    "list": cmd_list,
    "show": cmd_show,
    "validate": cmd_validate,
    "invoke": cmd_invoke,
    "watch": cmd_watch,
    "listing": cmd_listing,
    "stats": cmd_stats,
    "runs": cmd_runs,
    "route": cmd_route,
    "eval": cmd_eval,
}


def _body_or_why(spec: Spec) -> str:
    """The body, or why it cannot be read now (deleted, or no longer a regular file)."""
    try:
        return spec.read_body()
    except OSError as exc:
        return f"(cannot read the body of {spec.path}: {exc}; run /reload or `codebot skills list`)"
