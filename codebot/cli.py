"""Command-line entry point: argument parsing and dispatch only.

Everything heavy is imported inside the handler that needs it, so `codebot --help` costs
little more than starting Python.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from codebot import __version__
from codebot.commands.args import Parser, UsageError, check_cwd, common_options, split_prompt

ACTORS = ("human", "model", "agent", "application", "skill", "eval")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="codebot",
        description=(
            "An interactive terminal coding agent whose expertise lives in skills (SKILL.md)."
        ),
        epilog="Run 'codebot COMMAND --help' for a command's options. Environment: CODEBOT_HOME "
        "(default ~/.codebot), CODEBOT_MODEL, CODEBOT_API_BASE, "
        "provider keys such as OPENAI_API_KEY.",
    )
    _add_session_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    _add_skills_parsers(sub)

    from codebot.commands import trust as trust_command

    trust_command.add_parser(sub, common_options)

    from codebot.commands import sessions as sessions_command

    sessions_command.add_parser(sub, common_options)

    from codebot.commands import written as written_command

    written_command.add_parser(sub, common_options)

    from codebot.commands import plugin as plugin_command

    plugin_command.add_parser(sub, common_options)

    from codebot.commands import mcp as mcp_command

    mcp_command.add_parser(sub, common_options)
    return parser


def _add_session_options(parser: argparse.ArgumentParser) -> None:
    """The top-level options: those of an interactive or print-mode session."""
    parser.add_argument("--version", action="version", version=f"codebot {__version__}")
    common_options(parser, suppress=False)
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        help="run one turn non-interactively and print the answer (PROMPT may be '/skill args')",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="print mode output format",
    )
    parser.add_argument(
        "--fail-on-denial",
        action="store_true",
        help="with -p: exit 4 when any tool call of the turn was denied or failed (for CI)",
    )
    parser.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="resume the latest session in this project",
    )
    parser.add_argument("--resume", metavar="ID", help="resume the session with this id")
    parser.add_argument(
        "--compact",
        metavar="FOCUS",
        nargs="?",
        const="",
        default=None,
        help="with -p: compact the resumed conversation first (optionally keeping FOCUS in view)",
    )
    parser.add_argument(
        "--allow",
        metavar="PATTERN",
        action="append",
        default=[],
        help="allow a tool without asking, e.g. 'Bash(git diff:*)'",
    )
    parser.add_argument(
        "--deny", metavar="PATTERN", action="append", default=[], help="always deny a tool pattern"
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="line mode (prompt-toolkit) instead of the full-screen TUI",
    )
    parser.add_argument(
        "--effort",
        choices=("minimal", "low", "medium", "high"),
        help="reasoning effort of every turn, for models that reason (config effort:); a "
        "skill's own effort wins for its turn; --continue restores the session's",
    )
    parser.add_argument(
        "--lean",
        action="store_true",
        help="for small context windows: fewer tools, short tool definitions, a names-only "
        "skill listing (config lean: true)",
    )
    parser.add_argument(
        "--add-dir",
        metavar="DIR",
        type=Path,
        action="append",
        default=[],
        help="let tools read and write in DIR as well as the project (repeatable)",
    )


def _add_skills_parsers(sub: argparse._SubParsersAction) -> None:
    """`codebot skills SUBCOMMAND`."""
    skills = sub.add_parser("skills", help="inspect, validate, invoke and route skills")
    common_options(skills, suppress=True)
    ssub = skills.add_subparsers(dest="skills_command", metavar="SUBCOMMAND", title="subcommands")
    ssub.required = True

    p = ssub.add_parser("list", help="list skills grouped by source")
    common_options(p, suppress=True)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--all", action="store_true", help="include shadowed skills")

    p = ssub.add_parser("show", help="every field, diagnostics, shadowing and body of one skill")
    common_options(p, suppress=True)
    p.add_argument("name")
    p.add_argument("--json", action="store_true")

    p = ssub.add_parser(
        "validate", help="check skills against the Agent Skills spec and codebot's rules"
    )
    common_options(p, suppress=True)
    p.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="SKILL.md files or folders (default: the catalog)",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.add_argument(
        "--spec",
        action="store_true",
        help="the Agent Skills specification's verdict alone (skills-ref's checks): portability",
    )

    p = ssub.add_parser(
        "invoke", help="show exactly what invoking a skill would do (policy, prompt, delta)"
    )
    common_options(p, suppress=True)
    p.add_argument("name")
    p.add_argument(
        "args", nargs="*", help="arguments for the skill (put them after -- if one starts with -)"
    )
    p.add_argument(
        "--as",
        dest="actor",
        choices=ACTORS,
        default="human",
        help="who invokes it (default: human)",
    )
    p.add_argument(
        "--adapter",
        choices=("core", "extension"),
        default="extension",
        help="core: codebot config only; extension: also host fields (default)",
    )
    p.add_argument("--dry-run", action="store_true", help="record no usage or trace")
    p.add_argument(
        "--run-shell",
        action="store_true",
        help="run the skill's !`command` injections (default: list them)",
    )
    p.add_argument("--json", action="store_true")

    p = ssub.add_parser("listing", help="print exactly the skill listing the model would get now")
    common_options(p, suppress=True)
    p.add_argument(
        "--budget", type=int, metavar="N", help="character budget (default: config, 4000)"
    )
    p.add_argument("--json", action="store_true")

    p = ssub.add_parser(
        "stats", help="invocations, outcomes, failures and durations from traces and transcripts"
    )
    common_options(p, suppress=True)
    p.add_argument("--json", action="store_true")
    p.add_argument("--since", metavar="AGE", help="only what is newer: 30m, 12h, 7d, 2w")

    from codebot.commands.runs import add_parser as add_runs_parser

    add_runs_parser(ssub, common_options)

    from codebot.commands.route import add_parsers as add_route_parsers

    add_route_parsers(ssub, common_options)

    from codebot.commands import watch as watch_command

    watch_command.add_parser(ssub, common_options)


#: `codebot COMMAND`: the module whose `run(args)` handles it (imported when used).
SUBCOMMANDS = {
    "skills": "codebot.commands.skills",
    "trust": "codebot.commands.trust",
    "sessions": "codebot.commands.sessions",
    "plugin": "codebot.commands.plugin",
    "mcp": "codebot.commands.mcp",
    "written": "codebot.commands.written",
}


def _run_subcommand(args: argparse.Namespace) -> int:
    import importlib

    module = importlib.import_module(SUBCOMMANDS[args.command])
    return module.run(args)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        argv, initial_prompt = split_prompt(parser, sys.argv[1:] if argv is None else argv)
        args = parser.parse_args(argv)
        check_cwd(args)
        if args.command in SUBCOMMANDS:
            return _run_subcommand(args)
        if args.fail_on_denial and args.prompt is None:
            raise UsageError("--fail-on-denial goes with -p PROMPT")
        if args.prompt is not None and initial_prompt is not None:
            raise UsageError(
                "give the prompt once: either -p PROMPT or a bare prompt, "
                f"not both ({initial_prompt!r})"
            )
        if args.prompt is not None:
            return run_print_mode(args)
        return run_interactive(args, initial_prompt)
    except UsageError as exc:
        print(f"codebot: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def run_print_mode(args: argparse.Namespace) -> int:
    prompt = read_stdin() if args.prompt == "-" else args.prompt
    if not prompt.strip():
        raise UsageError(
            "-p needs a prompt; it was empty"
            + (" (nothing on stdin)" if args.prompt == "-" else "")
        )
    from codebot.skills.route.warmup import prestart_for

    prestart_for(prompt)  # a cold build's helper starts while the rest loads
    from codebot.agent.tools.sandbox import probe_soon

    probe_soon()  # bwrap's probe runs while the rest loads
    from codebot.commands.args import settings_from
    from codebot.ui.print_mode import run_print

    settings = settings_from(args)
    check_model_key(args, settings)
    from codebot.ui.plugin_prompt import print_mode_notice

    notice = print_mode_notice(settings)
    if notice:
        print(f"codebot: {notice}", file=sys.stderr)
    from codebot.commands.resume_setup import restore_setup

    settings, restored = restore_setup(args, settings)  # --continue: the session's model, ...
    for said in restored:
        print(f"codebot: {said}", file=sys.stderr)
    code = run_print(
        prompt,
        settings,
        output_format=args.output_format,
        allow=args.allow,
        deny=args.deny,
        continue_latest=args.continue_,
        resume_id=args.resume,
        extra_dirs=args.add_dir,
        compact=args.compact,
        fail_on_denial=args.fail_on_denial,
    )
    _no_final_collection()
    return code


def _no_final_collection() -> None:
    """The process ends now: keep the interpreter's last full collection at exit from
    walking everything it made (at 10,000 skills 0.15 to 0.3 s of CPU, mostly garbage the
    OS frees anyway). Exit handlers still run and files still close as their last
    reference goes; only cyclic garbage is left to the OS."""
    import gc

    gc.freeze()


def run_interactive(args: argparse.Namespace, initial_prompt: str | None) -> int:
    """The TUI, or line mode for --plain and terminals that cannot take it; a bare prompt
    (`codebot "fix the bug"`) is sent as the first message."""
    import os

    from codebot.agent.session import ResumeChoice
    from codebot.commands.args import settings_from
    from codebot.ui.line.repl import run_line, should_use_line_mode

    settings = settings_from(args)
    check_model_key(args, settings)
    line = args.plain or should_use_line_mode(sys.stdout, os.environ, stdin=sys.stdin)
    if not settings.trusted and sys.stdin.isatty() and sys.stdout.isatty():
        settings = ask_trust(settings, args, tui=not line)
        if settings is None:
            return 0
    if sys.stdin.isatty() and sys.stdout.isatty():
        settings = ask_plugin(settings, tui=not line)
    from codebot.commands.resume_setup import restore_setup

    settings, restored = restore_setup(args, settings)  # said with the start-up notices
    resume = ResumeChoice(args.continue_, args.resume, tuple(restored))
    options = {
        "allow": args.allow,
        "deny": args.deny,
        "resume": resume,
        "extra_dirs": args.add_dir,
        "initial_prompt": initial_prompt,
    }
    if line:
        return run_line(settings, **options)
    from codebot.ui.tui import run_tui

    return run_tui(settings, **options)


def check_model_key(args: argparse.Namespace, settings) -> None:
    """A `--model` whose provider key is not set stops here, before a session is built and
    litellm imported: otherwise the first message would fail seconds later with the same
    news. Models from config or CODEBOT_MODEL are left to the first request's error."""
    import os

    from codebot.agent.model.providers import key_problem

    if not getattr(args, "model", None):
        return
    problem = key_problem(settings.model or args.model, os.environ, api_base=settings.api_base)
    if problem:
        raise UsageError(
            f"--model {args.model}: {problem}, pass --api-base URL for a local "
            "OpenAI-compatible server, or leave out --model to use the offline model"
        )


