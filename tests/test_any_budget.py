"""`Any` only at true boundaries: every use of `typing.Any` in codebot/ is counted per module.

Counted (AST, nothing is imported): the name `Any` bound by `from typing import Any` (also
under another name, from `typing_extensions`, or by a star import), the attribute `Any` of a
module imported as `typing`/`typing_extensions` (under any name), and the same inside string
annotations and the string type of `cast(...)`. A module may use `Any` only as often as
`ALLOWED` says, with the reason its values are a boundary (parsed YAML/JSON before validation,
raw model/provider payloads, Textual's generic workers and messages, `**kwargs` passed on to a
library). The list only shrinks: an entry whose module is gone or now uses fewer is stale.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "codebot"
TYPING_MODULES = frozenset({"typing", "typing_extensions"})

# reasons shared by many modules
MODEL = "chat messages, tool schemas or tool-call arguments in provider JSON (model payloads)"
ARGS = "tool-call arguments as the model sent them (model payload)"

# module: (most uses of Any allowed, why its values are a boundary; "not typed yet"
# marks what is left to type, and why it was not done here)
ALLOWED: dict[str, tuple[int, str]] = {
    "codebot.skills.outcome": (
        5,
        "a skill's result data: JSON the sub-agent reported, validated against `outputs:`",
    ),
    "codebot.agent.model.server_window": (
        13,
        "JSON answers of a local server (/props, /v1/models, /api/show) before validation",
    ),
    "codebot.agent.session.fitting": (
        2,
        "the client (optional count_tokens/learn_server) and chat messages (model payloads)",
    ),
    "codebot.commands.plugin": (
        2,
        "argparse's subparsers object and JSON rows printed with --json",
    ),
    "codebot.mcp.sep2640": (
        7,
        "a skill's frontmatter as parsed JSON, JSON-RPC params, and the SDK's generic "
        "server/context and capability types (its lifespan value, its capability dicts)",
    ),
    "codebot.mcp.serve": (
        2,
        "the SDK's generic server and request context (a lifespan value this server has not)",
    ),
    "codebot.model_config": (
        4,
        "the config's parsed YAML before validation, and the keyword arguments built from it",
    ),
    "codebot.skills.catalog.plugins": (
        4,
        "a plugin manifest's parsed JSON before validation (somebody else's file)",
    ),
    "codebot.skills.files.command_file": (
        2,
        "a command file's parsed frontmatter (YAML) and the fields made of it",
    ),
    "codebot.ui.init_draft": (
        1,
        "parsed pyproject.toml tables (TOML) before use",
    ),
    "codebot.ui.init_survey": (
        6,
        "parsed pyproject.toml / package.json / Cargo.toml before use (repository files)",
    ),
    "codebot._exports": (
        2,
        "the lazy export table's module __getattr__ returns whatever name is exported",
    ),
    "codebot.agent.model.client": (
        23,
        "litellm's stream objects and raw chunks of either path (provider payloads)",
    ),
    "codebot.agent.model.direct": (
        4,
        "request bodies and stream chunks (provider JSON payloads)",
    ),
    "codebot.agent.model.litellm_wire": (
        7,
        "the litellm module itself and acompletion's keyword arguments",
    ),
    "codebot.agent.model.wire_anthropic": (
        21,
        "chat messages, tool definitions and Messages stream events (provider JSON payloads)",
    ),
    "codebot.agent.model.wire_openai": (
        5,
        "chat messages and stream chunks (provider JSON payloads)",
    ),
    "codebot.agent.model.offline": (
        8,
        MODEL + "; a snapshot getter found by introspection",
    ),
    "codebot.agent.model.protocol": (
        3,
        MODEL,
    ),
    "codebot.agent.model.scripted": (
        4,
        "scripted replies stand in for provider payloads in tests",
    ),
    "codebot.agent.model.summary": (
        3,
        MODEL,
    ),
    "codebot.agent.model.tokens": (
        1,
        MODEL,
    ),
    "codebot.agent.permissions.approvals": (
        3,
        ARGS,
    ),
    "codebot.agent.session.asking": (
        2,
        ARGS,
    ),
    "codebot.agent.session.compact": (
        10,
        MODEL + "; compaction records read back from transcript JSON",
    ),
    "codebot.agent.session.compacting": (
        2,
        MODEL,
    ),
    "codebot.agent.session.context": (
        9,
        MODEL
        + "; not typed yet: resolve_window's settings and client (area of the local-models work)",
    ),
    "codebot.agent.session.events": (
        2,
        ARGS + "; a skill's delta, shown and written as JSON",
    ),
    "codebot.agent.session.images": (
        8,
        "chat messages with content parts (model payloads)",
    ),
    "codebot.agent.session.hook_calls": (
        2,
        ARGS + ", passed on to hooks as JSON",
    ),
    "codebot.agent.session.loop": (
        5,
        MODEL,
    ),
    "codebot.agent.session.parts": (
        1,
        "the chat history in provider JSON (model payload)",
    ),
    "codebot.agent.session.setup_record": (
        2,
        "the setup record written to and read back from transcript JSON",
    ),
    "codebot.agent.session.skill_calls": (
        1,
        ARGS,
    ),
    "codebot.agent.session.skill_runs": (
        1,
        "a transcript record written as JSON",
    ),
    "codebot.agent.session.state": (
        1,
        "the chat history in provider JSON (model payload)",
    ),
    "codebot.agent.session.tool_runs": (
        6,
        ARGS,
    ),
    "codebot.agent.session.outcomes": (
        1,
        "the SkillOutcome tool's schema, sent to the provider (JSON Schema)",
    ),
    "codebot.agent.session.toolset": (
        3,
        "tool schemas sent to the provider (JSON Schema)",
    ),
    "codebot.agent.session.transcript": (
        16,
        "transcript records read back from JSON and chat messages in provider JSON, cleaned "
        "of bad characters whatever their shape",
    ),
    "codebot.agent.session.turn": (
        8,
        "skills and tool_calls are JSON records; not typed yet: `parent` is the Session, whose "
        "import would close a circle (needs a Protocol)",
    ),
    "codebot.agent.tools.base": (
        14,
        ARGS + "; the tools' JSON Schemas",
    ),
    "codebot.agent.tools.files": (
        4,
        ARGS,
    ),
    "codebot.agent.tools.meta": (
        4,
        "tool schemas and tool-call arguments (JSON Schema, model payload)",
    ),
    "codebot.agent.tools.sandbox_scan": (
        4,
        "not typed yet: permission rules (the permissions stage comes after tools: needs a "
        "Protocol)",
    ),
    "codebot.agent.tools.search": (
        2,
        ARGS,
    ),
    "codebot.agent.tools.mcp_tools": (
        9,
        "MCP tool arguments and input schemas (a server's JSON payloads)",
    ),
    "codebot.mcp.live_servers": (
        4,
        "the SDK's session and its prompt listings (JSON-RPC payloads)",
    ),
    "codebot.mcp.prompts": (
        2,
        "a server's prompt messages and content parts (JSON payloads)",
    ),
    "codebot.mcp.remote": (
        4,
        "a server's tool definitions and call results as the SDK gives them (JSON payloads)",
    ),
    "codebot.mcp.session_skills": (
        5,
        "the SDK's session and its notifications (JSON-RPC payloads)",
    ),
    "codebot.mcp.session_servers": (
        2,
        "the SDK's message handler and a tool call's arguments (JSON-RPC payloads)",
    ),
    "codebot.agent.tools.shell": (
        2,
        ARGS,
    ),
    "codebot.commands.route": (
        3,
        "eval reports as JSON (built by skills.route.eval, printed with --json)",
    ),
    "codebot.commands.skills": (
        3,
        "JSON reports printed with --json",
    ),
    "codebot.commands.trust": (
        2,
        "parsed YAML being edited, before validation",
    ),
    "codebot.commands.watch": (
        1,
        "the previous handler signal.signal returns (typeshed's private _HANDLER)",
    ),
    "codebot.config": (
        21,
        "parsed YAML before validation (config.py is being edited by other work: left alone)",
    ),
    "codebot.home": (
        2,
        "**kwargs passed on to open(), and the IO it returns",
    ),
    "codebot.provenance": (
        4,
        "the provenance file's JSON, read back before validation",
    ),
    "codebot.shell.checks": (
        2,
        "tree-sitter cursor nodes (its stubs say Optional; typing them would change the Bash "
        "analyzer)",
    ),
    "codebot.skills.catalog.index": (
        12,
        "index entries decoded from the file (marshal): read inside a try, "
        "a damaged one is a miss (what a file holds is only known after the checks)",
    ),
    "codebot.skills.catalog.index_codec": (
        12,
        "spec rows stored in and read back from the index file; a wrong "
        "shape raises and is a miss; `plain` takes any frontmatter value",
    ),
    "codebot.skills.files.spec": (
        1,
        "Diagnostic.from_json reads the index's JSON (its caller treats any error as a miss)",
    ),
    "codebot.skills.invoke.invocation": (
        3,
        "a delta written as JSON; argument values typed by a JSON Schema at run time",
    ),
    "codebot.skills.route.index.npy": (
        1,
        "an array mapped from a .npy file: its dtype is a run-time string",
    ),
    "codebot.skills.route.index.store": (
        1,
        "arrays read back from .npy files, their dtype checked at run time",
    ),
    "codebot.skills.spec_verdict": (
        3,
        "parsed frontmatter YAML before validation",
    ),
    "codebot.templates": (
        1,
        "**context passed on to the template engine",
    ),
    "codebot.ui.calls": (
        1,
        ARGS,
    ),
    "codebot.ui.resume_view": (
        9,
        "chat messages and transcript records in provider JSON",
    ),
    "codebot.ui.transcript_view": (
        6,
        "transcript records read back from JSON",
    ),
    "codebot.ui.tui": (
        1,
        "Textual's generic App result in a Future",
    ),
    "codebot.ui.tui.conversation": (
        2,
        "**kwargs passed on to a Textual widget; the dispatch table's handlers each take "
        "their own event type (chosen by isinstance)",
    ),
    "codebot.ui.tui.describe": (
        1,
        ARGS,
    ),
    "codebot.ui.tui.startup": (
        2,
        "Textual's generic App and Worker",
    ),
    "codebot.ui.tui.toasts": (
        2,
        "Textual's app and screen callbacks",
    ),
    "codebot.ui.tui.turns": (
        1,
        "Textual's generic App",
    ),
    "codebot.ui.tui.views": (
        1,
        "Textual's generic App",
    ),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _bindings(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names bound to `Any` and the names bound to the typing modules, anywhere."""
    any_names: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in TYPING_MODULES:
            for alias in node.names:
                if alias.name in ("Any", "*"):
                    any_names.add(alias.asname or "Any")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in TYPING_MODULES:
                    modules.add(alias.asname or alias.name)
    return any_names, modules


