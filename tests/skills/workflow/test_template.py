"""Workflow templates: a sandbox that cannot be left, cannot run for ever and cannot
build huge values; undefined names are named."""

from __future__ import annotations

import pytest

from codebot.skills.workflow.template import (
    Steps,
    StepView,
    TemplateError,
    condition,
    render,
    step_refs,
)

CTX = {
    "args": "web api",
    "steps": Steps(
        a=StepView(
            "a",
            {
                "status": "success",
                "summary": "x" * 1000,
                "data": {"items": [1, 2, 3], "keys": "k", "n": 7},
                "fallback": None,
            },
        )
    ),
}


@pytest.mark.parametrize(
    ("template", "out"),
    [
        ("{{ args }}", "web api"),
        ("{{ steps.a.data | tojson }}", '{"items": [1, 2, 3], "keys": "k", "n": 7}'),
        ("{{ steps.a.data.items | join(',') }}", "1,2,3"),  # the key, not dict.items
        ("{{ steps.a.data['keys'] }}", "k"),
        ("{% for i in steps.a.data.items %}[{{ i }}]{% endfor %}", "[1][2][3]"),
        ("{% if steps.a.status == 'success' %}yes{% endif %}", "yes"),
        ("{{ steps.a.summary | length }} {{ args | upper }}", "1000 WEB API"),
        ("{{ steps.a.data.n * 6 }}", "42"),
        ("plain text, no template", "plain text, no template"),
    ],
)
def test_what_templates_may_do(template: str, out: str) -> None:
    assert render(template, CTX) == out


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("{{ ''.__class__ }}", "unsafe"),
        ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "unsafe"),
        ("{{ steps.__class__.__init__.__globals__ }}", "unsafe"),
        ("{{ args.ljust(1000000000) }}", "unsafe"),  # no method calls at all
        ("{{ args.format(x=1) }}", "unsafe"),
        ("{{ 'x' * 1000000000 }}", "refused"),
        ("{{ ('x' * 1000) * 1000 }}", "refused"),
        ("{{ 9 ** 999 }}", "too large"),
        ("{{ '%1000000000s' % 'x' }}", "not allowed"),
        ("{{ steps.a.summary | list | join('y' * 1000) }}", "separator"),
        ("{{ 'x' | center(1000000000) }}", "filter named 'center'"),
        ("{{ 'x' | indent(1000000000) }}", "filter named 'indent'"),
        ("{{ range(10) }}", "undefined"),
        ("{{ lipsum() }}", "undefined"),
        ("{% set x = 1 %}", "assign is not allowed"),
        ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "macro is not allowed"),
        ("{% include 'x' %}", "include is not allowed"),
        ("{% for a in args %}{% for b in args %}{% endfor %}{% endfor %}", "for inside a for"),
        ("{{ " + " ~ ".join(["args"] * 65) + " }}", "names are read"),
        ("{% for x in args recursive %}{{ loop(x) }}{% endfor %}", "recursive for"),
        ("{{ [[1], [2]] | sum(start=[]) }}", "filter named 'sum'"),
        ("{% for i in steps.a.summary %}" + "{{ steps.a.summary }}" + "{% endfor %}", "more than"),
        ("{{ steps.nope.status }}", "steps.nope is undefined: no step 'nope' has run (ran: a)"),
        ("{{ steps.a.colour }}", "steps.a.colour is undefined"),
        ("{{ nope }}", "'nope' is undefined"),
        ("{{ ", "line 1"),
    ],
)
def test_what_templates_may_not_do(template: str, words: str) -> None:
    with pytest.raises(TemplateError) as err:
        render(template, CTX)
    assert words in str(err.value)


def test_conditions() -> None:
    assert condition("{{ steps.a.status == 'success' }}", CTX) is True
    assert condition("{{ steps.a.data.n > 10 }}", CTX) is False
    assert condition("{{ steps.a.data.missing is defined }}", CTX) is False
    assert condition("{% if false %}x{% endif %}", CTX) is False
    assert condition("yes", CTX) is True and condition(" off ", CTX) is False
    with pytest.raises(TemplateError, match=r"steps\.b is undefined"):
        condition("{{ steps.b.status == 'success' }}", CTX)
    with pytest.raises(TemplateError, match="unsafe"):
        condition("{{ ''.__class__ }}", CTX)


def test_refs_are_found_and_forbidden_templates_are_refused_statically() -> None:
    assert sorted(step_refs("{{ steps.a.data }} {{ steps['b-c'].status }}")) == ["a", "b-c"]
    with pytest.raises(TemplateError, match="assign"):
        list(step_refs("{% set steps = 1 %}"))
