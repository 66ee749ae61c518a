"""codebot: an interactive terminal coding agent whose expertise lives in skills.

This module stays tiny on purpose: every command pays for what it imports, so heavy
libraries (litellm, textual, prompt_toolkit) are imported only where they are used.
"""

import time as _time

#: Process-relative start time, read by the UI to log "started in N ms".
STARTED_AT = _time.perf_counter()

__version__ = "0.1.0"
