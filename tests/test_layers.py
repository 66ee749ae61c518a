"""The house rules of codebot/, read from every module's imports (AST, no import runs).

- no import circle anywhere, counting imports inside functions and under TYPE_CHECKING;
- layers point one way: base -> shell -> skills -> trust -> config -> workspace -> mcp ->
  agent -> ui -> commands -> cli;
- `codebot.shell` (the Bash analyzer) imports nothing of codebot but itself, it alone imports
  tree_sitter, and the Bash decision is made there only;
- inside `skills` and `agent`, a stage imports only the stages before it in the flow;
- no module over 500 lines, counted after `ruff format` (tests/test_style.py forbids packing).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "codebot"

# Each layer may import the layers before it (and itself, through stages below).
LAYERS = [
    (
        "codebot",
        "codebot._exports",
        "codebot.home",
        "codebot.templates",
        "codebot.display",
        "codebot.protected",
        "codebot.protected_watch",
        "codebot.provenance",
        "codebot.environment",
        "codebot.inotify",
        "codebot.units",
        "codebot.regex_cache",
    ),
    ("codebot.shell",),
    ("codebot.skills",),
    ("codebot.trust", "codebot.project_config"),
    ("codebot.config", "codebot.model_config", "codebot.workflow_config"),
    ("codebot.workspace",),
    # MCP sits beside the agent, below it: the agent may use it, never the other way.
    ("codebot.mcp",),
    ("codebot.agent",),
    ("codebot.ui",),
    ("codebot.commands",),
    ("codebot.cli", "codebot.__main__"),
]
# Stages inside a layer, in the order of the flow; modules directly in the layer's package
# (skills.validate, skills.trace) come after every stage. `skills.outcome` (the Outcome
# record every stage and layer carries) imports nothing of codebot: it ranks first.
STAGES = {
    "codebot.skills": (
        "outcome",
        "files",
        "catalog",
        "watch",
        "invoke",
        "route",
        "prompt",
        "workflow",
    ),
    "codebot.agent": ("model", "tools", "permissions", "hooks", "session"),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def exports_of(package: str) -> dict[str, str]:
    """A stage package's lazy re-export table (`_EXPORTS`), read from its source."""
    path = MODULES.get(package)
    if path is None or path.name != "__init__.py":
        return {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "_EXPORTS" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    return {}


def imports_of(name: str) -> set[str]:
    """The codebot modules `name` imports, resolved to the module that defines each name."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            exports = exports_of(base)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    found.add(f"{base}.{alias.name}")
                elif alias.name in exports:
                    found.add(f"{base}.{exports[alias.name]}")
                else:
                    found.add(base)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: imports_of(name) for name in MODULES}


def rank(name: str) -> tuple[int, int]:
    """(layer, stage) of a module; a module may import only modules of a lower rank."""
    if name == "codebot":
        return 0, 0
    for i, layer in enumerate(LAYERS):
        for top in layer:
            if top != "codebot" and (name == top or name.startswith(top + ".")):
                stages = STAGES.get(top, ())
                rest = name[len(top) + 1 :].split(".")[0] if name != top else ""
                return i, stages.index(rest) if rest in stages else len(stages)
    raise AssertionError(f"{name} belongs to no layer: add it to LAYERS in tests/test_layers.py")


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        rank(name)


def test_imports_follow_the_flow() -> None:
    against = []
    for name, deps in GRAPH.items():
        for dep in deps:
            if rank(dep) > rank(name) and not name.startswith(dep + "."):
                against.append(f"{name} imports {dep}")
    assert against == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_circles() -> None:
    assert cycles(GRAPH) == []


def test_the_circle_finder_finds_circles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize(
    "bad",
    [
        ("codebot.skills.files.spec", "codebot.skills.catalog.catalog"),
        ("codebot.skills.route.router", "codebot.skills.prompt.listing"),
        ("codebot.skills.files.parse", "codebot.agent.tools.base"),
        ("codebot.skills.catalog.index", "codebot.config"),
        ("codebot.agent.tools.shell", "codebot.agent.permissions.approvals"),
        ("codebot.commands.skills", "codebot.cli"),
        ("codebot.agent.session.loop", "codebot.ui.commands"),
    ],
)
def test_the_flow_rule_refuses_backward_imports(bad: tuple[str, str]) -> None:
    src, dep = bad
    assert rank(dep) > rank(src)


def test_skills_never_import_agent_ui_or_config() -> None:
    bad = [
        f"{n} imports {d}"
        for n, ds in GRAPH.items()
        if n.startswith("codebot.skills")
        for d in ds
        if d.startswith(("codebot.agent", "codebot.ui", "codebot.config"))
    ]
    assert bad == []


def _in_shell(name: str) -> bool:
    return name == "codebot.shell" or name.startswith("codebot.shell.")


def test_the_shell_imports_nothing_of_codebot_but_itself() -> None:
    """`codebot.shell` stands alone (`codebot._exports` is the lazy re-export helper)."""
    bad = [
        f"{n} imports {d}"
        for n, ds in GRAPH.items()
        if _in_shell(n)
        for d in ds
        if not _in_shell(d) and d != "codebot._exports"
    ]
    assert bad == []


def test_only_the_shell_imports_tree_sitter() -> None:
    users = set()
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(m.split(".")[0] in ("tree_sitter", "tree_sitter_bash") for m in mods):
                users.add(name)
    assert users and all(_in_shell(n) for n in users), users


def test_the_bash_decision_is_made_only_in_the_shell() -> None:
    """One order of deny/ask/allow for Bash (`codebot.shell.check_bash`): no module outside
    codebot/shell defines `check_bash`, `decide_bash`, `bash_check`, ... or holds the
    matchers' decision order itself."""
    decision = re.compile(
        r"_*((check|decide|decision|verdict)_?bash|bash_?(check|decide|decision|verdict))\w*"
    )
    bad = []
    for name, path in MODULES.items():
        if _in_shell(name):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and decision.fullmatch(
                node.name.lower()
            ):
                bad.append(f"{name}.{node.name}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("codebot.shell"):
                bad.extend(
                    f"{name} imports {a.name}"
                    for a in node.names
                    if a.name == "needs_asking_under_deny"
                )
    assert bad == []


# Modules being split in this change; the list empties as each split lands.
_SPLITTING: set[str] = set()  # modules allowed over the cap while being split: none


def test_no_module_over_500_lines() -> None:
    big = {
        n: c
        for n, p in MODULES.items()
        if (c := len(p.read_text(encoding="utf-8").splitlines())) > 500 and n not in _SPLITTING
    }
    assert big == {}


def test_stage_exports_name_real_objects() -> None:
    """Every lazily re-exported name is defined (or imported) in the module it points at."""
    missing = []
    for package in MODULES:
        for name, inner in exports_of(package).items():
            src = MODULES.get(f"{package}.{inner}")
            if src is None or name not in src.read_text(encoding="utf-8"):
                missing.append(f"{package}.{name} -> {inner}")
    assert missing == []


def test_stage_exports_point_at_the_defining_module() -> None:
    """A lazy export must load the module that defines the name, not one that re-exports it:
    `Change` through `catalog.py` pulled the parser and PyYAML in before the TUI's first paint."""
    wrong = []
    for package in MODULES:
        for name, inner in exports_of(package).items():
            src = MODULES.get(f"{package}.{inner}")
            if src is None:
                continue
            tree = ast.parse(src.read_text(encoding="utf-8"))
            defined = {
                n.name
                for n in tree.body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            }
            defined |= {
                t.id
                for n in tree.body
                if isinstance(n, ast.Assign)
                for t in n.targets
                if isinstance(t, ast.Name)
            }
            defined |= {
                n.target.id
                for n in tree.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
            }
            if name not in defined:
                wrong.append(f"{package}.{name} -> {inner}")
    assert wrong == []


def classes_named(name: str) -> list[tuple[str, ast.ClassDef]]:
    return [
        (module, node)
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name == name
    ]


def base_names(node: ast.ClassDef) -> list[str]:
    """`App[int]` -> `App`, `textual.app.App` -> `App`."""
    names = []
    for base in node.bases:
        while isinstance(base, ast.Subscript):
            base = base.value
        names.append(base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "?"))
    return names


@pytest.mark.parametrize(
    ("name", "allowed"),
    [("Session", []), ("CodebotApp", ["App"])],
)
def test_the_session_and_the_app_have_collaborators_not_mixins(
    name: str, allowed: list[str]
) -> None:
    """Parts are passed in and declared in constructors; a mixin's attributes are declared
    nowhere, which is what made the loop and the app hard to read and to type-check."""
    found = classes_named(name)
    assert len(found) == 1, f"one class {name} in codebot/, found {[m for m, _ in found]}"
    assert base_names(found[0][1]) == allowed


def test_no_mixin_classes() -> None:
    mixins = [
        f"{module}.{node.name}"
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin")
    ]
    assert mixins == []
