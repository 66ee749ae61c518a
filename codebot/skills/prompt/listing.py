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
from codebot.skills.prompt.fit import allowances, described_prefix
from codebot.skills.prompt.shorten import shorten, truncate
from codebot.units import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from jinja2 import Environment, Template

    from codebot.skills.invoke import Decision

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"

#: The budget when none is configured: 1% of the context window (`CHARS_PER_TOKEN`),
#: never less than this; exactly this when the window is unknown (the offline model).
MIN_BUDGET = 8000
#: When entries must share the budget, a described entry gets at least this many
#: characters beyond its name (or its whole text, when shorter): enough for the first
#: sentence and the use-when clause of a median description (241 characters in the
#: corpus). Below it, fewer skills are described rather than all of them badly.
ENTRY_MIN = 160
#: A shortened description or `when:` text shorter than this is left out instead.
MIN_PIECE = 24
WHEN = "\n  when: "
#: An argument hint is shown in at most this many characters (a third of a short line).
HINT_MAX = 80
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
    line_max: int = 1100
    when_max: int = 600
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

    Budget (`options.total_budget` characters for the whole text): when every entry fits
    whole, nothing is cut (only the `line_max`/`when_max` ceilings apply). When not, each
    entry gets its description up to `ENTRY_MIN` characters and then an equal share of
    what is left (`fit.allowances`: derived from the budget and the entries; short
    entries stay whole and leave their share to the long ones), and a longer entry is
    shortened in the middle (`shorten`: its use-when and not-for clauses stay). When not
    every entry can have that much, the head of the order (the most used first) is
    described and the rest are bare names. Shortened entries are `cut`, and the text then
    points the model at the SkillSearch tool. Names always stay, even when
    the bare names alone overflow the budget — except that past the budget the tail of
    the order is left out and reported in `omitted` (`_capped`), and the text says how
    many skills SkillSearch can still find.
    """
    options = options or ListingOptions()
    budget = options.total_budget
    n = len(specs_in_order)
    names = tuple([spec.name for spec in specs_in_order])
    described_ok, base = _base_lines(specs_in_order, names, describe, options.line_max)
    base_total = sum(map(len, base)) + max(n - 1, 0)
    room_cut = budget - len(_frame("", n, True, 0))
    if base_total > room_cut:
        return _capped(specs_in_order, base, described_ok, options, budget)
    parts = [
        _parts(spec, b, ok, options)
        for spec, b, ok in zip(specs_in_order, base, described_ok, strict=True)
    ]
    full = [p.full() for p in parts]
    extras = [len(f) - len(p.base) for f, p in zip(full, parts, strict=True)]
    if base_total + sum(extras) <= budget - len(_frame("", n, False, 0)):
        text = _frame("\n".join(full), n, False, 0)
        described = tuple(nm for nm, p in zip(names, parts, strict=True) if p.desc)
        return Listing(text, names, described, (), (), len(text), budget, False)
    room = room_cut - base_total
    needs = [p.need() for p in parts]
    k = described_prefix(needs, room)
    given = allowances(extras[:k], needs[:k], room)
    entries = [p.within(given[i]) if i < k else (p.base, False) for i, p in enumerate(parts)]
    text = _frame("\n".join(line for line, _ in entries), n, True, 0)
    return Listing(
        text=text,
        listed=names,
        described=tuple(nm for nm, (_, d) in zip(names, entries, strict=True) if d),
        cut=tuple(nm for nm, (line, _), f in zip(names, entries, full, strict=True) if line != f),
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


def _capped(
    specs: Sequence[Spec],
    base: list[str],
    described_ok: list[bool],
    options: ListingOptions,
    budget: int,
) -> Listing:
    """The names alone are over the budget: the head of the order described (as many as
    can each have `ENTRY_MIN` characters, sharing the room as `render_listing` does),
    then bare names while they fit, then the overflow line naming SkillSearch. Only the
    listed prefix is rendered."""
    n = len(specs)
    room = budget - len(_frame("", n, True, n))  # the frame with the largest counts
    parts: list[_Parts] = []
    extras: list[int] = []
    needs: list[int] = []
    used = floor = -1  # the bare lines so far; those lines with what each needs
    for spec, b, ok in zip(specs, base, described_ok, strict=False):
        p = _parts(spec, b, ok, options)
        floor += len(b) + 1 + p.need()
        if floor > room:
            break
        used += len(b) + 1
        parts.append(p)
        extras.append(len(p.full()) - len(b))
        needs.append(p.need())
    given = allowances(extras, needs, room - used)
    entries = [p.within(a) for p, a in zip(parts, given, strict=True)]
    used = sum(len(line) + 1 for line, _ in entries) - 1
    for b in base[len(parts) :]:
        if used + len(b) + 1 > room:
            break
        used += len(b) + 1
        entries.append((b, False))
    kept = len(entries)
    text = _frame("\n".join(line for line, _ in entries), kept, True, n - kept)
    names = tuple(spec.name for spec in specs[:kept])
    cut = [nm for nm, (line, _), p in zip(names, entries, parts, strict=False) if line != p.full()]
    cut += [
        spec.name
        for spec, ok in zip(specs[len(parts) : kept], described_ok[len(parts) :], strict=False)
        if ok and (spec.description or spec.argument_hint)
    ]
    return Listing(
        text=text,
        listed=names,
        described=tuple(nm for nm, (_, d) in zip(names, entries, strict=True) if d),
        cut=tuple(cut),
        omitted=tuple(spec.name for spec in specs[kept:]),
        chars=len(text),
        budget=budget,
        searchable=True,
    )


@dataclass(frozen=True, slots=True)
class _Parts:
    """One skill's entry before any budget cut: its bare line, its head (`- name [hint]`),
    its description and its `when:` text (each escaped, one line, within the ceilings)."""

    base: str
    head: str
    desc: str
    when: str

    def full(self) -> str:
        if not self.desc:
            return self.head
        line = f"{self.head}: {self.desc}"
        return f"{line}{WHEN}{self.when}" if self.when else line

    def need(self) -> int:
        """What describing this skill needs beyond its bare line: its description line up
        to `ENTRY_MIN` characters (its `when:` text only shares what is left)."""
        if not self.desc:
            return 0
        return min(len(self.head) + 2 + len(self.desc) - len(self.base), ENTRY_MIN)

    def within(self, allowance: int) -> tuple[str, bool]:
        """The entry in at most `allowance` characters more than its bare line (the
        description first, then what is left for `when:`); whether it is described."""
        full = self.full()
        if len(full) - len(self.base) <= allowance:
            return full, bool(self.desc)
        end = len(self.base) + allowance
        room = end - len(self.head) - 2
        if not self.desc or room < min(len(self.desc), MIN_PIECE):
            return self.base, False
        line = f"{self.head}: {shorten(self.desc, room)}"
        left = end - len(line) - len(WHEN)
        if self.when and left >= MIN_PIECE:
            line += WHEN + shorten(self.when, left)
        return line, True


def _parts(spec: Spec, base: str, describable: bool, options: ListingOptions) -> _Parts:
    if not describable:
        return _Parts(base, base, "", "")
    head = _head(spec, base, options.line_max)
    room = options.line_max - len(head) - 2
    desc = shorten(_field(spec.description), room) if room > 1 else ""
    if not desc:
        return _Parts(base, head, "", "")
    return _Parts(base, head, desc, shorten(_field(spec.when_to_use), options.when_max - 8))


def _head(spec: Spec, bare: str, line_max: int) -> str:
    """`- name [argument-hint]` (the hint only when there is one; a hint written in
    brackets already, like `[version] [--dry-run]`, is shown as written)."""
    hint = _field(spec.argument_hint)
    if not hint:
        return bare
    hint = truncate(hint, max(min(line_max // 3, HINT_MAX), 8))
    return f"{bare} {hint}" if hint[0] == "[" and hint[-1] == "]" else f"{bare} [{hint}]"


def _short(spec: Spec, bare: str, line_max: int) -> tuple[str, bool]:
    """`- name [hint]: description`, at most `line_max` characters (shortened in the
    middle); and whether the description made it in."""
    head = _head(spec, bare, line_max)
    room = line_max - len(head) - 2
    desc = shorten(_field(spec.description), room) if room > 1 else ""
    return (f"{head}: {desc}", True) if desc else (head, False)


def _when(spec: Spec, when_max: int) -> str:
    """A newline and `  when: …` (the whole line at most `when_max` characters), or ""."""
    when = shorten(_field(spec.when_to_use), when_max - 8)
    return f"{WHEN}{when}" if when else ""


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
