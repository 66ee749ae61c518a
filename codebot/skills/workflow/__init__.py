"""Stage 7 of the skill flow: workflows. A skill with `steps:` in its frontmatter is run
by codebot, not by the model: `parse` reads the steps into frozen values (`model`),
`template` renders their arguments and conditions in a jinja2 sandbox, `engine` runs
them through an injected step runner, `check` validates them across a catalog (with the
lines `lines` finds), `tree` draws them, `actors` decides who each step runs as.

May import: every earlier skills stage and `skills.outcome`; never agent, ui or config.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.skills.workflow.check import check_workflows
    from codebot.skills.workflow.engine import Engine, StepEvent, StepRunner, StepSkill
    from codebot.skills.workflow.model import Fallback, Retry, Step, Workflow
    from codebot.skills.workflow.parse import (
        Problem,
        has_steps,
        is_idempotent,
        skill_timeout,
        workflow_of,
    )
    from codebot.skills.workflow.template import TemplateError
    from codebot.skills.workflow.tree import draw_tree, render_outcome

_EXPORTS = {
    "Engine": "engine",
    "Fallback": "model",
    "Problem": "parse",
    "Retry": "model",
    "Step": "model",
    "StepEvent": "engine",
    "StepRunner": "engine",
    "StepSkill": "engine",
    "TemplateError": "template",
    "Workflow": "model",
    "check_workflows": "check",
    "draw_tree": "tree",
    "has_steps": "parse",
    "is_idempotent": "parse",
    "render_outcome": "tree",
    "skill_timeout": "parse",
    "workflow_of": "parse",
}
__all__ = [
    "Engine",
    "Fallback",
    "Problem",
    "Retry",
    "Step",
    "StepEvent",
    "StepRunner",
    "StepSkill",
    "TemplateError",
    "Workflow",
    "check_workflows",
    "draw_tree",
    "has_steps",
    "is_idempotent",
    "render_outcome",
    "skill_timeout",
    "workflow_of",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
