"""The offline model: what codebot runs on when no model or provider key is configured.

It is deterministic and honest, and shows the product instead of apologising. Like a
real model it sees only the conversation: it reads the skill listing from the
`<system-reminder>` on the user message and calls the `Skill` tool when the router
selects a listed skill. When the skill's text comes back (or the person typed `/name`)
it answers with which skill and why (the router's own explanation), the prompt a real
model would receive (quoted, trimmed), and the output of the few read-only steps it
may run for that skill (`READ_ONLY_STEPS`: fixed commands per bundled skill name, never
parsed from a skill body, only in a trusted folder, with a timeout). A request it does
not route gets a short answer that fits what was asked (small talk, a question, a task)
with the closest skills. Every answer ends with one line on how to connect a model
(`connect_line`), naming a local server when a front end found one (`local_servers`).

A compaction's summary request is answered with `extract(...)`. It never imports litellm.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from codebot.agent.model.local_probe import DEFAULT_CONNECT, Found, connect_line
from codebot.agent.model.protocol import (
    Completion,
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
)
from codebot.agent.model.summary import SUMMARY_PREFIX, extract
from codebot.agent.model.tokens import estimate_tokens
from codebot.skills.prompt.reminders import DELTA_HEAD

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.DOTALL)
_LISTED = re.compile(r"^- (?P<name>[^\s\[:]+)(?: \[[^\]]*\])?(?:: (?P<desc>.*))?$", re.MULTILINE)
_SKILL_START = re.compile(r'\s*<skill name="([^"]+)"')  # a skill's text starts with its tag
_SKILL_TAGS = re.compile(r'^<skill name="([^"]+)"[^>\n]*>$', re.MULTILINE)

#: The one line every offline answer ends with (when no local server was found).
HOW_TO = DEFAULT_CONNECT

#: (request text, listed skills as (name, description)) -> chosen name or None
Matcher = Callable[[str, Sequence[tuple[str, str]]], str | None]

#: The read-only commands the offline model runs for a skill of this name (bundled names).
#: Fixed argv, never taken from a skill body or the request; run only in a trusted folder.
READ_ONLY_STEPS: dict[str, tuple[tuple[str, ...], ...]] = {
    "review": (("git", "status", "--short"), ("git", "diff", "--stat")),
    "commit": (
        ("git", "status", "--short"),
        ("git", "diff", "--stat"),
        ("git", "diff", "--cached", "--stat"),
    ),
}
#: Skills for which the project's test files are listed (a bounded walk, no command).
LISTS_TESTS = frozenset({"test"})
STEP_TIMEOUT = 5.0  # seconds per command
PROMPT_CHARS, PROMPT_LINES = 1200, 30  # how much of the skill prompt is quoted
OUTPUT_CHARS, OUTPUT_LINES = 3000, 40  # how much of one command's output is shown
_TEST_FILE = re.compile(
    r"(^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$|Test\.java$|_spec\.rb$)"
)
_SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "build", "dist", "target", "venv", "site-packages"}
)


def lexical_match(text: str, listed: Sequence[tuple[str, str]]) -> str | None:
    """Pick a listed skill whose name appears in the request, or whose description shares
    at least two content words with it; the clearest winner only."""
    ranked = _lexical_ranking(text, listed)
    if not ranked or ranked[0][0] < 2.0 or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return None
    return ranked[0][1]


def _lexical_ranking(
    text: str, listed: Sequence[tuple[str, str]]
) -> list[tuple[float, str, list[str]]]:
    """(score, name, shared words) for listed skills sharing a word with `text`, best first."""
    from codebot.skills.prompt import tokens

    q = set(tokens(text))
    out = []
    for name, desc in listed:
        name_words = set(tokens(name.replace("-", " ").replace(":", " ")))
        shared = q & (name_words | set(tokens(desc)))
        s = 3.0 * len(q & name_words) + len(q & set(tokens(desc)))
        if s > 0:
            out.append((s, name, sorted(shared)))
    return sorted(out, key=lambda x: -x[0])


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _snapshot_getter_of(fn: Any) -> Callable[[], Any] | None:
    """The catalog snapshot getter inside `router.offline_matcher(...)`'s closure, which
    `build_session` assigns as the matcher: routing again with it gives the explanation."""
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None) or ()
    for name, cell in zip(getattr(code, "co_freevars", ()), cells, strict=False):
        if name == "snapshot_getter":
            try:
                value = cell.cell_contents
            except ValueError:
                return None
            return value if callable(value) else None
    return None


def _code(text: str) -> str:
    """`text` as Markdown inline code, whatever backticks it holds."""
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if fence != "`" else f"`{text}`"


def _block(text: str) -> str:
    fence = "`" * max(3, max((len(r) for r in re.findall(r"`{3,}", text)), default=0) + 1)
    return f"{fence}text\n{text}\n{fence}"


def _clip(text: str, chars: int, lines: int) -> tuple[str, int]:
    """The first lines of `text` within both limits, and how many lines were left out."""
    rows, kept, used = text.splitlines(), [], 0
    for row in rows:
        if len(kept) >= lines or (kept and used + len(row) > chars):
            break
        kept.append(row[:chars])
        used += len(row) + 1
    return "\n".join(kept), len(rows) - len(kept)


class OfflineModel:
    model = "offline"
    context_window: int | None = None
    offline = True

    @staticmethod
    def count_tokens(text: str) -> int:
        return estimate_tokens(text)

    def __init__(
        self,
        matcher: Matcher | None = None,
        *,
        project_dir: str | Path | None = None,
        trusted: bool = False,
        snapshot: Callable[[], Any] | None = None,
        local_servers: Sequence[Found] = (),
    ) -> None:
        #: () -> the catalog snapshot, for the router's explanation and the closest skills
        self.snapshot = snapshot
        self.project_dir = Path(project_dir) if project_dir is not None else None
        #: read-only steps run only in a folder the person trusted
        self.trusted = trusted
        #: what `local_probe.probe` found; a front end sets it, the last line names it
        self.local_servers: tuple[Found, ...] = tuple(local_servers)
        self.matcher = matcher or lexical_match
        self._calls = 0

    @property
    def matcher(self) -> Matcher:
        return self._matcher

    @matcher.setter
    def matcher(self, fn: Matcher) -> None:
        self._matcher = fn
        if self.snapshot is None:
            self.snapshot = _snapshot_getter_of(fn)

    def connect(self) -> str:
        return connect_line(self.local_servers)

    def _listed(self, messages: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
        """The listing as the conversation has it: the latest full listing, with the
        changes sent after it (`+ name: …`, `− name`, `~ name: …`) applied."""
        listed: dict[str, str] = {}
        for m in messages:
            if m.get("role") != "user":
                continue
            for block in re.findall(
                r"<system-reminder>(.*?)</system-reminder>", _text(m.get("content")), re.DOTALL
            ):
                if block.strip().startswith(DELTA_HEAD):
                    for line in block.splitlines():
                        if line[:2] in ("+ ", "~ ") and (x := _LISTED.match("- " + line[2:])):
                            listed[x["name"]] = x["desc"] or ""
                        elif line.startswith("− "):
                            listed.pop(line[2:].strip(), None)
                    continue
                found = [(x["name"], x["desc"] or "") for x in _LISTED.finditer(block)]
                if found:
                    listed = dict(found)
        return list(listed.items())

    def decide(self, messages: Sequence[dict[str, Any]]) -> Completion:
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        if last_user >= 0 and _text(messages[last_user].get("content")).startswith(SUMMARY_PREFIX):
            # A compaction's summary request: a deterministic extract, so compaction works
            # (and can be tested) without a model.
            return Completion(extract(_text(messages[last_user].get("content"))))
        after = messages[last_user + 1 :]
        used_skill = [
            c["function"]["name"]
            for m in after
            for c in m.get("tool_calls") or []
            if "function" in c
        ]
        request = (
            _REMINDER.sub("", _text(messages[last_user].get("content"))).strip()
            if last_user >= 0
            else ""
        )
        if after and after[-1].get("role") == "tool":
            result = _text(after[-1].get("content"))
            if _SKILL_START.match(result):
                return Completion(
                    self._skill_answer(result, self._why_routed(request, messages, result))
                )
            return Completion(
                f"The tool answered:\n\n{_block(_clip(result, 2000, 40)[0])}\n\n"
                f"I am codebot's offline model, so I cannot act on it.\n\n{self.connect()}"
            )
        if _SKILL_START.match(request):
            names = _SKILL_TAGS.findall(request)
            typed = ", ".join(f"`/{n}`" for n in names)
            return Completion(
                self._skill_answer(
                    request, f"you asked for it by name ({typed}), so no routing was needed."
                )
            )
        listed = self._listed(messages)
        if "Skill" not in used_skill and request:
            choice = self.matcher(request, listed)
            if choice:
                self._calls += 1
                call = ToolCall(
                    f"offline-{self._calls}", "Skill", json.dumps({"skill": choice, "args": ""})
                )
                return Completion("", (call,), finish_reason="tool_calls")
        return Completion(self._unrouted(request, listed))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        # In a thread: the read-only steps run commands (bounded by STEP_TIMEOUT).
        completion = await asyncio.to_thread(self.decide, request.messages)
        if completion.text:
            yield TextDelta(completion.text)
        yield Completion(
            completion.text,
            completion.tool_calls,
            Usage(),
            self.model,
            completion.finish_reason or "stop",
        )

    # -- routing, explained ----------------------------------------------------------------

    def _route(self, request: str, listed: Sequence[tuple[str, str]]) -> Any:
        """The router's full answer among the listed skills, or None without a catalog."""
        try:
            snap = self.snapshot() if self.snapshot is not None else None
        except Exception:
            snap = None
        if snap is None or not listed or not request:
            return None
        from codebot.skills.files import normalize_name
        from codebot.skills.invoke import Actor
        from codebot.skills.route import default_router

        return default_router().route(
            request, snap, Actor.MODEL, restrict={normalize_name(n) for n, _ in listed}
        )

    def _why_routed(self, request: str, messages: Sequence[dict[str, Any]], result: str) -> str:
        m = _SKILL_START.match(result)
        name = m.group(1) if m else "?"
        listed = self._listed(messages)
        r = self._route(request, listed)
        if r is not None and r.selected is not None and r.selected.name == name and r.candidates:
            matched = r.candidates[0].why.removesuffix("; chosen")
            asked = " ".join(request.split())
            asked = asked if len(asked) <= 160 else asked[:159] + "…"
            return f"for {_code(asked)} the router {matched}. {r.reason}."
        words = next((w for _, n, w in _lexical_ranking(request, listed) if n == name), [])
        shared = f" ({', '.join(words)})" if words else ""
        return (
            f"the request shares words with its name or description{shared}, and no other listed "
            "skill is as close."
        )

    def _skill_answer(self, prompt: str, why: str) -> str:
        names = _SKILL_TAGS.findall(prompt) or ["?"]
        shown = ", ".join(f"**{n}**" for n in names)
        parts = [
            f"I am codebot's offline model, so I cannot carry out {shown} myself. "
            "Here is what a real model would get, and what I could run.",
            f"**Why {names[0]}:** {why}",
        ]
        body, left = _clip(prompt.strip(), PROMPT_CHARS, PROMPT_LINES)
        shown_note = f", the first {len(body.splitlines())} lines shown" if left else ""
        quoted = "\n".join(
            ">"
            if not row.strip()
            else f"> {_code(row)}"
            if row.startswith(("<skill ", "</skill>"))
            else f"> {row}"
            for row in body.splitlines()
        )
        if left:
            quoted += f"\n>\n> … {left} more lines"
        parts.append(
            f"**The prompt a real model would receive** ({len(prompt.strip()):,} "
            f"characters{shown_note}):"
            f"\n\n{quoted}"
        )
        parts.extend(self._steps(names))
        parts.append(self.connect())
        return "\n\n".join(parts)

    def _unrouted(self, request: str, listed: Sequence[tuple[str, str]]) -> str:
        """A request no skill was chosen for: an answer that fits what was asked."""
        from codebot.skills.route import request_shape

        r = self._route(request, listed)
        shape = r.shape if r is not None else request_shape(request) if request else "chat"
        if r is not None:
            close = [
                (c.name, f"{c.score:.2f}: {', '.join(c.words()[:4])}")
                for c in r.candidates[:3]
                if c.words()
            ]
        else:
            close = [(n, ", ".join(w[:4])) for _, n, w in _lexical_ranking(request, listed)[:3]]
        closest = (
            "Closest skills:\n" + "\n".join(f"- `/{n}` ({why})" for n, why in close)
            if close
            else ""
        )
        if not listed:
            text = (
                "I am codebot's offline model, and no skills are listed for this conversation, "
                "so there is nothing I can run for this."
            )
        elif shape == "chat":
            examples = ", ".join(f"`/{n}`" for n, _ in listed[:3])
            text = (
                "Hello! I am codebot's offline model: no model is connected, so I cannot chat, "
                "but skills "
                f"work. Type one ({examples}, … {len(listed)} in all) or describe a task such as "
                f'"review my changes", and I will show which skill it goes to and why.'
            )
        elif shape in ("concept", "howto"):
            text = (
                "That is a question, and answering questions takes a real model: I am codebot's "
                "offline "
                "model and can only route requests to skills."
            )
            text += f"\n\n{closest}" if closest else ""
        elif r is not None and r.decision == "ask" and len(r.options) >= 2:
            a, b = (s.name for s in r.options[:2])
            text = (
                "I am codebot's offline model. Two skills fit this about equally, so I did not "
                "choose: "
                f"`/{a}` or `/{b}` ({r.reason}). Type the one you mean."
            )
        elif close:
            why = f" (the router: {r.reason})" if r is not None else ""
            text = (
                "I am codebot's offline model, and no skill fits this closely enough to choose "
                f"one{why}.\n\n"
                f"{closest}\n\nType `/name` to run one anyway."
            )
        else:
            text = (
                f"I am codebot's offline model, and none of the {len(listed)} listed skills shares "
                "a word with "
                "this request (`/skills` or `codebot skills list` shows them)."
            )
        return f"{text}\n\n{self.connect()}"

    # -- read-only steps ------------------------------------------------------------------

    def _steps(self, names: Sequence[str]) -> list[str]:
        commands = list(dict.fromkeys(c for n in names for c in READ_ONLY_STEPS.get(n, ())))
        out: list[str] = []
        folder = self.project_dir
        if folder is not None and any(n in LISTS_TESTS for n in names):
            found, more = _test_files(folder)
            listing = "\n".join(f"- `{f}`" for f in found) + (
                f"\n- … and {more} more" if more else ""
            )
            out.append(
                f"**Test files in this project:**\n\n{listing}"
                if found
                else "No test files found in this project."
            )
        if not commands or folder is None:
            return out
        if not self.trusted:
            shown = ", ".join(_code(" ".join(c)) for c in commands)
            out.append(
                f"Not run: {shown}, because this folder is not trusted (`codebot trust` allows "
                "them)."
            )
            return out
        if not any((p / ".git").exists() for p in (folder, *folder.parents)):
            out.append(f"Not a git repository ({folder}), so there are no changes to show.")
            return out
        runs = [f"$ {' '.join(c)}\n{_run_git(c, folder)}".rstrip() for c in commands]
        out.append(
            f"**Read-only steps I ran** in {_code(str(folder))}:\n\n{_block(chr(10).join(runs))}"
        )
        return out


