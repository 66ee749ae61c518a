"""The dangerous-options table, as data the docs render: options that make a command write
files, run other programs or change configuration, and variables whose value does.

This module owns `DANGEROUS_OPTIONS` (rows of command, options, why, and `kind`: when a row
applies, an option, a subcommand, any use, or a check of a script such as sed's `w`
command), `ABBREVIATING` (the programs that take a prefix of a long option as that option),
`CHECKED_LONG` (the long options each script check reads) and `DANGEROUS_VARIABLES`. The
check of one command against it is `danger.findings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ABBREVIATING",
    "CHECKED_LONG",
    "DANGEROUS_OPTIONS",
    "DANGEROUS_VARIABLES",
    "Danger",
    "Kind",
]

Kind = Literal["option", "global", "subcommand", "any", "prefix", "check"]


@dataclass(frozen=True)
class Danger:
    """One row: `commands` with any of `options` (see `kind`) do what `why` says."""

    commands: tuple[str, ...]
    options: tuple[str, ...]
    why: str
    kind: Kind = "option"
    scope: tuple[str, ...] = ()  # only after these subcommands (git format-patch -o)
    read_only: tuple[str, ...] = ()  # for kind="subcommand" with options ("*",): the safe ones


def _d(
    commands: str,
    options: str,
    why: str,
    kind: Kind = "option",
    scope: str = "",
    read_only: str = "",
) -> Danger:
    return Danger(
        tuple(commands.split()),
        tuple(options.split()),
        why,
        kind,
        tuple(scope.split()),
        tuple(read_only.split()),
    )


_NPM_RO = (
    "ls list ll la view v info show outdated why explain help search prefix root whoami ping doctor"
)
_DOCKER_RO = (
    "ps images inspect logs version info stats top port history search diff events "
    "image:ls image:list image:inspect image:history container:ls container:list "
    "container:inspect container:logs container:top container:port container:diff "
    "volume:ls volume:list volume:inspect network:ls network:list network:inspect "
    "compose:ps compose:logs compose:config compose:ls compose:version compose:images "
    "compose:top system:df system:info context:ls context:show context:inspect "
    "buildx:ls buildx:version buildx:inspect"
)

#: Options that write files, run other programs or change configuration, per command.
DANGEROUS_OPTIONS: tuple[Danger, ...] = (
    _d(
        "git",
        "-c --config-env",
        "sets configuration, and settings such as core.pager, core.sshCommand or alias.* run "
        "programs",
        "global",
    ),
    _d(
        "git",
        "-C --git-dir --work-tree",
        "points git at another repository, whose configuration (core.fsmonitor, core.pager, "
        "hooks) can run programs",
        "global",
    ),
    _d(
        "git",
        "--exec-path",
        "changes where git finds its subcommands, so it can run any program",
        "global",
    ),
    _d("git", "--output", "writes its output to a file"),
    _d("git", "-o --output-directory", "writes files", scope="format-patch archive"),
    _d(
        "git",
        "--ext-diff",
        "runs the external diff program from diff.external or GIT_EXTERNAL_DIFF",
    ),
    _d("git", "--upload-pack --receive-pack --exec", "runs the program it names"),
    _d("git", "-u", "runs the program it names as upload-pack", scope="clone"),
    _d("git", "-x --exec", "runs a shell command after each commit", scope="rebase"),
    _d(
        "git",
        "-O --open-files-in-pager",
        "opens the matching files with the program it names",
        scope="grep",
    ),
    _d("git", "-x --extcmd", "runs the diff program it names", scope="difftool"),
    _d(
        "git",
        "--template",
        "installs hooks from a template folder, and hooks run programs",
        scope="clone init",
    ),
    _d("git", "-c --config", "sets configuration in the new repository", scope="clone"),
    _d("git", "foreach", "runs a shell command in each submodule", scope="submodule"),
    _d("git", "run", "runs a command at each bisection step", scope="bisect"),
    _d("git", "filter-branch", "runs shell commands as filters", "subcommand"),
    _d(
        "git",
        "send-pack receive-pack upload-pack",
        "talks to a remote or runs a program it names (send-pack pushes, as `git push` does; "
        "receive-pack runs the repository's hooks)",
        "subcommand",
    ),
    _d("find", "-exec -execdir -ok -okdir", "runs a program for each file"),
    _d("find", "-delete", "deletes files"),
    _d("find", "-fprint -fprint0 -fprintf -fls", "writes the list of files to a file"),
    _d("sed", "-i --in-place", "edits files in place"),
    _d(
        "sed",
        "-f --file",
        "reads its script from a file, and a script can write files (w) or run commands (e)",
    ),
    _d("sed", "w W e", "writes files (w, W) or runs commands (e, s///e) from its script", "check"),
    _d(
        "awk gawk mawk nawk",
        "-f --file -i --include -l --load -E --exec",
        "loads a program or a library from a file",
    ),
    _d(
        "awk gawk mawk nawk",
        "system() |getline print> print|",
        "runs commands or writes files from its program",
        "check",
    ),
    _d(
        "xargs",
        "*",
        "runs the program in its arguments, with more arguments read from its input",
        "any",
    ),
    _d("env", "-S --split-string", "splits a string into a command line and runs it"),
    _d("env", "-P", "looks the command up in another PATH"),
    _d(
        "tar",
        "--to-command --checkpoint-action --use-compress-program -I --info-script -F "
        "--new-volume-script --rsh-command --rmt-command",
        "runs the program it names",
    ),
    _d("tar", "--index-file --volno-file", "writes to the file it names"),
    _d(
        "tar",
        "-x --extract --get -c --create -r --append -u --update -A --catenate --concatenate "
        "--delete",
        "writes or deletes files (an archive being extracted can name any path)",
    ),
    _d(
        "rsync",
        "*",
        "copies files, overwriting the destination, and can delete files (--delete, "
        "--remove-source-files)",
        "any",
    ),
    _d("rsync", "-e --rsh --rsync-path", "runs the program it names, here or on the remote host"),
    _d(
        "curl",
        "-o -O --output --remote-name --remote-name-all --output-dir -D --dump-header -c "
        "--cookie-jar --trace --trace-ascii --stderr --libcurl --etag-save --hsts --alt-svc",
        "writes files",
    ),
    _d("curl", "-K --config", "reads more options from a file"),
    _d("curl", "-T --upload-file", "uploads a local file"),
    _d(
        "curl",
        "-d@ --data@ -F@ --form@ --json@",
        "uploads a local file (`@file` or `<file` in a value)",
        "check",
    ),
    _d("wget", "*", "downloads into files", "any"),
    _d(
        "wget",
        "-O --output-document -o --output-file -a --append-output -P --directory-prefix",
        "writes files where it names",
    ),
    _d("wget", "--post-file --body-file", "uploads a local file"),
    _d(
        "wget",
        "-i --input-file -e --execute --config --use-askpass",
        "reads commands or URLs from a file, or runs a program",
    ),
    _d(
        "npm pnpm bun",
        "*",
        "runs package scripts, installs packages (whose install scripts run) or changes "
        "configuration",
        "subcommand",
        read_only=_NPM_RO,
    ),
    _d(
        "yarn",
        "*",
        "runs package scripts (`yarn build` runs the script `build`) or installs packages; bare "
        "`yarn` installs",
        "subcommand",
        read_only="list info why outdated help",
    ),
    _d("npx pnpx bunx uvx pipx", "*", "downloads and runs a package", "any"),
    _d(
        "pip pip3",
        "*",
        "installs or removes packages (building one runs its setup code) or changes configuration",
        "subcommand",
        read_only="list show freeze check help search index inspect debug hash",
    ),
    _d(
        "uv",
        "*",
        "runs code (uv run), installs packages or changes the environment",
        "subcommand",
        read_only=(
            "version tree help pip:list pip:show pip:freeze pip:check pip:tree python:list "
            "python:find cache:dir"
        ),
    ),
    _d(
        "docker podman",
        "*",
        "runs containers (which can mount and change host files) or changes images, volumes and "
        "networks",
        "subcommand",
        read_only=_DOCKER_RO,
    ),
    _d(
        "docker podman",
        "-v --volume --mount --privileged --pid --network --net --cap-add --device --security-opt "
        "--userns --volumes-from",
        "gives the container access to host files, devices, processes or privileges",
        scope="run create exec",
    ),
    _d("sort", "-o --output", "writes its output to a file"),
    _d("sort", "--compress-program", "runs the program it names"),
    _d("tee", "*", "writes its input to the files it names", "any"),
    _d("dd", "of=", "writes to a file or device", "prefix"),
    _d(
        "less more most",
        "+",
        "runs pager commands at start, and `!` in them runs shell commands",
        "prefix",
    ),
    _d(
        "less",
        "-k --lesskey-file --lesskey-src --lesskey-content",
        "reads a key file, whose #env section can set LESSOPEN and so run commands",
    ),
    _d("man", "-P --pager -H --html", "runs the pager or browser program it names"),
    _d("vim vi nvim view vimdiff ex", "*", "edits files and runs editor commands", "any"),
    _d(
        "vim vi nvim view vimdiff ex",
        "-c --cmd -S -s -u",
        "runs editor commands, which can write files or run shell commands",
    ),
    _d("vim vi nvim view vimdiff ex", "+", "runs an editor command at start", "prefix"),
    _d("emacs", "--eval --execute -l --load -f --funcall --script -script -x", "runs Lisp code"),
    _d(
        "ssh scp sftp",
        "-o -F",
        "sets options such as ProxyCommand or LocalCommand, which run local programs",
    ),
    _d("scp sftp", "-S", "runs the program it names instead of ssh"),
    _d("rg", "--pre --hostname-bin", "runs the program it names"),
    _d("fd fdfind", "-x --exec -X --exec-batch", "runs a program for each match"),
    _d("go", "-exec -toolexec", "runs the program it names"),
    _d("go", "generate", "runs the commands in //go:generate comments", "subcommand"),
    _d("zip", "-TT --unzip-command", "runs the program it names to test the archive"),
    _d(
        "ssh-keygen",
        "-D -w",
        "loads the PKCS#11 or security-key provider library it names, which runs its code",
    ),
    _d(
        "cargo",
        "--config",
        "sets configuration, and settings such as target.<triple>.runner or build.rustc-wrapper "
        "run programs",
    ),
    _d("eval", "*", "runs its arguments as shell code", "any"),
    _d("sudo doas su pkexec run0", "*", "runs a command as another user", "any"),
)

#: Programs whose parser takes any unambiguous prefix of a long option as that option, as
#: GNU getopt_long and argp do (`tar --checkpoint-act=exec=CMD` is `--checkpoint-action`):
#: tar, sed, sort, env, gawk, wget, man; less, zip, curl (7.x, 8.4: curl issue 12936), emacs
#: (startup.el completes `--ev`) and git's parse-options after a subcommand (`git rebase
#: --exe`, `git fetch --upload-p`; not git's global options nor diff's). For them a word
#: `--X` or `--X=...` hits a row's `--Y` that starts with `--X`, however short; the value is
#: the program's full options that are a prefix of an option of its rows or checks, which it
#: takes as themselves (`tar --checkpoint=1`). A prefix the program finds ambiguous makes it
#: fail, so hitting it only asks. Checked with the real programs where installed. Exact
#: names only: find, rg, vim, cargo (clap), rsync (popt), go, docker; mawk's long options are
#: `-W name` and take prefixes (`-W ex file`), read as `--name` for every awk.
ABBREVIATING: dict[str, frozenset[str]] = {
    name: frozenset(exact.split())
    for names, exact in (
        ("tar", "--checkpoint"),
        ("curl", "--cookie --head --url"),
        ("sed sort env wget man less zip emacs git awk gawk mawk nawk", ""),
    )
    for name in names.split()
}
#: The long options each script check reads, so that an abbreviation reaches it spelled out.
CHECKED_LONG: dict[str, tuple[str, ...]] = {
    "sed": ("--expression", "--file", "--line-length", "--sandbox"),
    "awk": ("--source", "--file", "--exec", "--include", "--load", "--field-separator", "--assign"),
    "curl": (
        "--data",
        "--data-binary",
        "--data-ascii",
        "--data-urlencode",
        "--json",
        "--header",
        "--url-query",
        "--form",
    ),
}

#: Variables whose value makes an ordinary command run other code (NAME, or PREFIX*).
DANGEROUS_VARIABLES: tuple[tuple[str, str], ...] = (
    ("PATH", "chooses which program each command name runs"),
    ("LD_* DYLD_*", "loads libraries into every program"),
    (
        "BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND IFS",
        "makes the shell run code or split words differently",
    ),
    ("HOME XDG_CONFIG_HOME", "moves the configuration files programs read (e.g. ~/.gitconfig)"),
    (
        "GIT_*",
        "sets git configuration, paths and helper programs (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, "
        "GIT_CONFIG_*)",
    ),
    (
        "PAGER *_PAGER MANPAGER LESSOPEN LESSCLOSE EDITOR VISUAL *_EDITOR SSH_ASKPASS *_ASKPASS",
        "names a program that other programs run",
    ),
    (
        "PYTHONSTARTUP PYTHONPATH PYTHONHOME NODE_OPTIONS PERL5OPT PERL5LIB RUBYOPT RUBYLIB",
        "makes an interpreter load other code",
    ),
    (
        "npm_config_* NPM_CONFIG_* PIP_* UV_* WGETRC CURL_HOME",
        "sets a package manager's or downloader's options",
    ),
)
