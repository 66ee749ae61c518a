"""How much each skill has been used lately: the usage score that orders the listing.

Every use of a skill counts 1 and then decays with a half-life (7 days by default):

    score(skill) = max(0.10, sum over uses of 0.5 ** (age_days / half_life_days))

A skill recorded at least once never scores below `FLOOR` (0.10), so it stays ahead of
skills never used. The sum is kept compactly, one running total per skill and the time
it was computed, because the decayed sum can be carried forward exactly:

    total_now = total_then * 0.5 ** ((now - then) / half_life) + 1

so the file grows with the number of skills, never with the number of uses.

The file (`$CODEBOT_HOME/skill-usage.json`) is shared by every codebot process of the
user. `record()` takes a `filelock` lock beside it, reads the file again, adds the use
and writes the result atomically (temp file + fsync + `os.replace`), so two processes
recording at once lose nothing and a reader never sees half a file.

Nothing here raises: a corrupt file is moved aside (`skill-usage.json.corrupt-<time>`)
and counting starts again; a file that cannot be written (no path, read-only folder,
lock timeout) turns the tracker into an in-memory counter for the rest of the session.
Either way a warning is added to `tracker.warnings` and logged on "codebot.usage".

Only skill names and times are stored; never arguments, prompts or file contents.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from codebot.home import FILE_MODE, private_dir, write_private

if TYPE_CHECKING:
    import filelock


def _filelock():  # imported when a lock is taken, not at start (~8 ms of every run)
    import filelock

    return filelock


FORMAT = 1
FILENAME = "skill-usage.json"
#: The lowest score of a skill that was recorded at least once.
FLOOR = 0.10
#: Seconds `record()` waits for another process's lock before counting in memory.
LOCK_TIMEOUT = 5.0
DAY = 86400.0

log = logging.getLogger("codebot.usage")

# name -> (decayed total, epoch seconds at which the total was computed)
_Totals = dict[str, tuple[float, float]]


def default_path(home: Path) -> Path:
    """`<home>/skill-usage.json`; pass `Settings.home` (that is, `$CODEBOT_HOME`)."""
    return Path(home) / FILENAME


class CorruptUsageFile(ValueError):
    """The usage file is not JSON or does not have the expected shape."""


class UsageTracker:
    """Decayed per-skill use counts, persisted in one JSON file shared by processes.

    `record(name)` and `scores()` never raise. `name` is the skill's normalized key
    (`Spec.key`), so `Code_Review` and `code-review` count as one skill.
    """

    def __init__(self, path: Path | None, half_life_days: float = 7.0) -> None:
        if not half_life_days > 0:
            raise ValueError(f"half_life_days must be positive, not {half_life_days!r}")
        self.path = Path(path) if path is not None else None
        self.half_life_days = float(half_life_days)
        self.warnings: list[str] = []
        self._lock = threading.Lock()
        # Uses that could not be written to the file, kept for this session only.
        self._memory: _Totals = {}
        # Why the file is not used for writing (None while it is).
        self._memory_reason: str | None = (
            None if self.path is not None else "no usage file configured"
        )
        self._warned_memory = False
        # What the file held last time it was read: (stamp, totals).
        self._cache: tuple[tuple[int, int, int] | None, _Totals] = (None, {})

    # -- public ---------------------------------------------------------------------------

    @property
    def persistent(self) -> bool:
        """True while uses are written to the file (False once counting in memory)."""
        return self._memory_reason is None

    def record(self, name: str, now: float | None = None) -> None:
        """Count one use of `name` at `now` (epoch seconds, default: the current time)."""
        if not name:
            return
        now = time.time() if now is None else float(now)
        with self._lock:
            if self._memory_reason is None:
                try:
                    self._record_in_file(name, now)
                    return
                except Exception as exc:  # never raise: count in memory instead
                    self._memory_reason = _describe_failure(exc, self.path)
            self._note_memory()
            _add(self._memory, name, 1.0, now, self._half_life_s)

    def scores(self, now: float | None = None) -> dict[str, float]:
        """Every recorded skill's current score (at least `FLOOR`), by name."""
        now = time.time() if now is None else float(now)
        with self._lock:
            try:
                totals = dict(self._read_cached())
            except Exception as exc:  # never raise: a broken file only loses the history
                self._warn_once(f"usage file {self.path} is unusable ({exc}); ignoring it")
                totals = {}
            for name, (total, at) in self._memory.items():
                _add(totals, name, total, at, self._half_life_s)
        return {
            name: max(FLOOR, self._decay(total, at, now)) for name, (total, at) in totals.items()
        }

    def score(self, name: str, now: float | None = None) -> float:
        """One skill's score; 0.0 for a skill never recorded."""
        return self.scores(now).get(name, 0.0)

    # -- decay --------------------------------------------------------------------------

    @property
    def _half_life_s(self) -> float:
        return self.half_life_days * DAY

    def _decay(self, total: float, at: float, now: float) -> float:
        # A use "in the future" (another machine's clock) counts as happening now.
        age = max(0.0, now - at)
        return total * 0.5 ** (age / self._half_life_s)

    # -- the file ---------------------------------------------------------------------------

    def _record_in_file(self, name: str, now: float) -> None:
        assert self.path is not None
        private_dir(self.path.parent)
        with _lock(self.path):
            totals = self._load_locked()
            _add(totals, name, 1.0, now, self._half_life_s)
            _write_atomic(self.path, _dump(totals))
            self._cache = (_stamp(self.path), totals)

    def _load_locked(self) -> _Totals:
        """Read the file while holding the lock; move a corrupt one aside."""
        assert self.path is not None
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except IsADirectoryError:
            raise  # not ours to move: count in memory instead
        except OSError as exc:
            self._quarantine(f"cannot be read ({exc.strerror or exc})")
            return {}
        try:
            return _parse(data)
        except CorruptUsageFile as exc:
            self._quarantine(str(exc))
            return {}

    def _read_cached(self) -> _Totals:
        """The file's totals; read again only when its stamp changed. Never raises."""
        if self.path is None:
            return {}
        stamp = _stamp(self.path)
        cached_stamp, cached = self._cache
        if stamp is not None and stamp == cached_stamp:
            return cached
        if stamp is None:
            self._cache = (None, {})
            return {}
        try:
            totals = _parse(self.path.read_bytes())
        except FileNotFoundError:
            totals = {}
        except (OSError, CorruptUsageFile) as exc:
            totals = {}
            if self._memory_reason is None:
                # Move it aside now, under the lock, unless a writer fixed it meanwhile.
                try:
                    with _lock(self.path):
                        totals = self._load_locked()
                        stamp = _stamp(self.path)
                except (OSError, _filelock().Timeout) as exc2:
                    self._warn_once(f"usage file {self.path} is unusable ({exc2}); ignoring it")
            else:
                self._warn_once(f"usage file {self.path} is unusable ({exc}); ignoring it")
        self._cache = (stamp, totals)
        return totals

    def _quarantine(self, why: str) -> None:
        assert self.path is not None
        aside = _aside_name(self.path)
        os.replace(self.path, aside)  # an OSError here sends the caller to memory mode
        self._warn(
            f"usage file {self.path} {why}; moved it to {aside.name} and started counting afresh"
        )
        self._cache = (None, {})

    # -- warnings -------------------------------------------------------------------------

    def _note_memory(self) -> None:
        if not self._warned_memory:
            self._warned_memory = True
            self._warn(
                f"skill usage is counted in memory for this session only: {self._memory_reason}"
            )

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        log.warning("%s", message)

    def _warn_once(self, message: str) -> None:
        if message not in self.warnings:
            self._warn(message)