def _string_types(tree: ast.Module) -> Iterator[str]:
    """Strings used as types: annotations (at any depth) and the first argument of cast()."""
    roots: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            roots.append(node.returns)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name == "cast":
                roots.append(node.args[0])
    for root in roots:
        for sub in ast.walk(root):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                yield sub.value


def _is_any(node: ast.AST, any_names: set[str], modules: set[str]) -> bool:
    """`Any` as bound by an import, or `typing.Any` through a name bound to the module."""
    if isinstance(node, ast.Name):
        return node.id in any_names
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "Any"
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
    )


def _count_in(tree: ast.AST, any_names: set[str], modules: set[str]) -> int:
    return sum(_is_any(node, any_names, modules) for node in ast.walk(tree))


def _count_in_string(text: str, any_names: set[str], modules: set[str]) -> int:
    """Uses inside a string type, and inside the strings nested in it."""
    try:
        inner = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return 0
    count = _count_in(inner, any_names, modules)
    for sub in ast.walk(inner):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            count += _count_in_string(sub.value, any_names, modules)
    return count


def count_any(source: str) -> int:
    """How many times `source` uses `typing.Any` (imports themselves are not uses)."""
    tree = ast.parse(source)
    any_names, modules = _bindings(tree)
    count = _count_in(tree, any_names, modules)
    for text in _string_types(tree):
        count += _count_in_string(text, any_names, modules)
    return count


