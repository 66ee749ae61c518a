"""Benchmark: `order_for_prompt` + `render_listing` at 100 / 1,000 / 10,000 skills.

Prints one JSON object. Synthetic specs are `dataclasses.replace` copies of one parsed
SKILL.md with varied names, descriptions, `when_to_use`, argument hints, sources and
usage scores. The baseline, measured in the same run over the same specs, is a naive
`"\\n".join(f"- {name}: {description}")` (no ordering, escaping, truncation or budget).

Targets: order + render <= 2 ms p50 at 1,000 skills and <= 20 ms at 10,000.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codebot.skills.files import Root, Source, Spec, normalize_name, parse_file
from codebot.skills.prompt import ListingOptions, order_for_prompt, render_listing

SIZES = (100, 1_000, 10_000)
TARGETS_MS = {1_000: 2.0, 10_000: 20.0}
WORDS = (
    "review",
    "pull",
    "request",
    "diff",
    "test",
    "coverage",
    "deploy",
    "docker",
    "lint",
    "format",
    "python",
    "typescript",
    "release",
    "notes",
    "changelog",
    "database",
    "migration",
    "schema",
    "api",
    "endpoint",
    "security",
    "audit",
    "performance",
    "profile",
    "refactor",
    "rename",
    "document",
    "readme",
    "commit",
    "branch",
)
TEMPLATE = """\
---
name: template
description: A template skill.
---
Body.
"""


def template_spec(tmp: Path) -> Spec:
    path = tmp / "template" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(TEMPLATE, encoding="utf-8")
    spec, diags = parse_file(path, Root(tmp, Source.PROJECT, "extra", (0, 1, 0)))
    assert spec is not None, diags
    return spec


def synthetic(
    base: Spec, n: int, rng: random.Random
) -> tuple[list[Spec], dict[str, float], set[str]]:
    roots = {s: dataclasses.replace(base.root, source=s) for s in Source}
    specs, usage, active = [], {}, set()
    for i in range(n):
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i}"
        words = rng.choices(WORDS, k=rng.randint(8, 60))
        description = (
            " ".join(words).capitalize()
            + ". Use when the user asks to "
            + " ".join(words[:5])
            + "."
        )
        when = " ".join(rng.choices(WORDS, k=rng.randint(4, 30))) if rng.random() < 0.4 else None
        hint = "[path] [--flag]" if rng.random() < 0.2 else None
        spec = dataclasses.replace(
            base,
            name=name,
            key=normalize_name(name),
            description=description,
            when_to_use=when,
            argument_hint=hint,
            root=roots[rng.choice(list(Source))],
        )
        specs.append(spec)
        if rng.random() < 0.2:
            usage[spec.key] = round(rng.uniform(0.1, 20.0), 3)
        if rng.random() < 0.01:
            active.add(spec.key)
    return specs, usage, active


def timed(fn, repeats: int) -> list[float]:
    fn()  # warm up (imports jinja2, compiles the template)
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main() -> None:
    rng = random.Random(7)
    options = ListingOptions()
    result: dict[str, object] = {
        "budget": options.total_budget,
        "sizes": {},
        "targets_ms": TARGETS_MS,
    }
    targets_met: dict[str, bool] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = template_spec(Path(tmp))
        for n in SIZES:
            specs, usage, active = synthetic(base, n, rng)
            repeats = 200 if n <= 1_000 else 40
            last = {}

            def ours(specs=specs, usage=usage, active=active, last=last) -> None:
                last["listing"] = render_listing(order_for_prompt(specs, active, usage), options)

            def baseline(specs=specs) -> None:
                "\n".join(f"- {s.name}: {s.description}" for s in specs)

            t_ours = timed(ours, repeats)
            t_base = timed(baseline, repeats)
            listing = last["listing"]
            p50, p95, b50 = pct(t_ours, 0.5), pct(t_ours, 0.95), pct(t_base, 0.5)
            result["sizes"][str(n)] = {  # type: ignore[index]
                "repeats": repeats,
                "p50_ms": round(p50, 3),
                "p95_ms": round(p95, 3),
                "baseline_p50_ms": round(b50, 3),
                "baseline_p95_ms": round(pct(t_base, 0.95), 3),
                "ratio_p50": round(p50 / b50, 2) if b50 else None,
                "listed": len(listing.listed),
                "described": len(listing.described),
                "cut": len(listing.cut),
                "omitted": len(listing.omitted),
                "chars": listing.chars,
            }
            if n in TARGETS_MS:
                targets_met[str(n)] = p50 <= TARGETS_MS[n]
    result["targets_met"] = targets_met
    result["python"] = sys.version.split()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
