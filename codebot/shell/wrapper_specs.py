"""The option grammar of the wrappers: commands whose remaining words are a command they
run (`env`, `sudo`, `timeout`, `xargs`, `nice`, ...), as data.

Each `Spec` says which short and long options take a value, how many positionals come
before the command, whether `NAME=value` words may come first, and which options hold a
script or mean there is no command. `wrappers.unwrap` reads a command's words with them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["WRAPPERS", "Spec"]


@dataclass(frozen=True)
class Spec:
    """Option grammar of a wrapper: `cmd [options] [positionals] command args...`."""

    flags: str = ""  # short options without a value
    valued: str = ""  # short options taking a value (attached or the next word)
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    positionals: int = 0  # words before the command (timeout's duration, chrt's priority)
    assignments: bool = False  # NAME=value words may come before the command (env, sudo)
    no_command: str = ""  # short options after which the words are not a command (ionice -p)
    script: str = ""  # short options whose value is a shell script (flock -c, env -S)
    optional: str = ""  # short options whose value, if any, is attached (xargs -i{})
    numeric_flags: bool = False  # `-10` is an option (nice)


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


#: Wrappers whose remaining words are the command they run.
WRAPPERS: dict[str, Spec] = {
    "env": Spec(
        "i0v",
        "uCSP",
        _s(
            "ignore-environment",
            "null",
            "debug",
            "list-signal-handling",
            "block-signal",
            "default-signal",
            "ignore-signal",
        ),
        _s("unset", "chdir", "split-string"),
        assignments=True,
        script="S",
    ),
    # reserved words tree-sitter reads as command names; bash allows assignments after them
    "!": Spec(assignments=True),  # the second `!` of `! ! rm x`
    "coproc": Spec(assignments=True),
    "command": Spec("pvV"),
    "builtin": Spec(),
    "exec": Spec("cl", "a"),
    "nice": Spec("", "n", long_valued=_s("adjustment"), numeric_flags=True),
    "nohup": Spec(),
    "timeout": Spec(
        "v",
        "sk",
        _s("preserve-status", "foreground", "verbose"),
        _s("signal", "kill-after"),
        positionals=1,
    ),
    "sudo": Spec(
        "AbEeHiKklnPSsVv",
        "CDghpRrtTUu",
        _s(
            "askpass",
            "background",
            "preserve-env",
            "edit",
            "set-home",
            "login",
            "remove-timestamp",
            "reset-timestamp",
            "list",
            "non-interactive",
            "preserve-groups",
            "stdin",
            "shell",
            "version",
            "validate",
        ),
        _s(
            "close-from",
            "chdir",
            "group",
            "host",
            "prompt",
            "chroot",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "user",
        ),
        assignments=True,
    ),
    "doas": Spec("nsL", "uC"),
    "time": Spec(
        "pvaq",
        "of",
        _s("portability", "verbose", "append", "quiet"),
        _s("output", "format"),
        assignments=True,
    ),
    "stdbuf": Spec("", "ioe", long_valued=_s("input", "output", "error")),
    "ionice": Spec(
        "t", "cnpPu", _s("ignore"), _s("class", "classdata", "pid", "pgid", "uid"), no_command="pPu"
    ),
    "chrt": Spec(
        "abdefiormRv",
        "TPD",
        _s(
            "all-tasks",
            "batch",
            "deadline",
            "fifo",
            "idle",
            "other",
            "rr",
            "reset-on-fork",
            "verbose",
            "ext",
        ),
        _s("sched-runtime", "sched-period", "sched-deadline"),
        positionals=1,
        no_command="pm",
    ),
    "setsid": Spec("cfw", long_flags=_s("ctty", "fork", "wait")),
    "taskset": Spec("ac", "", _s("all-tasks", "cpu-list"), positionals=1, no_command="p"),
    "xargs": Spec(
        "0oprtx",
        "adEILnPs",
        _s(
            "null",
            "open-tty",
            "interactive",
            "no-run-if-empty",
            "verbose",
            "exit",
            "show-limits",
            "eof",
            "replace",
            "max-lines",
        ),
        _s("arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"),
        optional="eil",
    ),
    "busybox": Spec(),
    "chroot": Spec("", "", long_valued=_s("userspec", "groups", "skip-chdir"), positionals=1),
    "flock": Spec(
        "sxunoFh",
        "wEc",
        _s("shared", "exclusive", "unlock", "nonblock", "close", "no-fork"),
        _s("wait", "timeout", "conflict-exit-code", "command"),
        positionals=1,
        script="c",
    ),
    "strace": Spec("cCdfFhiqrtTvVwxyzZk", "abeEIoOpPsSuUX"),
    "ltrace": Spec("bcCdfhiLrStTV", "aAeEnoOpsux"),
}
