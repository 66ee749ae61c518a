"""The sandbox around what Bash runs on Linux: the bubblewrap (`bwrap`) command line.

This module owns the sandbox's policy (`SandboxPolicy`), the argv that runs a command
inside it (`wrap`), the check that bwrap works on this machine (`probe`), and the plain
words for a failure the sandbox caused (`explain_failure`). Finding the denied paths of
a project to mask lives next door, in `codebot.agent.tools.sandbox_scan`; whether a failure
earns the offer to run the command outside, from facts rather than from what the command
printed, in `codebot.agent.tools.sandbox_failure` (with `is_read_only_in_sandbox` here).

Inside the sandbox:

* the whole filesystem is visible read-only (`--ro-bind / /`), except the project and the
  extra writable folders (bound read-write) and a private, empty `/tmp` and `/run`
  (tmpfs, thrown away with the command). A private `/run` hides the Unix sockets of
  Docker, Podman, containerd, D-Bus and the systemd user manager: a read-only mount does
  not stop `connect()` on a socket, and any of them is a way out of the sandbox;
* inside the writable folders, the protected set (`codebot.protected`: `.git` whole, the
  hooks folder, `.codebot`, every host's skill folder, `.mcp.json`, instruction files)
  stays read-only, because what a command writes there runs later outside the sandbox;
  a protected name that does not exist yet is held by an empty read-only folder for the
  command's lifetime (`protected_run` removes it after), so it cannot be created either;
* a project that is `$HOME`, `/` or above `$HOME` is bound read-only as a whole;
* denied paths, the credential stores of `CREDENTIAL_PATHS` and codebot's own state
  folder are masked: `/dev/null` over a file (opening it fails with "Permission denied",
  since bwrap mounts it `nodev`), an empty read-only tmpfs over a folder;
* no network unless the policy allows it (`--unshare-net`: a namespace with only its own
  loopback, so even servers on the machine's 127.0.0.1 are out of reach);
* its own PID and IPC namespaces (`--unshare-pid`, `--unshare-ipc`): the command sees only
  its own processes, and when it ends, or bwrap is killed, everything it started ends too;
  `--new-session` (no TIOCSTI into the person's terminal), `--die-with-parent`.

Not sandboxed: macOS, Windows, and Linux without a working bwrap (`probe` says why).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from codebot.agent.tools.sandbox_protect import empty_dir as _empty_dir
from codebot.agent.tools.sandbox_protect import protected_run, protected_targets
from codebot.protected import DIR_NAMES, NESTED

__all__ = [
    "CREDENTIAL_PATHS",
    "PROTECTED_PATHS",
    "Availability",
    "SandboxPolicy",
    "explain_failure",
    "is_read_only_in_sandbox",
    "probe",
    "protected_run",
    "wrap",
]

#: Home-relative credential stores masked whenever they exist. A mask is one mount, so
#: this costs nothing for commands that never look there; commands that need one of them
#: (`git push` over ssh, `aws`, `kubectl`, `docker login`) fail inside the sandbox.
CREDENTIAL_PATHS: tuple[str, ...] = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".docker/run",
    ".docker/desktop",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/gh",
    ".config/hub",
    ".password-store",
    ".local/share/keyrings",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".config/rclone",
    ".s3cfg",
    ".boto",
    ".pgpass",
    ".my.cnf",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
)

#: The protected names, as they appear in error lines (the set itself: `codebot.protected`).
PROTECTED_PATHS: tuple[str, ...] = (
    *DIR_NAMES,
    *NESTED,
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".mcp.json",
)

#: Mounted as private tmpfs when they are real folders: writes there vanish with the command.
#: (/var/run is usually a link to /run; where it is not, it holds the same sockets.)
_PRIVATE = (Path("/tmp"), Path("/run"), Path("/var/run"))
_PROBE_TIMEOUT = 2.0


@dataclass(frozen=True)
class SandboxPolicy:
    """What a sandboxed command may touch. Paths may be relative, symlinks or missing."""

    project: Path  # writable; the default working directory
    extra_writable: tuple[Path, ...] = ()  # --add-dir folders; missing ones are skipped
    masked: tuple[Path, ...] = ()  # denied paths (see sandbox_scan.masked_paths)
    network: bool = False
    codebot_home: Path | None = None  # codebot's state (trust store, transcripts): masked
    user_home: Path | None = None  # whose CREDENTIAL_PATHS are masked; None: Path.home()
    #: False for a project that is `$HOME`, `/` or above it: bound read-only as a whole.
    project_writable: bool = True
    #: `core.hooksPath` relative to the project when it points inside it (`.husky`), or
    #: every extra protected path of the project (`protected.project_extras`).
    hooks: str | tuple[tuple[str, str], ...] | None = None
    #: Where the session's working folder is: protected names are kept at every level
    #: from the project down to it (the folders codebot reads skills and instructions from).
    cwd: Path | None = None
    #: Folders bound read-only over the masks (a plugin's own folder for its hooks).
    readable: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Availability:
    ok: bool
    reason: str  # why not, in words for the person; "" when ok
    bwrap: str | None = None  # the bwrap that was probed


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def _under(path: Path, root: Path) -> bool:
    """`path` is `root` or inside it (both absolute and normalised)."""
    return path == root or root in path.parents


def _private_dirs() -> list[Path]:
    # Only existing real folders: bwrap cannot create a mount point in the read-only root.
    return [p for p in _PRIVATE if p.is_dir() and not p.is_symlink()]


def _private(path: Path) -> bool:
    return any(_under(path, p) for p in _private_dirs())


def _tool_dirs() -> list[Path]:
    """Folders of programs that must stay runnable although they live in the private /tmp
    or /run: this Python's installation (a virtualenv in a checkout under /tmp, as CI
    makes) and every folder on PATH there. Read-only, like the rest of the system."""
    found: list[Path] = []
    candidates = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable)]
    candidates += [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    for c in candidates:
        real = _real(c)
        # /tmp itself on PATH must not turn the private /tmp back into the real one.
        if (
            real.is_dir()
            and _private(real)
            and real not in _private_dirs()
            and not any(_under(real, f) for f in found)
        ):
            found = [f for f in found if not _under(f, real)] + [real]
    return found


def _masks(policy: SandboxPolicy, roots: list[Path]) -> list[tuple[Path, bool]]:
    """The (real path, is a folder) pairs to mask: existing, visible, not nested, not `/`."""
    home = policy.user_home if policy.user_home is not None else Path.home()
    wanted = [*policy.masked, *(home / rel for rel in CREDENTIAL_PATHS)]
    if policy.codebot_home is not None:
        wanted.append(policy.codebot_home)
    found: dict[Path, bool] = {}
    for p in wanted:
        # A mount lands on a symlink's target (bwrap follows it), so mask the target: a
        # denied link hides what reading it would reveal, wherever that is.
        real = _real(p)
        if real == Path("/") or not real.exists():
            continue  # a missing path would make bwrap create a mount point, and fail
        if _private(real) and not any(_under(real, r) for r in roots):
            continue  # already invisible: /tmp and /run are empty inside
        found[real] = real.is_dir()

    def covered(m: Path) -> bool:
        # Inside another masked folder, unless a writable folder in between brings it back.
        return any(
            d != m
            and is_dir
            and _under(m, d)
            and not any(_under(m, r) and _under(r, d) for r in roots)
            for d, is_dir in found.items()
        )

    return sorted((m, d) for m, d in found.items() if not covered(m))


def _mask_args(masks: list[tuple[Path, bool]]) -> list[str]:
    args: list[str] = []
    for path, is_dir in masks:
        if is_dir:  # made read-only at the very end, after the binds made inside it
            args += ["--tmpfs", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def wrap(
    argv: list[str], policy: SandboxPolicy, bwrap: str = "bwrap", *, cwd: Path | None = None
) -> list[str]:
    """The argv that runs `argv` inside the sandbox, in `cwd` (default: the project).

    No shell is involved: every path is one argv item, so spaces, newlines and quotes in
    names are fine, and realpath makes every mount path absolute (no leading `-`).
    """
    if not argv:
        raise ValueError("wrap() needs a command")
    project = _real(policy.project)
    if not project.is_dir():
        raise ValueError(f"the project folder {policy.project} is not a folder")
    given = [Path(os.path.abspath(p)) for p in (policy.project, *policy.extra_writable)]
    roots = _writable_roots(given)

    # Order matters: bwrap applies these one after another, and a later mount covers an
    # earlier one. Sources always name the outside filesystem, so binding /tmp/proj after
    # the private /tmp still binds the real project.
    args = _base_args(policy, bwrap)
    masks = _masks(policy, roots)
    # A mask that holds a writable folder (a project inside codebot's home, say) goes
    # first, so the bind brings the folder back; every other mask goes after the binds, so
    # a project that holds a mask (the home folder as project) does not uncover it.
    before = [m for m in masks if any(_under(r, m[0]) for r in roots)]
    args += _mask_args(before)
    args += _root_args(policy, project, roots, given)
    args += _protected_args(policy, roots)
    args += _mask_args([m for m in masks if m not in before])
    for path in policy.readable:
        if _real(path).is_dir():
            args += ["--ro-bind", str(_real(path)), str(_real(path))]
    for path, is_dir in masks:
        if is_dir:
            args += ["--remount-ro", str(path)]
    args += ["--chdir", os.path.abspath(cwd if cwd is not None else policy.project)]
    return [*args, "--", *argv]


def _writable_roots(given: list[Path]) -> list[Path]:
    """The real folders among `given`, without repeats, in order."""
    roots: list[Path] = []
    for p in given:
        r = _real(p)
        if r.is_dir() and r not in roots:
            roots.append(r)
    return roots


def _base_args(policy: SandboxPolicy, bwrap: str) -> list[str]:
    """Namespaces, the read-only root, the private folders and what must show through them."""
    args = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc"]
    if not policy.network:
        args.append("--unshare-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for p in _private_dirs():
        args += ["--tmpfs", str(p)]
    resolv = _real("/etc/resolv.conf")  # often a link into /run (systemd-resolved)
    if _private(resolv) and resolv.is_file():
        args += ["--ro-bind", str(resolv), str(resolv)]
    for tool_dir in _tool_dirs():
        args += ["--ro-bind", str(tool_dir), str(tool_dir)]
    return args


def _root_args(
    policy: SandboxPolicy, project: Path, roots: list[Path], given: list[Path]
) -> list[str]:
    """Bind the project and the extra writable folders, and the links that lead to them."""
    args: list[str] = []
    for r in roots:
        kind = "--bind" if policy.project_writable or r != project else "--ro-bind"
        args += [kind, str(r), str(r)]
    for p in given:
        # Through a symlink the path resolves inside as it does outside, unless the link
        # lives in the private /tmp or /run: recreate it there.
        if p != _real(p) and _private(p) and not any(_under(p, r) for r in roots):
            args += ["--symlink", str(_real(p)), str(p)]
    return args


def _protected_args(policy: SandboxPolicy, roots: list[Path]) -> list[str]:
    """Keep protected paths inside the writable folders read-only, even those not made yet."""
    args: list[str] = []
    keep, hold = protected_targets(policy, roots)
    for q in keep:
        args += ["--ro-bind", str(q), str(q)]
    for missing in hold:
        args += ["--ro-bind", str(_empty_dir()), str(missing)]
    return args


_early: dict[str, Future[Availability]] = {}  # bwrap's real path -> its probe under way


def probe_soon() -> None:
    """Start the probe in a thread now (first thing in print mode): bwrap's ~15 ms run
    overlaps the imports instead of following them; `probe` waits for it."""
    path = shutil.which("bwrap") if sys.platform.startswith("linux") else None
    if path is not None and not _early:
        real = os.path.realpath(path)
        _early[real] = done = Future()
        threading.Thread(target=lambda: done.set_result(_probe(real)), daemon=True).start()


def probe(bwrap: str | None = None) -> Availability:
    """Whether commands can be sandboxed here; runs `true` in the sandbox once per process."""
    if not sys.platform.startswith("linux"):
        return Availability(False, f"not Linux: commands are not sandboxed on {sys.platform}")
    path = shutil.which(bwrap or "bwrap")
    if path is None:
        where = f" at {bwrap}" if bwrap else ""
        return Availability(
            False, f"bwrap not found{where} (install the Debian package bubblewrap)"
        )
    real = os.path.realpath(path)
    with contextlib.suppress(Exception):  # one started early: waited for, not run twice
        return _early[real].result(timeout=_PROBE_TIMEOUT + 5)
    return _probe(real)


@functools.cache
def _probe(bwrap: str) -> Availability:
    # The same flags as a real run, with a project under /tmp and both kinds of mask, so
    # that what fails here is what would fail for every command.
    with tempfile.TemporaryDirectory(prefix="codebot-sandbox-probe-") as tmp:
        project = Path(tmp)
        (project / "masked-file").write_text("")
        (project / "masked-dir").mkdir()
        (project / ".git" / "hooks").mkdir(parents=True)
        policy = SandboxPolicy(project, masked=(project / "masked-file", project / "masked-dir"))
        try:
            done = subprocess.run(
                wrap(["true"], policy, bwrap),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=_PROBE_TIMEOUT,
                cwd=tmp,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Availability(False, f"bwrap did not finish within {_PROBE_TIMEOUT:g} s", bwrap)
        except OSError as exc:
            return Availability(False, f"bwrap cannot be run: {exc}", bwrap)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        first = lines[0] if lines else f"exit code {done.returncode}"
        return Availability(False, f"bwrap cannot create namespaces here: {first}", bwrap)
    return Availability(True, "", bwrap)


_EROFS = ("read-only file system", "erofs")
_BUSY = ("device or resource busy", "ebusy")
_MISSING = ("permission denied", "eacces", "no such file or directory", "enoent", *_EROFS)
_NO_NETWORK = (
    "network is unreachable",
    "enetunreach",
    "could not resolve host",
    "temporary failure in name resolution",
    "eai_again",
    "unable to resolve host address",
    "could not resolve hostname",
    "name or service not known",
)
_REFUSED = ("connection refused", "econnrefused", "couldn't connect to server")


def _lines_with(lines: list[str], markers: tuple[str, ...]) -> list[str]:
    return [line for line in lines if any(m in line for m in markers)]


def _hidden_names(policy: SandboxPolicy, project: Path) -> dict[str, re.Pattern[str]]:
    """Each masked path as shown to the model, and how it may appear in an error line."""
    home = policy.user_home if policy.user_home is not None else Path.home()
    paths = [*policy.masked, *(home / rel for rel in CREDENTIAL_PATHS)]
    if policy.codebot_home is not None:
        paths.append(policy.codebot_home)
    names: dict[str, re.Pattern[str]] = {}
    for p in paths:
        if not os.path.lexists(p):
            continue
        given = Path(os.path.abspath(p))
        forms = {str(given), str(_real(p))}
        if _under(given, project) and given != project:
            forms.add(given.relative_to(project).as_posix())
        shown = min(forms, key=len)
        # A name on its own, not `.env` inside `.env.example` or `sub/.env`.
        alts = "|".join(re.escape(f.lower()) for f in sorted(forms, key=len, reverse=True))
        names[shown] = re.compile(rf"(?:^|[\s'\"`:(=<>])(?:\./)?(?:{alts})(?![\w.-])")
    return names


def is_read_only_in_sandbox(
    path: Path | str, policy: SandboxPolicy, cwd: Path | str | None = None
) -> bool:
    """Whether the sandbox keeps `path` (relative to `cwd`, default the project; missing or
    not) from being written: outside the writable folders, except the private /tmp, /run and
    /dev; inside one, a protected name at any depth (`codebot.protected`) or a masked path.
    A fact about the policy, for believing an EROFS/EBUSY a command prints (`sandbox_failure`)."""
    from codebot.protected import protected_reason

    p = _real(Path(cwd if cwd is not None else policy.project, path))
    project = _real(policy.project)
    roots = [r for r in (_real(x) for x in (policy.project, *policy.extra_writable)) if r.is_dir()]
    if not getattr(policy, "project_writable", True):
        roots = [r for r in roots if r != project]
    if any(_under(p, m) for m, _ in _masks(policy, roots)):
        return True
    inside = [r for r in roots if _under(p, r)]
    if not inside:
        return not (_private(p) or _under(p, Path("/dev")))
    root = max(inside, key=lambda r: len(r.parts))
    rel = p.relative_to(root).as_posix()
    hooks = getattr(policy, "hooks", None) if root == project else None
    return rel != "." and protected_reason(rel, hooks) is not None


def explain_failure(returncode: int | None, output: str, policy: SandboxPolicy) -> str | None:
    """What the sandbox did to a failed command, in a sentence for the model, or None.

    Only for a non-zero exit: a command that succeeded needs no excuse, and `grep` finding
    "Read-only file system" in some source file exits 0. Each marker is an error text the
    sandbox produces (strerror of EROFS, EBUSY, EACCES, ENOENT, ENETUNREACH, resolver
    errors), matched case-insensitively since Go and Node print them in lower case; a
    masked path is named only when an error line names it.
    """
    if not returncode:
        return None
    lines = output.lower().splitlines()
    project = _real(policy.project)
    notes: list[str] = []
    failing = _lines_with(lines, _MISSING)
    patterns = _hidden_names(policy, project)
    hidden = [
        shown
        for shown, pattern in patterns.items()
        if any(pattern.search(line) for line in failing)
    ]
    if hidden:
        notes.append(f"the sandbox hides {', '.join(hidden)} (denied paths and credentials)")
    # Writing a protected path fails with EROFS (a write) or EBUSY (a rename over it).
    blocked = _lines_with(lines, (*_EROFS, *_BUSY))
    protected = [rel for rel in PROTECTED_PATHS if any(rel.lower() in line for line in blocked)]
    if protected:
        notes.append(
            f"the sandbox keeps {', '.join(protected)} read-only, because what is "
            "written there runs later outside it"
        )
    unexplained = [
        line
        for line in _lines_with(lines, _EROFS)
        if not any(rel.lower() in line for rel in protected)
        and not any(p.search(line) for p in patterns.values())
    ]
    if unexplained:
        writable = ", ".join(os.path.abspath(p) for p in (policy.project, *policy.extra_writable))
        notes.append(
            f"the sandbox made the filesystem read-only outside {writable}; /tmp is "
            "private and emptied after each command"
        )
    if not policy.network:
        if _lines_with(lines, _NO_NETWORK):
            notes.append("the sandbox has no network")
        elif _lines_with(lines, _REFUSED):
            notes.append(
                "the sandbox has no network: its localhost is its own, so servers "
                "running outside it, even on this machine, cannot be reached"
            )
    return "; ".join(notes) if notes else None