def read_stdin() -> str:
    """`-p -`: stdin as text. Read as bytes and decoded here, whatever the locale: an
    undecodable byte (binary piped in) becomes U+FFFD, so the prompt is always valid text."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a replaced sys.stdin (tests) is text already
        return sys.stdin.read()
    return stream.read().decode("utf-8", errors="replace")


def ask_trust(settings, args: argparse.Namespace, *, tui: bool):
    """Ask once at an interactive start in an untrusted project: the settings to go on
    with (reloaded when the person trusts the folder), or None to quit. A folder the
    person chose to keep untrusted is not asked about again (`codebot trust` changes it)."""
    from codebot.commands.args import settings_from
    from codebot.ui.trust_prompt import ask_line, declined, remember, remember_declined

    if declined(settings.home, settings.project_dir):
        return settings
    if tui:
        from codebot.ui.tui.trust_screen import ask_tui

        choice = ask_tui(settings.project_dir)
    else:
        choice = ask_line(settings.project_dir, input, sys.stdout)
    if choice == "q":
        return None
    if choice == "t":
        problem = remember(settings.home, settings.project_dir)
        if problem:
            print(
                f"codebot: could not trust {settings.project_dir}: {problem}; continuing untrusted",
                file=sys.stderr,
            )
            return settings
        return settings_from(args)
    remember_declined(settings.home, settings.project_dir)
    return settings


def ask_plugin(settings, *, tui: bool):
    """When the project root is a Claude Code plugin the person has not answered for, offer
    it once (remembered per folder): the settings to go on with."""
    import dataclasses

    from codebot.ui.plugin_prompt import ask_line, pending, remember

    plugin = pending(settings)
    if plugin is None:
        return settings
    if tui:
        from codebot.ui.tui.plugin_screen import ask_tui

        load = ask_tui(plugin)
    else:
        load = ask_line(plugin, input, sys.stdout)
    problem = remember(settings, load)
    if problem:
        print(f"codebot: could not remember the answer: {problem}", file=sys.stderr)
    return dataclasses.replace(settings, project_plugin=load)


if __name__ == "__main__":
    raise SystemExit(main())
