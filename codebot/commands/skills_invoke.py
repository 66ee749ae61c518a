"""`codebot skills invoke` and `codebot skills listing`: what a skill, or the listing of all
of them, would put into the conversation, for people and scripts."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codebot.skills.invoke.invocation import Invocation

from codebot.commands.skill_io import active_keys_of, say, snapshot
from codebot.config import Settings


def cmd_invoke(args: argparse.Namespace, settings: Settings) -> int:
    import shlex
    import time

    from codebot.skills.invoke import Actor, Adapter, Request, process_invocation
    from codebot.skills.invoke.invocation import InvocationError

    snap = snapshot(settings)
    raw = shlex.join(args.args) if args.args else ""
    req = Request(
        skill=args.name,
        args=raw,
        actor=Actor(args.actor),
        session_id="cli",
        project_dir=settings.project_dir,
        adapter=Adapter(args.adapter),
        overrides=settings.overrides,
        shell="run" if args.run_shell else "list",
        shell_timeout=settings.shell_timeout,
        max_depth=settings.fork_depth,
        trusted_project=settings.trusted,
    )
    t0 = time.perf_counter()
    result = process_invocation(req, snap.skills)
    ms = (time.perf_counter() - t0) * 1000
    if not args.dry_run:
        _record(settings, result, req, ms)
    if isinstance(result, InvocationError):
        out = {
            "decision": "denied",
            "error": result.kind,
            "reasons": [result.message],
            "skill": result.skill,
            "suggestions": list(result.suggestions),
            "adapter": args.adapter,
            "decided_by": result.decision.decided_by if result.decision else None,
            "source": result.spec.source.value if result.spec else None,
            "output": result.output,
        }
        if args.json:
            print(json.dumps(out, indent=2, ensure_ascii=False))
        else:
            say(f"codebot: {result.message}", file=sys.stderr)
            if result.output:
                say(result.output, file=sys.stderr)
        return 1
    out = {
        "decision": "allowed",
        "reasons": [result.decision.reason, *result.notes],
        "adapter": args.adapter,
        "decided_by": result.decision.decided_by,
        "skill": result.spec.name,
        "source": result.spec.source.value,
        "mode": result.mode,
        "delta": result.delta.to_json(),
        "arguments": list(result.arguments),
        "shell": [{"command": c.command, "line": c.line, "ran": c.ran} for c in result.shell],
        "prompt": result.prompt,
        "project_trusted": settings.trusted,
        "dropped": [f for f in ("allowed-tools", "model", "effort") if _dropped(result, f)],
    }
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        say(f"# {out['skill']} ({out['source']}) · {out['mode']} · decided by {out['decided_by']}")
        if result.delta:
            say(f"# delta: {json.dumps(out['delta'])}")
        for c in result.shell:
            say(
                f"# shell line {c.line}: {c.command} "
                f"({'ran' if c.ran else 'not run; pass --run-shell'})"
            )
        for n in result.notes:
            say(f"# note: {n}")
        say(result.prompt)
    return 0


def _record(settings: Settings, result, req, ms: float) -> None:
    """Usage and lifecycle trace for a real (not dry-run) CLI invocation."""
    try:
        from codebot.skills.prompt import UsageTracker
        from codebot.skills.trace import Tracer
    except ImportError:
        return
    tracer = Tracer(settings.home / "traces" / "cli.jsonl", "cli")
    name = result.spec.name if result.spec else req.skill
    source = result.spec.source.value if result.spec else None
    if result.ok:
        for event in ("eligible", "selected", "activated"):
            tracer.emit(event, actor=req.actor.value, skill=name, source=source, mode=result.mode)
        tracer.emit(
            "completed",
            actor=req.actor.value,
            skill=name,
            source=source,
            mode=result.mode,
            duration_ms=ms,
        )
        UsageTracker(settings.home / "skill-usage.json").record(result.spec.key)
    else:
        event = "denied" if result.kind in ("denied", "unknown", "cycle", "depth") else "failed"
        tracer.emit(
            event,
            actor=req.actor.value,
            skill=name,
            source=source,
            reason=result.message,
            duration_ms=ms,
        )


def cmd_listing(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.skills.prompt import ListingOptions, UsageTracker, listing_for

    snap = snapshot(settings)
    usage = UsageTracker(settings.home / "skill-usage.json").scores()
    budget = args.budget if args.budget is not None else settings.listing_budget
    if (
        budget is not None and budget <= 0
    ):  # None: the listing's own default (a share of the window)
        say("codebot: --budget must be a positive number of characters", file=sys.stderr)
        return 2
    options = ListingOptions(budget, settings.listing_line, settings.listing_when)
    listing = listing_for(
        snap,
        overrides=settings.overrides,
        active=active_keys_of(snap, settings),
        usage=usage,
        options=options,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "text": listing.text,
                    "listed": list(listing.listed),
                    "described": list(listing.described),
                    "cut": list(listing.cut),
                    "omitted": list(listing.omitted),
                    "chars": listing.chars,
                    "budget": listing.budget,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        say(listing.text)
        say(
            f"\n# {len(listing.listed)} listed, {len(listing.cut)} shortened, "
            f"{len(listing.omitted)} omitted; "
            f"{listing.chars} of {listing.budget} characters",
            file=sys.stderr,
        )
    return 0


def _dropped(result: Invocation, field: str) -> bool:
    """A field the skill set that did not reach the delta (plugin or untrusted project)."""
    spec, delta = result.spec, result.delta
    wanted = {"allowed-tools": spec.allowed_tools, "model": spec.model, "effort": spec.effort}[
        field
    ]
    got = {"allowed-tools": delta.allowed_tools, "model": delta.model, "effort": delta.effort}[
        field
    ]
    return bool(wanted) and not got
