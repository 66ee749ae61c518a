r"""Display-safe text: what the person reads must be exactly what runs.

Text from skill files, tool output or a model can carry characters that a terminal does
not show as themselves: a backspace or carriage return moves the cursor back so later
text overwrites earlier text, an escape sequence clears the line or writes the
clipboard (OSC 52), a right-to-left override reorders what follows, a zero-width space
makes two different names look alike. So:

- `visible(text)` shows every such character as an escape (`\x08`, `\x1b`, `\u202e`,
  `\U000e0041`) and keeps everything else, newlines included, exactly as it is. It
  never clips. Use it for commands and paths the person is asked to approve.
- `strip_escapes(text)` removes whole terminal escape sequences (CSI, OSC, DCS, SOS,
  PM, APC, two-character ESC sequences, 8-bit C1 introducers), then escapes what is left
  like `visible()`, keeping tabs. Use it for names and descriptions from skill files.
- `has_hidden(text)` says whether `visible()` would change anything: the cue to tell
  the person that the text holds escaped characters.
- `segments(text)` gives the same output as `visible()` in pieces, each marked as
  plain text or escape, so a UI can style escapes (reverse video) apart from text.
- `json_text(value)` is `json.dumps(value, ensure_ascii=False)` with every character
  `visible()` would escape written as a `\uXXXX` escape (C1 controls, bidi controls,
  zero-width and other invisible characters, DEL), so JSON output printed to a terminal
  cannot reorder or hide text; other non-ASCII text stays readable. The JSON means the
  same: outside strings JSON text is ASCII, and a `\u` escape decodes to the character.
- `home_short(path)` writes a path inside the home folder as `~/…` (the welcome line, the
  file "always allow" saves to); only a whole-folder prefix counts, so `/home/al` never
  shortens `/home/alice`.
- `command_lines(command)` is a command as it is shown before it is approved, in line
  mode, in the TUI and in the offer to run it outside the sandbox: `visible()` line by
  line, a run of blank lines as one `⏎ ×120` line and a run of 40 or more spaces as
  `␠×N`, so the whole command fits above the question, with the counts the question
  states (`Run this command? (122 lines, 120 of them empty)`).

Escaped: C0 controls (TAB as `\t`, CR as `\r`, the rest as `\xNN`; LF stays a real
newline), DEL, C1 controls, format characters (Unicode category Cf: zero-width
space/joiners, soft hyphen, bidi embeddings, overrides, isolates and marks, BOM, tag
characters), line and paragraph separators (Zl, Zp), spaces other than U+0020 (Zs,
because the shell splits words only on ASCII blanks: a no-break space makes one word
look like two), unassigned code points and noncharacters (Cn: a newer terminal may draw
them as nothing), lone surrogates (Cs, from `surrogateescape`), and the remaining
Default_Ignorable_Code_Point characters that are not Cf (variation selectors, which can
smuggle invisible data after any character, Hangul fillers, the combining grapheme
joiner) plus U+2800 BRAILLE PATTERN BLANK.

Backslashes are NOT doubled: the person must be able to read and copy the real command,
and `printf '\x1b[0m'` must look like what it is. So a literal `\x08` and an escaped
backspace look the same in plain text; `has_hidden()` tells the caller to say "this
text contains hidden characters, shown as escapes", and `segments()` lets a UI draw the
escapes differently. Every function is linear in the length of the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) ranges that are not
# already Cc/Cf/Cn, plus U+2800 which most fonts draw as blank.
_IGNORABLE = (
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x115F, 0x1160),  # HANGUL CHOSEONG / JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ / AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS
    (0x2800, 0x2800),  # BRAILLE PATTERN BLANK
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTORS 1-16
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT CONTROLS
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN/END BEAM ...
    (0xE0000, 0xE0FFF),  # TAGS and VARIATION SELECTORS 17-256
)
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn", "Zl", "Zp", "Zs"})
_SHORT = {"\t": "\\t", "\r": "\\r"}

# Candidates only: anything but LF, printable ASCII and a few large blocks that are all
# visible (Latin-1 letters and signs, CJK ideographs, Hangul syllables; checked by a
# test). A run of candidates is translated in one C-level call; one class under one `+`
# cannot backtrack, so matching is linear whatever the input.
_SAFE = r"\x20-\x7e\xa1-\xac\xae-\xff\u4e00-\u9fff\uac00-\ud7a3"
_CANDIDATE = re.compile(rf"[^\n{_SAFE}]")
_RUN = re.compile(rf"[^\n{_SAFE}]+")
_RUN_KEEP_TAB = re.compile(rf"[^\n\t{_SAFE}]+")


@lru_cache(maxsize=4096)
def _escape_char(ch: str) -> str | None:
    """The escape for one character, or None when it is shown as itself."""
    if ch in _SHORT:
        return _SHORT[ch]
    cp = ord(ch)
    hidden = unicodedata.category(ch) in _HIDDEN_CATEGORIES and ch != " "
    if not hidden:
        hidden = any(lo <= cp <= hi for lo, hi in _IGNORABLE)
    if not hidden:
        return None
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


class _Table(dict[int, "str | int"]):
    """A `str.translate` table filled on demand: code point -> escape (or itself)."""

    def __init__(self, keep_tab: bool) -> None:
        super().__init__()
        if keep_tab:
            self[ord("\t")] = ord("\t")

    def __missing__(self, cp: int) -> str | int:
        esc = _escape_char(chr(cp))
        value: str | int = cp if esc is None else esc
        if len(self) < 65536:  # hostile text with every code point must not grow it forever
            self[cp] = value
        return value


_TABLE = _Table(keep_tab=False)
_TABLE_KEEP_TAB = _Table(keep_tab=True)


def _run(match: re.Match[str]) -> str:
    return match.group().translate(_TABLE)


def _run_keep_tab(match: re.Match[str]) -> str:
    return match.group().translate(_TABLE_KEEP_TAB)


def visible(text: str) -> str:
    r"""`text` with every control, invisible or direction-changing character escaped.

    `"rm -rf ~ #\b\becho hi"` -> `"rm -rf ~ #\x08\x08echo hi"`. LF stays a newline,
    TAB becomes `\t`. Idempotent: `visible(visible(t)) == visible(t)`.
    """
    return _RUN.sub(_run, text)


def has_hidden(text: str) -> bool:
    """True when `visible(text)` differs from `text` (it holds escaped characters)."""
    return any(_run(m) != m.group() for m in _RUN.finditer(text))


def segments(text: str) -> list[tuple[str, bool]]:
    """`visible(text)` as (piece, is_escape) pairs, for a UI that styles escapes."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in _CANDIDATE.finditer(text):
        esc = _escape_char(m.group())
        if esc is None:
            continue
        if m.start() > pos:
            out.append((text[pos : m.start()], False))
        out.append((esc, True))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], False))
    return out


