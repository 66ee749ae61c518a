"""Codex's per-skill metadata: `agents/openai.yaml` beside a SKILL.md.

It can turn off implicit invocation (`policy.allow_implicit_invocation`) and give a
display name and a short description (`interface`). A broken or odd file is a warning.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from codebot.skills.files import coerce, frontmatter
from codebot.skills.files.safe_read import NotRegularFile, kind_of, read_regular
from codebot.skills.files.spec import Severity

if TYPE_CHECKING:
    from codebot.skills.files.collector import Collector

# What a skill without the file gets (shared, never changed).
NO_CODEX: dict[str, object] = {}
MAX_OPENAI_YAML = 256 * 1024  # a few lines in practice


def read_openai_yaml(path: str, out: Collector) -> dict[str, object]:
    """Codex's per-skill metadata. Broken or odd files are a warning, never fatal."""
    if not os.access(path, os.F_OK):
        return {}  # the usual case, without the cost of a FileNotFoundError
    try:
        text = read_regular(path, MAX_OPENAI_YAML).decode("utf-8")
    except FileNotFoundError:
        return {}
    except NotRegularFile as exc:  # a FIFO here would block the whole catalog load
        out.add(
            Severity.WARNING,
            "openai-yaml",
            f"agents/openai.yaml is {kind_of(exc.mode)}, not a regular file; it is not read",
            hint="replace it with a YAML file, or remove it",
        )
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        out.add(
            Severity.WARNING,
            "openai-yaml",
            f"cannot read agents/openai.yaml: {exc}",
            hint="fix or remove the file",
        )
        return {}
    try:
        doc = frontmatter.yaml.load(text, Loader=frontmatter._Loader)
    except frontmatter.yaml.YAMLError as exc:
        out.add(
            Severity.WARNING,
            "openai-yaml",
            f"agents/openai.yaml is not valid YAML: {exc}".splitlines()[0],
            hint="fix the YAML; its policy is ignored until then",
        )
        return {}
    if not isinstance(doc, dict):
        return {}
    result: dict[str, object] = {}
    policy = doc.get("policy")
    if isinstance(policy, dict) and "allow_implicit_invocation" in policy:
        allowed, msg = coerce.to_bool(policy["allow_implicit_invocation"], True)
        if msg:
            out.add(Severity.WARNING, "openai-yaml", f"policy.allow_implicit_invocation: {msg}")
        result["allow_implicit_invocation"] = allowed
    interface = doc.get("interface")
    if isinstance(interface, dict):
        for k in ("display_name", "short_description"):
            if isinstance(interface.get(k), str):
                result[k] = interface[k].strip()
    return result
