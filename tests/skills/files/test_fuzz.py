"""Fuzzing the frontmatter parser and the argument expander (hypothesis, bounded time).

`parse_file` promises to turn anything a file holds into a Spec or diagnostics; an
`internal-error` diagnostic is the catch-all for an exception it did not expect, so the
fuzz fails on one. `expand` and `split_arguments` raise nothing for any body or argument
(only ShellError, from a runner that fails, which the runner here never does).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codebot.skills.files import Root, Source, parse_file
from codebot.skills.invoke.expand import ShellPolicy, expand, split_arguments

# Pieces a SKILL.md is made of, including the odd ones: aliases, tags, flow collections,
# NULs, invalid UTF-8, a BOM, CRs, tabs, timestamps and numbers YAML cannot build.
PIECES = [
    "---\n",
    "---",
    "...\n",
    "\n",
    "\r\n",
    "\t",
    " ",
    ": ",
    "- ",
    "#",
    "description: ",
    "name: ",
    "when_to_use: ",
    "arguments: ",
    "argument-hint: ",
    "allowed-tools: ",
    "context: fork\n",
    "paths:\n  - ",
    "metadata:\n  ",
    "&a ",
    "*a",
    "&b [*a, *a, *a]",
    "!!python/object:os.system ",
    "!!binary ",
    "!custom ",
    "{",
    "}",
    "[",
    "]",
    "|\n  ",
    ">-\n  ",
    '"',
    "'",
    "\\",
    "`",
    "<skill>",
    "2024-02-30",
    "2024-01-01 25:00:00",
    "0x",
    "1_000",
    "1e999",
    ".nan",
    "~",
    "yes",
    "on",
    "null",
    "%YAML 1.1\n",
    "? ",
    "@",
    "\x00",
    "\xff",
    "\ufeff",
    "\u2028",
    "\U0001f600",
    "é",
    "$ARGUMENTS",
    "x" * 5000,
    "9" * 5000,
    "a: " * 50,
]
text_piece = st.one_of(st.sampled_from(PIECES), st.text(max_size=20))
ROOT = Root(Path(tempfile.gettempdir()), Source.PROJECT, "codebot", (0,))


@st.composite
def skill_bytes(draw: st.DrawFn) -> bytes:
    parts = draw(st.lists(text_piece, max_size=40))
    text = "".join(parts)
    if draw(st.booleans()):
        text = "---\ndescription: fuzzed\n" + text  # get past the fence more often
    data = text.encode("utf-8", errors="surrogatepass")
    raw = draw(st.binary(max_size=16))  # lone \xff, truncated sequences, NULs
    where = draw(st.integers(0, len(data)))
    return data[:where] + raw + data[where:] if draw(st.booleans()) else data


FUZZ = settings(
    max_examples=300, deadline=1000, suppress_health_check=[HealthCheck.too_slow], database=None
)


@pytest.fixture(scope="module")
def skill_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / "fuzzed" / "SKILL.md"
    path.parent.mkdir()
    return path


@FUZZ
@given(data=skill_bytes())
def test_parse_file_never_fails_inside(skill_file: Path, data: bytes) -> None:
    skill_file.write_bytes(data)
    spec, diags = parse_file(skill_file, ROOT, side=False)
    assert not [d for d in diags if d.code == "internal-error"], [d.message for d in diags]
    if spec is not None:
        assert spec.description and spec.key
        spec.read_body()  # the body is readable where the parser said it starts


@pytest.mark.parametrize(
    "text",
    [
        "version: 2024-02-30",
        "version: " + "1" * 5000,
        "at: 2024-01-01 25:00:00",
        "n: 1e999",
        "a: &a [*a, *a]",
        "arguments:\n  x: {minimum: 2024-02-30}",
    ],
)
def test_values_yaml_cannot_build_are_kept_as_text(skill_file: Path, text: str) -> None:
    skill_file.write_text(f"---\ndescription: d\n{text}\n---\nbody\n", encoding="utf-8")
    _, diags = parse_file(skill_file, ROOT, side=False)
    assert "internal-error" not in {d.code for d in diags}


body_piece = st.one_of(
    st.sampled_from(
        [
            "$ARGUMENTS",
            "${ARGUMENTS}",
            "$ARGUMENTS[0]",
            "$ARGUMENTS[12]",
            "$1",
            "$9",
            "$10",
            "$1,000",
            "$B$2",
            "$name",
            "${name}",
            "$other",
            "\\$",
            "\\",
            "!`echo hi`",
            "!`",
            "```!\n",
            "```!ls\nx\n```\n",
            "```\n",
            "${CODEBOT_SKILL_DIR}",
            "${CLAUDE_SESSION_ID}",
            "\n",
            " ",
            "`",
            "$",
            "!",
            "{",
            "}",
            "[",
            "]",
        ]
    ),
    st.text(max_size=12),
)


def runner(cmd: str, policy: ShellPolicy) -> str:
    return f"<out of {cmd}>"


@settings(max_examples=600, deadline=500, database=None)
@given(
    parts=st.lists(body_piece, max_size=30),
    raw=st.text(max_size=40),
    declared=st.lists(
        st.sampled_from(["name", "path", "x", "ARGUMENTS", "1"]), max_size=3, unique=True
    ),
    live=st.booleans(),
    mode=st.sampled_from(["run", "list", "refuse"]),
)
def test_expand_never_raises(
    parts: list[str], raw: str, declared: list[str], live: bool, mode: str
) -> None:
    body = "".join(parts)
    args, note = split_arguments(raw)
    assert isinstance(args, list) and all(isinstance(a, str) for a in args)
    assert note is None or isinstance(note, str)
    exp = expand(
        body,
        args=args,
        raw_args=raw.strip(),
        declared=declared,
        positional_live=live,
        variables={"SKILL_DIR": "/s", "SESSION_ID": "id", "PROJECT_DIR": "/p"},
        shell=ShellPolicy(mode=mode),
        runner=runner,
    )
    assert isinstance(exp.text, str)
    if not any(c in body for c in "$!\\`"):
        assert exp.text == body  # nothing to expand: the body is untouched


@settings(max_examples=300, deadline=500, database=None)
@given(raw=st.text(alphabet=st.sampled_from("ab '\"\\$#;|&\n\t"), max_size=60))
def test_split_arguments_never_raises(raw: str) -> None:
    args, _note = split_arguments(raw)
    assert all(isinstance(a, str) for a in args)


def test_expand_with_a_huge_argument_index() -> None:
    out = expand(
        "$ARGUMENTS[" + "9" * 5000 + "]",
        args=["a"],
        raw_args="a",
        declared=[],
        positional_live=True,
        variables={},
        shell=ShellPolicy(mode="list"),
        runner=runner,
    )
    assert out.text == ""