def current_counts() -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in sorted(PKG.rglob("*.py")):
        found = count_any(path.read_text(encoding="utf-8"))
        if found:
            counts[module_name(path)] = found
    return counts


def budget_problems(
    counts: Mapping[str, int], allowed: Mapping[str, tuple[int, str]], known: set[str]
) -> list[str]:
    """What is wrong with `counts` against `allowed`; `known` are the modules that exist."""
    problems: list[str] = []
    for module, found in sorted(counts.items()):
        if module not in allowed:
            problems.append(
                f"{module} uses Any {found} time(s) and is not in ALLOWED of "
                "tests/test_any_budget.py: give the values a real type (dataclass, TypedDict, "
                "Protocol, Mapping[str, object]), or add the module with why it is a boundary"
            )
        elif found > allowed[module][0]:
            problems.append(
                f"{module} uses Any {found} time(s), ALLOWED says at most {allowed[module][0]}: "
                "type the new value, or raise the number and say in the reason why it is a "
                "boundary"
            )
    for module, (most, _why) in sorted(allowed.items()):
        if module not in known:
            problems.append(f"ALLOWED lists {module}, which no longer exists: remove the entry")
        elif counts.get(module, 0) < most:
            problems.append(
                f"ALLOWED lets {module} use Any {most} time(s) but it uses "
                f"{counts.get(module, 0)}: lower the entry (remove it at 0), the list only shrinks"
            )
    return problems