def _run_git(cmd: Sequence[str], folder: Path) -> str:
    """One allow-listed git command, read-only and hardened: no pager, no fsmonitor hook,
    no external diff or textconv programs, no optional index writes; at most STEP_TIMEOUT."""
    import subprocess

    argv = ["git", "--no-pager", "-c", "core.fsmonitor=false", "-c", "color.ui=false", *cmd[1:]]
    if cmd[1] == "diff":
        argv += ["--no-ext-diff", "--no-textconv"]
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"}
    try:
        p = subprocess.run(
            argv,
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=STEP_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"(stopped after {STEP_TIMEOUT:g} s)"
    except OSError as exc:
        return f"(could not run git: {exc.strerror or exc})"
    text = p.stdout.decode("utf-8", "replace").rstrip()
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"(git failed: {err[0] if err else f'exit {p.returncode}'})"
    if not text:
        return "(no output: nothing changed)"
    clipped, left = _clip(text, OUTPUT_CHARS, OUTPUT_LINES)
    return clipped + (f"\n… {left} more lines" if left else "")


def _test_files(folder: Path, limit: int = 10, visit: int = 5000) -> tuple[list[str], int]:
    """Up to `limit` test files under `folder` (relative paths, sorted walk) and how many
    more were seen; hidden and build folders are skipped, at most `visit` entries read."""
    found: list[str] = []
    more = seen = 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for f in sorted(files):
            seen += 1
            if _TEST_FILE.search(f):
                if len(found) < limit:
                    found.append(os.path.relpath(os.path.join(root, f), folder))
                else:
                    more += 1
        if seen > visit:
            break
    return found, more