# -- helpers ------------------------------------------------------------------------------


def _add(totals: _Totals, name: str, amount: float, at: float, half_life_s: float) -> None:
    """Add `amount` uses made at `at` to the running total of `name`, exactly."""
    old = totals.get(name)
    if old is None:
        totals[name] = (amount, at)
        return
    total, then = old
    if at >= then:
        totals[name] = (total * 0.5 ** ((at - then) / half_life_s) + amount, at)
    else:  # an older use arriving late: decay it to the stored reference time
        totals[name] = (total + amount * 0.5 ** ((then - at) / half_life_s), then)


def _parse(data: bytes) -> _Totals:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise CorruptUsageFile(f"is not valid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise CorruptUsageFile("is not a JSON object")
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise CorruptUsageFile(f"has format {fmt!r}, expected {FORMAT}")
    skills = doc.get("skills", {})
    if not isinstance(skills, dict):
        raise CorruptUsageFile('has a "skills" entry that is not an object')
    out: _Totals = {}
    for name, entry in skills.items():
        if not isinstance(entry, dict):
            raise CorruptUsageFile(f"has an entry for {name!r} that is not an object")
        total, at = entry.get("total"), entry.get("at")
        if not (_finite(total) and _finite(at) and total >= 0):
            raise CorruptUsageFile(f"has an entry for {name!r} without a valid total and time")
        out[name] = (float(total), float(at))
    return out


def _finite(v: object) -> TypeGuard[float]:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _dump(totals: _Totals) -> bytes:
    doc = {
        "format": FORMAT,
        "skills": {
            name: {"total": total, "at": at} for name, (total, at) in sorted(totals.items())
        },
    }
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _lock(path: Path) -> filelock.FileLock:
    # The lock file beside the usage file is owner-only too (filelock's default is 0644).
    return _filelock().FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT, mode=FILE_MODE)


def _write_atomic(path: Path, data: bytes) -> None:
    write_private(path, data)  # 0600 before the first byte, atomic, durable


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _aside_name(path: Path) -> Path:
    base = f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}"
    aside = path.with_name(base)
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{base}-{n}")
    return aside


def _describe_failure(exc: BaseException, path: Path | None) -> str:
    if isinstance(exc, _filelock().Timeout):
        return f"another codebot held {path}.lock for more than {LOCK_TIMEOUT:g} s"
    if isinstance(exc, OSError):
        where = exc.filename or path
        return f"cannot write {where} ({exc.strerror or exc})"
    return f"cannot use {path} ({exc})"