def known_modules() -> set[str]:
    return {module_name(path) for path in PKG.rglob("*.py")}


def test_every_module_keeps_its_any_budget() -> None:
    problems = budget_problems(current_counts(), ALLOWED, known_modules())
    assert not problems, "\n".join(problems)


def test_every_allowance_says_why() -> None:
    vague = [m for m, (most, why) in ALLOWED.items() if most < 1 or len(why.split()) < 3]
    assert not vague, f"entries without a count or a reason: {vague}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from typing import Any\nx: Any = 1\n", 1),
        ("from typing import Any\ndef f(a: dict[str, Any]) -> list[Any]: ...\n", 2),
        ("from typing import Any as Whatever\nx: Whatever\n", 1),
        ("from typing_extensions import Any\nx: Any\n", 1),
        ("from typing import *\nx: Any\n", 1),
        ("import typing\nx: typing.Any\n", 1),
        ("import typing as t\nJSON = dict[str, t.Any]\n", 1),
        ("from typing import Any\nPayload = dict[str, Any]\n", 1),
        ("from typing import Any\ndef f(a: 'Any', b: 'list[\"Any\"]') -> 'Any': ...\n", 3),
        ("from typing import Any, cast\ny = cast('dict[str, Any]', x)\n", 1),
        ("from typing import Any\nif True:\n    def g(**kw: Any) -> None: ...\n", 1),
        ("from typing import Any\n", 0),
        ("'''Any value goes.'''\nAnything = 1\nx: 'Anything'\n", 0),
        ("import other\nx: other.Any\n", 0),
        ("from typing import Any\nx: 'not a [type'\n", 0),
    ],
)
def test_counter_counts_each_use(source: str, expected: int) -> None:
    assert count_any(source) == expected


def test_budget_check_can_fail() -> None:
    allowed = {"codebot.a": (2, "parsed YAML before validation"), "codebot.gone": (1, "x y z")}
    counts = {"codebot.a": 3, "codebot.b": 1}
    problems = budget_problems(counts, allowed, {"codebot.a", "codebot.b"})
    assert any("codebot.a uses Any 3" in p and "at most 2" in p for p in problems)
    assert any("codebot.b" in p and "not in ALLOWED" in p for p in problems)
    assert any("codebot.gone" in p and "no longer exists" in p for p in problems)
    lower = budget_problems({"codebot.a": 1}, {"codebot.a": (2, "w")}, {"codebot.a"})
    assert lower == [
        "ALLOWED lets codebot.a use Any 2 time(s) but it uses 1: lower the entry "
        "(remove it at 0), the list only shrinks"
    ]
    assert budget_problems({"codebot.a": 2}, {"codebot.a": (2, "w")}, {"codebot.a"}) == []
