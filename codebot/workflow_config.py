"""`workflow:` in the config: `WorkflowSettings` (its field defaults are the only
defaults; `config.Settings.workflow` holds one) and its reader, which reports a bad value
by its key and keeps the default (docs/skills.md, "Workflows")."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class WorkflowSettings:
    #: Seconds a workflow step may run when neither the step nor its skill says (`timeout:`).
    default_timeout: float = 600.0
    #: Members of one `parallel:` group running at once.
    max_parallel: int = 4


#: (type, upper bound) of each key.
WORKFLOW_CAPS: Mapping[str, tuple[type, float]] = {
    "default_timeout": (float, 86_400.0),
    "max_parallel": (int, 64),
}


def read_workflow_settings(raw: Mapping[str, object], warnings: list[str]) -> WorkflowSettings:
    section = raw.get("workflow")
    if section is None:
        return WorkflowSettings()
    if not isinstance(section, Mapping):
        warnings.append(f"config workflow: expected a mapping, got {type(section).__name__}")
        return WorkflowSettings()
    out: dict[str, float | int] = {}
    for key, value in section.items():
        if key not in WORKFLOW_CAPS:
            warnings.append(
                f"config workflow.{key}: unknown key (use {', '.join(WORKFLOW_CAPS)}); ignoring it"
            )
            continue
        kind, cap = WORKFLOW_CAPS[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not (0 < value <= cap)
            or (kind is int and value != int(value))
        ):
            default = getattr(WorkflowSettings(), key)
            warnings.append(
                f"config workflow.{key}: {value!r} is not a positive "
                f"{'whole number' if kind is int else 'number'} up to {cap:g}; "
                f"using the default {default}"
            )
            continue
        out[key] = kind(value)
    default = WorkflowSettings()
    return WorkflowSettings(
        default_timeout=float(out.get("default_timeout", default.default_timeout)),
        max_parallel=int(out.get("max_parallel", default.max_parallel)),
    )
