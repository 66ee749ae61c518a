"""What an agent sent, for `bench/peers.py`: the skill listing inside a recorded request body.

The bench knows the generated skills (name -> description). In a request body it looks at
every string (system prompt, messages, tool descriptions, instructions) and takes the one
naming the most generated skills as the listing:

- `listing_chars`: characters from the start of the first line naming a generated skill
  to the end of the last such line (the part of the request that lists skills);
- `skills_named`: how many different generated skills that string names;
- `descriptions_cut`: of those, how many do not carry their whole description (spaces
  folded): `descriptions_shortened` (the line naming the skill goes on with a piece of
  its description, but not all of it is in the string) plus `descriptions_left_out` (the
  line goes on with nothing of its description: a name-only entry, or a path);
- `where`: the JSON path of that string, and `body_chars`: the whole body's JSON size.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

TOKEN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
SPACES = re.compile(r"\s+")


def read_skills(root: Path) -> dict[str, str]:
    """name -> description (spaces folded) of every `<root>/<name>/SKILL.md`."""
    out: dict[str, str] = {}
    for path in sorted(root.glob("*/SKILL.md")):
        text = path.read_text(encoding="utf-8")
        end = text.find("\n---", 3)
        meta: Any = yaml.load(text[3:end], Loader=yaml.CSafeLoader)
        if isinstance(meta, dict) and meta.get("name"):
            out[str(meta["name"])] = fold(str(meta.get("description") or ""))
    return out


def fold(text: str) -> str:
    return SPACES.sub(" ", text).strip()


def strings(value: Any, where: str = "") -> list[tuple[str, str]]:
    """Every string inside parsed JSON, with its path (`messages[0].content`)."""
    if isinstance(value, str):
        return [(where or ".", value)]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in strings(v, f"{where}.{k}" if where else k)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in strings(v, f"{where}[{i}]")]
    return []


def names_in(text: str, skills: dict[str, str]) -> set[str]:
    return {t for t in TOKEN.findall(text) if t in skills}


def listing_of(body: Any, skills: dict[str, str]) -> dict[str, Any]:
    """The listing found in one request body (see the module doc)."""
    out: dict[str, Any] = {
        "body_chars": len(json.dumps(body, ensure_ascii=False)),
        "listing_chars": 0,
        "skills_named": 0,
        "descriptions_cut": 0,
        "where": None,
    }
    if not skills:
        return out
    best: tuple[int, str, str, set[str]] = (0, "", "", set())
    for where, text in strings(body):
        named = names_in(text, skills)
        if len(named) > best[0]:
            best = (len(named), where, text, named)
    count, where, text, named = best
    if not count:
        return out
    lines = text.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if names_in(line, skills)]
    span = "".join(lines[hits[0] : hits[-1] + 1])
    flat = fold(text)
    cut = {name for name in named if skills[name] and skills[name] not in flat}
    left_out = _left_out(lines, hits, skills) & cut
    out.update(
        listing_chars=len(span.rstrip("\n")),
        skills_named=count,
        descriptions_cut=len(cut),
        descriptions_shortened=len(cut - left_out),
        descriptions_left_out=len(left_out),
        where=where,
    )
    return out


def _left_out(lines: list[str], hits: list[int], skills: dict[str, str]) -> set[str]:
    """Skills whose line goes on with nothing of their description after the name."""
    out: set[str] = set()
    for i in hits:
        line = lines[i]
        for match in TOKEN.finditer(line):
            name = match.group()
            if name in skills:
                rest = fold(line[match.end() :].lstrip(" :-\u2014\t"))
                desc = skills[name]
                if not (rest and (desc[:20] in rest or rest[:20].rstrip("\u2026. ") in desc)):
                    out.add(name)
                break
    return out


def sent(requests: list[dict[str, Any]], skills: dict[str, str]) -> dict[str, Any]:
    """What one run sent: the routes it hit (count each), and the listing of the POST
    body naming the most skills (the largest body when none names one)."""
    routes: dict[str, int] = {}
    for r in requests:
        key = f"{r['method']} {r['path']}"
        routes[key] = routes.get(key, 0) + 1
    posts = [r["body"] for r in requests if r["method"] == "POST" and r["body"] is not None]
    found = [listing_of(b, skills) for b in posts]
    best = max(found, key=lambda f: (f["skills_named"], f["body_chars"]), default=None)
    return {"requests": routes, "model_requests": len(posts), "listing": best}
