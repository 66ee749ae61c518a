"""Parsing one skill file into a Spec: forms, fields, coercions, Codex metadata, the body."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from codebot.skills.files import Root, Severity, Source, Spec, parse_file


def parse(path: Path, root_path: Path | None = None) -> Spec:
    """Parse a file that must load; fail the test with its diagnostics if it does not."""
    root = Root(root_path or path.parent.parent, Source.PROJECT, "codebot", (0,))
    spec, diags = parse_file(path, root)
    assert spec is not None, [d.format() for d in diags]
    return spec


def codes(spec: Spec) -> list[str]:
    return [d.code for d in spec.diagnostics]


# -- file forms and names -----------------------------------------------------------


def test_directory_form_skill_md_is_parsed(skills_root, write_skill):
    path = write_skill(skills_root, "review", "name: review\ndescription: Review a diff.")
    spec = parse(path)
    assert (spec.name, spec.key, spec.description) == ("review", "review", "Review a diff.")
    assert spec.dir == skills_root / "review"
    assert not spec.single_file


def test_lowercase_skill_md_is_parsed_as_directory_form(skills_root, write_skill):
    path = write_skill(skills_root, "lint", "description: Lint it.", filename="skill.md")
    spec = parse(path)
    assert spec.name == "lint"
    assert not spec.single_file


def test_single_file_skill_is_parsed(skills_root, write_skill):
    path = write_skill(skills_root, "quick", "description: Quick one.", single_file=True)
    spec = parse(path, skills_root)
    assert spec.single_file
    assert spec.dir == skills_root


def test_name_falls_back_to_folder_name(skills_root, write_skill):
    path = write_skill(skills_root, "from-folder", "description: No name key.")
    assert parse(path).name == "from-folder"


def test_empty_name_falls_back_to_folder_name(skills_root, write_skill):
    path = write_skill(skills_root, "from-folder", 'name: ""\ndescription: Empty name.')
    assert parse(path).name == "from-folder"


def test_name_falls_back_to_file_stem_for_single_file(skills_root, write_skill):
    path = write_skill(skills_root, "from-stem", "description: No name key.", single_file=True)
    assert parse(path, skills_root).name == "from-stem"


# -- fields ---------------------------------------------------------------------------

ALL_KEYS = """
name: deploy-app
description: Deploy the app.
when_to_use: When the user asks to ship.
argument-hint: "[env]"
arguments: env region
context: fork
agent: general-purpose
model: sonnet
effort: high
allowed-tools: Read Bash(git diff:*)
disallowed-tools: [Write]
paths: src/**/*.py, docs/*.md
user-invocable: false
disable-model-invocation: yes
license: MIT
compatibility: Requires git
metadata:
  author: someone
"""


def test_every_known_frontmatter_key_becomes_a_typed_field(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "deploy-app", ALL_KEYS))
    assert spec.when_to_use == "When the user asks to ship."
    assert spec.argument_hint == "[env]"
    assert [a.name for a in spec.arguments] == ["env", "region"]
    assert spec.context == "fork"
    assert (spec.agent, spec.model, spec.effort) == ("general-purpose", "sonnet", "high")
    assert spec.allowed_tools == ("Read", "Bash(git diff:*)")
    assert spec.disallowed_tools == ("Write",)
    assert spec.paths == ("src/**/*.py", "docs/*.md")
    assert spec.user_invocable is False
    assert spec.disable_model_invocation is True
    assert (spec.license, spec.compatibility) == ("MIT", "Requires git")
    assert dict(spec.metadata) == {"author": "someone"}
    assert spec.extra == {}
    assert spec.diagnostics == ()


def test_frontmatter_keys_are_recorded_in_file_order(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "deploy-app", ALL_KEYS))
    assert spec.frontmatter_keys[:3] == ("name", "description", "when_to_use")
    assert len(spec.frontmatter_keys) == 17


def test_snake_case_and_capitalised_keys_reach_the_same_fields(skills_root, write_skill):
    fm = "Description: Mixed keys.\nallowed_tools: Read\nUser_Invocable: no\nwhen-to-use: Often."
    spec = parse(write_skill(skills_root, "mixed", fm))
    assert spec.description == "Mixed keys."
    assert spec.allowed_tools == ("Read",)
    assert spec.user_invocable is False
    assert spec.when_to_use == "Often."
    assert spec.extra == {}


def test_defaults_when_optional_keys_are_absent(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "plain", "description: Plain."))
    assert spec.context == "inline"
    assert spec.user_invocable is True
    assert spec.disable_model_invocation is False
    assert spec.allow_implicit_invocation is True
    assert spec.allowed_tools == spec.paths == spec.arguments == ()


def test_unknown_keys_are_kept_in_extra(skills_root, write_skill):
    fm = "description: x\nversion: 2\ntags: [a, b]\nhooks:\n  pre: echo hi"
    spec = parse(write_skill(skills_root, "extra", fm))
    assert dict(spec.extra) == {"version": "2", "tags": ["a", "b"], "hooks": {"pre": "echo hi"}}
    assert "tags" in spec.frontmatter_keys


def test_license_compatibility_and_metadata_are_kept(skills_root, write_skill):
    fm = (
        "description: x\nlicense: Apache-2.0\ncompatibility: Needs python3 and network\n"
        "metadata:\n  author: ada\n  category: data"
    )
    spec = parse(write_skill(skills_root, "spec-keys", fm))
    assert spec.license == "Apache-2.0"
    assert spec.compatibility == "Needs python3 and network"
    assert dict(spec.metadata) == {"author": "ada", "category": "data"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", True),
        ("YES", True),
        ("Yes", True),
        ("on", True),
        ("On", True),
        ("true", True),
        ("TRUE", True),
        ("1", True),
        ('"1"', True),
        ('"Yes"', True),
        ("no", False),
        ("NO", False),
        ("off", False),
        ("OFF", False),
        ("false", False),
        ("False", False),
        ("0", False),
        ('"off"', False),
    ],
)
def test_boolean_spellings_are_accepted_in_any_case(skills_root, write_skill, text, expected):
    fm = f"description: x\ndisable-model-invocation: {text}\nuser-invocable: {text}"
    spec = parse(write_skill(skills_root, "flags", fm))
    assert spec.disable_model_invocation is expected
    assert spec.user_invocable is expected
    assert spec.diagnostics == ()


def test_non_boolean_value_warns_and_keeps_the_default(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "flags", "description: x\nuser-invocable: sometimes"))
    assert spec.user_invocable is True
    [diag] = spec.diagnostics
    assert (diag.code, diag.field, diag.line, diag.severity) == (
        "bad-field",
        "user-invocable",
        3,
        Severity.WARNING,
    )


# -- lists ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["allowed-tools", "disallowed-tools"])
@pytest.mark.parametrize(
    "value",
    [
        "[Read, Grep, 'Bash(git diff:*)']",
        "Read Grep Bash(git diff:*)",
        "Read, Grep, Bash(git diff:*)",
        "\n  - Read\n  - Grep\n  - Bash(git diff:*)",
    ],
    ids=["flow-list", "spaces", "commas", "block-list"],
)
def test_tool_lists_accept_a_list_or_a_space_or_comma_string(skills_root, write_skill, key, value):
    spec = parse(write_skill(skills_root, "tools", f"description: x\n{key}: {value}"))
    assert getattr(spec, key.replace("-", "_")) == ("Read", "Grep", "Bash(git diff:*)")


def test_bash_pattern_with_spaces_inside_parentheses_stays_one_tool(skills_root, write_skill):
    fm = "description: x\nallowed-tools: Bash(git log --oneline:*), Read"
    spec = parse(write_skill(skills_root, "tools", fm))
    assert spec.allowed_tools == ("Bash(git log --oneline:*)", "Read")


@pytest.mark.parametrize(
    "value",
    [
        "src/**/*.{ts,tsx}, docs/*.md",
        '["src/**/*.{ts,tsx}", "docs/*.md"]',
        "\n  - src/**/*.{ts,tsx}\n  - docs/*.md",
    ],
    ids=["comma-string", "flow-list", "block-list"],
)
def test_paths_keep_a_brace_glob_as_one_entry(skills_root, write_skill, value):
    spec = parse(write_skill(skills_root, "globs", f"description: x\npaths: {value}"))
    assert spec.paths == ("src/**/*.{ts,tsx}", "docs/*.md")


@pytest.mark.parametrize(
    "value",
    ["[file, line]", "file line", "file, line", "\n  - file\n  - line"],
    ids=["flow-list", "spaces", "commas", "block-list"],
)
def test_arguments_accept_a_list_or_a_string_of_names(skills_root, write_skill, value):
    spec = parse(write_skill(skills_root, "args", f"description: x\narguments: {value}"))
    assert [a.name for a in spec.arguments] == ["file", "line"]
    assert all(a.schema is None and not a.required for a in spec.arguments)


def test_tool_list_of_mappings_warns_and_keeps_the_strings(skills_root, write_skill):
    fm = "description: x\nallowed-tools:\n  - Read\n  - {tool: Bash}"
    spec = parse(write_skill(skills_root, "tools", fm))
    assert spec.allowed_tools == ("Read",)
    assert [(d.code, d.field) for d in spec.diagnostics] == [("bad-field", "allowed-tools")]


# -- arguments with schemas -------------------------------------------------------------

ARG_SCHEMAS = """
description: x
arguments:
  target:
    type: string
    enum: [staging, production]
    description: Where to deploy.
    required: true
  dry_run:
    type: boolean
  note: Free text for the log.
"""


def test_arguments_mapping_gives_json_schema_per_argument(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "deploy", ARG_SCHEMAS))
    target, dry_run, _note = spec.arguments
    assert (target.name, target.required, target.description) == (
        "target",
        True,
        "Where to deploy.",
    )
    assert dict(target.schema) == {
        "type": "string",
        "enum": ["staging", "production"],
        "description": "Where to deploy.",
    }
    assert dict(dry_run.schema) == {"type": "boolean"}
    assert not dry_run.required


def test_argument_given_only_a_description_has_no_schema(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "deploy", ARG_SCHEMAS))
    note = spec.arguments[2]
    assert (note.name, note.description, note.schema, note.required) == (
        "note",
        "Free text for the log.",
        None,
        False,
    )


def test_argument_schema_is_a_valid_json_schema(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "deploy", ARG_SCHEMAS))
    for arg in spec.arguments:
        if arg.schema is not None:
            jsonschema.Draft202012Validator.check_schema(dict(arg.schema))


def test_argument_schema_keeps_numbers_as_numbers(skills_root, write_skill):
    fm = "description: x\narguments:\n  count:\n    type: integer\n    minimum: 1\n    maximum: 10"
    spec = parse(write_skill(skills_root, "repeat", fm))
    [count] = spec.arguments
    assert dict(count.schema) == {"type": "integer", "minimum": 1, "maximum": 10}
    jsonschema.Draft202012Validator.check_schema(dict(count.schema))


def test_argument_list_of_named_mappings_is_accepted(skills_root, write_skill):
    fm = "description: x\narguments:\n  - name: path\n    type: string\n    required: yes\n  - mode"
    spec = parse(write_skill(skills_root, "args", fm))
    path, mode = spec.arguments
    assert (path.name, path.required, dict(path.schema)) == ("path", True, {"type": "string"})
    assert (mode.name, mode.schema) == ("mode", None)


def test_argument_name_that_is_not_an_identifier_warns(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "args", "description: x\narguments: [file-name]"))
    assert [a.name for a in spec.arguments] == ["file-name"]
    assert [(d.code, d.field) for d in spec.diagnostics] == [("bad-field", "arguments")]


# -- scalar values ----------------------------------------------------------------------


def test_metadata_dates_and_numbers_become_strings(skills_root, write_skill):
    fm = (
        "description: x\nmetadata:\n  updated: 2024-05-01\n  stars: 42\n  ratio: 0.5\n  beta: "
        "true\n  owner:"
    )
    spec = parse(write_skill(skills_root, "meta", fm))
    assert dict(spec.metadata) == {
        "updated": "2024-05-01",
        "stars": "42",
        "ratio": "0.5",
        "beta": "true",
        "owner": "",
    }


def test_metadata_nested_values_become_json_strings_with_a_warning(skills_root, write_skill):
    fm = "description: x\nmetadata:\n  tags: [a, b]\n  author: {name: ada}"
    spec = parse(write_skill(skills_root, "meta", fm))
    assert dict(spec.metadata) == {"tags": '["a", "b"]', "author": '{"name": "ada"}'}
    assert [(d.code, d.field) for d in spec.diagnostics] == [("bad-field", "metadata")]


def test_version_1_0_stays_text_in_metadata(skills_root, write_skill):
    fm = "description: x\nmetadata:\n  version: 1.0\n  patch: 1.10"
    spec = parse(write_skill(skills_root, "ver", fm))
    assert dict(spec.metadata) == {"version": "1.0", "patch": "1.10"}


def test_version_1_0_stays_text_in_extra(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "ver", "description: x\nversion: 1.0"))
    assert spec.extra["version"] == "1.0"


def test_numeric_name_is_read_as_text(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "2048", "name: 2048\ndescription: A game."))
    assert (spec.name, spec.key) == ("2048", "2048")


def test_description_written_as_list_is_joined_with_a_warning(skills_root, write_skill):
    spec = parse(
        write_skill(skills_root, "multi", "description:\n  - First part.\n  - Second part.")
    )
    assert spec.description == "First part. Second part."
    assert [(d.code, d.field) for d in spec.diagnostics] == [("bad-field", "description")]


def test_folded_description_is_one_line(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "folded", "description: >\n  Line one\n  line two.\n"))
    assert spec.description == "Line one line two."


def test_argument_hint_written_as_yaml_list_keeps_the_text(skills_root, write_skill):
    spec = parse(
        write_skill(skills_root, "hint", "description: x\nargument-hint: [optional: date]")
    )
    assert spec.argument_hint == "[optional: date]"
    assert spec.diagnostics == ()


def test_context_is_case_insensitive(skills_root, write_skill):
    assert parse(write_skill(skills_root, "ctx", "description: x\ncontext: Fork")).context == "fork"


def test_unknown_context_warns_and_runs_inline(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "ctx", "description: x\ncontext: sandbox"))
    assert spec.context == "inline"
    assert [(d.code, d.field, d.line) for d in spec.diagnostics] == [("bad-field", "context", 3)]


# -- lenient syntax ---------------------------------------------------------------------


def _write_bytes(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_utf8_bom_is_accepted(skills_root):
    path = _write_bytes(
        skills_root / "bom" / "SKILL.md", b"\xef\xbb\xbf---\ndescription: With BOM.\n---\nBody\n"
    )
    spec = parse(path)
    assert spec.description == "With BOM."
    assert spec.read_body() == "Body\n"


def test_crlf_line_endings_are_accepted(skills_root):
    data = b"---\r\nname: crlf\r\ndescription: Windows file.\r\n---\r\nBody line\r\n"
    spec = parse(_write_bytes(skills_root / "crlf" / "SKILL.md", data))
    assert (spec.name, spec.description) == ("crlf", "Windows file.")
    assert spec.body_line == 5
    assert spec.read_body() == "Body line\r\n"


def test_trailing_spaces_after_fences_are_accepted(skills_root):
    data = b"---   \ndescription: Spaces.\n---\t \nBody\n"
    spec = parse(_write_bytes(skills_root / "spaces" / "SKILL.md", data))
    assert spec.description == "Spaces."
    assert spec.read_body() == "Body\n"


def test_description_with_colon_loads_with_yaml_repaired_warning(skills_root, write_skill):
    path = write_skill(
        skills_root, "changelog", "name: changelog\ndescription: Usage: /changelog <generate|lint>"
    )
    spec = parse(path)
    assert spec.description == "Usage: /changelog <generate|lint>"
    [diag] = spec.diagnostics
    assert (diag.code, diag.severity, diag.line) == ("yaml-repaired", Severity.WARNING, 3)


def test_argument_hint_with_two_bracket_groups_loads_with_yaml_repaired_warning(
    skills_root, write_skill
):
    path = write_skill(skills_root, "fix", "description: x\nargument-hint: [path] [--fix]")
    spec = parse(path)
    assert spec.argument_hint == "[path] [--fix]"
    assert [(d.code, d.line) for d in spec.diagnostics] == [("yaml-repaired", 3)]


def test_description_starting_with_a_backtick_loads_with_yaml_repaired_warning(
    skills_root, write_skill
):
    spec = parse(write_skill(skills_root, "tick", "description: `make` runs the build"))
    assert spec.description == "`make` runs the build"
    assert [d.code for d in spec.diagnostics] == ["yaml-repaired"]


def test_valid_list_line_is_not_rewritten_when_another_line_is_repaired(skills_root, write_skill):
    fm = "description: [One, Two]\nwhen_to_use: Usage: /x <a|b>"
    spec = parse(write_skill(skills_root, "mixed", fm))
    assert spec.when_to_use == "Usage: /x <a|b>"
    assert spec.description == "One Two"  # as when no other line is broken
    assert [(d.code, d.line) for d in spec.diagnostics if d.code == "yaml-repaired"] == [
        ("yaml-repaired", 3)
    ]


def test_yaml_document_end_marker_closes_frontmatter(skills_root):
    spec = parse(
        _write_bytes(skills_root / "dots" / "SKILL.md", b"---\ndescription: x\n...\nBody\n")
    )
    assert spec.read_body() == "Body\n"


# -- Codex agents/openai.yaml -------------------------------------------------------------


def _openai_yaml(skill_md: Path, text: str) -> None:
    target = skill_md.parent / "agents" / "openai.yaml"
    target.parent.mkdir()
    target.write_text(text, encoding="utf-8")


def test_openai_yaml_policy_can_forbid_implicit_invocation(skills_root, write_skill):
    path = write_skill(skills_root, "codex", "description: x")
    _openai_yaml(path, "policy:\n  allow_implicit_invocation: false\n")
    spec = parse(path)
    assert spec.allow_implicit_invocation is False
    assert spec.disable_model_invocation is False  # the frontmatter flag is separate


def test_openai_yaml_interface_names_are_read(skills_root, write_skill):
    path = write_skill(skills_root, "codex", "description: x")
    _openai_yaml(
        path, "interface:\n  display_name: Codex Helper \n  short_description: Helps with Codex\n"
    )
    spec = parse(path)
    assert (spec.display_name, spec.short_description) == ("Codex Helper", "Helps with Codex")
    assert spec.allow_implicit_invocation is True


def test_broken_openai_yaml_is_a_warning_not_fatal(skills_root, write_skill):
    path = write_skill(skills_root, "codex", "description: x")
    _openai_yaml(path, "policy: [unclosed\n")
    spec = parse(path)
    assert spec.allow_implicit_invocation is True
    [diag] = spec.diagnostics
    assert (diag.code, diag.severity) == ("openai-yaml", Severity.WARNING)


def test_openai_yaml_with_non_boolean_policy_warns(skills_root, write_skill):
    path = write_skill(skills_root, "codex", "description: x")
    _openai_yaml(path, "policy:\n  allow_implicit_invocation: maybe\n")
    spec = parse(path)
    assert spec.allow_implicit_invocation is True
    assert codes(spec) == ["openai-yaml"]


def test_openai_yaml_is_not_read_for_single_file_skills(skills_root, write_skill):
    path = write_skill(skills_root, "solo", "description: x", single_file=True)
    (skills_root / "agents").mkdir()
    (skills_root / "agents" / "openai.yaml").write_text(
        "policy:\n  allow_implicit_invocation: false\n"
    )
    assert parse(path, skills_root).allow_implicit_invocation is True


# -- the body -------------------------------------------------------------------------------


def test_body_is_not_stored_and_is_read_fresh_after_an_edit(skills_root, write_skill):
    path = write_skill(skills_root, "live", "description: x", body="First body.\n")
    spec = parse(path)
    assert spec.read_body() == "First body.\n"
    assert "First body." not in repr(spec)
    path.write_text(path.read_text().replace("First body.", "Edited body, longer than before."))
    assert spec.read_body() == "Edited body, longer than before.\n"


def test_body_line_is_the_line_after_the_closing_fence(skills_root, write_skill):
    spec = parse(write_skill(skills_root, "lines", "name: lines\ndescription: x", body="# Title\n"))
    assert spec.body_line == 5
    assert spec.read_body().startswith("# Title")


def test_file_with_frontmatter_and_no_body_has_an_empty_body(skills_root):
    spec = parse(_write_bytes(skills_root / "nobody" / "SKILL.md", b"---\ndescription: x\n---"))
    assert spec.read_body() == ""


# -- duplicate top-level keys -----------------------------------------------------------
# YAML keeps the last of two equal keys silently; a grant field written twice grants
# nothing (the skill still loads, with a `duplicate-grant` warning), other keys only warn.

GRANTING = "description: Ship it.\nmodel: big-model\neffort: high\ncontext: fork\nagent: explore\n"


def dupes(spec: Spec, code: str = "duplicate-grant") -> list:
    return [d for d in spec.diagnostics if d.code == code]


def assert_no_grants(spec: Spec) -> None:
    assert spec.allowed_tools == ()
    assert (spec.model, spec.effort, spec.context, spec.agent) == (None, None, "inline", None)


def test_duplicated_allowed_tools_grants_nothing(skills_root, write_skill):
    path = write_skill(skills_root, "ship", GRANTING + "allowed-tools: Read\nallowed-tools: Bash\n")
    spec = parse(path)
    assert_no_grants(spec)  # model, effort, context and agent go too, not only the tools
    (d,) = dupes(spec)
    assert d.severity is Severity.WARNING and d.field == "allowed-tools"
    assert "line 7" in d.message and "line 8" in d.message and d.line == 8
    assert "keep one" in d.hint
    assert spec.disallowed_tools == () and spec.description == "Ship it."


def test_duplicated_model_grants_nothing(skills_root, write_skill):
    path = write_skill(
        skills_root, "ship", "description: Ship.\nmodel: small\nallowed-tools: Read\nmodel: big\n"
    )
    spec = parse(path)
    assert_no_grants(spec)
    (d,) = dupes(spec)
    assert d.field == "model" and "line 3" in d.message and "line 5" in d.message


@pytest.mark.parametrize(
    "first, second",
    [
        ("allowed_tools", "allowed-tools"),
        ("Model", "model"),
        ("EFFORT", "effort"),
        ("Context", "context"),
        ("agent", "Agent"),
    ],
)
def test_spellings_that_fold_together_are_duplicates(skills_root, write_skill, first, second):
    path = write_skill(
        skills_root,
        "ship",
        f"description: Ship.\n{first}: fork\nallowed-tools: Read\n{second}: fork\n",
    )
    spec = parse(path)
    assert_no_grants(spec)
    (d,) = dupes(spec)
    assert repr(first) in d.message and repr(second) in d.message


def test_a_key_three_times_names_every_line(skills_root, write_skill):
    path = write_skill(
        skills_root, "ship", "description: Ship.\neffort: low\neffort: high\neffort: max\n"
    )
    (d,) = dupes(parse(path))
    assert all(f"line {n}" in d.message for n in (3, 4, 5)) and "3 times" in d.message


def test_duplicate_under_metadata_is_not_top_level(skills_root, write_skill):
    text = (
        "description: Ship.\nallowed-tools: Read\nmetadata:\n  allowed-tools: Bash\n  model: x\n"
        "  model: y\n"
    )
    spec = parse(write_skill(skills_root, "ship", text))
    assert spec.allowed_tools == ("Read",)
    assert [d.code for d in spec.diagnostics if d.code.startswith("duplicate")] == []


def test_duplicate_non_grant_key_warns_and_keeps_the_last(skills_root, write_skill):
    path = write_skill(
        skills_root, "ship", "description: First.\nallowed-tools: Read\ndescription: Second.\n"
    )
    spec = parse(path)
    assert spec.description == "Second." and spec.allowed_tools == ("Read",)
    assert dupes(spec) == []
    (d,) = dupes(spec, "duplicate-key")
    assert d.severity is Severity.WARNING and d.field == "description"


def test_quoted_key_is_a_duplicate_too(skills_root, write_skill):
    # Quoted keys are read by PyYAML (the fast path refuses them).
    path = write_skill(
        skills_root, "ship", 'description: Ship.\nallowed-tools: Read\n"allowed-tools": Bash\n'
    )
    spec = parse(path)
    assert spec.allowed_tools == ()
    assert [d.field for d in dupes(spec)] == ["allowed-tools"]


def test_a_merge_key_is_not_a_duplicate(skills_root, write_skill):
    text = "description: Ship.\nmetadata: &m\n  owner: me\n<<: *m\nallowed-tools: Read\n"
    spec = parse(write_skill(skills_root, "ship", text))
    assert spec.allowed_tools == ("Read",)
    assert [d.code for d in spec.diagnostics if d.code.startswith("duplicate")] == []


DUPLICATE_TEXTS = [
    "description: Ship.\nallowed-tools: Read\nallowed-tools: Bash\n",
    "description: Ship.\nmodel: a\nModel: b\neffort: high\n",
    "description: Ship.\nallowed_tools: Read\nallowed-tools: Bash\ncontext: fork\n",
    "description: Ship.\nallowed-tools: Read\nmetadata:\n  allowed-tools: Bash\n  allowed-tools: "
    "Edit\n",
    "description: One.\ndescription: Two.\nmodel: m\n",
    "description: Ship.\nallowed-tools:\n  - Read\nallowed-tools:\n  - Bash\n",
]


@pytest.mark.parametrize("text", DUPLICATE_TEXTS)
def test_fast_path_and_pyyaml_agree_on_duplicates(skills_root, write_skill, monkeypatch, text):
    from codebot.skills.files import frontmatter

    assert frontmatter.simple_load(text) is not None  # the fast path does take these texts
    path = write_skill(skills_root, "ship", text)
    fast = parse(path)
    monkeypatch.setattr(frontmatter, "simple_load", lambda *a, **k: None)  # PyYAML only
    slow = parse(path)
    fields = ("allowed_tools", "model", "effort", "context", "agent", "description", "metadata")
    assert [getattr(fast, f) for f in fields] == [getattr(slow, f) for f in fields]
    assert fast.diagnostics == slow.diagnostics


def test_load_keys_reports_the_same_keys_on_both_paths(monkeypatch):
    from codebot.skills.files import frontmatter

    text = "a: 1x\nb:\n  a: x\nA: y\na: z\n"
    sp = frontmatter.split(f"---\n{text}---\nbody\n".encode())
    assert sp is not None
    fast = frontmatter.load_keys(sp)
    assert fast[2] == [("a", 2), ("b", 3), ("A", 5), ("a", 6)]
    monkeypatch.setattr(frontmatter, "simple_load", lambda *a, **k: None)
    assert frontmatter.load_keys(sp) == fast
    assert frontmatter.load(sp) == fast[:2]
