"""What the model is told about skills each turn: the ordered, budgeted listing and the
`<system-reminder>` blocks that carry it (DESIGN §3.3).

- `order_for_prompt` puts active `paths` skills first, then the most used, then by source
  (project, user, bundled, plugin) and name.
- `render_listing` writes one `- name [argument-hint]: description` line per skill, with
  an optional `  when: …` line, within a character budget that is a hard cap. While every
  name fits, every name stays: the skills at the end of the order lose their `when:` line
  first, then their description. When the names alone do not fit, the listing holds the
  first skills of the order that fit (described) and one line saying how many more exist
  and that the SkillSearch tool finds them by name or purpose.
- `build_reminders` wraps the per-turn facts (date, listing, path hints) in
  `<system-reminder>` blocks and does not repeat an unchanged listing.

Skill text is data: everything taken from a skill file goes through `escape_tags`, so it
can neither close a `<system-reminder>` nor forge a `<skill>` tag.

jinja2 is imported lazily (the first render), so importing this module stays cheap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.skills.files import Source, Spec
from codebot.skills.invoke import Actor, Adapter, eligible, escape_tags
from codebot.units import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from jinja2 import Environment, Template

    from codebot.skills.invoke import Decision

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"

#: The budget when none is configured: 1% of the context window (`CHARS_PER_TOKEN`),
#: never less than this; exactly this when the window is unknown (the offline model).
MIN_BUDGET = 8000
ELLIPSIS = "…"
UNCHANGED = "Skills unchanged since the last listing."

_BY_KEY = attrgetter("key")
_BY_KEY_NAME = attrgetter("key", "name")
# By identity: `Enum.__hash__` is Python code and this runs once per skill per turn.
_SOURCE_INDEX = {id(source): i for i, source in enumerate(Source)}
_BY_SCORE = itemgetter(0)
# A name with whitespace or `<` needs `_field`; almost none do.
_NEEDS_WORK = re.compile(r"[\s<]")


# -- text hygiene ----------------------------------------------------------------------


def one_line(text: str) -> str:
    """Collapse newlines and runs of whitespace (including Unicode line separators)."""
    return " ".join(text.split())


def truncate(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in `…` when cut (at a word if near)."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS if limit == 1 else ""
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit * 3 // 4:
        head = head[:space]
    return head.rstrip() + ELLIPSIS


def _field(text: str | None) -> str:
    """A one-line field from a skill file, made safe to show the model."""
    if not text:
        return ""
    return escape_tags(one_line(text))


# -- ordering ----------------------------------------------------------------------------


def order_for_prompt(
    specs: Iterable[Spec], active: Collection[str], usage: Mapping[str, float]
) -> list[Spec]:
    """Order skills for the listing: active `paths` skills (key in `active`) first, then
    higher usage score (`usage` by `Spec.key`; missing = 0), then source (project, user,
    bundled, plugin: the order of `Source`), then name. Pure: the inputs are not modified.
    """
    # One C-level string sort plus linear partitions: several times cheaper than a
    # tuple key. Keys are unique within a snapshot; the name only breaks rare ties.
    specs = list(specs)
    specs.sort(key=_BY_KEY)
    if len({spec.key for spec in specs}) < len(specs):
        specs.sort(key=_BY_KEY_NAME)
    buckets: list[list[Spec]] = [[] for _ in _SOURCE_INDEX]
    index = _SOURCE_INDEX
    for spec in specs:
        buckets[index[id(spec.root.source)]].append(spec)
    out = [spec for bucket in buckets for spec in bucket]
    if usage:
        get = usage.get
        high: list[tuple[float, Spec]] = []
        low: list[tuple[float, Spec]] = []
        rest: list[Spec] = []
        for spec in out:
            score = get(spec.key)
            if not score:
                rest.append(spec)
            elif score > 0:
                high.append((score, spec))
            else:
                low.append((score, spec))
        if high or low:
            high.sort(key=_BY_SCORE, reverse=True)  # stable, also with reverse=True
            low.sort(key=_BY_SCORE, reverse=True)
            out = [spec for _, spec in high] + rest + [spec for _, spec in low]
    if active:
        first = [spec for spec in out if spec.key in active]
        if first:
            out = first + [spec for spec in out if spec.key not in active]
    return out


# -- rendering -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ListingOptions:
    """Budgets in characters. `budget` caps the whole listing (None: 1% of the model's
    `context_window` in tokens, at `CHARS_PER_TOKEN`, never less than `MIN_BUDGET`;
    `MIN_BUDGET` when the window is unknown). `line_max` caps one skill line
    (`- name [hint]: description`), `when_max` one `  when: …` line. Their defaults are
    the config's too (codebot/config.py reads them for `Settings.listing_line`/`_when`).
    """

    budget: int | None = None
    line_max: int = 220
    when_max: int = 160
    context_window: int | None = None

    @property
    def total_budget(self) -> int:
        if self.budget is not None:
            return self.budget
        if self.context_window:
            return max(MIN_BUDGET, self.context_window * CHARS_PER_TOKEN // 100)
        return MIN_BUDGET


@dataclass(frozen=True)
class Listing:
    text: str
    listed: tuple[str, ...]  # skill names, in order
    described: tuple[str, ...]  # names shown with their description
    cut: tuple[str, ...]  # names that lost their description or `when:` line to the budget
    omitted: tuple[str, ...]  # names that did not fit at all (normally empty)
    chars: int
    budget: int
    searchable: bool  # the text points the model at SkillSearch for what was cut


@cache
def _env() -> Environment:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )


def _template(name: str) -> Template:
    return _env().get_template(name)


def _frame(lines: str, count: int, cut: bool, omitted: int) -> str:
    return _template("listing.j2").render(lines=lines, count=count, cut=cut, omitted=omitted)


def render_listing(
    specs_in_order: Sequence[Spec],
    options: ListingOptions | None = None,
    describe: Callable[[Spec], bool] | None = None,
) -> Listing:
    """Render the listing of `specs_in_order` (already ordered, see `order_for_prompt`).

    The caller passes only skills the model may invoke: policy filtering happens
    upstream (`listing_for` does it), so nothing here decides eligibility.
    `describe(spec)` False lists the skill by name (and argument hint) only — the
    `name-only` override; that is policy, not a cut.

    Budget (`options.total_budget` characters for the whole text): when everything does
    not fit, skills from the end of the order lose their `when:` line, then (still from
    the end) their description and argument hint, until it fits; those are `cut`, and the
    text then points the model at the SkillSearch tool. Names always stay, even when the
    bare names alone overflow the budget — except that the bare-name list is capped at
    max(4 × budget, 100,000) characters (NAMES_FACTOR, NAMES_FLOOR): past that, the tail
    of the order is left out and reported in `omitted`, and the text says how many
    skills SkillSearch can still find. The floor keeps the §3.3 promise that every
    eligible name appears for catalogs of a few thousand skills.
    """
    options = options or ListingOptions()
    budget = options.total_budget
    line_max, when_max = options.line_max, options.when_max
    n = len(specs_in_order)
    names = tuple([spec.name for spec in specs_in_order])
    described_ok, base = _base_lines(specs_in_order, names, describe, line_max)
    base_total = sum(map(len, base)) + max(n - 1, 0)
    room_plain = budget - len(_frame("", n, False, 0))
    room_cut = budget - len(_frame("", n, True, 0))
    if base_total > room_cut:
        return _capped(specs_in_order, names, base, described_ok, options, budget)

    short, has_desc, size = _described_prefix(
        specs_in_order, base, described_ok, base_total, room_plain, line_max
    )

    if len(short) == n:
        full = [
            line + _when(spec, when_max) if desc else line
            for spec, line, desc in zip(specs_in_order, short, has_desc, strict=True)
        ]
        if size + sum(map(len, full)) - sum(map(len, short)) <= room_plain:
            text = _frame("\n".join(full), n, False, 0)
            described = tuple(nm for nm, d in zip(names, has_desc, strict=True) if d)
            return Listing(text, names, described, (), (), len(text), budget, False)
        chosen = _fit(full, short, base, has_desc, room_cut)
    else:
        # Even without `when:` lines it is over budget: all of those go, and the longest
        # prefix of the order that fits keeps its descriptions (what the backward trim
        # of `_fit` would keep, without rendering the tail).
        size = base_total
        chosen = list(base)
        kept_desc = 0
        for i, line in enumerate(short):
            size += len(line) - len(base[i])
            if size > room_cut:
                break
            chosen[i] = line
            kept_desc = i + 1
        has_desc = has_desc[:kept_desc] + [False] * (n - kept_desc)
        full = None

    text = _frame("\n".join(chosen), n, True, 0)
    if full is not None:
        cut = tuple(nm for nm, c, f in zip(names, chosen, full, strict=True) if c != f)
    else:  # the tail was never rendered: it lost whatever text it has
        tail = zip(
            names[kept_desc:], specs_in_order[kept_desc:], described_ok[kept_desc:], strict=True
        )
        cut = tuple(
            [
                nm
                for nm, spec, ok in tail
                if ok and (spec.description or spec.when_to_use or spec.argument_hint)
            ]
        )
    return Listing(
        text=text,
        listed=names,
        described=tuple(nm for nm, d in zip(names, has_desc, strict=True) if d),
        cut=cut,
        omitted=(),
        chars=len(text),
        budget=budget,
        searchable=True,
    )


def _base_lines(
    specs: Sequence[Spec],
    names: tuple[str, ...],
    describe: Callable[[Spec], bool] | None,
    line_max: int,
) -> tuple[list[bool], list[str]]:
    """Whether each skill may be described, and its shortest line: `- name`, plus the
    argument hint of a `name-only` skill."""
    if _NEEDS_WORK.search("".join(names)):
        bare = ["- " + _field(name) for name in names]
    else:  # the usual case: one scan instead of one per name
        bare = ["- " + name for name in names]
    if describe is None:
        return [True] * len(specs), bare
    described_ok = [bool(describe(spec)) for spec in specs]
    # `name-only` skills keep their argument hint: it is not the description.
    base = [
        b if ok else _head(spec, b, line_max)
        for spec, b, ok in zip(specs, bare, described_ok, strict=True)
    ]
    return described_ok, base


def _described_prefix(
    specs: Sequence[Spec],
    base: list[str],
    described_ok: list[bool],
    base_total: int,
    room: int,
    line_max: int,
) -> tuple[list[str], list[bool], int]:
    """Describe skills from the front while the untouched listing could still fit in
    `room`: their lines (`- name [hint]: description`), whether each has a description,
    and the size of the listing with them. Only what can be shown is rendered: at 10,000
    skills that is a few dozen lines."""
    short: list[str] = []
    has_desc: list[bool] = []
    size = base_total
    for spec, b, ok in zip(specs, base, described_ok, strict=True):
        if not ok:
            short.append(b)
            has_desc.append(False)
            continue
        line, desc = _short(spec, b, line_max)
        size += len(line) - len(b)
        if size > room:
            break
        short.append(line)
        has_desc.append(desc)
    return short, has_desc, size


def _capped(
    specs: Sequence[Spec],
    names: tuple[str, ...],
    base: list[str],
    described_ok: list[bool],
    options: ListingOptions,
    budget: int,
) -> Listing:
    """The names alone are over the budget: the first skills of the order that fit, each
    with its description while it fits (a bare name when only that does), then the
    overflow line naming SkillSearch. Only the listed prefix is rendered."""
    n = len(specs)
    room = budget - len(_frame("", n, True, n))  # the frame with the largest counts
    lines: list[str] = []
    described: list[str] = []
    used = -1
    for spec, b, ok in zip(specs, base, described_ok, strict=True):
        line, desc = _short(spec, b, options.line_max) if ok else (b, False)
        if used + len(line) + 1 > room:
            line, desc = b, False
            if used + len(line) + 1 > room:
                break
        used += len(line) + 1
        lines.append(line)
        if desc:
            described.append(spec.name)
    kept = len(lines)
    text = _frame("\n".join(lines), kept, True, n - kept)
    cut = tuple(
        nm
        for nm, spec, ok in zip(names[:kept], specs, described_ok, strict=False)
        if ok and nm not in described and (spec.description or spec.argument_hint)
    )
    return Listing(
        text=text,
        listed=names[:kept],
        described=tuple(described),
        cut=cut,
        omitted=names[kept:],
        chars=len(text),
        budget=budget,
        searchable=True,
    )


def _fit(
    full: list[str], short: list[str], base: list[str], has_desc: list[bool], room: int
) -> list[str]:
    """Trim from the end of the order until the lines fit in `room`: `when:` lines first,
    then descriptions. Updates `has_desc` for skills that lost their description."""
    n = len(full)
    chosen = list(full)
    size = sum(map(len, full)) + max(n - 1, 0)
    i = n - 1
    while size > room and i >= 0:
        size -= len(full[i]) - len(short[i])
        chosen[i] = short[i]
        i -= 1
    i = n - 1
    while size > room and i >= 0:
        if chosen[i] != base[i]:
            size -= len(chosen[i]) - len(base[i])
            chosen[i] = base[i]
            has_desc[i] = False
        i -= 1
    return chosen


def _head(spec: Spec, bare: str, line_max: int) -> str:
    """`- name [argument-hint]` (the hint only when there is one; a hint written in
    brackets already, like `[version] [--dry-run]`, is shown as written)."""
    hint = _field(spec.argument_hint)
    if not hint:
        return bare
    hint = truncate(hint, max(line_max // 3, 8))
    return f"{bare} {hint}" if hint[0] == "[" and hint[-1] == "]" else f"{bare} [{hint}]"


def _short(spec: Spec, bare: str, line_max: int) -> tuple[str, bool]:
    """`- name [hint]: description`, at most `line_max` characters; and whether the
    description made it in."""
    head = _head(spec, bare, line_max)
    room = line_max - len(head) - 2
    desc = truncate(_field(spec.description), room) if room > 1 else ""
    return (f"{head}: {desc}", True) if desc else (head, False)


def _when(spec: Spec, when_max: int) -> str:
    """A newline and `  when: …` (the whole line at most `when_max` characters), or ""."""
    when = truncate(_field(spec.when_to_use), when_max - 8)
    return f"\n  when: {when}" if when else ""


def listing_for(
    snapshot_specs: Iterable[Spec],
    *,
    overrides: Mapping[str, str] | None = None,
    active: Collection[str] = frozenset(),
    usage: Mapping[str, float] | None = None,
    options: ListingOptions | None = None,
    adapter: Adapter = Adapter.EXTENSION,
    in_force: Sequence[str] = (),
    rank: Callable[[Sequence[Spec]], Sequence[str]] | None = None,
    allowed: Sequence[tuple[Spec, Decision]] | None = None,
) -> Listing:
    """The listing the main model sees: the skills it may invoke (policy for
    `Actor.MODEL`, decided before anything is ordered), minus `paths` skills that are not
    active (DESIGN §3.2), ordered by `order_for_prompt` and rendered; `name-only`
    overrides are listed without description.

    `overrides` must be normalized (as `Settings.overrides` is); `active` holds the keys
    of active `paths` skills; `usage` maps `Spec.key` to a usage score
    (`UsageTracker.scores(now)`).

    When the names alone would not fit the budget, the order puts first the skills in
    force (`in_force`, keys, latest first), then active `paths` skills, then the most used,
    then the skills `rank(specs)` returns (keys, best first: the router's ranking for
    this turn's request, asked for only then), then the rest.

    `allowed`: `eligible(snapshot_specs, Actor.MODEL, overrides, adapter)` when the caller
    keeps it for an unchanged catalog (10,000 decisions are some 100 ms).
    """
    if allowed is None:
        allowed = eligible(snapshot_specs, Actor.MODEL, overrides, adapter)
    specs = [spec for spec, _ in allowed if not spec.paths or spec.key in active]
    name_only = {id(spec) for spec, decision in allowed if not decision.describe}
    ordered = order_for_prompt(specs, active, usage or {})
    describe = (lambda spec: id(spec) not in name_only) if name_only else None
    options = options or ListingOptions()
    if (in_force or rank) and sum(len(spec.name) + 3 for spec in ordered) > options.total_budget:
        used = {spec.key for spec in ordered if (usage or {}).get(spec.key, 0) > 0}
        ranked = list(rank(ordered)) if rank is not None else []
        ordered = promote(
            ordered,
            [*in_force, *(s.key for s in ordered if s.key in active or s.key in used), *ranked],
        )
    return render_listing(ordered, options, describe)


def promote(ordered: Sequence[Spec], keys: Sequence[str]) -> list[Spec]:
    """`ordered` with the skills named by `keys` first, in the order of `keys` (each once)."""
    by_key = {spec.key: spec for spec in ordered}
    front = [by_key[k] for k in dict.fromkeys(keys) if k in by_key]
    chosen = {id(s) for s in front}
    return front + [s for s in ordered if id(s) not in chosen]
