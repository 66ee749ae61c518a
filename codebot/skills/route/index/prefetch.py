"""Skill bodies tokenized in a helper process while this one loads the catalog.

A first request from an empty `$CODEBOT_HOME` that must rank a large catalog builds the
router's index, and most of that build is tokenizing the bodies (2 to 3 s for 10,000
skills, more than the catalog load before it). Both are single-threaded Python, so they
can only overlap in two processes. As the catalog's scan finds the files (before it parses
them), a `ScanFeed` starts `body_worker` once a thousand are known and hands it each batch;
the helper tokenizes their bodies in the order it was given them and sends them back in
frames. When the index build needs the bodies, `TokenCache.absorb` takes the frames
that have arrived and tokenizes bodies itself *from the other end* of that order, until
the two meet; then the helper is stopped. The build never waits for the helper: a helper
that is slow, dies or sends nothing only leaves more of the bodies to this process, as
if it had not been started.

What is checked, so that the helper can only save time, never change a result:

- a prefetched bag is used only for the body whose real path, body offset, file stamp
  (mtime_ns, size, inode) and `body_chars` it was made for: the key `TokenCache` itself
  caches bodies by; a file edited in between, or one the catalog does not load, is a miss;
- the helper tokenizes with the same `TokenCache` code under the same `RouterConfig`;
- a frame that is too long or malformed ends the reading (the rest is done here);
- the helper is started as ``python -P -c`` with this very package first on its path, so
  a `codebot/` folder in the working directory (a cloned repository) is never imported,
  and with the -I, -E or -s this interpreter was started with, so it reads no environment
  variable or user site this one ignored;
- it is killed once the bodies are in, and at exit; a parent killed outright closes its
  pipe, and the helper ends at the next frame it reads or writes.

Nothing starts on a machine with one CPU, for fewer than `warmup.PREFETCH_MIN` files, or
when `CODEBOT_NO_PREFETCH` is set.
"""

from __future__ import annotations

import atexit
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.skills.route.config import RouterConfig
from codebot.skills.route.index.body_worker import read_frame, write_frame

if TYPE_CHECKING:
    from codebot.skills.catalog import Catalog
    from codebot.skills.catalog.candidate import Candidate

_PACKAGE_PARENT = str(Path(__file__).resolve().parents[4])
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from codebot.skills.route.index.body_worker import main; raise SystemExit(main())"
)
_LIVE: set[subprocess.Popen[bytes]] = set()


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _kill_all() -> None:
    for proc in list(_LIVE):
        _kill(proc)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    _LIVE.discard(proc)
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:  # pragma: no cover - a killed process that lingers
        pass


atexit.register(_kill_all)  # a helper never outlives the process it works for


def _flags() -> list[str]:
    """``-P`` (no working directory on the path), and what this interpreter was told to
    ignore: started with -E, -I or -s, its helper must not read PYTHONPATH (and a
    sitecustomize there), PYTHONUSERBASE or the user's site-packages either."""
    f = sys.flags
    return ["-P"] + [
        flag
        for flag, on in (("-I", f.isolated), ("-E", f.ignore_environment), ("-s", f.no_user_site))
        if on
    ]


