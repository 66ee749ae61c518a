"""The Bash sandbox (codebot.agent.tools.sandbox, sandbox_scan), against the real bwrap.

Every sandbox test runs a real command and asserts on its effect outside: a file that was
or was not created, bytes a server did or did not receive, a file left unchanged. Tests
that need bwrap skip, saying why, when `probe()` is not ok. Nothing leaves 127.0.0.1:
the only non-loopback address used (TEST-NET-1) is tried from inside a namespace that has
been checked to hold nothing but `lo`. HOME is always a temporary folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from codebot.agent.tools.sandbox import (
    CREDENTIAL_PATHS,
    Availability,
    SandboxPolicy,
    explain_failure,
    probe,
    wrap,
)
from codebot.agent.tools.sandbox_scan import masked_paths

SECRET = "s3cr3t-value-4711"


@pytest.fixture(scope="module")
def bwrap() -> str:
    found = probe()
    if not found.ok:
        # A bug in wrap() also makes the probe fail: CI that has bwrap sets this to notice.
        if os.environ.get("CODEBOT_REQUIRE_SANDBOX"):
            pytest.fail(f"CODEBOT_REQUIRE_SANDBOX is set, but: {found.reason}")
        pytest.skip(f"the sandbox is not available here: {found.reason}")
    assert found.bwrap
    return found.bwrap


@pytest.fixture
def home(tmp_path: Path) -> Path:
    d = tmp_path / "home"
    d.mkdir()
    return d


@pytest.fixture
def project(tmp_path: Path) -> Path:
    # Under /tmp on purpose: the private /tmp must not hide the project.
    d = tmp_path / "proj"
    d.mkdir()
    return d


@pytest.fixture
def outside() -> Iterator[Path]:
    """A writable folder outside /tmp (so visible, read-only, inside the sandbox)."""
    base = Path("/var/tmp")
    if not (base.is_dir() and os.access(base, os.W_OK)):
        pytest.skip("needs a writable /var/tmp: a folder outside the private /tmp")
    d = Path(tempfile.mkdtemp(prefix="codebot-sandbox-test-", dir=base))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run(
    bwrap: str, policy: SandboxPolicy, script: str, home: Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    argv = wrap(["/bin/bash", "-c", script], policy, bwrap, cwd=cwd)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C"}
    return subprocess.run(
        argv,
        cwd=cwd or policy.project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def output(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


# -- the filesystem ---------------------------------------------------------------------


def test_writes_outside_the_project_fail_and_create_nothing(bwrap, project, outside):
    home = outside / "home"
    home.mkdir()
    policy = SandboxPolicy(project, user_home=home)
    done = run(bwrap, policy, 'touch "$HOME/outside"; echo x > /usr/codebot-sandbox-test', home)
    assert done.returncode != 0
    assert "Read-only file system" in output(done)
    assert not (home / "outside").exists()
    assert not Path("/usr/codebot-sandbox-test").exists()
    note = explain_failure(done.returncode, output(done), policy)
    assert note is not None and "read-only" in note and str(project) in note


def test_a_home_under_tmp_is_not_even_visible(bwrap, project, home):
    done = run(bwrap, SandboxPolicy(project, user_home=home), 'touch "$HOME/outside"', home)
    assert done.returncode != 0
    assert not (home / "outside").exists()


def test_writes_inside_the_project_and_extra_folders_land(bwrap, project, home, tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    policy = SandboxPolicy(project, extra_writable=(extra,), user_home=home)
    done = run(
        bwrap,
        policy,
        f"touch ./inside && mkdir -p sub && echo hi > sub/f && touch '{extra}/e'",
        home,
    )
    assert done.returncode == 0, output(done)
    assert (project / "inside").is_file()
    assert (project / "sub" / "f").read_text() == "hi\n"
    assert (extra / "e").is_file()


def test_tmp_is_private(bwrap, project, home):
    name = f"codebot-sandbox-{os.getpid()}-{time.monotonic_ns()}"
    with tempfile.NamedTemporaryFile(dir="/tmp", prefix="codebot-sandbox-real-") as real:
        script = f"echo x > /tmp/{name} && ls /tmp && ! test -e {real.name}"
        done = run(bwrap, SandboxPolicy(project, user_home=home), script, home)
    assert done.returncode == 0, output(done)  # the real /tmp's files are not there...
    assert name in done.stdout  # ...what is written there is seen inside...
    assert not Path("/tmp", name).exists()  # ...and not outside


def test_symlinked_project_under_tmp(bwrap, project, home, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(project)
    done = run(bwrap, SandboxPolicy(link, user_home=home), "pwd && touch via-link", home, cwd=link)
    assert done.returncode == 0, output(done)
    assert done.stdout.strip() == str(link)
    assert (project / "via-link").is_file()


def test_git_folder_is_read_only_inside_but_git_reads_work(bwrap, project, home):
    """The whole `.git` is protected: reading commands work, writing ones fail with a clear
    error (the approval then offers to run them outside), and nothing is planted."""
    git = ["git", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True, env={**os.environ, "HOME": str(home)})
    config = (project / ".git" / "config").read_text()
    policy = SandboxPolicy(project, user_home=home)
    script = (
        "echo a > a && git status --short && echo READ; git add a; "
        "git -c user.name=t -c user.email=t@t commit -qm one && echo COMMITTED; "
        "echo evil > .git/hooks/pre-commit; git config core.fsmonitor evil; "
        "echo .git/x > .git/commondir; mv .git .g; echo 'gitdir: /tmp' > .git"
    )
    done = run(bwrap, policy, script, home)
    assert "READ" in done.stdout and "?? a" in done.stdout, output(done)
    assert "COMMITTED" not in done.stdout and "Read-only file system" in output(done)
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert not (project / ".git" / "commondir").exists() and not (project / ".g").exists()
    assert (project / ".git" / "config").read_text() == config
    note = explain_failure(done.returncode, output(done), policy)
    assert note is not None and ".git" in note


def test_common_commands_work_and_background_children_end(bwrap, project, home):
    nap = f"sleep 60.{os.getpid()}{time.monotonic_ns() % 10**6}"  # a command line all its own
    script = (
        f"ps -e -o pid=,comm= && {sys.executable} -c 'print(6 * 7)' && ({nap} &) && echo started"
    )
    done = run(bwrap, SandboxPolicy(project, user_home=home), script, home)
    assert done.returncode == 0, output(done)
    assert "42" in done.stdout
    pids = [line.split()[0] for line in done.stdout.splitlines() if line.strip().endswith("bash")]
    assert pids and all(int(p) < 10 for p in pids)  # its own PID namespace
    leftover = gone_or_left(nap)
    for pid in leftover:  # only the sleep this test started, if the sandbox let it outlive it
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert leftover == []


def test_killing_bwrap_ends_everything_inside(bwrap, project, home):
    # What run_process does on a timeout: SIGKILL to bwrap's process group only.
    nap = f"sleep 60.{os.getpid()}{time.monotonic_ns() % 10**6}"
    argv = wrap(
        ["/bin/bash", "-c", f"{nap} & {nap}; echo never"],
        SandboxPolicy(project, user_home=home),
        bwrap,
    )
    proc = subprocess.Popen(
        argv,
        cwd=project,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(home)},
    )
    try:
        deadline = time.monotonic() + 10
        while len(pgrep(nap)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(pgrep(nap)) == 2
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=10)
    leftover = gone_or_left(nap)
    for pid in leftover:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert leftover == [] and b"never" not in out


def pgrep(pattern: str) -> list[int]:
    found = subprocess.run(["pgrep", "-f", f"^{pattern}$"], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


def gone_or_left(pattern: str, seconds: float = 5.0) -> list[int]:
    """The processes matching `pattern` still there once they are all gone or `seconds`
    have passed (polls: the kernel reaps a killed namespace's processes a moment later)."""
    deadline = time.monotonic() + seconds
    while (left := pgrep(pattern)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_its_own_session_and_an_empty_run(bwrap, project, home):
    # Its own session: no controlling terminal to push keystrokes into (TIOCSTI).
    # An empty /run: no Docker, D-Bus or systemd sockets to escape through.
    real_run = sorted(os.listdir("/run"))
    script = 'read -r -a stat < /proc/$$/stat; echo "${stat[5]} $$"; ls -A /run'
    done = run(bwrap, SandboxPolicy(project, user_home=home), script, home)
    assert done.returncode == 0, output(done)
    session, _pid = done.stdout.splitlines()[0].split()
    assert session != "0"  # a session begun inside; 0 would be the caller's, from outside
    inside = done.stdout.splitlines()[1:]
    resolv = os.path.realpath("/etc/resolv.conf")
    expected = [resolv.split("/")[2]] if resolv.startswith("/run/") else []
    assert inside == expected
    if not real_run:
        pytest.skip("the real /run is empty: cannot tell a private one from it")


# -- masks ------------------------------------------------------------------------------


def test_a_masked_file_reads_nothing_and_stays_untouched(bwrap, project, home):
    env = project / ".env"
    env.write_text(f"TOKEN={SECRET}\n")
    policy = SandboxPolicy(project, masked=(env,), user_home=home)
    done = run(
        bwrap, policy, "cat .env; cat ./.env; grep -r TOKEN .; echo x > .env; rm -f .env", home
    )
    assert SECRET not in output(done)
    assert env.read_text() == f"TOKEN={SECRET}\n"
    note = explain_failure(done.returncode, output(done), policy)
    assert note is not None and "hides .env" in note


def test_a_masked_folder_lists_empty(bwrap, project, home):
    secrets = project / "secrets"
    secrets.mkdir()
    (secrets / "key.pem").write_text(SECRET)
    policy = SandboxPolicy(project, masked=(secrets,), user_home=home)
    done = run(bwrap, policy, "ls -A secrets; echo END; touch secrets/new", home)
    assert done.stdout == "END\n", output(done)
    assert done.returncode != 0
    assert sorted(p.name for p in secrets.iterdir()) == ["key.pem"]
    note = explain_failure(done.returncode, output(done), policy)
    assert note == "the sandbox hides secrets (denied paths and credentials)"


def test_a_denied_symlink_hides_its_target(bwrap, project, home):
    (project / "real.txt").write_text(SECRET)
    (project / "alias").symlink_to("real.txt")
    scan = masked_paths(project, lambda rel: rel == "alias")
    assert scan.paths == (project / "alias",)
    done = run(
        bwrap,
        SandboxPolicy(project, masked=scan.paths, user_home=home),
        "cat alias; cat real.txt",
        home,
    )
    assert SECRET not in output(done)


def test_credentials_are_masked_even_when_home_is_the_project(bwrap, outside):
    home = outside
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text(SECRET)
    (home / ".netrc").write_text(SECRET)
    (home / "notes.txt").write_text("visible")
    assert ".ssh" in CREDENTIAL_PATHS and ".netrc" in CREDENTIAL_PATHS
    for project in (home / "work", home):  # a project in the home folder, and the home itself
        project.mkdir(exist_ok=True)
        policy = SandboxPolicy(project, user_home=home)
        done = run(
            bwrap, policy, "cat ~/notes.txt; ls -A ~/.ssh; cat ~/.ssh/id_ed25519 ~/.netrc", home
        )
        assert SECRET not in output(done)
        assert done.stdout == "visible"  # the rest of home is readable; .ssh lists empty
        note = explain_failure(done.returncode, output(done), policy)
        assert note is not None and ".netrc" in note and ".ssh" in note


def test_codebot_home_is_hidden_even_around_the_project(bwrap, home, tmp_path, outside):
    state = outside / "codebot-home"
    (state / "sessions").mkdir(parents=True)
    (state / "trust.json").write_text(SECRET)
    project = state / "projects" / "p"  # the odd case: a project inside codebot's home
    project.mkdir(parents=True)
    policy = SandboxPolicy(project, codebot_home=state, user_home=home)
    done = run(
        bwrap,
        policy,
        f"cat '{state}/trust.json'; ls '{state}/sessions'; touch '{state}/sessions/x'; touch mine",
        home,
    )
    assert SECRET not in output(done)
    assert not (state / "sessions" / "x").exists()
    assert (project / "mine").is_file(), output(done)


def test_odd_path_names(bwrap, tmp_path, home):
    project = tmp_path / "-lead" / "sp ace\nnew'line\" $(x) `y`"
    project.mkdir(parents=True)
    secret = project / "-sec ret\n.env"
    secret.write_text(SECRET)
    policy = SandboxPolicy(project, masked=(secret,), user_home=home)
    done = run(bwrap, policy, "touch -- './-made here' && cat ./-* 2>&1; pwd", home)
    assert (project / "-made here").is_file(), output(done)
    assert SECRET not in output(done)
    assert str(project) in done.stdout
    assert secret.read_text() == SECRET


# -- the network ------------------------------------------------------------------------


class Server:
    """A TCP server on 127.0.0.1 outside the sandbox that records what it receives."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            self.received = conn.recv(100)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone does not)
        self.sock.close()
        self.thread.join(5)


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    try:
        yield s
    finally:
        s.close()


def connect(port: int) -> str:
    return (
        f'{sys.executable} -c "import socket; '
        f"socket.create_connection(('127.0.0.1', {port}), timeout=5).sendall(b'hello')\""
    )


def test_no_network_by_default(bwrap, project, home, server):
    policy = SandboxPolicy(project, user_home=home)
    done = run(bwrap, policy, connect(server.port), home)
    assert done.returncode != 0
    assert "Connection refused" in output(done)
    server.close()
    assert server.received == b""
    note = explain_failure(done.returncode, output(done), policy)
    assert note is not None and "no network" in note


def test_network_when_allowed(bwrap, project, home, server):
    done = run(
        bwrap, SandboxPolicy(project, network=True, user_home=home), connect(server.port), home
    )
    assert done.returncode == 0, output(done)
    server.thread.join(5)
    assert server.received == b"hello"


def test_explain_a_real_unreachable_network(bwrap, project, home):
    # Only `lo` in the namespace, checked first: then nothing can leave the machine.
    script = (
        f'{sys.executable} -c "import socket, sys\n'
        "names = [l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]]\n"
        "if names != ['lo']: sys.exit('not isolated: ' + repr(names))\n"
        "socket.create_connection(('192.0.2.1', 9), timeout=2)\""
    )
    policy = SandboxPolicy(project, user_home=home)
    done = run(bwrap, policy, script, home)
    assert done.returncode != 0
    assert "not isolated" not in output(done)
    assert "Network is unreachable" in output(done)
    assert explain_failure(done.returncode, output(done), policy) == "the sandbox has no network"


# -- explain_failure without a sandbox ---------------------------------------------------


def test_explain_failure_stays_quiet_when_it_should(project):
    policy = SandboxPolicy(project)
    erofs = "touch: cannot touch '/usr/x': Read-only file system"
    assert explain_failure(0, erofs, policy) is None  # `grep` finding the words succeeds
    assert explain_failure(None, erofs, policy) is None  # timed out
    assert explain_failure(1, "FAILED tests/test_x.py::test_y - AssertionError", policy) is None
    refused = "ConnectionRefusedError: [Errno 111] Connection refused"
    assert explain_failure(1, refused, SandboxPolicy(project, network=True)) is None
    env = project / ".env"
    env.write_text("x")
    masked = SandboxPolicy(project, masked=(env,))
    assert explain_failure(1, "cat: .env.example: No such file or directory", masked) is None
    assert explain_failure(1, "cat: ./.env: Permission denied", masked) is not None
    assert "no network" in (explain_failure(1, "dial tcp: lookup x: EAI_AGAIN", policy) or "")


# -- wrap and probe ---------------------------------------------------------------------


def test_wrap_orders_the_private_tmp_before_the_project(project, home):
    argv = wrap(["true"], SandboxPolicy(project, user_home=home))
    assert argv[-2:] == ["--", "true"]
    tmpfs = argv.index("--tmpfs")
    assert argv[tmpfs + 1] == "/tmp"
    assert tmpfs < argv.index("--bind") and argv[argv.index("--bind") + 1] == str(project)
    for flag in ("--unshare-net", "--unshare-pid", "--new-session", "--die-with-parent"):
        assert flag in argv
    assert "--unshare-net" not in wrap(
        ["true"], SandboxPolicy(project, network=True, user_home=home)
    )
    with pytest.raises(ValueError):
        wrap(["true"], SandboxPolicy(project / "missing"))


def test_wrap_puts_masks_where_binds_cannot_undo_them(outside):
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    state = home / "state"
    (state / "p").mkdir(parents=True)
    # The home folder as the project: its .ssh mask must come after the bind.
    argv = wrap(["true"], SandboxPolicy(home, user_home=home))
    assert argv.index(str(home / ".ssh")) > argv.index("--bind")
    # A project inside codebot's home: that mask must come before the bind.
    argv = wrap(["true"], SandboxPolicy(state / "p", codebot_home=state, user_home=home))
    assert argv.index(str(state)) < argv.index("--bind")
    assert argv.index(str(home / ".ssh")) > argv.index("--bind")
    # Under the private /tmp and outside every writable folder: invisible anyway, no mask.
    argv = wrap(["true"], SandboxPolicy(state / "p", masked=(Path("/tmp"),), user_home=home))
    assert "/tmp" not in argv[argv.index("--bind") :]


def test_probe_says_why_for_a_bogus_bwrap(tmp_path):
    bogus = probe(str(tmp_path / "no-such-bwrap"))
    assert bogus == Availability(False, bogus.reason)
    assert "bwrap not found" in bogus.reason and "bubblewrap" in bogus.reason
    fake = tmp_path / "fake-bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: Creating new namespace failed: nope' >&2\nexit 1\n")
    fake.chmod(0o755)
    broken = probe(str(fake))
    assert not broken.ok
    assert (
        broken.reason
        == "bwrap cannot create namespaces here: bwrap: Creating new namespace failed: nope"
    )


def test_probe_is_cached(bwrap, monkeypatch):
    assert probe(bwrap).ok

    def no_more_runs(*args, **kwargs):
        raise AssertionError("probe ran bwrap again")

    monkeypatch.setattr(subprocess, "run", no_more_runs)
    assert probe(bwrap).ok and probe().ok


# -- masked_paths -----------------------------------------------------------------------


def deny(*globs: str):
    return lambda rel: any(fnmatchcase(rel, g) for g in globs)


def test_masked_paths_finds_denied_paths_once_and_skips_no_folder(tmp_path):
    p = tmp_path / "p"
    for rel in (
        "secrets/a",
        "secrets/deep/b",
        "src/.env",
        "node_modules/x/.env",
        "v/pyvenv.cfg",
        "v/.env",
        ".git/.env",
        "ok/file",
    ):
        (p / rel).parent.mkdir(parents=True, exist_ok=True)
        (p / rel).write_text("x")
    (p / ".env").write_text("x")
    (p / "etc-link").symlink_to("/etc")
    asked: list[str] = []

    def is_denied(rel: str) -> bool:
        asked.append(rel)
        return rel in ("secrets/", "node_modules/") or rel.endswith(".env")

    scan = masked_paths(p, is_denied)
    assert scan.complete and scan.why == ""
    # A virtualenv and .git are walked too (issue 30): what a project holds never hides a folder.
    assert sorted(scan.paths) == sorted(
        [
            p / ".env",
            p / "secrets",
            p / "src" / ".env",
            p / "node_modules",
            p / "v" / ".env",
            p / ".git" / ".env",
        ]
    )
    # Not inside a denied folder or a followed link.
    inner = [a for a in asked if a.startswith(("secrets/", "etc-link/"))]
    assert sorted(inner) == ["etc-link/", "secrets/"]  # the folders themselves


def test_masked_paths_stops_at_the_limit_and_the_time_budget(tmp_path):
    p = tmp_path / "many"
    p.mkdir()
    (p / "src").touch()
    for d in range(30):
        folder = p / f"d{d:02}"
        folder.mkdir()
        for f in range(1000):
            os.link(p / "src", folder / f"f{f}")  # hard links: 30x faster than new files here
    by_count = masked_paths(p, deny("*.env"), limit=20000, seconds=60)
    assert not by_count.complete and by_count.scanned == 20000

    def slow(rel: str) -> bool:  # a matcher slow enough that 30k calls take seconds
        time.sleep(0.0001)
        return False

    start = time.monotonic()
    by_time = masked_paths(p, slow, limit=10**9, seconds=0.2)
    assert (
        time.monotonic() - start < 3
    )  # the budget (0.2 s) stopped it, not the end of the walk (3 s+)
    assert not by_time.complete and 0 < by_time.scanned < 30000
    assert masked_paths(p, deny("*.env")).scanned == 20000  # the defaults are bounded too


def test_programs_under_tmp_on_path_stay_runnable(tmp_path, monkeypatch) -> None:
    """CI clones into /tmp and makes its virtualenv there: the private /tmp must not hide
    the Python running codebot, or the folders on PATH (read-only, not writable)."""
    if not probe().ok:
        pytest.skip(probe().reason)
    tools = tmp_path / "tools" / "bin"
    tools.mkdir(parents=True)
    (tools / "hello-tool").write_text("#!/bin/sh\necho tool ran\n")
    (tools / "hello-tool").chmod(0o755)
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}/tmp{os.pathsep}{os.environ['PATH']}")
    argv = wrap(
        ["/bin/sh", "-c", 'hello-tool; touch "$0/x" 2>&1; ls /tmp | wc -l', str(tools)],
        SandboxPolicy(project=project),
    )
    out = subprocess.run(argv, capture_output=True, text=True, timeout=20, env=os.environ.copy())
    assert "tool ran" in out.stdout
    assert not (tools / "x").exists()  # read-only
    assert (
        str(tools) in argv and argv.count("/tmp") == 1
    )  # only "--tmpfs /tmp": /tmp itself stays private


def test_a_probe_started_early_is_waited_for_not_run_twice(monkeypatch) -> None:
    import shutil as _shutil
    import threading as _threading

    from codebot.agent.tools import sandbox as sb

    if _shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    runs: list[str] = []
    gate = _threading.Event()

    def slow_probe(bwrap: str) -> sb.Availability:
        runs.append(bwrap)
        gate.wait(10)
        return sb.Availability(True, "", bwrap)

    monkeypatch.setattr(sb, "_probe", slow_probe)
    monkeypatch.setattr(sb, "_early", {})
    sb.probe_soon()
    sb.probe_soon()  # a second call starts nothing more
    _threading.Timer(0.05, gate.set).start()
    assert sb.probe().ok and len(runs) == 1
