"""Shared by the TUI and line mode: the diff of what an Edit or Write changed, shown to the
person after it succeeded.

The diff comes from the tool's own result (Edit always carries one, Write when it
overwrote a file; `agent/tools/files.py`), so what the person sees is what the model was
told. Every line goes through `visible()`: a file's escape sequences never reach the
terminal.
"""

from __future__ import annotations

from codebot.display import visible

#: The most diff lines line mode prints after a change (the TUI shows the whole result).
SHOWN_LINES = 40
WRITING_TOOLS = ("Edit", "Write")


def change_diff(name: str, status: str, content: str, max_lines: int | None = None) -> str | None:
    """The unified diff an ok Edit or Write result holds, from its first hunk (the
    summary line before it names the file), control characters escaped; None when there
    is none. `max_lines` cuts it, saying how many lines were left out."""
    if status != "ok" or name not in WRITING_TOOLS or "\n@@ " not in content:
        return None
    lines = content.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.startswith("@@ ")), None)
    if start is None:
        return None
    body = [visible(ln) for ln in lines[start:]]
    if max_lines is not None and len(body) > max_lines:
        body = [*body[:max_lines], f"[… {len(body) - max_lines} more diff lines]"]
    return "\n".join(body)