def _popen() -> subprocess.Popen[bytes] | None:
    """A helper process, started: it imports what it needs, then waits for its config."""
    try:
        proc = subprocess.Popen(
            [sys.executable, *_flags(), "-c", _BOOT, _PACKAGE_PARENT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )
    except OSError:
        return None
    _LIVE.add(proc)
    return proc


#: a helper started before anyone knew whether it would be wanted (`prestart`)
_SPARE: list[subprocess.Popen[bytes]] = []


def prestart() -> bool:
    """Start a helper now, before the catalog is scanned, so that its own start (an
    interpreter, numpy, the tokenizer: ~0.15 s) overlaps this process's imports instead of
    the scan; the next `BodyPrefetch.spawn` takes it. For a caller that knows a cold build
    is likely (print mode, a task, no router index saved at all); `drop_spare` ends it if
    nobody took it. False: none started (turned off, one CPU, or one is waiting already)."""
    if _SPARE or os.environ.get("CODEBOT_NO_PREFETCH") or _cpus() < 2:
        return False
    proc = _popen()
    if proc is not None:
        _SPARE.append(proc)
    return proc is not None


def _take_spare() -> subprocess.Popen[bytes] | None:
    while _SPARE:
        proc = _SPARE.pop()
        if proc.poll() is None:
            return proc
        _kill(proc)
    return None


def drop_spare() -> None:
    """End a helper `prestart` started that nobody took (a small catalog, a saved index)."""
    while _SPARE:
        _kill(_SPARE.pop())


class BodyPrefetch:
    """One running helper and the frames it has sent so far (read by a daemon thread)."""

    def __init__(self, proc: subprocess.Popen[bytes], config: RouterConfig) -> None:
        self.proc = proc
        self.config = config
        self.frames: queue.Queue[dict[str, object] | None] = queue.Queue()  # None: no more
        self.error = ""  # why the helper was given up, if it was
        #: real path -> its place in what the helper was given (it works in that order)
        self.order: dict[str, int] = {}
        self._jobs: queue.Queue[dict[str, object]] = queue.Queue()
        self._reader = threading.Thread(
            target=self._read, name="codebot-prefetch-read", daemon=True
        )
        self._reader.start()
        threading.Thread(target=self._feed, name="codebot-prefetch-feed", daemon=True).start()

    @staticmethod
    def available(config: RouterConfig) -> bool:
        """Whether a helper would be started here at all."""
        return (
            not os.environ.get("CODEBOT_NO_PREFETCH")
            and _cpus() >= 2
            and config.weights.get("body", 0) > 0
        )

    @classmethod
    def spawn(cls, config: RouterConfig) -> BodyPrefetch | None:
        """A helper process waiting for its job (`feed`); None where it would not pay."""
        if not cls.available(config):
            return None
        proc = _take_spare() or _popen()
        return None if proc is None else cls(proc, config)

    def feed(self, candidates: Sequence[Candidate]) -> None:
        """Give the helper more of the catalog's candidates to tokenize, after the ones
        before (a file already given is skipped). Never blocks: a thread writes."""
        files = []
        for c in candidates:
            real = str(c.real_path)
            if real not in self.order:
                self.order[real] = len(self.order)
                st = c.stat
                files.append((str(c.path), real, st.st_mtime_ns, st.st_size, st.st_ino))
        if files:
            self._jobs.put({"files": files})

    def end(self) -> None:
        """No more files: the helper finishes those it has and says it is done."""
        self._jobs.put({"end": True})

    def _feed(self) -> None:
        """The writer thread: the config, then each batch of files as it comes."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            job: dict[str, object] = {"config": self.config}
            while True:
                write_frame(stdin, job)
                if job.get("end"):
                    break
                job = self._jobs.get()
            stdin.close()
        except (OSError, ValueError):  # the helper is gone (or was stopped): nothing to do
            _kill(self.proc)

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                frame = read_frame(out)
                self.frames.put(frame)
                if frame.get("done"):
                    break
        except EOFError:
            self.error = self.error or "the helper ended without finishing"
        except Exception as exc:  # too long, cut short, not a pickle: give up, never raise
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.frames.put(None)
            out.close()

    def ready(self) -> list[dict[str, object]]:
        """The frames that have arrived since the last call; never waits."""
        out = []
        while True:
            try:
                frame = self.frames.get_nowait()
            except queue.Empty:
                return out
            if frame is None:
                self.frames.put(None)  # stays the last word for a later call
                return out
            out.append(frame)

    def close(self) -> None:
        _kill(self.proc)


class ScanFeed:
    """What the catalog's scan calls to start and feed a helper: `found` with batches as
    the scan goes, `scanned` with every candidate at its end. The helper starts once
    `minimum` files are known, and `claim` hands it to the router's token cache."""

    def __init__(
        self, config: RouterConfig, minimum: int, claim: Callable[[BodyPrefetch], bool]
    ) -> None:
        self.config = config
        self.minimum = minimum
        self.claim = claim  # BodyPrefetch -> bool: False when the cache no longer wants one
        self.helper: BodyPrefetch | None = None
        self._seen: list[Candidate] = []
        self._given_up = False

    def attach(self, catalog: Catalog) -> None:
        catalog.on_found, catalog.on_scanned = self.found, self.scanned

    def found(self, batch: list[Candidate]) -> None:
        if self._given_up:
            return
        if self.helper is None:
            self._seen.extend(batch)
            if len(self._seen) >= self.minimum:
                self._start(self._seen)
                self._seen = []
        else:
            self.helper.feed(batch)

    def scanned(self, candidates: list[Candidate]) -> None:
        if self._given_up:
            return
        if self.helper is None and len(candidates) >= self.minimum:
            self._start(candidates)
        elif self.helper is not None:
            self.helper.feed(candidates)  # the last few; those given before are skipped
        if self.helper is not None:
            self.helper.end()
        self._given_up = True  # one scan only

    def _start(self, candidates: list[Candidate]) -> None:
        try:
            pf = BodyPrefetch.spawn(self.config)
            if pf is None:
                self._given_up = True
                return
            if not self.claim(pf):
                pf.close()
                self._given_up = True
                return
            self.helper = pf
            pf.feed(candidates)
        except Exception:  # an optimisation that failed: the build does it all itself
            self._given_up = True
