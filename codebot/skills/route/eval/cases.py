"""Labelled requests for evaluating the router: `Case` (a prompt, the skill it should
route to or None, its kind) and `parse_cases`, which reads them from JSONL
(tests/data/routing_*.jsonl, `codebot skills eval FILE`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

KINDS = ("positive", "near_miss", "negative")


@dataclass(frozen=True, slots=True)
class Case:
    prompt: str
    expected: str | None
    kind: str
    also: tuple[str, ...] = ()
    line: int = 0
    #: the language the request is written in (optional; the report breaks results down by it)
    lang: str | None = None

    def acceptable(self) -> frozenset[str]:
        from codebot.skills.files import normalize_name

        names = [self.expected, *self.also] if self.expected else []
        return frozenset(normalize_name(n) for n in names)


def parse_cases(lines: Iterable[str]) -> tuple[list[Case], list[str]]:
    """JSONL cases -> (cases, errors with line numbers)."""
    import json

    cases: list[Case] = []
    errors: list[str] = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc.msg})")
            continue
        if (
            not isinstance(d, dict)
            or not isinstance(d.get("prompt"), str)
            or not d["prompt"].strip()
        ):
            errors.append(f"line {n}: needs a non-empty string 'prompt'")
            continue
        expected = d.get("expected")
        kind = d.get("kind") or ("negative" if expected is None else "positive")
        also = d.get("also") or []
        if expected is not None and not isinstance(expected, str):
            errors.append(f"line {n}: 'expected' must be a skill name or null")
            continue
        if kind not in KINDS:
            errors.append(f"line {n}: 'kind' must be one of {', '.join(KINDS)}")
            continue
        if kind == "positive" and expected is None:
            errors.append(f"line {n}: a positive case needs an 'expected' skill")
            continue
        if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
            errors.append(f"line {n}: 'also' must be a list of skill names")
            continue
        lang = d.get("lang")
        if lang is not None and (not isinstance(lang, str) or not lang.strip()):
            errors.append(f"line {n}: 'lang' must be a language code such as \"de\"")
            continue
        cases.append(Case(d["prompt"], expected, kind, tuple(also), n, lang))
    return cases, errors
