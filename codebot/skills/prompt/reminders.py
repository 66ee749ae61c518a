"""The per-turn `<system-reminder>` blocks: the date, the skill listing (or a note that
it is unchanged, or what changed since it was sent), and the hints of active skills.

Skill text is data: every body goes through `escape_tags`, so it cannot close the tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from codebot.skills.files import Spec
from codebot.skills.invoke import escape_tags
from codebot.skills.prompt.listing import UNCHANGED, Listing, _field, _template, one_line


def reminder(body: str) -> str:
    """One `<system-reminder>` block; the body is escaped so it cannot close the tag."""
    return _template("reminder.j2").render(body=escape_tags(body))


def path_hint(spec: Spec) -> str:
    """The hint shown while an inline skill with `paths` globs is active."""
    globs = ", ".join(_field(p) for p in spec.paths)
    return f"The active skill {_field(spec.name)} applies to files matching: {globs}"


def build_reminders(
    *,
    now: datetime,
    listing: Listing | None,
    last_listing_text: str | None,
    path_hints: Sequence[str] = (),
    extra: Sequence[str] = (),
) -> tuple[list[str], str | None]:
    """The `<system-reminder>` blocks for one turn, and the listing text now sent.

    Blocks, in order: the date; the listing (or a one-line "unchanged" note when it is
    identical to `last_listing_text`, or what changed since then when only entries were
    added, removed or edited (`listing_delta`); nothing when `listing` is None); the path hints of
    active skills (one block); each of `extra`. The second value is what to pass as
    `last_listing_text` next turn.
    """
    blocks = [reminder(f"Today's date is {now.date().isoformat()}.")]
    sent = last_listing_text
    if listing is not None:
        if listing.text == last_listing_text:
            blocks.append(reminder(UNCHANGED))
        else:
            delta = listing_delta(last_listing_text, listing.text) if last_listing_text else None
            blocks.append(reminder(delta or listing.text))
            sent = listing.text
    hints = [one_line(h) for h in path_hints if h and h.strip()]
    if hints:
        blocks.append(reminder("\n".join(hints)))
    blocks.extend(reminder(e) for e in extra if e and e.strip())
    return blocks, sent


DELTA_HEAD = "The skill listing changed since it was last sent; the rest of it stands:"


def _entries(text: str) -> tuple[dict[str, str], list[str], list[str]]:
    """(name -> entry text, names in order, the frame's other lines) of a listing."""
    entries: dict[str, str] = {}
    order: list[str] = []
    frame: list[str] = []
    for line in text.split("\n"):
        if line.startswith("- "):
            name = line[2:].split(":", 1)[0].split(" [", 1)[0].strip()
            entries[name] = line
            order.append(name)
        elif line.startswith("  when:") and order:
            entries[order[-1]] += "\n" + line
        else:
            frame.append(line)
    return entries, order, frame


def listing_delta(old: str, new: str) -> str | None:
    """`+ name: description`, `− name`, `~ name: description` lines taking `old` to `new`;
    None when the whole listing should be sent instead: the entries both hold are in
    another order, either has no entries, or the delta would not be much shorter."""
    old_e, old_order, old_frame = _entries(old)
    new_e, new_order, new_frame = _entries(new)
    if not old_order or not new_order:
        return None
    common_old = [n for n in old_order if n in new_e]
    common_new = [n for n in new_order if n in old_e]
    if common_old != common_new:
        return None
    lines = [DELTA_HEAD]
    lines += ["+ " + new_e[n][2:] for n in new_order if n not in old_e]
    lines += [f"− {n}" for n in old_order if n not in new_e]
    lines += ["~ " + new_e[n][2:] for n in common_new if new_e[n] != old_e[n]]
    lines += [line for line in new_frame if line.strip() and line not in old_frame]
    text = "\n".join(lines)
    return text if len(lines) > 1 and len(text) * 2 < len(new) else None