# -- terminal escape sequences ------------------------------------------------------------

# One pass, no nested repetition: every `*` runs over a class that excludes ESC and the
# C1 introducers, and what follows it is disjoint from that class, so runs after two
# different introducers never overlap and a failed attempt backtracks only over its own
# run. Total work stays linear even for `"\x1b[" * 500_000` or `"\x9d" * 1_000_000`.
_SEQUENCE = re.compile(
    # CSI (7-bit ESC [ or 8-bit U+009B): parameter/intermediate bytes, then a final byte;
    # a control character cuts it short, as in a terminal (the control is kept).
    r"(?:\x1b\[|\x9b)[\x20-\x3f]*(?:[\x40-\x7e]|(?=[^\x20-\x3f]))"
    # OSC, DCS, SOS, PM, APC (ESC ] P X ^ _ or U+009D/90/98/9E/9F): a string ended by
    # BEL, ST (ESC \ or U+009C), cancelled by CAN/SUB, or cut short by another ESC.
    # A string with a C1 character inside or no end is not removed: its introducer is
    # then escaped visibly and the rest shown, rather than hiding everything after it.
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x18\x1a\x1b\x80-\x9f]*"
    r"(?:[\x07\x9c\x18\x1a]|\x1b\\|(?=\x1b))"
    # Other ESC sequences: intermediates 0x20-0x2F then a final byte (ESC ( B, ESC 7,
    # ESC c ...). Without intermediates the introducers above are excluded, so an
    # unterminated `ESC [` or `ESC ]` is escaped visibly instead of vanishing.
    r"|\x1b(?:[\x20-\x2f]+[\x30-\x7e]|[\x30-\x4f\x51-\x57\x59\x5a\x5c\x60-\x7e])"
)


