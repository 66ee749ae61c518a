"""What every command shares: the global options and the Settings they lead to.

Its own module so that command handlers never import `cli.py` (which imports them).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `codebot --help` must not pay for the config (dataclasses, inspect)
    from codebot.config import Settings


class UsageError(Exception):
    """A mistake in the command line: `cli.main` prints it on one line and exits 2."""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (argparse prints the whole usage block first, which
    buries the one line that matters)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def common_options(p: argparse.ArgumentParser, suppress: bool) -> None:
    """Global options, accepted before or after the subcommand."""
    d = argparse.SUPPRESS if suppress else None
    p.add_argument("--cwd", metavar="DIR", type=Path, default=d, help="work as if started in DIR")
    p.add_argument("--skills-dir", metavar="DIR", type=Path, action="append", default=d,
                   help="extra project-level skills folder (repeatable; the first given wins a name clash)")  # fmt: skip
    p.add_argument("--model", metavar="MODEL", default=d, help="any litellm model string (default: config or CODEBOT_MODEL)")
    p.add_argument("--api-base", metavar="URL", default=d, help="base URL of an OpenAI-compatible server")
    p.add_argument("--sandbox", dest="sandbox", action="store_const", const="on", default=d,
                   help="require the bubblewrap sandbox for Bash (fail rather than run bare)")
    p.add_argument("--no-sandbox", dest="sandbox", action="store_const", const="off", default=d,
                   help="run Bash commands without the sandbox")
    p.add_argument("--trust", action="store_true", default=d,
                   help="trust this project for this run only (its config, skill commands and agents apply)")  # fmt: skip


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
    if getattr(args, "sandbox", None):
        import dataclasses

        settings = dataclasses.replace(settings, sandbox=args.sandbox)
    for w in settings.warnings:
        print(f"codebot: warning: {w}", file=sys.stderr)
    return settings
