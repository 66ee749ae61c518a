"""`codebot skills stats`: what the lifecycle traces say about each skill."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from codebot.config import Settings
from codebot.display import json_text, strip_escapes
from codebot.skills.catalog import Snapshot

if TYPE_CHECKING:
    from codebot.skills.trace import SkillStats, Summary


def run_stats(args: argparse.Namespace, settings: Settings, snap: Snapshot) -> int:
    from codebot.agent.session.run_log import outcome_stats, read_runs
    from codebot.commands.runs import SinceError, outcome_table, parse_since
    from codebot.skills.trace import format_stats, summarize

    try:
        since = parse_since(getattr(args, "since", None))
    except SinceError as exc:
        print(f"codebot: {exc}", file=sys.stderr)
        return 2
    summary = _without_non_skills(summarize(settings.home / "traces", since), snap)
    outcomes = outcome_stats(read_runs(settings.home / "sessions", since).runs)
    if args.json:
        out = {**summary, "outcomes": outcomes}
        print(json_text(out, indent=2, default=str))
        return 0
    print(
        strip_escapes(format_stats(summary))
    )  # names come from trace files: no escapes reach the terminal
    if outcomes:  # how the runs ended, from the transcripts' skill_outcome records
        print("\nOutcomes (from the transcripts):\n" + strip_escapes(outcome_table(outcomes)))
    not_skills = summary.get("not_skills", {})
    if not_skills:
        asked = ", ".join(f"{name} ({n})" for name, n in not_skills.items())
        print(
            strip_escapes(
                f"\nNames asked for that are not skills (denied; counted in the total): {asked}"
            )
        )
    return 0


def _without_non_skills(summary: Summary, snap: Snapshot) -> Summary:
    """Move names that are not skills (`skills invoke revew`, a model guessing a name) out
    of the per-skill table into `not_skills` (name -> times asked). Such a name never
    resolved to a file, so its events carry no source; a skill that was deleted after it
    ran keeps its row, because it has one."""
    known = {sh.spec.key for sh in snap.shadowed}
    skills: dict[str, SkillStats] = {}
    not_skills: dict[str, int] = {}
    for name, stats in summary.get("skills", {}).items():
        if stats.get("sources") or snap.get(name) is not None or name in known:
            skills[name] = stats
        else:
            not_skills[name] = sum(stats.get("events", {}).values())
    totals: SkillStats = {**summary["totals"], "skills": len(skills)}
    return {**summary, "skills": skills, "not_skills": not_skills, "totals": totals}
