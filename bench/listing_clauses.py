"""Benchmark: what the listing keeps of each description (issue 33 §3).

Prints one JSON object. Two catalogs: the bundled skills alone (everything fits the
budget) and the real corpus (`../shared/corpus/skills`, 1,151 descriptions; the names
alone overflow the 8,000-character budget, so the listing holds the head of the order).
For every described entry whose description has a use-when or not-for sentence, it checks
whether that sentence reached the listing whole. The baseline, computed in the same run
over the same entries, is the rule before: every line cut at its end to 220 characters.

    python bench/listing_clauses.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codebot.skills.catalog import bundled_dir
from codebot.skills.files import Root, Source, Spec, parse_file
from codebot.skills.prompt import ListingOptions, order_for_prompt, render_listing
from codebot.skills.prompt.listing import _field, _head
from codebot.skills.prompt.shorten import CLAUSE, truncate

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "skills"
OLD_LINE_MAX = 220
NOT_FOR = re.compile(r"\b(?:not (?:for|suitable|intended)|do not use|don't use|never use)\b", re.I)


def load(root: Path) -> list[Spec]:
    specs = []
    for path in sorted(root.rglob("SKILL.md")):
        spec, _ = parse_file(path, Root(path.parent.parent, Source.PROJECT, "extra", (0,)))
        if spec is not None and spec.description:
            specs.append(spec)
    seen: set[str] = set()
    return [s for s in specs if not (s.key in seen or seen.add(s.key))]


def clause_sentences(desc: str) -> list[str]:
    sentences = re.split(r"(?<=[.!?;])\s+", desc)
    return [s for s in sentences[1:] if CLAUSE.search(s)]


def measure(specs: list[Spec]) -> dict[str, object]:
    listing = render_listing(order_for_prompt(specs, (), {}), ListingOptions())
    by_name = {s.name: s for s in specs}
    counts = {"described": len(listing.described), "listed": len(listing.listed)}
    kept = kept_old = with_clause = not_for = not_for_kept = not_for_old = whole = 0
    whole_old = end_kept = end_kept_old = 0
    for name in listing.described:
        spec = by_name[name]
        desc = _field(spec.description)
        line = next(ln for ln in listing.text.splitlines() if ln.startswith(f"- {name}"))
        head = _head(spec, f"- {name}", OLD_LINE_MAX)
        old = truncate(desc, OLD_LINE_MAX - len(head) - 2)
        whole += desc in line
        end_kept += desc[-40:] in line  # the last words: where "not for …" usually is
        end_kept_old += desc[-40:] in old
        whole_old += old == desc
        clauses = clause_sentences(desc)
        if clauses:
            with_clause += 1
            kept += all(c in line for c in clauses)
            kept_old += all(c in old for c in clauses)
        nf = [c for c in clauses if NOT_FOR.search(c)]
        if nf:
            not_for += 1
            not_for_kept += all(c in line for c in nf)
            not_for_old += all(c in old for c in nf)
    counts.update(
        whole=whole,
        whole_before=whole_old,
        end_kept=end_kept,
        end_kept_before=end_kept_old,
        with_clause=with_clause,
        clauses_kept=kept,
        clauses_kept_before=kept_old,
        with_not_for=not_for,
        not_for_kept=not_for_kept,
        not_for_kept_before=not_for_old,
        chars=listing.chars,
        budget=listing.budget,
    )
    return counts


def main() -> None:
    out: dict[str, object] = {"bundled": measure(load(bundled_dir()))}
    if CORPUS.is_dir():
        out["corpus"] = measure(load(CORPUS))
    else:
        out["corpus"] = f"skipped: {CORPUS} is absent"
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
