"""Generate realistic directory-form skills for benchmarks.

    from bench.gen_skills import generate
    generate(Path("/tmp/skills"), 1000, seed=0)

writes `<root>/<name>/SKILL.md` for 1000 skills whose frontmatter and bodies look like the
ones people publish: a name, a one-to-three-sentence description drawn from a domain
(git, testing, docker, kubernetes, pdf, data science, frontend, security, writing, ...),
and sometimes `when_to_use`, `argument-hint`, `allowed-tools`, `metadata` and `license`.
Bodies are 20-300 lines of markdown (headings, steps, bullet lists, code fences). Some
skills have a `scripts/` or `references/` folder with one file. The output depends only
on `n` and `seed`.

Run as a script to write a corpus: `python bench/gen_skills.py DIR N [SEED]`.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

# domain -> (name words, objects, verbs, tools, languages for code fences)
DOMAINS: dict[str, dict[str, list[str]]] = {
    "git": {
        "names": [
            "git",
            "commit",
            "branch",
            "rebase",
            "merge",
            "changelog",
            "release",
            "bisect",
            "pr",
        ],
        "objects": [
            "commit messages",
            "feature branches",
            "merge conflicts",
            "pull requests",
            "release tags",
            "the changelog",
            "interactive rebases",
            "git history",
            "cherry-picks",
            "stale branches",
        ],
        "verbs": [
            "write",
            "clean up",
            "resolve",
            "review",
            "squash",
            "summarize",
            "bisect",
            "rewrite",
        ],
        "tools": ["Bash(git:*)", "Bash(gh pr:*)", "Read", "Grep"],
        "langs": ["bash"],
    },
    "testing": {
        "names": ["pytest", "test", "coverage", "tdd", "fixtures", "snapshot", "e2e", "flaky"],
        "objects": [
            "unit tests",
            "pytest fixtures",
            "flaky tests",
            "coverage reports",
            "snapshot tests",
            "integration suites",
            "property-based tests",
            "mocks",
            "end-to-end tests with Playwright",
        ],
        "verbs": ["write", "fix", "speed up", "debug", "parametrize", "triage", "generate"],
        "tools": ["Bash(pytest:*)", "Bash(npm test:*)", "Read", "Edit", "Grep"],
        "langs": ["python", "typescript", "bash"],
    },
    "docker": {
        "names": ["docker", "dockerfile", "compose", "container", "image", "registry"],
        "objects": [
            "Dockerfiles",
            "multi-stage builds",
            "docker compose stacks",
            "container images",
            "image layers",
            "build caches",
            "healthchecks",
            "distroless images",
        ],
        "verbs": ["write", "slim down", "debug", "harden", "optimize", "audit", "containerize"],
        "tools": ["Bash(docker:*)", "Bash(docker compose:*)", "Read", "Write"],
        "langs": ["dockerfile", "yaml", "bash"],
    },
    "kubernetes": {
        "names": ["k8s", "kubernetes", "helm", "kubectl", "manifest", "operator", "ingress"],
        "objects": [
            "Kubernetes manifests",
            "Helm charts",
            "CrashLoopBackOff pods",
            "ingress rules",
            "resource limits",
            "horizontal pod autoscalers",
            "RBAC roles",
            "rolling deployments",
            "kustomize overlays",
        ],
        "verbs": ["deploy", "debug", "write", "lint", "scale", "roll back", "template"],
        "tools": ["Bash(kubectl:*)", "Bash(helm:*)", "Read", "Grep"],
        "langs": ["yaml", "bash"],
    },
    "pdf": {
        "names": ["pdf", "forms", "ocr", "extract", "merge", "document"],
        "objects": [
            "PDF files",
            "fillable PDF forms",
            "scanned documents",
            "tables in PDFs",
            "PDF metadata",
            "page ranges",
            "annotations",
            "invoices",
        ],
        "verbs": ["extract text from", "fill", "merge", "split", "OCR", "redact", "convert"],
        "tools": ["Bash(python:*)", "Read", "Write"],
        "langs": ["python", "bash"],
    },
    "data": {
        "names": ["pandas", "notebook", "eda", "sql", "plot", "stats", "ml", "dataset", "etl"],
        "objects": [
            "pandas DataFrames",
            "CSV and Parquet files",
            "Jupyter notebooks",
            "exploratory data analysis",
            "SQL queries",
            "matplotlib charts",
            "scikit-learn pipelines",
            "time series",
            "A/B test results",
            "feature tables",
        ],
        "verbs": [
            "clean",
            "analyze",
            "visualize",
            "profile",
            "model",
            "join",
            "summarize",
            "validate",
        ],
        "tools": ["Bash(python:*)", "Bash(duckdb:*)", "Read", "Write", "Edit"],
        "langs": ["python", "sql"],
    },
    "frontend": {
        "names": ["react", "css", "tailwind", "component", "a11y", "nextjs", "vite", "ui"],
        "objects": [
            "React components",
            "Tailwind layouts",
            "accessibility issues",
            "Next.js routes",
            "design tokens",
            "form validation",
            "responsive layouts",
            "Storybook stories",
            "bundle size",
        ],
        "verbs": ["build", "refactor", "style", "audit", "test", "migrate", "optimize"],
        "tools": ["Bash(npm:*)", "Bash(pnpm:*)", "Read", "Edit", "Write"],
        "langs": ["tsx", "typescript", "css", "bash"],
    },
    "security": {
        "names": ["security", "secrets", "audit", "cve", "threat", "sast", "auth", "owasp"],
        "objects": [
            "leaked secrets",
            "dependency CVEs",
            "threat models",
            "OWASP Top 10 issues",
            "authentication flows",
            "SQL injection risks",
            "IAM policies",
            "security headers",
            "SBOMs",
        ],
        "verbs": ["scan for", "review", "fix", "triage", "document", "harden", "rotate"],
        "tools": ["Bash(semgrep:*)", "Bash(trivy:*)", "Read", "Grep"],
        "langs": ["bash", "yaml", "python"],
    },
    "writing": {
        "names": ["docs", "readme", "blog", "adr", "writing", "style", "proofread", "memo"],
        "objects": [
            "README files",
            "architecture decision records",
            "blog posts",
            "API docs",
            "release announcements",
            "design docs",
            "meeting notes",
            "user guides",
        ],
        "verbs": ["write", "edit", "proofread", "restructure", "summarize", "tighten", "outline"],
        "tools": ["Read", "Write", "Edit", "WebFetch"],
        "langs": ["markdown"],
    },
    "api": {
        "names": ["api", "openapi", "graphql", "rest", "grpc", "webhook", "client"],
        "objects": [
            "OpenAPI specs",
            "REST endpoints",
            "GraphQL schemas",
            "gRPC services",
            "webhook handlers",
            "rate limits",
            "API clients",
            "pagination",
        ],
        "verbs": ["design", "document", "generate", "validate", "version", "mock", "test"],
        "tools": ["Bash(curl:*)", "Read", "Write", "WebFetch"],
        "langs": ["yaml", "json", "typescript", "python"],
    },
    "cloud": {
        "names": ["aws", "terraform", "gcp", "azure", "iac", "lambda", "s3", "cost"],
        "objects": [
            "Terraform modules",
            "AWS Lambda functions",
            "S3 bucket policies",
            "cloud costs",
            "CloudFormation stacks",
            "VPC layouts",
            "IAM roles",
        ],
        "verbs": ["plan", "review", "write", "reduce", "import", "migrate", "tag"],
        "tools": ["Bash(terraform:*)", "Bash(aws:*)", "Read", "Grep"],
        "langs": ["hcl", "bash", "json"],
    },
    "python": {
        "names": ["python", "typing", "packaging", "async", "profiling", "lint", "refactor"],
        "objects": [
            "type hints",
            "pyproject.toml files",
            "asyncio code",
            "slow Python functions",
            "ruff warnings",
            "legacy modules",
            "CLI tools built with click",
            "dataclasses",
        ],
        "verbs": ["add", "fix", "profile", "refactor", "package", "modernize", "document"],
        "tools": ["Bash(python:*)", "Bash(ruff:*)", "Bash(uv:*)", "Read", "Edit"],
        "langs": ["python", "toml", "bash"],
    },
}

OPENERS = [
    "{Verb} {obj}",
    "Helps you {verb} {obj}",
    "Guides the agent to {verb} {obj}",
    "{Verb} {obj} and {obj2}",
    "Expert workflow to {verb} {obj}",
]
USE_WHEN = [
    "Use when the user asks to {verb} {obj} or mentions {obj2}.",
    "Use this skill when working with {obj}.",
    "Triggers on requests about {obj}, {obj2} or {name_word}.",
    "Use proactively before shipping changes that touch {obj}.",
    "Not for {obj2}; use it only for {obj}.",
]
EXTRA = [
    "Covers common pitfalls and a checklist.",
    "Includes ready-to-run commands and examples.",
    "Works with {lang} projects of any size.",
    "Prefers small, reviewable steps over big rewrites.",
    "Follows the team's conventions when they exist.",
]
WHEN = [
    "When {obj} are involved and correctness matters more than speed.",
    "After a failing CI run that mentions {obj}.",
    "Whenever the user says '{verb} the {name_word}'.",
]
HINTS = [
    "[path]",
    "[file] [--fix]",
    "<target> [options]",
    "[branch-name]",
    "[issue-number]",
    "[query]",
]
AUTHORS = ["platform-team", "jdoe", "acme-devtools", "data-guild", "sec-eng", "docs-crew"]
LICENSES = ["MIT", "Apache-2.0", "Proprietary. LICENSE.txt has complete terms"]
SENTENCES = [
    "Read the relevant files before changing anything.",
    "Keep each change small enough to review in one sitting.",
    "Prefer the project's existing tools over new dependencies.",
    "Explain what you changed and why in two or three sentences.",
    "If a step fails, stop and report the exact error output.",
    "Ask before deleting files or rewriting history.",
    "Run the checks again after every fix.",
    "Record decisions so the next person understands the trade-offs.",
    "Measure first; optimize only what the numbers point at.",
    "Quote file paths and line numbers when you report a finding.",
]


def _desc(rng: random.Random, d: dict[str, list[str]], name_word: str) -> str:
    def fill(t: str) -> str:
        verb = rng.choice(d["verbs"])
        o1, o2 = rng.sample(d["objects"], 2)
        return t.format(
            verb=verb,
            Verb=verb[0].upper() + verb[1:],
            obj=o1,
            obj2=o2,
            name_word=name_word,
            lang=rng.choice(d["langs"]),
        )

    parts = [fill(rng.choice(OPENERS)) + "."]
    k = rng.choice((1, 2, 2, 3))
    if k >= 2:
        parts.append(fill(rng.choice(USE_WHEN)))
    if k >= 3:
        parts.append(fill(rng.choice(EXTRA)))
    return " ".join(parts)


def _yaml_str(text: str) -> str:
    """A YAML scalar for text: plain when that is safe, else double-quoted."""
    risky = ": " in text or " #" in text or text[:1] in "'\"[]{}&*!|>%@`#,?-" or text.endswith(":")
    if not risky:
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _body(rng: random.Random, d: dict[str, list[str]], title: str, lines: int) -> str:
    out = [f"# {title}", "", rng.choice(SENTENCES), ""]
    section = 0
    while len(out) < lines:
        section += 1
        kind = rng.random()
        heading = rng.choice(
            ["Steps", "Checklist", "Examples", "Pitfalls", "Workflow", "Notes", "Reference"]
        )
        out.append(f"## {heading} {section}")
        out.append("")
        if kind < 0.35:
            for i in range(rng.randint(3, 8)):
                o = rng.choice(d["objects"])
                out.append(
                    f"{i + 1}. {rng.choice(d['verbs']).capitalize()} {o}. {rng.choice(SENTENCES)}"
                )
        elif kind < 0.6:
            for _ in range(rng.randint(3, 7)):
                out.append(f"- **{rng.choice(d['objects'])}**: {rng.choice(SENTENCES)}")
        elif kind < 0.85:
            lang = rng.choice(d["langs"])
            out.append(f"```{lang}")
            for i in range(rng.randint(3, 12)):
                out.append(
                    f"    step_{section}_{i}  # {rng.choice(d['verbs'])} {rng.choice(d['objects'])}"
                )
            out.append("```")
        else:
            out.append(" ".join(rng.choice(SENTENCES) for _ in range(rng.randint(2, 5))))
        out.append("")
    return "\n".join(out[:lines]) + "\n"


def _unique_name(rng: random.Random, d: dict[str, list[str]], used: set[str]) -> tuple[str, str]:
    """A `<word>-<suffix>` name not in `used` (which it joins); return it and its first word."""
    words = rng.sample(d["names"], 2)
    suffix = rng.choice(
        ["helper", "review", "workflow", "expert", "guide", words[1], "tools", "assistant"]
    )
    base = f"{words[0]}-{suffix}"
    name = base
    k = 2
    while name in used:
        name = f"{base}-{k}"
        k += 1
    used.add(name)
    return name, words[0]


def _frontmatter(
    rng: random.Random, d: dict[str, list[str]], dname: str, name: str, word: str
) -> list[str]:
    """The frontmatter lines: name, description and, sometimes, the optional fields."""
    fm = [f"name: {name}", f"description: {_yaml_str(_desc(rng, d, word))}"]
    if rng.random() < 0.3:
        t = rng.choice(WHEN).format(
            obj=rng.choice(d["objects"]), verb=rng.choice(d["verbs"]), name_word=word
        )
        fm.append(f"when_to_use: {_yaml_str(t)}")
    if rng.random() < 0.2:
        fm.append(f'argument-hint: "{rng.choice(HINTS)}"')
    if rng.random() < 0.3:
        tools = rng.sample(d["tools"], min(len(d["tools"]), rng.randint(1, 3)))
        if rng.random() < 0.5:
            fm.append(f"allowed-tools: {', '.join(tools)}")
        else:
            fm.append("allowed-tools:")
            fm.extend(f"  - {t}" for t in tools)
    if rng.random() < 0.25:
        fm.append("metadata:")
        fm.append(f'  version: "{rng.randint(0, 3)}.{rng.randint(0, 12)}"')
        fm.append(f"  author: {rng.choice(AUTHORS)}")
        if rng.random() < 0.5:
            fm.append(f"  category: {dname}")
    if rng.random() < 0.15:
        fm.append(f"license: {rng.choice(LICENSES)}")
    return fm


def _extra_files(rng: random.Random, sdir: Path, name: str, title: str) -> None:
    """Sometimes a `scripts/` or a `references/` folder with one file."""
    r = rng.random()
    if r < 0.15:
        (sdir / "scripts").mkdir(exist_ok=True)
        (sdir / "scripts" / "run.py").write_text(
            f'"""Helper for {name}."""\nimport sys\n\nprint("{name}", sys.argv[1:])\n',
            encoding="utf-8",
        )
    elif r < 0.30:
        (sdir / "references").mkdir(exist_ok=True)
        (sdir / "references" / "REFERENCE.md").write_text(
            f"# {title} reference\n\n"
            + "\n".join(f"- {rng.choice(SENTENCES)}" for _ in range(10))
            + "\n",
            encoding="utf-8",
        )


def generate(root: Path, n: int, seed: int = 0) -> list[Path]:
    """Write n skills below root; return the SKILL.md paths."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    domains = list(DOMAINS)
    used: set[str] = set()
    paths: list[Path] = []
    for i in range(n):
        dname = domains[i % len(domains)] if i < len(domains) else rng.choice(domains)
        d = DOMAINS[dname]
        name, word = _unique_name(rng, d, used)
        fm = _frontmatter(rng, d, dname, name, word)

        title = name.replace("-", " ").title()
        text = "---\n" + "\n".join(fm) + "\n---\n\n" + _body(rng, d, title, rng.randint(20, 300))
        sdir = root / name
        sdir.mkdir(parents=True, exist_ok=True)
        p = sdir / "SKILL.md"
        p.write_text(text, encoding="utf-8")
        paths.append(p)
        _extra_files(rng, sdir, name, title)
    return paths


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: gen_skills.py DIR N [SEED]")
    out = generate(
        Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) == 4 else 0
    )
    print(f"wrote {len(out)} skills under {sys.argv[1]}")
