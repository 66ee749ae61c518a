"""Workflow templates: jinja2 in a sandbox, with `StrictUndefined`, over `args` and
`steps.<id>.status|summary|data|fallback`. The result is text handed to a skill as its
arguments (or a `when:` condition); nothing here reaches a shell.

Narrower than jinja2's own sandbox, so a template can neither leave it nor run for ever:
- no attribute outside it (`''.__class__`) and no method call at all (`'x'.ljust(10**9)`):
  a mapping's keys are read first (`steps.a.data.items` is the key `items`), filters do
  the rest;
- statements: `if` and `for` only, and no `for` inside a `for` (no `set`, `macro`, `call`,
  `include`, `import`…); no globals (`range`, `lipsum`, `namespace`, …);
- the filters whose output grows with their input only (`tojson`, `join`, `lower`,
  `default`, `map`, `select`, …; not `center`, `indent`, `format`, `replace`, `batch`);
  `join`'s result, `*` (`'x' * 10**9`), `**` (`9**99**9`) and `%` on text are checked;
- at most `MAX_REFS` names read per template, and the output is cut off (an error) past
  `MAX_RENDER_CHARS` as it is produced.

The engine renders through `render_off_loop` / `condition_off_loop`: a template with
any `{` runs in a worker thread (over a snapshot of `steps`), so even a render that uses
its whole `MAX_RENDER_S` on hostile step data never freezes the event loop (the UI).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jinja2 import nodes
    from jinja2.environment import Template
    from jinja2.runtime import Context
    from jinja2.sandbox import SandboxedEnvironment

#: The longest text a template may render, and the largest value `*`/`join` may build.
MAX_RENDER_CHARS = 200_000
MAX_BUILT = 100_000
#: Names a template may read (`steps`, `args`, a loop's variable): it bounds what one
#: expression can concatenate.
MAX_REFS = 64
#: Seconds of loop work one render may take, and the loop turns it may make in all: a
#: `for` over a step's data (which the model chose) is the one construct whose work can
#: multiply, so each turn is counted and the clock checked.
MAX_RENDER_S = 2.0
MAX_TURNS = 100_000
_BOUNDED = "_codebot_bounded"
#: The filters a template may use: their output grows with their input only.
_FILTER_NAMES = """
    abs attr capitalize count d default dictsort e escape first float groupby int items join
    last length list lower map max min reject rejectattr reverse round select selectattr
    sort string striptags title tojson trim truncate unique upper urlencode wordcount
