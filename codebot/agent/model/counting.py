"""Token counts for real models: tiktoken's encodings, read from the copies litellm ships,
without importing litellm and never from the network.

Both provider paths count with this, so a conversation is compacted at the same point
whichever path served it. Loading the encodings takes ~100–250 ms, so it happens in the
background: the TUI's and line mode's warm-up thread after the first paint, or a thread
the first request starts. Until then `count` gives `estimate_tokens`. When an answer asks
for tools (so another request follows in the same turn), the client waits for the load
before handing the answer on: from the second request of a turn on, counts are exact,
whatever the thread's timing (the compaction points do not depend on it).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Callable
from pathlib import Path

from codebot.agent.model.tokens import estimate_tokens

#: OpenAI's newer families count with o200k_base; every other model with cl100k_base, as
#: litellm's counter does for models it has no tokenizer of their own for.
_O200K = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")
_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"

_lock = threading.Lock()
_encoders: dict[str, Callable[[str], int]] = {}
_loaded = False
_started = False


def encoding_for(model: str) -> str:
    name = model.rpartition("/")[2]
    return "o200k_base" if name.startswith(_O200K) else "cl100k_base"


def _bundled_dir() -> Path | None:
    """litellm's folder of tiktoken files (named by the sha1 of their URL, tiktoken's cache
    layout), when litellm is installed."""
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    for place in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(place) / "litellm_core_utils" / "tokenizers"
        if folder.is_dir():
            return folder
    return None


def _load_encoding(name: str, folder: Path) -> Callable[[str], int] | None:
    """The counter of encoding `name` from `folder`; None when its file is not there (then
    tiktoken would download it, which codebot never lets it do)."""
    if not (folder / hashlib.sha1(_URL.format(name).encode()).hexdigest()).is_file():
        return None
    saved = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)  # where tiktoken looks before any fetch
    try:
        import tiktoken

        encoding = tiktoken.get_encoding(name)
    except Exception:
        return None
    finally:
        if saved is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = saved
    return lambda text: len(encoding.encode_ordinary(text))


def load() -> None:
    """Load both encodings (call off the event loop; ~80 ms each, once)."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        folder = _bundled_dir()
        if folder is not None:
            for name in ("cl100k_base", "o200k_base"):
                counter = _load_encoding(name, folder)
                if counter is not None:
                    _encoders[name] = counter
        _loaded = True


def load_soon() -> None:
    """Start `load` in a background thread, once (the first request calls it; nothing waits
    for it: counts are estimates until it is done)."""
    global _started
    with _lock:
        if _started or _loaded:
            return
        _started = True
    threading.Thread(target=load, name="token-counter", daemon=True).start()


def loaded() -> bool:
    return _loaded


def count(model: str, text: str) -> int:
    """Tokens `text` costs for `model`: the encoding's count once loaded, else the estimate."""
    counter = _encoders.get(encoding_for(model)) if _loaded else None
    return counter(text) if counter is not None else estimate_tokens(text)
