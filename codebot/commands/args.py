"""What every command shares: the global options and the Settings they lead to.

Its own module so that command handlers never import `cli.py` (which imports them).
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `codebot --help` must not pay for the config (dataclasses, inspect)
    from codebot.config import Settings

    #: what `add_subparsers()` returns, which each command adds its parser to
    Subparsers = argparse._SubParsersAction["Parser"]


class UsageError(Exception):
    """A mistake in the command line: `cli.main` prints it on one line and exits 2."""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (argparse prints the whole usage block first, which
    buries the one line that matters), and a "did you mean" for a mistyped option."""

    def error(self, message: str):  # type: ignore[override]
        unknown = re.match(r"unrecognized arguments: (.*)", message)
        if unknown:  # options after a subcommand end here, checked by argparse itself
            option = next((w for w in unknown.group(1).split() if w.startswith("-")), None)
            if option is not None:
                message = unknown_option(option, all_options(self))
        choice = re.match(r"argument \S+: invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:  # `codebot skills lst`
            close = difflib.get_close_matches(
                choice.group(1), re.findall(r"'([^']*)'", choice.group(2)), n=1
            )
            if close:
                message = f"unknown command {choice.group(1)!r}; did you mean {close[0]!r}?"
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def unknown_option(option: str, known: Iterable[str]) -> str:
    """The error for a mistyped option, with the nearest known spelling: "unknown option
    --modle; did you mean --model?"."""
    name = option.partition("=")[0]
    close = difflib.get_close_matches(
        name, [o for o in known if o.startswith("--") == name.startswith("--")], n=1
    )
    return f"unknown option {name}" + (f"; did you mean {close[0]}?" if close else "")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name (argparse keeps them in its subparsers action)."""
    for action in parser._actions:  # argparse has no public way to list them
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def all_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of `parser` and of its subcommands, for suggestions."""
    found = set(parser._option_string_actions)
    for sub in _subparsers(parser).values():
        found |= all_options(sub)
    return found


def split_prompt(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> tuple[list[str], str | None]:
    """`codebot [options] PROMPT...`: the arguments without the bare prompt, and the prompt.

    A first positional word that names no subcommand starts a bare prompt (as in
    `claude "fix the bug"`); every later positional word joins it, and everything after
    `--` is prompt. argparse cannot do this itself: its subcommand positional would reject
    the prompt as an "invalid choice". An unknown option before the prompt or a
    subcommand is reported here, because only here is it known to be one.
    """
    commands = _subparsers(parser)
    rest: list[str] = []
    words: list[str] = []
    double_dash = False
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            words, double_dash = [*words, *argv[i + 1 :]], True
            break
        if token.startswith("-") and token != "-" and not _NUMBER.fullmatch(token):
            taken = _option_width(parser, token)
            rest.extend(argv[i : i + taken])
            i += taken
            continue
        if not words and token in commands:
            return list(argv), None  # a subcommand: argparse reads the rest
        words.append(token)
        i += 1
    if not words and not double_dash:
        return rest, None
    _check_prompt_words(words, commands, double_dash)
    return rest, " ".join(words)


_NUMBER = re.compile(r"-\d+(?:\.\d*)?")  # a positional to argparse, not an option


def _option_width(parser: argparse.ArgumentParser, token: str) -> int:
    """How many arguments the option `token` takes up (itself and its value, if any)."""
    name, eq, _ = token.partition("=")
    known = parser._option_string_actions
    action = known.get(name)
    if action is None and not name.startswith("--") and name[:2] in known:
        name, eq = name[:2], "attached"  # `-pPROMPT`: a short option with its value attached
        action = known[name]
    if action is None and name.startswith("--"):
        matches = {
            known[o] for o in known if o.startswith(name)
        }  # argparse accepts unique prefixes
        if len(matches) > 1:
            return 1  # ambiguous: argparse says so, naming the candidates
        action = next(iter(matches), None)
    if action is None:
        raise UsageError(unknown_option(token, known))
    return 1 if action.nargs == 0 or eq else 2


def _check_prompt_words(
    words: list[str], commands: dict[str, argparse.ArgumentParser], double_dash: bool
) -> None:
    """A bare prompt that is really a mistyped command is an error, not a message to the model."""
    prompt = " ".join(words)
    if not prompt.strip():
        raise UsageError("the prompt is empty; run 'codebot' alone to start without one")
    if double_dash or len(words) != 1 or " " in prompt:
        return
    word = prompt.lower()
    close = difflib.get_close_matches(word, list(commands), n=1, cutoff=0.75)
    if close:
        raise UsageError(
            f"unknown command {prompt!r}; did you mean {close[0]!r}? "
            f"(to send it as a prompt: codebot -- {prompt})"
        )
    for name, sub in commands.items():
        if word in _subparsers(sub):
            raise UsageError(
                f"{prompt!r} is a subcommand of {name}: did you mean 'codebot {name} {word}'? "
                f"(to send it as a prompt: codebot -- {prompt})"
            )


def common_options(p: argparse.ArgumentParser, suppress: bool) -> None:
    """Global options, accepted before or after the subcommand."""
    d = argparse.SUPPRESS if suppress else None
    p.add_argument("--cwd", metavar="DIR", type=Path, default=d, help="work as if started in DIR")
    p.add_argument(
        "--skills-dir",
        metavar="DIR",
        type=Path,
        action="append",
        default=d,
        help="extra project-level skills folder (repeatable; the first given wins a name clash)",
    )
    p.add_argument(
        "--plugin-dir",
        metavar="DIR",
        type=Path,
        action="append",
        default=d,
        help="load the Claude Code plugin in DIR (a folder with .claude-plugin/plugin.json; "
        "repeatable)",
    )
    p.add_argument(
        "--mcp-config",
        metavar="FILE",
        type=Path,
        action="append",
        default=d,
        help="also the MCP servers of this .mcp.json-shaped file, for this run (repeatable; "
        "a later file wins a name clash)",
    )
    p.add_argument(
        "--model",
        metavar="MODEL",
        default=d,
        help="any litellm model string (default: config or CODEBOT_MODEL)",
    )
    p.add_argument(
        "--api-base", metavar="URL", default=d, help="base URL of an OpenAI-compatible server"
    )
    p.add_argument(
        "--sandbox",
        dest="sandbox",
        action="store_const",
        const="on",
        default=d,
        help="require the bubblewrap sandbox for Bash (fail rather than run bare)",
    )
    p.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_const",
        const="off",
        default=d,
        help="run Bash commands without the sandbox",
    )
    p.add_argument(
        "--trust",
        action="store_true",
        default=d,
        help="trust this project for this run only (its config, skill commands and agents apply)",
    )


def check_cwd(args: argparse.Namespace) -> None:
    """`--cwd` must name a folder: working "as if started in" a missing one would quietly
    run somewhere else, or find nothing."""
    cwd = getattr(args, "cwd", None)
    if cwd is not None and not Path(cwd).expanduser().is_dir():
        why = "does not exist" if not Path(cwd).expanduser().exists() else "is not a folder"
        raise UsageError(f"--cwd {cwd} {why}")


def settings_from(args: argparse.Namespace) -> Settings:
    from codebot.config import load_settings

    check_cwd(args)
    settings = load_settings(
        cwd=getattr(args, "cwd", None),
        skills_dirs=tuple(getattr(args, "skills_dir", None) or ()),
        model=getattr(args, "model", None),
        api_base=getattr(args, "api_base", None),
        trust=bool(getattr(args, "trust", False)),
    )
    import dataclasses

    if getattr(args, "sandbox", None):
        settings = dataclasses.replace(settings, sandbox=args.sandbox)
    if getattr(args, "lean", False):
        lean = dataclasses.replace(settings.requests, lean=True)
        settings = dataclasses.replace(settings, requests=lean)
    if getattr(args, "effort", None):
        effort = dataclasses.replace(settings.requests, effort=args.effort)
        settings = dataclasses.replace(settings, requests=effort)
    from codebot.workspace import project_plugin_answer

    answer = project_plugin_answer(settings)
    given = plugin_dirs(getattr(args, "plugin_dir", None) or ())
    configured, problems = config_plugin_dirs(settings)
    settings = dataclasses.replace(
        settings,
        mcp_configs=mcp_configs(getattr(args, "mcp_config", None) or ()),
        plugin_dirs=(*given, *(d for d in configured if d not in given)),
        plugin_dirs_given=given,
        warnings=(*settings.warnings, *problems),
        # Not asked yet: a trusted folder loads it (-p, `codebot skills`); the interactive
        # start asks (cli.ask_plugin).
        project_plugin=settings.trusted if answer is None else answer,
    )
    for w in settings.warnings:
        print(f"codebot: warning: {w}", file=sys.stderr)
    return settings


def mcp_configs(given: Iterable[Path]) -> tuple[Path, ...]:
    """`--mcp-config` files, as given (`~` expanded); each must be an existing file."""
    out: list[Path] = []
    for f in given:
        path = Path(f).expanduser()
        if not path.exists():
            raise UsageError(f"--mcp-config {f} does not exist")
        if path.is_dir():
            raise UsageError(f"--mcp-config {f} is a folder; give a .mcp.json-shaped file")
        if path not in out:
            out.append(path)
    return tuple(out)


def plugin_dirs(given: Iterable[Path]) -> tuple[Path, ...]:
    """`--plugin-dir` folders, resolved; each must hold `.claude-plugin/plugin.json`."""
    from codebot.skills.catalog.plugins import MANIFEST, has_manifest

    out: list[Path] = []
    for d in given:
        folder = Path(d).expanduser()
        if not folder.is_dir():
            why = "does not exist" if not folder.exists() else "is not a folder"
            raise UsageError(f"--plugin-dir {d} {why}")
        if not has_manifest(folder):
            raise UsageError(
                f"--plugin-dir {d}: no {'/'.join(MANIFEST)} in it; a Claude Code plugin "
                "folder holds that manifest (use --skills-dir for a plain skills folder)"
            )
        real = folder.resolve()
        if real not in out:
            out.append(real)
    return tuple(out)


def config_plugin_dirs(settings: Settings) -> tuple[list[Path], list[str]]:
    """`plugins.dirs` of the person's own config (a project's is dropped: `USER_ONLY`):
    absolute (or `~`) plugin folders; each other entry is skipped with a warning."""
    from codebot.skills.catalog.plugins import has_manifest

    section = settings.raw.get("plugins")
    value = section.get("dirs") if isinstance(section, dict) else None
    if value is None:
        return [], []
    where = f"{settings.config_path} plugins.dirs"
    if not isinstance(value, list):
        return [], [f"{where} must be a list of plugin folders; ignoring it"]
    found: list[Path] = []
    problems: list[str] = []
    for item in value:
        folder = Path(item).expanduser() if isinstance(item, str) and "\0" not in item else None
        if folder is None or not folder.is_absolute():
            problems.append(f"{where}: {item!r} is not an absolute folder path; skipping it")
        elif not has_manifest(folder):
            problems.append(f"{where}: {folder} holds no .claude-plugin/plugin.json; skipping it")
        elif folder.resolve() not in found:
            found.append(folder.resolve())
    return found, problems
