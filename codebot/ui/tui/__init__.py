"""The full-screen terminal UI (Textual).

`run_tui` is the entry point. textual is imported inside it (and only in this package),
so importing `codebot.ui.tui` costs nothing and other commands never load textual.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codebot.config import Settings
from codebot.home import private_dir, private_fd

EXIT_AFTER_PAINT = "CODEBOT_EXIT_AFTER_PAINT"


def run_tui(
    settings: Settings,
    *,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    resume=None,
    extra_dirs: Sequence[Path] = (),
    initial_prompt: str | None = None,
) -> int:
    """Run the TUI until the person quits; the exit code. `resume` is a ResumeChoice or None;
    `extra_dirs` are the `--add-dir` folders; `initial_prompt` is sent as the first message
    once the session is ready (`codebot "fix the bug"`).

    The screen is painted before the session is built (its imports and the catalog load
    happen in a thread right after), unless resuming, which is checked first.

    With CODEBOT_EXIT_AFTER_PAINT=1 it quits once painted and ready, printing
    `{"first_paint_ms": N, "ready_ms": R, "painted_at": T}` (for bench/startup.py): N and
    R count from the first import of codebot, T is `time.monotonic()` at the first frame.
    """
    _log_to(settings.home / "debug.log")

    def make_controller():
        from codebot.ui.controller import Controller

        return Controller(
            settings, interactive=True, allow=allow, deny=deny, resume=resume, extra_dirs=extra_dirs
        )

    controller = None
    if resume is not None and (resume.continue_latest or resume.session_id):
        # A wrong session id should be a plain error before the screen changes.
        from codebot.agent.session import SetupError

        try:
            controller = make_controller()
        except SetupError as exc:
            print(f"codebot: {exc}", file=sys.stderr)
            return 2
    build = make_controller
    if controller is None:
        # Built while textual loads and paints (a thread started before its import), not
        # after the first frame: with a large catalog the session is then ready about when
        # the person starts typing. The app's setup worker waits for it.
        # A daemon thread: quitting while it still reads the catalog must not wait for it.
        import threading
        from concurrent.futures import Future

        made: Future[Any] = Future()

        def build_now() -> None:
            try:
                made.set_result(make_controller())
            except BaseException as exc:  # reported by the app's setup worker
                made.set_exception(exc)

        threading.Thread(target=build_now, name="codebot-setup", daemon=True).start()
        build = made.result
    from codebot.ui.tui.app import CodebotApp

    exit_after_paint = os.environ.get(EXIT_AFTER_PAINT) == "1"
    app = CodebotApp(
        controller,
        settings=settings,
        make_controller=build,
        exit_after_paint=exit_after_paint,
        initial_prompt=initial_prompt,
    )
    try:
        code = app.run()
    finally:
        if app.controller is not None:
            app.controller.close()
        from codebot.agent.tools.shell import kill_all

        kill_all()  # Textual may own the signal handlers: end what Bash started, here too
    if exit_after_paint:
        print(
            json.dumps(
                {
                    "first_paint_ms": app.first_paint_ms,
                    "ready_ms": app.ready_ms,
                    "painted_at": app.painted_at,
                }
            ),
            flush=True,
        )
    elif app.controller is not None:
        # The full screen is gone with the app: leave the end of the conversation in the
        # scrollback, and how to come back to it.
        print(farewell(app.controller.session), flush=True)
    return code if isinstance(code, int) else (app.return_code or 0)


def farewell(session) -> str:
    """The last exchange (clipped) and `session ID · codebot --continue (or --resume ID)`;
    "" for a session with no message."""
    if not session.history:
        return ""
    from codebot.display import strip_escapes
    from codebot.ui.resume_view import resume_view

    lines = []
    for item in resume_view(session.history, session.id, None, last=1, max_lines=12)[1:]:
        mark = {"user": "> ", "tool": "  ⚙ ", "note": "  "}.get(item.kind, "")
        status = f" · {item.status}" if item.kind == "tool" and item.status else ""
        lines.append(mark + strip_escapes(item.text).replace("\n", "\n" + " " * len(mark)) + status)
    lines.append(f"session {session.id} · codebot --continue (or codebot --resume {session.id})")
    return "\n".join(lines)


def _log_to(path: Path) -> None:
    """Send codebot's log records to $CODEBOT_HOME/debug.log (never the terminal the UI owns)."""
    logger = logging.getLogger("codebot")
    if any(isinstance(h, logging.FileHandler) for h in logger.handlers):
        return
    try:
        # Made 0600 first (FileHandler would use the umask): log records can quote prompts.
        private_dir(path.parent)
        os.close(private_fd(path))
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
