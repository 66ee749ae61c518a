"""Workflow templates: jinja2 in a sandbox, with `StrictUndefined`, over `args` and
`steps.<id>.status|summary|data|fallback`. The result is text handed to a skill as its
arguments (or a `when:` condition); nothing here reaches a shell.

The sandbox refuses attributes outside it (`''.__class__`), and this environment also
refuses arithmetic that would build huge values (`'x' * 10**9`, `9**9**9`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jinja2 import nodes
    from jinja2.environment import Template, TemplateExpression
    from jinja2.runtime import Context
    from jinja2.sandbox import SandboxedEnvironment

#: The longest text a template may render, and the largest value `*`/`**` may build.
MAX_RENDER_CHARS = 200_000
MAX_BUILT = 100_000
_EXPR_ONLY = re.compile(r"^\s*\{\{(?P<expr>.*)\}\}\s*$", re.DOTALL)
_FALSE = {"", "false", "0", "no", "none", "off"}


class TemplateError(ValueError):
    """A template that does not parse or does not render; the message says why."""


class Steps(dict[str, "StepView"]):
    """`steps` in a template: each step that ran (or was skipped) by id."""


class StepView(dict[str, object]):
    """`steps.<id>`: status, summary, data, fallback (a dict, so `tojson` takes it)."""

    def __init__(self, sid: str, values: Mapping[str, object]) -> None:
        super().__init__(values)
        self.sid = sid


@functools.cache
def environment() -> SandboxedEnvironment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    class _Undefined(StrictUndefined):
        """Names what is missing as the template wrote it: `steps.x`, `steps.a.colour`."""

        __slots__ = ()

        @property
        def _undefined_message(self) -> str:
            obj, name = self._undefined_obj, self._undefined_name
            if isinstance(obj, Steps):
                ran = ", ".join(sorted(obj)) or "none yet"
                return f"steps.{name} is undefined: no step {name!r} has run (ran: {ran})"
            if isinstance(obj, StepView):
                return f"steps.{obj.sid}.{name} is undefined (use status, summary, data, fallback)"
            return super()._undefined_message

    class _Env(SandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**"})

        def call_binop(
            self, context: Context, operator: str, left: object, right: object
        ) -> object:
            _check_size(operator, left, right)
            return super().call_binop(context, operator, left, right)

    return _Env(undefined=_Undefined, autoescape=False, keep_trailing_newline=True)


def _check_size(operator: str, left: object, right: object) -> None:
    from jinja2.exceptions import SecurityError

    if operator == "**":
        if isinstance(right, int | float) and abs(right) > 64:
            raise SecurityError(f"an exponent of {right!r} is too large in a workflow template")
        if isinstance(left, int | float) and abs(left) > 2**64:
            raise SecurityError("a base this large is refused in a workflow template")
        return
    for seq, n in ((left, right), (right, left)):
        if isinstance(seq, str | list | tuple) and isinstance(n, int) and len(seq) * n > MAX_BUILT:
            raise SecurityError(
                f"repeating a value {n:,} times is refused in a workflow template "
                f"(at most {MAX_BUILT:,} items)"
            )


def _describe(exc: Exception) -> str:
    from jinja2.exceptions import TemplateSyntaxError, UndefinedError

    if isinstance(exc, TemplateSyntaxError):
        return f"line {exc.lineno}: {exc.message}"
    if isinstance(exc, UndefinedError):
        return f"undefined: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def parse(text: str) -> nodes.Template:
    """The template's syntax tree, or TemplateError naming the line and the problem."""
    from jinja2.exceptions import TemplateError as JinjaError

    try:
        return environment().parse(text)
    except JinjaError as exc:
        raise TemplateError(_describe(exc)) from None


def step_refs(text: str) -> Iterator[str]:
    """The step ids a template reads (`steps.x…`, `steps['x']…`); TemplateError when it
    does not parse."""
    from jinja2 import nodes

    tree = parse(text)
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        base = node.node
        if not (isinstance(base, nodes.Name) and base.name == "steps"):
            continue
        if isinstance(node, nodes.Getattr):
            yield node.attr
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            yield node.arg.value


@functools.lru_cache(maxsize=512)
def _compiled(text: str) -> Template:
    """A template compiled once per text (a workflow's steps run the same ones again)."""
    return environment().from_string(text)


@functools.lru_cache(maxsize=512)
def _expression(text: str) -> TemplateExpression:
    return environment().compile_expression(text, undefined_to_none=False)


def render(text: str, context: Mapping[str, object]) -> str:
    """`text` rendered over `context` (`args`, `steps`); TemplateError on an undefined
    name (it is named), a refused attribute, a syntax error or a result too long."""
    from jinja2.exceptions import TemplateError as JinjaError

    if "{" not in text:
        return text  # no template syntax: the text as written, at no cost
    try:
        out = _compiled(text).render(context)
    except JinjaError as exc:
        raise TemplateError(_describe(exc)) from None
    except (ArithmeticError, TypeError, ValueError, RecursionError, MemoryError) as exc:
        raise TemplateError(f"{type(exc).__name__}: {exc}") from None
    if len(out) > MAX_RENDER_CHARS:
        raise TemplateError(
            f"rendered to {len(out):,} characters; at most {MAX_RENDER_CHARS:,} are passed on"
        )
    return out


def condition(text: str, context: Mapping[str, object]) -> bool:
    """A `when:` condition: `{{ expr }}` is evaluated as an expression (its truth value),
    any other text is rendered and read as false when empty, false, 0, no, none or off."""
    from jinja2.exceptions import TemplateError as JinjaError

    m = _EXPR_ONLY.match(text)
    if m and "{{" not in m["expr"] and "}}" not in m["expr"]:
        try:
            return bool(_expression(m["expr"])(**context))
        except JinjaError as exc:
            raise TemplateError(_describe(exc)) from None
        except (ArithmeticError, TypeError, ValueError, RecursionError, MemoryError) as exc:
            raise TemplateError(f"{type(exc).__name__}: {exc}") from None
    return render(text, context).strip().lower() not in _FALSE