def strip_escapes(text: str) -> str:
    r"""`text` without terminal escape sequences, other controls escaped, tabs kept.

    `"\x1b[2Kname\x1b]52;c;ZWNobw==\x07"` -> `"name"`; `"a\bb"` -> `"a\x08b"`.
    Every ESC and C1 character left over becomes visible text, so removing a sequence
    can never join two halves into a live one. Idempotent.
    """
    return _RUN_KEEP_TAB.sub(_run_keep_tab, _SEQUENCE.sub("", text))


# -- a command as the person approves it ---------------------------------------------------

#: A run of this many blank lines or more is shown as one line, `⏎ ×N`.
BLANK_RUN = 2
#: A run of this many spaces or more inside a line is shown as `␠×N`.
SPACE_RUN = 40
#: From this many characters on, the summary says how many.
LONG_COMMAND = 500
_SPACES = re.compile(f" {{{SPACE_RUN},}}")


@dataclass(frozen=True)
class CommandLines:
    """A command as it is shown before it is approved (`command_lines`).

    `lines`: what to print, one item per line, every control or invisible character as a
    visible escape (`visible`), runs of blank lines and long runs of spaces collapsed, so
    that the whole command fits above the question. `count` lines in the command, `blank`
    of them empty or spaces only, `chars` characters; `hidden`: it holds escaped characters.
    """

    lines: tuple[str, ...]
    count: int
    blank: int
    chars: int
    hidden: bool

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def summary(self) -> str:
        """`122 lines, 120 of them empty`; `1 line, 2,400 characters`; "" for one short line."""
        parts = [f"{self.count} lines"] if self.count > 1 else []
        if self.blank and self.count > 1:
            parts.append(f"{self.blank} of them empty")
        if self.chars >= LONG_COMMAND:
            parts = [parts[0] if parts else "1 line", *parts[1:], f"{self.chars:,} characters"]
        if self.hidden:
            parts.append("hidden characters shown as escapes")
        return ", ".join(parts)

    def question(self, question: str) -> str:
        """`Run this command? (122 lines, 120 of them empty)`: the counts in the question."""
        return f"{question} ({self.summary})" if self.summary else question


def command_lines(command: str) -> CommandLines:
    r"""What the person is shown of `command` before approving it, and its counts.

    `"touch X" + "\n" * 121 + "git status"` -> lines `("touch X", "⏎ ×120", "git status")`,
    summary `122 lines, 120 of them empty`. A single blank line stays as it is; a final
    newline ends the last line and starts no new one. Linear in the length of the command.
    """
    raw = command.split("\n")
    if len(raw) > 1 and raw[-1] == "":
        raw.pop()
    lines: list[str] = []
    blank = 0
    for is_blank, group in groupby(raw, key=lambda line: not line.strip(" ")):
        if is_blank:
            run = sum(1 for _ in group)
            blank += run
            lines.append(f"⏎ ×{run}" if run >= BLANK_RUN else "")
        else:
            lines.extend(
                _SPACES.sub(lambda m: f"␠×{len(m.group())}", visible(line)) for line in group
            )
    return CommandLines(tuple(lines), len(raw), blank, len(command), has_hidden(command))


def _json_char(ch: str) -> str:
    if _escape_char(ch) is None:
        return ch
    cp = ord(ch)
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    cp -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters past the BMP
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def _json_run(match: re.Match[str]) -> str:
    return "".join(_json_char(c) for c in match.group())


def json_text(
    value: object, indent: int | None = None, default: Callable[[object], object] | None = None
) -> str:
    r"""`json.dumps(value, ensure_ascii=False)` with hidden characters as `\uXXXX`: a
    right-to-left override inside a string is written as the six characters `\u202e`;
    `é` and `日本` stay as they are."""
    import json

    text = json.dumps(value, ensure_ascii=False, indent=indent, default=default)
    return _RUN.sub(_json_run, text)


def home_short(path: object) -> str:
    """`/home/me/proj` -> `~/proj` when HOME is `/home/me`; any other path as it is."""
    import os

    text = str(path)
    home = os.path.expanduser("~").rstrip("/")
    if home and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home) :]
    return text
