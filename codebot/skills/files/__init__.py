"""Stage 1 of the skill flow: one file on disk becomes a `Spec` or diagnostics.

Owns the vocabulary every later stage uses (`Spec`, `Root`, `Source`, `Diagnostic`,
name normalization), frontmatter splitting and safe YAML, lenient coercion of values,
the `arguments` field, Codex's `agents/openai.yaml`, and the one way a file from a skill
root is read (`read_regular`: regular files only, size-limited, never blocks).
May import: nothing else in codebot but `codebot.home`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.skills.files.command_file import COMMANDS
    from codebot.skills.files.frontmatter import simple_load
    from codebot.skills.files.names import NameProblem, name_problems, spec_valid
    from codebot.skills.files.parse import parse_file
    from codebot.skills.files.safe_read import (
        MAX_FILE_BYTES,
        NotRegularFile,
        TooLarge,
        read_regular,
    )
    from codebot.skills.files.spec import (
        EMPTY,
        Argument,
        Diagnostic,
        Root,
        Severity,
        Source,
        Spec,
        Stamp,
        new_stamp,
        normalize_name,
        slot_maker,
    )


_EXPORTS = {
    "COMMANDS": "command_file",
    "Argument": "spec",
    "Diagnostic": "spec",
    "EMPTY": "spec",
    "MAX_FILE_BYTES": "safe_read",
    "NameProblem": "names",
    "NotRegularFile": "safe_read",
    "Root": "spec",
    "Severity": "spec",
    "Source": "spec",
    "Spec": "spec",
    "Stamp": "spec",
    "TooLarge": "safe_read",
    "name_problems": "names",
    "new_stamp": "spec",
    "normalize_name": "spec",
    "parse_file": "parse",
    "read_regular": "safe_read",
    "simple_load": "frontmatter",
    "slot_maker": "spec",
    "spec_valid": "names",
}
__all__ = [
    "COMMANDS",
    "EMPTY",
    "MAX_FILE_BYTES",
    "Argument",
    "Diagnostic",
    "NameProblem",
    "NotRegularFile",
    "Root",
    "Severity",
    "Source",
    "Spec",
    "Stamp",
    "TooLarge",
    "name_problems",
    "new_stamp",
    "normalize_name",
    "parse_file",
    "read_regular",
    "simple_load",
    "slot_maker",
    "spec_valid",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