"""
FILTERS = frozenset(_FILTER_NAMES.split())
_EXPR_ONLY = re.compile(r"^\s*\{\{(?P<expr>.*)\}\}\s*$", re.DOTALL)
_FALSE = {"", "false", "0", "no", "none", "off"}


class TemplateError(ValueError):
    """A template that does not parse, is not allowed or does not render; the message
    says why."""


class Steps(dict[str, "StepView"]):
    """`steps` in a template: each step that ran (or was skipped) by id."""


class StepView(dict[str, object]):
    """`steps.<id>`: status, summary, data, fallback (a dict, so `tojson` takes it)."""

    def __init__(self, sid: str, values: Mapping[str, object]) -> None:
        super().__init__(values)
        self.sid = sid


def _refuse(message: str) -> None:
    from jinja2.exceptions import SecurityError

    raise SecurityError(message)


def _join(join: Callable[..., str]) -> Callable[..., str]:
    def checked(ctx: object, value: Iterable[object], d: str = "", attribute: object = None) -> str:
        items = list(value)
        if len(items) * len(d) > MAX_BUILT:
            _refuse(f"join with a {len(d):,}-character separator over {len(items):,} items")
        return join(ctx, items, d, attribute)

    checked.jinja_pass_arg = join.jinja_pass_arg  # type: ignore[attr-defined]
    return checked


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
        intercepted_binops = frozenset({"*", "**", "%"})

        def is_safe_attribute(self, obj: object, attr: str, value: object) -> bool:
            return not callable(value) and super().is_safe_attribute(obj, attr, value)

        def wrap_str_format(self, value: object) -> None:
            return None  # `str.format` is a method call like any other: refused

        def getattr(self, obj: object, attribute: str) -> object:
            if isinstance(obj, Mapping) and attribute in obj:
                return obj[attribute]  # `steps.a.data.items`: the key, not the method
            return super().getattr(obj, attribute)

        def call_binop(
            self, context: Context, operator: str, left: object, right: object
        ) -> object:
            _check_size(operator, left, right)
            return super().call_binop(context, operator, left, right)

    env = _Env(undefined=_Undefined, autoescape=False, keep_trailing_newline=True)
    env.globals.clear()
    env.filters = {k: v for k, v in env.filters.items() if k in FILTERS}
    env.filters["join"] = _join(env.filters["join"])
    env.filters[_BOUNDED] = _bounded
    return env


#: (deadline, turns left) of the render under way.
_BUDGET: contextvars.ContextVar[list[float]] = contextvars.ContextVar("workflow_render")


def _bounded(items: Iterable[object]) -> Iterator[object]:
    """What every `for` iterates through: each turn is counted against the render's
    budget and checks its clock, so no loop (over the model's data, or `[d] * 1000`)
    can keep the workflow busy for long."""
    budget = _BUDGET.get(None)
    for item in items:
        if budget is not None:
            budget[1] -= 1
            if budget[1] < 0:
                _refuse(f"the template's loops turned more than {MAX_TURNS:,} times")
            if time.monotonic() > budget[0]:
                _refuse(f"the template's loops ran for more than {MAX_RENDER_S:g} s")
        yield item


def _check_size(operator: str, left: object, right: object) -> None:
    if operator == "%":
        if isinstance(left, str):
            _refuse("text formatting with % is not allowed in a workflow template; use ~")
        return
    if operator == "**":
        if isinstance(right, int | float) and abs(right) > 64:
            _refuse(f"an exponent of {right!r} is too large in a workflow template")
        if isinstance(left, int | float) and abs(left) > 2**64:
            _refuse("a base this large is refused in a workflow template")
        return
    for seq, n in ((left, right), (right, left)):
        if isinstance(seq, str | list | tuple) and isinstance(n, int) and len(seq) * n > MAX_BUILT:
            _refuse(
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


def _allowed(tree: nodes.Template) -> None:
    """TemplateError unless the tree keeps to what workflow templates may do."""
    from jinja2 import nodes

    for node in tree.find_all(nodes.Stmt):
        if not isinstance(node, nodes.Output | nodes.If | nodes.For):
            kind = type(node).__name__.lower()
            raise TemplateError(
                f"line {node.lineno}: {kind} is not allowed in a workflow template "
                "(only if and for)"
            )
    for loop in tree.find_all(nodes.For):
        if loop.recursive:
            raise TemplateError(f"line {loop.lineno}: a recursive for is not allowed")
        inner = next(loop.find_all(nodes.For), None)
        if inner is not None:
            raise TemplateError(f"line {inner.lineno}: a for inside a for is not allowed")
    refs = sum(1 for n in tree.find_all(nodes.Name) if n.ctx == "load")
    if refs > MAX_REFS:
        raise TemplateError(f"{refs} names are read; a workflow template may read {MAX_REFS}")


def parse(text: str) -> nodes.Template:
    """The template's syntax tree, or TemplateError naming the line and the problem (a
    syntax error, or something workflow templates may not do)."""
    from jinja2.exceptions import TemplateError as JinjaError

    try:
        tree = environment().parse(text)
    except JinjaError as exc:
        raise TemplateError(_describe(exc)) from None
    _allowed(tree)
    return tree


def step_refs(text: str) -> Iterator[str]:
    """The step ids a template reads (`steps.x…`, `steps['x']…`); TemplateError when it
    does not parse or is not allowed."""
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
    """A template checked and compiled once per text (a workflow's steps run the same
    ones again)."""
    from jinja2 import nodes

    tree = parse(text)
    for loop in tree.find_all(nodes.For):
        loop.iter = nodes.Filter(loop.iter, _BOUNDED, [], [], None, None, lineno=loop.lineno)
    return environment().from_string(tree)


def _produce(text: str, context: Mapping[str, object]) -> str:
    out: list[str] = []
    size = 0
    token = _BUDGET.set([time.monotonic() + MAX_RENDER_S, float(MAX_TURNS)])
    try:
        for chunk in _compiled(text).generate(context):
            size += len(chunk)
            if size > MAX_RENDER_CHARS:
                raise TemplateError(f"renders to more than {MAX_RENDER_CHARS:,} characters")
            out.append(chunk)
    finally:
        _BUDGET.reset(token)
    return "".join(out)


def render(text: str, context: Mapping[str, object]) -> str:
    """`text` rendered over `context` (`args`, `steps`); TemplateError on an undefined
    name (it is named), a refused attribute or construct, a syntax error or a result too
    long."""
    from jinja2.exceptions import TemplateError as JinjaError

    if "{" not in text:
        return text  # no template syntax: the text as written, at no cost
    try:
        return _produce(text, context)
    except JinjaError as exc:
        raise TemplateError(_describe(exc)) from None
    except (ArithmeticError, TypeError, ValueError, RecursionError, MemoryError) as exc:
        if isinstance(exc, TemplateError):
            raise
        raise TemplateError(f"{type(exc).__name__}: {exc}") from None


def condition(text: str, context: Mapping[str, object]) -> bool:
    """A `when:` condition: `{{ expr }}` is its truth value (rendered as `{% if expr %}`),
    any other text is rendered and read as false when empty, false, 0, no, none or off."""
    m = _EXPR_ONLY.match(text)
    if m and "{{" not in m["expr"] and "}}" not in m["expr"] and "%}" not in m["expr"]:
        return render(f"{{% if {m['expr']} %}}1{{% endif %}}", context) == "1"
    return render(text, context).strip().lower() not in _FALSE


def _snapshot(context: Mapping[str, object]) -> dict[str, object]:
    """The context as the thread reads it: `steps` copied, so the loop may record another
    step while a render runs."""
    out = dict(context)
    steps = out.get("steps")
    if isinstance(steps, Steps):
        out["steps"] = Steps(steps)
    return out


async def render_off_loop(text: str, context: Mapping[str, object]) -> str:
    """`render` in a worker thread (text without `{` is returned at once, on the loop)."""
    if "{" not in text:
        return text
    return await asyncio.to_thread(render, text, _snapshot(context))


async def condition_off_loop(text: str, context: Mapping[str, object]) -> bool:
    """`condition` in a worker thread."""
    return await asyncio.to_thread(condition, text, _snapshot(context))
